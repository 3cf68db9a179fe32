# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Malformed requests are refused with the in-tree module's errno, and the
# module keeps working afterwards.
#
#   bin/ovs-badmsg --(crafted genl requests)--> ovs_datapath, ovs_vport,
#                                               ovs_flow (dp0)
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp1 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                           198.51.100.2
#
# The expected errnos are what the in-tree 6.1 module answers; the one
# well-formed control request must be accepted.  Then a fresh datapath
# forwards a ping.

# shellcheck source=../netns.sh
. ./netns.sh

BADMSG=$PWD/bin/ovs-badmsg

case_cleanup() {
	ovs-dpctl del-dp dp0
	ovs-dpctl del-dp dp1
	ovs-dpctl del-dp badmsg
	ns_del 1 2
	rm -f /tmp/badmsg.*
}

check "the ovs-badmsg tool is in the job" test -x "$BADMSG"
check "add-dp dp0" ovs-dpctl add-dp dp0
check_badmsg dp0 <<'EOT'
dp-short-header EINVAL
dp-new-no-name EINVAL
dp-new-truncated-name EINVAL
vport-new-unknown-type EAFNOSUPPORT
vport-new-no-type EINVAL
flow-new-no-key EINVAL
flow-new-no-datapath ENODEV
key-in-port-short EINVAL
key-unknown-type EINVAL
key-truncated-attr EINVAL
mask-wider-than-key EINVAL
actions-nested-20-deep EOVERFLOW
action-unknown-type EINVAL
flow-nested-ok OK
flow-nested-ok-del OK
EOT
check_output "no request left a datapath behind" "system@dp0" ovs-dpctl dump-dps
check_output "no request left a port behind" "dp0 internal" dp_ports dp0
check_output "no request left a flow behind" "" ovs-dpctl dump-flows dp0
check "del-dp dp0" ovs-dpctl del-dp dp0

ns_add 1
ns_add 2
ns_neigh 1 2
ns_neigh 2 1
check "afterwards a datapath can be created" ovs-dpctl add-dp dp1
check "and given ports" eval "ovs-dpctl add-if dp1 p1 && ovs-dpctl add-if dp1 p2"
check "and flows" add_flows dp1 \
	'in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2)' 2 \
	'in_port(2),eth(),eth_type(0x0800),ipv4(src=198.51.100.2,dst=198.51.100.1)' 1
check "and a ping flows through" nsx 1 "${PING[@]}" 198.51.100.2
