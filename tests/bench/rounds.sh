# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# rounds.sh: how every bench case alternates the modules, sourced inside
# the test host.  Needs tests/lib/tap.sh and tests/kernel/lib.sh.

# each_round ROUNDS STEP: for each of ROUNDS rounds, each module loaded in
# turn (ours first in odd rounds, the in-tree module first in even ones,
# so that neither always runs on a warmer or cooler host), then STEP DP
# ROUND, which makes its own points.
each_round() {
	local rounds=$1 step=$2 round dp order

	for ((round = 1; round <= rounds; round++)); do
		order="ours in-tree"
		[ $((round % 2)) -eq 1 ] || order="in-tree ours"
		for dp in $order; do
			check "round $round: load $dp" dp_load "$dp" || continue
			"$step" "$dp" "$round"
		done
	done
}

# fresh_dp PORT...: dp0 anew (a measurement's leftover one deleted) with
# these ports, numbered 1, 2 ... in order.
fresh_dp() {
	local port

	ovs-dpctl del-dp dp0 2>/dev/null
	ovs-dpctl add-dp dp0 || return 1
	for port in "$@"; do
		ovs-dpctl add-if dp0 "$port" || return 1
	done
}

# results_done FILE LINES DESCRIPTION: FILE's results shown as comments,
# and a point that it holds LINES of them.
results_done() {
	sed 's/^/# /' "$1"
	check_output "$3" "$2" wc -l <"$1"
}
