# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cases.sh: how run.sh runs one case: in its own shell (case.sh), under its
# time limit, its points renumbered into the boot's one TAP stream and
# labelled, and closed by a point saying it ran to the end.  Sourced by
# run.sh, and by tests/unit/case-runner.sh, which runs it on the build
# machine against cases that hang, stop half-way or pass.
#
# Needs tests/lib/tap.sh and a function scrub, called after a case was
# killed at its limit; $scale multiplies every limit (default 1).

# case_meta FILE KEY: VALUE of FILE's "# roam: KEY [VALUE]" header line.
case_meta() {
	sed -n "s/^# roam: $2 *//p" "$1" | sed -n 1p | grep '' ||
		return 1
}

# run_case LABEL FILE: FILE's points, renumbered and labelled, then the
# point that says it ran to the end within its limit.
run_case() {
	local label=$1 file=$2 name=${2##*/} limit line rc=none ended=0 t0

	limit=$(case_meta "$file" limit) || limit=240
	limit=$((limit * ${scale:-1}))
	tap_diag "case $name ($label, limit ${limit}s)"
	t0=$(date +%s)
	while IFS= read -r line; do
		case "$line" in
		"#@end") ended=1 ;;
		"#@rc "*) rc=${line#"#@rc "} ;;
		"ok "[0-9]*" - "*) tap_ok "[$label] ${line#ok * - }" ;;
		"not ok "[0-9]*" - "*) tap_not_ok "[$label] ${line#not ok * - }" ;;
		"#"*) printf '%s\n' "$line" ;;
		*) printf '# stdout: %s\n' "$line" ;;
		esac
	done < <(timeout -k 30 "$limit" bash ./case.sh "$file" </dev/null
		echo "#@rc $?")
	tap_diag "case $name took $(($(date +%s) - t0))s"
	case "$rc:$ended" in
	124:* | 137:*)
		tap_not_ok "[$label] $name finished within its limit (${limit}s)"
		scrub
		;;
	*:1) tap_ok "[$label] $name ran to the end" ;;
	*) tap_not_ok "[$label] $name ran to the end (it stopped with exit $rc)" ;;
	esac
}

