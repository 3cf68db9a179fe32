#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# case.sh CASE: one case of the kernel suite, in a shell of its own, so that
# a case that aborts, exits early or hangs costs its own points and no
# other case's.  run.sh starts it under a time limit, numbers and labels
# its TAP lines, and reads the "#@end" line this prints once the case's
# last line has run: without it, the case did not run to the end.
#
# The case's case_cleanup runs after it, also when the time limit's
# SIGTERM ends it.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/tap.sh
. lib/tap.sh
# shellcheck source=../vm/roam.sh
. "$ROAM_LIB"
# shellcheck source=lib.sh
. ./lib.sh

cleanup() {
	if declare -F case_cleanup >/dev/null; then
		case_cleanup >/dev/null 2>&1 || true
	fi
	tap_cleanup
}
trap 'cleanup; exit 124' TERM

# bash's "." of a missing file only fails its own command; without this
# the missing case would reach the end line below and pass.
[ -f "$1" ] || { echo "case.sh: no case $1" >&2; exit 1; }
# shellcheck source=/dev/null
. "$1"
echo "#@end"
cleanup
