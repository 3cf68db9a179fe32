# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# set and set_masked rewriting UDP ports and IPv6 addresses, with the L4
# checksums they carry, on the wire; hash(l4) into dp_hash buckets.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                                           198.51.100.2
#   2001:db8::1                                            2001:db8::2
#   02:..:01                                               02:..:02
#     1->2: UDP 41001 > 6001 as 41101 > 6002 (41002, 41003 > 6001 as > 6002)
#           UDP to 2001:db8::99 and ::98 as to ::2
#           ICMPv6 echo request from 2001:db8::1 as from ::101
#     2->1: ICMPv6 echo reply to 2001:db8::101 as to ::1
#
# Part 1: UDP over IPv4 to port 6001 reaches a socket on 6002 through a
# whole-key set(udp(src,dst)), a masked set(udp(dst=6002/0xffff)) and a
# partial one (dst=0x72/0xff).  Checksum offload is off, so the datagrams
# carry whole checksums: a wrong one would be dropped by ns2's socket, and
# tcpdump -vv in ns2 says "udp sum ok".  Part 2: IPv6, enabled on the two
# eth0s only (2001:db8::N, no link-local address, no DAD, static
# neighbours, since no flow carries neighbour discovery): UDP to
# 2001:db8::99 and ::98 reaches a socket bound to 2001:db8::2 through
# set(ipv6(dst)) and the masked set(ipv6(dst=::2/::ff)), and ping -6 works
# across a NAT-like pair of ICMPv6 flows rewriting the source one way and
# the destination back, so both pseudo-header fix-ups are right.  Part 3:
# hash(l4(0)),recirc(7) (put through Generic Netlink, see add_hash_flow)
# with one flow per dp_hash bucket: twenty datagrams, each from its own
# socket, all arrive and the buckets' counts add up to twenty, each bucket
# seeing some.  Source ports stay clear of 7000-7009, which tcpdump decodes
# as AFS RX.
#
# SCTP (set(sctp)) is not exercised: the test kernels are built without
# CONFIG_IP_SCTP (modprobe sctp finds no module), so nothing in the host
# can send or check an SCTP packet.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	tcpdump_stop
	ovs-dpctl del-dp dp0
	ns_del 1 2
	rm -f /tmp/l4.*
}

# ns6_on N: IPv6 on nsN's eth0 alone, as 2001:db8::N and nothing else: no
# link-local address, router solicitation or DAD probe.
ns6_on() {
	nsx "$1" sysctl -qw net.ipv6.conf.eth0.accept_ra=0 \
		net.ipv6.conf.eth0.router_solicitations=0 \
		net.ipv6.conf.eth0.addr_gen_mode=1 \
		net.ipv6.conf.eth0.accept_dad=0 \
		net.ipv6.conf.eth0.disable_ipv6=0 &&
		nsx "$1" ip -6 addr add "2001:db8::$1/64" dev eth0 nodad
}

# ns6_neigh N IP MAC: nsN reaches IP at MAC without neighbour discovery.
ns6_neigh() {
	nsx "$1" ip -6 neigh replace "$2" lladdr "$3" dev eth0 nud permanent
}

# udp_xfer V DST DPORT SPORT LADDR LPORT: ns1 sends /tmp/l4.src in one
# datagram over IPvV from source port SPORT to DST:DPORT; a socket bound
# to LADDR:LPORT in ns2 writes what it receives to /tmp/l4.dst.  Fails if
# nothing arrives within 60 s of the receiver's start.  10 s was too
# little on a busy debug host: in one CI run ns2's tcpdump saw the
# datagram arrive intact, but the receiving socat had already timed out
# (two socats and the ss polls cost seconds each there).
udp_xfer() {
	local v=$1 dst=$2 dport=$3 sport=$4 laddr=$5 lport=$6 pid

	rm -f /tmp/l4.dst
	nsx 2 timeout 60 socat -u "UDP$v-RECVFROM:$lport,bind=$laddr" \
		OPEN:/tmp/l4.dst,creat &
	pid=$!
	wait_for 50 eval "nsx 2 ss -lun | grep ':$lport ' >/dev/null" &&
		nsx 1 socat -u OPEN:/tmp/l4.src \
			"UDP$v-SENDTO:$dst:$dport,sourceport=$sport"
	wait "$pid"
}

# add_hash_flow DP: recirc_id(0),in_port(1),eth(),eth_type(0x0800),
# ipv4(src=198.51.100.1,dst=198.51.100.2,proto=17,frag=no),udp(dst=6003)
# with actions hash(l4(0)),recirc(7), put through Generic Netlink: OVS
# 3.1's ovs-dpctl prints a hash action but cannot parse one.
add_hash_flow() {
	python3 - "$1" <<'EOF'
import os, socket, struct, sys

def nla(kind, data):
    return struct.pack('=HH', 4 + len(data), kind) + data + \
        bytes(-len(data) % 4)

def attrs(data):
    while len(data) >= 4:
        size, kind = struct.unpack_from('=HH', data)
        yield kind & 0x3fff, data[4:size]
        data = data[(size + 3) & ~3:]

def transact(sk, family, cmd, version, payload, flags=0):
    body = struct.pack('=BBH', cmd, version, 0) + payload
    # NLM_F_REQUEST | NLM_F_ACK
    sk.send(struct.pack('=IHHII', 16 + len(body), family, flags | 5, 1, 0)
            + body)
    replies = []
    while True:
        data = sk.recv(65536)
        while len(data) >= 16:
            size, kind = struct.unpack_from('=IH', data)
            if kind == 2:  # NLMSG_ERROR: the ack
                err = struct.unpack_from('=i', data, 16)[0]
                if err:
                    sys.exit('%s: %s' % (sys.argv[0], os.strerror(-err)))
                return replies
            replies.append(data[20:size])
            data = data[(size + 3) & ~3:]

sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
# CTRL_CMD_GETFAMILY(CTRL_ATTR_FAMILY_NAME) to GENL_ID_CTRL.
reply = transact(sk, 0x10, 3, 1, nla(2, b'ovs_flow\0'))
family = [struct.unpack('=H', v[:2])[0]
          for k, v in attrs(reply[0]) if k == 1][0]

def key(recirc, port, ethertype, ip, udp):
    return (nla(20, struct.pack('=I', recirc)) +   # RECIRC_ID
            nla(3, struct.pack('=I', port)) +      # IN_PORT
            nla(4, bytes(12)) +                    # ETHERNET
            nla(6, struct.pack('!H', ethertype)) + # ETHERTYPE
            nla(7, ip) +                           # IPV4
            nla(10, udp))                          # UDP

match = key(0, 1, 0x0800,
            socket.inet_aton('198.51.100.1') + socket.inet_aton('198.51.100.2')
            + bytes([17, 0, 0, 0]), struct.pack('!HH', 0, 6003))
mask = key(0xffffffff, 0xffffffff, 0xffff,
           bytes([255] * 8) + bytes([255, 0, 0, 255]),
           struct.pack('!HH', 0, 0xffff))
actions = (nla(8, struct.pack('=II', 0, 0)) +     # HASH: OVS_HASH_ALG_L4, 0
           nla(7, struct.pack('=I', 7)))          # RECIRC: 7
# OVS_FLOW_CMD_NEW (NLM_F_CREATE): ovs_header, KEY, ACTIONS, MASK.
transact(sk, family, 1, 1,
         struct.pack('=i', socket.if_nametoindex(sys.argv[1])) +
         nla(1, match) + nla(2, actions) + nla(7, mask), 0x400)
EOF
}

# same_bytes: ns2 received exactly what ns1 sent.
same_bytes() {
	check_eq "$1" "$(sha256sum </tmp/l4.src)" \
		"$(sha256sum </tmp/l4.dst 2>/dev/null)"
}

ns_add 1
ns_add 2
ns_neigh 1 2
ns_neigh 2 1
# Whole checksums on the wire, so that ns2's sockets and tcpdump verify them.
nsx 1 ethtool -K eth0 tx off >/dev/null
nsx 2 ethtool -K eth0 tx off >/dev/null
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1 and p2" eval "ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2"
head -c 1200 /dev/urandom >/tmp/l4.src

# Part 1: UDP over IPv4, one flow per source port.
udp4='in_port(1),eth(),eth_type(0x0800),ipv4(src=198.51.100.1,dst=198.51.100.2,proto=17,frag=no)'
check "add the UDP port rewriting flows" add_flows dp0 \
	"$udp4,udp(src=41001,dst=6001)" 'set(udp(src=41101,dst=6002)),2' \
	"$udp4,udp(src=41002,dst=6001)" 'set(udp(dst=6002/0xffff)),2' \
	"$udp4,udp(src=41003,dst=6001)" 'set(udp(dst=0x72/0xff)),2'
take_dump dp0
check_eq "the whole-key set reads back" 'set(udp(src=41101,dst=6002)),2' \
	"$(grep -F 'udp(src=41001,' <<<"$dump" | sed 's/.* actions://')"
check_eq "the masked set of a whole field reads back" 'set(udp(dst=6002)),2' \
	"$(grep -F 'udp(src=41002,' <<<"$dump" | sed 's/.* actions://')"
check_eq "the partially masked set reads back" 'set(udp(dst=114/0xff)),2' \
	"$(grep -F 'udp(src=41003,' <<<"$dump" | sed 's/.* actions://')"

tcpdump_start 2 /tmp/l4.udp4 -vv udp
check "set(udp(src,dst)): a datagram to 6001 reaches ns2's socket on 6002" \
	udp_xfer 4 198.51.100.2 6001 41001 198.51.100.2 6002
same_bytes "and arrives intact"
check "set_masked(udp(dst)): a datagram to 6001 reaches 6002" \
	udp_xfer 4 198.51.100.2 6001 41002 198.51.100.2 6002
same_bytes "and arrives intact"
check "set_masked(udp(dst=0x72/0xff)): 6001 (0x1771) becomes 6002 (0x1772)" \
	udp_xfer 4 198.51.100.2 6001 41003 198.51.100.2 6002
same_bytes "and arrives intact"
tcpdump_stop
check "ns2 sees 41101 > 6002 with a good UDP checksum" captured /tmp/l4.udp4 \
	' 198\.51\.100\.1\.41101 > 198\.51\.100\.2\.6002: \[udp sum ok\] UDP, length 1200'
check "ns2 sees 41002 > 6002 with a good UDP checksum" captured /tmp/l4.udp4 \
	' 198\.51\.100\.1\.41002 > 198\.51\.100\.2\.6002: \[udp sum ok\] UDP, length 1200'
check "ns2 sees 41003 > 6002 with a good UDP checksum" captured /tmp/l4.udp4 \
	' 198\.51\.100\.1\.41003 > 198\.51\.100\.2\.6002: \[udp sum ok\] UDP, length 1200'
check_absent "ns2 never sees port 6001 or 41001" '\.(6001|41001)[: ]' /tmp/l4.udp4
check_absent "ns2 sees no bad or missing UDP checksum" 'bad udp cksum|no cksum' /tmp/l4.udp4
take_dump dp0
for p in 41001 41002 41003; do
	check_eq "the flow for source port $p saw its datagram" 1 \
		"$(dump_field "$dump" "udp(src=$p," packets)"
done

# Part 2: IPv6.
check "del-flows before IPv6" ovs-dpctl del-flows dp0
check "IPv6 on ns1's eth0" ns6_on 1
check "IPv6 on ns2's eth0" ns6_on 2
for a in 2 99 98; do
	check "ns1 has a static neighbour for 2001:db8::$a" \
		ns6_neigh 1 "2001:db8::$a" "$(ns_mac 2)"
done
for a in 1 101; do
	check "ns2 has a static neighbour for 2001:db8::$a" \
		ns6_neigh 2 "2001:db8::$a" "$(ns_mac 1)"
done

ip6='in_port(1),eth(),eth_type(0x86dd),ipv6(src=2001:db8::1'
back6='in_port(2),eth(),eth_type(0x86dd),ipv6(src=2001:db8::2,dst=2001:db8::101,proto=58,frag=no),icmpv6(type=129)'
check "add the IPv6 rewriting flows" add_flows dp0 \
	"$ip6,dst=2001:db8::99,proto=17,frag=no),udp(dst=6001)" \
	'set(ipv6(dst=2001:db8::2)),2' \
	"$ip6,dst=2001:db8::98,proto=17,frag=no),udp(dst=6001)" \
	'set(ipv6(dst=::2/::ff)),2' \
	"$ip6,dst=2001:db8::2,proto=58,frag=no),icmpv6(type=128)" \
	'set(ipv6(src=2001:db8::101)),2' \
	"$back6" 'set(ipv6(dst=2001:db8::1)),1'

tcpdump_start 2 /tmp/l4.udp6 -v udp
check "set(ipv6(dst)): UDP to [2001:db8::99] reaches [2001:db8::2]:6001" \
	udp_xfer 6 '[2001:db8::99]' 6001 41004 '[2001:db8::2]' 6001
same_bytes "and arrives intact"
check "set(ipv6(dst=::2/::ff)): UDP to [2001:db8::98] reaches [2001:db8::2]:6001" \
	udp_xfer 6 '[2001:db8::98]' 6001 41005 '[2001:db8::2]' 6001
same_bytes "and arrives intact"
tcpdump_stop
check "ns2 sees the datagram to ::99 at ::2 with a good UDP checksum" \
	captured /tmp/l4.udp6 \
	' 2001:db8::1\.41004 > 2001:db8::2\.6001: \[udp sum ok\] UDP, length 1200'
check "ns2 sees the datagram to ::98 at ::2 with a good UDP checksum" \
	captured /tmp/l4.udp6 \
	' 2001:db8::1\.41005 > 2001:db8::2\.6001: \[udp sum ok\] UDP, length 1200'
check_absent "ns2 never sees 2001:db8::99 or ::98" '2001:db8::9[89]' /tmp/l4.udp6
check_absent "ns2 sees no bad UDP checksum" 'bad udp cksum' /tmp/l4.udp6

tcpdump_start 2 /tmp/l4.icmp6 -v icmp6
check "ping -6 across the source rewrite and back" \
	nsx 1 "${PING[@]}" 2001:db8::2
tcpdump_stop
check "ns2 sees the request from 2001:db8::101 with a good checksum" \
	captured /tmp/l4.icmp6 \
	' 2001:db8::101 > 2001:db8::2: \[icmp6 sum ok\] ICMP6, echo request'
check "ns2 answers 2001:db8::101" captured /tmp/l4.icmp6 \
	' 2001:db8::2 > 2001:db8::101: \[icmp6 sum ok\] ICMP6, echo reply'
check_absent "ns2 never sees 2001:db8::1" '2001:db8::1 >' /tmp/l4.icmp6
check_absent "ns2 sees no bad ICMPv6 checksum" 'bad icmp6 cksum' /tmp/l4.icmp6
take_dump dp0
check_eq "the UDP flow to ::99 saw its datagram" 1 \
	"$(dump_field "$dump" 'dst=2001:db8::99,' packets)"
check_eq "the UDP flow to ::98 saw its datagram" 1 \
	"$(dump_field "$dump" 'dst=2001:db8::98,' packets)"
check_eq "the echo request flow saw both requests" 2 \
	"$(dump_field "$dump" 'icmpv6(type=128)' packets)"
check_eq "the echo reply flow saw both replies" 2 \
	"$(dump_field "$dump" 'icmpv6(type=129)' packets)"

# Part 3: hash(l4) and one flow per dp_hash bucket.
check "del-flows before hash" ovs-dpctl del-flows dp0
check "add the hash flow" add_hash_flow dp0
check "add the dp_hash bucket flows" add_flows dp0 \
	'recirc_id(7),dp_hash(0/1),in_port(1),eth(),eth_type(0x0800),ipv4()' 2 \
	'recirc_id(7),dp_hash(1/1),in_port(1),eth(),eth_type(0x0800),ipv4()' 2
take_dump dp0
check_eq "the hash flow reads back" 'hash(l4(0)),recirc(0x7)' \
	"$(grep -F 'udp(dst=6003)' <<<"$dump" | sed 's/.* actions://')"
check_eq "both bucket flows are installed" 2 \
	"$(grep -cE '^recirc_id\(0x7\),dp_hash\((0|0x1)/0x1\),' <<<"$dump")"

tcpdump_start 2 /tmp/l4.hash udp port 6003
# Each redirection is a new socket, on a new source port.
check "ns1 sends 20 datagrams to 6003" nsx 1 bash -c \
	"for i in \$(seq 20); do echo \$i >/dev/udp/198.51.100.2/6003 || exit 1; done"
tcpdump_stop
check_output "ns2 receives all 20" 20 grep -c ' > 198\.51\.100\.2\.6003: UDP' /tmp/l4.hash
take_dump dp0
b0=$(dump_field "$dump" 'dp_hash(0/0x1)' packets)
b1=$(dump_field "$dump" 'dp_hash(0x1/0x1)' packets)
check_eq "the hash flow saw all 20" 20 \
	"$(dump_field "$dump" 'udp(dst=6003)' packets)"
check_eq "the buckets' counts add up to 20 (bucket 0: $b0, bucket 1: $b1)" 20 \
	"$((b0 + b1))"
# Twenty independent hashes all with the same low bit: 1 in 2^19.
check "bucket 0 saw some" positive "$b0"
check "bucket 1 saw some" positive "$b1"
