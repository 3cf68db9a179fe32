# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 1500
#
# Open vSwitch's own kernel-datapath testsuite (tests/system-kmod-testsuite
# of Debian's openvswitch-source, built by images/build-ovs-testsuite.sh and
# mounted read-only on /opt/ovs-kmod), run against this pass's module.
# Its macros `modprobe openvswitch` at each test's start and `modprobe -r`
# it at the end, so the pass's module must be the one modprobe finds: ours
# copied into updates/ and depmod'ed, or the kernel's own with updates/
# empty.  One point per test, "NN: title":
#   - a pass is ok; a test the testsuite skipped is a skip, never a pass;
#   - on the in-tree pass (the oracle) a failure fails, unless ../expect
#     lists it as failing on both modules (then it is a skip, with why);
#   - on the ours pass a test must do what it did on the in-tree pass of
#     this boot, unless ../expect lists the difference (then it is a skip,
#     with why); an expect line that no longer holds fails its test's point.
# Which tests: $OVS_KMOD_TESTS ("all", a range "FIRST-LAST" of the
# testsuite's numbers, or a file of titles; default ../subset, the CI
# subset), given by launch.sh --env.  They run in one testsuite run
# (kmod_run), each under a limit of $OVS_KMOD_LIMIT seconds (default 300,
# four times that on the debug kernel).  The testsuite run is a copy of
# the testsuite that allows the daemons' start-up lines of
# ../allow-start, on both modules (see there why), its waits last up to
# 120 s, not 30 s (kmod.sh, KMOD_CTL_TIMEOUT), and its utilities keep
# TCG's poll-interval warnings off their stderr (kmod.sh, KMOD_QUIET).  Every result is also a
# "# kmod-result PASS NN OUTCOME SECONDS TITLE" comment, from which
# tests/ovs-kmod/full.sh writes the results table.

# shellcheck source=../kmod.sh
. ./kmod.sh

case_cleanup() {
	kmod_scrub
}

pass=$ROAM_DATAPATH
check "the testsuite tree is mounted on $KMOD_TREE (vm-run --share ovs-kmod=...)" \
	roam_mount_share ovs-kmod "$KMOD_TREE"
check_output "it was built from openvswitch-source $(dpkg-query -W -f='${Version}' openvswitch-switch), the image's openvswitch-switch" \
	"$(dpkg-query -W -f='${Version}' openvswitch-switch)" cat "$KMOD_TREE/roam-source-version"
check "its ovs-vswitchd is 3.1 and runs here" \
	grep -q '(Open vSwitch) 3\.1\.' <<<"$("$KMOD_TREE/vswitchd/ovs-vswitchd" --version 2>&1)"
check "modprobe finds the $pass module (updates/ set, depmod)" kmod_modprobe_set "$pass"
check "modprobe openvswitch loads the $pass module, as the testsuite's macros do" \
	kmod_modprobe_proves "$pass"
check "the testsuite's workspace is ready: atconfig with absolute paths, the testsuite allowing allow-start's lines at every daemon start, the utilities' timeval and coverage console off" \
	kmod_workspace
check "the utilities run through their wrappers and answer" \
	"$KMOD_WORK/bin/ovs-vsctl" --version

kmod_list >"$STATE/list"
mapfile -t all <"$STATE/list"
check "the testsuite lists its tests" test "${#all[@]}" -gt 100
declare -A title_of number_of
for line in "${all[@]}"; do
	title_of[${line%%;*}]=${line#*;}
	number_of[${line#*;}]=${line%%;*}
done

# The selection, by title: numbers are the testsuite's, titles are what
# ../subset and ../expect name.
selected=()
if [ "${OVS_KMOD_TESTS:-}" = all ] || [[ ${OVS_KMOD_TESTS:-} =~ ^[0-9]+-[0-9]+$ ]]; then
	first=1 last=999999
	if [ "$OVS_KMOD_TESTS" != all ]; then
		first=${OVS_KMOD_TESTS%-*} last=${OVS_KMOD_TESTS#*-}
	fi
	for line in "${all[@]}"; do
		n=${line%%;*}
		[ "$n" -lt "$first" ] || [ "$n" -gt "$last" ] || selected+=("$n")
	done
else
	list=${OVS_KMOD_TESTS:-subset}
	unknown=()
	while IFS= read -r t; do
		if [ -n "${number_of[$t]:-}" ]; then
			selected+=("${number_of[$t]}")
		else
			unknown+=("$t")
		fi
	done < <(kmod_lines "$list")
	check_eq "every title in $list names a test of the testsuite" "" \
		"${unknown[*]+${unknown[*]}}"
fi
check "$(basename "${OVS_KMOD_TESTS:-subset}") selects tests" test "${#selected[@]}" -gt 0
check "every line of expect names a test and says ours or both, and why" kmod_expect_valid

if [ "$pass" = ours ]; then
	check "the in-tree pass of this boot recorded its results (--pass in-tree first)" \
		test -s "$STATE/results.in-tree"
fi
results=$STATE/results.$pass
: >"$results"
limit=${OVS_KMOD_LIMIT:-300}
[ "${ROAM_DEBUG_KERNEL:-0}" != 1 ] || limit=$((limit * 4))

# kmod_report NUMBER OUTCOME SECONDS: kmod_run's word on a test.
kmod_report() {
	printf '%s;%s;%s;%s\n' "$1" "$2" "$3" "${title_of[$1]}" >>"$results"
	echo "# kmod-result $pass $1 ${2%% *} $3 ${title_of[$1]}"
	kmod_point "$pass" "$1" "${title_of[$1]}" "$2"
	[ "${2%% *}" != fail ] || kmod_show_log "$1"
}
kmod_run "$limit" "${selected[@]}"
check "modprobe still finds the $pass module after the testsuite" \
	kmod_modprobe_is "$pass"
