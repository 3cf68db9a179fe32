# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 300
#
# A VLAN bridge under ovs-vswitchd's NORMAL action: access ports on veths
# and on taps (made as libvirt makes them, a guest behind each), a trunk,
# and trunks whose native VLAN leaves untagged or tagged.
#
#                       br0 (NORMAL)                  what the port is
#   ns1 eth0 ------ p1     tag=10                     198.51.100.1
#   ns2 eth0 ------ p2     tag=20                     203.0.113.2
#   guest ------ tap10     tag=10 (libvirt's way)     198.51.100.10
#   guest ------ tap20     tag=20 (libvirt's way)     203.0.113.20
#   ns3 eth0 ------ p3     trunks=10,20               eth0.10 198.51.100.3
#                                                     eth0.20 203.0.113.3
#   ns4 eth0 ------ p4     tag=10 trunks=10,20        eth0    198.51.100.4
#                          native-untagged            eth0.20 203.0.113.4
#   ns5 eth0 ------ p5     tag=20 trunks=10,20        eth0.20 203.0.113.5
#                          native-tagged              eth0.10 198.51.100.5
#                          (untagged frames in join VLAN 20; all leave tagged)
#
# VLAN 10 is 198.51.100.0/24, VLAN 20 is 203.0.113.0/24.  Every port's
# deliveries are captured (tcpdump on the namespace's end of the veth,
# frames in; on the tap, frames out to the guest) and read as the 802.1Q
# tag of each frame ("-": untagged).  Broadcast ARP requests with unique
# targets, sent as raw frames with any tag, are the markers: each must
# reach every other port of its VLAN exactly once, tagged as that port
# delivers the VLAN, and no port outside it; frames with a tag an access
# port does not carry, with no tag on a trunk without native VLAN, or with
# a VLAN no port trunks, reach nobody.  Unicast after learning reaches its
# destination only; unknown unicast floods its VLAN only, also to a MAC
# the bridge knows in the other VLAN.  Every capture holds frames (the
# markers), so no count of zero comes from a capture that saw nothing.

# shellcheck source=../topo.sh
. ./topo.sh

case_cleanup() {
	cap_stop
	tap_del tap10 tap20
	"${VSCTL[@]}" --if-exists del-br br0
	ns_del 1 2 3 4 5
	rm -f "$CAPS"/*
}

ALL=(c1 t10 c2 t20 c3 c4 c5)

# egress CAPTURE VLAN: the tag with which that port delivers the VLAN's
# frames ("-": untagged), or "x" when the port is not in the VLAN.  This
# is the configuration above, written as the claim under test.
egress() {
	case "$1:$2" in
	c1:10 | t10:10 | c2:20 | t20:20 | c4:10) echo - ;;
	c3:10 | c3:20 | c4:20 | c5:10 | c5:20) echo "$2" ;;
	*) echo x ;;
	esac
}

# flooded FROM VLAN [COUNT]: what seen prints for a frame that FROM's port
# sends into VLAN and the bridge floods: COUNT copies (default 1) at every
# other port of the VLAN, tagged as it delivers the VLAN.
flooded() {
	local from=$1 vlan=$2 n=${3:-1} p t out=() i

	for p in "${ALL[@]}"; do
		t=$(egress "$p" "$vlan")
		if [ "$p" = "$from" ] || [ "$t" = x ]; then
			out+=("$p=")
		else
			local many=$t
			for ((i = 1; i < n; i++)); do many+=",$t"; done
			out+=("$p=$many")
		fi
	done
	echo "${out[*]}"
}

# only AT TAGS: what seen prints when only capture AT holds the frames.
only() {
	local p out=()

	for p in "${ALL[@]}"; do
		if [ "$p" = "$1" ]; then out+=("$p=$2"); else out+=("$p="); fi
	done
	echo "${out[*]}"
}

# tag_set NAME: the distinct tags of every frame NAME captured.
tag_set() {
	local out

	out=$(frames "$1") || return 1
	awk '{ print $2 }' <<<"$out" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# delivered NAME TAGS: the distinct tags NAME captured are TAGS; if not,
# the frames with the other tags are shown.
delivered() {
	local got out

	got=$(tag_set "$1") || return 1
	[ "$got" = "$2" ] && return 0
	echo "tags: $got, not $2; the frames with the others:"
	out=$(frames "$1") || return 1
	TAGS=" $2 " awk '{ if (index(ENVIRON["TAGS"], " " $2 " ") == 0) print }' <<<"$out" |
		sed -n 1,10p
	return 1
}

# wrong_net NAME TAG TEXT: the frames of NAME with tag TAG whose line holds
# TEXT (the other VLAN's addresses), as lines; fails if NAME did not start.
wrong_net() {
	local out

	out=$(frames "$1") || return 1
	TAG=$2 TEXT=$3 awk '$2 == ENVIRON["TAG"] && index($0, ENVIRON["TEXT"])' <<<"$out"
}

ovs_up
for n in 1 2 3 4 5; do
	ns_plain "$n"
done
ns_addr 1 eth0 198.51.100.1
ns_addr 2 eth0 203.0.113.2
ns_vlan 3 10 198.51.100.3
ns_vlan 3 20 203.0.113.3
ns_addr 4 eth0 198.51.100.4
ns_vlan 4 20 203.0.113.4
ns_vlan 5 20 203.0.113.5
ns_vlan 5 10 198.51.100.5
tap_ports() {
	libvirt_port br0 tap10 52:54:00:00:00:0a tag=10 &&
		libvirt_port br0 tap20 52:54:00:00:00:14 tag=20
}
tap_add tap10 52:54:00:00:00:0a 198.51.100.10
rc10=$?
tap_add tap20 52:54:00:00:00:14 203.0.113.20
check_eq "guests behind taps tap10 and tap20 (ip tuntap, vnet_hdr)" "0 0" \
	"$rc10 $?"

check "br0 with access ports p1 tag=10, p2 tag=20, trunk p3 trunks=10,20" \
	"${VSCTL[@]}" add-br br0 -- add-port br0 p1 tag=10 \
	-- add-port br0 p2 tag=20 -- add-port br0 p3 trunks=10,20
check "p4: tag=10 trunks=10,20 vlan_mode=native-untagged; p5: tag=20 native-tagged" \
	"${VSCTL[@]}" add-port br0 p4 tag=10 trunks=10,20 \
	vlan_mode=native-untagged -- add-port br0 p5 tag=20 trunks=10,20 \
	vlan_mode=native-tagged
check "tap10 (tag=10) and tap20 (tag=20) added the way libvirt adds them" \
	tap_ports
check_output "the datapath has br0's seven ports" \
	"$(printf '%s\n' br0 ovs-system p1 p2 p3 p4 p5 tap10 tap20)" \
	dp_names ovs-system

for n in 1 2 3 4 5; do
	cap_start "c$n" "$n" eth0 in
done
cap_start t10 - tap10 out
cap_start t20 - tap20 out
check "tcpdump listens on every port (5 veths in, 2 taps out)" \
	cap_ready "${ALL[@]}"
tap_diag "bridge and captures ready after ${SECONDS}s"

# The markers: raw broadcast ARP requests, from nsN's eth0 with nsN's MAC
# (netkit.py arps NETNS,IFACE,MAC,SENDER-IP,TARGET[,VID]), and from the
# guests.
marker() {
	local n=$1
	shift
	local IFS=,
	echo "ns$n,eth0,$(ns_mac "$n"),$*"
}
markers=(
	"$(marker 1 198.51.100.1 198.51.100.201)"
	"$(marker 2 203.0.113.2 203.0.113.202)"
	"$(marker 3 198.51.100.3 198.51.100.205 10)"
	"$(marker 3 203.0.113.3 203.0.113.206 20)"
	"$(marker 4 198.51.100.4 198.51.100.207)"
	"$(marker 4 203.0.113.4 203.0.113.208 20)"
	"$(marker 5 203.0.113.5 203.0.113.209)"
	"$(marker 5 198.51.100.5 198.51.100.210 10)"
	# Frames that no port may deliver.
	"$(marker 1 203.0.113.1 203.0.113.211 20)"
	"$(marker 3 198.51.100.33 198.51.100.212)"
	"$(marker 3 198.51.100.34 198.51.100.213 30)"
)
check "the ${#markers[@]} raw marker frames go out" \
	python3 "$NETKIT" arps "${markers[@]}"
guest_markers() {
	tap_cmd tap10 "arp 198.51.100.203" && tap_cmd tap20 "arp 203.0.113.204"
}
check "and the guests' two" guest_markers
sleep 1

tap_diag "markers sent after ${SECONDS}s"
# Learned unicast: pings between ports of every kind, at once (no two
# share a source or a destination).
pings=(
	"1 198.51.100.10 p1 (access 10) -> guest on tap10"
	"4 198.51.100.5 p4 untagged (native 10) -> p5 eth0.10 (10 tagged on a native-tagged port)"
	"3 203.0.113.20 p3 eth0.20 (trunk) -> guest on tap20"
	"5 203.0.113.2 p5 eth0.20 (its native VLAN, tagged) -> p2 (access 20)"
	"4 203.0.113.3 p4 eth0.20 (tagged on a native-untagged port) -> p3 eth0.20"
	"3 198.51.100.1 p3 eth0.10 (trunk) -> p1"
)
bg=()
for p in "${pings[@]}"; do
	read -r n ip _ <<<"$p"
	nsx "$n" "${PING[@]}" -c 3 "$ip" >"$RUNS/ping.$ip" 2>&1 &
	bg+=($!)
done
for i in "${!pings[@]}"; do
	wait "${bg[i]}"
	rc=$?
	read -r _ ip what <<<"${pings[i]}"
	check_eq "ping $what" 0 "$rc"
	[ "$rc" -eq 0 ] || tap_diag "$(cat "$RUNS/ping.$ip")"
done
bg=()

# Unknown unicast: a MAC nobody has, in each VLAN, and from VLAN 10 the MAC
# of ns2, which the bridge knows, but in VLAN 20 only.
nsx 1 ip neigh replace 198.51.100.99 lladdr 02:00:00:00:00:99 dev eth0 nud permanent
nsx 1 ip neigh replace 198.51.100.98 lladdr "$(ns_mac 2)" dev eth0 nud permanent
nsx 2 ip neigh replace 203.0.113.99 lladdr 02:00:00:00:00:99 dev eth0 nud permanent
nsx 1 ping -n -q -c 1 -W 1 198.51.100.99 >/dev/null & bg+=($!)
nsx 1 ping -n -q -c 1 -W 1 198.51.100.98 >/dev/null & bg+=($!)
nsx 2 ping -n -q -c 1 -W 1 203.0.113.99 >/dev/null & bg+=($!)
wait "${bg[@]}"
tap_diag "pings done after ${SECONDS}s"
fdb=$(ovs-appctl fdb/show br0 2>&1)
flows=$(dp_flows 2>&1)
p3=$(ovs-vsctl get Interface p3 ofport 2>&1)
cap_stop

for m in "1 10 198.51.100.201" "2 20 203.0.113.202" "t10 10 198.51.100.203" \
	"t20 20 203.0.113.204" "3 10 198.51.100.205" "3 20 203.0.113.206" \
	"4 10 198.51.100.207" "4 20 203.0.113.208" "5 20 203.0.113.209" \
	"5 10 198.51.100.210"; do
	read -r from vlan target <<<"$m"
	case "$from" in t*) ;; *) from=c$from ;; esac
	check_output "$from's broadcast in VLAN $vlan reaches each other VLAN $vlan port once, tagged as it delivers $vlan, and no other port" \
		"$(flooded "$from" "$vlan")" seen "who-has $target " "${ALL[@]}"
done
check_output "a frame tagged 20 from access port p1 (tag=10) reaches nobody" \
	"$(only none)" seen "who-has 203.0.113.211 " "${ALL[@]}"
check_output "an untagged frame from trunk p3 (no native VLAN) reaches nobody" \
	"$(only none)" seen "who-has 198.51.100.212 " "${ALL[@]}"
check_output "a frame tagged 30 (trunked nowhere) from trunk p3 reaches nobody" \
	"$(only none)" seen "who-has 198.51.100.213 " "${ALL[@]}"
# ovs-vswitchd logs each such drop as a WARN (rate-limited, five at once):
# it must have, with the reason, and 90-teardown.sh's log check allows
# exactly these lines.
DROPS=(
	'\|WARN\|dropping VLAN 20 tagged packet received on port p1 configured as VLAN 10 access port on bridge br0 '
	'\|WARN\|dropping VLAN 0 packet received on port p3 not configured for trunking VLAN 0 on bridge br0 '
	'\|WARN\|dropping VLAN 30 packet received on port p3 not configured for trunking VLAN 30 on bridge br0 '
)
printf '%s\n' "${DROPS[@]}" >>"$LOG_ALLOWED"
for d in "${DROPS[@]}"; do
	check "ovs-vswitchd logged why: ${d#*WARN\\|}" grep -qE -- "$d" "$VSWITCHD_LOG"
done

check_output "learned: p1's echo requests reach tap10's guest only" \
	"$(only t10 -,-,-)" seen "198.51.100.1 > 198.51.100.10: ICMP echo request" "${ALL[@]}"
check_output "learned: p4's (native 10) echo requests reach p5 only, tagged 10" \
	"$(only c5 10,10,10)" seen "198.51.100.4 > 198.51.100.5: ICMP echo request" "${ALL[@]}"
check_output "learned: p3's (VLAN 20) echo requests reach tap20's guest only" \
	"$(only t20 -,-,-)" seen "203.0.113.3 > 203.0.113.20: ICMP echo request" "${ALL[@]}"
check_output "learned: p5's (native 20, tagged) echo requests reach p2 only, untagged" \
	"$(only c2 -,-,-)" seen "203.0.113.5 > 203.0.113.2: ICMP echo request" "${ALL[@]}"
check_output "learned: p4's VLAN 20 echo requests reach p3 only, tagged 20" \
	"$(only c3 20,20,20)" seen "203.0.113.4 > 203.0.113.3: ICMP echo request" "${ALL[@]}"
check_output "learned: p3's VLAN 10 echo requests reach p1 only, untagged" \
	"$(only c1 -,-,-)" seen "198.51.100.3 > 198.51.100.1: ICMP echo request" "${ALL[@]}"
check_output "unknown unicast from p1 floods VLAN 10 only" \
	"$(flooded c1 10)" seen "> 198.51.100.99: ICMP echo request" "${ALL[@]}"
check_output "unicast from p1 to ns2's MAC, known in VLAN 20 only, floods VLAN 10 and never reaches p2" \
	"$(flooded c1 10)" seen "> 198.51.100.98: ICMP echo request" "${ALL[@]}"
check_output "unknown unicast from p2 floods VLAN 20 only" \
	"$(flooded c2 20)" seen "> 203.0.113.99: ICMP echo request" "${ALL[@]}"

# Every frame each port delivered, by tag: trunks carry only tagged frames
# of their VLANs, access ports only untagged ones.
for p in c1 t10 c2 t20; do
	check "$p (access) delivered untagged frames only" delivered "$p" -
done
check "c3 (trunks=10,20) delivered VLANs 10 and 20 tagged, nothing untagged" \
	delivered c3 "10 20"
check "c4 (native-untagged 10) delivered VLAN 10 untagged and 20 tagged" \
	delivered c4 "- 20"
check "c5 (native-tagged 20) delivered VLANs 10 and 20 both tagged, nothing untagged" \
	delivered c5 "10 20"
# And by address: VLAN 10 frames never carry VLAN 20's network, and back.
for pt in "c1 -" "t10 -" "c4 -" "c3 10" "c5 10"; do
	read -r p t <<<"$pt"
	check_output "$p: no VLAN 10 frame (tag $t) carries 203.0.113.0/24" "" \
		wrong_net "$p" "$t" 203.0.113.
done
for pt in "c2 -" "t20 -" "c3 20" "c4 20" "c5 20"; do
	read -r p t <<<"$pt"
	check_output "$p: no VLAN 20 frame (tag $t) carries 198.51.100.0/24" "" \
		wrong_net "$p" "$t" 198.51.100.
done

# learned_apart: fdb/show has ns3's MAC on p3 in both VLANs.
learned_apart() {
	if grep -Eq "^ +$p3 +10 +$(ns_mac 3) " <<<"$fdb" &&
		grep -Eq "^ +$p3 +20 +$(ns_mac 3) " <<<"$fdb"; then
		return 0
	fi
	echo "$fdb"
	return 1
}
# vlan_actions: the megaflows push and pop tags.
vlan_actions() {
	if grep -q "push_vlan(vid=" <<<"$flows" && grep -q "pop_vlan" <<<"$flows"; then
		return 0
	fi
	echo "$flows"
	return 1
}
check "the MAC table learned ns3's MAC on p3 in VLAN 10 and in VLAN 20 apart" \
	learned_apart
check "the datapath pushes and pops 802.1Q tags for NORMAL's VLANs" \
	vlan_actions

check "del-br br0" "${VSCTL[@]}" del-br br0
check_output "br0's ports left the datapath" ovs-system dp_names ovs-system
