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
set -euo pipefail

if [ -z "${ROAM_HOST:-}" ]; then
	exec "$(dirname "$0")/vm-run.sh" --hosts 2 --boot full "$@" "$0"
fi

# shellcheck source=SCRIPTDIR/vm/roam.sh
. "$ROAM_LIB"
say() { printf '\n== %s\n' "$*"; }
peer=roam-host$((3 - ROAM_HOST_INDEX))

say "$ROAM_HOST: kernel $(uname -r), datapath $ROAM_DATAPATH"
modinfo -F filename openvswitch
printf 'srcversion %s, refcount %s\n' "$(cat /sys/module/openvswitch/srcversion)" \
	"$(cat /sys/module/openvswitch/refcnt)"
ip -br addr show "$ROAM_LINK"

say "$ROAM_HOST: ovs-dpctl add-dp roam0"
ovs-dpctl add-dp roam0
ovs-dpctl show roam0
ip -br link show roam0

roam_barrier datapaths-up 300
say "$ROAM_HOST: ping $peer ($ROAM_PEER)"
ping -c 3 -i 0.3 -W 5 "$peer"
roam_barrier pinged 120

say "$ROAM_HOST: ovs-dpctl del-dp roam0"
ovs-dpctl del-dp roam0
ovs-dpctl show || true
say "$ROAM_HOST: done"
