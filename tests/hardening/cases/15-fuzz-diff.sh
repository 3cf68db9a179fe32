# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 600
# roam: once-per-boot
#
# The same fuzzed requests to both modules, answer against answer (the
# four openvswitch families: roam_redirect is ours alone): the
# in-tree module is the oracle of the ABI, and a request it answers
# otherwise than ours is a finding (kept in findings/ once understood),
# unless the request names a feature one of them lacks (fuzzdiff.py: MPLS,
# NSH and conntrack in ours; conntrack mark and labels in the test
# kernel's in-tree module).
#
#   in-tree:  genl-fuzz --seed S --family openvswitch --answers /tmp/diff.in-tree
#   ours:     genl-fuzz --seed S --family openvswitch --answers /tmp/diff.ours
#   fuzzdiff.py /tmp/diff.in-tree /tmp/diff.ours
#
# FUZZ_DIFF_COUNT requests per family (default 1,000) from the seed
# FUZZ_DIFF_SEED, printed.  Its default is the seed that found
# findings/flow-name-key-extra-attrs, so that the short run is the same
# every time; the full length (hardening/full.sh) draws a new one.  The
# datapaths a fuzzed request made are deleted after each module's run.
# Pass: no unexpected difference.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh

FUZZ=$PWD/bin/genl-fuzz
count=${FUZZ_DIFF_COUNT:-1000}
seed=${FUZZ_DIFF_SEED:-179649106078693}

# del_dps: every datapath deleted, the ones fuzzed requests made too.
del_dps() {
	local dp

	for dp in $(ovs-dpctl dump-dps); do
		ovs-dpctl del-dp "$dp" || return 1
	done
}

case_cleanup() {
	del_dps 2>/dev/null
	rm -f /tmp/diff.*
}

# answers MODULE: the module loaded, fuzzed with the seed, its answers
# in /tmp/diff.MODULE.
answers() {
	dp_load "$1" &&
		"$FUZZ" --seed "$seed" --count "$count" --family openvswitch \
			--answers "/tmp/diff.$1" >"/tmp/diff.$1.out" &&
		del_dps
}

tap_diag "genl-fuzz --seed $seed --count $count, on each module"
check "the in-tree module's answers" answers in-tree
check "ours" answers ours
check_output "both answered all $((4 * count)) requests" \
	"$((4 * count)) $((4 * count))" \
	eval "echo \$(wc -l </tmp/diff.in-tree) \$(wc -l </tmp/diff.ours)"
./fuzzdiff.py /tmp/diff.in-tree /tmp/diff.ours >/tmp/diff.report
rc=$?
sed -n 's/^\(expected\|[0-9]\)/# &/p' /tmp/diff.report
check "no answer differs but for a feature one module lacks (fuzzdiff.py)" \
	eval "[ $rc = 0 ] || { grep -v '^expected' /tmp/diff.report; false; }"
