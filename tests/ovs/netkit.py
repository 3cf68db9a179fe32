#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""netkit.py: the small network actors of the ovs suite, inside a test host.

  arp IFACE MAC IP TARGET [VID]
      send one broadcast ARP request "who-has TARGET tell IP" from MAC out
      of IFACE, 802.1Q-tagged with VID when given (a raw frame, so that a
      test can put any tag on the wire, or none)
  arps NETNS,IFACE,MAC,IP,TARGET[,VID]...
      the same for each spec, IFACE in the named network namespace
      (/run/netns/NETNS), from one process: Python starts slowly under TCG
  tap DEV MAC IP CONTROL READY
      a guest behind the tap DEV, as QEMU is behind the taps libvirt
      makes: attach with IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, answer ARP
      and ICMP echo for IP as MAC, and send "arp TARGET" requests written
      to the FIFO CONTROL; touch READY once attached
  listen ADDR PORT READY
      accept TCP connections (backlog 4096) and hold them until killed
  connect ADDR PORT COUNT PORTS
      open COUNT TCP connections to ADDR:PORT at once; print how many
      completed, how long it took and why the others failed; write every
      connection's local port to PORTS; exit 0 only if all completed
  stream-send ADDR PORT STOP
      a TCP connection that carries a numbered line every 50 ms until the
      file STOP exists, then "end N"; exit 0 only if every write went out
  stream-recv ADDR PORT OUT READY
      accept one connection; write "ARRIVAL-TIME LINE" to OUT for every
      line; exit 0 only if the stream ended with its "end" line

Every failure exits non-zero with a message on stderr.
"""

import errno
import fcntl
import os
import resource
import select
import selectors
import socket
import struct
import sys
import time

ETH_P_ARP = 0x0806
ETH_P_IP = 0x0800
ETH_P_8021Q = 0x8100
BROADCAST = b"\xff" * 6


def mac_bytes(text):
    return bytes(int(x, 16) for x in text.split(":"))


def arp_request(mac, ip, target, vid=None):
    """A broadcast ARP request frame, padded to the 60-byte minimum."""
    eth = BROADCAST + mac
    if vid is not None:
        eth += struct.pack("!HH", ETH_P_8021Q, vid & 0xFFF)
    eth += struct.pack("!H", ETH_P_ARP)
    arp = struct.pack("!HHBBH", 1, ETH_P_IP, 6, 4, 1)
    arp += mac + socket.inet_aton(ip) + b"\0" * 6 + socket.inet_aton(target)
    frame = eth + arp
    return frame + b"\0" * max(0, 60 - len(frame))


def cmd_arp(iface, mac, ip, target, vid=None):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((iface, 0))
    sock.send(arp_request(mac_bytes(mac), ip, target,
                          None if vid is None else int(vid)))
    return 0


CLONE_NEWNET = 0x40000000


def cmd_arps(*specs):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    for spec in specs:
        fields = spec.split(",")
        if len(fields) not in (5, 6):
            print("arps: bad spec %r" % spec, file=sys.stderr)
            return 2
        netns, iface, mac, ip, target = fields[:5]
        fd = os.open("/run/netns/" + netns, os.O_RDONLY)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "setns %s: %s" % (netns, os.strerror(err)))
        os.close(fd)
        cmd_arp(iface, mac, ip, target, *fields[5:])
    return 0


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def guest_reply(frame, mac, ip):
    """The guest's answer to FRAME (ARP request or ICMP echo for IP), or
    None."""
    if len(frame) < 14 or frame[0:6] not in (mac, BROADCAST):
        return None
    (ethertype,) = struct.unpack("!H", frame[12:14])
    body = frame[14:]
    if ethertype == ETH_P_ARP and len(body) >= 28:
        op = struct.unpack("!H", body[6:8])[0]
        sha, spa, tpa = body[8:14], body[14:18], body[24:28]
        if op != 1 or tpa != ip:
            return None
        arp = struct.pack("!HHBBH", 1, ETH_P_IP, 6, 4, 2)
        arp += mac + ip + sha + spa
        reply = sha + mac + struct.pack("!H", ETH_P_ARP) + arp
        return reply + b"\0" * max(0, 60 - len(reply))
    if ethertype == ETH_P_IP and len(body) >= 20 and frame[0:6] == mac:
        ihl = (body[0] & 0xF) * 4
        total = struct.unpack("!H", body[2:4])[0]
        if body[9] != 1 or body[16:20] != ip or total > len(body):
            return None
        icmp = body[ihl:total]
        if len(icmp) < 8 or icmp[0] != 8:
            return None
        icmp = b"\0\0\0\0" + icmp[4:]
        icmp = icmp[:2] + struct.pack("!H", checksum(icmp)) + icmp[4:]
        hdr = bytearray(body[:ihl])
        hdr[8] = 64
        hdr[10:12] = b"\0\0"
        hdr[12:16], hdr[16:20] = body[16:20], body[12:16]
        hdr[10:12] = struct.pack("!H", checksum(bytes(hdr)))
        return frame[6:12] + mac + struct.pack("!H", ETH_P_IP) + \
            bytes(hdr) + icmp
    return None


TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
IFF_VNET_HDR = 0x4000
VNET_HDR_LEN = 10


def cmd_tap(dev, mac, ip, control, ready):
    mac, ip = mac_bytes(mac), socket.inet_aton(ip)
    tun = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(tun, TUNSETIFF, struct.pack(
        "16sH", dev.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    # Read-write, so that the FIFO never reads as closed between writers.
    ctl = os.open(control, os.O_RDWR | os.O_NONBLOCK)
    open(ready, "w").close()
    pending = b""
    while True:
        readable, _, _ = select.select([tun, ctl], [], [])
        if tun in readable:
            frame = os.read(tun, 65536)[VNET_HDR_LEN:]
            reply = guest_reply(frame, mac, ip)
            if reply is not None:
                os.write(tun, b"\0" * VNET_HDR_LEN + reply)
        if ctl in readable:
            pending += os.read(ctl, 4096)
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                words = line.decode().split()
                if len(words) == 2 and words[0] == "arp":
                    frame = arp_request(mac, socket.inet_ntoa(ip), words[1])
                    os.write(tun, b"\0" * VNET_HDR_LEN + frame)
                else:
                    print("tap %s: unknown command %r" % (dev, line),
                          file=sys.stderr)


def raise_nofile(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < want:
        hard = want
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def cmd_listen(addr, port, ready):
    raise_nofile(8192)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((addr, int(port)))
    sock.listen(4096)
    open(ready, "w").close()
    held = []
    while True:
        conn, _ = sock.accept()
        held.append(conn)


def cmd_connect(addr, port, count, ports_file):
    count = int(count)
    raise_nofile(count + 64)
    sel = selectors.DefaultSelector()
    start = time.monotonic()
    ports = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        err = sock.connect_ex((addr, int(port)))
        if err not in (0, errno.EINPROGRESS):
            print("connect: %s" % os.strerror(err), file=sys.stderr)
            return 1
        ports.append(sock.getsockname()[1])
        sel.register(sock, selectors.EVENT_WRITE)
    done, failed, why = 0, 0, {}
    deadline = start + 100
    while done + failed < count and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1):
            sock = key.fileobj
            sel.unregister(sock)
            err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err == 0:
                done += 1
            else:
                failed += 1
                name = errno.errorcode.get(err, str(err))
                why[name] = why.get(name, 0) + 1
    elapsed = time.monotonic() - start
    with open(ports_file, "w") as out:
        out.write("".join("%d\n" % p for p in sorted(ports)))
    reasons = ", ".join("%s %d" % kv for kv in sorted(why.items()))
    print("%d of %d connections completed in %.2f s (%d failed%s%s)"
          % (done, count, elapsed, failed, ": " if reasons else "", reasons))
    return 0 if done == count else 1


def cmd_stream_send(addr, port, stop):
    sock = socket.create_connection((addr, int(port)), timeout=30)
    sock.settimeout(60)
    seq = 0
    while not os.path.exists(stop):
        seq += 1
        sock.sendall(b"%d\n" % seq)
        time.sleep(0.05)
    sock.sendall(b"end %d\n" % seq)
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)
    return 0


def cmd_stream_recv(addr, port, out_file, ready):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((addr, int(port)))
    sock.listen(1)
    open(ready, "w").close()
    conn, _ = sock.accept()
    last = b""
    with open(out_file, "w") as out:
        for line in conn.makefile("rb"):
            last = line.strip()
            out.write("%.3f %s\n" % (time.time(), last.decode()))
            out.flush()
    conn.close()
    return 0 if last.startswith(b"end ") else 1


COMMANDS = {
    "arp": (cmd_arp, (4, 5)),
    "arps": (cmd_arps, (1, 64)),
    "tap": (cmd_tap, (5, 5)),
    "listen": (cmd_listen, (3, 3)),
    "connect": (cmd_connect, (4, 4)),
    "stream-send": (cmd_stream_send, (3, 3)),
    "stream-recv": (cmd_stream_recv, (4, 4)),
}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    func, (low, high) = COMMANDS[argv[1]]
    args = argv[2:]
    if not low <= len(args) <= high:
        print("netkit.py %s: wrong number of arguments" % argv[1],
              file=sys.stderr)
        return 2
    try:
        return func(*args)
    except OSError as err:
        print("netkit.py %s: %s" % (argv[1], err), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
