# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for roam's build and test scripts. Sourced, never run.
# Contract: callers run with `set -euo pipefail`; every failure leaves a
# one-line "roam: error: ..." on stderr and a non-zero exit.

ROAM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROAM_CACHE=${ROAM_CACHE:-$HOME/.cache/roamswitch}
export ROAM_TOP ROAM_CACHE

die() {
	printf 'roam: error: %s\n' "$*" >&2
	exit 1
}

step() {
	printf '==> %s\n' "$*" >&2
}

need_root() {
	[ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo $0)"
}

# need_disk DIR GIB: refuse to start a step that would fill the disk halfway.
need_disk() {
	local dir=$1 gib=$2 avail

	mkdir -p "$dir"
	avail=$(df -Pk "$dir" | awk 'NR == 2 { print int($4 / 1048576) }')
	[ "$avail" -ge "$gib" ] ||
		die "need ${gib} GiB free under $dir, only ${avail} GiB available"
}

# hash_inputs WORD|FILE...: a short content hash of files and literal words,
# used to key cached artefacts so that changed inputs get a fresh build.
hash_inputs() {
	local arg name

	for arg in "$@"; do
		if [ -f "$arg" ]; then
			# the same file hashes the same however it was named
			name=$(readlink -f -- "$arg")
			printf '%s\n' "${name#"$ROAM_TOP"/}"
			cat "$arg"
		else
			printf 'word:%s\n' "$arg"
		fi
	done | sha256sum | cut -c1-16
}

# cache_lock NAME: take an exclusive lock on $ROAM_CACHE/.lock/NAME, held
# until the calling script exits, so that concurrent runs (parallel tests)
# build a cached artefact once instead of racing in the same directory.
# Take it before looking at the cache; never around a call to another
# script that takes the same lock.
cache_lock() {
	local fd

	mkdir -p "$ROAM_CACHE/.lock"
	exec {fd}>>"$ROAM_CACHE/.lock/$1"
	if ! flock -n "$fd"; then
		step "waiting for another build of $1"
		flock "$fd"
	fi
}

# with_progress LABEL LOG CMD...: run CMD with its output in LOG and print an
# elapsed-time line every 30 s so that long steps never look hung.  On
# failure, show the end of the log.
with_progress() {
	local label=$1 log=$2 start pid rc
	shift 2

	start=$(date +%s)
	"$@" >"$log" 2>&1 &
	pid=$!
	while ! wait_for_exit "$pid" 30; do
		printf '    %s: %ds, %s log lines\n' "$label" \
			"$(($(date +%s) - start))" "$(wc -l <"$log")" >&2
	done
	rc=0
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 25 "$log" >&2
		die "$label failed (exit $rc); full log: $log"
	fi
	printf '    %s: done in %ds\n' "$label" "$(($(date +%s) - start))" >&2
}

# wait_for_exit PID SECONDS
# shellcheck source=../tests/lib/wait.sh
. "$ROAM_TOP/tests/lib/wait.sh"

# apt_install PKG...: install what is missing, through the machine's own apt
# configuration.  Quiet when everything is already there.
apt_install() {
	local missing=() pkg

	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep 'install ok installed' >/dev/null || missing+=("$pkg")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	need_root
	mkdir -p "$ROAM_CACHE"
	step "installing ${missing[*]}"
	if ! { apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}"; } \
		>"$ROAM_CACHE/apt.log" 2>&1; then
		tail -n 5 "$ROAM_CACHE/apt.log" >&2
		die "could not install: ${missing[*]} (see $ROAM_CACHE/apt.log)"
	fi
}

# sweep_stale_runs DIR: remove the run directories under DIR (tests/vm-run.sh
# makes one per run, DIR/ID, locked through DIR/ID/.lock by the run and by
# every QEMU it starts) whose lock nobody holds: their harness died without
# cleaning up and their QEMUs are gone.  A directory without a lock file is
# left alone for its first minute, the moment between its creation and
# its lock.  DIR/last-failure is kept.
sweep_stale_runs() {
	local dir

	for dir in "$1"/*/; do
		dir=${dir%/}
		if [ ! -d "$dir" ] || [ "${dir##*/}" = last-failure ]; then
			continue
		fi
		if [ -e "$dir/.lock" ]; then
			flock -n "$dir/.lock" true 2>/dev/null || continue
		elif [ -z "$(find "$dir" -maxdepth 0 -mmin +1)" ]; then
			continue
		fi
		step "removing the stale run $dir"
		rm -rf "$dir"
	done
}

# new_run DIR: sweep DIR's stale runs, then make a run directory and lock
# it: sets run (its path) and run_lock (the lock's file descriptor, which
# QEMUs inherit).  Both happen under DIR/.runs.lock, so that no other
# harness's sweep runs between this directory's creation and its lock and
# takes it for a dead run (CI once lost a run that way, with two tests
# starting at once).
new_run() {
	local runs_lock

	mkdir -p "$1" || return 1
	exec {runs_lock}>"$1/.runs.lock" || return 1
	flock "$runs_lock"
	sweep_stale_runs "$1"
	run=$(mktemp -d "$1/XXXXXX") &&
		exec {run_lock}>"$run/.lock" &&
		flock "$run_lock"
	local rc=$?
	exec {runs_lock}>&-
	return "$rc"
}

# mmdebstrap_apt_args: the machine's own apt sources and settings for
# mmdebstrap, so that no mirror name lives in this repository: sets
# ROAM_APT_SOURCES (source files, passed as mmdebstrap's mirrors) and
# ROAM_APT_OPTS (--aptopt=... for a proxy, or for accepting a snapshot
# mirror's expired Release files).
mmdebstrap_apt_args() {
	local f opt val

	ROAM_APT_SOURCES=() ROAM_APT_OPTS=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ ! -s "$f" ] || ROAM_APT_SOURCES+=("$f")
	done
	[ ${#ROAM_APT_SOURCES[@]} -gt 0 ] || die "no apt sources configured on this machine"
	for opt in Acquire::Check-Valid-Until Acquire::http::Proxy \
		Acquire::https::Proxy; do
		val=$(apt-config dump "$opt" | sed -n "s/^$opt \"\(.*\)\";\$/\1/p")
		[ -z "$val" ] || ROAM_APT_OPTS+=("--aptopt=$opt \"$val\"")
	done
}
