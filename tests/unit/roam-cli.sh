#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The entry points refuse bad input with a clear one-line error and the
# shared helpers keep their contracts.  Needs no root and boots nothing.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=../../scripts/lib.sh
. "$top/scripts/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# expect_error DESCRIPTION PATTERN CMD...: CMD fails and its stderr has a
# "roam: error:" line matching PATTERN.
expect_error() {
	local desc=$1 pattern=$2 err rc=0
	shift 2

	err=$("$@" 2>&1 >/dev/null </dev/null) || rc=$?
	if [ "$rc" -ne 0 ] && grep -Eq "roam: error: .*$pattern" <<<"$err"; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
		printf '#   exit %d, stderr: %s\n' "$rc" "$err"
	fi
}

expect_error "unknown roam command" 'unknown command "frobnicate"' \
	"$top/roam" frobnicate
expect_error "unknown kernel flavour" "unknown kernel flavour 'tiny'" \
	"$top/kernel/build-kernel.sh" tiny
expect_error "vm-run: bad host count" 'hosts' \
	"$top/tests/vm-run.sh" --hosts 3 /bin/true
expect_error "vm-run: bad datapath" 'datapath' \
	"$top/tests/vm-run.sh" --datapath userspace /bin/true
expect_error "vm-run: missing script" 'script|SCRIPT' \
	"$top/tests/vm-run.sh" "$scratch/no-such-script"
expect_error "launch: a case the suite does not have, before any build" \
	"no case 'no-such-case' in tests/migration/cases" \
	"$top/tests/kernel/launch.sh" --suite migration -- 00-start no-such-case
expect_error "lint: unknown check" "unknown lint check 'style'" \
	"$top/tests/lint/lint.sh" style
expect_error "too little disk is refused" 'need 999999 GiB free' \
	bash -c ". '$top/scripts/lib.sh'; need_disk '$scratch' 999999"

echo one >"$scratch/a"
h1=$(hash_inputs "$scratch/a" word)
h2=$(hash_inputs "$scratch/a" word)
echo two >"$scratch/a"
h3=$(hash_inputs "$scratch/a" word)
check_eq "hash_inputs is stable" "$h1" "$h2"
check "hash_inputs changes with content" test "$h1" != "$h3"
check "hash_inputs tells words from files" \
	test "$(hash_inputs word)" != "$(hash_inputs other)"

tap_done
