# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# VLAN push and pop between an access port and a trunk port.
#
#   ns1 (access)                  host                      ns2 (trunk)
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                         +-[eth0.10] 802.1Q 10
#   untagged                                             |  198.51.100.2 (part 1)
#                                                        +-[eth0.20] 802.1ad 20
#                                                          +-[eth0.20.10] 802.1Q 10
#                                                             198.51.100.2 (part 2)
#
# Part 1: 1->2 push_vlan(vid=10), 2->1 matches vlan(vid=10) and pops.
# Part 2 (QinQ): 1->2 pushes 802.1Q 10 then an 802.1ad 20 outer tag; 2->1
# matches both and pops both.  Ping works and tcpdump -e on the trunk shows
# exactly the tags expected; the access side sees untagged frames.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	tcpdump_stop
	[ -z "${access_pid:-}" ] || kill -INT "$access_pid"
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/vlan.*
}

ns_add 1
ns_add 2
nsx 2 ip addr flush dev eth0
nsx 2 ip link add link eth0 name eth0.10 type vlan id 10
nsx 2 ip link set eth0.10 address "$(ns_mac 2)" up
nsx 2 ip addr add 198.51.100.2/24 dev eth0.10
ns_neigh 1 2
nsx 2 ip neigh replace 198.51.100.1 lladdr "$(ns_mac 1)" dev eth0.10 nud permanent

check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 (access) and p2 (trunk)" \
	eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"

up='in_port(1),eth(),eth_type(0x0800),ipv4()'
down='in_port(2),eth(),eth_type(0x8100),vlan(vid=10,pcp=0),encap(eth_type(0x0800),ipv4())'
check "add the push_vlan and pop_vlan flows" add_flows dp0 \
	"$up" 'push_vlan(vid=10,pcp=0),2' "$down" 'pop_vlan,1'

tcpdump_start 2 /tmp/vlan.trunk icmp or vlan
ip netns exec ns1 timeout 120 tcpdump -i eth0 -nn -e -l icmp \
	>/tmp/vlan.access 2>/tmp/vlan.access.err &
access_pid=$!
wait_for 25 grep -q 'listening on' /tmp/vlan.access.err
check "ping access -> trunk VLAN 10" nsx 1 "${PING[@]}" 198.51.100.2
tcpdump_stop
kill -INT "$access_pid" 2>/dev/null
wait "$access_pid" 2>/dev/null
check "the trunk sees the request tagged 802.1Q vlan 10" captured /tmp/vlan.trunk \
	'02:00:00:00:00:01 > 02:00:00:00:00:02, ethertype 802\.1Q \(0x8100\), length [0-9]+: vlan 10, p 0, ethertype IPv4 \(0x0800\).* 198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request'
check "the trunk sends the reply tagged 802.1Q vlan 10" captured /tmp/vlan.trunk \
	'02:00:00:00:00:02 > 02:00:00:00:00:01, ethertype 802\.1Q \(0x8100\), length [0-9]+: vlan 10, p 0, ethertype IPv4 \(0x0800\).* 198\.51\.100\.2 > 198\.51\.100\.1: ICMP echo reply'
check "the access port sees the reply untagged" captured /tmp/vlan.access \
	'02:00:00:00:00:02 > 02:00:00:00:00:01, ethertype IPv4 \(0x0800\), length 98: 198\.51\.100\.2 > 198\.51\.100\.1: ICMP echo reply'
check_absent "and no tag at all" 'vlan' /tmp/vlan.access
check_eq "the pop flow matched both replies" "2" \
	"$(flow_field dp0 'vlan(vid=10' packets)"

# Part 2: QinQ, 802.1ad outer tag 20 around 802.1Q 10.
nsx 2 ip addr flush dev eth0.10
nsx 2 ip link set eth0.10 down
nsx 2 ip link add link eth0 name eth0.20 type vlan proto 802.1ad id 20
nsx 2 ip link set eth0.20 up
nsx 2 ip link add link eth0.20 name eth0.20.10 type vlan id 10
nsx 2 ip link set eth0.20.10 address "$(ns_mac 2)" up
nsx 2 ip addr add 198.51.100.2/24 dev eth0.20.10
nsx 2 ip neigh replace 198.51.100.1 lladdr "$(ns_mac 1)" dev eth0.20.10 nud permanent

qdown='in_port(2),eth(),eth_type(0x88a8),vlan(vid=20,pcp=0),encap(eth_type(0x8100),vlan(vid=10,pcp=0),encap(eth_type(0x0800),ipv4()))'
check "del-flows" ovs-dpctl del-flows dp0
check "add the QinQ push and pop flows" add_flows dp0 \
	"$up" 'push_vlan(vid=10,pcp=0),push_vlan(tpid=0x88a8,vid=20,pcp=0),2' \
	"$qdown" 'pop_vlan,pop_vlan,1'
tcpdump_start 2 /tmp/vlan.qinq icmp or vlan
check "ping access -> trunk QinQ 20/10" nsx 1 "${PING[@]}" 198.51.100.2
tcpdump_stop
check "the trunk sees the request tagged 802.1ad 20 around 802.1Q 10" \
	captured /tmp/vlan.qinq \
	'02:00:00:00:00:01 > 02:00:00:00:00:02, ethertype 802\.1Q-QinQ \(0x88a8\), length [0-9]+: vlan 20, p 0, ethertype 802\.1Q \(0x8100\), vlan 10, p 0, ethertype IPv4 \(0x0800\).* 198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request'
check "the trunk sends the reply tagged 802.1ad 20 around 802.1Q 10" \
	captured /tmp/vlan.qinq \
	'02:00:00:00:00:02 > 02:00:00:00:00:01, ethertype 802\.1Q-QinQ \(0x88a8\), length [0-9]+: vlan 20, p 0, ethertype 802\.1Q \(0x8100\), vlan 10, p 0, ethertype IPv4 \(0x0800\).* 198\.51\.100\.2 > 198\.51\.100\.1: ICMP echo reply'
check_eq "the QinQ pop flow matched both replies" "2" \
	"$(flow_field dp0 'vlan(vid=20' packets)"
