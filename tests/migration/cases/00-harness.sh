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

# harness SCRIPT: harness/SCRIPT's points, each named after it (the
# runner, tests/kernel/cases.sh, numbers and labels them as this case's
# own; its other lines become comments there), then a point for its exit
# status, so that a script that stops between its points fails too.
harness() {
	local rc

	bash "harness/$1" 2>&1 |
		sed -u -e '/^TAP version /d' -e '/^[0-9]*\.\.[0-9]*$/d' \
			-e "s/^\(not \)\{0,1\}ok [0-9]* - /&$1: /"
	rc=${PIPESTATUS[0]}
	check_output "$1 exits 0" 0 echo "$rc"
}

harness full-host.sh
harness ping-link.sh
harness datapath-loaded.sh
