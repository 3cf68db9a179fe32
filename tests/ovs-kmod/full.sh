#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# full.sh [launch.sh OPTIONS...]: every test of Open vSwitch's kernel
# testsuite on both modules of the host kernel, in one boot (the in-tree
# pass, then ours), as `./roam test ovs-full` runs it; then the per-test
# table of both passes, merged into tests/ovs-kmod/results.md (or
# $OVS_KMOD_RESULTS) for committing (results.py: a test's row comes from
# the newest run that ran it).  Prints launch.sh's TAP stream and exits
# with its status, or 1 when the table could not be merged; the table is
# written from the stream's "# kmod-result" comments, also when some tests
# failed.  OVS_KMOD_TESTS=FIRST-LAST runs only those tests (default all):
# the whole testsuite takes longer than one sitting here.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
results=${OVS_KMOD_RESULTS:-$here/results.md}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

started=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)
rc=0
# Six hours unless the caller says otherwise (launch.sh's own default, ten
# minutes, ends a range of more than a dozen tests).
"$top/tests/kernel/launch.sh" --suite ovs-kmod --pass in-tree --pass ours \
	--timeout 21600 --env OVS_KMOD_TESTS="${OVS_KMOD_TESTS:-all}" "$@" |
	tee "$out" || rc=$?
secs=$(($(date +%s) - t0))

"$here/results.py" --tap "$out" --results "$results" \
	--tests "${OVS_KMOD_TESTS:-all}" --started "$started" --secs "$secs" \
	--rc "$rc" || exit 1
echo "# results table: $results"
exit "$rc"
