# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: limit 1800
#
# Kernel memory per megaflow, ours against the in-tree module, in this one
# boot: dp0 with one port, then BENCH_FLOWS megaflows (default 100,000) on
# one mask, put by one ovs-dpctl; "Slab" plus "Percpu" of /proc/meminfo
# before and after them (each read after dropping the page cache and
# reclaimable slabs, and after a grace period's frees), divided by the
# flows.  BENCH_ROUNDS rounds (default 3), alternating which module goes
# first; each measurement is a line of $ROAM_SHARED/out/memory.jsonl.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../rounds.sh
. ./rounds.sh

flows=${BENCH_FLOWS:-100000}
rounds=${BENCH_ROUNDS:-3}
results=$ROAM_SHARED/out/memory.jsonl

case_cleanup() {
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del p1 2>/dev/null
	rm -f /tmp/memory.*
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

# kernel_kb: Slab plus Percpu, in kB, once the frees have settled.
kernel_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# kfree_rcu and call_rcu frees, batched for a few seconds
	sleep 3
	awk '/^(Slab|Percpu):/ { kb += $2; n++ }
		END { if (n == 2) print kb; else exit 1 }' /proc/meminfo
}

# flows_in DP: DP's flow count from ovs-dpctl show.
flows_in() {
	ovs-dpctl show "$1" | sed -n 's/^ *flows: *\([0-9]*\)$/\1/p'
}

# measure DP ROUND: one measurement, its JSON line appended to $results.
measure() {
	local dp=$1 round=$2 before after out

	fresh_dp p1 || return 1
	before=$(kernel_kb) || { echo "no Slab or Percpu line"; return 1; }
	out=$(put_flows dp0 </tmp/memory.flows)
	[ -z "$out" ] || { head -n 5 <<<"$out"; return 1; }
	[ "$(flows_in dp0)" = "$flows" ] ||
		{ echo "dp0 has $(flows_in dp0) flows, not $flows"; return 1; }
	after=$(kernel_kb) || { echo "no Slab or Percpu line"; return 1; }
	ovs-dpctl del-dp dp0 || return 1
	[ "$after" -gt "$before" ] ||
		{ echo "kernel memory did not grow ($before kB, then $after kB)"; return 1; }
	printf '{"case": "memory", "masks": 1, "datapath": "%s", "round": %d, "bytes_per_flow": %d, "flows": %d}\n' \
		"$dp" "$round" "$(((after - before) * 1024 / flows))" "$flows" >>"$results"
}

mkdir -p "$ROAM_SHARED/out"
: >"$results"
check "a veth for dp0's port" eval \
	'ip link add p1 type veth peer name p1peer && ip link set p1 up'
# Exact UDP flows, one mask: source ports 1-50000 to two destinations.
awk -v n="$flows" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.%d,proto=17,frag=no),udp(src=%d) 1\n",
			2 + int(i / 50000), 1 + i % 50000
}' >/tmp/memory.flows
check_output "$flows flows to put" "$flows" wc -l </tmp/memory.flows

step() {
	check "round $2, $1: memory for $flows megaflows" measure "$1" "$2"
}

each_round "$rounds" step
results_done "$results" "$((2 * rounds))" \
	"one result for each datapath and round"
