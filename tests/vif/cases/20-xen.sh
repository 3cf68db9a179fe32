# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 400
#
# The Xen-style hook, called as Xen's hotplug scripts are called, with
# the xenstore test double in place of xenstored (Xen cannot run here).
#
#   VLAN namespaces ns1-ns3 on trunks p1-p3 (vif.sh) --- br0
#   br0 --- vif3.0 (tap; a guest 198.51.100.23 behind it, as netback's)
#   br0 --- tap3.1 (type_if=tap, a QEMU tap)
#
# For each bridge spec, `online` adds the port with its VLANs and identity
# in one transaction (the monitors' first rows), then reports connected;
# the guest is on exactly the VLANs the spec names (pings, and tags in the
# captures); `offline` removes the port.  br0.10:20:30 is a native VLAN 10
# with trunks 20 and 30, and works: VLAN 10 reaches the guest untagged,
# VLANs 20 and 30 tagged.  Every bad input fails with one line, writes
# hotplug-status error and hotplug-error, and leaves no port.

# shellcheck source=../vif.sh
. ./vif.sh

case_cleanup() {
	mon_stop port iface
	cap_stop
	systemctl start openvswitch-switch
	tap_del vif3.0
	ip link del tap3.1
	vif_bridge_del
}

GUEST=198.51.100.23
MAC=00:16:3e:00:00:03
XP=backend/vif/3/0
check "br0 with the VLAN namespaces" vif_bridge
tap_add vif3.0 "$MAC" "$GUEST"
check_eq "a guest behind vif3.0, as behind netback" 0 "$?"
ip link set vif3.0 down

# xen_online SPEC: the hook's online for vif3.0 on SPEC, from xenstore.
xen_online() {
	xs_reset 3 0 "$1" "$MAC"
	vif=vif3.0 XENBUS_PATH=$XP "$XEN_HOOK" online
}

xen_offline() {
	vif=vif3.0 XENBUS_PATH=$XP "$XEN_HOOK" offline
}

# is_up DEV: DEV is administratively up.
is_up() {
	[[ $(ip -o link show dev "$1") =~ [\<,]UP[,\>] ]]
}

# spec SPEC TAG TRUNKS MODE REACHERS: one bridge spec from online to
# offline; REACHERS as reachers (vif.sh) prints them, or - not to ping.
spec() {
	local spec=$1 first="tag=$2 trunks=$3 vlan_mode=$4"

	mon_start port Port name,tag,trunks,vlan_mode
	mon_start iface Interface name,external_ids
	check "online, bridge $spec (from $XP/bridge)" xen_online "$spec"
	mon_stop port iface
	check_output "$spec: vif3.0's first Port row: $first" "$first" \
		first_row port vif3.0 tag trunks vlan_mode
	check_output "$spec: its first Interface row: iface-id, attached-mac, vm-uuid" \
		"external_ids:iface-id=xen-6a3c2f7e-0000-4000-8000-000000000003-0 external_ids:attached-mac=$MAC external_ids:vm-uuid=6a3c2f7e-0000-4000-8000-000000000003 external_ids:xen-vm-name=guest3" \
		first_row iface vif3.0 external_ids:iface-id external_ids:attached-mac \
		external_ids:vm-uuid external_ids:xen-vm-name
	check_output "$spec: hotplug-status connected" connected xs_get "$XP/hotplug-status"
	check "$spec: vif3.0 is up" is_up vif3.0
	[ "$5" = - ] ||
		check_output "$spec: the VLAN namespaces that reach the guest" "$5" \
			reachers "$GUEST"
	check "offline" xen_offline
	check_output "$spec: offline removed vif3.0 from br0" "" ports
}

spec br0 '' '' '' -
spec br0.10 10 '' access 1
spec br0:20:30 '' 20,30 trunk ''
spec br0.10:20:30 10 20,30 native-untagged 1

# The native VLAN with trunks, on the wire: a frame from each VLAN
# namespace reaches vif3.0 (untagged for VLAN 10, tagged 20 and 30), and
# the guest's answer to VLAN 10 leaves tagged 10 on the trunk p1.
check "online br0.10:20:30 again" xen_online br0.10:20:30
cap_start tap - vif3.0 out
cap_start p1 1 eth0 in
cap_ready tap p1
nsx 1 ip neigh flush dev eth0.10
check "ns1 (VLAN 10) pings the guest, after an ARP request" reach 1 "$GUEST" 3
for n in 2 3; do
	nsx "$n" python3 "$NETKIT" arp eth0 "$(ns_mac "$n")" "$PEER" "$GUEST" "${n}0" ||
		tap_diag "arp from ns$n failed"
done
cap_stop
check_output "the guest got VLAN 10 untagged, 20 and 30 tagged" "- 20 30" \
	eval "tags tap 'who-has $GUEST' | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ \$//'"
check_output "its echo reply left tagged 10 on the trunk" 10 \
	eval "tags p1 '$GUEST > $PEER: ICMP echo reply' | tr ' ' '\n' | sort -u"
check "offline" xen_offline

# type_if=tap: add and remove, INTERFACE for the device.
check "a QEMU tap tap3.1" ip tuntap add dev tap3.1 mode tap
xs_reset 3 1 br0.20 00:16:3e:00:01:03
check "type_if=tap add, INTERFACE=tap3.1, bridge=br0.20 given as an argument" \
	env INTERFACE=tap3.1 XENBUS_PATH=backend/vif/3/1 type_if=tap \
	"$XEN_HOOK" add bridge=br0.20
check_output "tap3.1 is an access port on VLAN 20" "20 access []" port_vlan tap3.1
check_output "add on a tap writes no hotplug-status (as vif-openvswitch)" "(none)" \
	xs_get backend/vif/3/1/hotplug-status
check "type_if=tap remove" env INTERFACE=tap3.1 XENBUS_PATH=backend/vif/3/1 \
	type_if=tap "$XEN_HOOK" remove
check_output "remove took tap3.1 off br0" "" ports

# Bad input: one line, hotplug-status error with a hotplug-error, no port.
# bad_online DESC ERE [ENV...] -- [ARGS...]: online (from a fresh
# xenstore) with ENV, refused as ERE says.
bad_online() {
	local desc=$1 ere=$2 envs=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	xs_reset 3 0 br0.10 "$MAC"
	check_refused "refused: $desc" "$ere" \
		env -u vif -u XENBUS_PATH "${envs[@]}" "$XEN_HOOK" "$@"
	check_output "$desc: no port is left on br0" "" ports
}
# xs_matches PATH ERE: the double's PATH holds a value that matches ERE.
xs_matches() {
	local v

	v=$(xs_get "$1")
	grep -E -- "$2" <<<"$v"
}

# bad_spec SPEC ERE: the bridge spec SPEC is refused, with hotplug-status
# error and a hotplug-error.
bad_spec() {
	bad_online "bridge spec '$1'" "$2" vif=vif3.0 "XENBUS_PATH=$XP" bridge="$1" -- online
	check_output "bridge spec '$1': hotplug-status error" error xs_get "$XP/hotplug-status"
	check "bridge spec '$1': hotplug-error says why" \
		xs_matches "$XP/hotplug-error" "$2"
}
bad_spec br9 'no bridge named br9'
bad_spec br0.0 'tag 0 is out of range'
bad_spec br0.4095 'tag 4095 is out of range'
bad_spec br0.4096 'tag 4096 is out of range'
bad_spec br0.ten "tag 'ten' is not a VLAN id"
bad_spec br0. "tag '' is not a VLAN id"
bad_spec br0:20: "trunk '' is not a VLAN id"
bad_spec br0::20 "trunk '' is not a VLAN id"
bad_spec br0:20:30:20 'name a VLAN twice'
bad_spec .10 "'' is not a bridge name"
bad_spec 'br0;reboot.10' "is not a bridge name"
bad_online "a vif named with shell metacharacters" 'is not valid' \
	'vif=vif3.0;id' "XENBUS_PATH=$XP" -- online
bad_online "a vif name of 16 characters (IFNAMSIZ is 16 with the NUL)" 'is not valid' \
	vif=vif3.0abcdefghij "XENBUS_PATH=$XP" -- online
bad_online "no vif" 'vif is not set' "XENBUS_PATH=$XP" -- online
bad_online "no INTERFACE for type_if=tap" 'INTERFACE is not set' \
	type_if=tap "XENBUS_PATH=$XP" -- add
bad_online "no XENBUS_PATH" 'XENBUS_PATH is not set' vif=vif3.0 -- online
bad_online "an action that is not one" "action 'plug'" \
	vif=vif3.0 "XENBUS_PATH=$XP" -- plug
bad_online "a vif that does not exist" "no interface 'vif9.0'" \
	vif=vif9.0 "XENBUS_PATH=$XP" -- online
check_output "a missing vif still writes hotplug-status error" error \
	xs_get "$XP/hotplug-status"
rm -f "$ROAM_XENSTORE/$XP/bridge/.value"
check_refused "refused: no bridge in the environment or in xenstore" \
	"no bridge" env vif=vif3.0 "XENBUS_PATH=$XP" "$XEN_HOOK" online
check "ovsdb-server stops (ovs-vswitchd with it)" systemctl stop ovsdb-server
xs_reset 3 0 br0.10 "$MAC"
check_refused "refused: ovsdb-server is down" 'database connection failed' \
	env vif=vif3.0 "XENBUS_PATH=$XP" "$XEN_HOOK" online
check_output "ovsdb-server down: hotplug-status error" error xs_get "$XP/hotplug-status"
check "openvswitch-switch starts again" systemctl start openvswitch-switch
check_output "and br0 holds no port from the refused calls" "" ports
