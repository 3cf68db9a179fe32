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

# The testsuite case's limit (1,500 s, for CI's subset) once per 20 tests
# of the range: a pass of 60 tests took 1,503 s once, and its last five
# were never run.
tests=${OVS_KMOD_TESTS:-all}
count=177
if [[ $tests =~ ^([0-9]+)-([0-9]+)$ ]]; then
	count=$((BASH_REMATCH[2] - BASH_REMATCH[1] + 1))
fi
scale=$(((count + 19) / 20))
[ "$scale" -ge 1 ] || scale=1

started=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)
rc=0
# Six hours unless the caller says otherwise (launch.sh's own default, ten
# minutes, ends a range of more than a dozen tests).
"$top/tests/kernel/launch.sh" --suite ovs-kmod --pass in-tree --pass ours \
	--timeout 21600 --env OVS_KMOD_TESTS="$tests" \
	--env ROAM_LIMIT_SCALE="$scale" "$@" |
	tee "$out" || rc=$?
secs=$(($(date +%s) - t0))

"$here/results.py" --tap "$out" --results "$results" \
	--tests "$tests" --started "$started" --secs "$secs" \
	--rc "$rc" || exit 1
echo "# results table: $results"
exit "$rc"
