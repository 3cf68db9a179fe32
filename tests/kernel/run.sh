#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [CASE...]: the kernel suite, run inside one test host by
# tests/vm-run.sh with the datapath under test already loaded.  Runs every
# cases/*.sh in order (or the named ones) and prints TAP.
#
# Each case is sourced and reports through tests/lib/tap.sh; it may define
# case_cleanup, which runs after it whatever happened, so that a failing
# case leaves no namespaces or datapaths behind for the next.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
# lib/tap.sh is tests/lib/tap.sh, copied into the job by launch.sh.
# shellcheck source=../lib/tap.sh
. lib/tap.sh
# shellcheck source=lib.sh
. ./lib.sh

# The TAP stream is stdout.  Tools log to stderr (ovs-dpctl says at INFO
# level which features the module lacks): turn those lines into TAP
# comments so that a consumer never sees a line it cannot parse.
exec 3>&2 2> >(sed -u 's/^/# stderr: /')
stderr_pid=$!

tap_diag "kernel suite on $(uname -r), datapath $ROAM_DATAPATH," \
	"debug kernel: ${ROAM_DEBUG_KERNEL:-0}"

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(cases/*.sh)
for c in "${cases[@]}"; do
	tap_diag "case ${c##*/}"
	unset -f case_cleanup
	# shellcheck source=/dev/null
	. "$c"
	if declare -F case_cleanup >/dev/null; then
		case_cleanup >/dev/null 2>&1 || true
	fi
done
tap_done
status=$?
exec 2>&3 3>&-
wait "$stderr_pid"
exit "$status"
