# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Action lists: what is accepted and how it reads back, what is refused
# with which errno, and packets through recirc, clone, trunc, sample and
# VLAN push/pop.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                           198.51.100.2
#
# Part 1 puts one flow per action list (each on its own TCP source port)
# and compares dump-flows' actions, or ovs-dpctl's error, with what the
# in-tree 6.1 module gives; the lists it accepts for conntrack,
# check_pkt_len and tunnels are refused by ours, as by a kernel without
# them.  A meter action both accept: no meter exists, and a packet passes
# an absent meter.  Part 2: 1->2 clone(trunc(60),2),recirc(5), and
# recirc_id 5 sets TTL 33 and outputs; 2->1 sample(100%) pushes and pops
# a tag and rewrites the source MAC.  Ping works, ns2 sees a 60-byte copy
# and the TTL-33 request with a good checksum.  Part 3: a chain of ten
# recirculations, longer than either datapath nests executions (both
# queue the deeper ones and run them once the outer ones return), still
# delivers.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	tcpdump_stop
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/acts.*
}

ns_add 1
ns_add 2
ns_neigh 1 2
ns_neigh 2 1
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"

ours=0
dp_is ours && ours=1

E='in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02)'
IP4="$E,eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2"
IP6="$E,eth_type(0x86dd),ipv6(src=fe80::1,dst=fe80::2,label=0"
# key KIND PORT: the flow key of one table row.
key() {
	case "$1" in
	tcp) echo "$IP4,proto=6,tos=0,ttl=64,frag=no),tcp(src=$2,dst=80),tcp_flags(0)" ;;
	udp) echo "$IP4,proto=17,tos=0,ttl=64,frag=no),udp(src=$2,dst=53)" ;;
	tcp6) echo "$IP6,proto=6,tclass=0,hlimit=64,frag=no),tcp(src=$2,dst=80),tcp_flags(0)" ;;
	esac
}

# Rows: PORT KIND ACTIONS EXPECTED, '|'-separated.  EXPECTED is the
# dumped actions, or !ERROR for ovs-dpctl's "updating flow table (ERROR)";
# ?EXPECTED rows hold for ours only (the in-tree module has the feature).
# One ovs-dpctl puts them all, in order (put_flows): it says "updating
# flow table (ERROR)" once for each put refused, so the Nth such line is
# the Nth refused row's, and the dump shows what was installed.
rows=() accepted=()
while IFS='|' read -r port kind acts want; do
	[ -n "$port" ] || continue
	if [ "${want#\?}" != "$want" ]; then
		[ "$ours" = 1 ] || continue
		want=${want#\?}
	fi
	rows+=("$port|$acts|$want")
	echo "$(key "$kind" "$port") $acts" >>/tmp/acts.flows
done <<'EOT'
1001|tcp|1|1
1002|tcp|set(tcp(src=1,dst=2)),1|set(tcp(src=1,dst=2)),1
1003|tcp|set(tcp(src=1/0xff)),2|set(tcp(src=1/0xff)),2
1004|tcp|set(ipv4(src=203.0.113.1,dst=203.0.113.2,proto=6,tos=4,ttl=9,frag=no)),1|set(ipv4(src=203.0.113.1,dst=203.0.113.2,proto=6,tos=0x4,ttl=9,frag=no)),1
1005|tcp|set(ipv4(src=203.0.113.1,dst=203.0.113.2,proto=17,tos=4,ttl=9,frag=no)),1|!Invalid argument
1006|tcp|set(ipv4(ttl=9)),1|set(ipv4(ttl=9)),1
1007|tcp|set(ipv4(tos=0x3/0xff)),1|set(ipv4(tos=0x3)),1
1008|tcp|set(eth(src=02:00:00:00:00:aa,dst=02:00:00:00:00:bb)),1|set(eth(src=02:00:00:00:00:aa,dst=02:00:00:00:00:bb)),1
1009|tcp|set(eth(src=02:00:00:00:00:aa/ff:ff:ff:ff:ff:00)),1|!Invalid argument
1010|tcp|push_vlan(vid=10,pcp=3),1,pop_vlan,2|push_vlan(vid=10,pcp=3),1,pop_vlan,2
1011|tcp|push_vlan(tpid=0x88a8,vid=20,pcp=0),push_vlan(vid=5,pcp=0),1|push_vlan(tpid=0x88a8,vid=20,pcp=0),push_vlan(vid=5,pcp=0),1
1012|tcp|sample(sample=50%,actions(1,userspace(pid=1234,userdata(01020304)))),2|sample(sample=50.0%,actions(1,userspace(pid=1234,userdata(0102030400000000)))),2
1013|tcp|sample(sample=100%,actions()),2|sample(sample=100.0%,actions(drop)),2
1014|tcp|clone(set(tcp(dst=99)),1),2|clone(set(tcp(dst=99)),1),2
1015|tcp|clone(1),clone(clone(2))|clone(1),clone(clone(2))
1016|tcp|trunc(100),1,2|trunc(100),1,2
1017|tcp|trunc(10),1|!Invalid argument
1020|tcp|userspace(pid=77,userdata(aabbccddee))|userspace(pid=77,userdata(aabbccddee000000))
1021|tcp|userspace(pid=77,userdata(aabbccdd),actions)|userspace(pid=77,userdata(aabbccdd00000000),actions)
1022|tcp|userspace(pid=0)|!Invalid argument
1023|tcp|set(skb_mark(5)),set(skb_priority(7)),1|set(skb_mark(0x5)),set(skb_priority(0x7)),1
1024|tcp|set(skb_mark(0x5/0xf)),1|set(skb_mark(0x5/0xf)),1
1025|tcp|set(udp(src=1,dst=2)),1|!Invalid argument
1026|tcp|set(sctp(src=1,dst=2)),1|!Invalid argument
1027|tcp|set(ipv6(src=::1,dst=::2,label=0,proto=6,tclass=0,hlimit=64,frag=no)),1|!Invalid argument
1028|tcp|ct(),1|?!Invalid argument
1029|tcp|ct_clear,1|?!Invalid argument
1030|tcp|meter(1),1|meter(1),1
1031|tcp|check_pkt_len(size=200,gt(1),le(2))|?!Invalid argument
1033|tcp|set(tunnel(tun_id=0x1,dst=203.0.113.1,ttl=64,flags(df))),1|?!Invalid argument
1036|tcp|65536|!Invalid argument
1037|tcp|65535|!Invalid argument
1038|tcp|65534|65534
1042|udp|set(udp(src=1,dst=2)),1|set(udp(src=1,dst=2)),1
1043|udp|set(udp(dst=2/0xff)),1|set(udp(dst=2/0xff)),1
1044|tcp6|set(ipv6(src=::1,dst=::2,label=0,proto=6,tclass=0,hlimit=64,frag=no)),1|!Invalid argument
1045|tcp6|set(ipv6(label=5)),1|set(ipv6(label=0x5)),1
1048|tcp6|set(ipv6(hlimit=3,tclass=0x1/0xff)),1|set(ipv6(tclass=0x1,hlimit=3)),1
1049|tcp6|set(tcp(src=9)),1|set(tcp(src=9)),1
1051|tcp|clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(1))))))))))))))))|clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(1))))))))))))))))
1052|tcp|clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(clone(1)))))))))))))))))|!Value too large for defined data type
EOT

put_flows dp0 </tmp/acts.flows >/tmp/acts.out
check_output "ovs-dpctl said nothing but which puts it refused" "" \
	awk '!/^ovs-dpctl: updating flow table |\|dpif\|WARN\|/' /tmp/acts.out
mapfile -t refused < <(grep '^ovs-dpctl: ' /tmp/acts.out)
take_dump dp0
# The actions each installed row reads back with, by its source port (the
# first "(src=N," of a line is its key's TCP or UDP port), read in this
# shell: a process per row costs a second on the debug kernel.
declare -A back
flows=0
while IFS= read -r line; do
	[[ $line == *" actions:"* ]] || continue
	flows=$((flows + 1))
	[[ $line =~ \(src=([0-9]+), ]] && back[${BASH_REMATCH[1]}]=${line##* actions:}
done <<<"$dump"
r=0
for row in "${rows[@]}"; do
	IFS='|' read -r port acts want <<<"$row"
	if [ "${want#!}" != "$want" ]; then
		check_eq "$acts -> ${want#!}" \
			"ovs-dpctl: updating flow table (${want#!})" "${refused[r]:-}"
		r=$((r + 1))
	else
		check_eq "$acts is accepted" yes "${back[$port]+yes}"
		accepted+=("$port|$want")
	fi
done
check_eq "one refusal for each row refused" "$r" "${#refused[@]}"
check_eq "every accepted list was installed, and nothing else" \
	"${#accepted[@]}" "$flows"
for row in "${accepted[@]}"; do
	IFS='|' read -r port want <<<"$row"
	check_eq "flow $port reads back as $want" "$want" "${back[$port]:-}"
done
check "del-flows" ovs-dpctl del-flows dp0

# Part 2: packets.
check "add the recirc/clone/trunc/sample flows" add_flows dp0 \
	'recirc_id(0),in_port(1),eth(),eth_type(0x0800),ipv4()' \
	'clone(trunc(60),2),recirc(5)' \
	'recirc_id(5),in_port(1),eth(),eth_type(0x0800),ipv4()' \
	'set(ipv4(ttl=33)),2' \
	'recirc_id(0),in_port(2),eth(),eth_type(0x0800),ipv4()' \
	'sample(sample=100%,actions(push_vlan(vid=7,pcp=0),pop_vlan,set(eth(src=02:00:00:00:00:0f)),1))'
tcpdump_start 2 /tmp/acts.cap -v icmp
check "ping through recirc and sample" nsx 1 "${PING[@]}" 198.51.100.2
tcpdump_stop
check "ns2 sees the 60-byte truncated copy" captured /tmp/acts.cap \
	'02:00:00:00:00:01 > 02:00:00:00:00:02, ethertype IPv4 \(0x0800\), length 60: '
check "ns2 sees the recirculated request with TTL 33" captured /tmp/acts.cap \
	'length 98: \(tos 0x0, ttl 33,.* 198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request'
check_absent "and no bad checksum" 'bad cksum|wrong' /tmp/acts.cap
check_eq "the recirculated flow saw both requests" "2" \
	"$(flow_field dp0 'recirc_id(0x5)' packets)"

# Part 3: recirc_id N recirculates to N + 1 up to 10, which sets TTL 21.
check "del-flows before the chain" ovs-dpctl del-flows dp0
chain=()
for i in 0 1 2 3 4 5 6 7 8 9; do
	chain+=("recirc_id($i),in_port(1),eth(),eth_type(0x0800),ipv4()"
		"recirc($((i + 1)))")
done
check "add a chain of ten recirculations 1->2 and a flow back" add_flows dp0 \
	"${chain[@]}" \
	'recirc_id(10),in_port(1),eth(),eth_type(0x0800),ipv4()' \
	'set(ipv4(ttl=21)),2' \
	'recirc_id(0),in_port(2),eth(),eth_type(0x0800),ipv4()' 1
tcpdump_start 2 /tmp/acts.chain -v icmp
check "ping through the chain" nsx 1 "${PING[@]}" 198.51.100.2
tcpdump_stop
check "ns2 sees the request as the chain's last link wrote it" \
	captured /tmp/acts.chain \
	'ttl 21,.* 198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request'
check_eq "the last link saw both requests" "2" \
	"$(flow_field dp0 'recirc_id(0xa)' packets)"
