# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The loaded module is the requested one and registers the four families
# with the ABI's versions and multicast groups; a fresh datapath dump is
# empty.

check "the $ROAM_DATAPATH module is loaded" dp_prove "$ROAM_DATAPATH"

for fam in ovs_datapath:2 ovs_vport:1 ovs_flow:1 ovs_packet:1; do
	name=${fam%:*} version=${fam#*:}
	info=$(genl_family "$name")
	check "family $name is registered" grep -q "Name: $name" <<<"$info"
	check "family $name has version $version" \
		grep -Eq "Version: 0x0*$version\b" <<<"$info"
done
for group in ovs_datapath ovs_vport ovs_flow; do
	check_output "family $group has multicast group $group" "$group" \
		genl_groups "$group"
done
check_output "ovs_packet has no multicast group" "" genl_groups ovs_packet

# stdout only: ovs-dpctl logs on stderr that our module has no meters.
check_output "a fresh datapath dump is empty" "" ovs-dpctl dump-dps
