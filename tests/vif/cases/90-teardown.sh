# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The suite leaves nothing behind, and ovs-vswitchd logged no WARN, ERR or
# EMER line while the hooks worked (tests/lib/ovs.sh no_log_problems), but
# those a case listed on purpose: libvirt's domain stops
# (vif.sh allow_stop_warnings).
#
#   host: no domain, no bridge but $KEEP (deleted last), no QoS row;
#         Open vSwitch stopped

# shellcheck source=../vif.sh
. ./vif.sh

check_output "no domain is defined" "" virsh -q list --all --name
check_output "no bridge is left but $KEEP" "$KEEP" "${VSCTL[@]}" list-br
check "del-br $KEEP" "${VSCTL[@]}" del-br "$KEEP"
check_output "no QoS row is left" "" "${VSCTL[@]}" --bare --columns=_uuid list QoS
check "ovs-vswitchd.log has no WARN, ERR or EMER line (but those listed on purpose)" \
	no_log_problems "$LOG_ALLOWED"
if [ -s "$LOG_ALLOWED" ]; then
	tap_diag "listed on purpose, and allowed:" \
		"$(grep -E -f "$LOG_ALLOWED" "$VSWITCHD_LOG")"
fi
tap_diag "the nested guests' boots:" "$(cat "$BOOT_TIMES")"
check "systemctl stop openvswitch-switch" systemctl stop openvswitch-switch
check "no ovs-vswitchd or ovsdb-server process is left" wait_for 50 ovs_gone
