#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# datapath-loaded.sh: runs inside a test host (tests/vm-run.sh, any boot
# mode, any datapath) and checks, as TAP, that the openvswitch module the
# harness was asked for ($ROAM_DATAPATH) is the one that is loaded.
#   tests/vm-run.sh --datapath in-tree tests/harness/datapath-loaded.sh
#   tests/vm-run.sh --datapath ours tests/harness/datapath-loaded.sh
set -euo pipefail

release=$(uname -r)
ours=/lib/modules/$release/updates/openvswitch.ko
intree=/lib/modules/$release/kernel/net/openvswitch/openvswitch.ko
n=0 failed=0
check() {
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		failed=1
	fi
}

case "$ROAM_DATAPATH" in
ours) want=$ours ;;
in-tree) want=$intree ;;
*) echo "Bail out! unknown ROAM_DATAPATH '$ROAM_DATAPATH'" && exit 1 ;;
esac
loaded=$(cat /sys/module/openvswitch/srcversion 2>/dev/null || echo none)
echo "TAP version 13"
echo "1..5"
check "openvswitch is loaded" test -d /sys/module/openvswitch
check "modprobe resolves openvswitch to $want" \
	test "$(modinfo -n openvswitch)" = "$want"
check "loaded srcversion $loaded is that of $want" \
	test "$loaded" = "$(modinfo -F srcversion "$want")"
if [ "$ROAM_DATAPATH" = ours ]; then
	check "our module differs from the in-tree one" \
		test "$(modinfo -F srcversion "$ours")" != "$(modinfo -F srcversion "$intree")"
else
	check "no module in updates/" test ! -e "$ours"
fi
check "ROAM_* environment is set" \
	test -n "${ROAM_HOST:-}" -a "${ROAM_HOST_INDEX:-}" = 1 -a -n "${ROAM_HOSTS:-}" \
	-a -n "${ROAM_DEBUG_KERNEL:-}" -a -d "${ROAM_SHARED:-}" -a -r "${ROAM_LIB:-}"
exit "$failed"
