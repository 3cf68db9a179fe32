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

# check DESCRIPTION CMD...: one test point that passes iff CMD succeeds.
# CMD's output is shown as diagnostics when it fails.
check() {
	local desc=$1 out
	shift

	if out=$("$@" 2>&1); then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

# check_fails DESCRIPTION CMD...: passes iff CMD fails.
check_fails() {
	local desc=$1 out
	shift

	if out=$("$@" 2>&1); then
		tap_not_ok "$desc"
		printf '#   unexpectedly succeeded: %s\n' "$*"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
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

tap_done() {
	printf '1..%d\n' "$tap_n"
	printf '# %d passed, %d failed\n' "$((tap_n - tap_failed))" "$tap_failed"
	[ "$tap_failed" -eq 0 ] && [ "$tap_n" -gt 0 ]
}
