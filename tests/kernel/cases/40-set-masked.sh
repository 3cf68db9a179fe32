# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# set and set_masked rewriting Ethernet and IPv4 addresses.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                           198.51.100.2
#   02:..:01    1->2: src 02:..:01 -> 02:..:aa:01,          02:..:02
#                     198.51.100.1 -> 198.51.100.101
#               2->1: dst 198.51.100.101 -> 198.51.100.1, MACs back
#
# A NAT-like pair of flows: ns2 only ever sees 198.51.100.101 and
# 02:00:00:00:aa:01 (tcpdump -e -v in ns2, no bad checksum), while ping
# and a TCP transfer from ns1 work across it, so IP and L4 checksums are
# right.  Rewrites use masked sets (a partial MAC mask, a lone IPv4
# field) and, in part 2, whole-key sets (eth, and ipv4 with ttl 63).

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	tcpdump_stop
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/set.*
}

ns_add 1
ns_add 2
ns_neigh 1 2
# Whole checksums on the wire, so that tcpdump in ns2 can verify them.
nsx 1 ethtool -K eth0 tx off >/dev/null
nsx 2 ethtool -K eth0 tx off >/dev/null
nsx 2 ip neigh replace 198.51.100.101 lladdr 02:00:00:00:aa:01 dev eth0 nud permanent
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"

out='in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2)'
back='in_port(2),eth(),eth_type(0x0800),ipv4(src=198.51.100.2,dst=198.51.100.101)'
check "add the masked-set flows" add_flows dp0 \
	"$out" 'set(eth(src=02:00:00:00:aa:00/ff:ff:ff:ff:ff:00)),set(ipv4(src=198.51.100.101)),2' \
	"$back" 'set(eth(dst=02:00:00:00:00:01)),set(ipv4(dst=198.51.100.1)),1'

tcpdump_start 2 /tmp/set.1 -v icmp
check "ping across the masked rewrite" nsx 1 "${PING[@]}" 198.51.100.2
tcpdump_stop
check "ns2 sees the rewritten source MAC and IPv4 address" captured /tmp/set.1 \
	'02:00:00:00:aa:01 > 02:00:00:00:00:02, ethertype IPv4 \(0x0800\), length 98: \(tos 0x0, ttl 64,.* 198\.51\.100\.101 > 198\.51\.100\.2: ICMP echo request'
check "ns2 answers the rewritten address" captured /tmp/set.1 \
	'02:00:00:00:00:02 > 02:00:00:00:aa:01, .* 198\.51\.100\.2 > 198\.51\.100\.101: ICMP echo reply'
check_absent "ns2 never sees 198.51.100.1" '198\.51\.100\.1 >' /tmp/set.1
check_absent "ns2 sees no bad checksum" 'bad cksum|wrong' /tmp/set.1

head -c 32768 /dev/urandom >/tmp/set.src
tcpdump_start 2 /tmp/set.tcp -v tcp
check "a TCP transfer crosses the rewrite" tcp_send 1 2 5001 /tmp/set.src
tcpdump_stop
check_eq "the bytes arrive intact" \
	"$(sha256sum </tmp/set.src)" "$(sha256sum </tmp/set.src.rcvd)"
check "ns2 saw the connection from 198.51.100.101" captured /tmp/set.tcp \
	' 198\.51\.100\.101\.[0-9]+ > 198\.51\.100\.2\.5001: Flags \[S\]'
check "whose TCP checksum tcpdump verified" captured /tmp/set.tcp \
	' 198\.51\.100\.101\.[0-9]+ > 198\.51\.100\.2\.5001: Flags \[S\], cksum 0x[0-9a-f]+ \(correct\)'
check_absent "no TCP checksum is wrong" 'incorrect|bad cksum' /tmp/set.tcp

# Part 2: whole-key sets; the IPv4 one needs the flow to fix proto and frag.
exact='in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2,proto=1,frag=no),icmp()'
check "del-flows" ovs-dpctl del-flows dp0
check "add the whole-key set flows" add_flows dp0 \
	"$exact" 'set(eth(src=02:00:00:00:aa:01,dst=02:00:00:00:00:02)),set(ipv4(src=198.51.100.101,dst=198.51.100.2,proto=1,tos=0,ttl=63,frag=no)),2' \
	"$back" 'set(eth(src=02:00:00:00:00:02,dst=02:00:00:00:00:01)),set(ipv4(dst=198.51.100.1)),1'
tcpdump_start 2 /tmp/set.2 -v icmp
check "ping across the whole-key rewrite" nsx 1 "${PING[@]}" 198.51.100.2
tcpdump_stop
check "ns2 sees the rewritten MAC, address and ttl 63" captured /tmp/set.2 \
	'02:00:00:00:aa:01 > 02:00:00:00:00:02, ethertype IPv4 \(0x0800\), length 98: \(tos 0x0, ttl 63,.* 198\.51\.100\.101 > 198\.51\.100\.2: ICMP echo request'
check_absent "ns2 sees no bad checksum" 'bad cksum|wrong' /tmp/set.2
check_output "the exact set flow matched both requests" "2" flow_field dp0 'proto=1' packets
