#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The suites' check helpers (tests/lib/tap.sh) can fail: each is given a
# case where it must pass and cases where it must not, above all the ones
# the kernel suite used to read wrongly (a failing command read as empty
# output, a missing capture file, a command that could not run).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# verdict CHECK ARGS...: "ok" or "not ok", as CHECK would report it, run
# with a fresh counter in a subshell so this script's own count is kept.
verdict() {
	(
		tap_n=0 tap_failed=0
		"$@" | sed -n 's/^\(not ok\|ok\) 1 - .*/\1/p'
	)
}

# expect WANT DESCRIPTION CHECK ARGS...
expect() {
	local want=$1 desc=$2
	shift 2
	check_eq "$desc" "$want" "$(verdict "$@")"
}

printf 'a\nb\n' >"$scratch/capture"
fails_loudly() { echo "no such datapath" >&2; return 1; }

expect ok "check passes a command that succeeds" check d true
expect "not ok" "check fails a command that fails" check d false
expect ok "check_fails passes a command that fails" check_fails d false
expect "not ok" "check_fails fails a command that succeeds" check_fails d true
expect "not ok" "check_fails fails a command that is not there" \
	check_fails d no-such-command-roam
expect "not ok" "check_fails fails a command killed by a signal" \
	check_fails d sh -c 'kill -TERM $$'
expect "not ok" "check_fails fails a command that timed out" \
	check_fails d timeout 0.1 sleep 5
expect ok "check_refused passes a refusal with its reason" \
	check_refused d "no" sh -c 'echo no >&2; exit 1'
expect "not ok" "check_refused fails another reason" \
	check_refused d "no" sh -c 'echo maybe >&2; exit 1'
expect "not ok" "check_refused fails a command that succeeds" \
	check_refused d "no" sh -c 'echo no >&2'
expect "not ok" "check_refused fails a command killed by a signal" \
	check_refused d "no" sh -c 'echo no >&2; kill -TERM $$'
expect ok "check_output passes matching output" check_output d "x" echo x
expect "not ok" "check_output fails other output" check_output d "x" echo y
expect "not ok" "check_output fails a failing command with empty output" \
	check_output d "" fails_loudly
expect ok "check_output passes empty output of a command that succeeds" \
	check_output d "" true
expect ok "check_absent passes a file without the pattern" \
	check_absent d 'z' "$scratch/capture"
expect "not ok" "check_absent fails a file with the pattern" \
	check_absent d 'b' "$scratch/capture"
expect "not ok" "check_absent fails a missing file" \
	check_absent d 'z' "$scratch/no-capture"
expect ok "check_eq passes equal values" check_eq d x x
expect "not ok" "check_eq fails different values" check_eq d x y
check_eq "check returns the command's verdict" "0 1" \
	"$( (check d true >/dev/null; a=$?; check d false >/dev/null; echo "$a $?") )"
check_eq "checks share one stderr file, which tap_cleanup removes" "same gone" \
	"$( (f=$tap_err; check_output d x echo x >/dev/null
		check_output d "" fails_loudly >/dev/null
		[ "$tap_err" = "$f" ] && [ -e "$f" ] && printf same
		tap_cleanup; [ -e "$f" ] || printf ' gone') )"
check_eq "tap_done fails when nothing was checked" 1 \
	"$( (tap_n=0 tap_failed=0; tap_done >/dev/null; echo $?) )"

tap_done
