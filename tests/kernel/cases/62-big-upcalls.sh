# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Misses too big for one page, and GSO misses, reach userspace whole and
# with their checksums right.
#
#   ns1                         host
#   [eth0]<--veth-->[p1]--(1)-- dp0
#   198.51.100.1    mtu 9000     |
#   02:..:01                bin/upcall-listen -c: the upcall PID of p1
#
# No flows: everything ns1 sends is a miss.  ns1 sends, in turn, a 9014-byte
# ping (a linear skb), then through an AF_PACKET socket (which puts the
# data in page fragments, the layout a jumbo frame has off a NIC): a
# 9014-byte ICMP echo request, the same with an 802.1Q tag (VID 10, which
# the receive path moves into skb metadata), a 5054-byte TCP segment whose
# checksum is left for the device to fill in (virtio-net header, NEEDS_CSUM:
# CHECKSUM_PARTIAL), and a 4398-byte TCP GSO packet of three 1448-byte
# segments.  The upcalls must carry each frame byte for byte as ns1 sent
# it, the tag written back and the TCP checksum completed; the GSO packet
# comes up as three segments with consecutive sequence numbers, good
# checksums and the payload in order.
#
# All of it twice: with OVS_DP_F_UNALIGNED on, as ovs-dpctl and
# ovs-vswitchd set it, where our datapath attaches the fragments to the
# upcall instead of copying them, and off (upcall-listen -u), where the
# frame is copied and padded for old userspace.

# shellcheck source=../netns.sh
. ./netns.sh

LISTEN=$PWD/bin/upcall-listen
listen_pid=

case_cleanup() {
	[ -z "$listen_pid" ] || kill "$listen_pid" 2>/dev/null
	ovs-dpctl del-dp dp0
	ns_del 1
	rm -f /tmp/big.*
}

# The frames: big.py send NAME sends one from ns1's eth0 and writes the
# frame as userspace must see it to /tmp/big.want.NAME (hex); big.py check
# NAME OUT INDEX compares upcall INDEX (counted from 1) of OUT with it and
# prints "same" or where they differ; big.py gso OUT FIRST checks the three
# segments from upcall FIRST on and prints "segments in order".
cat >/tmp/big.py <<'EOF'
import socket, struct, sys

SRC, DST = bytes.fromhex('020000000001'), bytes.fromhex('020000000002')
IP_SRC, IP_DST = socket.inet_aton('198.51.100.1'), socket.inet_aton('198.51.100.2')
MSS, NSEG = 1448, 3

def csum(data, start=0):
    if len(data) % 2:
        data += b'\0'
    s = start + sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

def ipv4(proto, payload, ident):
    hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), ident,
                      0x4000, 64, proto, 0, IP_SRC, IP_DST)
    return hdr[:10] + struct.pack('!H', 0xffff - csum(hdr)) + hdr[12:] + payload

def pseudo(proto, length):
    return csum(IP_SRC + IP_DST + struct.pack('!HH', proto, length))

def icmp_echo(size):
    body = struct.pack('!HH', 0x4242, 1) + bytes(i & 0xff for i in range(size))
    msg = struct.pack('!BBH', 8, 0, 0) + body
    return msg[:2] + struct.pack('!H', 0xffff - csum(msg)) + msg[4:]

def tcp(payload, seq, check=None):
    hdr = struct.pack('!HHIIBBHHH', 40001, 5001, seq, 1, 5 << 4, 0x18,
                      65535, 0, 0)
    if check is None:
        check = 0xffff - csum(hdr + payload, pseudo(6, len(hdr) + len(payload)))
    return hdr[:16] + struct.pack('!H', check) + hdr[18:] + payload

def eth(payload, tag=None):
    head = DST + SRC
    if tag is not None:
        head += struct.pack('!HH', 0x8100, tag)
    return head + b'\x08\x00' + payload

def pattern(n, seed):
    return bytes((i * 7 + seed) & 0xff for i in range(n))

def frame(name):
    """(frame to send, frame userspace must see, virtio-net header)"""
    if name == 'icmp9000':
        f = eth(ipv4(1, icmp_echo(8980 - 8), 1))
        return f, f, None
    if name == 'vlan9000':
        f = eth(ipv4(1, icmp_echo(8980 - 8), 2), tag=10)
        return f, f, None
    if name == 'tcp5000':
        data = pattern(5000, 3)
        whole = eth(ipv4(6, tcp(data, 1000), 3))
        part = eth(ipv4(6, tcp(data, 1000, pseudo(6, 20 + len(data))), 3))
        # NEEDS_CSUM, no GSO, 54 header bytes, checksum at 34 + 16.
        return part, whole, struct.pack('<BBHHHH', 1, 0, 54, 0, 34, 16)
    if name == 'gso':
        data = pattern(MSS * NSEG, 5)
        part = eth(ipv4(6, tcp(data, 7000, pseudo(6, 20 + len(data))), 4))
        # NEEDS_CSUM, GSO_TCPV4 with gso_size MSS.
        return part, None, struct.pack('<BBHHHH', 1, 1, 54, MSS, 34, 16)
    sys.exit('unknown frame ' + name)

def upcalls(path):
    """The hex of each upcall's packet, in order."""
    return [line.split()[2] for line in open(path)
            if line.startswith('packet hex ')]

cmd = sys.argv[1]
if cmd == 'send':
    send, want, vnet = frame(sys.argv[2])
    sk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    if vnet:
        sk.setsockopt(263, 15, 1)  # SOL_PACKET, PACKET_VNET_HDR
    sk.bind(('eth0', 0))
    sk.send((vnet or b'') + send)
    if want:
        open('/tmp/big.want.' + sys.argv[2], 'w').write(want.hex())
elif cmd == 'check':
    want = open('/tmp/big.want.' + sys.argv[2]).read()
    got = upcalls(sys.argv[3])[int(sys.argv[4]) - 1]
    if got == want:
        print('same')
    else:
        at = next((i for i in range(min(len(got), len(want)))
                   if got[i] != want[i]), min(len(got), len(want)))
        print('%d bytes, want %d, first difference at byte %d'
              % (len(got) // 2, len(want) // 2, at // 2))
elif cmd == 'gso':
    first = int(sys.argv[3]) - 1
    segs = [bytes.fromhex(h) for h in upcalls(sys.argv[2])[first:first + NSEG]]
    data = b''.join(s[54:] for s in segs)
    seqs = [struct.unpack('!I', s[38:42])[0] for s in segs]
    if len(segs) != NSEG:
        print('%d segments' % len(segs))
    elif seqs != [7000 + i * MSS for i in range(NSEG)]:
        print('sequence numbers %s' % seqs)
    elif data != pattern(MSS * NSEG, 5):
        print('payload differs')
    else:
        print('segments in order')
EOF

# listen OUT COUNT [FLAGS...]: upcall-listen -c for COUNT upcalls on p1.
listen() {
	local out=$1 count=$2
	shift 2

	"$LISTEN" -c -n "$count" -t 60 "$@" p1 >"$out" 2>"$out.err" &
	listen_pid=$!
	wait_for 50 grep -qx ready "$out"
}

collected() {
	local rc=0

	wait "$listen_pid" || rc=$?
	listen_pid=
	sed "s/^/# /" "$1.err"
	check_eq "upcall-listen got $2" "0" "$rc"
}

# one_pass MODE [FLAGS...]: every frame up once, checked.
one_pass() {
	local mode=$1 out=/tmp/big.$1 name i
	shift

	listen "$out" 7 "$@"
	check_eq "upcall-listen is up ($mode)" 0 "$?"
	check_fails "a 9014-byte ping: a miss, no reply ($mode)" \
		nsx 1 ping -n -q -c 1 -W 1 -s 8972 -p c0ffee 198.51.100.2
	for name in icmp9000 vlan9000 tcp5000 gso; do
		check "ns1 sends $name through AF_PACKET ($mode)" \
			nsx 1 python3 /tmp/big.py send "$name"
	done
	collected "$out" "the seven misses ($mode)"

	check_eq "the ping came up whole, checksums good ($mode)" \
		"$(printf 'packet len=9014\npacket csum l3=ok l4=ok')" \
		"$(grep -A1 -m1 '^packet len=' "$out")"
	check "and carries ping's pattern to its end ($mode)" \
		grep -Eq '^packet hex .*(c0ffee){1000}' "$out"
	i=2
	for name in icmp9000 vlan9000 tcp5000; do
		check_output "$name came up byte for byte ($mode)" same \
			python3 /tmp/big.py check "$name" "$out" "$i"
		i=$((i + 1))
	done
	check_output "the GSO packet came up as its three segments ($mode)" \
		"segments in order" python3 /tmp/big.py gso "$out" 5
	check_output "every upcall's checksums are good ($mode)" 7 \
		grep -c '^packet csum l3=ok l4=ok$' "$out"
	check_eq "the TCP upcalls' keys name port 40001 ($mode)" 4 \
		"$(grep -c '^key tcp src=40001 dst=5001$' "$out")"
}

check "the upcall-listen tool is in the job" test -x "$LISTEN"
ns_add 1
ns_neigh 1 2
check "MTU 9000 on both ends of ns1's cable" eval \
	"ip link set p1 mtu 9000 && nsx 1 ip link set eth0 mtu 9000"
check "add-dp dp0" ovs-dpctl add-dp dp0
check "add-if p1" ovs-dpctl add-if dp0 p1

one_pass unaligned
one_pass aligned -u
# A GSO packet is one miss, whatever its segments.
check_output "the datapath counted 10 misses, none lost" \
	"hit:0 missed:10 lost:0" \
	eval "ovs-dpctl show dp0 | sed -n 's/^ *lookups: //p'"
