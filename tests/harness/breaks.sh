#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# breaks.sh: the harness fails when it should, on the build machine, with
# real boots (TAP):
#   - a job that exits 0 but leaves a splat line in the kernel log fails
#     the run, through the runner's verdict and the console check both;
#   - a harness killed with SIGKILL leaves no QEMU running, and the next
#     run sweeps its run directory;
#   - --retry-crash runs a job whose host crashed under nested guests
#     once more, and no more; a crash that names our module is not
#     retried; a job that fails after a nested guest's QEMU logged a
#     KVM failure since its last start runs once more too, but not for
#     a failure logged before that start; --retry-crash=3 runs a job
#     whose host reset itself in a triple fault three times, but one
#     whose host reset itself by its keyboard controller once.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=../../scripts/lib.sh
. "$top/scripts/lib.sh"

out=$(mktemp -d)
vm_pid=
trap '[ -z "$vm_pid" ] || kill -9 "$vm_pid" 2>/dev/null; rm -rf "$out"' EXIT
vm_run=$top/tests/vm-run.sh

# 1. SIGKILL during a job.
# start_killed: start the job in the background (vm_pid) and wait until
# its host is up, or its harness gave up: as long as vm-run's own limits
# allow (builds, a lock another test holds, a boot under load), since it
# gives up by itself before this loop does.
start_killed() {
	"$vm_run" --timeout 300 "$top/tests/harness/breaks/sleep.sh" \
		>"$out/killed.out" 2>"$out/killed.err" &
	vm_pid=$!
	for _ in $(seq 3000); do
		grep -q 'host 1 up' "$out/killed.err" && return 0
		kill -0 "$vm_pid" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
# A harness that ended before its host came up did not reach what this
# part checks (a kill): what it said goes to stderr, which CI's log shows
# (CI once lost the run to an early exit whose message only the test log
# held), and the job starts once more.  A second such end fails below.
if ! start_killed && ! kill -0 "$vm_pid" 2>/dev/null; then
	wait "$vm_pid"
	echo "breaks.sh: the first job's harness ended (status $?) before its host was up; it said:" >&2
	cat "$out/killed.err" "$out/killed.out" >&2
	tap_diag "the first job's harness ended before its host was up (its words on stderr): one more start"
	start_killed || true
fi
# host_up ERRFILE: the job's host came up; else what the harness said.
# (Its own argument: check's locals would shadow a global $out.)
host_up() {
	grep -q 'host 1 up' "$1" || { cat "$1"; cat "$1" >&2; return 1; }
}
check "the job's host came up" host_up "$out/killed.err"
# Its own run (other tests' runs may be under way beside it).
rundir=$(sed -n 's/^==> booting .*, run \(.*\))$/\1/p' "$out/killed.err")
check "it named its run directory" test -d "$rundir"
qemu=$(cat "$rundir/host1.pid" 2>/dev/null)
check "its QEMU wrote a pidfile" test -n "$qemu"
kill -9 "$vm_pid" 2>/dev/null
wait "$vm_pid" 2>/dev/null
vm_pid=
# (No pidfile, no QEMU to have died: that fails too.)
gone() { [ -n "$qemu" ] && ! kill -0 "$qemu" 2>/dev/null; }
for _ in $(seq 50); do gone && break; sleep 0.2; done
check "QEMU dies with its killed harness" gone
check "the killed run left its directory" test -d "$rundir"

# 2. A splat in the kernel log of a job that succeeds; this run also
#    sweeps the killed one's directory when it starts.
rc=0
"$vm_run" --timeout 300 "$top/tests/harness/breaks/splat.sh" \
	>"$out/splat.out" 2>"$out/splat.err" || rc=$?
check_fails "the next run swept the killed run's directory" test -e "${rundir:-/}"
check "the splat job itself ran to its end" grep -q '^job done' "$out/splat.out"
check_eq "a splat in the kernel log fails the run" 1 "$rc"
check "the runner's verdict names it" \
	grep -q 'kernel log: not clean' "$out/splat.out"
check "the console check names it" \
	grep -q 'console not clean' "$out/splat.out"
check "and shows the line" grep -q 'roam-harness-break' "$out/splat.out"

# retried NAME JOB [ARG]: run breaks/JOB ARG under --guest and
# $retry_opt (--retry-crash unless set), its output in $out/NAME.out and
# .err; its exit status in $rc.
retried() {
	rc=0
	"$vm_run" --guest "${retry_opt:---retry-crash}" --timeout 300 \
		"$top/tests/harness/breaks/$2" ${3:+"$3"} >"$out/$1.out" 2>"$out/$1.err" || rc=$?
}

# twice NAME WHAT LINE [N]: run NAME failed with status 3 after N
# attempts (default 2), each of which printed LINE, all but the last kept
# as comments.
twice() {
	local n=${4:-2} k

	check_eq "$2 fails the run with status 3" 3 "$rc"
	for ((k = 1; k < n; k++)); do
		check_eq "attempt $k of $n kept as comments" 1 \
			"$(grep -c "^# attempt $k| $3" "$out/$1.out")"
	done
	check_fails "no attempt beyond $n" grep -q "^# attempt $n| " "$out/$1.out"
	check_eq "the last streamed" 1 "$(grep -c "^$3" "$out/$1.out")"
	check "the harness said why it tried again" grep -q "attempt $n of $n" "$out/$1.err"
}

# once NAME WHAT: run NAME failed with status 1 after one attempt.
once() {
	check_eq "$2 fails with 1" 1 "$rc"
	check_eq "after one attempt only" 1 "$(grep -c '^job start' "$out/$1.out")"
	check_fails "with no second" grep -q 'attempt 2' "$out/$1.err"
}

# 3. --retry-crash: a host crash (sysrq c) with nested guests given.
retried crash crash.sh
twice crash "a crash under nested guests" "job start"
check_fails "the job never went on past its crash" \
	grep -q 'job survived' "$out/crash.out"
retried ours crash.sh ours
once ours "a crash whose console names our module"

# 4. --retry-crash: a job that fails after KVM failed a nested guest
#    (roam_guest_fault), and one whose guest's failure predates its QEMU.
retried fault guest-fault.sh
twice fault "a job failing after a guest's KVM failure" "job: KVM failed the guest"
check "the harness named the line" \
	grep -q '^# guest fault: roam-host1: roam-break: .*KVM: injection failed' "$out/fault.out"
retried earlier guest-fault.sh earlier
once earlier "a KVM failure before the guest's last start, not its own,"

# 5. --retry-crash=3: a host that resets itself in a triple fault (QEMU's
#    reset log), and one reset by its keyboard controller, no fault.
retry_opt=--retry-crash=3
retried triple reset.sh triple
twice triple "a triple fault under nested guests" "job start" 3
check "the harness named the triple fault" \
	grep -q 'reset itself in a triple fault' "$out/triple.err"
retried kbd reset.sh kbd
once kbd "a reset with no fault"
check_fails "not named a triple fault" \
	grep -q 'triple fault' "$out/kbd.err"

tap_done
