# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Misses reach userspace as OVS_PACKET_CMD_MISS upcalls.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                 |                         198.51.100.2
#                        bin/upcall-listen: the upcall PID of p1/p2
#
# With no flows, one ICMP echo from ns1 (ns2's MAC known statically)
# arrives at upcall-listen with in_port 1, both MACs, both addresses,
# ICMP type 8 and the packet's own bytes (seq 1, ping's -p pattern); the
# datapath counts one miss and nothing lost.  An ARP request from ns2
# arrives the same way from port 2.  Then OVS_PACKET_CMD_ACTION upcalls:
# a flow with a userspace action inside a 100% sample and another at the
# top of its list sends two, each with its own userdata and, asked for
# with "actions", the list it sits in: the sample's, then the flow's.
# Each upcall carries the skb hash the kernel computes for the packet
# (software, L3 alone for ICMP and ARP), as the in-tree module's lookup
# computes it and ours computes it for the upcall.

# shellcheck source=../netns.sh
. ./netns.sh

LISTEN=$PWD/bin/upcall-listen
listen_pid=

case_cleanup() {
	[ -z "$listen_pid" ] || kill "$listen_pid" 2>/dev/null
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/upcall.*
}

# lookups DP: the datapath's "hit:H missed:M lost:L".
lookups() {
	ovs-dpctl show "$1" | sed -n 's/^ *lookups: //p'
}

# listen OUT COUNT [-a] PORT...: upcall-listen for COUNT upcalls (with
# -a, action upcalls), in the background, printing its netlink PID first.
listen() {
	local out=$1 count=$2
	shift 2

	"$LISTEN" -P -n "$count" -t 20 "$@" >"$out" 2>"$out.err" &
	listen_pid=$!
	wait_for 50 grep -qx ready "$out"
}

# collected OUT WHAT: the listener finished; show its complaints and
# check that it received WHAT.
collected() {
	local rc=0

	wait "$listen_pid" || rc=$?
	listen_pid=
	sed "s/^/# /" "$1.err"
	check_eq "upcall-listen got $2" "0" "$rc"
}

# has_lines OUT WHAT: OUT holds every line read from stdin.
has_lines() {
	local want

	while read -r want; do
		check "$2: $want" grep -qxF -- "$want" "$1"
	done
}

check "the upcall-listen tool is in the job" test -x "$LISTEN"
ns_add 1
ns_add 2
ns_neigh 1 2
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"
check_output "no lookups yet" "hit:0 missed:0 lost:0" lookups dp0

listen /tmp/upcall.1 1 p1
check_eq "upcall-listen points p1's upcalls at itself" 0 "$?"
check_fails "one echo request, no flow: no reply" \
	nsx 1 ping -n -q -c 1 -W 1 -p c0ffee 198.51.100.2
collected /tmp/upcall.1 "its miss"
has_lines /tmp/upcall.1 miss <<'EOT'
miss 1
key in_port=1
key eth src=02:00:00:00:00:01 dst=02:00:00:00:00:02
key eth_type=0x0800
key ipv4 src=198.51.100.1 dst=198.51.100.2 proto=1 ttl=64
key icmp type=8 code=0
packet len=98
hash sw=1 l4=0 value=set
EOT
check "miss: the packet is the echo request seq 1" \
	grep -Eqx 'packet icmp type=8 code=0 id=[0-9]+ seq=1' /tmp/upcall.1
check "miss: the packet's bytes start with the Ethernet and IPv4 headers" \
	grep -Eq '^packet hex 0200000000020200000000010800450000540*' /tmp/upcall.1
check "miss: the packet carries ping's payload pattern" \
	grep -Eq '^packet hex .*(c0ffee){4}' /tmp/upcall.1
check_eq "miss: nothing but these lines (and pid, ready)" "12" \
	"$(wc -l </tmp/upcall.1)"
check_output "the datapath counted one miss, none lost" \
	"hit:0 missed:1 lost:0" lookups dp0
check_output "a miss installs no flow" "" ovs-dpctl dump-flows dp0

listen /tmp/upcall.2 1 p2
check_eq "upcall-listen points p2's upcalls at itself" 0 "$?"
nsx 2 ping -n -q -c 1 -W 1 198.51.100.1 >/dev/null 2>&1
collected /tmp/upcall.2 "the ARP miss"
has_lines /tmp/upcall.2 "ARP miss" <<'EOT'
miss 1
key in_port=2
key eth src=02:00:00:00:00:02 dst=ff:ff:ff:ff:ff:ff
key eth_type=0x0806
key arp sip=198.51.100.2 tip=198.51.100.1 op=1
packet len=42
hash sw=1 l4=0 value=set
EOT
arp_hex=ffffffffffff02000000000208060001080006040001020000000002c6336402
arp_hex+=000000000000c6336401
check "ARP miss: the packet's bytes are the request" \
	grep -qx "packet hex $arp_hex" /tmp/upcall.2

listen /tmp/upcall.3 2 -a p1
check_eq "upcall-listen is up for action upcalls" 0 "$?"
pid=$(sed -n 's/^pid //p' /tmp/upcall.3)
check "add a flow with a sampled and a plain userspace action" \
	ovs-dpctl add-flow dp0 'in_port(1),eth(),eth_type(0x0800),ipv4(proto=1),icmp()' \
	"sample(sample=100%,actions(userspace(pid=$pid,userdata(01020304),actions))),userspace(pid=$pid,userdata(05060708),actions),2"
nsx 1 ping -n -q -c 1 -W 1 198.51.100.2 >/dev/null 2>&1
collected /tmp/upcall.3 "both action upcalls"
# Action types: 1 output, 2 userspace, 6 sample.
check_eq "the sampled upcall comes first and carries the sample's list" \
	"$(printf 'action 1\nuserdata 0102030400000000\nactions 2')" \
	"$(grep -A2 '^action 1$' /tmp/upcall.3)"
check_eq "the flow's own upcall carries the flow's list" \
	"$(printf 'action 2\nuserdata 0506070800000000\nactions 6,2,1')" \
	"$(grep -A2 '^action 2$' /tmp/upcall.3)"
check_eq "both carry the echo request's key, bytes and hash" "2 2 2 2" \
	"$(grep -c '^key icmp type=8 code=0$' /tmp/upcall.3) $(grep -c '^packet len=98$' /tmp/upcall.3) $(grep -Ec '^packet icmp type=8 code=0 id=[0-9]+ seq=1$' /tmp/upcall.3) $(grep -c '^hash sw=1 l4=0 value=set$' /tmp/upcall.3)"
