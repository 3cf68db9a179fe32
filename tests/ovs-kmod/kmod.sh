# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# kmod.sh: helpers for running Open vSwitch's kernel-datapath testsuite
# (tests/system-kmod-testsuite) inside a test host, for cases/10-testsuite.sh.
# The tree is the one images/build-ovs-testsuite.sh built to live at
# /opt/ovs-kmod; the hosts get it read-only (vm-run --share), so the
# testsuite works in a directory of its own ($KMOD_WORK, autotest's -C)
# with an atconfig whose paths are absolute.  Needs tests/kernel/lib.sh
# (OURS_KO, INTREE_KO, dp_unload) and $ROAM_LIB.

# wait_for_exit PID SECONDS
# shellcheck source=../lib/wait.sh
. lib/wait.sh

KMOD_TREE=/opt/ovs-kmod
KMOD_TS=system-kmod-testsuite
KMOD_WORK=/tmp/ovs-kmod/${ROAM_DATAPATH:-none}
# The testsuite's AUTOTEST_PATH (tests/automake.mk), made absolute.
KMOD_PATH=$KMOD_TREE/utilities:$KMOD_TREE/vswitchd:$KMOD_TREE/ovsdb:$KMOD_TREE/vtep:$KMOD_TREE/tests:$KMOD_TREE/ipsec
# How long the testsuite's waits (OVS_WAIT_UNTIL, ovs-appctl, ovs-vsctl)
# last: its atlocal says 30 s, which a loaded TCG host does not always
# meet; a wait that ends early still ends early.
KMOD_CTL_TIMEOUT=${OVS_KMOD_CTL_TIMEOUT:-120}
# What one pass leaves for the next in the same boot.
STATE=/run/roam-ovs-kmod
KMOD_EXPECT=$PWD/expect
mkdir -p "$STATE"

# kmod_lines FILE: FILE's lines without comments and blank lines.
kmod_lines() {
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$1"
}

# kmod_modprobe_set ours|in-tree: make modprobe find that module: ours
# copied into updates/ (searched before the kernel's own modules), or
# updates/ emptied for the in-tree one; then depmod and prove it.
kmod_modprobe_set() {
	local updates

	updates=/lib/modules/$(uname -r)/updates
	rm -f "$updates/openvswitch.ko" || return 1
	if [ "$1" = ours ]; then
		mkdir -p "$updates" && cp "$OURS_KO" "$updates/openvswitch.ko" ||
			return 1
	fi
	depmod -a && kmod_modprobe_is "$1"
}

# kmod_modprobe_is ours|in-tree: modprobe openvswitch would load that module.
kmod_modprobe_is() {
	local file

	file=$(modinfo -n openvswitch) || return 1
	case "$1:$file" in
	ours:/lib/modules/*/updates/openvswitch.ko)
		[ "$(modinfo -F srcversion "$file")" = "$(modinfo -F srcversion "$OURS_KO")" ] ||
			{ echo "$file is not our module"; return 1; }
		;;
	in-tree:"$INTREE_KO") ;;
	*) echo "modprobe would load $file"; return 1 ;;
	esac
}

# kmod_modprobe_proves ours|in-tree: `modprobe openvswitch` loads that
# module (srcversion, taint, path), and `modprobe -r` removes it.
kmod_modprobe_proves() {
	dp_unload && modprobe openvswitch &&
		roam_dp_prove "$1" "$(modinfo -n openvswitch)" &&
		modprobe -r openvswitch && [ ! -e /sys/module/openvswitch ]
}

# The utilities the tests run, each through a wrapper in $KMOD_WORK/bin
# (first in the testsuite's path) that adds -vtimeval:console:off
# -vcoverage:console:off: a utility whose poll loop took over a second
# under TCG says so on stderr ("timeval|WARN|Unreasonably long ...ms poll
# interval", with its rusage lines and a coverage dump at INFO), and a
# test fails on any stderr it did not expect.  Only the utility's own
# timeval and coverage messages on its own console are silenced.
KMOD_QUIET=(utilities/ovs-vsctl utilities/ovs-ofctl utilities/ovs-dpctl
	utilities/ovs-appctl ovsdb/ovsdb-client)

# kmod_workspace: $KMOD_WORK with atconfig (the tree's, its relative paths
# made absolute), atlocal, the testsuite (kmod_allow_start's copy) and the
# wrappers of $KMOD_QUIET in bin/.
kmod_workspace() {
	local u

	rm -rf "$KMOD_WORK" && mkdir -p "$KMOD_WORK/bin" || return 1
	kmod_allow_start || return 1
	for u in "${KMOD_QUIET[@]}"; do
		[ -x "$KMOD_TREE/$u" ] || { echo "no $KMOD_TREE/$u"; return 1; }
		printf '#!/bin/sh\nexec %s -vtimeval:console:off -vcoverage:console:off "$@"\n' \
			"$KMOD_TREE/$u" >"$KMOD_WORK/bin/${u##*/}" &&
			chmod +x "$KMOD_WORK/bin/${u##*/}" || return 1
	done
	sed -e "s|^at_srcdir=.*|at_srcdir='$KMOD_TREE/tests'|" \
		-e "s|^at_top_srcdir=.*|at_top_srcdir='$KMOD_TREE'|" \
		-e "s|^at_top_build_prefix=.*|at_top_build_prefix='$KMOD_TREE/'|" \
		"$KMOD_TREE/tests/atconfig" >"$KMOD_WORK/atconfig" &&
		cp "$KMOD_TREE/tests/atlocal" "$KMOD_WORK/atlocal" &&
		grep -qx "at_top_srcdir='$KMOD_TREE'" "$KMOD_WORK/atconfig" &&
		grep -qx "at_top_build_prefix='$KMOD_TREE/'" "$KMOD_WORK/atconfig"
}

# kmod_allow_start: $KMOD_WORK/$KMOD_TS, the testsuite with ../allow-start's
# lines added to what its ovsdb-server and ovs-vswitchd starts drop from
# their stderr, after its own "opened log file" line; fails unless every
# start of every test got them.
kmod_allow_start() {
	local anchor='/vlog|INFO|opened log file/d'
	local add='' re want got

	while IFS= read -r re; do
		# as sed's replacement text: \, & and the delimiter quoted
		re=${re//\\/\\\\} re=${re//&/\\&} re=${re//@/\\@}
		add+="\\
/$re/d"
	done < <(kmod_lines allow-start)
	sed "s@^$anchor\$@&$add@" "$KMOD_TREE/tests/$KMOD_TS" >"$KMOD_WORK/$KMOD_TS" &&
		chmod +x "$KMOD_WORK/$KMOD_TS" || return 1
	want=$(grep -c -x -F -e "$anchor" "$KMOD_TREE/tests/$KMOD_TS")
	while IFS= read -r re; do
		got=$(grep -c -x -F -e "/$re/d" "$KMOD_WORK/$KMOD_TS")
		if [ "$want" -eq 0 ] || [ "$got" -ne "$want" ]; then
			echo "/$re/d: $got times in the copy, the testsuite's own line $want times"
			return 1
		fi
	done < <(kmod_lines allow-start)
}

# kmod_list: every test of the testsuite, "NUMBER;TITLE" a line, from the
# testsuite's own table (at_help_all: NUMBER;FILE:LINE;TITLE;KEYWORDS;).
kmod_list() {
	sed -n '/^at_help_all="/,/^"$/p' "$KMOD_TREE/tests/$KMOD_TS" |
		sed -e 's/^at_help_all="//' -e '/^"$/d' |
		awk -F ';' 'NF >= 3 { print $1 ";" $3 }'
}

# kmod_expect TITLE: "WHO|REASON" from ../expect for TITLE, or nothing.
kmod_expect() {
	kmod_lines "$KMOD_EXPECT" |
		awk -F ' [|] ' -v t="$1" '$1 == t { print $2 "|" $3; exit }'
}

# kmod_expect_valid: every line of ../expect is "TITLE | ours|both |
# REASON", names a test of the testsuite ($STATE/list) and no test twice.
kmod_expect_valid() {
	kmod_lines "$KMOD_EXPECT" | awk -F ' [|] ' -v list="$STATE/list" '
		BEGIN {
			while ((getline line < list) > 0) {
				sub(/^[0-9]+;/, "", line); known[line] = 1
			}
		}
		NF != 3 || ($2 != "ours" && $2 != "both") || $3 == "" {
			print "malformed: " $0; bad = 1; next
		}
		!($1 in known) { print "no such test: " $1; bad = 1 }
		seen[$1]++ { print "listed twice: " $1; bad = 1 }
		END { exit bad }'
}

# kmod_outcome LINE: the outcome in the testsuite's result line for a test:
# "pass", "skip (WHERE)", "fail (WHERE)".
kmod_outcome() {
	case "$1" in
	*" ok") echo pass ;;
	*" skipped ("*) echo "skip (${1##*skipped (}" ;;
	*" FAILED ("*) echo "fail (${1##*FAILED (}" ;;
	*"expected failure"*) echo "fail (expected failure${1##*expected failure})" ;;
	*) echo "fail (unexpected pass)" ;;
	esac
}

# kmod_run LIMIT NUMBER...: run those tests in one testsuite run (its
# start-up costs seconds under TCG), reading its result lines as they
# come; for each test, call kmod_report NUMBER OUTCOME SECONDS.  A test
# with no result LIMIT seconds after the previous one is killed with the
# whole run ("timeout"), its leftovers scrubbed, and the rest run anew.  A
# run that ends without a test's result line reports "error (...)".
kmod_run() {
	local limit=$1 todo out pid last seen n
	shift
	todo=("$@")
	out=$KMOD_WORK/run.out
	while [ ${#todo[@]} -gt 0 ]; do
		: >"$out"
		setsid "$KMOD_WORK/$KMOD_TS" -C "$KMOD_WORK" \
			AUTOTEST_PATH="$KMOD_WORK/bin:$KMOD_PATH" \
			OVS_CTL_TIMEOUT="$KMOD_CTL_TIMEOUT" "${todo[@]}" >"$out" 2>&1 </dev/null &
		pid=$!
		last=$(date +%s) seen=0
		while kill -0 "$pid" 2>/dev/null; do
			kmod_take_results
			if [ $(($(date +%s) - last)) -ge "$limit" ]; then
				kill -TERM -- "-$pid" 2>/dev/null
				wait_for_exit "$pid" 15 || kill -KILL -- "-$pid" 2>/dev/null
				kmod_scrub
				kmod_report "${todo[0]}" timeout $(($(date +%s) - last))
				todo=("${todo[@]:1}")
				continue 2
			fi
			sleep 1
		done
		wait "$pid"
		kmod_take_results
		for n in ${todo[@]+"${todo[@]}"}; do
			kmod_report "$n" "error (the testsuite ended without its result: $(tail -n 1 "$out"))" 0
		done
		todo=()
	done
}

# kmod_take_results: kmod_run's new result lines in $out past the $seen
# already taken: reported, and their tests taken off $todo.
kmod_take_results() {
	local line n i rest
	local re='^ *[0-9]+: .*( ok| skipped \(.*\)| FAILED \(.*\)| expected failure.*| UNEXPECTED PASS.*)$'

	while IFS= read -r line; do
		n=${line%%:*} n=${n//[[:space:]]/}
		kmod_report "$n" "$(kmod_outcome "$line")" $(($(date +%s) - last))
		last=$(date +%s) seen=$((seen + 1)) rest=()
		for i in "${todo[@]}"; do
			[ "$i" = "$n" ] || rest+=("$i")
		done
		todo=(${rest[@]+"${rest[@]}"})
	done < <(grep -E "$re" "$out" | tail -n +"$((seen + 1))")
}

# kmod_show_log NUMBER: the end of a failed test's own log, as comments
# (its directory is the number with leading zeros).
kmod_show_log() {
	local dir log=''

	for dir in "$KMOD_WORK/$KMOD_TS.dir"/[0-9]*; do
		[ "$((10#${dir##*/}))" != "$1" ] || log=$dir/$KMOD_TS.log
	done
	if [ ! -r "$log" ]; then
		echo "#   (no log of test $1 in $KMOD_WORK/$KMOD_TS.dir:" \
			"$(cd "$KMOD_WORK" && find . -maxdepth 2 | sort | sed -n 1,20p | tr '\n' ' '))"
		return 0
	fi
	# the failing check: its command, diff and exit status, without the
	# shell's trace ("+ ...") and the captured files' contents
	grep -E '^\./[a-z0-9-]+\.at:[0-9]+: |^(---|\+\+\+|@@) |^[-+][^ +-]|exit code was|^[a-z0-9-]+\.log:$' "$log" |
		tail -n 40 | sed 's/^/#   /'
}

# kmod_scrub: what a test killed at its limit left: its daemons (by their
# pidfiles), namespaces, datapaths, the module.
kmod_scrub() {
	local pidfile dp

	for pidfile in "$KMOD_WORK/$KMOD_TS.dir"/*/*.pid; do
		[ -s "$pidfile" ] || continue
		kill -9 "$(cat "$pidfile")" 2>/dev/null
	done
	ip -all netns delete 2>/dev/null
	for dp in $(ovs-dpctl dump-dps 2>/dev/null); do
		ovs-dpctl del-dp "$dp" >/dev/null 2>&1
	done
	modprobe -r openvswitch 2>/dev/null
	return 0
}

# kmod_result_of PASS NUMBER: that pass's outcome of test NUMBER in this
# boot, or nothing.
kmod_result_of() {
	[ -r "$STATE/results.$1" ] || return 0
	awk -F ';' -v n="$2" '$1 == n { print $2; exit }' "$STATE/results.$1"
}

# kmod_point PASS NUMBER TITLE OUTCOME: the test's point (see
# cases/10-testsuite.sh for the rules).
kmod_point() {
	local pass=$1 name="$2: $3" outcome=$4 res=${4%% *} exp who='' why
	local intree=''

	exp=$(kmod_expect "$3")
	if [ -n "$exp" ]; then
		who=${exp%%|*} why=${exp#*|}
	fi
	[ "$pass" != ours ] || intree=$(kmod_result_of in-tree "$2")
	case "$pass:$res:$who" in
	*:skip:*)
		if [ "$pass" = ours ] && [ "${intree%% *}" = pass ] && [ "$who" != ours ]; then
			tap_not_ok "$name (skipped on ours: ${outcome#skip }; passed on in-tree)"
		else
			tap_ok "$name # SKIP skipped by the testsuite ${outcome#skip }"
		fi
		;;
	in-tree:pass:both)
		tap_not_ok "$name (expect: fails on both modules, \"$why\"; it passed on in-tree: the line no longer holds)" ;;
	in-tree:pass:*) tap_ok "$name" ;;
	in-tree:*:both) tap_ok "$name # SKIP fails on both modules ($outcome): $why" ;;
	in-tree:*:*) tap_not_ok "$name ($outcome on the in-tree module, the oracle)" ;;
	ours:pass:?*)
		tap_not_ok "$name (expect: $who, \"$why\"; it passed on ours: the line no longer holds)" ;;
	ours:pass:) tap_ok "$name" ;;
	ours:*:ours)
		if [ "${intree%% *}" = pass ]; then
			tap_ok "$name # SKIP fails on ours ($outcome), passes on in-tree: $why"
		else
			tap_not_ok "$name ($outcome on ours; expect says it passes on in-tree, which gave: ${intree:-nothing})"
		fi
		;;
	ours:*:both)
		if [ -n "$intree" ] && [ "${intree%% *}" != pass ]; then
			tap_ok "$name # SKIP fails on both modules ($outcome): $why"
		else
			tap_not_ok "$name ($outcome on ours; expect says it fails on both, in-tree gave: ${intree:-nothing})"
		fi
		;;
	*) tap_not_ok "$name ($outcome on ours; in-tree: ${intree:-not run})" ;;
	esac
}
