# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# mig.sh: the migration suite's shared parts, on top of the vif suite's
# vif.sh (and so topo.sh, netns.sh and tests/lib).  Two full-boot hosts,
# cabled twice (tests/vm-run.sh --hosts 2):
#
#   roam-host1                                  roam-host2
#   guest g1 (starts here, VLAN 10)             ns1 peer 198.51.100.1 (p1 tag=10)
#   ns2 observer 198.51.100.2 (p2 tag=20)       ns4 beacon 198.51.100.4 (p4 tag=20)
#     |                                           |
#   br0 --- $ROAM_UPLINK (trunk 10,20) ====== $ROAM_UPLINK --- br0
#   eth0 192.0.2.1 ========= host link ========= eth0 192.0.2.2
#                  (libvirt, the migration stream, this suite's RPC)
#
# Host 1 conducts: its cases run the scenario and ask host 2 for what
# must happen there with `peer CMD`, which host 2 runs in its own copy of
# this job (mig_serve), this file sourced.  The guest runs `roam-traffic
# echo` on 198.51.100.21:7000; ns1 keeps `roam-traffic probe` going to it
# (one TCP exchange and one UDP datagram every 10 ms), and its report for
# the window around each migration is that migration's measurement.

# shellcheck source=../vif/vif.sh
. ./vif.sh
# shellcheck source=../lib/wait.sh
. lib/wait.sh
# shellcheck source=measure.sh
. ./measure.sh
# shellcheck source=../vm/roam.sh
. "$ROAM_LIB"

# The migrated guest runs under the host's KVM: its pause is what the
# suite measures, and TCG inside TCG would stretch it (vif.sh GUEST_VIRT).
GUEST_VIRT=${ROAM_GUEST_VIRT:-kvm}

MIG=/run/roam-mig
mkdir -p "$MIG"
GUEST=g1
GUEST_IP=$(guest_ip 1)
GUEST_MAC=$(guest_mac 1)
ECHO_PORT=7000
# the echo's UDP receive buffer (bytes; 0: the guest's default, 208 KiB):
# at the resume the guest gets at once what was queued for it during the
# pause, which the default does not hold (README, "The migration suite")
ECHO_RCVBUF=${MIG_ECHO_RCVBUF:-8388608}
# the ACL of the scenario's orchestrator step: nobody reaches the
# guest's TCP port 7001 (the echo does not listen there: without the
# rule the guest answers with a RST, with it nothing comes back), with a
# cookie, as orchestrators mark their rules (a record's delete must match
# it: ovs-ofctl refuses to delete with a bare cookie)
ACL_PORT=7001
ACL="cookie=0xac1,priority=200,tcp,dl_dst=$GUEST_MAC,tp_dst=$ACL_PORT,actions=drop"
# clocksync.py's server on host 1, for 00-start
CLOCK_PORT=7010
# the cookie of the agent's delivery rules (migrate-agent/switchover.c)
DELIVERY_COOKIE=0x726f616d64656c69
# the orchestrator's policing of the guest's port (kbit/s, kbit)
POLICE_RATE=20000
POLICE_BURST=2000
# what port_settings prints for the guest's port once the orchestrator
# has set it
GUEST_SETTINGS="tag=10 rate=$POLICE_RATE burst=$POLICE_BURST acl=1 floods=1"
host_name() { echo "roam-host$1"; }
host_addr() { echo "192.0.2.$1"; }
libvirt_uri() { echo "qemu+tcp://$(host_name "$1")/system"; }

# mig_bridge: br0, with the uplink as a trunk of VLANs 10 and 20.
mig_bridge() {
	"${VSCTL[@]}" --may-exist add-br br0 \
		-- --may-exist add-port br0 "$ROAM_UPLINK" trunks=10,20 vlan_mode=trunk
}

# ns_access N VLAN: nsN (198.51.100.N, see netns.sh) on an access port of
# br0 in VLAN.
ns_access() {
	ns_add "$1" && "${VSCTL[@]}" add-port br0 "p$1" tag="$2"
}

# The RPC between the hosts, over their shared directory: host 1 writes a
# command, host 2 runs it in a bash that has sourced this file (so helpers
# and the job's tools are there), and answers with its output and status.
# A command that must outlive its call runs in the background with
# setsid, its output to a file.
RPC=$ROAM_SHARED/.rpc

# mig_serve TOPIC: host 2 runs host 1's commands for TOPIC (a case) until
# host 1 says "done" (peer_done TOPIC).
mig_serve() {
	local topic=$1 n=0 f

	mkdir -p "$RPC"
	while :; do
		f=$RPC/$topic.$n
		wait_for 36000 test -e "$f.cmd" || return 1
		[ "$(cat "$f.cmd")" != __done__ ] || return 0
		bash -c ". ./mig.sh && $(cat "$f.cmd")" >"$f.out.tmp" 2>&1 </dev/null
		echo $? >"$f.rc.tmp"
		mv "$f.out.tmp" "$f.out"
		mv "$f.rc.tmp" "$f.rc"
		n=$((n + 1))
	done
}

# peer CMD: run CMD (one string, shell syntax) on host 2 within the
# current case; print its output, return its status (124: no answer in
# 300 s).  The calls are numbered in a file, not a variable: a call in a
# command substitution runs in a subshell, and must count too.
peer() {
	local n f

	n=$(cat "$MIG/rpc.$MIG_TOPIC" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$MIG/rpc.$MIG_TOPIC"
	f=$RPC/$MIG_TOPIC.$n
	mkdir -p "$RPC"
	printf '%s\n' "$1" >"$f.cmd.tmp" && mv "$f.cmd.tmp" "$f.cmd" || return 1
	wait_for 1500 test -e "$f.rc" || {
		echo "host 2 did not answer '$1' within 300 s"
		return 124
	}
	cat "$f.out"
	return "$(cat "$f.rc")"
}

# on_host HOST FUNC [ARG...]: FUNC ARG... on HOST, 1 (here) or 2 (through
# peer; the arguments must not need quoting).
on_host() {
	local host=$1
	shift
	if [ "$host" = 2 ]; then
		peer "$*"
	else
		"$@"
	fi
}

# peer_done: host 2's part of the current case ends.
peer_done() {
	printf '__done__\n' >"$RPC/$MIG_TOPIC.$(cat "$MIG/rpc.$MIG_TOPIC" 2>/dev/null || echo 0).cmd"
}

# mig_case TOPIC: on host 2, serve TOPIC and return 0 (the case then ends
# there: `mig_case NAME || return 0` at its top); on host 1, return 1 and
# let the case go on, with peer commands under TOPIC.
mig_case() {
	MIG_TOPIC=$1
	if [ "$ROAM_HOST_INDEX" -eq 2 ]; then
		check "host 2 served host 1's commands for $1" mig_serve "$1"
		return 0
	fi
	return 1
}

# guest_dom_xml: the guest's domain: VLAN-less on br0 (the orchestrator
# sets its VLAN on the port), echoing on $ECHO_PORT.
guest_dom_xml() {
	dom_xml "$GUEST" 1 "$(iface_bridge "$GUEST_MAC")" "" "echo,$ECHO_PORT,$ECHO_RCVBUF"
}

# guest_port: the guest's port on this host.
guest_port() {
	local port

	port=$(dom_tap "$GUEST") || return 1
	[ -n "$port" ] || { echo "$GUEST has no port here"; return 1; }
	echo "$port"
}

# guest_state HOST: the guest's state on HOST as virsh domstate says it
# (nothing when HOST has no such domain).
guest_state() {
	virsh -c "$(libvirt_uri "$1")" -q domstate "$GUEST" 2>/dev/null
}

# guest_runs_on HOST: the guest runs on HOST; guest_why HOST: why not
# (vif.sh dom_why, there).
guest_runs_on() {
	[ "$(guest_state "$1")" = running ]
}

guest_why() {
	on_host "$1" dom_why "$GUEST"
}

# guest_listens: the guest runs here, and its console says its echo
# listens.  guest_listens_or_gone: that, or the guest has stopped:
# waiting on for it is no use (it took 6 minutes once, 2026-12-07: 600
# tries of guest_listens and their virsh runs).  One virsh run a try.
guest_listens() {
	guest_running_here && echo_listens
}

guest_listens_or_gone() {
	! guest_running_here || echo_listens
}

# guest_running_here: guest_runs_on for this host, through its local
# libvirtd socket rather than over TCP.
guest_running_here() {
	[ "$(virsh -q domstate "$GUEST" 2>/dev/null)" = running ]
}

echo_listens() {
	grep -F -- "echo: listening on $ECHO_PORT" "/var/log/roam-$GUEST.console" \
		>/dev/null
}

# orchestrate: what an orchestrator does to the running guest's port on
# host 1, outside libvirt: its VLAN, its policing, and its ACL.
orchestrate() {
	local port

	port=$(guest_port) || return 1
	"${VSCTL[@]}" set Port "$port" tag=10 \
		-- set Interface "$port" ingress_policing_rate=$POLICE_RATE \
		ingress_policing_burst=$POLICE_BURST &&
		ovs-ofctl add-flow br0 "$ACL"
}

# port_floods PORT: 1 if br0 floods to PORT, 0 if its no-flood is set
# (the agent holds floods to an incoming guest's port until it resumes,
# switchover.h).
port_floods() {
	local show

	show=$(ovs-ofctl show br0) || return 1
	awk -v p="($1):" 'index($0, p) { mine = 1; next }
		mine && /config:/ { print (/NO_FLOOD/ ? 0 : 1); exit }' <<<"$show"
}

# port_settings: the guest's port's VLAN and policing here, whether its
# ACL is in br0, and whether the bridge floods to it (port_floods):
# "tag=10 rate=20000 burst=2000 acl=1 floods=1".
port_settings() {
	local port acl vlan rate burst

	port=$(guest_port) || return 1
	# one ovs-vsctl run (each takes the best part of a second here)
	{ read -r vlan && read -r rate && read -r burst; } < <("${VSCTL[@]}" \
		get Port "$port" tag -- get Interface "$port" \
		ingress_policing_rate ingress_policing_burst) || return 1
	acl=$(ovs-ofctl dump-flows br0 "tcp,dl_dst=$GUEST_MAC,tp_dst=$ACL_PORT") ||
		return 1
	printf 'tag=%s rate=%s burst=%s acl=%s floods=%s\n' "$vlan" "$rate" "$burst" \
		"$(grep -c 'actions=drop' <<<"$acl")" "$(port_floods "$port")"
}

# probe_start MODE: ns1 (host 2) starts probing the guest; its reports go
# to $MIG/probe.MODE, its trace to $MIG/trace.MODE.
probe_start() {
	setsid ip netns exec ns1 "$ROAM_GUEST/roam-traffic" probe "$GUEST_IP" \
		"$ECHO_PORT" 10 "$MIG/trace.$1" >"$MIG/probe.$1" 2>&1 </dev/null &
	echo $! >"$MIG/probe.pid"
}

# probe_window MODE N: the report of the window that ends now, the N-th
# (from 1); the next window starts.
probe_window() {
	kill -USR1 "$(cat "$MIG/probe.pid")" || return 1
	wait_for 50 eval "[ \$(grep -c '^probe:' '$MIG/probe.$1') -ge $2 ]" || {
		echo "probe wrote no report $2:"
		cat "$MIG/probe.$1"
		return 1
	}
	grep '^probe:' "$MIG/probe.$1" | sed -n "$2p"
}

# probe_stop: the probe ends (its last report is not a window's).
probe_stop() {
	local pid

	pid=$(cat "$MIG/probe.pid") || return 1
	kill "$pid" && wait_for_exit "$pid" 50
}

# events_start: both hosts' libvirt events, as virsh prints them, in
# $MIG/events.N (read by downtime).
ev_pids=()
events_start() {
	local n

	for n in 1 2; do
		virsh -c "$(libvirt_uri "$n")" event --all --loop --timestamp \
			>"$MIG/events.$n" 2>&1 &
		ev_pids+=($!)
	done
}

events_stop() {
	[ ${#ev_pids[@]} -eq 0 ] || kill "${ev_pids[@]}" 2>/dev/null
	ev_pids=()
	return 0
}

# migrate FROM TO [ARG...]: live-migrate the guest from host FROM to host
# TO the way FACTS.md's libvirt settings say, the stream over the host
# link, with virsh migrate's ARGs; prints the VM downtime libvirt reported
# (the source's job-completed event; the destination's when the source
# sent none within 30 s).
migrate() {
	local from=$1 to=$2 before_src before_dst dt t
	shift 2

	before_src=$(downtimes "$from" | wc -l)
	before_dst=$(downtimes "$to" | wc -l)
	t=$EPOCHREALTIME
	virsh -c "$(libvirt_uri "$from")" migrate --live "$GUEST" \
		"$(libvirt_uri "$to")" --migrateuri "tcp://$(host_addr "$to")" \
		"$@" >/dev/null || return 1
	secs "$t" "$EPOCHREALTIME" >"$MIG/migrate.secs"
	if wait_for 150 eval "[ \$(downtimes $from | wc -l) -gt $before_src ]"; then
		dt=$(downtimes "$from" | sed -n "$((before_src + 1))p")
	elif [ "$(downtimes "$to" | wc -l)" -gt "$before_dst" ]; then
		dt=$(downtimes "$to" | sed -n "$((before_dst + 1))p")
	else
		echo "no job-completed event with a downtime from either host"
		return 1
	fi
	echo "$dt"
}

# uplink_cap NAME: capture every frame of the guest's MAC on this host's
# uplink, both ways, in $CAPS/NAME.pcap (64 bytes of each), and what
# each of the guest's taps here passes to the guest in
# NAME.tap.IFINDEX.pcap (tap_caps), in the background (they outlive a
# peer call); uplink_counts NAME stops them and prints "untagged=U
# vlan10=T tap=N own=O": the uplink's frames of the guest's untagged and
# in VLAN 10, the frames the taps passed to the guest, and of those the
# guest's own (its MAC the source: issue 18's "none of its own frames
# back").  With MIG_PCAP set, the uplink's frames
# also go to NAME.in.pcap and NAME.out.pcap (as received and as sent;
# 128 bytes of each), and on the peer's host what the peer's port passed
# to it of the guest's to NAME.p1.pcap; uplink_counts copies those and
# the taps' (and, in NAME.tapin.IFINDEX.pcap, what the guest sent into
# them) to the run's out/ directory for tests/migration/lossmap.py and
# gapmap.py, with ovs-vswitchd's log as NAME.vswitchd.log: in MIG_PCAP
# runs it logs each datapath operation (module dpif at debug: flows put
# and deleted, upcalled packets executed), to tell which of the frames
# lost between the uplink and a tap ovs-vswitchd saw, and what it did.
uplink_cap() {
	local way err

	rm -f "$CAPS/$1" "$CAPS/$1".*
	if [ -n "${MIG_PCAP:-}" ]; then
		ovs-appctl vlog/set dpif:file:dbg >/dev/null || return 1
	fi
	# to a file, read at the end: printing 400 frames a second took a
	# host's CPU from the migrations it times
	setsid timeout 1800 tcpdump -i "$ROAM_UPLINK" -Q inout -s 64 -U \
		-w "$CAPS/$1.pcap" ether host "$GUEST_MAC" \
		>/dev/null 2>"$CAPS/$1.err" </dev/null &
	echo $! >"$MIG/$1.pid"
	for way in ${MIG_PCAP:+in out}; do
		setsid timeout 1800 tcpdump -i "$ROAM_UPLINK" -Q "$way" -s 128 -U \
			-w "$CAPS/$1.$way.pcap" ether host "$GUEST_MAC" \
			>/dev/null 2>"$CAPS/$1.$way.err" </dev/null &
		echo $! >"$MIG/$1.$way.pid"
	done
	setsid timeout 1800 bash -c ". ./mig.sh && tap_caps '$1'" \
		>/dev/null 2>&1 </dev/null &
	echo $! >"$MIG/$1.taps.pid"
	# the peer's port, where the peer is: what reaches it of the guest's
	if [ -n "${MIG_PCAP:-}" ] && [ -e /sys/class/net/p1 ]; then
		setsid timeout 1800 tcpdump -i p1 -Q out -s 128 -U \
			-w "$CAPS/$1.p1.pcap" ether src "$GUEST_MAC" \
			>/dev/null 2>"$CAPS/$1.p1.err" </dev/null &
		echo $! >"$MIG/$1.p1.pid"
	fi
	for err in "$CAPS/$1.err" ${MIG_PCAP:+"$CAPS/$1.in.err" "$CAPS/$1.out.err"}; do
		wait_for 100 grep -q 'listening on' "$err" || {
			cat "$err"
			return 1
		}
	done
}

# clock_serve, on host 1: clocksync.py's server, in the background, until
# clock_unserve.  clock_sync, on host 2: this host's clock stepped onto
# host 1's over the host link, then asked again: at most 5 ms apart,
# after at most three steps.  Prints each step's answers.
clock_serve() {
	setsid python3 ./clocksync.py serve "$CLOCK_PORT" </dev/null >/dev/null 2>&1 &
	echo $! >"$MIG/clocksync.pid"
	wait_for 100 eval "[ -n \"\$(ss -Htln 'sport = :$CLOCK_PORT')\" ]"
}

clock_unserve() {
	kill "$(cat "$MIG/clocksync.pid")"
}

clock_sync() {
	local out again try

	# up to three steps: one run was 6.6 ms off after its step
	# (2026-12-07), the emulated hosts' clocks drifting or the step's
	# process preempted
	for try in 1 2 3; do
		out=$(python3 ./clocksync.py sync "$(host_name 1)" "$CLOCK_PORT") &&
			again=$(python3 ./clocksync.py sync "$(host_name 1)" "$CLOCK_PORT" --dry-run) ||
			return 1
		echo "step $try: $out; after: $again"
		awk '{ o = $2 < 0 ? -$2 : $2; exit !(o <= 5) }' <<<"$again" && return 0
	done
	return 1
}

# tap_caps NAME: every tap of the guest's that appears on this host (its
# MAC with fe for the first octet, as libvirt sets it), captured as it
# sends to the guest in $CAPS/NAME.tap.IFINDEX.pcap, until killed; each
# tcpdump ends with its tap.  A destination's tap appears in libvirt's
# Prepare, seconds before the guest resumes.  A tap is taken once it is
# up: tcpdump refuses one that is not yet (and a tap that is down sends
# nothing), which left a host's taps uncaptured now and then.  The links
# up at the start are listed, then each change is read as it comes from
# `ip monitor`: polling with ip and awk five times a second took a good
# part of a host's CPU under TCG, beside the migrations the suite times.
tap_caps() {
	local line dev idx re
	local -A started=()

	# "IDX: NAME: <FLAGS> ... link/ether MAC ..." (a line of ip -o);
	# read by bash, since mawk holds back a pipe's lines
	re="^[0-9]+: ([^:@ ]+)[:@][^<]*<([^>]*)>.*link/ether fe${GUEST_MAC:2} "
	{
		ip -o monitor link &
		sleep 0.5
		ip -o link show
		wait
	} | while read -r line; do
		if ! [[ $line =~ $re ]] || [[ ,${BASH_REMATCH[2]}, != *,UP,* ]]; then
			continue
		fi
		dev=${BASH_REMATCH[1]}
		idx=$(cat "/sys/class/net/$dev/ifindex" 2>/dev/null) || continue
		[ -n "${started[$idx]:-}" ] && continue
		started[$idx]=1
		tcpdump -i "$dev" -Q out -s 128 -U -w "$CAPS/$1.tap.$idx.pcap" \
			>/dev/null 2>"$CAPS/$1.tap.$idx.err" </dev/null &
		# and what the guest sends into it (gapmap.py)
		[ -z "${MIG_PCAP:-}" ] ||
			tcpdump -i "$dev" -Q in -s 128 -U -w "$CAPS/$1.tapin.$idx.pcap" \
				>/dev/null 2>&1 </dev/null &
	done
}

uplink_counts() {
	local pid way f tap=0 own=0 n

	pid=$(cat "$MIG/$1.taps.pid") || return 1
	kill -- "-$pid" 2>/dev/null
	wait_for_exit "$pid" 50 || return 1
	for f in "$CAPS/$1".tap.*.err; do
		# a tap whose capture did not start: say why (stderr: the
		# check on its count says the rest)
		[ -e "$f" ] && ! grep -q 'listening on' "$f" &&
			echo "${f##*/}: $(head -c 300 "$f")" >&2
	done
	for f in "$CAPS/$1".tap.*.pcap; do
		[ -e "$f" ] || continue
		n=$(tcpdump -r "$f" -nn 2>/dev/null | wc -l) || return 1
		tap=$((tap + n))
		n=$(tcpdump -r "$f" -nn ether src "$GUEST_MAC" 2>/dev/null | wc -l) || return 1
		own=$((own + n))
		[ -z "${MIG_PCAP:-}" ] || cp "$f" "$ROAM_SHARED/out/" || return 1
	done
	for f in ${MIG_PCAP:+"$CAPS/$1".tapin.*.pcap}; do
		[ ! -e "$f" ] || cp "$f" "$ROAM_SHARED/out/" || return 1
	done
	if [ -n "${MIG_PCAP:-}" ]; then
		if [ -e "$MIG/$1.p1.pid" ]; then
			pid=$(cat "$MIG/$1.p1.pid")
			kill -INT "$pid" && wait_for_exit "$pid" 50 &&
				cp "$CAPS/$1.p1.pcap" "$ROAM_SHARED/out/" || return 1
		fi
	fi
	for way in ${MIG_PCAP:+in out}; do
		pid=$(cat "$MIG/$1.$way.pid") || return 1
		kill -INT "$pid" && wait_for_exit "$pid" 50 &&
			cp "$CAPS/$1.$way.pcap" "$ROAM_SHARED/out/" || return 1
	done
	if [ -n "${MIG_PCAP:-}" ]; then
		ovs-appctl vlog/set dpif:file:info >/dev/null &&
			cp /var/log/openvswitch/ovs-vswitchd.log \
				"$ROAM_SHARED/out/$1.vswitchd.log" || return 1
	fi
	pid=$(cat "$MIG/$1.pid") || return 1
	kill -INT "$pid" && wait_for_exit "$pid" 50 || return 1
	tcpdump -r "$CAPS/$1.pcap" -nn -e 2>/dev/null |
		awk -v tap="$tap" -v own="$own" '/ > / && !/ethertype 802\.1Q/ { u++ }
		/ethertype 802\.1Q.*vlan 10,/ { t++ }
		END { printf "untagged=%d vlan10=%d tap=%d own=%d\n", u, t, tap, own }'
}

# br0_ports: br0's ports here, the uplink's name as "uplink" and
# the guest's tap as "guest", sorted, on one line.
br0_ports() {
	local out

	out=$("${VSCTL[@]}" list-ports br0) || return 1
	sed -e "s/^$ROAM_UPLINK\$/uplink/" -e 's/^vnet[0-9]*$/guest/' <<<"$out" |
		sort | paste -sd ' '
}

# guest_rules: how many OpenFlow rules of br0 here name the
# guest's MAC.
guest_rules() {
	local out

	out=$(ovs-ofctl dump-flows br0) || return 1
	grep -c -i -F -- "$GUEST_MAC" <<<"$out" || true
}

# no_guest_rules: br0 here has no rule of the guest's.
no_guest_rules() {
	[ "$(guest_rules)" = 0 ]
}

# leave_leftovers: what an agent killed during a migration can leave
# where the guest runs, made by hand: the guest's port redirected to the
# uplink (on VLAN 10), a delivery rule for its MAC, and floods to its
# port held.
leave_leftovers() {
	local port ofport

	port=$(guest_port) || return 1
	ofport=$("${VSCTL[@]}" get Interface "$port" ofport) || return 1
	roam-redirect set ovs-system "$port" "$ROAM_UPLINK" vlan 10 >/dev/null &&
		ovs-ofctl add-flow br0 "cookie=$DELIVERY_COOKIE,priority=100,dl_dst=$GUEST_MAC,actions=output:$ofport" &&
		ovs-ofctl mod-port br0 "$port" no-flood
}

# leftovers: the datapath's redirects, br0's delivery rules and whether
# br0 floods to the guest's port here, as "redirects=R rules=N floods=F".
leftovers() {
	local r n port

	r=$(roam-redirect show ovs-system) || return 1
	n=$(ovs-ofctl dump-flows br0 "cookie=$DELIVERY_COOKIE/-1") || return 1
	port=$(guest_port) || return 1
	# roam-redirect show: "get port=3 target=1 ..." a redirect
	echo "redirects=$(grep -c ' port=' <<<"$r") rules=$(grep -c 'cookie=' <<<"$n")" \
		"floods=$(port_floods "$port")"
}

# leftovers_gone DESCRIPTION: a check that the leftovers go (150 looks,
# 0.2 s apart: the agent takes them out in its own time) and br0 floods
# to the guest's port again.
leftovers_gone() {
	# shellcheck disable=SC2016 # expanded by eval, at each try
	wait_for 150 eval '[ "$(leftovers)" = "redirects=0 rules=0 floods=1" ]'
	check_output "$1" "redirects=0 rules=0 floods=1" leftovers
}

# leftovers_cleared MODE WINDOW: on host 1, where the guest runs, a killed
# agent's leftovers (leave_leftovers; they cut the guest off) are gone
# once systemd has started the agent again.  Then the same while the
# guest is paused, as when a source's agent is killed at the pause of a
# migration that then fails: the new agent leaves a paused guest alone,
# and takes them out when it resumes (the RESUMED event with no
# migration open).  The probe's window WINDOW + 1, after both, has the
# guest's TCP and UDP whole again.
leftovers_cleared() {
	local mode=$1 w

	check "[$mode] host 1: a killed agent's leftovers for the guest (by hand)" \
		leave_leftovers
	check_output "[$mode] ... are there (the control)" "redirects=1 rules=1 floods=0" leftovers
	check "[$mode] host 1: kill -9 the agent; systemd starts it again" agent_kill
	leftovers_gone "[$mode] the new agent took them out"
	check "[$mode] host 1: the guest paused (virsh suspend)" virsh -q suspend "$GUEST"
	check "[$mode] ... its leftovers again, and the agent killed again" \
		eval 'leave_leftovers && agent_kill'
	sleep 3
	check_output "[$mode] ... the new agent leaves them to the resume (the control)" \
		"redirects=1 rules=1 floods=0" leftovers
	check "[$mode] the guest resumes (virsh resume)" virsh -q resume "$GUEST"
	leftovers_gone "[$mode] ... and the agent took them out at its resume"
	w=$(peer "probe_window $mode $2")
	tap_diag "[$mode] the window with the leftovers: $w"
	check_output "[$mode] ... in which TCP did not reset" 0 field "$w" resets
	sleep 3
	w=$(peer "probe_window $mode $(($2 + 1))")
	check "[$mode] TCP flows after the leftovers went ($w)" \
		positive "$(field "$w" tcp_echoed)"
	check "[$mode] ... both streams answer at the window's end" streams_answer "$w"
	check_output "[$mode] ... and the guest got every datagram" 0 field "$w" udp_lost
}

# recorded: the guest's live <metadata> holds its port's record with the
# orchestrator's VLAN and its ACL (what the agent keeps current).
recorded() {
	local out

	out=$(virsh -q metadata "$GUEST" urn:roamswitch:port-records:1) || return 1
	grep -E '(&quot;|")tag(&quot;|"): 10[,}]' <<<"$out" >/dev/null &&
		grep -F "tp_dst=$ACL_PORT actions=drop" <<<"$out" >/dev/null
}

# agent_start [OPTS]: the agent, started by systemd the way `meson
# install` installed it, with OPTS in its environment file (none: the
# file is removed).  A fresh timeline for each start with options.
AGENT_DEFAULTS=/etc/default/roam-migrate-agent
agent_start() {
	if [ $# -gt 0 ]; then
		echo "ROAM_AGENT_OPTS=\"$*\"" >"$AGENT_DEFAULTS" || return 1
		rm -f "$AGENT_TIMELINE"
	else
		rm -f "$AGENT_DEFAULTS"
	fi
	systemctl daemon-reload && systemctl start roam-migrate-agent &&
		systemctl is-active roam-migrate-agent
}

# timeline_check: every destination record in this host's timeline file
# has the port and its rules ready before the guest resumed, the first
# frame that reached the guest there and the first it sent there, and
# floods to the new port held
# from before the resume to after it (switchover.h); prints the records,
# and for each how long floods were held and what stale ones were taken
# out of the new tap.
AGENT_TIMELINE=/var/log/roam-migrate-agent/migrations.json
timeline_check() {
	[ -s "$AGENT_TIMELINE" ] || { echo "no timeline in $AGENT_TIMELINE"; return 1; }
	cat "$AGENT_TIMELINE"
	python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["role"] != "destination":
        continue
    t = {e["what"]: e["t"] for e in r["events"]}
    if not ("port and rules ready" in t and "guest resumed" in t and
            t["port and rules ready"] <= t["guest resumed"]):
        print("not ready before the resume:", line.strip())
        bad = 1
    for what in ("first frame to the guest here", "first frame from the guest here"):
        if what not in t:
            print("no", what + ":", line.strip())
            bad = 1
    held, again = t.get("floods to the new port held"), t.get("floods to the port again")
    if held is None or again is None or not held <= t.get("guest resumed", 0) <= again:
        print("floods not held from Prepare to the resume:", line.strip())
        bad = 1
        continue
    print("floods held %d ms after the port was ready, again %d ms after the resume; stale frames taken: %s; after the resume, the first frame to the guest %s ms, from it %s ms" % (
        held - t["port and rules ready"], again - t["guest resumed"],
        r.get("stale_frames_taken", "none (not read)"),
        t.get("first frame to the guest here", 0) - t["guest resumed"],
        t.get("first frame from the guest here", 0) - t["guest resumed"]))
sys.exit(bad)' "$AGENT_TIMELINE"
}

# timeline_detours: every source record in this host's timeline has its
# guest's frames redirected to the uplink at the pause, the kernel's
# time of the first one redirected and libvirt's downtime, and every
# destination record had its
# delivery rules in before the resume; prints, per source record, how
# long after the pause the first frame was redirected.
timeline_detours() {
	[ -s "$AGENT_TIMELINE" ] || { echo "no timeline in $AGENT_TIMELINE"; return 1; }
	python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    t = {e["what"]: e["t"] for e in r["events"]}
    if r["role"] == "destination":
        if not t.get("delivery from the uplink ready", 1e18) <= t.get("guest resumed", 0):
            print("no delivery rules before the resume:", line.strip())
            bad = 1
        continue
    if "migration failed, guest resumed here" in t:
        continue
    first = t.get("first frame redirected to the uplink")
    if "redirected to the uplink" not in t or first is None:
        print("not redirected:", line.strip())
        bad = 1
        continue
    if "downtime_ms" not in r:
        print("no downtime from libvirt:", line.strip())
        bad = 1
    print("paused to first redirected frame: %d ms, redirected to redirect set: %d ms, %s frames, %s of them queued at the pause; downtime %s ms" % (
        first - t["guest paused"], t["redirected to the uplink"] - t["guest paused"],
        r.get("redirected_frames", "?"), r.get("queued_at_pause", "?"),
        r.get("downtime_ms", "?")))
sys.exit(bad)' "$AGENT_TIMELINE"
}

# migrate_start FROM TO [ARG...]: migrate in the background; migrate_wait
# then prints its output and returns its status (124: still running after
# 300 s; the source's job as libvirt sees it is printed then).
migrate_start() {
	rm -f "$MIG/migrate.rc"
	echo "$1" >"$MIG/migrate.from"
	{
		migrate "$@" >"$MIG/migrate.out" 2>&1
		echo $? >"$MIG/migrate.rc"
	} &
}

migrate_wait() {
	wait_for 1500 test -e "$MIG/migrate.rc" || {
		echo "the migration still runs; its job on the source:"
		virsh -c "$(libvirt_uri "$(cat "$MIG/migrate.from")")" domjobinfo "$GUEST"
		return 124
	}
	cat "$MIG/migrate.out"
	return "$(cat "$MIG/migrate.rc")"
}

# incoming HOST: the guest is there, paused, while a migration brings it
# in, and its source still has a job for it (the migration has not ended).
incoming() {
	[ "$(guest_state "$1")" = paused ] &&
		virsh -c "$(libvirt_uri "$((3 - $1))")" -q domjobinfo "$GUEST" 2>/dev/null |
		grep -E '^Job type: +Unbounded' >/dev/null
}

# arriving HOST: the guest comes in on HOST, or the background migration
# has ended.
arriving() {
	incoming "$1" || test -e "$MIG/migrate.rc"
}

# agent_pid: the agent's main process as systemd knows it ("0": none).
agent_pid() {
	systemctl show -P MainPID roam-migrate-agent
}

# agent_kill [down]: kill -9 the agent; systemd starts it again
# (Restart=on-failure), and this waits for the new one; with "down" it is
# kept down instead (the restart cancelled) until systemctl start.
agent_kill() {
	local pid

	pid=$(agent_pid) || return 1
	[ "$pid" -gt 0 ] || { echo "the agent does not run"; return 1; }
	kill -9 "$pid" || return 1
	if [ "${1:-}" = down ]; then
		wait_for_exit "$pid" 50 && systemctl stop roam-migrate-agent
		return
	fi
	wait_for 100 agent_replaced "$pid" && systemctl is-active roam-migrate-agent
}

# dest_dies: this host, a migration's destination, loses every process
# of the migration at once, as a host that dies would: the incoming
# guest's QEMU, libvirtd and the agent, each with SIGKILL.  systemd
# starts libvirtd and the agent again (host_back), as after a reboot; the
# host itself stays up, since the suite goes on with it.
dest_dies() {
	local qemu libvirtd agent

	qemu=$(pgrep -f -- "-name guest=$GUEST,") || {
		echo "no QEMU of $GUEST runs here"
		return 1
	}
	libvirtd=$(systemctl show -P MainPID libvirtd) &&
		agent=$(agent_pid) || return 1
	if [ "$libvirtd" -eq 0 ] || [ "$agent" -eq 0 ]; then
		echo "libvirtd ($libvirtd) or the agent ($agent) does not run"
		return 1
	fi
	echo "$libvirtd $agent" >"$MIG/died"
	kill -9 "$qemu" "$libvirtd" "$agent"
}

# host_back: after dest_dies, libvirtd and the agent run again as new
# processes, and libvirtd answers.
host_back() {
	local old_libvirtd old_agent now

	read -r old_libvirtd old_agent <"$MIG/died" || return 1
	now=$(systemctl show -P MainPID libvirtd) && [ "$now" -gt 0 ] &&
		[ "$now" != "$old_libvirtd" ] && agent_replaced "$old_agent" &&
		virsh -q version >/dev/null
}

# link_cut: this host's end of the host link drops every frame both ways
# (a matchall drop on clsact's ingress and egress), as a pulled cable
# would, while its address stays up for connections within the host
# (virsh to this host's libvirtd, the event watchers); link_mend plugs it
# back in.  The uplink is another cable: the guest's traffic goes on.
link_cut() {
	tc qdisc add dev "$ROAM_LINK" clsact &&
		tc filter add dev "$ROAM_LINK" ingress matchall action drop &&
		tc filter add dev "$ROAM_LINK" egress matchall action drop
}

link_mend() {
	tc qdisc del dev "$ROAM_LINK" clsact
}

# ports_settle WANT: br0's ports here become WANT (br0_ports) within 20 s;
# prints them either way.
ports_settle() {
	wait_for 100 ports_are "$1"
	br0_ports
}

ports_are() {
	[ "$(br0_ports)" = "$1" ]
}

# agent_replaced PID: the agent runs again, as a process other than PID.
agent_replaced() {
	local now

	now=$(agent_pid) && [ "$now" -gt 0 ] && [ "$now" != "$1" ]
}

# state_file: the agent has a state file for the guest here.
state_file() {
	test -s "/run/roam-migrate-agent/$(guest_uuid 1).xml"
}

# expect MODE DESC WANT CMD...: with the agent (every MODE but baseline),
# a check that CMD prints WANT; without it, what CMD printed, as a diagnostic:
# the baseline shows what the agent changes, it is not held to it.
expect() {
	local mode=$1 desc=$2 want=$3 got
	shift 3

	if [ "$mode" != baseline ]; then
		check_output "[$mode] $desc" "$want" "$@"
		return
	fi
	got=$("$@" 2>&1)
	tap_diag "[$mode] $desc: '$got' (the agent's target: '$want')"
}

# guest_up MODE: the guest starts on host 1, the orchestrator sets its
# port's VLAN, policing and ACL (with MODE baseline the operator then
# records them with roam-port save; otherwise the agent must record them),
# and ns1 on host 2 starts probing it: its first two windows are used.
guest_up() {
	local mode=$1 w

	guest_dom_xml >"$MIG/$GUEST.xml"
	check "[$mode] start the guest on host 1 (transient)" \
		virsh -q create "$MIG/$GUEST.xml"
	wait_for 600 guest_listens_or_gone
	if ! guest_listens; then
		# a nested guest under TCG stops on its own once in a while
		# (vif suite too; cause not found yet): say so, with what
		# libvirt, QEMU and its console said, and start it once more
		tap_diag "[$mode] the guest did not come up:" "$(dom_why "$GUEST" 2>&1)"
		virsh -q destroy "$GUEST" >/dev/null 2>&1
		check "[$mode] start the guest on host 1 again (transient)" \
			virsh -q create "$MIG/$GUEST.xml"
	fi
	check "[$mode] the guest's echo listens" wait_for 600 guest_listens
	check "[$mode] the orchestrator sets the port's VLAN and policing, and an ACL" \
		orchestrate
	if [ "$mode" = baseline ]; then
		check "[$mode] the operator records the port: roam-port save" \
			"$ROAM_PORT" save "$GUEST"
	fi
	check_output "[$mode] host 1: the guest's port has them" "$GUEST_SETTINGS" port_settings
	if [ "$mode" != baseline ]; then
		check "[$mode] the agent records them in the domain's live metadata" \
			wait_for 150 recorded
	fi
	check "[$mode] the peer starts probing the guest" peer "probe_start $mode"
	# the first window holds the start (ARP, the first upcalls), which
	# lost a few datagrams once in a while; the second is steady state
	sleep 2
	w=$(peer "probe_window $mode 1")
	tap_diag "[$mode] the streams' start: $w"
	check "[$mode] host 1 hands the guest a frame from its own MAC (the count's control)" \
		own_frame_to_guest
	sleep 3
	w=$(peer "probe_window $mode 2")
	check "[$mode] TCP and UDP flow before any migration ($w)" \
		positive "$(field "$w" tcp_echoed)"
	check "[$mode] ... both streams answer at the window's end" streams_answer "$w"
	check_output "[$mode] ... and the guest got every datagram" 0 field "$w" udp_lost
	check_output "[$mode] ... and counted its own frame back" 1 field "$w" own_frames
}

# own_frame_to_guest: br0 sends the guest, on its port, a broadcast
# frame from the guest's own MAC (ethertype 0x88b5, local experimental),
# which its echo must count (roam-traffic: own_frames).
own_frame_to_guest() {
	local port ofport frame

	port=$(guest_port) || return 1
	ofport=$("${VSCTL[@]}" get Interface "$port" ofport) || return 1
	frame=ffffffffffff${GUEST_MAC//:/}88b5$(printf '%092d' 0)
	ovs-ofctl packet-out br0 LOCAL "output:$ofport" "$frame"
}

# moved MODE WHAT FROM TO N: the checks after the guest went from host
# FROM to host TO, or stayed on TO after a failed move from FROM (WHAT
# names the event in the points): the probe's N-th window shows no TCP
# message lost, repeated or reset, the port on TO has the orchestrator's
# settings, FROM has no rule of the guest's.  The window is left in
# $MOVED_WINDOW.
MOVED_WINDOW=
# drop_counts: this host's datapath lookups (its "lost" are upcalls
# dropped), the guest's tap's counters as the host sends to the guest
# and its qdiscs' drops (before the tap's transmit, which the tap's
# capture sees), and ovs-vswitchd's counts of its upcalls' and flows'
# troubles and of its policing set anew (each swaps the tap's ingress
# qdisc: kernel/txhold.h) (coverage/show's totals), on one line, for
# MIG_PCAP runs' diagnostics.
drop_counts() {
	local tap

	tap=$(dom_tap "$GUEST" 2>/dev/null) || tap=
	printf '%s; tap %s: %s; its qdisc: %s; ovs-vswitchd: %s\n' \
		"$(ovs-dpctl show 2>&1 | grep -m1 lookups | tr -s ' ')" "${tap:-none}" \
		"$([ -n "$tap" ] && ip -s -o link show "$tap" | grep -o 'TX: .*' | tr -s ' ')" \
		"$([ -n "$tap" ] && tc -s qdisc show dev "$tap" | grep -o 'dropped [0-9]*' | paste -sd ' ')" \
		"$(ovs-appctl coverage/show 2>&1 | awk '$1 ~ /drop|fail|err|lost|dup|contention|limit|upcall|ukey|revalidate|flow_del|policing/ {
			printf "%s=%s ", $1, $NF }')"
}

# guest_fault HOST: when the guest's QEMU on HOST logged that KVM failed
# it (roam_guest_fault there, which marks the run for a second attempt),
# a diagnostic that says so; called where the guest stopped or went deaf.
guest_fault() {
	local line

	line=$(on_host "$1" roam_guest_fault "$GUEST") || return 0
	tap_diag "the guest's QEMU on host $1 logged a KVM failure, TCG's nested SVM: $line"
}

# guest_trouble WHAT HOST...: the guest stopped answering, or was gone,
# at WHAT: what libvirt, QEMU and the guest's console said on each HOST
# (guest_why), and whether KVM failed it there (guest_fault).  Both hosts
# of a migration: a guest that stopped before it left (CI, 2026-12-07:
# 10 s before its pause) left its QEMU's log and console on the source.
guest_trouble() {
	local what=$1 h
	shift

	for h in "$@"; do
		tap_diag "$what: on host $h:"
		tap_diag "$(guest_why "$h" 2>&1)"
		guest_fault "$h"
	done
}

# secs T0 T1: seconds from EPOCHREALTIME T0 to T1, one decimal.
secs() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

# phase WHAT: a diagnostic with the seconds since the last phase (the
# first: since the case sourced this file), for the suite's budget
# (README, "Budget").  Called outside command substitutions only:
# PHASE_T must persist.
PHASE_T=$EPOCHREALTIME
phase() {
	local now=$EPOCHREALTIME

	tap_diag "time: $1: $(secs "$PHASE_T" "$now") s"
	PHASE_T=$now
}

# moved MODE WHAT FROM TO WINDOW: the checks after a migration, on the
# probe's window WINDOW; returns 1 when the guest no longer answers.
moved() {
	local mode=$1 what=$2 from=$3 to=$4 w answers=0

	w=$(peer "probe_window $mode $5") || w="no report: $w"
	MOVED_WINDOW=$w
	tap_diag "[$mode] $what: $w"
	if [ -n "${MIG_PCAP:-}" ]; then
		tap_diag "[$mode] $what: host 1: $(drop_counts)"
		tap_diag "[$mode] $what: host 2: $(peer drop_counts)"
	fi
	# the counts below read 0 for a stream that stopped (a guest that
	# never answered again): first, both streams answer at the window's
	# end (streams_answer)
	if ! check "[$mode] $what: the guest answers again, TCP and UDP" \
		streams_answer "$w"; then
		guest_trouble "[$mode] $what" "$to" "$from"
		answers=1
	fi
	check_output "[$mode] $what: no TCP message lost or repeated, no reset" \
		"0 0 0" echo "$(field "$w" tcp_lost) $(field "$w" tcp_dup) $(field "$w" resets)"
	check_output "[$mode] $what: the guest got no datagram twice" 0 field "$w" udp_dup
	# with the agents, floods to the new port are held and its tap's
	# stale ones taken out (switchover.h); a plain migration's count
	# is reported
	if [ "$mode" = baseline ]; then
		tap_diag "[$mode] $what: the guest got $(field "$w" own_frames) of its own frames back"
	else
		check_output "[$mode] $what: the guest got none of its own frames back" \
			0 field "$w" own_frames
	fi
	expect "$mode" "$what: host $to: the guest's port has its settings" \
		"$GUEST_SETTINGS" on_host "$to" port_settings
	expect "$mode" "$what: host $from: no rule of the guest's is left" \
		0 on_host "$from" guest_rules
	return "$answers"
}

# scenario MODE ROUND-TRIPS [CHECKS]: the suite's scenario (issue 17) on host 1:
# the guest starts on host 1, the orchestrator sets its port's VLAN,
# policing and ACL, ns1 on host 2 probes it, and it migrates to host 2
# and back ROUND-TRIPS times.  MODE agent runs it with the agents, MODE
# baseline without them: there the operator records the port's settings
# with `roam-port save` (the vif hooks' part: the VLAN and policing then
# follow the guest) and nothing else moves.  Each migration's downtime
# and probe window go to $MIG/results.MODE; the closing line is printed
# as "mig-summary MODE: ...", for the suite's wrapper (suite.sh).  CHECKS,
# a function, runs with MODE and the next probe window's number once the
# guest is back on host 1, before the probe stops.
scenario() {
	local mode=$1 trips=$2 checks=${3:-} results=$MIG/results.$1 i from=1 to=2 dt w
	local window=2 deaf t0 t1

	: >"$results"
	phase "[$mode] before the scenario"
	events_start
	cap_start obs 2 eth0 in
	check "[$mode] host 1 captures the guest's frames on its uplink" uplink_cap "up1.$mode"
	check "[$mode] host 2 captures the guest's frames on its uplink" peer "uplink_cap up2.$mode"
	check "[$mode] the observer's capture runs" cap_ready obs
	check "[$mode] the observer's control: it hears host 2's beacon on VLAN 20" \
		nsx 2 ping -c 2 -W 5 "$(ns_ip 4)"
	phase "[$mode] captures started"
	guest_up "$mode"
	phase "[$mode] guest up, streams measured"
	for ((i = 1; i <= 2 * trips; i++)); do
		t0=$EPOCHREALTIME
		if ! dt=$(migrate "$from" "$to" 2>&1); then
			tap_not_ok "[$mode] migration $i, host $from to host $to"
			tap_diag "$dt"
			guest_trouble "[$mode] migration $i" "$from" "$to"
			break
		fi
		tap_ok "[$mode] migration $i, host $from to host $to (downtime $dt ms)"
		sleep 4
		if ! guest_runs_on "$to"; then
			# the guest died after it arrived (seen three times; once
			# its QEMU had logged "KVM: injection failed, MSI lost"):
			# what libvirt, QEMU and its console said, and whether
			# KVM failed it (guest_fault)
			tap_not_ok "[$mode] migration $i: the guest runs on host $to"
			guest_trouble "[$mode] migration $i" "$to" "$from"
			break
		fi
		window=$((i + 2))
		t1=$EPOCHREALTIME
		moved "$mode" "migration $i" "$from" "$to" "$window"
		deaf=$?
		# where a migration's time goes (README, "Budget")
		tap_diag "[$mode] migration $i took $(secs "$t0" "$t1") s to its checks (virsh migrate $(cat "$MIG/migrate.secs") s), $(secs "$t1" "$EPOCHREALTIME") s in them"
		echo "downtime=$dt $MOVED_WINDOW" >>"$results"
		from=$((3 - from)) to=$((3 - to))
		[ "$deaf" = 0 ] || break
	done
	# A guest that stopped, or stopped answering, does not come back (in
	# CI's last two runs it never answered again in the migrations
	# after): the rest would only wait on it, and a further attempt
	# (guest_fault) needs the time.
	phase "[$mode] migrations"
	if [ "$i" -lt $((2 * trips)) ]; then
		tap_not_ok "[$mode] migrations $((i + 1)) to $((2 * trips)): not run, the guest stopped (above)"
	fi
	if [ -n "$checks" ] && [ "$i" -le $((2 * trips)) ]; then
		tap_not_ok "[$mode] $checks: not run, the guest stopped (above)"
	elif [ -n "$checks" ] && [ "$from" = 1 ]; then
		"$checks" "$mode" $((window + 1))
	elif [ -n "$checks" ]; then
		tap_not_ok "[$mode] $checks: the guest ended on host 1"
	fi
	phase "[$mode] closing checks"
	check "[$mode] the probe stops" peer probe_stop
	# for the demo (vm-run --out): the measurements and the peer's trace
	cp "$results" "$ROAM_SHARED/out/" &&
		peer "cp '$MIG/trace.$mode' '$MIG/probe.$mode' \"\$ROAM_SHARED/out/\""
	check "[$mode] the guest is destroyed where it runs" \
		virsh -c "$(libvirt_uri "$from")" -q destroy "$GUEST" ||
		guest_trouble "[$mode] at the end" "$from"
	events_stop
	cap_stop
	phase "[$mode] guest destroyed, captures stopped"
	check_output "[$mode] the observer on VLAN 20 saw nothing of the guest's" 0 \
		count_lines obs "$GUEST_MAC|$GUEST_IP"
	check "[$mode] ... but it saw the beacon (the capture's control)" \
		positive "$(count_lines obs "$(ns_ip 4) > ")"
	for i in 1 2; do
		w=$(on_host "$i" uplink_counts "up$i.$mode")
		check_output "[$mode] host $i's uplink carried nothing of the guest's untagged" \
			0 field "$w" untagged
		check "[$mode] ... and its frames tagged 10 (the control: $w)" \
			positive "$(field "$w" vlan10)"
		# reported: what the taps were handed, the count's control
		# frame and what the agent took out again before the resume
		# among them; the guest's own count (moved) is the check
		tap_diag "[$mode] host $i: frames from the guest's own MAC handed to its taps: $(field "$w" own) (of $(field "$w" tap))"
		check "[$mode] host $i: its taps' capture saw the peer's frames" \
			positive "$(field "$w" tap)"
	done
	check_output "[$mode] host 1's br0 ends with its own ports" "p2 uplink" br0_ports
	check_output "[$mode] host 2's br0 ends with its own ports" "p1 p4 uplink" on_host 2 br0_ports
	ovs-ofctl del-flows br0 "tcp,dl_dst=$GUEST_MAC,tp_dst=$ACL_PORT" >/dev/null 2>&1
	allow_stop_warnings
	peer allow_stop_warnings >/dev/null
	check "[$mode] every migration was measured" summarize "$results"
	echo "mig-summary $mode: $(summarize "$results")"
	phase "[$mode] captures counted"
}
