# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tap.sh: a small TAP producer for the shell test suites.  Source it, call
# the checks, and end with tap_done, which prints the plan and a summary
# comment and returns non-zero if anything failed or nothing was checked.
# A check never exits the script: a failing case is reported, the next one
# runs.

tap_n=0
tap_failed=0

# tap_errfile: make sure $tap_err, the file into which checks put their
# command's stderr, exists.  One serves the script that sources this file
# and every subshell of it (checks run in pipelines too): it is made here
# and removed by tap_done or tap_cleanup.  (A mktemp and an rm for every
# point were two processes more each, and the debug kernel charges a
# process about a tenth of a second.)
tap_errfile() {
	[ -n "$tap_err" ] && [ -e "$tap_err" ] && return 0
	tap_err=$(mktemp)
}
tap_err=
tap_errfile

# tap_cleanup: remove what the checks made.
tap_cleanup() {
	[ -z "$tap_err" ] || rm -f "$tap_err"
	tap_err=
}

tap_ok() {
	tap_n=$((tap_n + 1))
	printf 'ok %d - %s\n' "$tap_n" "$1"
}

tap_not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	printf 'not ok %d - %s\n' "$tap_n" "$1"
}

# tap_diag TEXT...: a comment line, shown by TAP consumers.
tap_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# check DESCRIPTION CMD...: one test point that passes iff CMD succeeds;
# returns CMD's verdict too.  CMD's output is shown as diagnostics when it
# fails.
check() {
	local desc=$1 out
	shift

	if out=$("$@" 2>&1); then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
		return 1
	fi
}

# check_fails DESCRIPTION CMD...: passes iff CMD runs and fails.  A
# command that could not run (126, 127), timed out (124) or was killed by a
# signal (128 and up) did not answer the question: that is a failure too.
check_fails() {
	local desc=$1 out rc=0
	shift

	out=$("$@" 2>&1) || rc=$?
	case "$rc" in
	0)
		tap_not_ok "$desc"
		printf '#   unexpectedly succeeded: %s\n' "$*"
		;;
	124 | 126 | 127 | 1[2-9][0-9] | 2[0-9][0-9])
		tap_not_ok "$desc"
		printf '#   could not tell: exit %d from %s\n' "$rc" "$*"
		;;
	*)
		tap_ok "$desc"
		return 0
		;;
	esac
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
}

# check_refused DESCRIPTION REASON CMD...: CMD fails as a refusal does
# (exit 1 to 123: not a crash, a timeout or a missing command) and its
# stderr's last line is REASON: bad input gets a clear error.
check_refused() {
	local desc=$1 want=$2 out rc=0
	shift 2

	out=$("$@" 2>&1 >/dev/null) || rc=$?
	case "$rc" in
	0 | 124 | 126 | 127 | 1[2-9][0-9] | 2[0-9][0-9])
		tap_not_ok "$desc"
		printf '#   exit %d from %s\n' "$rc" "$*"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
		return 1
		;;
	esac
	check_eq "$desc" "$want" "$(printf '%s\n' "$out" | tail -n 1)"
}

# fails_saying TEXT CMD...: CMD exits 1 and its stderr holds TEXT (a use
# inside check: a tool refusing bad input for the right reason).
fails_saying() {
	local text=$1 rc=0 err
	shift

	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" -eq 1 ] || { echo "exit $rc, not 1"; return 1; }
	grep -qF -- "$text" <<<"$err" || { echo "stderr: $err"; return 1; }
}

# check_output DESCRIPTION EXPECTED CMD...: CMD succeeds and its stdout is
# EXPECTED.  Unlike check_eq with "$(CMD)", a failing CMD never reads as
# empty output.
check_output() {
	local desc=$1 want=$2 out rc=0
	shift 2

	tap_errfile || { tap_not_ok "$desc"; return 1; }
	out=$("$@" 2>"$tap_err") || rc=$?
	if [ "$rc" -ne 0 ]; then
		tap_not_ok "$desc"
		printf '#   exit %d from %s\n' "$rc" "$*"
		sed 's/^/#   /' "$tap_err"
		return 1
	fi
	check_eq "$desc" "$want" "$out"
}

# check_absent DESCRIPTION ERE FILE: FILE (a capture, a log) exists and no
# line of it matches ERE.  A missing or unreadable FILE fails, where
# check_fails with grep would have passed.
check_absent() {
	local desc=$1 ere=$2 file=$3 found

	if [ ! -r "$file" ]; then
		tap_not_ok "$desc"
		printf '#   %s is missing\n' "$file"
	elif found=$(grep -E -- "$ere" "$file"); then
		tap_not_ok "$desc"
		printf '%s\n' "$found" | sed -n 1,10p | sed 's/^/#   /'
	else
		tap_ok "$desc"
	fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1"
		# Every line a comment, however many lines the values have.
		printf 'expected: %s\nactual:   %s\n' "$2" "$3" | sed 's/^/#   /'
	fi
}

# tap_tally: this stream's points so far, "PASSED TOTAL".
tap_tally() {
	printf '%d %d\n' "$((tap_n - tap_failed))" "$tap_n"
}

tap_done() {
	tap_cleanup
	printf '1..%d\n' "$tap_n"
	printf '# %d passed, %d failed\n' "$((tap_n - tap_failed))" "$tap_failed"
	[ "$tap_failed" -eq 0 ] && [ "$tap_n" -gt 0 ]
}
