# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 900
#
# libvirt attaches nested guests to br0, with our qemu hook installed.
#
#   VLAN namespaces ns1-ns3 on trunks p1-p3 (vif.sh) --- br0
#   br0 --- vnet (g1: access VLAN 10; later a second NIC, access 30)
#   br0 --- vnet (g2: native VLAN 20 untagged, trunk 30)
#   br0 --- vnet (g3: libvirt network ovsnet, portgroup "blue", VLAN 30)
#
# Each port's first row already carries its VLANs and libvirt's identity
# (iface-id, attached-mac, vm-id): ovsdb-client monitor transcripts taken
# while the domain starts or the interface is attached.  Each guest is on
# exactly its VLANs: which VLAN namespaces it answers, and the tags of
# its frames on the wire.  Stop and detach remove the ports.  The hook
# refuses a domain whose port record is truncated or names VLAN 4095:
# libvirt refuses the start and nothing is left, no port and no tap.  The
# hook's migrate operation rewrites an interface's VLANs from the record
# (the migration suite migrates; here it is called as libvirt calls it).

# shellcheck source=../vif.sh
. ./vif.sh

case_cleanup() {
	mon_stop port iface
	cap_stop
	dom_gone g1 g2 g3 g4
	virsh -q net-destroy ovsnet
	virsh -q net-undefine ovsnet
	vif_bridge_del
}

check "br0 with the VLAN namespaces" vif_bridge
allow_stop_warnings

# identity DOMAIN N: the first Interface row of DOMAIN's tap carries
# libvirt's iface-id (the XML's interfaceid), attached-mac and vm-id.
identity() {
	local tap xml id

	tap=$(dom_tap "$1") && xml=$(virsh -q dumpxml "$1") || return 1
	id=$(sed -n "s/.*interfaceid='\([^']*\)'.*/\1/p" <<<"$xml")
	[ -n "$id" ] || { echo "no interfaceid in $1's XML"; return 1; }
	first_row iface "$tap" external_ids:iface-id external_ids:attached-mac \
		external_ids:vm-id |
		grep -Fx "external_ids:iface-id=$id external_ids:attached-mac=$(guest_mac "$2") external_ids:vm-id=$(guest_uuid "$2")"
}

# Part 1: an access port.
check "define g1: access VLAN 10" dom_define g1 1 \
	"$(iface_bridge "$(guest_mac 1)" "<vlan><tag id='10'/></vlan>")"
check "start g1, monitored" watched virsh -q start g1
tap1=$(dom_tap g1)
check_output "g1's first Port row: tag 10" "tag=10 trunks= vlan_mode=" \
	first_row port "$tap1" tag trunks vlan_mode
check "g1's first Interface row: libvirt's iface-id, attached-mac and vm-id" \
	identity g1 1

# Part 2's guest starts now, so that the two boot at once: each nested
# guest takes one of the host's two vCPUs.
check "define g2: native VLAN 20 untagged, trunk 30" dom_define g2 2 \
	"$(iface_bridge "$(guest_mac 2)" "<vlan trunk='yes'><tag id='20' nativeMode='untagged'/><tag id='30'/></vlan>")"
g2_start=$SECONDS
check "start g2, monitored" watched virsh -q start g2
tap2=$(dom_tap g2)
check_output "g2's first Port row: native-untagged 20, trunks 20 and 30" \
	"tag=20 trunks=20,30 vlan_mode=native-untagged" \
	first_row port "$tap2" tag trunks vlan_mode
check "g2's first Interface row: libvirt's identity" identity g2 2

cap_start p1 1 eth0 in
cap_ready p1
check "g1's guest boots and answers ns1 (VLAN 10)" booted g1 1 "$(guest_ip 1)"
cap_stop
check_output "only VLAN 10's namespace reaches g1" 1 reachers "$(guest_ip 1)"
check_output "g1's echo replies reach the trunk tagged 10, and only 10" 10 \
	eval "tags p1 '$(guest_ip 1) > $PEER: ICMP echo reply' | tr ' ' '\n' | sort -u"

# Part 2: a trunk with a native VLAN (g2, started above).
check "g2's guest boots and answers ns2 (VLAN 20, untagged in the guest)" \
	booted g2 2 "$(guest_ip 2)" "$g2_start"
check_output "only VLAN 20's namespace reaches g2 (30 is tagged: its guest has no VLAN device)" \
	2 reachers "$(guest_ip 2)"
cap_start g2tap - "$tap2" out
cap_ready g2tap
nsx 3 python3 "$NETKIT" arp eth0 "$(ns_mac 3)" "$PEER" "$(guest_ip 2)" 30
nsx 1 python3 "$NETKIT" arp eth0 "$(ns_mac 1)" "$PEER" "$(guest_ip 2)" 10
cap_stop
check_output "g2's tap got VLAN 30's ARP tagged 30, and nothing from VLAN 10" 30 \
	tags g2tap "who-has $(guest_ip 2)"

# Part 3: attach and detach (no hook runs: libvirt's own transaction).
nic=$(iface_bridge 52:54:00:00:01:14 "<vlan><tag id='30'/></vlan>")
echo "$nic" >"$RUNS/nic.xml"
mon_start port Port name,tag,trunks,vlan_mode
check "attach a second NIC to g1, access VLAN 30" \
	virsh -q attach-device g1 "$RUNS/nic.xml" --live
mon_stop port
tap3=$(dom_tap g1 52:54:00:00:01:14)
check "it has a tap" test -n "$tap3"
check_output "its first Port row: tag 30" "tag=30 trunks= vlan_mode=" \
	first_row port "$tap3" tag trunks vlan_mode
check_output "br0 holds g1's two ports and g2's" \
	"$(printf '%s\n' "$tap1" "$tap2" "$tap3" | sort | paste -sd ' ')" ports
check "detach it (hot-unplug)" virsh -q detach-device g1 "$RUNS/nic.xml" --live
# The unplug completes when the guest acknowledges it (ACPI eject), which
# a loaded nested guest may take well over libvirt's own 5 s wait for;
# libvirt removes the port then.  The guest's pace is not under test.
# nic_gone DOMAIN MAC: DOMAIN's interfaces, as libvirt lists them, have
# none with MAC.
nic_gone() {
	local out

	out=$(virsh -q domiflist "$1") || return 1
	awk -v mac="$2" '$5 == mac { found = 1 } END { exit found }' <<<"$out"
}
check "the guest releases it within 120 s" \
	wait_for 600 nic_gone g1 52:54:00:00:01:14
check "its port leaves br0" wait_for 50 eval "! ovs-vsctl port-to-br $tap3"

# Part 4: a libvirt network on br0 with VLAN portgroups.
cat >"$RUNS/ovsnet.xml" <<'XML'
<network>
  <name>ovsnet</name>
  <forward mode='bridge'/>
  <bridge name='br0'/>
  <virtualport type='openvswitch'/>
  <portgroup name='green' default='yes'><vlan><tag id='10'/></vlan></portgroup>
  <portgroup name='blue'><vlan><tag id='30'/></vlan></portgroup>
  <portgroup name='trunk'><vlan trunk='yes'><tag id='10' nativeMode='untagged'/><tag id='20'/></vlan></portgroup>
</network>
XML
check "define and start network ovsnet: br0, portgroups green (10), blue (30), trunk" \
	eval "virsh -q net-define '$RUNS/ovsnet.xml' >/dev/null && virsh -q net-start ovsnet >/dev/null"
check "define g3 on ovsnet, portgroup blue" dom_define g3 3 \
	"<interface type='network'><mac address='$(guest_mac 3)'/><source network='ovsnet' portgroup='blue'/><model type='virtio'/></interface>"
check "start g3, monitored" watched virsh -q start g3
check_output "g3's first Port row: tag 30, from the portgroup" "tag=30 trunks= vlan_mode=" \
	first_row port "$(dom_tap g3)" tag trunks vlan_mode
check "g3's first Interface row: libvirt's identity" identity g3 3
check "g3's guest boots and answers ns3 (VLAN 30)" booted g3 3 "$(guest_ip 3)"
check_output "only VLAN 30's namespace reaches g3" 3 reachers "$(guest_ip 3)"

# Part 5: stop.
# Each on its own: one that stopped early fails its point, not the others'.
for d in g1 g2 g3; do
	check "destroy $d (it was still running)" dom_destroy "$d"
done
check_output "their ports left br0" "" ports

# Part 6: bad records in <metadata>: libvirt refuses, nothing is left.
good='{"version": 1, "vlan": {"mode": "access", "tag": 10, "trunks": []}, "external_ids": {"team": "blue"}}'
bad_record() {
	local what=$1 json=$2 ere=$3 out

	check "define g4 with a port record that is $what" dom_define g4 4 \
		"$(iface_bridge "$(guest_mac 4)" "<vlan><tag id='10'/></vlan>")" \
		"$(records_xml "$(guest_mac 4)" "$json")"
	out=$(virsh -q start g4 2>&1)
	check_eq "virsh start g4 fails" 1 "$?"
	check "and says why: $ere (roam-port: ...)" grep -E -- "roam-port: .*$ere" <<<"$out"
	check_output "g4 is not running" "shut off" virsh -q domstate g4
	check_output "no port is left on br0" "" ports
	check_output "no tap is left" "" ip -o link show type tun
	dom_gone g4
}
bad_record truncated "${good:0:50}" "not a port record"
bad_record "on VLAN 4095" "${good/\"tag\": 10/\"tag\": 4095}" "4095 is out of range"

# Part 7: the hook's migrate operation, called as libvirt calls it: the
# incoming XML's interface gets the record's VLANs (a trunk of 20 and 30
# whose native VLAN 10 is untagged), the rest is left alone.
rec='{"version": 1, "vlan": {"mode": "native-untagged", "tag": 10, "trunks": [20, 30]}}'
dom_xml g5 5 "$(iface_bridge "$(guest_mac 5)" "<vlan><tag id='10'/></vlan>")" \
	"$(records_xml "$(guest_mac 5)" "$rec")" >"$RUNS/g5.xml"
check "the hook's migrate begin filters g5's XML" \
	eval "'$QEMU_HOOK' g5 migrate begin - <'$RUNS/g5.xml' >'$RUNS/g5.out'"
check_output "the output's <vlan> is the record's" \
	"<vlan trunk=\"yes\"><tag id=\"10\" nativeMode=\"untagged\"/><tag id=\"20\"/><tag id=\"30\"/></vlan>" \
	grep -o '<vlan.*</vlan>' "$RUNS/g5.out"
check "libvirt would read it: virsh define takes it" \
	eval "virsh -q define '$RUNS/g5.out' >/dev/null && virsh -q undefine g5 >/dev/null"
dom_xml g5 5 "$(iface_bridge "$(guest_mac 5)")" >"$RUNS/g5.plain"
check_output "a domain without records: migrate begin prints nothing (libvirt keeps its XML)" "" \
	eval "'$QEMU_HOOK' g5 migrate begin - <'$RUNS/g5.plain'"
