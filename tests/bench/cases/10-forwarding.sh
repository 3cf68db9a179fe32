# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: limit 1800
#
# Forwarding rate, ours against the in-tree module, in this one boot.
#
#                        pktgen                                   counted
#   [gen0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[sink0]
#   (p1's peer, idle)  (pktgen hands its frames to p1's receive path)
#
# pktgen sends 64-byte UDP frames into p1; the cases differ in the flows
# and in which fields of the frames vary.
#   masks-N        N masks: N - 1 flows on masks no frame matches,
#                  installed first, then the one flow that carries the
#                  frames, on the Nth: the order that costs a datapath
#                  walking masks in insertion order the most.  Random
#                  source ports: every frame has a new skb hash, so no
#                  mask cache can place it.
#   flows-1000     1,000 flows over 1 mask (exact UDP destination ports);
#                  the frames cycle through those 1,000 5-tuples.
#   flows-10k-repeat
#                  9,984 flows over 64 masks (64 sources x 156 destination
#                  ports, a mask per source); the frames repeat those
#                  9,984 5-tuples, so caches can learn them.
#   flows-10k-new  the same flows; the frames' source ports are random
#                  too, so nearly every 5-tuple is new and defeats every
#                  cache, while every frame still has its flow.
# Each measurement loads its module, builds the datapath, runs the
# traffic (tests/bench/pktgen.sh's rate), and rounds alternate which
# module goes first.  Every measurement is a line of
# $ROAM_SHARED/out/forwarding.jsonl (tests/bench/report.py makes the
# medians, ratios, table and plots).
#
# BENCH_MASKS (masks per case, default "1 4 16 64 256"), BENCH_ROUNDS
# (default 3), BENCH_WARMUP (5), BENCH_SECONDS (3); BENCH_FLOW_CASES=0
# leaves out the flows-* cases.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../rounds.sh
. ./rounds.sh
# shellcheck source=../pktgen.sh
. ./pktgen.sh
# pktgen hands its frames to p1's receive path, not to gen0 (pktgen.sh)
pktgen_into=p1

masks_list=${BENCH_MASKS:-1 4 16 64 256}
rounds=${BENCH_ROUNDS:-3}
flow_cases=${BENCH_FLOW_CASES:-1}
results=$ROAM_SHARED/out/forwarding.jsonl

case_cleanup() {
	pktgen_cleanup
	rm -f /tmp/bench.*
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

# mask_flows N: N - 1 flows on masks no frame matches, then the flow for
# the frames, on the Nth.
mask_flows() {
	decoy_flows $(($1 - 1)) 2
	printf 'in_port(1),eth(),eth_type(0x0800),ipv4(proto=17,frag=no),udp() 2\n'
}

# grid_flows SOURCES PORTS: a flow to port 2 for each source address
# 198.51.100.(1 + S) and UDP destination port 6000 + P.  The flows of
# source S share a mask of their own: besides the address and port, it
# has the IPv4 TOS bits S << 2, whose value is 0 in every frame.  So
# SOURCES masks in all, and no flow's key overlaps another's.
grid_flows() {
	awk -v sources="$1" -v ports="$2" 'BEGIN {
		for (s = 0; s < sources; s++)
			for (p = 0; p < ports; p++)
				printf "in_port(1),eth(),eth_type(0x0800)," \
					"ipv4(src=198.51.100.%d,tos=0/%#x,proto=17,frag=no)," \
					"udp(dst=%d) 2\n", 1 + s, s * 4, 6000 + p
	}'
}

# install_flows FLOWS MASKS: dp0 anew with the flows of file FLOWS, which must
# make MASKS masks.
install_flows() {
	local flows total

	fresh_dp p1 p2 || return 1
	load_flows dp0 <"$1" || return 1
	flows=$(wc -l <"$1")
	total=$(dp_flows dp0)
	[ "$total" = "$flows" ] || { echo "dp0 has ${total:-no} flows, not $flows"; return 1; }
	total=$(dp_masks dp0)
	[ "$total" = "$2" ] || { echo "dp0 has ${total:-no} masks, not $2"; return 1; }
}

# masks DP N ROUND: case masks-N.
masks() {
	mask_flows "$2" >/tmp/bench.flows
	install_flows /tmp/bench.flows "$2" && pktgen_setup &&
		rate "$1" "masks-$2" "$2" "$3" >>"$results"
}

# flows_1000 DP ROUND: case flows-1000.
flows_1000() {
	grid_flows 1 1000 >/tmp/bench.flows
	install_flows /tmp/bench.flows 1 &&
		pktgen_setup "udp_dst_max 6999" "flag UDPDST_RND" "udp_src_max 1024" &&
		rate "$1" flows-1000 1 "$2" >>"$results"
}

# flows_10k DP ROUND: cases flows-10k-repeat and flows-10k-new, on one
# installation of their flows.
flows_10k() {
	local grid=("src_max 198.51.100.64" "flag IPSRC_RND" "udp_dst_max 6155"
		"flag UDPDST_RND")

	grid_flows 64 156 >/tmp/bench.flows
	install_flows /tmp/bench.flows 64 &&
		pktgen_setup "${grid[@]}" "udp_src_max 1024" &&
		rate "$1" flows-10k-repeat 64 "$2" >>"$results" &&
		pktgen_setup "${grid[@]}" &&
		rate "$1" flows-10k-new 64 "$2" >>"$results"
}

mkdir -p "$ROAM_SHARED/out"
: >"$results"
check "veth pairs gen0-p1 and p2-sink0" links

# step DP ROUND: every case on the module loaded.
step() {
	local n

	for n in $masks_list; do
		check "round $2, $1, $n masks: forwarded" masks "$1" "$n" "$2"
	done
	if [ "$flow_cases" = 1 ]; then
		check "round $2, $1, 1,000 flows on 1 mask: forwarded" flows_1000 "$1" "$2"
		check "round $2, $1, 9,984 flows on 64 masks, repeated and new 5-tuples: forwarded" \
			flows_10k "$1" "$2"
	fi
}

each_round "$rounds" step
cases=$(wc -w <<<"$masks_list")
[ "$flow_cases" != 1 ] || cases=$((cases + 3))
results_done "$results" "$((2 * rounds * cases))" \
	"one result for each datapath, case and round"
