# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: limit 1200
#
# The control plane's speed, ours against the in-tree module, in this one
# boot: bin/flow-churn (libnl-3) installs BENCH_CONTROL_FLOWS megaflows
# (default 50,000; exact IPv4 pairs on one mask, each with a UFID), 64
# requests to a sendmsg(), every ack read, then waits until the host is
# quiet and dumps them all once, which must return every one.  Cases
# "installs" (the CPU time the installs left to kernel workers counted
# in) and "dumps", flows per second; BENCH_ROUNDS rounds
# (default 3), alternating which module goes first; each measurement is a
# line of $ROAM_SHARED/out/control.jsonl.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../rounds.sh
. ./rounds.sh

CHURN=$PWD/bin/flow-churn
flows=${BENCH_CONTROL_FLOWS:-50000}
rounds=${BENCH_ROUNDS:-3}
results=$ROAM_SHARED/out/control.jsonl

case_cleanup() {
	ovs-dpctl del-dp dp0 2>/dev/null
	ip link del p1 2>/dev/null
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

# measure DP ROUND: one run of flow-churn rate, two JSON lines.
measure() {
	local dp=$1 round=$2 out got seen ins dumped

	fresh_dp p1 || return 1
	out=$("$CHURN" rate dp0 "$flows" 64) || { echo "$out"; return 1; }
	got=$(sed -n 's/^flows //p' <<<"$out")
	seen=$(sed -n 's/^dumped //p' <<<"$out")
	ins=$(sed -n 's/^installs_per_s //p' <<<"$out")
	dumped=$(sed -n 's/^dumped_per_s //p' <<<"$out")
	[ "$got" = "$flows" ] || { echo "installed $got of $flows: $out"; return 1; }
	[ "$seen" = "$flows" ] || { echo "dumped $seen of $flows: $out"; return 1; }
	if ! positive "$ins" || ! positive "$dumped"; then
		echo "no rates: $out"
		return 1
	fi
	ovs-dpctl del-dp dp0 || return 1
	printf '{"case": "%s", "masks": 1, "datapath": "%s", "round": %d, "flows_per_s": %d}\n' \
		installs "$dp" "$round" "$ins" dumps "$dp" "$round" "$dumped" >>"$results"
}

mkdir -p "$ROAM_SHARED/out"
: >"$results"
check "the flow-churn tool is in the job" test -x "$CHURN"
check "a veth for dp0's port" eval \
	'ip link add p1 type veth peer name p1peer && ip link set p1 up'
step() {
	check "round $2, $1: $flows flows installed and dumped" \
		measure "$1" "$2"
}

each_round "$rounds" step
results_done "$results" "$((4 * rounds))" \
	"two results for each datapath and round"
