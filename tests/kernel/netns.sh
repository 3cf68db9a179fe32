# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Namespace topologies for the datapath cases, in the WireGuard netns-test
# style: every endpoint is a network namespace "nsN" holding one end of a
# veth pair, "eth0", with a fixed MAC and address; the other end, "pN",
# stays in the host's namespace where it can become a datapath port.
#
#   ns1: eth0 02:00:00:00:00:01 198.51.100.1/24  <-veth->  p1 (host)
#   ns2: eth0 02:00:00:00:00:02 198.51.100.2/24  <-veth->  p2 (host)
#
# IPv6 is off everywhere so that no router solicitation or MLD report
# reaches a datapath uninvited: every packet a case sees is one it sent.

# Quick pings: the host is TCG-emulated and slow, a miss costs -W.
# shellcheck disable=SC2034 # used by the cases
PING=(ping -n -q -c 2 -i 0.2 -W 2)

sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

# nsx N CMD...: run CMD inside namespace nsN.
nsx() {
	local n=$1
	shift
	ip netns exec "ns$n" "$@"
}

# ns_mac N / ns_ip N: the fixed addresses of nsN's eth0.
ns_mac() { printf '02:00:00:00:00:%02x\n' "$1"; }
ns_ip() { printf '198.51.100.%d\n' "$1"; }

# ns_add N [MTU]: namespace nsN with eth0 cabled to pN in the host.
ns_add() {
	local n=$1

	ip netns add "ns$n" || return 1
	nsx "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip link add "p$n" type veth peer name eth0 netns "ns$n" || return 1
	sysctl -qw "net.ipv6.conf.p$n.disable_ipv6=1"
	ip link set "p$n" up
	nsx "$n" ip link set lo up
	nsx "$n" ip link set eth0 address "$(ns_mac "$n")" up
	nsx "$n" ip addr add "$(ns_ip "$n")/24" dev eth0
}

# ns_neigh N M: nsN knows nsM's MAC, so IPv4 to nsM needs no ARP.
ns_neigh() {
	nsx "$1" ip neigh replace "$(ns_ip "$2")" lladdr "$(ns_mac "$2")" \
		dev eth0 nud permanent
}

# ns_del N...: remove the namespaces (their veth pairs go with them).
ns_del() {
	local n

	for n in "$@"; do
		ip netns del "ns$n" 2>/dev/null
		ip link del "p$n" 2>/dev/null
	done
	return 0
}

# port_no DP NAME: NAME's port number in datapath DP, from ovs-dpctl show.
port_no() {
	ovs-dpctl show "$1" 2>/dev/null | sed -n "s/^  port \([0-9]*\): $2\( (.*)\)\{0,1\}\$/\1/p"
}

# dp_ports DP: "NAME TYPE" per port of DP, sorted by port number.
dp_ports() {
	ovs-dpctl show "$1" 2>/dev/null |
		sed -nE 's/^  port ([0-9]+): ([^ ]+)( \((.*)\))?$/\1 \2 \4/p' |
		sort -n | cut -d' ' -f2- | sed 's/ $//'
}

# flows DP: DP's flows with times dropped, one a line, sorted.
flows() {
	ovs-dpctl dump-flows "$1" 2>/dev/null | sed -E 's/, used:[^,]*//' | sort
}

# flow_field DP MATCH FIELD: FIELD (packets, bytes, flags) of DP's flow
# whose match contains MATCH; fails, printing why, when the dump fails.
flow_field() {
	local out

	out=$(ovs-dpctl dump-flows "$1" 2>&1) || {
		printf 'dump-flows %s failed: %s\n' "$1" "$out"
		return 1
	}
	dump_field "$out" "$2" "$3"
}

# take_dump DP: DP's flows into $dump for dump_field, as a test point of
# its own, so that a failing ovs-dpctl fails the case instead of reading
# as a datapath without flows.
take_dump() {
	tap_errfile || { tap_not_ok "dump-flows $1"; return 1; }
	# shellcheck disable=SC2154 # tap_err: tests/lib/tap.sh's, as tap_errfile
	if dump=$(ovs-dpctl dump-flows "$1" 2>"$tap_err"); then
		tap_ok "dump-flows $1"
	else
		tap_not_ok "dump-flows $1"
		sed 's/^/#   /' "$tap_err"
	fi
}

# dump_field DUMP MATCH FIELD: the same from a dump-flows output already
# taken (each ovs-dpctl run costs a second under TCG).
dump_field() {
	grep -F -- "$2" <<<"$1" | sed -n 1p |
		sed -nE "s/.*[ ,]$3:([^, ]*).*/\\1/p"
}

# dp_lookups DP: "HIT MISSED MASK_HITS" from DP's lookups and masks lines
# (packets that hit a flow, that missed, and masks tried for them all).
dp_lookups() {
	ovs-dpctl show "$1" | awk '
		/lookups:/ { sub(/.*hit:/, ""); h = $1
			sub(/.*missed:/, ""); m = $1 }
		/masks:/ { sub(/.*hit:/, ""); k = $1 }
		END { if (h != "" && m != "" && k != "") print h, m, k
			else exit 1 }'
}

# dp_masks DP / dp_flows DP: how many masks, how many flows DP has (from
# ovs-dpctl show's "masks: ... total:T" and "flows: F" lines).
dp_masks() {
	ovs-dpctl show "$1" | sed -n 's/^ *masks: .*total:\([0-9]*\).*/\1/p'
}

dp_flows() {
	ovs-dpctl show "$1" | sed -n 's/^ *flows: *\([0-9]*\).*/\1/p'
}

# netmask LEN: the IPv4 netmask of a /LEN prefix.
netmask() {
	local m=$((0xffffffff << (32 - $1) & 0xffffffff))

	echo "$((m >> 24)).$((m >> 16 & 255)).$((m >> 8 & 255)).$((m & 255))"
}

# decoy_flows N PORT: N flows to PORT on N different masks that no frame
# from 198.51.100.0/24 matches, as "MATCH ACTIONS" lines.  Each matches a
# /L1 source and a /L2 destination prefix whose last bit alone is set
# (L1 from 2 to 32, L2 from 2 up), so that none of them covers another's
# key either: a flow without a UFID is named by its key, and both modules
# refuse a new flow whose key an existing flow matches (EEXIST).
decoy_flows() {
	local i l1 l2

	for ((i = 0; i < $1; i++)); do
		l1=$((2 + i % 31)) l2=$((2 + i / 31))
		printf 'in_port(1),eth(),eth_type(0x0800),ipv4(src=%s/%s,dst=%s/%s) %s\n' \
			"$(prefix_bit "$l1")" "$(netmask "$l1")" \
			"$(prefix_bit "$l2")" "$(netmask "$l2")" "$2"
	done
}

# prefix_bit LEN: the IPv4 address whose only set bit is bit LEN (1-32).
prefix_bit() {
	local a=$((1 << (32 - $1)))

	echo "$((a >> 24)).$((a >> 16 & 255)).$((a >> 8 & 255)).$((a & 255))"
}

# positive N: N is a number above zero.
positive() { [ -n "$1" ] && [ "$1" -gt 0 ]; }

# no_port DP NAME: DP has no port named NAME.
no_port() { [ -z "$(port_no "$1" "$2")" ]; }

# put_flows DP: put the flows of stdin's "MATCH ACTIONS" lines into DP, in
# order, with one ovs-dpctl (each run costs a second on the debug kernel).
# Prints ovs-dpctl's own messages but its INFO lines (which features the
# module lacks): one "ovs-dpctl: ..." line for each put that failed, and
# dpif's WARN line about it.  add-flows goes on past a failed put and
# exits 0 all the same, so those lines are the only report of a failure.
# A run that fails outright (no such datapath) says so too.
put_flows() {
	local rc

	ovs-dpctl add-flows "$1" - 2>&1 >/dev/null | grep -v '|INFO|'
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || echo "ovs-dpctl add-flows $1 exited with $rc"
	return "$rc"
}

# load_flows DP: put stdin's "MATCH ACTIONS" lines into DP; fails, printing
# why, when any put did.
load_flows() {
	local errors

	errors=$(put_flows "$1")
	[ -z "$errors" ] || { printf '%s\n' "$errors"; return 1; }
}

# add_flows DP MATCH ACTIONS [MATCH ACTIONS...]: add every flow or fail,
# printing why.
add_flows() {
	local dp=$1 lines=''
	shift

	while [ $# -ge 2 ]; do
		case "$1$2" in
		*[[:space:]]*) echo "add_flows: a blank in '$1 $2'"; return 1 ;;
		esac
		lines+="$1 $2"$'\n'
		shift 2
	done
	printf '%s' "$lines" | load_flows "$dp"
}

# has_neigh N IP MAC: nsN resolved IP to MAC.
has_neigh() {
	nsx "$1" ip neigh show "$2" dev eth0 | grep "lladdr $3" >/dev/null
}

# wait_for TRIES CMD...: retry CMD every 0.2 s.
wait_for() {
	local tries=$1
	shift

	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.2
	done
}

# tcp_send N M PORT FILE: nsN sends FILE over TCP to a listener on nsM's
# PORT, which writes what it receives to FILE.rcvd.  Fails unless the
# listener comes up and the connection completes, each within 60 s.
tcp_send() {
	local from=$1 to=$2 port=$3 file=$4 pid rc=0

	nsx "$to" timeout 60 nc -l "$port" >"$file.rcvd" &
	pid=$!
	if wait_for 50 eval "nsx $to ss -ltn | grep ':$port ' >/dev/null"; then
		nsx "$from" timeout 60 nc -N -w 20 "$(ns_ip "$to")" "$port" \
			<"$file" || rc=1
	else
		echo "no TCP listener came up on ns$to port $port"
		kill "$pid" 2>/dev/null
		rc=1
	fi
	wait "$pid" || rc=1
	return "$rc"
}

# tcpdump_start N FILE FILTER...: capture on nsN's eth0 into FILE (text,
# -nn -e) in the background; tcpdump_stop collects it.
tcpdump_pid=
tcpdump_start() {
	local n=$1 file=$2
	shift 2

	# Not through nsx: $! must be timeout's pid, which relays SIGINT.
	ip netns exec "ns$n" timeout 120 tcpdump -i eth0 -nn -e -l "$@" \
		>"$file" 2>"$file.err" &
	tcpdump_pid=$!
	wait_for 25 grep -q 'listening on' "$file.err"
}

# captured FILE ERE: a packet in FILE matches ERE; tcpdump -v's
# continuation lines are joined to the packet's first line.
captured() {
	awk '/^[ \t]/ { line = line " " $0; next }
		{ if (line != "") print line; line = $0 }
		END { if (line != "") print line }' "$1" | grep -E -- "$2" >/dev/null ||
		{ head -n 20 "$1"; return 1; }
}

tcpdump_stop() {
	[ -n "$tcpdump_pid" ] || return 0
	sleep 0.5
	kill -INT "$tcpdump_pid" 2>/dev/null
	wait "$tcpdump_pid" 2>/dev/null
	tcpdump_pid=
	return 0
}
