#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# datapath-loaded.sh: runs inside a test host (tests/vm-run.sh, any boot
# mode, any datapath) and checks, as TAP, that the openvswitch module the
# harness was asked for ($ROAM_DATAPATH) is the one that is loaded, the way
# an operator's `modprobe openvswitch` finds it.
#   tests/vm-run.sh --datapath in-tree tests/harness/datapath-loaded.sh
#   tests/vm-run.sh --datapath ours tests/harness/datapath-loaded.sh
set -uo pipefail
# shellcheck source=SCRIPTDIR/../vm/roam.sh
. "$ROAM_LIB"

release=$(uname -r)
ours=/lib/modules/$release/updates/openvswitch.ko
intree=/lib/modules/$release/kernel/net/openvswitch/openvswitch.ko
n=0 failed=0
check() {
	local what=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
		failed=1
	fi
}

case "$ROAM_DATAPATH" in
ours) want=$ours ;;
in-tree) want=$intree ;;
*) echo "Bail out! unknown ROAM_DATAPATH '$ROAM_DATAPATH'" && exit 1 ;;
esac
echo "TAP version 13"
echo "1..5"
check "openvswitch is loaded" test -d /sys/module/openvswitch
check "modprobe resolves openvswitch to $want" \
	test "$(modinfo -n openvswitch)" = "$want"
check "the loaded module is $want (srcversion, taint, path)" \
	roam_dp_prove "$ROAM_DATAPATH" "$want"
if [ "$ROAM_DATAPATH" = ours ]; then
	check "our module differs from the in-tree one" \
		test "$(modinfo -F srcversion "$ours")" != "$(modinfo -F srcversion "$intree")"
else
	check "no module in updates/" test ! -e "$ours"
fi
check "ROAM_* environment is set" \
	test -n "${ROAM_HOST:-}" -a -n "${ROAM_HOST_INDEX:-}" -a -n "${ROAM_HOSTS:-}" \
	-a -n "${ROAM_DEBUG_KERNEL:-}" -a -d "${ROAM_SHARED:-}" -a -r "${ROAM_LIB:-}"
exit "$failed"
