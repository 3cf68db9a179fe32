# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dec_ttl: the TTL or hop limit taken down on the wire with the checksum
# right, expiring packets taken by the action's own list, what is refused,
# and the refusal line tools look for in the kernel log.
#
#   ns1                         host                          ns2
#   [eth0]<--veth-->[p1]--(1)-- dp0 --(2)--[p2]<--veth-->[eth0]
#   198.51.100.1                 |                         198.51.100.2
#   2001:db8::1                 (3)                        2001:db8::2
#                                |
#                               [p3]<--veth-->[eth0] ns3 (only listens)
#
#   1->2 ICMP:       dec_ttl(le_1(3)),2       ICMPv6: the same
#   1->2 UDP 6000:   dec_ttl(le_1()),2        (an expiring one is dropped)
#   2->1:            1
#
# OVS 3.1's ovs-dpctl neither parses nor prints dec_ttl (its userspace
# enum gives 23 to tunnel_push), so those flows go in and are read back
# through Generic Netlink (dp.py).  A ping with TTL 64 arrives with 63 and
# a good header checksum and is answered; one with TTL 1 goes to ns3
# untouched instead, and no further; the same for IPv6 hop limits.  A UDP
# datagram with TTL 2 arrives with 1, one with TTL 1 nowhere.  The flows
# read back as put, an attribute past OVS_DEC_TTL_ATTR_MAX left out.
# Malformed dec_ttl actions get the in-tree module's errnos, and a flow
# refused for its actions logs "Flow actions may not be safe on all
# matching packets." unless it was a probe.

# shellcheck source=../netns.sh
. ./netns.sh

case_cleanup() {
	tcpdump_stop
	ovs-dpctl del-dp dp0
	ns_del 1 2 3
	rm -f /tmp/ttl.*
}

# dp.py put DP KEY ACTIONS [probe]: OVS_FLOW_CMD_NEW, printing OK or the
# errno's name; dp.py actions DP KEY: the flow's OVS_FLOW_ATTR_ACTIONS
# payload in hex, or the errno's name; dp.py encode ACTIONS: the hex of
# ACTIONS.  KEY is PROTO:IN_PORT[:L4_DST] with PROTO icmp, udp (IPv4) or
# icmp6; ACTIONS a Python expression over output(PORT), dec_ttl(ACTION...,
# extra=ATTRS) and nla(TYPE, DATA).
cat >/tmp/ttl.dp.py <<'EOF'
import errno, os, socket, struct, sys

def nla(kind, data=b''):
    return struct.pack('=HH', 4 + len(data), kind) + data + bytes(-len(data) % 4)

def attrs(data):
    while len(data) >= 4:
        size, kind = struct.unpack_from('=HH', data)
        yield kind & 0x3fff, data[4:size]
        data = data[(size + 3) & ~3:]

def output(port):
    return nla(1, struct.pack('=I', port))      # OVS_ACTION_ATTR_OUTPUT

def dec_ttl(*acts, extra=b''):
    # OVS_ACTION_ATTR_DEC_TTL holding OVS_DEC_TTL_ATTR_ACTION.
    return nla(23, nla(1, b''.join(acts)) + extra)

def match(spec):
    proto, port, *l4 = spec.split(':')
    number = {'icmp': 1, 'udp': 17, 'icmp6': 58}[proto]
    v6 = proto == 'icmp6'
    key = nla(3, struct.pack('=I', int(port))) + nla(4, bytes(12))
    mask = nla(3, struct.pack('=I', 0xffffffff)) + nla(4, bytes(12))
    key += nla(6, struct.pack('!H', 0x86dd if v6 else 0x0800))
    mask += nla(6, struct.pack('!H', 0xffff))
    if v6:   # OVS_KEY_ATTR_IPV6: src, dst, label, proto, tclass, hlimit, frag
        key += nla(8, bytes(36) + bytes([number, 0, 0, 0]))
        mask += nla(8, bytes(36) + bytes([0xff, 0, 0, 0xff]))
    else:    # OVS_KEY_ATTR_IPV4: src, dst, proto, tos, ttl, frag
        key += nla(7, bytes(8) + bytes([number, 0, 0, 0]))
        mask += nla(7, bytes(8) + bytes([0xff, 0, 0, 0xff]))
    if proto == 'udp':   # OVS_KEY_ATTR_UDP: any source, L4_DST
        key += nla(10, struct.pack('!HH', 0, int(l4[0])))
        mask += nla(10, struct.pack('!HH', 0, 0xffff))
    else:                # OVS_KEY_ATTR_ICMP(V6): any type and code
        key += nla(12 if v6 else 11, bytes(2))
        mask += nla(12 if v6 else 11, bytes(2))
    return key, mask

def transact(sk, family, cmd, payload, flags=0):
    body = struct.pack('=BBH', cmd, 1, 0) + payload
    # NLM_F_REQUEST | NLM_F_ACK
    sk.send(struct.pack('=IHHII', 16 + len(body), family, flags | 5, 1, 0)
            + body)
    replies = []
    while True:
        data = sk.recv(1 << 20)
        while len(data) >= 16:
            size, kind = struct.unpack_from('=IH', data)
            if kind == 2:  # NLMSG_ERROR: the ack
                return -struct.unpack_from('=i', data, 16)[0], replies
            replies.append(data[20:size])
            data = data[(size + 3) & ~3:]

def answer(err):
    return 'OK' if not err else errno.errorcode.get(err, str(err))

def connect():
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
    # CTRL_CMD_GETFAMILY(CTRL_ATTR_FAMILY_NAME) to GENL_ID_CTRL.
    err, reply = transact(sk, 0x10, 3, nla(2, b'ovs_flow\0'))
    if err:
        sys.exit('no ovs_flow family: ' + os.strerror(err))
    return sk, [struct.unpack('=H', v[:2])[0]
                for k, v in attrs(reply[0]) if k == 1][0]

cmd = sys.argv[1]
if cmd == 'encode':
    print(eval(sys.argv[2]).hex())
    sys.exit(0)
sk, family = connect()
header = struct.pack('=i', socket.if_nametoindex(sys.argv[2]))
key, mask = match(sys.argv[3])
if cmd == 'put':
    payload = header + nla(1, key) + nla(2, eval(sys.argv[4])) + nla(7, mask)
    if sys.argv[5:] == ['probe']:
        payload += nla(8)                       # OVS_FLOW_ATTR_PROBE
    print(answer(transact(sk, family, 1, payload, 0x400)[0]))  # NLM_F_CREATE
elif cmd == 'actions':
    err, replies = transact(sk, family, 3, header + nla(1, key))
    acts = [v for r in replies for k, v in attrs(r[4:]) if k == 2]
    print(acts[0].hex() if not err and acts else answer(err or errno.ENOENT))
EOF

dp_py() { python3 /tmp/ttl.dp.py "$@"; }

# joined FILE: a tcpdump -v capture with each packet on one line.
joined() {
	awk '/^[ \t]/ { line = line " " $0; next }
		{ if (line != "") print line; line = $0 }
		END { if (line != "") print line }' "$1"
}

# unsafe_lines: how many "Flow actions may not be safe" lines the kernel
# log holds.
unsafe_lines() {
	local log

	log=$(dmesg) || return 1
	grep -c 'Flow actions may not be safe on all matching packets\.' \
		<<<"$log" || true
}

# ns6_on N: IPv6 on nsN's eth0 alone, as 2001:db8::N: no link-local
# address, router solicitation or DAD probe.
ns6_on() {
	nsx "$1" sysctl -qw net.ipv6.conf.eth0.accept_ra=0 \
		net.ipv6.conf.eth0.router_solicitations=0 \
		net.ipv6.conf.eth0.addr_gen_mode=1 \
		net.ipv6.conf.eth0.accept_dad=0 \
		net.ipv6.conf.eth0.disable_ipv6=0 &&
		nsx "$1" ip -6 addr add "2001:db8::$1/64" dev eth0 nodad
}

ns_add 1
ns_add 2
ns_add 3
ns_neigh 1 2
ns_neigh 2 1
check "IPv6 on ns1 and ns2" eval "ns6_on 1 && ns6_on 2"
check "static IPv6 neighbours" eval \
	"nsx 1 ip -6 neigh replace 2001:db8::2 lladdr $(ns_mac 2) dev eth0 nud permanent &&
	 nsx 2 ip -6 neigh replace 2001:db8::1 lladdr $(ns_mac 1) dev eth0 nud permanent"
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1, p2 and p3" eval \
	"ovs-dpctl add-if dp0 p1 && ovs-dpctl add-if dp0 p2 && ovs-dpctl add-if dp0 p3"

# The refusal line first, while no other refusal has spent the log's
# rate limit: a dec_ttl without its list is refused in both modules.
sleep 5
before=$(unsafe_lines)
check_output "a probe with a bad dec_ttl is refused" EINVAL \
	dp_py put dp0 icmp:1 'nla(23)' probe
check_output "and logs no refusal line" "$before" unsafe_lines
check_output "the same flow, not a probe, is refused" EINVAL \
	dp_py put dp0 icmp:1 'nla(23)'
check_output "and logs 'Flow actions may not be safe on all matching packets.'" \
	"$((before + 1))" unsafe_lines

while IFS='|' read -r what acts want; do
	check_output "dec_ttl $what: $want" "$want" dp_py put dp0 icmp:1 "$acts"
done <<'EOT'
with its list twice|nla(23, nla(1, output(3)) + nla(1, output(3)))|EINVAL
with an attribute of type 0|nla(23, nla(0) + nla(1, output(3)))|EINVAL
with a list shorter than an attribute|nla(23, nla(1, b'\1\2'))|EINVAL
with trailing bytes|nla(23, nla(1, output(3)) + b'\1\0\0\0')|EINVAL
nested 17 deep|eval('dec_ttl(' * 17 + ')' * 17)|EOVERFLOW
EOT
check_output "dec_ttl nested 16 deep is accepted" OK \
	dp_py put dp0 udp:1:6001 "eval('dec_ttl(' * 16 + 'output(2)' + ')' * 16)"
check "del-flows" ovs-dpctl del-flows dp0

# The forwarding flows.
check_output "put 1->2 ICMP: dec_ttl(le_1(3)),2" OK \
	dp_py put dp0 icmp:1 'dec_ttl(output(3)) + output(2)'
check_output "put 1->2 ICMPv6: dec_ttl(le_1(3)),2, with an attribute dec_ttl skips" OK \
	dp_py put dp0 icmp6:1 "dec_ttl(output(3), extra=nla(9, b'\\1\\2\\3\\4')) + output(2)"
check_output "put 1->2 UDP 6000: dec_ttl(le_1()),2" OK \
	dp_py put dp0 udp:1:6000 'dec_ttl() + output(2)'
check "add 2->1" add_flows dp0 \
	'in_port(2),eth(),eth_type(0x0800),ipv4()' 1 \
	'in_port(2),eth(),eth_type(0x86dd),ipv6()' 1
check_output "the ICMP flow reads back as put" \
	"$(dp_py encode 'dec_ttl(output(3)) + output(2)')" \
	dp_py actions dp0 icmp:1
check_output "the ICMPv6 flow reads back without the skipped attribute" \
	"$(dp_py encode 'dec_ttl(output(3)) + output(2)')" \
	dp_py actions dp0 icmp6:1
check_output "the UDP flow reads back with its empty list" \
	"$(dp_py encode 'dec_ttl() + output(2)')" \
	dp_py actions dp0 udp:1:6000

# ns2 records what comes from ns1 only: its own answers (ICMP port
# unreachable among them) would quote ns1's packets again.
tcpdump_start 2 /tmp/ttl.ns2 -v src host 198.51.100.1 or src host 2001:db8::1
tcpdump_pid2=$tcpdump_pid
tcpdump_start 3 /tmp/ttl.ns3 -v
check "ping with TTL 64 across dec_ttl" nsx 1 "${PING[@]}" 198.51.100.2
check_fails "ping with TTL 1: no answer" \
	nsx 1 ping -n -q -c 1 -W 1 -t 1 198.51.100.2
check "ping -6 with hop limit 64 across dec_ttl" \
	nsx 1 "${PING[@]}" 2001:db8::2
check_fails "ping -6 with hop limit 1: no answer" \
	nsx 1 ping -n -q -c 1 -W 1 -t 1 2001:db8::2
for ttl in 2 1; do
	check "ns1 sends a UDP datagram to port 6000 with TTL $ttl" \
		eval "echo ttl$ttl | nsx 1 socat -u - UDP4-SENDTO:198.51.100.2:6000,ttl=$ttl"
done
tcpdump_stop
tcpdump_pid=$tcpdump_pid2
tcpdump_stop
for f in /tmp/ttl.ns2 /tmp/ttl.ns3; do
	joined "$f" >"$f.j"
done

check "ns2 sees the echo requests with TTL 63" captured /tmp/ttl.ns2 \
	'ttl 63,.* 198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request'
check_absent "ns2 sees no bad IPv4 header checksum" 'bad cksum' /tmp/ttl.ns2
check_absent "ns2 sees nothing from ns1 with TTL 1 or 0" \
	'ttl [01],.* 198\.51\.100\.1 > ' /tmp/ttl.ns2.j
check "ns2 sees the IPv6 echo requests with hop limit 63" captured /tmp/ttl.ns2 \
	'hlim 63,.* 2001:db8::1 > 2001:db8::2: \[icmp6 sum ok\] ICMP6, echo request'
check_absent "ns2 sees nothing from ns1 with hop limit 1 or 0" \
	'hlim [01],.* 2001:db8::1 > ' /tmp/ttl.ns2.j
check "ns2 sees the UDP datagram that had TTL 2 with TTL 1" captured /tmp/ttl.ns2 \
	'ttl 1,.* 198\.51\.100\.1\.[0-9]+ > 198\.51\.100\.2\.6000: UDP'
check_output "and no other" 1 grep -c '198\.51\.100\.2\.6000: UDP' /tmp/ttl.ns2.j
check "ns3 sees the expiring echo request as sent, TTL 1" captured /tmp/ttl.ns3 \
	'ttl 1,.* 198\.51\.100\.1 > 198\.51\.100\.2: ICMP echo request'
check "ns3 sees the expiring IPv6 echo request, hop limit 1" captured /tmp/ttl.ns3 \
	'hlim 1,.* 2001:db8::1 > 2001:db8::2: \[icmp6 sum ok\] ICMP6, echo request'
check_absent "ns3 sees nothing that had not expired" \
	'ttl ([2-9]|[1-9][0-9])|hlim ([2-9]|[1-9][0-9])' /tmp/ttl.ns3.j
