# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# rounds.sh: how every bench case alternates the modules, sourced inside
# the test host.  Needs tests/lib/tap.sh and tests/kernel/lib.sh.

# each_round ROUNDS STEP [SWITCH...]: for each of ROUNDS rounds, each
# SWITCH in turn (default: ours and in-tree, the two modules), then STEP
# SWITCH ROUND, which makes its own points.  A module is loaded before its
# turn, the datapath a step left behind deleted first (it would keep the
# last module from unloading); bridge and flower (the Linux bridge, tc
# flower) need nothing loaded.  Each round starts one switch later in the list than the one
# before, so that none always runs on a warmer or cooler host.
each_round() {
	local rounds=$1 step=$2 round i sw
	local switches=("${@:3}")

	[ ${#switches[@]} -gt 0 ] || switches=(ours in-tree)
	for ((round = 1; round <= rounds; round++)); do
		for ((i = 0; i < ${#switches[@]}; i++)); do
			sw=${switches[(round - 1 + i) % ${#switches[@]}]}
			case $sw in
			ours | in-tree)
				ovs-dpctl del-dp dp0 2>/dev/null
				check "round $round: load $sw" dp_load "$sw" || continue
				;;
			esac
			"$step" "$sw" "$round"
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
