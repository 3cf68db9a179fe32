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

check_output "a pyflakes that finds nothing: clean" clean \
	lint_verdict "ROAM_PYFLAKES=$(fake good-pyflakes 'exit 0')" python
expect_fail "a missing pyflakes fails" "ROAM_PYFLAKES=$scratch/no-such-pyflakes" python
expect_fail "a pyflakes finding fails" \
	"ROAM_PYFLAKES=$(fake pf-finds "echo \"x.py:1:1: undefined name 'y'\"; exit 1")" python
expect_fail "a pyflakes that cannot parse a file fails" \
	"ROAM_PYFLAKES=$(fake pf-syntax "echo 'x.py:1:2: invalid syntax' >&2; exit 1")" python

# The shell check's own rule: grep -q or head reading a pipe is flaky
# under pipefail (the writer may get SIGPIPE after the match).
# pipe_verdict LINE...: the rule's verdict on a script of these lines.
pipe_verdict() {
	printf '%s\n' "$@" >"$scratch/pipes.sh"
	if "$lint" quiet-pipes "$scratch/pipes.sh" >/dev/null 2>&1; then
		echo clean
	else
		echo fails
	fi
}
check_output "grep to /dev/null after a pipe, grep -q on a file, || grep -q: clean" clean \
	pipe_verdict 'ip neigh | grep lladdr >/dev/null' 'grep -q x /etc/hosts' \
	'true || grep -q x f' "# a | grep"' -q b, in a comment'
# Spelt in pieces, or the rule would find these lines in this file.
check_output "a pipe into grep -q on one line fails" fails pipe_verdict "ip neigh | grep"' -q lladdr'
check_output "a pipe into grep -Eq fails" fails pipe_verdict "ss -ltn | grep"' -Eq ":1 "'
check_output "a pipe into head fails" fails pipe_verdict "dmesg | hea"'d -n 5'
check_output "a pipe continued into grep --quiet fails" fails \
	pipe_verdict 'dpkg-query -W foo |' '	grep --quiet ok || exit 1'

tap_done
