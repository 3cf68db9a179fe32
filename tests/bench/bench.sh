#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--short] [--tap] [--wall] [--out DIR] --tool FILE...: the benchmark,
# ours against the in-tree module (and, for the L2 cases, the Linux bridge
# and tc flower) in one test host boot (tests/bench/cases), then its
# report (tests/bench/report.py): a table, "ratio ours/in-tree CASE R"
# lines, DIR/bench.json and gnuplot plots in DIR (default a new directory
# under $ROAM_CACHE/bench).  --short is CI's smoke test of every case:
# two mask counts, 10,000 megaflows for the memory and control-plane
# cases, one round, 2 s of warm-up and 1 s counted (its figures are not
# worth comparing).  --tap prints the report as TAP comments after the
# run's points, for meson.  The --tool FILEs are tests/tools' flow-churn
# and upcall-listen as meson built them (the cases check they are there).
#
# The host runs on QEMU's instruction counter (vm-run.sh's ROAM_ICOUNT,
# one vCPU): its clock advances 8 ns per instruction it executes, so a
# rate is a count of instructions a frame or flow costs, the same from
# one run to the next whatever else the build machine does.  --wall runs
# the host as the other suites do (two vCPUs, the clock of the world),
# where rounds scatter by tens of percent.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

short=0 tap=0 wall=0 out='' tools=()
while [ $# -gt 0 ]; do
	case "$1" in
	--short) short=1 ;;
	--tap) tap=1 ;;
	--wall) wall=1 ;;
	--tool)
		[ $# -ge 2 ] || die "option --tool needs a value"
		[ -x "$2" ] || die "--tool $2: no such program"
		tools+=(--tool "$2")
		shift
		;;
	--out)
		[ $# -ge 2 ] || die "option --out needs a value"
		out=$2
		shift
		;;
	*) die "unknown option '$1' (usage: $0 [--short] [--tap] [--wall] [--out DIR] --tool FILE...)" ;;
	esac
	shift
done
[ ${#tools[@]} -gt 0 ] || die "no --tool given (meson builds tests/tools/flow-churn and upcall-listen)"
if [ -z "$out" ]; then
	# The ten newest runs' results are kept.
	mkdir -p "$ROAM_CACHE/bench"
	find "$ROAM_CACHE/bench" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' |
		sort -rn | tail -n +10 | cut -d' ' -f2- | xargs -r rm -rf
	out=$ROAM_CACHE/bench/$(date -u +%Y%m%d-%H%M%S)
fi
mkdir -p "$out" || die "cannot make $out"
[ -z "$(ls -A "$out")" ] || die "$out is not empty: results must not mix runs"

envs=()
timeout=3600
if [ "$short" -eq 1 ]; then
	envs=(--env "BENCH_MASKS=1 64" --env BENCH_ROUNDS=1
		--env BENCH_WARMUP=2 --env BENCH_SECONDS=1
		--env BENCH_FLOWS=10000 --env BENCH_CONTROL_FLOWS=10000)
	timeout=900
fi
clock="the instruction counter (8 ns an instruction, one vCPU)"
if [ "$wall" -eq 1 ]; then
	clock="the wall clock (two vCPUs)"
	unset ROAM_ICOUNT
else
	export ROAM_ICOUNT=3
fi
step "benchmark: ours against the in-tree module on $clock, results in $out"
echo "$clock" >"$out/clock"
rc=0
"$ROAM_TOP/tests/kernel/launch.sh" --suite bench --pass ours --boot fast \
	--timeout "$timeout" --out "$out" "${tools[@]}" \
	${envs[@]+"${envs[@]}"} || rc=$?
[ "$rc" -eq 0 ] || die "the benchmark run failed (exit $rc): no report"
step "report"
if [ "$tap" -eq 0 ]; then
	exec "$ROAM_TOP/tests/bench/report.py" "$out"
fi
"$ROAM_TOP/tests/bench/report.py" "$out" >"$out/report.txt" || rc=$?
sed 's/^/# /' "$out/report.txt"
exit "$rc"
