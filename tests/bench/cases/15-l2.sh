# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: limit 1200
#
# L2 forwarding on four switches in this one boot: ours, the in-tree
# module, the Linux bridge and tc flower, each between the same two veths.
#
#                        pktgen                                   counted
#   [gen0]<--veth-->[p1]-- switch --[p2]<--veth-->[sink0]
#   (p1's peer, idle)  (pktgen hands its frames to p1's receive path)
#
# Frames go to destination MACs from 02:00:00:00:10:00 up, from random
# UDP source ports, and every switch sends a frame by its destination MAC
# alone:
#   l2-1      one destination MAC, one rule: a datapath flow on in_port,
#             eth dst and eth_type IPv4 (with an all-wildcard ipv4(): a
#             key carries what its eth_type implies), a static fdb entry
#             on p2, a flower filter redirecting to p2;
#   l2-1000   1,000 destination MACs at random, 1,000 such rules (one
#             mask in each datapath, one flower mask).
# The bridge has static entries for every MAC, so it forwards, never
# floods.  Rounds rotate which switch goes first.  Every measurement is a
# line of $ROAM_SHARED/out/l2.jsonl, as in 10-forwarding.
#
# BENCH_ROUNDS (default 3), BENCH_WARMUP (5), BENCH_SECONDS (3).

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../rounds.sh
. ./rounds.sh
# shellcheck source=../pktgen.sh
. ./pktgen.sh
# pktgen hands its frames to p1's receive path, not to gen0 (pktgen.sh)
pktgen_into=p1

rounds=${BENCH_ROUNDS:-3}
results=$ROAM_SHARED/out/l2.jsonl

case_cleanup() {
	l2_undo
	pktgen_cleanup
	rm -f /tmp/bench.*
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

# macs N: the first N destination MACs, one a line.
macs() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "02:00:00:00:%02x:%02x\n", (4096 + i) / 256, i % 256
	}'
}

# l2_undo: no switch between p1 and p2.
l2_undo() {
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del br0 2>/dev/null
	tc qdisc del dev p1 clsact 2>/dev/null
	return 0
}

# l2_switch SWITCH N: SWITCH between p1 and p2 with a rule for each of the
# first N MACs; fails saying why.
l2_switch() {
	local rules

	l2_undo
	macs "$2" >/tmp/bench.macs
	case $1 in
	ours | in-tree)
		fresh_dp p1 p2 &&
			awk '{ printf "in_port(1),eth(dst=%s),eth_type(0x0800),ipv4() 2\n", $1 }' \
				/tmp/bench.macs >/tmp/bench.flows &&
			load_flows dp0 </tmp/bench.flows || return 1
		rules=$(ovs-dpctl dump-flows dp0 | wc -l)
		;;
	bridge)
		ip link add br0 type bridge &&
			ip link set p1 master br0 && ip link set p2 master br0 &&
			ip link set br0 up || return 1
		awk '{ print "fdb add " $1 " dev p2 master static" }' \
			/tmp/bench.macs >/tmp/bench.batch
		bridge -batch /tmp/bench.batch || return 1
		rules=$(bridge fdb show dev p2 | grep -c ' static')
		;;
	flower)
		tc qdisc add dev p1 clsact || return 1
		awk '{ printf "filter add dev p1 ingress protocol ip pref 1 " \
			"handle %d flower dst_mac %s action mirred egress " \
			"redirect dev p2\n", NR, $1 }' \
			/tmp/bench.macs >/tmp/bench.batch
		tc -batch /tmp/bench.batch || return 1
		rules=$(tc filter show dev p1 ingress | grep -c '^filter .* handle ')
		;;
	*) echo "l2_switch: unknown switch $1"; return 1 ;;
	esac
	[ "$rules" = "$2" ] || { echo "$1 has $rules rules, not $2"; return 1; }
}

# l2 SWITCH N ROUND: case l2-N on SWITCH.
l2() {
	l2_switch "$1" "$2" &&
		pktgen_setup "dst_mac 02:00:00:00:10:00" "dst_mac_count $2" \
			"flag MACDST_RND" &&
		rate "$1" "l2-$2" 1 "$3" >>"$results"
}

mkdir -p "$ROAM_SHARED/out"
: >"$results"
check "veth pairs gen0-p1 and p2-sink0" links

# step SWITCH ROUND: both cases on SWITCH.
step() {
	local n

	for n in 1 1000; do
		check "round $2, $1, case l2-$n: forwarded" l2 "$1" "$n" "$2"
	done
}

each_round "$rounds" step ours in-tree bridge flower
results_done "$results" "$((4 * rounds * 2))" \
	"one result for each switch, case and round"
