#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""clocksync.py serve PORT | sync HOST PORT [--dry-run]: put this host's
clock on another's, over the host link (the migration suite, 00-start).

The test hosts set their clocks from the emulated RTC at boot, which has
whole seconds: two hosts started together run up to a second apart.
libvirt's downtime is the destination's clock at the resume minus the
source's at the pause, so that offset goes into every downtime the suite
reports, with opposite signs for the two directions.

serve answers each request on TCP PORT with its CLOCK_REALTIME in ns,
until killed.  sync asks HOST 32 times, keeps the answer with the
shortest round trip, and steps this host's clock by the difference
between HOST's time and the middle of that round trip (unless
--dry-run).  It prints "offset O ms, round trip R ms" (the offset before
the step; positive: HOST was ahead).  Exit status 0, or 1 with a message.
"""
import socket
import struct
import sys
import time

SAMPLES = 32


def die(msg):
    print(f"clocksync.py: {msg}", file=sys.stderr)
    sys.exit(1)


def serve(port):
    with socket.create_server(("", port), reuse_port=True) as srv:
        while True:
            conn, _ = srv.accept()
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                while conn.recv(1):
                    conn.sendall(struct.pack("!q", time.time_ns()))


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        got = conn.recv(n - len(buf))
        if not got:
            die("the server closed the connection")
        buf += got
    return buf


def sync(host, port, dry_run):
    best = None
    try:
        conn = socket.create_connection((host, port), timeout=10)
    except OSError as e:
        die(f"cannot reach {host}:{port}: {e}")
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(SAMPLES):
            t0 = time.time_ns()
            conn.sendall(b"?")
            theirs = struct.unpack("!q", recv_exact(conn, 8))[0]
            t1 = time.time_ns()
            if best is None or t1 - t0 < best[0]:
                best = (t1 - t0, theirs - (t0 + t1) // 2)
    rtt, offset = best
    if not dry_run:
        time.clock_settime_ns(time.CLOCK_REALTIME, time.time_ns() + offset)
    print(f"offset {offset / 1e6:.1f} ms, round trip {rtt / 1e6:.1f} ms")


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "serve":
        serve(int(args[1]))
    elif len(args) in (3, 4) and args[0] == "sync" and \
            args[3:] in ([], ["--dry-run"]):
        sync(args[1], int(args[2]), args[3:] == ["--dry-run"])
    else:
        die("usage: clocksync.py serve PORT | sync HOST PORT [--dry-run]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
