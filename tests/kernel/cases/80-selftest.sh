# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 420
#
# The kernel tree's own Open vSwitch selftest (tools/testing/selftests/net/
# openvswitch, shipped into the job by launch.sh from the same extracted
# tree the kernel is built from): openvswitch.sh drives the datapath
# through ovs-dpctl.py, a pyroute2 client independent of Open vSwitch's C
# library.  Every TEST line it prints becomes a test point; a skip (no
# module, no pyroute2) is a failure here, since the host has both.
# The selftest's own warning check looks for the in-tree function name
# ovs_dp_cmd_new in a trace, which our module does not have; this case
# checks instead that the kernel log shows no splat at all while the
# selftest ran, whichever module is loaded.

selftest_dir=$(mktemp -d /tmp/ovs-selftest.XXXXXX)
case_cleanup() {
	rm -rf "$selftest_dir"
}

cp -a selftest/. "$selftest_dir/"
roam_klog_mark "selftest-$ROAM_DATAPATH"
# A hang (as pyroute2 does when it cannot start) fails here, not the run.
selftest_out=$(cd "$selftest_dir" && timeout 300 sh ./openvswitch.sh -v 2>&1)
selftest_rc=$?
tap_diag "openvswitch.sh exited $selftest_rc"

selftest_results=$(grep -E '^TEST: .*\[ *(OK|FAIL|SKIP|NOMOD|PYLIB) *\]$' \
	<<<"$selftest_out" || true)
check "the selftest reports results" test -n "$selftest_results"
while IFS= read -r line; do
	[ -n "$line" ] || continue
	name=$(sed -E 's/^TEST: +(.*[^ ]) +\[.*$/\1/' <<<"$line")
	case "$line" in
	*"[ OK ]") tap_ok "selftest: $name" ;;
	*) tap_not_ok "selftest: $name (${line##* \[})"
	   printf '%s\n' "$selftest_out" | tail -n 20 | sed 's/^/#   /' ;;
	esac
done <<<"$selftest_results"
check_eq "openvswitch.sh exits 0" 0 "$selftest_rc"
check "no oops or warning in the kernel log while the selftest ran" \
	roam_klog_splats "selftest-$ROAM_DATAPATH"
