# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Teardown leaves nothing behind, and the pass's ovs-vswitchd.log, from
# 00-start.sh's start through every restart to this stop, holds no WARN,
# ERR or EMER line (but the two the README lists, which say only that the
# CPU is emulated, and those an earlier case provoked on purpose and
# listed in $LOG_ALLOWED: 10-vlan.sh's drops of wrongly tagged frames).
#
#   ns1 eth0 --- p1 ---+
#   guest ----- tap9 --+--- br0 (NORMAL), internal port int0
#                           br-keep (no ports, see topo.sh)
#
# Deleting the bridge removes the datapath and its internal devices and
# releases the veth and the tap; stopping the daemons (the units'
# ExecStop lines) leaves no process, pidfile or control socket; unloading
# the module leaves no module, no Generic Netlink family and no
# openvswitch device.  The pass's kernel-log checkpoint follows.

# shellcheck source=../topo.sh
. ./topo.sh

case_cleanup() {
	tap_del tap9
	"${VSCTL[@]}" --if-exists del-br br0
	"${VSCTL[@]}" --if-exists del-br "$KEEP"
	ns_del 1
}

ovs_up
ns_add 1
tap_add tap9 52:54:00:00:00:09 198.51.100.9
check_eq "a guest behind tap9" 0 "$?"
bridge() {
	"${VSCTL[@]}" add-br br0 -- add-port br0 p1 \
		-- add-port br0 int0 -- set Interface int0 type=internal &&
		libvirt_port br0 tap9 52:54:00:00:00:09
}
check "br0 with p1, tap9 (libvirt's way) and an internal port int0" bridge
check "ping ns1 -> the guest on tap9" nsx 1 "${PING[@]}" 198.51.100.9
check_output "the datapath holds br0, int0, p1 and tap9" \
	"$(printf '%s\n' br0 int0 ovs-system p1 tap9)" dp_names ovs-system

check "del-br br0" "${VSCTL[@]}" del-br br0
check_output "br0's ports left the datapath" ovs-system dp_names ovs-system
check "del-br $KEEP, the pass's last bridge" "${VSCTL[@]}" del-br "$KEEP"
check_output "no datapath is left" "" ovs-dpctl dump-dps
check_output "no openvswitch device is left (ovs-system, br0, int0)" "" \
	ip -o link show type openvswitch
for dev in p1 tap9; do
	check_fails "$dev is released: no master" test -e "/sys/class/net/$dev/master"
done
tap_del tap9
ns_del 1

check "ovs-vswitchd and ovsdb-server stop as their units' ExecStop stop them" \
	ovs_stop
check_fails "ovs-ctl status: neither runs" "$OVS_CTL" status
check_fails "no ovs-vswitchd or ovsdb-server process is left" \
	pgrep -x 'ovs-vswitchd|ovsdb-server'
check_output "no pidfile or control socket is left in $OVS_RUNDIR" "" \
	find "$OVS_RUNDIR" \( -name '*.pid' -o -name '*.ctl' \)
starts=$(grep -c '|INFO|ovs-vswitchd (Open vSwitch)' "$VSWITCHD_LOG" 2>/dev/null)
tap_diag "[$ROAM_DATAPATH] ovs-vswitchd.log: ${starts:-no} starts of ovs-vswitchd, $(grep -c . "$VSWITCHD_LOG" 2>/dev/null) lines"
check "ovs-vswitchd.log is this pass's: it records ovs-vswitchd starting" \
	positive "${starts:-0}"
check "ovs-vswitchd.log has no WARN, ERR or EMER from the pass's start to this stop" \
	no_log_problems "$LOG_ALLOWED"
if [ -s "$LOG_ALLOWED" ]; then
	tap_diag "[$ROAM_DATAPATH] provoked on purpose, and allowed:" \
		"$(grep -E -f "$LOG_ALLOWED" "$VSWITCHD_LOG")"
fi

check_unload
