# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: limit 400
#
# roamswitch's own roam_redirect family (kernel/roam_redirect.h): a port's
# output sent out of another port, as the migration agent redirects a
# paused guest's traffic to the uplink.
#
#   ns1 (a peer)                  host                  ns3 (the uplink: a trunk)
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(3)--[p3]<--veth-->[eth0]
#   198.51.100.1                 |                       +-[eth0.10] 198.51.100.3
#                               (2)
#                               [p2]<--veth-->[eth0] ns2 (the guest's old port)
#                                                  198.51.100.2
#
# Flows send ns1's IPv4 and ARP to port 2, and what comes back tagged 10
# from the uplink to port 2 untagged.  With port 2 redirected to port 3
# (VLAN 10), ns1's unicast leaves by the uplink tagged 10 and ns2 gets
# nothing; group-addressed frames are dropped (the switch's flooding
# carries those); tagged frames keep their tag; the uplink's own frames
# for port 2 go back out of it.  A redirect goes with its target and with
# its port, announced; malformed requests are refused and leave nothing;
# an unprivileged caller, a user namespace's root and another network
# namespace cannot redirect; the module unloads with a redirect in place.
# The in-tree module has no such family: its pass checks just that.

# shellcheck source=../netns.sh
. ./netns.sh

REDIRECT=$PWD/bin/roam-redirect
BADMSG=$PWD/bin/ovs-badmsg
watch_pid=

case_cleanup() {
	tcpdump_stop
	[ -z "$watch_pid" ] || kill "$watch_pid" 2>/dev/null
	ovs-dpctl del-dp dp0
	ns_del 1 2 3
	rm -f /tmp/redirect.*
}

if ! dp_is ours; then
	check_output "the $ROAM_DATAPATH module has no roam_redirect family" "" \
		genl_family roam_redirect
	check_refused "roam-redirect says so" \
		"roam-redirect: the roam_redirect family is not registered: is roamswitch's openvswitch.ko loaded?" \
		"$REDIRECT" show ovs-system
	return 0
fi

check_output "family roam_redirect is registered, version 1" 1 \
	eval "genl_family roam_redirect | sed -n 's/.*Version: 0x0*\([0-9a-f]*\).*/\1/p'"
check_output "it has multicast group roam_redirect" roam_redirect \
	genl_groups roam_redirect

ns_add 1
ns_add 2
ns_add 3
ns_neigh 1 2
ns_neigh 2 1
nsx 3 ip addr flush dev eth0
nsx 3 ip link add link eth0 name eth0.10 type vlan id 10
nsx 3 ip link set eth0.10 up
nsx 3 ip addr add 198.51.100.3/24 dev eth0.10
nsx 3 ip neigh replace 198.51.100.2 lladdr "$(ns_mac 2)" dev eth0.10 nud permanent

check "add-dp dp0, ports p1 p2 p3" eval "ovs-dpctl add-dp dp0 &&
	ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2 && ovs-dpctl add-if dp0 p3"
ipv4='eth(),eth_type(0x0800),ipv4()'
check "flows: ns1's IPv4 and ARP to port 2, back to 1, VLAN 10 from 3 to 2" \
	add_flows dp0 \
	"in_port(1),$ipv4" 2 \
	'in_port(1),eth(),eth_type(0x0806),arp()' 2 \
	"in_port(2),$ipv4" 1 \
	"in_port(3),eth(),eth_type(0x8100),vlan(vid=10,pcp=0),encap(eth_type(0x0800),ipv4())" 'pop_vlan,2'
check "control: ns1 pings ns2 through port 2" nsx 1 "${PING[@]}" 198.51.100.2

# Every announcement until the unload; checked at the end.
"$REDIRECT" watch dp0 7 120 >/tmp/redirect.watch 2>&1 &
watch_pid=$!
check "a listener joins the family's group" \
	wait_for 50 grep -qx ready /tmp/redirect.watch

check_output "redirect p2 to p3, VLAN 10" \
	"set port=2 target=3 vlan=10 packets=0 bytes=0 dropped=0" \
	"$REDIRECT" set dp0 p2 p3 vlan 10

# ping_quiet N IP COUNT: nsN sends COUNT echo requests to IP; no answer
# is expected (the frames go elsewhere).
ping_quiet() {
	nsx "$1" ping -n -q -c "$3" -i 0.2 -W 1 "$2" >/dev/null 2>&1
	return 0
}
# field NAME: NAME's value in `roam-redirect show dp0 p2`.
field() {
	"$REDIRECT" show dp0 p2 | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# count FILE ERE: how many of FILE's packets match ERE.
count() {
	grep -cE -- "$2" "$1"
}

tcpdump_start 3 /tmp/redirect.up
ip netns exec ns2 timeout 120 tcpdump -i eth0 -nn -e -l >/tmp/redirect.p2 \
	2>/tmp/redirect.p2.err &
p2_pid=$!
wait_for 25 grep -q 'listening on' /tmp/redirect.p2.err
ping_quiet 1 198.51.100.2 3
tcpdump_stop
kill -INT "$p2_pid" 2>/dev/null
wait "$p2_pid" 2>/dev/null
check_eq "the uplink got ns1's 3 echo requests for ns2, tagged 10" 3 \
	"$(count /tmp/redirect.up " $(ns_mac 1) > $(ns_mac 2), ethertype 802\.1Q \(0x8100\), length [0-9]+: vlan 10, p 0, ethertype IPv4 .*ICMP echo request")"
check_eq "and nothing else" 3 "$(count /tmp/redirect.up .)"
check_eq "ns2 got none of them" 0 "$(count /tmp/redirect.p2 'ICMP echo request')"
check_eq "the redirect counts 3 packets" 3 "$(field packets)"
check_eq "and their 3 x 98 bytes (the tag rides beside the frame)" 294 "$(field bytes)"
check "and the time of the first, within the last minute" \
	eval "[ \$(( \$(date +%s%N) - \$(field first_ns) )) -lt 60000000000 ]"

# Group-addressed frames: ns1's ARP broadcast for an unknown address.
tcpdump_start 3 /tmp/redirect.arp
ping_quiet 1 198.51.100.9 1
tcpdump_stop
check "an ARP broadcast for port 2 is dropped, counted" positive "$(field dropped)"
check_eq "and does not leave by the uplink" 0 "$(count /tmp/redirect.arp 'ARP')"
check_eq "the unicast count stays 3" 3 "$(field packets)"

# A frame that leaves port 2 tagged keeps its tag.
check "ns1's IPv4 now gets VLAN 20 pushed before port 2" eval \
	"ovs-dpctl mod-flow dp0 'in_port(1),$ipv4' 'push_vlan(vid=20,pcp=0),2'"
tcpdump_start 3 /tmp/redirect.tagged
ping_quiet 1 198.51.100.2 1
tcpdump_stop
check_eq "it leaves by the uplink tagged 20, and only 20" 1 \
	"$(count /tmp/redirect.tagged "ethertype 802\.1Q \(0x8100\), length [0-9]+: vlan 20, p 0, ethertype IPv4 .*ICMP echo request")"
check_eq "no frame got a second tag" 0 "$(count /tmp/redirect.tagged 'vlan 10')"

# The uplink's own frames for port 2 go back out of it: ns3 (VLAN 10)
# sends 2 echo requests to ns2.
ping_quiet 3 198.51.100.2 2
check_eq "port 2's output went back out of the uplink: 6 packets in all" 6 \
	"$(field packets)"

check_output "redirect p2 to p1 instead: the counters start again" \
	"set port=2 target=1 packets=0 bytes=0 dropped=0" \
	"$REDIRECT" set dp0 p2 1
check_output "show dp0 lists it" "get port=2 target=1 packets=0 bytes=0 dropped=0" \
	"$REDIRECT" show dp0
check "p1 leaves dp0" ovs-dpctl del-if dp0 p1
check_refused "the redirect to it is gone" \
	"roam-redirect: get: No such file or directory: the port is not redirected" \
	"$REDIRECT" show dp0 p2
check "p1 comes back" ovs-dpctl add-if dp0 p1
check "redirect p2 to p3 again" "$REDIRECT" set dp0 p2 p3
check "p2 leaves dp0" ovs-dpctl del-if dp0 p2
check_output "its redirect is gone" "" "$REDIRECT" show dp0
check_refused "a redirect to a port that is not there is refused" \
	"roam-redirect: set: No such device: the datapath has no such port" \
	"$REDIRECT" set dp0 p3 9
check "p2 comes back" ovs-dpctl add-if dp0 p2

# Malformed requests: each refused, with nothing left.
check_badmsg --redirect dp0 <<'EOT'
redirect-short-header EINVAL
redirect-set-no-port EINVAL
redirect-set-no-target EINVAL
redirect-set-unknown-dp ENODEV
redirect-set-unknown-port ENODEV
redirect-set-unknown-target ENODEV
redirect-set-port-too-big ERANGE
redirect-set-self EINVAL
redirect-set-vlan-0 ERANGE
redirect-set-vlan-4095 ERANGE
redirect-set-vlan-u32 EINVAL
redirect-set-counters EINVAL
redirect-set-unknown-attr EINVAL
redirect-set-truncated-attr EINVAL
redirect-del-not-redirected ENOENT
redirect-get-not-redirected ENOENT
redirect-unknown-cmd EOPNOTSUPP
redirect-set-ok OK
redirect-del-ok OK
EOT
check_output "no request left a redirect behind" "" "$REDIRECT" show dp0

# Who may redirect: CAP_NET_ADMIN over the datapath's namespace.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
check_refused "an unprivileged user cannot redirect" \
	"roam-redirect: set: Operation not permitted" \
	"${nobody[@]}" "$REDIRECT" set dp0 p2 p3
check_output "but may read" "" "${nobody[@]}" "$REDIRECT" show dp0
check_refused "nor can a user namespace's root" \
	"roam-redirect: set: Operation not permitted" \
	unshare -Ur "$REDIRECT" set dp0 p2 p3
check_output "another network namespace does not see dp0" \
	"redirect-set-ok ENODEV" \
	eval "nsx 1 '$BADMSG' --redirect $(cat /sys/class/net/dp0/ifindex) | grep '^redirect-set-ok '"
check_output "and nothing was redirected" "" "$REDIRECT" show dp0

check "the listener got every announcement" wait_for 50 \
	eval "[ \$(grep -c '^[sd]e[tl] ' /tmp/redirect.watch) -ge 7 ]"
check_output "set, replace, del by the kernel (target gone), set, del (port gone), set, del" \
	"$(printf '%s\n' 'set port=2 target=3' 'set port=2 target=1' 'del port=2 target=1' \
		'set port=2 target=3' 'del port=2 target=3' 'set port=1 target=2' 'del port=1 target=2')" \
	eval "grep -v '^ready' /tmp/redirect.watch | cut -d' ' -f1-3"
wait "$watch_pid"
check_eq "the listener exited 0" 0 "$?"
watch_pid=

# Unload with a redirect in place, then back to the harness's module.
check "redirect p2 to p3 once more" "$REDIRECT" set dp0 p2 p3 vlan 10
check "the module unloads with it in place" dp_unload
check_output "family roam_redirect is gone" "" genl_family roam_redirect
check "our module loads again" dp_load ours
