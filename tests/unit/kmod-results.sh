#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The ovs-kmod table's merge (tests/ovs-kmod/results.py) on made-up runs:
# a range's rows replace those of an older run and leave the others, the
# hand-written notes stay, and input that does not parse fails with its
# line and leaves the table as it was.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
merge=$top/tests/ovs-kmod/results.py

# result PASS NN OUTCOME SECONDS TITLE: a test's line in the TAP stream,
# with the point the suite gives it on ours.
result() {
	echo "# kmod-result $1 $2 $3 $4 $5"
	[ "$1" = ours ] || return 0
	case $3 in
	pass) echo "ok 9 - [ours] $2: $5" ;;
	skip) echo "ok 9 - [ours] $2: $5 # SKIP listed in expect" ;;
	*) echo "not ok 9 - [ours] $2: $5" ;;
	esac
}

# run TAP RANGE: merge TAP into the table as a run of RANGE.
run() {
	"$merge" --tap "$1" --results "$scratch/results.md" --tests "$2" \
		--started "2026-12-05 10:00 UTC" --secs 100 --rc 0
}

# row NN: test NN's row of the table.
row() {
	grep "^| $1 |" "$scratch/results.md"
}

{
	echo "ok 3 - [in-tree] it was built from openvswitch-source 3.1.0-2+deb12u1, the image's"
	result in-tree 1 pass 40 "datapath - one"
	result ours 1 fail 50 "datapath - one"
	result in-tree 2 pass 30 "datapath - two"
	result ours 2 pass 31 "datapath - two"
} >"$scratch/run1.tap"
check "a first run makes the table" run "$scratch/run1.tap" 1-2
printf '\n## Notes (by hand)\n\n- test 1 failed on a loaded machine.\n' \
	>>"$scratch/results.md"
{
	result in-tree 2 pass 33 "datapath - two"
	result ours 2 skip 3 "datapath - two"
	result in-tree 3 timeout 300 "datapath - three"
} >"$scratch/run2.tap"
check "a second range merges" run "$scratch/run2.tap" 2-3
check_output "a test not run again keeps its row and run" \
	"| 1 | datapath - one | pass | 40 | FAIL | 50 | not ok | 1 |" row 1
check_output "a test run again takes the newer row" \
	"| 2 | datapath - two | pass | 33 | skip | 3 | skip | 2 |" row 2
check_output "a pass the run never reached reads as not run" \
	"| 3 | datapath - three | timeout | 300 | not run |  |  | 2 |" row 3
check_output "both runs are listed, with the source version seen" \
	"- run 1: tests 1-2, started 2026-12-05 10:00 UTC, openvswitch-source 3.1.0-2+deb12u1, 100 s, launch.sh exited 0
- run 2: tests 2-3, started 2026-12-05 10:00 UTC, openvswitch-source (not seen), 100 s, launch.sh exited 0" \
	grep '^- run ' "$scratch/results.md"
check_output "the totals count every row" \
	"- in-tree: 2 pass, 0 FAIL, 0 skip, 1 timeout, 0 error, 0 not run; 373 s of tests
- ours: 0 pass, 1 FAIL, 1 skip, 0 timeout, 0 error, 1 not run; 53 s of tests" \
	grep -E '^- (in-tree|ours):' "$scratch/results.md"
check "the notes written by hand stay" \
	grep -qx -- "- test 1 failed on a loaded machine." "$scratch/results.md"

cp "$scratch/results.md" "$scratch/before.md"
echo "ok 1 - [ours] no result here" >"$scratch/empty.tap"
check "a stream without results fails" \
	fails_saying "no '# kmod-result' line: nothing ran" run "$scratch/empty.tap" 4-5
result ours 4 crashed 9 "datapath - four" >"$scratch/odd.tap"
check "an unknown outcome fails, naming its line" \
	fails_saying "odd.tap:1: unknown outcome 'crashed'" run "$scratch/odd.tap" 4
sed -i 's/^| 2 | datapath - two | pass | 33 |/| 2 | datapath - two | pass |/' "$scratch/results.md"
cp "$scratch/results.md" "$scratch/broken.md"
check "a table row that does not parse fails, naming its line" \
	fails_saying "a table row that does not parse" run "$scratch/run2.tap" 2-3
check "and the table is left as it was" cmp "$scratch/broken.md" "$scratch/results.md"
cp "$scratch/before.md" "$scratch/results.md"
check "a failed merge changed nothing before it either" \
	eval "run '$scratch/odd.tap' 4 2>/dev/null; cmp '$scratch/before.md' '$scratch/results.md'"

cp "$top/tests/ovs-kmod/results.md" "$scratch/results.md"
check "the committed table parses and takes a run" run "$scratch/run1.tap" 1-2

tap_done
