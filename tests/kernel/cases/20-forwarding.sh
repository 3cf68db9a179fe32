# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Forwarding by flows installed with ovs-dpctl add-flow.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                           198.51.100.2
#   02:..:01                                               02:..:02
#
# Without flows every packet misses and nothing crosses.  Then ARP by a
# wildcarded flow each way, ICMP by a masked IPv4 flow one way and an
# exact one back, TCP by a masked flow: ping works and a TCP transfer
# arrives intact.  Deleting a flow stops exactly the traffic it carried.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/fwd.*
}

# missed DP: the datapath's miss counter.
missed() {
	ovs-dpctl show "$1" | sed -n 's/.*lookups: .*missed:\([0-9]*\).*/\1/p'
}

ns_add 1
ns_add 2
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"
check_eq "p1 is port 1 and p2 port 2" "1 2" \
	"$(port_no dp0 p1) $(port_no dp0 p2)"

check_output "no packet has missed yet" "0" missed dp0
check_fails "without flows ping does not cross" \
	nsx 1 "${PING[@]}" -c 1 198.51.100.2
check "the unmatched packets counted as missed" \
	positive "$(missed dp0)"
check_output "and installed no flow" "" ovs-dpctl dump-flows dp0

m1=02:00:00:00:00:01 m2=02:00:00:00:00:02
arp12='in_port(1),eth(),eth_type(0x0806),arp()'
arp21='in_port(2),eth(),eth_type(0x0806),arp()'
ip12='in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2)'
icmp21="in_port(2),eth(src=$m2,dst=$m1),eth_type(0x0800),ipv4(src=198.51.100.2,dst=198.51.100.1,proto=1,tos=0,ttl=64,frag=no),icmp(type=0,code=0)"
tcp21='in_port(2),eth(),eth_type(0x0800),ipv4(src=198.51.100.2,dst=198.51.100.1,proto=6,frag=no),tcp(),tcp_flags(0/0)'

check "add the ARP flows" add_flows dp0 "$arp12" 2 "$arp21" 1
# The missed ping above may have left ns1's entry for ns2 INCOMPLETE with
# its last probe already sent: it would then fail, whatever the flows.
nsx 1 ip neigh flush dev eth0
check_fails "ICMP still does not cross" nsx 1 "${PING[@]}" -c 1 198.51.100.2
check "but ARP resolved ns2's MAC across the datapath" \
	has_neigh 1 198.51.100.2 "$m2"

check "add a masked IPv4 flow 1->2" ovs-dpctl add-flow dp0 "$ip12" 2
check "add an exact ICMP echo-reply flow 2->1" ovs-dpctl add-flow dp0 "$icmp21" 1
check_fails "a duplicate add-flow fails" ovs-dpctl add-flow dp0 "$ip12" 2
check_eq "dump-flows shows the four flows" "4" \
	"$(ovs-dpctl dump-flows dp0 | wc -l)"
check "ping ns1 -> ns2" nsx 1 "${PING[@]}" 198.51.100.2
check_eq "the ICMP reply flow saw both replies" "2" \
	"$(flow_field dp0 'icmp(type=0' packets)"
check_fails "ping ns2 -> ns1 has no flow for its request" \
	nsx 2 "${PING[@]}" -c 1 198.51.100.1

head -c 65536 /dev/urandom >/tmp/fwd.src
check "add a masked TCP flow 2->1" ovs-dpctl add-flow dp0 "$tcp21" 1
check "a 64 KiB TCP transfer ns1 -> ns2 completes" \
	tcp_send 1 2 5000 /tmp/fwd.src
check_eq "the bytes arrive intact" \
	"$(sha256sum </tmp/fwd.src)" "$(sha256sum </tmp/fwd.src.rcvd)"
check "the TCP flow carried the return segments" \
	positive "$(flow_field dp0 "proto=6" packets)"

check "del-flow the echo-reply flow" ovs-dpctl del-flow dp0 "$icmp21"
check_fails "without it the replies are dropped" \
	nsx 1 "${PING[@]}" -c 1 198.51.100.2
check_eq "the four other flows remain" "4" "$(ovs-dpctl dump-flows dp0 | wc -l)"
check "del-flows empties the table" ovs-dpctl del-flows dp0
check_output "dump-flows is empty" "" ovs-dpctl dump-flows dp0
check_fails "and nothing crosses any more" \
	nsx 1 "${PING[@]}" -c 1 198.51.100.2
