#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--suite NAME] [--pass ours|in-tree]... [CASE...]: a suite of
# cases (the kernel suite's, or another's that launch.sh put in cases/),
# run inside one test host by tests/vm-run.sh.  Prints one TAP stream for
# the boot.
#
# Each pass (default: the one datapath the harness loaded) loads its module
# and proves which one is loaded, runs every cases/*.sh but those marked
# "# roam: on-demand" (or the named ones) against it, and ends with its own kernel-log checkpoint: no splat and no
# kmemleak suspect since the pass began, so a report is laid at the door of
# the module that caused it.  Cases marked "# roam: once-per-boot" compare
# both modules within themselves; they run once, after the passes.
#
# Every case runs in its own shell (case.sh) under a time limit, "# roam:
# limit SECONDS" in its header or 240 s, times ROAM_LIMIT_SCALE (a
# positive integer from launch.sh --env, default 1, for a run that asks
# a case for more than usual), four times that on the debug kernel; a
# case that hangs fails one point and the next case runs.  Each
# case ends with a point saying that it ran to the end.  Points read
# "[PASS] description".
set -uo pipefail
cd "$(dirname "$0")" || exit 1
# lib/tap.sh is tests/lib/tap.sh, copied into the job by launch.sh.
# shellcheck source=../lib/tap.sh
. lib/tap.sh
# shellcheck source=../vm/roam.sh
. "$ROAM_LIB"
# shellcheck source=lib.sh
. ./lib.sh
# shellcheck source=cases.sh
. ./cases.sh
# What launch.sh --env gave the cases.
if [ -s env.sh ]; then
	# shellcheck source=/dev/null
	. ./env.sh
fi

passes=() cases=() suite=kernel
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=$2; shift 2 ;;
	--pass) passes+=("$2"); shift 2 ;;
	*) cases+=("$1"); shift ;;
	esac
done
[ ${#passes[@]} -gt 0 ] || passes=("$ROAM_DATAPATH")
# No case named: every case but those marked "# roam: on-demand", which
# run only when named (their header says why).
if [ ${#cases[@]} -eq 0 ]; then
	for c in cases/*.sh; do
		case_meta "$c" on-demand >/dev/null || cases+=("$c")
	done
fi
scale=${ROAM_LIMIT_SCALE:-1}
[[ $scale =~ ^[1-9][0-9]{0,2}$ ]] || {
	tap_not_ok "ROAM_LIMIT_SCALE '$scale' is a whole number from 1 to 999"
	tap_done
	exit 1
}
[ "${ROAM_DEBUG_KERNEL:-0}" != 1 ] || scale=$((scale * 4))

# The TAP stream is stdout.  Tools log to stderr (ovs-dpctl says at INFO
# level which features the module lacks): turn those lines into TAP
# comments so that a consumer never sees a line it cannot parse.
exec 3>&2 2> >(sed -u 's/^/# stderr: /')
stderr_pid=$!

# scrub: what a case killed at its time limit may have left: namespaces,
# datapaths, Open vSwitch daemons, tap devices.  run_case calls it.
scrub() {
	local dp dev

	/usr/share/openvswitch/scripts/ovs-ctl stop >/dev/null 2>&1
	ip -all netns delete 2>/dev/null
	for dev in $(ip -o link show type tun 2>/dev/null | awk -F': ' '{ print $2 }'); do
		ip link del "$dev" 2>/dev/null
	done
	for dp in $(ovs-dpctl dump-dps 2>/dev/null); do
		ovs-dpctl del-dp "$dp" >/dev/null 2>&1
	done
	return 0
}

once=() each=()
for c in "${cases[@]}"; do
	if case_meta "$c" once-per-boot >/dev/null; then
		once+=("$c")
	else
		each+=("$c")
	fi
done

export ROAM_SUITE=$suite
tap_diag "$suite suite on $(uname -r), debug kernel: ${ROAM_DEBUG_KERNEL:-0}," \
	"passes: ${passes[*]}"
for pass in "${passes[@]}"; do
	export ROAM_DATAPATH=$pass
	tap_diag "pass $pass"
	roam_klog_mark "pass-$pass"
	if check "[$pass] load the $pass module and prove it is the one loaded" \
		dp_load "$pass"; then
		for c in ${each[@]+"${each[@]}"}; do
			run_case "$pass" "$c"
		done
	else
		for c in ${each[@]+"${each[@]}"}; do
			tap_not_ok "[$pass] ${c##*/} (not run: the module did not load)"
		done
	fi
	check "[$pass] the kernel log is clean since the pass began" \
		roam_klog_check "pass-$pass"
done

if [ ${#once[@]} -gt 0 ]; then
	# kmemleak for these is the runner's final check, over the whole job.
	tap_diag "once per boot, both modules"
	roam_klog_mark both
	for c in "${once[@]}"; do
		run_case both "$c"
	done
	check "[both] the kernel log has no splat since these cases began" \
		roam_klog_splats both
fi

tap_done
status=$?
exec 2>&3 3>&-
wait "$stderr_pid"
exit "$status"
