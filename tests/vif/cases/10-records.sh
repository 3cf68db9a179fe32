# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# roam-port: a port's whole configuration as one record, captured from
# OVSDB and applied in one transaction.
#
#   VLAN namespaces ns1-ns3 on trunks p1-p3 (vif.sh) --- br0 --- vrec0 (tap)
#
# A port made by `roam-port add` carries its VLANs and identity in its
# first rows (ovsdb-client monitor transcripts; the control, a port made
# in two transactions, shows its untagged first row).  Settings made outside
# with ovs-vsctl (VLANs, external ids on Port and Interface, policing,
# QoS, ofport_request) are captured whole; the port removed and applied
# again from the record comes back with all of them in its first rows,
# and captures the same.  A QoS row roam-port made is replaced, never
# leaked.  Bad records are refused with one line and change nothing.

# shellcheck source=../vif.sh
. ./vif.sh

case_cleanup() {
	mon_stop port iface
	# The port before its device: ovs-vswitchd warns of a port whose
	# device went away.
	"${VSCTL[@]}" --if-exists del-port vrec0 -- --if-exists del-port vrec1
	ip link del vrec0
	vif_bridge_del
	"${VSCTL[@]}" -- --all destroy QoS
}

check "br0 with the VLAN namespaces" vif_bridge
check "a tap vrec0, as QEMU has it" ip tuntap add dev vrec0 mode tap

# Part 1: add, in one transaction.
mon_start port Port name,tag,trunks,vlan_mode
mon_start iface Interface name,external_ids,ingress_policing_rate,ofport_request
check "roam-port add: vrec0 on br0.10:20:30 with iface-id and attached-mac" \
	"$ROAM_PORT" add --external-id iface-id=rec-0 \
	--external-id attached-mac=52:54:00:20:00:00 br0.10:20:30 vrec0
mon_stop port iface
check_output "vrec0's first Port row: native VLAN 10 untagged, trunks 20 and 30" \
	"tag=10 trunks=20,30 vlan_mode=native-untagged" \
	first_row port vrec0 tag trunks vlan_mode
check_output "vrec0's first Interface row: its iface-id and attached-mac" \
	"external_ids:iface-id=rec-0 external_ids:attached-mac=52:54:00:20:00:00" \
	first_row iface vrec0 external_ids:iface-id external_ids:attached-mac

# The control: the same port made in two transactions, add-port then its
# VLANs, as a hook that is not atomic makes it; the transcript shows it.
check "control: vrec0 removed" "$ROAM_PORT" remove vrec0
mon_start port Port name,tag,trunks,vlan_mode
two_steps() {
	"${VSCTL[@]}" add-port br0 vrec0 &&
		"${VSCTL[@]}" set Port vrec0 tag=10 trunks=20,30 vlan_mode=native-untagged
}
check "control: add-port vrec0, then set its VLANs in a second transaction" two_steps
mon_stop port
check_output "control: the transcript shows its first row untagged, then tagged" \
	"$(printf '%s\n' "tag= trunks= vlan_mode=" "tag=10 trunks=20,30 vlan_mode=native-untagged")" \
	first_row port vrec0 all tag trunks vlan_mode
check "vrec0 made again by roam-port add" eval \
	"'$ROAM_PORT' remove vrec0 && '$ROAM_PORT' add --external-id iface-id=rec-0 br0.10:20:30 vrec0"

# Part 2: settings made outside, captured whole.
outside() {
	"${VSCTL[@]}" set Port vrec0 tag=30 trunks=20 vlan_mode=native-tagged \
		external_ids:owner=ops \
		-- set Interface vrec0 ingress_policing_rate=8000 \
		ingress_policing_burst=800 ofport_request=41 external_ids:team=blue \
		-- set Port vrec0 qos=@q \
		-- --id=@q create QoS type=linux-htb other_config:max-rate=1000000
}
check "ovs-vsctl sets VLANs, policing, ofport_request, external ids and QoS" outside
check "roam-port capture vrec0" capture_to "$RUNS/rec.json" vrec0
fields=(vlan port_external_ids.owner external_ids.team external_ids.iface-id
	ingress_policing_rate ingress_policing_burst ofport_request qos bridge)
want='vlan={"mode":"native-tagged","tag":30,"trunks":[20]} port_external_ids.owner="ops" external_ids.team="blue" external_ids.iface-id="rec-0" ingress_policing_rate=8000 ingress_policing_burst=800 ofport_request=41 qos={"other_config":{"max-rate":"1000000"},"type":"linux-htb"} bridge="br0"'
check_output "the record holds every one of them" "$want" \
	rec_show "$RUNS/rec.json" "${fields[@]}"

# Part 3: removed, and applied again from the record.
check "roam-port remove vrec0" "$ROAM_PORT" remove vrec0
check_output "vrec0 is gone from br0" "" ports
mon_start port Port name,tag,trunks,vlan_mode,external_ids
mon_start iface Interface name,external_ids,ingress_policing_rate,ingress_policing_burst,ofport_request
check "roam-port apply br0 vrec0 from the record" \
	"$ROAM_PORT" apply br0 vrec0 "$RUNS/rec.json"
mon_stop port iface
check_output "the new first Port row has the VLANs and the port's external id" \
	"tag=30 trunks=20 vlan_mode=native-tagged external_ids:owner=ops" \
	first_row port vrec0 tag trunks vlan_mode external_ids:owner
check_output "the new first Interface row has identity, policing and ofport_request" \
	"external_ids:team=blue external_ids:iface-id=rec-0 ingress_policing_rate=8000 ingress_policing_burst=800 ofport_request=41" \
	first_row iface vrec0 external_ids:team external_ids:iface-id \
	ingress_policing_rate ingress_policing_burst ofport_request
check "capture again" capture_to "$RUNS/rec2.json" vrec0
check_output "it captures as it was captured before" "$want" \
	rec_show "$RUNS/rec2.json" "${fields[@]}"
check_output "ovs-vswitchd gave it OpenFlow port 41" 41 \
	"${VSCTL[@]}" get Interface vrec0 ofport
# owned: how many QoS rows roam-port made for vrec0.
owned() {
	local out

	out=$("${VSCTL[@]}" --bare --columns=_uuid find QoS external_ids:roam-port=vrec0) ||
		return 1
	grep -c . <<<"$out" || true
}
check "apply once more" "$ROAM_PORT" apply br0 vrec0 "$RUNS/rec.json"
check_output "one QoS row is roam-port's for vrec0: the first was replaced" 1 owned
check "roam-port remove vrec0, with its QoS" "$ROAM_PORT" remove vrec0
check_output "no QoS row is roam-port's for vrec0 any more" 0 owned

# Part 4: bad records change nothing.
check "vrec0 back from the record" "$ROAM_PORT" apply br0 vrec0 "$RUNS/rec.json"
check "its capture, to compare" capture_to "$RUNS/before.json" vrec0
bad() {
	rec_edit "$RUNS/rec.json" "$RUNS/bad.json" "$1"
}
declare -A bads=(
	['truncated']='open(sys.argv[2], "w").write(json.dumps(r)[:60]); sys.exit(0)'
	['VLAN 4095']='r["vlan"]["tag"] = 4095'
	['VLAN 0']='r["vlan"]["tag"] = 0'
	['trunk 4096']='r["vlan"]["trunks"] = [20, 4096]'
	['a trunk twice']='r["vlan"]["trunks"] = [20, 20]'
	['a tag with trunks but no vlan mode']='r["vlan"]["mode"] = None'
	['an unknown field']='r["colour"] = "red"'
	['version 2']='r["version"] = 2'
	['ofport_request 0']='r["ofport_request"] = 0'
	['an external id that is not a string']='r["external_ids"]["n"] = 5'
)
declare -A why=(
	['truncated']='not a port record' ['VLAN 4095']='4095 is out of range'
	['VLAN 0']='tag 0 is out of range' ['trunk 4096']='4096 is out of range'
	['a trunk twice']='twice' ['a tag with trunks but no vlan mode']='needs vlan mode'
	['an unknown field']='unknown fields: colour' ['version 2']='version 2'
	['ofport_request 0']='ofport_request' ['an external id that is not a string']='external_ids'
)
for b in "${!bads[@]}"; do
	if ! check "make a record: $b" bad "${bads[$b]}"; then
		continue
	fi
	check_refused "apply to vrec0 refuses a record: $b" "${why[$b]}" \
		"$ROAM_PORT" apply br0 vrec0 "$RUNS/bad.json"
	check_refused "apply to a new vrec1 refuses it too" "${why[$b]}" \
		"$ROAM_PORT" apply br0 vrec1 "$RUNS/bad.json"
done
check "capture after the refusals" capture_to "$RUNS/after.json" vrec0
check_output "vrec0 is as it was before them" \
	"$(rec_show "$RUNS/before.json" "${fields[@]}")" \
	rec_show "$RUNS/after.json" "${fields[@]}"
check_output "and no vrec1 was left behind: br0 holds vrec0 alone" vrec0 ports
check_refused "capture of a port that does not exist says so" "no such port" \
	"$ROAM_PORT" capture vrec1
check_refused "apply to a bridge that does not exist says so" "no bridge named br9" \
	"$ROAM_PORT" apply br9 vrec1 "$RUNS/rec.json"
check_output "and leaves no port" vrec0 ports
