#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A run whose harness was killed (SIGKILL, no trap) is swept by the next
# run once nothing holds its lock, and only then: a live run, a run whose
# QEMU still lives (it holds the inherited lock), a run being set up and
# the kept last-failure logs stay.  new_run sweeps and makes a run under
# one lock, so that no sweep takes a run between its creation and its lock.
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
# hold LOCK SECONDS: a background process holds LOCK for SECONDS (its pid
# in $holder), taken by the time this returns.
hold() {
	flock "$1" sleep "$2" &
	holder=$!
	for _ in $(seq 50); do
		flock -n "$1" true || break
		sleep 0.1
	done
}

# "alive": a process (standing in for a QEMU) holds the lock it inherited.
hold "$runs/alive/.lock" 60

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
# The killed sleep lets the lock go once it has died, not when the kill
# returns.
for _ in $(seq 50); do
	flock -n "$runs/alive/.lock" true && break
	sleep 0.1
done
sweep_stale_runs "$runs" 2>/dev/null
check_fails "once its holder is gone, that run is removed too" \
	test -e "$runs/alive"

# new_run: sweeping and making a run happen under one lock, which another
# harness may hold; the new run's lock is held once it returns.
hold "$runs/.runs.lock" 2
start=$(date +%s%N)
new_run "$runs" 2>/dev/null
waited=$((($(date +%s%N) - start) / 1000000))
wait "$holder"
holder=
check "new_run waited for the other harness's sweep (${waited} ms)" test "$waited" -ge 1000
check "and made a run directory" test -d "${run:-/nonexistent}"
check_fails "whose lock it holds" flock -n "$run/.lock" true
check "and let the runs lock go" flock -n "$runs/.runs.lock" true
sweep_stale_runs "$runs" 2>/dev/null
check "a sweep leaves the new run alone" test -d "$run"

tap_done
