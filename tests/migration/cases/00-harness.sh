# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Both hosts, before anything else runs on them: the harness's own checks
# of a two-host full boot (tests/harness, which launch.sh copies to
# harness/), the ones the hosts-link test runs in a boot of its own: the
# host link both ways by name and the uplink carrying VLAN-tagged frames
# (ping-link.sh), the image's promises, Open vSwitch not started at boot
# among them (full-host.sh, which then starts it and adds br0, as 00-start
# would), and the datapath modprobe loads (datapath-loaded.sh).  Here they
# cost no boot of their own; the nested guest's boot under KVM
# (nested-guest.sh) is the scenario's first step anyway.
# roam: limit 300

# harness SCRIPT: harness/SCRIPT, its TAP lines as this case's points and
# comments (named after it), then a point for its exit status, so that a
# script that stops between its points fails too.
harness() {
	local out rc=0 line

	out=$(bash "harness/$1" 2>&1) || rc=$?
	while IFS= read -r line; do
		case "$line" in
		"TAP version"* | [0-9]*..[0-9]*) ;;
		"ok "*) tap_ok "$1: ${line#ok * - }" ;;
		"not ok "*) tap_not_ok "$1: ${line#not ok * - }" ;;
		"# "*) tap_diag "$1: ${line#\# }" ;;
		*) tap_diag "$1: $line" ;;
		esac
	done <<<"$out"
	check_output "$1 exits 0" 0 echo "$rc"
}

harness full-host.sh
harness ping-link.sh
harness datapath-loaded.sh
