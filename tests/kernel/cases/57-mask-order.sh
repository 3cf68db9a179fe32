# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# The mask walk's order, and the mask cache kept honest.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                 |(3)                      198.51.100.2
#                               [p3]<--veth-->[eth0] ns3 198.51.100.3
#
# Part 1, the order: 63 flows on 63 masks that no packet of ns1's
# matches, then the flow that carries its UDP on a 64th mask, installed
# last, with the mask cache off so that every lookup walks the masks.
# ns1 sends frames with random UDP source ports, waits longer than a
# reordering period of either module (ours 1 s, the in-tree module's 4 s),
# then sends a measured batch: on ours it must have tried at most 2 masks
# a packet ("masks: hit" against lookups over the batch), where insertion
# order would cost 64 (up to three batches: a loaded host may run the
# reordering late); the in-tree module's figure is reported (see below).
# Part 2, the cache (on, its default size; one UDP 5-tuple, so one cache
# entry): each change takes effect at the very next packet, whatever the
# cache holds.  A flow whose actions change from p2 to p3 sends it to ns3;
# a deleted flow's packet is a miss even after a new mask takes the
# deleted one's slot; a flush makes it a miss too.  Each packet is
# followed to the counters of ns2's and ns3's eth0 and the datapath's
# misses.
# Part 3, masks alike in their first words (ours hashes a packet's key
# under a run of such masks resuming from what the one before left:
# kernel/flow_table.c, range_hash()), with the mask cache off: eight UDP
# flows from 198.51.100.1 to ports 6000 to 6007, each on a mask of its
# own that differs from the others only in the IPv4 TOS bits it matches
# (0 in every frame), and between them masks that part from theirs early
# (the Ethernet source) or start earlier (the recirculation id).  A frame
# to each port must be matched by its own flow, and none missed.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	ovs-dpctl del-dp dp0
	ns_del 1 2 3
}

# frames N COUNT [SPORT [DPORT]]: nsN sends COUNT UDP frames to ns2's MAC
# and 198.51.100.200 port DPORT (default 6000) on a packet socket (no ARP,
# no socket per port), from random source ports or from SPORT (0:
# random).  An address ns2 does not have, so that ns2 drops them without
# an ICMP error (which would come back into the datapath and count as a
# miss).
frames() {
	nsx "$1" python3 -c '
import random, socket, struct, sys
count, sport, dport = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
src, dst = socket.inet_aton("198.51.100.1"), socket.inet_aton("198.51.100.200")
sk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
sk.bind(("eth0", 0))
eth = bytes.fromhex("020000000002" "020000000001" "0800")
def csum(b):
    s = sum(struct.unpack("!10H", b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff
for _ in range(count):
    port = sport or random.randint(1024, 65535)
    udp = struct.pack("!HHHH", port, dport, 12, 0) + b"roam"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64,
                     17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    sk.send(eth + ip + udp)
' "$2" "${3:-0}" "${4:-6000}"
}

# rx N: frames nsN's eth0 received.
rx() {
	nsx "$1" cat /sys/class/net/eth0/statistics/rx_packets
}

# counters: "NS2_RX NS3_RX MISSED" now.
counters() {
	local l

	l=$(dp_lookups dp0) || return 1
	echo "$(rx 2) $(rx 3) $(cut -d' ' -f2 <<<"$l")"
}

# one_frame: ns1 sends one frame of the cached 5-tuple; prints how far
# the counters moved ("NS2 NS3 MISSED").
one_frame() {
	local before after b2 b3 bm a2 a3 am

	before=$(counters) || return 1
	frames 1 1 5000 || return 1
	sleep 0.5
	after=$(counters) || return 1
	read -r b2 b3 bm <<<"$before"
	read -r a2 a3 am <<<"$after"
	echo "$((a2 - b2)) $((a3 - b3)) $((am - bm))"
}

ns_add 1
ns_add 2
ns_add 3
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1, p2 and p3" \
	eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2 && ovs-dpctl add-if dp0 p3"

# Part 1.
check "mask cache off" ovs-dpctl cache-set-size dp0 masks-cache 0
udp='in_port(1),eth(),eth_type(0x0800),ipv4(proto=17,frag=no),udp()'
{
	decoy_flows 63 3
	printf '%s 2\n' "$udp"
} >/tmp/order.flows
check_output "64 flows put in that order" "" put_flows dp0 </tmp/order.flows
check_output "on 64 masks" "64" dp_masks dp0
ns2_before=$(rx 2)
check "ns1 sends 300 frames, random source ports" frames 1 300
# batch: ns1 sends 300 more after a pause longer than either module's
# reordering period; prints "HIT MISSED MASKS_TRIED" over them.
batch() {
	local before after bh bm bk ah am ak

	sleep 5
	before=$(dp_lookups dp0) || return 1
	frames 1 300 || return 1
	sleep 0.5
	after=$(dp_lookups dp0) || return 1
	read -r bh bm bk <<<"$before"
	read -r ah am ak <<<"$after"
	echo "$((ah - bh)) $((am - bm)) $((ak - bk))"
}
# Up to three batches, the first that tries at most 2 masks a packet
# ends them: a loaded host may run a reordering late.  Ours must get
# there.  The in-tree module's figure is reported, not judged: its
# reordering (every 4 s) did not happen within three batches, 15 s, in
# some runs (2026-12-05, host kernel, idle or loaded alike; in others it
# took one); why is not found yet, and the oracle's heuristic is not ours
# to test.  Without a reordering every batch tries 64.
for try in 1 2 3; do
	read -r hit missed tried < <(batch) || { hit=0 missed=0 tried=0; }
	tap_diag "measured batch $try: lookups hit $hit, missed $missed, masks tried $tried"
	[ "${tried:-0}" -gt 600 ] || break
done
check "ns2 received the $((300 * (try + 1))) frames" \
	test "$(($(rx 2) - ns2_before))" -ge "$((300 * (try + 1)))"
check_eq "the last batch hit the UDP flow, no miss" "300 0" "$hit $missed"
# masks tried per packet, in hundredths
if dp_is ours; then
	check "at most 2 masks tried a packet ($((tried * 100 / 300)) hundredths)" \
		test "$tried" -gt 0 -a "$tried" -le 600
else
	tap_diag "in-tree: $((tried * 100 / 300)) hundredths of a mask tried a packet (not judged)"
fi

# Part 2.
check "del-flows" ovs-dpctl del-flows dp0
check "mask cache back to 256 entries" ovs-dpctl cache-set-size dp0 masks-cache 256
check "UDP to p2; a mask that ns1 never matches, to p3" add_flows dp0 \
	"$udp" 2 'in_port(1),eth(),eth_type(0x0800),ipv4(dst=203.0.113.1)' 3
check_output "the first frame reaches ns2" "1 0 0" one_frame
check_output "and the next, by the cache" "1 0 0" one_frame
check "mod-flow: the UDP flow now sends to p3" \
	ovs-dpctl mod-flow dp0 "$udp" 3
check_output "the next frame reaches ns3 instead" "0 1 0" one_frame
check "del-flow the UDP flow (its mask goes)" ovs-dpctl del-flow dp0 "$udp"
check_output "the next frame is a miss" "0 0 1" one_frame
# Eight flows on a new mask: it may take the deleted mask's slot (the mask
# cache's entry), and the flows take every index freed so far, the one
# ours' flow cache holds for this frame among them.
eight=()
for i in 1 2 3 4 5 6 7 8; do
	eight+=("in_port(1),eth(),eth_type(0x0800),ipv4(src=203.0.113.$i)" 2)
done
check "eight flows on a new mask, which ns1 never matches, to p2" \
	add_flows dp0 "${eight[@]}"
check_output "the next frame is still a miss" "0 0 1" one_frame
check "the UDP flow back, to p2" add_flows dp0 "$udp" 2
check_output "the next frame reaches ns2" "1 0 0" one_frame
check "del-flows" ovs-dpctl del-flows dp0
check_output "after the flush the next frame is a miss" "0 0 1" one_frame

# Part 3.
check "mask cache off again" ovs-dpctl cache-set-size dp0 masks-cache 0
head='in_port(1),eth(),eth_type(0x0800)'
# tos_flow I: the flow for port 6000 + I, its mask matching TOS bits
# 4 * (I + 1).
tos_flow() {
	printf '%s,ipv4(src=198.51.100.1,tos=0/%#x,proto=17,frag=no),udp(dst=%d) 2\n' \
		"$head" $((4 * ($1 + 1))) $((6000 + $1))
}
{
	for i in 0 1 2; do tos_flow "$i"; done
	echo "in_port(1),eth(src=02:00:00:00:00:99),eth_type(0x0800),ipv4(src=198.51.100.1,proto=17,frag=no),udp(dst=7003) 3"
	for i in 3 4; do tos_flow "$i"; done
	echo "recirc_id(0),$head,ipv4(src=198.51.100.1,proto=17,frag=no),udp(dst=7005) 3"
	for i in 5 6 7; do tos_flow "$i"; done
} >/tmp/order.flows
check_output "ten flows put in that order" "" put_flows dp0 </tmp/order.flows
check_output "on ten masks" "10" dp_masks dp0
before=$(counters)
for i in 0 1 2 3 4 5 6 7; do
	check "ns1 sends a frame to port $((6000 + i))" frames 1 1 0 $((6000 + i))
done
sleep 0.5
after=$(counters)
read -r b2 b3 bm <<<"$before"
read -r a2 a3 am <<<"$after"
check_eq "ns2 got the eight, ns3 none, no miss" "8 0 0" \
	"$((a2 - b2)) $((a3 - b3)) $((am - bm))"
for i in 0 1 2 3 4 5 6 7; do
	check_output "the flow for port $((6000 + i)) matched one frame" \
		"packets:1," eval "ovs-dpctl dump-flows dp0 |
		grep -F 'udp(dst=$((6000 + i)))' | grep -F 'tos=0/' |
		grep -o 'packets:[0-9]*,'"
done
