# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Datapath and vport life cycle through ovs-dpctl.
#
#            +------------------ host ------------------+
#            |   dp0: port 0 dp0 (internal, netdev)     |
#   ns1      |        port 1 p1  (netdev) ---+          |
#   [eth0]<--veth-----------------------------+          |
#            |        port 2 i0  (internal)             |
#            +------------------------------------------+
#
# add-dp/del-dp/show; a duplicate add and a delete of a missing datapath
# fail; the local port is an internal netdev named after the datapath;
# add-if of a veth end and of an internal port, del-if, and a port whose
# device is deleted under the datapath disappears from it.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	ovs-dpctl del-dp dp0
	ovs-dpctl del-dp dp1
	ns_del 1
}

check "add-dp dp0" ovs-dpctl add-dp dp0
check_output "dump-dps lists dp0" "system@dp0" ovs-dpctl dump-dps
check_fails "a second add-dp dp0 fails" ovs-dpctl add-dp dp0
check_output "the failed add left one datapath" "system@dp0" ovs-dpctl dump-dps
check_output "show: only the local port" "dp0 internal" dp_ports dp0
check_output "the local port is port 0" "0" port_no dp0 dp0
check "the local port is a netdev" ip link show dev dp0
check_eq "the local port's link kind is openvswitch" "openvswitch" \
	"$(ip -d -o link show dev dp0 | grep -o 'openvswitch' | sed -n 1p)"
check_output "the datapath starts with no flows" "" ovs-dpctl dump-flows dp0

ns_add 1
check "add-if a veth end" ovs-dpctl add-if dp0 p1
check "add-if an internal port" ovs-dpctl add-if dp0 i0,type=internal
check_output "show: the three ports" "dp0 internal
p1
i0 internal" dp_ports dp0
check_output "p1 is port 1" "1" port_no dp0 p1
check_output "i0 is port 2" "2" port_no dp0 i0
check "the internal port is a netdev" ip link show dev i0
check_eq "p1's master is the datapath's local port" "dp0" \
	"$(ip -o link show dev p1 | sed -n 's/.* master \([^ ]*\) .*/\1/p')"
check_fails "add-if of an attached device fails" ovs-dpctl add-if dp0 p1
check_fails "add-if of a missing device fails" ovs-dpctl add-if dp0 nosuchdev

check "add-dp dp1" ovs-dpctl add-dp dp1
check_eq "dump-dps lists both" "system@dp0
system@dp1" "$(ovs-dpctl dump-dps 2>/dev/null | sort)"
check_fails "add-if of another datapath's port fails" ovs-dpctl add-if dp1 p1
check "del-dp dp1" ovs-dpctl del-dp dp1
check_fails "dp1's local port is gone" ip link show dev dp1

check "del-if the internal port" ovs-dpctl del-if dp0 i0
check_fails "the internal port's netdev is gone" ip link show dev i0
check_fails "del-if of a port not in the datapath fails" \
	ovs-dpctl del-if dp0 i0
check_output "show: i0 is gone" "dp0 internal
p1" dp_ports dp0

check "the veth end is deleted" ip link del p1
check "the port of a deleted device leaves the datapath" \
	wait_for 25 no_port dp0 p1
check_output "show: only the local port again" "dp0 internal" dp_ports dp0
check "a new port takes the freed number" ovs-dpctl add-if dp0 i1,type=internal
check_output "i1 is port 1" "1" port_no dp0 i1

check "del-dp dp0" ovs-dpctl del-dp dp0
check_output "no datapath is left" "" ovs-dpctl dump-dps
check_fails "dp0's local port is gone" ip link show dev dp0
check_fails "del-dp of a missing datapath fails" ovs-dpctl del-dp dp0
check_fails "show of a missing datapath fails" ovs-dpctl show dp0
