# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# topo.sh: what the ovs suite's cases build around a bridge, on top of the
# kernel suite's namespaces (netns.sh: nsN with eth0 cabled to pN):
# 802.1Q interfaces inside a namespace, tap devices with a guest behind
# them as libvirt and QEMU make them, ports added the way libvirt adds
# them, tcpdump captures read as lists of 802.1Q tags, and Open vSwitch
# started the package's way (tests/lib/ovs.sh).

# shellcheck source=../kernel/netns.sh
. ./netns.sh
# shellcheck source=../lib/ovs.sh
. lib/ovs.sh

NETKIT=$PWD/netkit.py
CAPS=/tmp/roam-ovs/caps
RUNS=/tmp/roam-ovs/run
# What one pass leaves for the next in the same boot, and what a case
# leaves for a later one of its pass: the log lines it provoked on purpose
# (EREs, for no_log_problems; 00-start.sh empties the file).
STATE=/run/roam-ovs
mkdir -p "$CAPS" "$RUNS" "$STATE"
# shellcheck disable=SC2034 # used by the cases
LOG_ALLOWED=$STATE/log-allowed

# shellcheck disable=SC2034 # used by the cases
VSCTL=(ovs-vsctl --timeout=60)

# KEEP: a bridge without ports that 00-start.sh makes and 90-teardown.sh
# deletes, so that the datapath stays open through the pass, as a
# hypervisor's bridges do, and ovs-vswitchd probes its features once per
# start.  Open vSwitch 3.1 counts every failed probe (an EINVAL it
# expects) against dpif's warning rate limit without logging it; the
# probes of the next datapath open then log "dpif|WARN|Dropped N log
# messages ... due to excessive rate", a warning about nothing.
KEEP="br-keep"

# ovs_up: Open vSwitch runs (started the package's way if it does not),
# with $KEEP; a case calls it first, so that it also runs after one that
# stopped it.
ovs_up() {
	ovs_start >/dev/null && "${VSCTL[@]}" --may-exist add-br "$KEEP"
}

# ns_plain N: nsN as ns_add makes it, but without an address.
ns_plain() {
	ns_add "$1" || return 1
	nsx "$1" ip addr flush dev eth0
}

# ns_addr N DEV ADDR: ADDR/24 on nsN's DEV.
ns_addr() {
	nsx "$1" ip addr add "$3/24" dev "$2"
}

# ns_vlan N VID [ADDR]: nsN gets eth0.VID (802.1Q), with ADDR/24 if given.
ns_vlan() {
	nsx "$1" ip link add link eth0 name "eth0.$2" type vlan id "$2" ||
		return 1
	nsx "$1" ip link set "eth0.$2" up || return 1
	[ $# -lt 3 ] || ns_addr "$1" "eth0.$2" "$3"
}

# tap_add DEV GUEST-MAC IP: a tap as libvirt makes one for a guest NIC
# (IFF_TAP, no packet information, virtio-net header; the host side's
# MAC is the guest's with fe: in front so that no bridge takes it), with
# a guest behind it (netkit.py tap) that answers ARP and ping for IP.
# Call it directly, not under check: its guest must be this shell's child
# (check runs its command in a subshell, which would wait for the guest).
tap_pids=()
tap_add() {
	local dev=$1 mac=$2 ip=$3

	ip tuntap add dev "$dev" mode tap vnet_hdr || return 1
	sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip link set "$dev" address "fe:${mac#*:}" up || return 1
	rm -f "$RUNS/$dev.ctl" "$RUNS/$dev.ready"
	mkfifo "$RUNS/$dev.ctl" || return 1
	python3 "$NETKIT" tap "$dev" "$mac" "$ip" "$RUNS/$dev.ctl" \
		"$RUNS/$dev.ready" >"$RUNS/$dev.log" 2>&1 &
	tap_pids+=($!)
	wait_for 100 test -e "$RUNS/$dev.ready" ||
		{ echo "the guest on $dev did not attach:"; cat "$RUNS/$dev.log"; return 1; }
}

# tap_cmd DEV COMMAND: tell DEV's guest to do COMMAND ("arp TARGET"); a
# FIFO without its reader blocks the writer, hence the timeout.
tap_cmd() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	timeout 10 bash -c 'printf "%s\n" "$1" >"$2"' tap_cmd "$2" "$RUNS/$1.ctl"
}

# tap_del DEV...: the guests stopped, the taps gone.
tap_del() {
	local pid dev

	for pid in ${tap_pids[@]+"${tap_pids[@]}"}; do
		kill "$pid" 2>/dev/null
	done
	for pid in ${tap_pids[@]+"${tap_pids[@]}"}; do
		wait "$pid" 2>/dev/null
	done
	tap_pids=()
	for dev in "$@"; do
		ip link del "$dev" 2>/dev/null
		rm -f "$RUNS/$dev.ctl" "$RUNS/$dev.ready" "$RUNS/$dev.log"
	done
	return 0
}

# reap PID SECONDS: the exit status of this shell's child PID once it has
# exited, waiting up to SECONDS; past that it is killed and reaps 124.
reap() {
	local i

	for ((i = 0; i < $2 * 5; i++)); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"
			return
		fi
		sleep 0.2
	done
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 124
}

# libvirt_port BRIDGE DEV MAC [PORT-SETTINGS...]: add DEV to BRIDGE in one
# transaction the way libvirt does for <virtualport type='openvswitch'>:
# --may-exist add-port with the VLAN settings, then the interface's
# external-ids (attached-mac, iface-id, vm-id, iface-status).
libvirt_port() {
	local br=$1 dev=$2 mac=$3
	shift 3

	"${VSCTL[@]}" -- --may-exist add-port "$br" "$dev" "$@" \
		-- set Interface "$dev" "external-ids:attached-mac=\"$mac\"" \
		-- set Interface "$dev" "external-ids:iface-id=\"$(cat /proc/sys/kernel/random/uuid)\"" \
		-- set Interface "$dev" "external-ids:vm-id=\"$(cat /proc/sys/kernel/random/uuid)\"" \
		-- set Interface "$dev" external-ids:iface-status=active
}

# cap_start NAME N|- IFACE in|out: tcpdump of the frames IFACE receives
# (in) or sends (out), in nsN or the host (-), into $CAPS/NAME.  What a
# port delivers is what its veth peer receives, or what its tap sends to
# the guest.
cap_pids=()
cap_start() {
	local name=$1 ns=$2 dev=$3 dir=$4 pre=()

	[ "$ns" = - ] || pre=(ip netns exec "ns$ns")
	rm -f "$CAPS/$name" "$CAPS/$name.err"
	"${pre[@]}" timeout 1200 tcpdump -i "$dev" -Q "$dir" -nn -e -l \
		>"$CAPS/$name" 2>"$CAPS/$name.err" &
	cap_pids+=($!)
	cap_names+=("$name")
}

# cap_ready NAME...: every capture is listening.
cap_ready() {
	local name

	for name in "$@"; do
		wait_for 100 grep -q 'listening on' "$CAPS/$name.err" || {
			echo "capture $name did not start:"
			cat "$CAPS/$name.err"
			return 1
		}
	done
}

# cap_stop: every capture stopped, its last frames written, and indexed
# for the readers below: $CAPS/index holds "NAME TAG LINE" for every frame
# (TAG the 802.1Q tag, "-" for an untagged frame; other lines, such as the
# empty one tcpdump may leave when stopped, are no frames), $CAPS/index.ok the
# names of the captures that started.  One pass over the captures: each
# process costs tens of milliseconds under TCG.
cap_names=()
cap_stop() {
	local pid name started

	sleep 1
	for pid in ${cap_pids[@]+"${cap_pids[@]}"}; do
		kill -INT "$pid" 2>/dev/null
	done
	for pid in ${cap_pids[@]+"${cap_pids[@]}"}; do
		wait "$pid" 2>/dev/null
	done
	cap_pids=()
	: >"$CAPS/index.ok"
	: >"$CAPS/index"
	for name in ${cap_names[@]+"${cap_names[@]}"}; do
		if [ -r "$CAPS/$name" ] && grep -q 'listening on' "$CAPS/$name.err" 2>/dev/null; then
			echo "$name" >>"$CAPS/index.ok"
		fi
	done
	mapfile -t started <"$CAPS/index.ok"
	[ ${#started[@]} -gt 0 ] || return 0
	# Frames only: each of tcpdump's frame lines names "SRC > DST".
	(cd "$CAPS" && awk '
		index($0, " > ") {
			tag = "-"
			if (match($0, /: vlan [0-9]+, p [0-9]+,/)) {
				tag = substr($0, RSTART + 7)
				sub(/,.*/, "", tag)
			}
			print FILENAME, tag, $0
		}' "${started[@]}" >index)
}

# frames NAME...: the indexed frames of those captures, "NAME TAG LINE";
# fails, naming it, for a capture that is missing or never started: no
# capture never reads as "nothing received".
frames() {
	if [ ! -r "$CAPS/index.ok" ] || [ ! -r "$CAPS/index" ]; then
		echo "no capture index (cap_stop makes it)" >&2
		return 1
	fi
	awk -v names="$*" '
		BEGIN { n = split(names, want, " "); for (i = 1; i <= n; i++) keep[want[i]] = 1 }
		FILENAME == ARGV[1] { ok[$1] = 1; next }
		$1 in keep
		END {
			for (i = 1; i <= n; i++) if (!(want[i] in ok)) {
				print "capture " want[i] " is missing or never started" > "/dev/stderr"
				bad = 1
			}
			exit bad
		}' "$CAPS/index.ok" "$CAPS/index"
}

# tags NAME TEXT: the 802.1Q tag of every frame in capture NAME whose line
# holds TEXT (a literal string), in order, space-separated; nothing when
# none matched; fails for a capture that did not start.
tags() {
	local out

	out=$(frames "$1") || return 1
	TEXT=$2 awk '
		index($0, ENVIRON["TEXT"]) { printf "%s%s", (n++ ? " " : ""), $2 }
		END { print "" }' <<<"$out"
}

# seen TEXT NAME...: "NAME=TAGS" for each capture, tags comma-separated:
# which ports got a frame holding TEXT and how it was tagged, in one line
# that a check compares whole.
seen() {
	local text=$1 out
	shift

	out=$(frames "$@") || return 1
	TEXT=$text awk -v names="$*" '
		index($0, ENVIRON["TEXT"]) { got[$1] = got[$1] (got[$1] == "" ? "" : ",") $2 }
		END {
			n = split(names, want, " ")
			for (i = 1; i <= n; i++)
				printf "%s%s=%s", (i > 1 ? " " : ""), want[i], got[want[i]]
			print ""
		}' <<<"$out"
}

# count_lines NAME ERE: how many frames of capture NAME match ERE (0 too),
# ERE applied to tcpdump's own line.
count_lines() {
	local out

	out=$(frames "$1") || return 1
	sed -E 's/^[^ ]+ [^ ]+ //' <<<"$out" | grep -c -E -- "$2" || true
}

# dp_names DP: DP's port names, sorted, but $KEEP's.
dp_names() {
	local out

	out=$(ovs-dpctl show "$1") || return 1
	sed -nE 's/^  port [0-9]+: ([^ ]+).*/\1/p' <<<"$out" | grep -vx "$KEEP" | sort
}

# dp_flows: ovs-vswitchd's dump of the datapath's flows, port
# names for numbers, statistics and times dropped, sorted.  Fails if the
# dump fails.
dp_flows() {
	local out

	out=$(ovs-appctl dpctl/dump-flows --names) || return 1
	sed -E 's/, packets:[0-9]+, bytes:[0-9]+, used:[^,]+(, flags:[^,]*)?, actions:/, actions:/' \
		<<<"$out" | sort
}
