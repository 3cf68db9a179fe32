# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Debian's Open vSwitch starts on the pass's module the way the package
# starts it.  There is no systemd in the fast boot, so each unit's own
# ExecStart line runs as systemd would run it (tests/lib/ovs.sh ovs_unit):
# ovsdb-server.service, then ovs-vswitchd.service, which requires it.
#
#   host: ovsdb-server  ovs-vswitchd  br-keep (no ports) on ovs-system
#
# The pass's ovs-vswitchd.log begins here; 90-teardown.sh reads it after
# the last stop.

# shellcheck source=../topo.sh
. ./topo.sh

rm -f /var/log/openvswitch/*.log
# Every case deletes its bridge, and a revalidator may be translating one
# of its flows at that moment: the flow's port is gone from ovs-vswitchd's
# map, and it warns "xlate_key failed (No such device)!" (seen once, on
# the debug kernel, where everything is slow).  Open vSwitch's race with
# itself, for the whole pass (README, "The ovs suite").
echo '\|ofproto_dpif_upcall\(revalidator[0-9]+\)\|WARN\|xlate_key failed \(No such device\)!$' \
	>"$LOG_ALLOWED"
check_fails "ovs-ctl status: no daemon runs before the start" "$OVS_CTL" status
check "ovsdb-server starts as ovsdb-server.service's ExecStart starts it" \
	ovs_unit ovsdb-server ExecStart
check "ovs-vswitchd starts as ovs-vswitchd.service's ExecStart starts it" \
	ovs_unit ovs-vswitchd ExecStart
check "ovs-ctl status: both daemons run" ovs_running
check "the running ovs-vswitchd is Debian's 3.1" \
	grep -q '(Open vSwitch) 3\.1\.' <<<"$(ovs-appctl version 2>&1)"
check_output "one ovs-vswitchd process: no monitor (--no-monitor, as in the unit)" \
	1 pgrep -c -x ovs-vswitchd
check_output "the database answers and holds no bridge" "" ovs-vsctl list-br
check_output "no datapath exists before the first bridge" "" ovs-dpctl dump-dps
check "$KEEP, a bridge for the whole pass (see topo.sh)" \
	"${VSCTL[@]}" add-br "$KEEP"
check_output "it opened the datapath" system@ovs-system ovs-dpctl dump-dps
check "ovs-vswitchd.log is being written" test -s "$VSWITCHD_LOG"
