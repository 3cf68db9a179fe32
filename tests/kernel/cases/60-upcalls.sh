# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Misses reach userspace as OVS_PACKET_CMD_MISS upcalls.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   10.0.0.1                     |                         10.0.0.2
#                        bin/upcall-listen: the upcall PID of p1/p2
#
# With no flows, one ICMP echo from ns1 (ns2's MAC known statically)
# arrives at upcall-listen with in_port 1, both MACs, both addresses,
# ICMP type 8 and the packet's own bytes (seq 1, ping's -p pattern); the
# datapath counts one miss and nothing lost.  An ARP request from ns2
# arrives the same way from port 2.

# shellcheck source=../netns.sh
. ./netns.sh

LISTEN=$PWD/bin/upcall-listen
listen_pid=

case_cleanup() {
	[ -z "$listen_pid" ] || kill "$listen_pid" 2>/dev/null
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/upcall.*
}

# lookups DP: the datapath's "hit:H missed:M lost:L".
lookups() {
	ovs-dpctl show "$1" | sed -n 's/^ *lookups: //p'
}

# listen OUT PORT...: upcall-listen for one miss, in the background.
listen() {
	local out=$1
	shift

	"$LISTEN" -n 1 -t 20 "$@" >"$out" 2>"$out.err" &
	listen_pid=$!
	wait_for 50 grep -qx ready "$out"
}

check "the upcall-listen tool is in the job" test -x "$LISTEN"
ns_add 1
ns_add 2
ns_neigh 1 2
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"
check_eq "no lookups yet" "hit:0 missed:0 lost:0" "$(lookups dp0)"

listen /tmp/upcall.1 p1
check_eq "upcall-listen points p1's upcalls at itself" 0 "$?"
check_fails "one echo request, no flow: no reply" \
	nsx 1 ping -n -q -c 1 -W 1 -p c0ffee 10.0.0.2
wait "$listen_pid"
rc=$?
listen_pid=
sed "s/^/# /" /tmp/upcall.1.err
check_eq "upcall-listen got its miss" "0" "$rc"
while read -r want; do
	check "miss: $want" grep -qxF -- "$want" /tmp/upcall.1
done <<'EOT'
miss 1
key in_port=1
key eth src=02:00:00:00:00:01 dst=02:00:00:00:00:02
key eth_type=0x0800
key ipv4 src=10.0.0.1 dst=10.0.0.2 proto=1 ttl=64
key icmp type=8 code=0
packet len=98
EOT
check "miss: the packet is the echo request seq 1" \
	grep -Eqx 'packet icmp type=8 code=0 id=[0-9]+ seq=1' /tmp/upcall.1
check "miss: the packet's bytes start with the Ethernet and IPv4 headers" \
	grep -Eq '^packet hex 0200000000020200000000010800450000540*' /tmp/upcall.1
check "miss: the packet carries ping's payload pattern" \
	grep -Eq '^packet hex .*(c0ffee){4}' /tmp/upcall.1
check_eq "miss: nothing but these lines (and ready)" "10" \
	"$(wc -l </tmp/upcall.1)"
check_eq "the datapath counted one miss, none lost" \
	"hit:0 missed:1 lost:0" "$(lookups dp0)"
check_eq "a miss installs no flow" "" "$(ovs-dpctl dump-flows dp0)"

listen /tmp/upcall.2 p2
check_eq "upcall-listen points p2's upcalls at itself" 0 "$?"
nsx 2 ping -n -q -c 1 -W 1 10.0.0.1 >/dev/null 2>&1
wait "$listen_pid"
rc=$?
listen_pid=
sed "s/^/# /" /tmp/upcall.2.err
check_eq "upcall-listen got the ARP miss" "0" "$rc"
while read -r want; do
	check "ARP miss: $want" grep -qxF -- "$want" /tmp/upcall.2
done <<'EOT'
miss 1
key in_port=2
key eth src=02:00:00:00:00:02 dst=ff:ff:ff:ff:ff:ff
key eth_type=0x0806
key arp sip=10.0.0.2 tip=10.0.0.1 op=1
packet len=42
EOT
arp_hex=ffffffffffff020000000002080600010800060400010200000000020a000002
arp_hex+=0000000000000a000001
check "ARP miss: the packet's bytes are the request" \
	grep -qx "packet hex $arp_hex" /tmp/upcall.2
