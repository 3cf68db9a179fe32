#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A lint check whose checker is missing, crashes, complains on stderr or
# stops early fails; it never reads as "clean".  Each checker is replaced
# (ROAM_SPARSE, ROAM_CHECKPATCH, ROAM_SHELLCHECK) by a stand-in that
# misbehaves in one way, beside a well-behaved one as the positive control.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
lint=$top/tests/lint/lint.sh
nfiles=$(find "$top/kernel" -maxdepth 1 -name '*.[ch]' | wc -l)

# fake NAME BODY: a stand-in checker.
fake() {
	printf '#!/bin/bash\n%s\n' "$2" >"$scratch/$1"
	chmod +x "$scratch/$1"
	echo "$scratch/$1"
}

# lint_verdict VAR=VALUE CHECK: "clean" or "fails", and lint.sh's last line.
lint_verdict() {
	local out rc=0

	out=$(env "$1" "$lint" "$2" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "clean"
	else
		echo "fails: $(tail -n 1 <<<"$out")"
	fi
}

# expect_fail DESCRIPTION VAR=VALUE CHECK
expect_fail() {
	local got

	got=$(lint_verdict "$2" "$3")
	check "$1 (${got})" test "${got%%:*}" = fails
}

good_checkpatch=$(fake good-checkpatch \
	"for _ in \$(seq $nfiles); do echo 'total: 0 errors, 0 warnings, 1 lines checked'; done")
check_output "a checkpatch that checks every file and finds nothing: clean" clean \
	lint_verdict "ROAM_CHECKPATCH=$good_checkpatch" checkpatch
expect_fail "a missing checkpatch.pl fails" \
	"ROAM_CHECKPATCH=$scratch/no-such-checkpatch" checkpatch
expect_fail "a checkpatch that crashes silently fails" \
	"ROAM_CHECKPATCH=$(fake crash 'exit 2')" checkpatch
expect_fail "a checkpatch that complains on stderr fails" \
	"ROAM_CHECKPATCH=$(fake perlwarn "echo 'Use of uninitialized value' >&2; exec $good_checkpatch")" checkpatch
expect_fail "a checkpatch that stops after one file fails" \
	"ROAM_CHECKPATCH=$(fake short "echo 'total: 0 errors, 0 warnings, 1 lines checked'")" checkpatch

check_output "a shellcheck that finds nothing: clean" clean \
	lint_verdict "ROAM_SHELLCHECK=$(fake good-shellcheck 'exit 0')" shell
expect_fail "a missing shellcheck fails" \
	"ROAM_SHELLCHECK=$scratch/no-such-shellcheck" shell
expect_fail "a shellcheck that crashes silently fails" \
	"ROAM_SHELLCHECK=$(fake sc-crash 'exit 3')" shell
expect_fail "a shellcheck finding fails" \
	"ROAM_SHELLCHECK=$(fake sc-finds "echo 'In x line 1: SC2086'; exit 1")" shell

expect_fail "a missing sparse fails" "ROAM_SPARSE=$scratch/no-such-sparse" sparse

tap_done
