#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh CHECK: one lint check, failing on any finding.
#
#   kernel-w1    the module builds with W=1 without a warning
#   sparse       sparse (C=2) over every object reports nothing
#   checkpatch   scripts/checkpatch.pl --strict on every kernel source
#   shell        shellcheck on every shell script in the repository
#   python       pyflakes3 on every Python script in the repository
#   userspace    userspace builds with the hardened warning set and -Werror
#   quiet-pipes FILE...  the shell check's own rule (no pipe into grep -q
#                or head), on the FILEs given
#
# Findings are printed; the exit status is non-zero if there were any, and
# also when a checker is missing, crashes or checks fewer files than it was
# given: a checker that did not run never reads as "clean".  ROAM_SPARSE,
# ROAM_CHECKPATCH, ROAM_SHELLCHECK and ROAM_PYFLAKES name other programs
# to run in their place (the unit suite uses that to break them on
# purpose).
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

# checkpatch findings we accept, each for a reason:
#   FILE_PATH_CHANGES    out-of-tree: there is no MAINTAINERS file to update
#   SPDX_LICENSE_TAG     checkpatch wants the tag on line 1 of .sh too
CHECKPATCH_IGNORE=FILE_PATH_CHANGES,SPDX_LICENSE_TAG

# kbuild_findings ARGS...: rebuild the module with ARGS and print every
# compiler or sparse diagnostic; a failed build is a finding.
kbuild_findings() {
	local out

	out=$("$ROAM_TOP/kernel/build-module.sh" host "$@" 2>&1 >/dev/null) || {
		printf '%s\n' "$out"
		echo "module build failed"
		return 0
	}
	printf '%s\n' "$out" | grep -E 'warning:|error:|note:|not found' || true
}

# checker_ran NAME RC STDERR: a checker that exits above 1 (1 is "found
# something") or writes to stderr did not check: say so, as a finding.
checker_ran() {
	if [ "$2" -gt 1 ] || [ -n "$3" ]; then
		printf '%s did not run cleanly (exit %d)\n' "$1" "$2"
		[ -z "$3" ] || printf '%s\n' "$3" | sed -n 1,20p
	fi
}

# quiet_pipes FILE...: every pipe into a reader that stops early (grep -q,
# head).  It exits at its first match or line, so the writer's next write
# gets SIGPIPE, and under pipefail (which the harness sets) the pipe fails
# though it found its line, but only when the writer had more to say: a
# flaky check.  Grep to /dev/null, or sed -n 1,Np, which read to the end.
quiet_pipes() {
	awk '
	function early(s) { return s ~ /^[ \t]*(grep[ \t]+(-[a-zA-Z]*q|--quiet)|head([ \t]|$))/ }
	{
		line = $0
		n = split(line, part, /\|\|/)
		hit = 0
		for (i = 1; i <= n; i++) {
			m = split(part[i], seg, /\|/)
			for (j = 2; j <= m; j++)
				if (early(seg[j]))
					hit = 1
		}
		if (prev ~ /[^|]\|[ \t]*$/ && early(line))
			hit = 1
		if (hit && line !~ /^[ \t]*#/)
			printf "%s:%d: a pipe into grep -q or head (flaky under pipefail): %s\n", FILENAME, FNR, $0
		prev = $0
	}' "$@"
}

# scripts_by ERE GLOB...: the repository's files named by a GLOB or whose
# first line matches ERE (a shebang).
scripts_by() {
	local ere=$1 f g
	shift

	git -C "$ROAM_TOP" ls-files -co --exclude-standard |
		while IFS= read -r f; do
			for g in "$@"; do
				# shellcheck disable=SC2053 # GLOB is a pattern
				if [[ $f == $g ]]; then
					echo "$ROAM_TOP/$f"
					continue 2
				fi
			done
			if head -n 1 "$ROAM_TOP/$f" 2>/dev/null |
				grep -E "$ere" >/dev/null; then
				echo "$ROAM_TOP/$f"
			fi
		done
}

check=${1:?usage: lint.sh kernel-w1|sparse|checkpatch|shell|userspace}
case "$check" in
kernel-w1)
	findings=$(kbuild_findings W=1)
	;;
sparse)
	sparse=${ROAM_SPARSE:-sparse}
	if ! command -v "$sparse" >/dev/null; then
		findings="sparse ($sparse) is not installed"
	else
		findings=$(kbuild_findings C=2 CHECK="$sparse")
	fi
	;;
checkpatch)
	checkpatch=${ROAM_CHECKPATCH:-}
	if [ -z "$checkpatch" ]; then
		kdir=$("$ROAM_TOP/kernel/build-kernel.sh" host)
		checkpatch=$kdir/build/source/scripts/checkpatch.pl
	fi
	cd "$ROAM_TOP/kernel"
	sources=(./*.[ch])
	err=$(mktemp)
	rc=0
	# Not --terse: only the full report has a "total:" line for every
	# file, clean ones included, which shows it checked them all.
	out=$("$checkpatch" --strict --no-tree --show-types \
		--ignore "$CHECKPATCH_IGNORE" -f "${sources[@]}" 2>"$err") || rc=$?
	findings=$(checker_ran checkpatch "$rc" "$(cat "$err")"
		grep -E -A3 '^(ERROR|WARNING|CHECK):' <<<"$out" || true)
	[ "$rc" -eq 0 ] || [ -n "$findings" ] ||
		findings="checkpatch failed (exit $rc) and reported nothing"
	rm -f "$err"
	totals=$(grep -c '^total:' <<<"$out" || true)
	[ "$totals" -eq ${#sources[@]} ] || [ -n "$findings" ] ||
		findings="checkpatch checked $totals of ${#sources[@]} files"
	;;
shell)
	shellcheck=${ROAM_SHELLCHECK:-shellcheck}
	mapfile -t scripts < <(scripts_by '^#!.*(ba)?sh' '*.sh' roam .ci/run)
	err=$(mktemp)
	rc=0
	out=$("$shellcheck" -x "${scripts[@]}" 2>"$err") || rc=$?
	findings=$(checker_ran shellcheck "$rc" "$(cat "$err")"
		printf '%s' "$out"
		quiet_pipes "${scripts[@]}")
	rm -f "$err"
	[ "$rc" -eq 0 ] || [ -n "$findings" ] ||
		findings="shellcheck failed (exit $rc) and said nothing"
	;;
python)
	pyflakes=${ROAM_PYFLAKES:-pyflakes3}
	mapfile -t scripts < <(scripts_by '^#!.*python' '*.py')
	err=$(mktemp)
	rc=0
	out=$("$pyflakes" "${scripts[@]}" 2>"$err") || rc=$?
	# pyflakes reports to stdout and exits 1 on findings; anything on
	# stderr (a file it could not read or parse) is a finding too.
	findings=$(printf '%s' "$out"
		[ ! -s "$err" ] || sed -n 1,20p "$err"
		[ "$rc" -le 1 ] || echo "pyflakes did not run cleanly (exit $rc)")
	rm -f "$err"
	[ "$rc" -eq 0 ] || [ -n "$findings" ] ||
		findings="pyflakes failed (exit $rc) and said nothing"
	;;
quiet-pipes)
	shift
	findings=$(quiet_pipes "$@")
	;;
userspace)
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
	if ! out=$(meson setup --fatal-meson-warnings -Dwerror=true -Dmigrate_agent=enabled \
		"$scratch" "$ROAM_TOP" 2>&1); then
		findings=$out
	elif ! out=$(meson compile -C "$scratch" 2>&1); then
		findings=$(grep -E 'warning:|error:' <<<"$out" || echo "$out")
	else
		findings=''
	fi
	;;
*)
	die "unknown lint check '$check'"
	;;
esac

if [ -n "$findings" ]; then
	printf '%s\n' "$findings"
	echo "lint $check: $(printf '%s\n' "$findings" | wc -l) finding(s)"
	exit 1
fi
echo "lint $check: clean"
