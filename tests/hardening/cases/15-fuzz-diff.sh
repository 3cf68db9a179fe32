# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 600
# roam: once-per-boot
#
# The same fuzzed requests to both modules, answer against answer: the
# in-tree module is the oracle of the ABI, and a request it answers
# otherwise than ours is a finding (kept in findings/ once understood).
#
#   in-tree:  genl-fuzz --seed S --answers /tmp/diff.in-tree
#   ours:     genl-fuzz --seed S --answers /tmp/diff.ours
#
# FUZZ_DIFF_COUNT requests per family (default 1,000) from the seed
# FUZZ_DIFF_SEED, printed.  Its default is the seed that found
# findings/flow-name-key-extra-attrs, on which both modules now agree:
# the short run guards what was fixed.  A new seed finds more (README,
# "The hardening suite": the open findings), which is why the full
# length (hardening/full.sh) draws one of its own.  The datapaths a
# fuzzed request made are deleted after each module's run.  Pass: every
# request of every family got the same answer (an errno's name or OK)
# from both.

# shellcheck source=../../kernel/netns.sh
. ./netns.sh

FUZZ=$PWD/bin/genl-fuzz
count=${FUZZ_DIFF_COUNT:-1000}
seed=${FUZZ_DIFF_SEED:-179649106078693}

case_cleanup() {
	local dp

	for dp in $(ovs-dpctl dump-dps 2>/dev/null); do
		ovs-dpctl del-dp "$dp"
	done
	rm -f /tmp/diff.*
}

# answers MODULE: the module loaded, fuzzed with the seed, its answers
# (family, number, command, flags and answer: not the attributes, which
# are the same by construction) in /tmp/diff.MODULE.
answers() {
	local dp

	dp_load "$1" &&
		"$FUZZ" --seed "$seed" --count "$count" \
			--answers "/tmp/diff.$1.full" >"/tmp/diff.$1.out" || return 1
	for dp in $(ovs-dpctl dump-dps); do
		ovs-dpctl del-dp "$dp" || return 1
	done
	cut -d' ' -f1-5 "/tmp/diff.$1.full" >"/tmp/diff.$1"
}

tap_diag "genl-fuzz --seed $seed --count $count, on each module"
check "the in-tree module's answers" answers in-tree
check "ours" answers ours
check_output "both answered all $((4 * count)) requests" \
	"$((4 * count)) $((4 * count))" \
	eval "echo \$(wc -l </tmp/diff.in-tree) \$(wc -l </tmp/diff.ours)"
# the differing requests in full, for findings/
differ() {
	diff /tmp/diff.in-tree /tmp/diff.ours >/dev/null && return 0
	diff /tmp/diff.in-tree.full /tmp/diff.ours.full | grep "^[<>]" | sed -n 1,20p
	return 1
}
check "every answer the same" differ
