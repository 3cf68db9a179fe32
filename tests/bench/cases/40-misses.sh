# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
# roam: limit 1200
#
# Misses delivered to userspace per second, ours against the in-tree
# module, in this one boot: pktgen's frames (pktgen.sh: random UDP source
# ports) into dp0, which has no flow, so every frame is a miss;
# bin/upcall-listen -r, pointed at by p1's upcall PID, counts what
# reaches it over BENCH_SECONDS (default 3) once the traffic has run for
# a second.  The listener is the same program for both modules: a ratio
# near 1 means the kernel's side is not what limits the rate.
# BENCH_ROUNDS rounds (default 3), alternating which module goes first;
# each measurement is a line of $ROAM_SHARED/out/misses.jsonl.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh
# shellcheck source=../rounds.sh
. ./rounds.sh
# shellcheck source=../pktgen.sh
. ./pktgen.sh

LISTEN=$PWD/bin/upcall-listen
rounds=${BENCH_ROUNDS:-3}
seconds=${BENCH_SECONDS:-3}
results=$ROAM_SHARED/out/misses.jsonl

case_cleanup() {
	pktgen_cleanup
	rm -f /tmp/misses.*
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

# measure DP ROUND: one measurement, its JSON line appended to $results.
measure() {
	local dp=$1 round=$2 pid n overruns secs rc=0

	fresh_dp p1 p2 || return 1
	pktgen_start
	sleep 1
	"$LISTEN" -r "$seconds" p1 >/tmp/misses.out 2>/tmp/misses.err &
	pid=$!
	wait "$pid" || rc=$?
	pktgen_stop
	ovs-dpctl del-dp dp0
	if [ "$rc" -ne 0 ]; then
		echo "upcall-listen exited $rc"
		cat /tmp/misses.out /tmp/misses.err
		return 1
	fi
	n=$(sed -n 's/^upcalls //p' /tmp/misses.out)
	overruns=$(sed -n 's/^overruns //p' /tmp/misses.out)
	secs=$(sed -n 's/^seconds //p' /tmp/misses.out)
	positive "$n" || { cat /tmp/misses.out; return 1; }
	python3 - "$dp" "$round" "$n" "$overruns" "$secs" >>"$results" <<-'PY'
		import json, sys
		dp, rnd, n, overruns, secs = sys.argv[1:]
		print(json.dumps({
		    "case": "misses", "masks": 0, "datapath": dp,
		    "round": int(rnd),
		    "upcalls_per_s": round(int(n) / float(secs)),
		    "overruns": int(overruns)}))
	PY
}

mkdir -p "$ROAM_SHARED/out"
: >"$results"
check "the upcall-listen tool is in the job" test -x "$LISTEN"
check "veth pairs gen0-p1 and p2-sink0" links
check "pktgen drives gen0" pktgen_setup
step() {
	check "round $2, $1: misses reached the listener" measure "$1" "$2"
}

each_round "$rounds" step
results_done "$results" "$((2 * rounds))" \
	"one result for each datapath and round"
