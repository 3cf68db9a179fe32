#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel suite's case runner (tests/kernel/cases.sh, case.sh), on the
# build machine with made-up cases, no QEMU and no module: a case that
# hangs fails its time limit, has its cleanup run and lets the next case
# run; a case that exits half-way, dies on an unset variable or does not
# exist fails "ran to the end"; points are renumbered into one stream and
# labelled.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

job=$(mktemp -d)
trap 'rm -rf "$job"' EXIT
mkdir -p "$job/lib" "$job/cases"
cp "$top/tests/kernel/case.sh" "$top/tests/kernel/lib.sh" \
	"$top/tests/kernel/cases.sh" "$job/"
cp "$top/tests/lib/tap.sh" "$job/lib/"
export ROAM_LIB=$top/tests/vm/roam.sh

cat >"$job/cases/pass.sh" <<'EOT'
check "first" true
check "second" true
EOT
cat >"$job/cases/hangs.sh" <<'EOT'
# roam: limit 2
case_cleanup() { : >"$PWD/hangs.cleaned"; }
check "before the hang" true
sleep 60
check "after the hang" true
EOT
cat >"$job/cases/exits.sh" <<'EOT'
check "before the exit" true
exit 0
EOT
cat >"$job/cases/unset.sh" <<'EOT'
check "before the unset variable" true
echo "$no_such_variable"
check "after it" true
EOT

# The runner, as run.sh sets it up, in a shell of its own.
stream=$(
	cd "$job" || exit 1
	# shellcheck source=../kernel/cases.sh
	. ./cases.sh
	scale=1
	scrub() { : >"$job/scrubbed"; }
	tap_n=0 tap_failed=0
	for c in pass hangs exits unset missing pass; do
		run_case t "cases/$c.sh"
	done 2>/dev/null
)
points() { grep -E '^(not )?ok ' <<<"$stream"; }

check_output "points are numbered 1..13 in one stream" \
	"$(seq 13 | tr '\n' ' ')" \
	bash -c 'grep -Eo "^(not )?ok [0-9]+" | grep -Eo "[0-9]+$" | tr "\n" " "' <<<"$stream"
check "a case's points carry its label" \
	grep -qx 'ok 1 - \[t\] first' <<<"$(points)"
check "a passing case ends with 'ran to the end'" \
	grep -qx 'ok 3 - \[t\] pass.sh ran to the end' <<<"$(points)"
check "a hanging case fails its time limit" \
	grep -qx 'not ok 5 - \[t\] hangs.sh finished within its limit (2s)' <<<"$(points)"
check_fails "and never reaches its later points" \
	grep -q 'after the hang' <<<"$stream"
check "its cleanup ran" test -e "$job/hangs.cleaned"
check "and the runner scrubbed after it" test -e "$job/scrubbed"
check "a case that exits early fails 'ran to the end'" \
	grep -qx 'not ok 7 - \[t\] exits.sh ran to the end (it stopped with exit 0)' <<<"$(points)"
check "a case killed by an unset variable fails it too" \
	grep -Eqx 'not ok 9 - \[t\] unset.sh ran to the end \(it stopped with exit [1-9][0-9]*\)' <<<"$(points)"
check "a case that does not exist fails it too (bash's . only fails itself)" \
	grep -Eqx 'not ok 10 - \[t\] missing.sh ran to the end \(it stopped with exit [1-9][0-9]*\)' <<<"$(points)"
check "the cases after them still run" \
	grep -qx 'ok 13 - \[t\] pass.sh ran to the end' <<<"$(points)"
check_output "four points fail in all" 4 grep -c '^not ok' <<<"$stream"

tap_done
