# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# Masks coming and going: the datapath's mask count follows them, and a
# packet that has a flow is never missed because another mask went away.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                 |                         198.51.100.2
#                        bin/flow-churn swap                UDP 6000 sink
#
# Part 1: three flows 1->2 with three masks (ARP; IPv4 protocol; IPv4
# destination) and one 2->1 with a fourth (IPv4 source).  Deleting the
# first leaves three, a ping still hits, and putting it back makes four
# again; the same for a mask in the middle.
# Part 2, with the mask cache off so that every lookup walks the masks: ns1
# streams UDP to ns2 for 8 s while flow-churn deletes and re-adds, in
# turn, the two flows that match it (one mask each, either enough), with
# twenty ARP flows' masks between them and 10 ms between the changes.  Ours
# keeps every mask in its slot, so no datagram may be missed.  The in-tree
# module fills a removed mask's slot with the last one, which a lookup
# that had passed the slot then never tries: its misses are reported, not
# checked.

# shellcheck source=../netns.sh
. ./netns.sh

CHURN=$PWD/bin/flow-churn
sink_pid=

case_cleanup() {
	[ -z "$sink_pid" ] || kill "$sink_pid" 2>/dev/null
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/masks.*
}

# lookups DP WHAT: the datapath's lookups or masks line ("hit:H missed:M
# lost:L", "hit:H total:T hit/pkt:R").
lookups() {
	ovs-dpctl show "$1" | sed -n "s/^ *$2: //p"
}

# stream SECONDS: ns1 sends UDP datagrams to ns2 port 6000 for SECONDS;
# prints how many.
stream() {
	nsx 1 python3 -c '
import socket, sys, time
sk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end, n = time.monotonic() + float(sys.argv[1]), 0
while time.monotonic() < end:
    for _ in range(100):
        sk.sendto(b"x", ("198.51.100.2", 6000))
    n += 100
print(n)' "$1"
}

check "the flow-churn tool is in the job" test -x "$CHURN"
ns_add 1
ns_add 2
ns_neigh 1 2
ns_neigh 2 1
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"

# Part 1.
arp='in_port(1),eth(),eth_type(0x0806),arp()'
proto='in_port(1),eth(),eth_type(0x0800),ipv4(proto=1),icmp()'
dst='in_port(1),eth(),eth_type(0x0800),ipv4(dst=198.51.100.2)'
check "add three flows with three masks, and one back" add_flows dp0 \
	"$arp" 2 "$proto" 2 "$dst" 2 \
	'in_port(2),eth(),eth_type(0x0800),ipv4(src=198.51.100.2)' 1
check_output "four masks" 4 dp_masks dp0
check "del the first flow" ovs-dpctl del-flow dp0 "$arp"
check_output "three masks" 3 dp_masks dp0
check "ping still crosses" nsx 1 "${PING[@]}" 198.51.100.2
check "put it back" add_flows dp0 "$arp" 2
check_output "four masks again" 4 dp_masks dp0
check "del the destination flow, in the middle" ovs-dpctl del-flow dp0 "$dst"
check_output "three masks once more" 3 dp_masks dp0
check "ping crosses by the protocol flow" nsx 1 "${PING[@]}" 198.51.100.2
check "put the destination flow back" add_flows dp0 "$dst" 2
check_output "and four" 4 dp_masks dp0
check_output "no packet was a miss" "missed:0" \
	eval "lookups dp0 lookups | grep -o 'missed:[0-9]*'"

# Part 2.
check "del-flows" ovs-dpctl del-flows dp0
check "mask cache off" ovs-dpctl cache-set-size dp0 masks-cache 0
nsx 2 timeout 60 socat -u UDP4-RECV:6000 /dev/null &
sink_pid=$!
wait_for 50 eval "nsx 2 ss -lun | grep ':6000 ' >/dev/null"
# The churn outlasts the stream, whose Python may take seconds to start.
"$CHURN" swap dp0 16 >/tmp/masks.churn 2>/tmp/masks.churn.err &
churn_pid=$!
sleep 1
sent=$(stream 8)
wait "$churn_pid"
check_eq "flow-churn swapped the flows to the end" 0 "$?"
sed 's/^/# /' /tmp/masks.churn /tmp/masks.churn.err
check "ns1 streamed datagrams ($sent)" positive "$sent"
stats=$(lookups dp0 lookups)
tap_diag "lookups during the churn: $stats"
hits=$(sed -n 's/.*hit:\([0-9]*\).*/\1/p' <<<"$stats")
check "the datagrams hit flows ($hits)" positive "$hits"
if dp_is ours; then
	check_eq "ours missed none of them" "missed:0" \
		"$(grep -o 'missed:[0-9]*' <<<"$stats")"
else
	tap_diag "in-tree: $(grep -o 'missed:[0-9]*' <<<"$stats") (not checked)"
fi
