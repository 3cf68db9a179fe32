# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 600
#
# Settings made on a running guest's port outside libvirt survive a
# restart and a restore, once `roam-port save` has recorded them.
#
#   VLAN namespaces ns1-ns3 on trunks p1-p3 (vif.sh) --- br0 --- vnet (g1)
#
# g1 starts on VLAN 10.  ovs-vsctl moves its port to VLAN 30 and gives it
# a policing rate, an external id and an OpenFlow port number; roam-port
# save records them in g1's <metadata> and its definition.  After a
# restart the new port's first row is on VLAN 30 (libvirt made it from
# the definition's <vlan>), and the hook's started operation, before the
# guest's CPUs run, adds the rest in the transaction right after; the
# guest answers on VLAN 30 alone.  Then the port moves to VLAN 20, is
# saved again, and a save/restore of the domain brings it back on VLAN 20
# (the hook's restore operation rewrote the saved XML's <vlan>).

# shellcheck source=../vif.sh
. ./vif.sh

case_cleanup() {
	mon_stop port iface
	dom_gone g1
	rm -f "$RUNS/g1.sav"
	vif_bridge_del
}

# ofport_is TAP N: TAP's OpenFlow port number is N.
ofport_is() {
	[ "$(ovs-vsctl get Interface "$1" ofport)" = "$2" ]
}

check "br0 with the VLAN namespaces" vif_bridge
allow_stop_warnings
check "define g1: access VLAN 10" dom_define g1 1 \
	"$(iface_bridge "$(guest_mac 1)" "<vlan><tag id='10'/></vlan>")"
check "start g1" virsh -q start g1
tap=$(dom_tap g1)
check "g1's guest answers ns1 (VLAN 10)" booted g1 1 "$(guest_ip 1)"

outside() {
	"${VSCTL[@]}" set Port "$tap" tag=30 \
		-- set Interface "$tap" ingress_policing_rate=5000 \
		external_ids:team=blue ofport_request=33
}
check "ovs-vsctl: VLAN 30, policing 5000 kbit/s, team=blue, ofport_request 33" outside
check "g1's guest now answers ns3 (VLAN 30)" reach 3 "$(guest_ip 1)" 5
check_output "roam-port save g1" "g1: 1 port record(s) saved" "$ROAM_PORT" save g1
check_output "g1's definition has <vlan> 30 now" "<tag id='30'/>" \
	eval "virsh -q dumpxml --inactive g1 | grep -o \"<tag id='[0-9]*'/>\""
check "and the record, in its <metadata>" \
	eval "virsh -q metadata g1 urn:roamswitch:port-records:1 --config | grep -F '\"team\": \"blue\"'"

# Restart.
check "destroy g1" dom_destroy g1
check "start g1 again, monitored" watched virsh -q start g1
tap=$(dom_tap g1)
check_output "the new port's first Port row: VLAN 30" "tag=30 trunks= vlan_mode=" \
	first_row port "$tap" tag trunks vlan_mode
check_output "its Interface rows: libvirt's first, then the started hook's whole rest" \
	"$(printf '%s\n' \
		"external_ids:team= external_ids:attached-mac=$(guest_mac 1) ingress_policing_rate=0 ofport_request=" \
		"external_ids:team=blue external_ids:attached-mac=$(guest_mac 1) ingress_policing_rate=5000 ofport_request=33")" \
	eval "first_row iface '$tap' all external_ids:team external_ids:attached-mac ingress_policing_rate ofport_request | sed -n 1,2p"
check "ovs-vswitchd gave it OpenFlow port 33" wait_for 50 ofport_is "$tap" 33
check "g1's guest answers ns3 (VLAN 30)" booted g1 3 "$(guest_ip 1)"
check_fails "and not ns1 (VLAN 10)" reach 1 "$(guest_ip 1)" 2

# Restore.
check "ovs-vsctl: VLAN 20, team=green" \
	"${VSCTL[@]}" set Port "$tap" tag=20 -- set Interface "$tap" external_ids:team=green
check_output "roam-port save g1" "g1: 1 port record(s) saved" "$ROAM_PORT" save g1
check "virsh save g1" virsh -q save g1 "$RUNS/g1.sav"
check_output "the saved image's XML still says VLAN 30 (libvirt's live XML)" "<tag id='30'/>" \
	eval "virsh -q save-image-dumpxml '$RUNS/g1.sav' | grep -o \"<tag id='[0-9]*'/>\""
check "virsh restore, monitored" watched virsh -q restore "$RUNS/g1.sav"
tap=$(dom_tap g1)
check_output "the restored port's first Port row: VLAN 20" "tag=20 trunks= vlan_mode=" \
	first_row port "$tap" tag trunks vlan_mode
check_output "and, from the started hook, team=green, policing and ofport_request" \
	"external_ids:team=green ingress_policing_rate=5000 ofport_request=33" \
	eval "first_row iface '$tap' all external_ids:team ingress_policing_rate ofport_request | sed -n 2p"
check "g1's guest answers ns2 (VLAN 20) at once" reach 2 "$(guest_ip 1)" 10
check "destroy g1" dom_destroy g1
check_output "its port left br0" "" ports
