# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# roam: once-per-boot
#
# Flow statistics and TCP flags, and the same flow dump from both
# datapaths, each loaded in turn in this one boot.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                           198.51.100.2
#
# For each datapath: exact ICMP flows and TCP flows both ways; 3 pings
# show packets:3 bytes:294 per direction; a TCP connection shows the
# flags seen (SYN, SYN-ACK, FIN ...); mod-flow --clear zeroes the stats.
# The dumps (sorted, times dropped) of the two datapaths are identical.
# The datapath the harness loaded is loaded again at the end.  On the
# debug kernel only ours runs (below).

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/stats.*
	[ -e /sys/module/openvswitch ] || dp_load "$ROAM_DATAPATH"
}

m1=02:00:00:00:00:01 m2=02:00:00:00:00:02
req="in_port(1),eth(src=$m1,dst=$m2),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2,proto=1,tos=0,ttl=64,frag=no),icmp(type=8,code=0)"
rep="in_port(2),eth(src=$m2,dst=$m1),eth_type(0x0800),ipv4(src=198.51.100.2,dst=198.51.100.1,proto=1,tos=0,ttl=64,frag=no),icmp(type=0,code=0)"
tcp12='in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2,proto=6,frag=no),tcp(dst=5002),tcp_flags(0/0)'
tcp21='in_port(2),eth(),eth_type(0x0800),ipv4(src=198.51.100.2,dst=198.51.100.1,proto=6,frag=no),tcp(src=5002),tcp_flags(0/0)'

# tcp_normal DP: the dump with TCP packet and byte counts dropped (how
# many ACKs a connection takes is timing), times dropped, sorted.
tcp_normal() {
	flows "$1" | sed -E '/proto=6/s/packets:[0-9]+, bytes:[0-9]+, //'
}

# tcp_normal_into DP FILE: tcp_normal DP, added to FILE.
tcp_normal_into() {
	tcp_normal "$1" >>"$2"
}

# stats_run DP: the same flows and traffic on the loaded datapath, checks
# tagged with DP; the final normalised dump goes to /tmp/stats.DP.
stats_run() {
	local dp=$1

	check "add-dp dp0 ($dp)" ovs-dpctl add-dp dp0
	check "add-if p1 and p2 ($dp)" \
		eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"
	check "add the ICMP and TCP flows ($dp)" add_flows dp0 \
		"$req" 2 "$rep" 1 "$tcp12" 2 "$tcp21" 1
	take_dump dp0
	check_eq "fresh flows have no stats ($dp)" "0 0 0 0" \
		"$(dump_field "$dump" 'type=8' packets) $(dump_field "$dump" 'type=8' bytes) $(dump_field "$dump" 'type=0' packets) $(dump_field "$dump" 'type=0' bytes)"

	check "3 pings ($dp)" nsx 1 "${PING[@]}" -c 3 198.51.100.2
	take_dump dp0
	check_eq "the request flow counted packets:3 bytes:294 ($dp)" "3 294" \
		"$(dump_field "$dump" 'type=8' packets) $(dump_field "$dump" 'type=8' bytes)"
	check_eq "the reply flow counted packets:3 bytes:294 ($dp)" "3 294" \
		"$(dump_field "$dump" 'type=0' packets) $(dump_field "$dump" 'type=0' bytes)"
	check_eq "ICMP flows carry no tcp flags ($dp)" "" \
		"$(dump_field "$dump" 'type=8' flags)"

	echo hello >/tmp/stats.hello
	check "a short TCP connection ($dp)" tcp_send 1 2 5002 /tmp/stats.hello
	sleep 0.5
	take_dump dp0
	check "the client flow saw SYN ($dp)" \
		grep -q S <<<"$(dump_field "$dump" 'dst=5002' flags)"
	check "the client flow saw FIN ($dp)" \
		grep -q F <<<"$(dump_field "$dump" 'dst=5002' flags)"
	check "the client flow saw PSH and ACK ($dp)" \
		grep -q 'P.*\.\|\..*P' <<<"$(dump_field "$dump" 'dst=5002' flags)"
	check "the server flow saw SYN-ACK and FIN ($dp)" \
		grep -q 'S.*F\|F.*S' <<<"$(dump_field "$dump" 'src=5002' flags)"
	rm -f "/tmp/stats.$dp"
	check "dump the flows to compare ($dp)" \
		tcp_normal_into dp0 "/tmp/stats.$dp"

	check "mod-flow --clear the request flow ($dp)" \
		ovs-dpctl --clear mod-flow dp0 "$req" 2
	take_dump dp0
	check_eq "its stats are zero ($dp)" "0 0" \
		"$(dump_field "$dump" 'type=8' packets) $(dump_field "$dump" 'type=8' bytes)"
	check_eq "the reply flow keeps its stats ($dp)" "3 294" \
		"$(dump_field "$dump" 'type=0' packets) $(dump_field "$dump" 'type=0' bytes)"
	check "mod-flow --clear the client TCP flow ($dp)" \
		ovs-dpctl --clear mod-flow dp0 "$tcp12" 2
	take_dump dp0
	check_eq "its tcp flags are cleared ($dp)" "" \
		"$(dump_field "$dump" 'dst=5002' flags)"
	check "dump the flows to compare again ($dp)" \
		tcp_normal_into dp0 "/tmp/stats.$dp"

	# A deleted flow's counters go back a grace period later (ours:
	# a slot of a shared block, kernel/flow_stats.c); a flow added after
	# that may take them over, and must start from nothing.
	check "del-flow the reply flow, which counted 3 packets ($dp)" \
		ovs-dpctl del-flow dp0 "$rep"
	sleep 1
	check "add it again ($dp)" add_flows dp0 "$rep" 1
	take_dump dp0
	check_eq "the flow added again has no stats ($dp)" "0 0" \
		"$(dump_field "$dump" 'type=0' packets) $(dump_field "$dump" 'type=0' bytes)"
	check "del-dp dp0 ($dp)" ovs-dpctl del-dp dp0
}

ns_add 1
ns_add 2
ns_neigh 1 2
ns_neigh 2 1

# On the debug kernel, ours alone: the comparison is the host kernel's
# (its in-tree run would check only the in-tree module under KASAN and
# lockdep; README, "Why no in-tree pass on the debug kernel").
datapaths=(in-tree ours)
[ "${ROAM_DEBUG_KERNEL:-0}" != 1 ] || datapaths=(ours)
for dp in "${datapaths[@]}"; do
	dp_load "$dp"
	loaded=$?
	check_eq "load the $dp datapath" 0 "$loaded"
	[ "$loaded" -ne 0 ] || stats_run "$dp"
done
if [ ${#datapaths[@]} -eq 2 ]; then
	diff -u /tmp/stats.in-tree /tmp/stats.ours >/tmp/stats.diff 2>&1
	check_output "the flow dumps of both datapaths are identical" "" cat /tmp/stats.diff
fi
check "reload the harness's datapath ($ROAM_DATAPATH)" dp_load "$ROAM_DATAPATH"
