#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh (./roam demo): boot two test hosts (full boot), load our
# openvswitch.ko on both, create a datapath with ovs-dpctl, show it, and
# ping across the host link; prints what happens, host by host.
#   tests/demo.sh [vm-run options, e.g. --debug-kernel or --datapath in-tree]
# On the build machine it re-runs itself through tests/vm-run.sh; inside
# a host (ROAM_HOST set) it is the demo itself.  Exit status: non-zero if
# anything failed on either host.
# the demo's steps are functions that run through in_turn "$@"
# shellcheck disable=SC2317
set -euo pipefail

if [ -z "${ROAM_HOST:-}" ]; then
	exec "$(dirname "$0")/vm-run.sh" --hosts 2 --boot full "$@" "$0"
fi

# shellcheck source=SCRIPTDIR/vm/roam.sh
. "$ROAM_LIB"
peer=roam-host$((3 - ROAM_HOST_INDEX))

# in_turn NAME CMD...: host 1 runs CMD, then host 2, so that the two
# hosts' output does not interleave.
in_turn() {
	local name=$1 rc=0
	shift
	[ "$ROAM_HOST_INDEX" -eq 1 ] || roam_get "$name" 600 >/dev/null
	"$@" || rc=$?
	[ "$ROAM_HOST_INDEX" -ne 1 ] || roam_put "$name" "done"
	roam_barrier "$name" 600
	return "$rc"
}
say() { printf '== %s: %s\n' "$ROAM_HOST" "$*"; }
dpctl() { ovs-dpctl -vconsole:warn "$@"; }

module() {
	say "kernel $(uname -r), datapath $ROAM_DATAPATH"
	printf '   module %s\n   srcversion %s (the in-tree one is %s)\n' \
		"$(modinfo -n openvswitch)" \
		"$(cat /sys/module/openvswitch/srcversion)" \
		"$(modinfo -F srcversion "/lib/modules/$(uname -r)/kernel/net/openvswitch/openvswitch.ko")"
	printf '   host link: %s\n' "$(ip -br addr show "$ROAM_LINK")"
}
add_dp() {
	say "ovs-dpctl add-dp roam0; ovs-dpctl show"
	dpctl add-dp roam0
	dpctl show roam0
	ip -br link show roam0
}
ping_peer() {
	say "ping $peer ($ROAM_PEER)"
	ping -c 3 -i 0.3 -W 5 "$peer"
}
del_dp() {
	say "ovs-dpctl del-dp roam0"
	dpctl del-dp roam0
	if [ -z "$(dpctl dump-dps)" ]; then
		echo "   no datapaths left"
	fi
}

# every step runs on both hosts even if an earlier one failed, so that
# neither host waits for the other in vain
failed=0
in_turn module module || failed=1
in_turn add-dp add_dp || failed=1
in_turn ping ping_peer || failed=1
in_turn del-dp del_dp || failed=1
if [ "$failed" -eq 0 ]; then
	say "done"
else
	say "FAILED"
fi
exit "$failed"
