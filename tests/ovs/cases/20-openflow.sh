# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# OpenFlow rules become the megaflows they should, and the packets show
# it.  br0 runs fail_mode=secure with only the rules below (no NORMAL):
#
#   ns1 eth0 --- p1 (ofport 1) ---+                  198.51.100.1
#   ns2 eth0 --- p2 (ofport 2) ---+--- br0           198.51.100.2
#   ns3 eth0 --- p3 (ofport 3) ---+   (secure)       eth0.30 198.51.100.3
#   ns4 eth0 --- p4 (ofport 4) ---+                  198.51.100.4
#
#   table 0
#     300 in_port=1,ip,nw_dst=.9     drop
#     200 in_port=1,ip,nw_dst=.2     mod_dl_src:02:00:00:00:aa:01, output:2
#     200 in_port=2                  output:1
#     200 in_port=1,ip,nw_dst=.3     mod_vlan_vid:30, output:3
#     200 in_port=3,dl_vlan=30       strip_vlan, output:1
#     200 in_port=1,ip,nw_dst=.40    mod_nw_dst:.4, mod_dl_dst:ns4, output:4
#     200 in_port=4,ip               mod_nw_src:.40, output:1
#     200 in_port=1,ip,nw_dst=.50    resubmit(,1)
#       0                            drop
#   table 1
#     100 ip,nw_src=.1               output:2
#       0                            drop
#
# ns1 pings .2, .3, .9, .40 and .50; the neighbours are static, so only
# the echo requests and replies cross.  ovs-vswitchd's dump of the
# datapath (dpctl/dump-flows, statistics dropped) must be exactly
# ../openflow.expect: the matches with their masks (a field the rules never
# looked at stays wildcarded, and shows nowhere) and the datapath actions
# each rule compiles to.  On the wire: the rewritten MACs, the 802.1Q tag
# 30 on p3 and none back on p1, the rewritten addresses to and from ns4,
# the resubmitted packets on p2, nothing anywhere for .9.

# shellcheck source=../topo.sh
. ./topo.sh

case_cleanup() {
	cap_stop
	"${VSCTL[@]}" --if-exists del-br br0
	ns_del 1 2 3 4
	rm -f "$CAPS"/*
}

RULES=(
	"priority=300,in_port=1,ip,nw_dst=198.51.100.9,actions=drop"
	"priority=200,in_port=1,ip,nw_dst=198.51.100.2,actions=mod_dl_src:02:00:00:00:aa:01,output:2"
	"priority=200,in_port=2,actions=output:1"
	"priority=200,in_port=1,ip,nw_dst=198.51.100.3,actions=mod_vlan_vid:30,output:3"
	"priority=200,in_port=3,dl_vlan=30,actions=strip_vlan,output:1"
	"priority=200,in_port=1,ip,nw_dst=198.51.100.40,actions=mod_nw_dst:198.51.100.4,mod_dl_dst:02:00:00:00:00:04,output:4"
	"priority=200,in_port=4,ip,actions=mod_nw_src:198.51.100.40,output:1"
	"priority=200,in_port=1,ip,nw_dst=198.51.100.50,actions=resubmit(,1)"
	"priority=0,actions=drop"
	"table=1,priority=100,ip,nw_src=198.51.100.1,actions=output:2"
	"table=1,priority=0,actions=drop"
)

add_rules() { printf '%s\n' "${RULES[@]}" | ovs-ofctl add-flows br0 -; }
n_rules() { ovs-ofctl dump-flows br0 | grep -c "actions="; }
save_flows() { dp_flows >"$flows_file"; }
flows_file=$RUNS/openflow.flows

ovs_up
for n in 1 2 3 4; do
	ns_add "$n"
done
nsx 3 ip addr flush dev eth0
ns_vlan 3 30 198.51.100.3
for ip in 2 3 9 40 50; do
	nsx 1 ip neigh replace "198.51.100.$ip" \
		lladdr "$(printf "02:00:00:00:00:%02d" "$ip")" \
		dev eth0 nud permanent
done
for n in 2 3 4; do
	dev=eth0
	[ "$n" -ne 3 ] || dev=eth0.30
	nsx "$n" ip neigh replace 198.51.100.1 lladdr "$(ns_mac 1)" dev "$dev" \
		nud permanent
done

check "br0 (fail_mode=secure) with p1..p4 as OpenFlow ports 1..4" \
	"${VSCTL[@]}" add-br br0 -- set-fail-mode br0 secure \
	-- add-port br0 p1 -- set Interface p1 ofport_request=1 \
	-- add-port br0 p2 -- set Interface p2 ofport_request=2 \
	-- add-port br0 p3 -- set Interface p3 ofport_request=3 \
	-- add-port br0 p4 -- set Interface p4 ofport_request=4
check "ovs-ofctl installs the rules (two tables)" add_rules
check_output "br0 holds exactly those 11 rules" 11 n_rules

for n in 1 2 3 4; do
	cap_start "c$n" "$n" eth0 in
done
check "tcpdump listens on p1..p4's peers" cap_ready c1 c2 c3 c4

bg=()
nsx 1 "${PING[@]}" -c 3 198.51.100.2 >/dev/null & bg+=($!)
nsx 1 "${PING[@]}" -c 3 198.51.100.3 >/dev/null & bg+=($!)
nsx 1 "${PING[@]}" -c 3 198.51.100.40 >/dev/null & bg+=($!)
nsx 1 ping -n -q -c 3 -i 0.2 -W 1 198.51.100.9 >/dev/null & bg+=($!)
nsx 1 ping -n -q -c 3 -i 0.2 -W 1 198.51.100.50 >/dev/null & bg+=($!)
results=()
for pid in "${bg[@]}"; do
	wait "$pid"
	results+=($?)
done
check_eq "pings to .2 (MAC rewrite), .3 (VLAN push/pop), .40 (address rewrite both ways) answered; .9 (drop) and .50 (to p2, nobody home) not" \
	"0 0 0 1 1" "${results[*]}"
check "ovs-appctl dpctl/dump-flows reads the datapath" save_flows
raw=$(ovs-appctl dpctl/dump-flows --names 2>&1)
cap_stop

check_output "the datapath flows are exactly openflow.expect (matches, masks, actions)" \
	"$(sed -e '/^#/d' -e '/^$/d' openflow.expect)" cat "$flows_file"
check "the drop megaflow counted the echo requests it dropped" \
	positive "$(dump_field "$raw" "dst=198.51.100.9" packets)"

# On the wire.
check_output "p2 got ns1's 3 echo requests to .2 with the rewritten source MAC" \
	3 count_lines c2 "^[^ ]* 02:00:00:00:aa:01 > 02:00:00:00:00:02, .*198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request"
check_output "p3 got the echo requests to .3 tagged 30 (mod_vlan_vid)" \
	"30 30 30" tags c3 "198.51.100.1 > 198.51.100.3: ICMP echo request"
check_output "p1 got .3's replies untagged (strip_vlan)" \
	"- - -" tags c1 "198.51.100.3 > 198.51.100.1: ICMP echo reply"
check_output "p4 got the echo requests to .40 as requests to .4, for ns4's MAC" \
	3 count_lines c4 " > $(ns_mac 4), .*198\.51\.100\.1 > 198\.51\.100\.4: ICMP echo request"
check_output "p1 got ns4's replies from .40 (mod_nw_src)" \
	"- - -" tags c1 "198.51.100.40 > 198.51.100.1: ICMP echo reply"
check_output "p2 got the echo requests to .50 through table 1 (resubmit)" \
	"- - -" tags c2 "198.51.100.1 > 198.51.100.50: ICMP echo request"
for c in c2 c3 c4; do
	check_output "$c never saw a packet for .9 (drop)" "" \
		tags "$c" "> 198.51.100.9:"
done
check_output "p1 got no reply from .2 other than the three" "- - -" \
	tags c1 "198.51.100.2 > 198.51.100.1: ICMP echo reply"

check "del-br br0" "${VSCTL[@]}" del-br br0
