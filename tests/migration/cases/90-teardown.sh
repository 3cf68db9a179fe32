# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Each host: no domain left, br0 and $KEEP deleted, no QoS row, and no
# WARN, ERR or EMER line in ovs-vswitchd.log through the suite but the
# ones a case listed on purpose (libvirt's domain stops: vif.sh
# allow_stop_warnings); Open vSwitch stops and leaves no daemon.
# roam: limit 300

# shellcheck source=../mig.sh
. ./mig.sh

check_output "no domain is left" "" virsh -q list --all --name
# the bridge before the namespaces: a port whose device vanished first
# makes ovs-vswitchd warn
check "del-br br0" "${VSCTL[@]}" del-br br0
ns_del 1 2 4
check_output "the namespaces are gone" "" ip netns list
check_output "no bridge is left but $KEEP" "$KEEP" "${VSCTL[@]}" list-br
check "del-br $KEEP" "${VSCTL[@]}" del-br "$KEEP"
check_output "no QoS row is left" "" "${VSCTL[@]}" --bare --columns=_uuid list QoS
check "ovs-vswitchd.log has no WARN, ERR or EMER line (but those listed on purpose)" \
	no_log_problems "$LOG_ALLOWED"
check "systemctl stop openvswitch-switch" systemctl stop openvswitch-switch
check "no ovs-vswitchd or ovsdb-server process is left" wait_for 50 ovs_gone
