#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A run whose harness was killed (SIGKILL, no trap) is swept by the next
# run once nothing holds its lock, and only then: a live run, a run whose
# QEMU still lives (it holds the inherited lock), a run being set up and
# the kept last-failure logs stay.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=../../scripts/lib.sh
. "$top/scripts/lib.sh"

runs=$(mktemp -d)
holder=
trap '[ -z "$holder" ] || pkill -P "$holder"; rm -rf "$runs"' EXIT

mkdir "$runs/dead" "$runs/alive" "$runs/fresh" "$runs/old" "$runs/last-failure"
: >"$runs/dead/.lock"
: >"$runs/alive/.lock"
touch -d '-5 minutes' "$runs/old"
# "alive": a process (standing in for a QEMU) holds the lock it inherited.
flock "$runs/alive/.lock" sleep 60 &
holder=$!
for _ in $(seq 50); do
	flock -n "$runs/alive/.lock" true || break
	sleep 0.1
done

sweep_stale_runs "$runs" 2>/dev/null
check_fails "a run whose lock nobody holds is removed" test -e "$runs/dead"
check "a run whose lock is held stays" test -d "$runs/alive"
check "a run being set up (no lock yet, new) stays" test -d "$runs/fresh"
check_fails "an old run without a lock file is removed" test -e "$runs/old"
check "last-failure stays" test -d "$runs/last-failure"
pkill -P "$holder"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=
sweep_stale_runs "$runs" 2>/dev/null
check_fails "once its holder is gone, that run is removed too" \
	test -e "$runs/alive"

tap_done
