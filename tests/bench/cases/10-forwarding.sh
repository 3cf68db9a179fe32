# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: limit 1800
#
# Forwarding rate, ours against the in-tree module, in this one boot.
#
#   pktgen                          host                          counted
#   [gen0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[sink0]
#
# pktgen sends 64-byte UDP frames on gen0 from random source ports, so
# that every frame has a new skb hash and no mask cache can place it.  A
# case with N masks has N - 1 flows on masks no frame matches, installed
# first, and the one flow that carries the frames on the Nth mask, last:
# the order that costs a datapath walking masks in insertion order the
# most.  Each measurement loads its module, builds the datapath, lets the
# traffic run for BENCH_WARMUP seconds (longer than either module's
# reordering period: ours 1 s, the in-tree one 4 s), then counts what
# sink0 received over BENCH_SECONDS.  Rounds alternate which module goes
# first.  Every measurement is a line of $ROAM_SHARED/out/forwarding.jsonl
# (tests/bench/report.py makes the medians, ratios, table and plots).
#
# BENCH_MASKS (masks per case, default "1 4 16 64 256"), BENCH_ROUNDS
# (default 3), BENCH_WARMUP (5), BENCH_SECONDS (3).

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../rounds.sh
. ./rounds.sh
# shellcheck source=../pktgen.sh
. ./pktgen.sh

masks_list=${BENCH_MASKS:-1 4 16 64 256}
rounds=${BENCH_ROUNDS:-3}
warmup=${BENCH_WARMUP:-5}
seconds=${BENCH_SECONDS:-3}
results=$ROAM_SHARED/out/forwarding.jsonl

case_cleanup() {
	pktgen_cleanup
	rm -f /tmp/bench.*
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

rx_sink() {
	cat /sys/class/net/sink0/statistics/rx_packets
}

# mask_flows N: N - 1 flows on masks no frame matches, then the flow for
# the frames, on the Nth.
mask_flows() {
	decoy_flows $(($1 - 1)) 2
	printf 'in_port(1),eth(),eth_type(0x0800),ipv4(proto=17,frag=no),udp() 2\n'
}

# measure DP MASKS ROUND: one measurement, its JSON line appended to
# $results; fails (saying why) when anything does.
measure() {
	local dp=$1 n=$2 round=$3 r0 r1 t0 t1 s0 s1 total
	local h0 m0 k0 h1 m1 k1

	fresh_dp p1 p2 || return 1
	mask_flows "$n" >/tmp/bench.flows
	[ -z "$(put_flows dp0 </tmp/bench.flows)" ] || return 1
	total=$(ovs-dpctl show dp0 | sed -n 's/.*masks: .*total:\([0-9]*\).*/\1/p')
	[ "$total" = "$n" ] || { echo "dp0 has $total masks, not $n"; return 1; }

	pktgen_start
	sleep "$warmup"
	s0=$(dp_lookups dp0) r0=$(rx_sink) t0=$(date +%s%N)
	sleep "$seconds"
	s1=$(dp_lookups dp0) r1=$(rx_sink) t1=$(date +%s%N)
	pktgen_stop
	ovs-dpctl del-dp dp0
	if [ -z "$s0" ] || [ -z "$s1" ]; then
		echo "no lookups or masks line in ovs-dpctl show"
		return 1
	fi
	[ "$r1" -gt "$r0" ] || { echo "sink0 received nothing"; return 1; }
	read -r h0 m0 k0 <<<"$s0"
	read -r h1 m1 k1 <<<"$s1"
	python3 - "$dp" "$n" "$round" "$r0" "$r1" "$t0" "$t1" \
		"$h0" "$m0" "$k0" "$h1" "$m1" "$k1" >>"$results" <<-'EOF'
		import json, sys
		dp, n, rnd, r0, r1, t0, t1, h0, m0, k0, h1, m1, k1 = sys.argv[1:]
		lookups = int(h1) + int(m1) - int(h0) - int(m0)
		print(json.dumps({
		    "case": "masks-%s" % n, "masks": int(n), "datapath": dp,
		    "round": int(rnd),
		    "pps": round((int(r1) - int(r0)) * 1e9 / (int(t1) - int(t0))),
		    "masks_per_packet": round((int(k1) - int(k0)) / lookups, 3)
		                        if lookups else None}))
	EOF
}

mkdir -p "$ROAM_SHARED/out"
: >"$results"
check "veth pairs gen0-p1 and p2-sink0" links
check "pktgen drives gen0" pktgen_setup

# step DP ROUND: every mask count on the module loaded.
step() {
	local n

	for n in $masks_list; do
		check "round $2, $1, $n masks: forwarded" measure "$1" "$n" "$2"
	done
}

each_round "$rounds" step
results_done "$results" "$((2 * rounds * $(wc -w <<<"$masks_list")))" \
	"one result for each datapath, case and round"
