# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Unloading the module leaves nothing behind: no module, no families, no
# devices.  The clean kernel log (no lockdep, KASAN, kmemleak or WARN
# report on the debug kernel) is the check that closes each pass in
# run.sh, right after this case.

check "the module unloads" dp_unload
check_fails "the module is gone" test -e /sys/module/openvswitch
for fam in ovs_datapath ovs_vport ovs_flow ovs_packet; do
	check_output "family $fam is gone" "" genl_family "$fam"
done
check_output "no datapath devices remain" "" ip -o link show type openvswitch
