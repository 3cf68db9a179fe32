# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# The migration agent's tap queue (migrate-agent/tapqueue.h), through the
# tap-queue tool: what a paused guest's tap holds is sent on by the
# uplink, tagged as the redirect tags, once, but for group-addressed
# frames (the switch flooded those to the other hosts already); an
# announcement written into a tap enters the switch on the tap's port.
#
#   ns1 (a peer)                  host                  ns3 (the uplink: a trunk)
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(3)--[p3]<--veth-->[eth0]
#   198.51.100.1                 |                       +-[eth0.10] 198.51.100.3
#                               (2)
#                              [tq0]  a tap its holder never reads, as a
#                                     stopped QEMU (tap-queue hold)
#
# The queue is the tap's, not the datapath's: both modules' passes run
# all of it.

# shellcheck source=../netns.sh
. ./netns.sh

QUEUE=$PWD/bin/tap-queue
holders=()

case_cleanup() {
	tcpdump_stop
	if [ ${#holders[@]} -gt 0 ]; then
		kill "${holders[@]}" 2>/dev/null
		wait "${holders[@]}" 2>/dev/null
	fi
	ovs-dpctl del-dp dp0
	ns_del 1 3
	rm -f /tmp/tapq.*
}

# hold DEV [block]: a holder of the new tap DEV, in the background (in
# this shell: case_cleanup ends it, and its tap goes with it);
# held DEV waits for it and sets DEV up.
hold() {
	"$QUEUE" hold "$@" >"/tmp/tapq.$1" 2>&1 &
	holders+=($!)
}
held() {
	wait_for 50 grep -qx "holding $1" "/tmp/tapq.$1" && ip link set "$1" up
}

# tap_mac DEV: DEV's own MAC.
tap_mac() { cat "/sys/class/net/$1/address"; }

# first_is_placeholder FILE DEV: the first frame FILE captured is
# tapq_purge's placeholder: from DEV's MAC to the guest's, EtherType
# 0x88b5 (tcpdump -e names neither the type nor its payload).
first_is_placeholder() {
	local line

	line=$(head -n 1 "$1")
	[[ $line == *" $(tap_mac "$2") > $GUEST_MAC, "* && $line == *0x88b5* ]] ||
		{ echo "first: $line"; return 1; }
}

# ping_quiet N IP COUNT: nsN sends COUNT echo requests to IP; no answer
# is expected (they wait in the tap).
ping_quiet() {
	nsx "$1" ping -n -q -c "$3" -i 0.2 -W 1 "$2" >/dev/null 2>&1
	return 0
}

# drained FILE VLAN: FILE's ICMP echo requests from ns1 for the guest,
# tagged VLAN (0: untagged).
drained() {
	local tag='ethertype IPv4'

	[ "$2" = 0 ] || tag="ethertype 802\\.1Q \\(0x8100\\), length [0-9]+: vlan $2, p 0, ethertype IPv4"
	grep -cE -- " $(ns_mac 1) > $GUEST_MAC, $tag .*ICMP echo request" "$1"
}

GUEST_MAC=02:00:00:00:00:02
ns_add 1
ns_add 3
nsx 1 ip neigh replace 198.51.100.2 lladdr "$GUEST_MAC" dev eth0 nud permanent
nsx 1 ip route add 224.0.0.0/4 dev eth0
nsx 3 ip addr flush dev eth0
nsx 3 ip link add link eth0 name eth0.10 type vlan id 10
nsx 3 ip link set eth0.10 up

hold tq0
check "a holder makes tap tq0 and never reads it" held tq0
check "add-dp dp0, ports p1 tq0 p3" eval "ovs-dpctl add-dp dp0 &&
	ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 tq0 && ovs-dpctl add-if dp0 p3"
ipv4='eth(),eth_type(0x0800),ipv4()'
check "flows: ns1's IPv4 to the tap, the tap's RARPs to the uplink" \
	add_flows dp0 "in_port(1),$ipv4" 2 \
	'in_port(2),eth(),eth_type(0x8035),arp()' 3

ping_quiet 1 198.51.100.2 5
# and 2 to a multicast group: group-addressed frames for the tap, which
# the switch would have flooded to the other hosts
ping_quiet 1 224.0.0.1 2
# tun counts a frame sent when its reader takes it (tx_packets), or
# when it drops it (tx_dropped)
tap_tx() {
	cat /sys/class/net/tq0/statistics/tx_packets \
		/sys/class/net/tq0/statistics/tx_dropped | paste -sd ' '
}
check_output "the tap holds ns1's 7 echo requests: nobody took them" "0 0" tap_tx
tcpdump_start 3 /tmp/tapq.up
check_output "drain sends the 5 unicast frames on by p3, VLAN 10, and drops the 2 multicast ones" \
	"sent 5 group 2 failed 0" "$QUEUE" drain tq0 p3 10
check_output "a second drain finds none: the queue gave them up" \
	"sent 0 group 0 failed 0" "$QUEUE" drain tq0 p3 10
tcpdump_stop
check_output "the tap counts the 7 taken once, none dropped" "7 0" tap_tx
check_eq "the uplink got the 5, tagged 10, once each" 5 "$(drained /tmp/tapq.up 10)"
check_eq "and nothing else" 5 "$(grep -c . /tmp/tapq.up)"

# VLAN 0 pushes nothing; a frame already tagged keeps its tag.
ping_quiet 1 198.51.100.2 2
check "ns1's IPv4 now gets VLAN 20 pushed before the tap" eval \
	"ovs-dpctl mod-flow dp0 'in_port(1),$ipv4' 'push_vlan(vid=20,pcp=0),2'"
ping_quiet 1 198.51.100.2 1
tcpdump_start 3 /tmp/tapq.tags
check_output "drain with VLAN 10 sends the 3 on" "sent 3 group 0 failed 0" \
	"$QUEUE" drain tq0 p3 10
tcpdump_stop
check_eq "2 untagged frames got VLAN 10" 2 "$(drained /tmp/tapq.tags 10)"
check_eq "the tagged one kept VLAN 20, and no second tag" "1 0" \
	"$(drained /tmp/tapq.tags 20) $(grep -c 'vlan 20, .*vlan 10\|vlan 10, .*vlan 20' /tmp/tapq.tags)"
ping_quiet 1 198.51.100.2 1
check "the frames go untagged again" eval \
	"ovs-dpctl mod-flow dp0 'in_port(1),$ipv4' 2"
ping_quiet 1 198.51.100.2 2
tcpdump_start 3 /tmp/tapq.untagged
check_output "drain with VLAN 0 sends the 3 on" "sent 3 group 0 failed 0" \
	"$QUEUE" drain tq0 p3 0
tcpdump_stop
check_eq "2 of them untagged (one was tagged 20 by the old flow)" "2 1" \
	"$(drained /tmp/tapq.untagged 0) $(drained /tmp/tapq.untagged 20)"

# An announcement written into the tap enters dp0 on its port.
tcpdump_start 3 /tmp/tapq.rarp
check "a RARP from the guest's MAC is written into the tap" \
	"$QUEUE" inject tq0 "$GUEST_MAC"
tcpdump_stop
check "it entered on the tap's port: its flow sent it to the uplink" \
	captured /tmp/tapq.rarp "^[0-9:.]+ $GUEST_MAC > ff:ff:ff:ff:ff:ff, ethertype Reverse ARP"

# An incoming guest's new tap (tapq_purge): what is not for the guest's
# MAC, flooded in while the guest ran on the source, is taken out; what
# is for it (the source's redirect) is handed back to the tap, in order.
nsx 1 ip neigh replace 198.51.100.9 lladdr 02:00:00:00:00:09 dev eth0 nud permanent
ping_quiet 1 198.51.100.2 3
ping_quiet 1 224.0.0.1 2
ping_quiet 1 198.51.100.9 2
check_output "purge keeps the 3 frames for the guest's MAC, takes the 2 multicast and 2 for another MAC" \
	"kept 3 taken 4 failed 0" "$QUEUE" purge tq0 "$GUEST_MAC"
tcpdump_start 3 /tmp/tapq.kept
check_output "the 3 wait in the queue again behind the placeholder: a drain sends the 4 on" \
	"sent 4 group 0 failed 0" "$QUEUE" drain tq0 p3 10
tcpdump_stop
check "first the placeholder, for the guest from the tap, of EtherType 0x88b5" \
	first_is_placeholder /tmp/tapq.kept tq0
check_eq "then the 3, in the order they were sent" "1 2 3" \
	"$(grep -o 'ICMP echo request, id [0-9]*, seq [0-9]*' /tmp/tapq.kept |
		awk '{ print $NF }' | paste -sd ' ')"
check_refused "a purge with a malformed MAC is refused" \
	"tap-queue: 02:00:00:00:00 is not a MAC address" \
	"$QUEUE" purge tq0 02:00:00:00:00

# Refusals: nobody holds the tap; its holder reads it blocking (then a
# read could wait for ever).
check_refused "a drain of a tap nobody holds is refused" \
	"tap-queue: usage, or nobody holds tqx" "$QUEUE" drain tqx p3 10
hold tq1 block
check "a holder makes tap tq1, blocking" held tq1
check_refused "a drain of a blocking holder's tap is refused" \
	"roam-migrate-agent: tq1: its holder reads it blocking: not drained" \
	"$QUEUE" drain tq1 p3 10
