#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lossmap.py OUT MODE: where each UDP datagram lost in MODE's migrations
was last seen (issue 18).

OUT is a migration run's out/ directory (suite.sh --out, with --env
MIG_PCAP=1): the probe's trace (trace.MODE, host 2's clock), both hosts'
timelines (timeline.MODE.hostN.json, or timeline.hostN.json for the
agent mode) and both uplinks' captures as received and as sent
(upN.MODE.in.pcap, upN.MODE.out.pcap, each host's own clock), and,
where the run kept them, what the guest's taps on each host passed to
the guest (upN.MODE.tap.IFINDEX.pcap, "tapN>guest").

A datagram counts as lost when the probe got no answer for it.  Runs of
lost datagrams are printed one a line, under the migration they fall in:
how many, when the first was sent (by the probe's own stamp in the
datagram, put on host 2's clock by the answered ones; or, for one no
capture saw, the nearest that one did plus 10 ms a datagram; in ms after
that migration's pause on the source), the RARPs each capture saw around the pause, and the captures
that saw them, e.g. "up2>out up1<in" for frames host 2 sent and host 1
received but never sent back; the migration's line also has the
source's count of frames its taps held at the pause, and of those the
one QEMU had kept.  Host 1's clock is put on host 2's by the
frames host 2 sent and host 1 received (the median difference, which
includes the link's latency).  Exit status 0, or 1 with a message when
an input is missing or malformed.
"""
import bisect
import json
import statistics
import struct
import sys
from pathlib import Path

ECHO_PORT = 7000


def die(msg):
    # the running script's name: gapmap.py reads with these functions too
    print(f"{Path(sys.argv[0]).name}: {msg}", file=sys.stderr)
    sys.exit(1)


def pcap_frames(path):
    """(time in ms, frame bytes) for each record of a classic pcap file."""
    data = path.read_bytes()
    if len(data) < 24:
        die(f"{path}: not a pcap file")
    magic = struct.unpack_from("<I", data)[0]
    units = {0xA1B2C3D4: 1e-3, 0xA1B23C4D: 1e-6}
    if magic not in units:
        die(f"{path}: not a little-endian pcap file")
    if struct.unpack_from("<I", data, 20)[0] != 1:
        die(f"{path}: not an Ethernet capture")
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        off += 16
        yield sec * 1000 + frac * units[magic], data[off:off + incl]
        off += incl


def udp_seq(frame, stamp=None):
    """('to'|'from', seq) for a probe datagram to the echo or its answer,
    else None.  STAMP, a dict, gets seq: the probe's send time (ms of
    its CLOCK_MONOTONIC) of each datagram to the echo."""
    etype = struct.unpack_from("!H", frame, 12)[0]
    l3 = 14
    if etype == 0x8100:
        etype = struct.unpack_from("!H", frame, 16)[0]
        l3 = 18
    if etype != 0x0800 or len(frame) < l3 + 20 or frame[l3 + 9] != 17:
        return None
    l4 = l3 + (frame[l3] & 0xF) * 4
    if len(frame) < l4 + 16:
        return None
    sport, dport = struct.unpack_from("!HH", frame, l4)
    seq = struct.unpack_from("!Q", frame, l4 + 8)[0]
    if dport == ECHO_PORT:
        if stamp is not None and len(frame) >= l4 + 24:
            stamp.setdefault(seq, struct.unpack_from("!Q", frame, l4 + 16)[0] / 1e6)
        return "to", seq
    if sport == ECHO_PORT:
        return "from", seq
    return None


def read_caps(out, mode):
    """{capture name: {seq: first time seen}} for the datagrams to the
    guest; {capture name: set of seqs} for their answers; RARP times by
    capture; the probe's stamps."""
    caps, answered, rarps, stamps = {}, {}, {}, {}
    for host in (1, 2):
        for way, arrow in (("in", "<"), ("out", ">")):
            path = out / f"up{host}.{mode}.{way}.pcap"
            if not path.exists():
                die(f"{path} is missing (run with --env MIG_PCAP=1)")
            name = f"up{host}{arrow}{way}"
            seen = caps.setdefault(name, {})
            for t, frame in pcap_frames(path):
                if len(frame) >= 14 and frame[12:14] == b"\x80\x35":
                    rarps.setdefault(name, []).append(t)
                    continue
                if len(frame) >= 18 and frame[12:14] == b"\x81\x00" and \
                   frame[16:18] == b"\x80\x35":
                    rarps.setdefault(name, []).append(t)
                    continue
                got = udp_seq(frame, stamps)
                if got and got[0] == "to":
                    seen.setdefault(got[1], t)
                elif got:
                    answered.setdefault(name, set()).add(got[1])
        # taps: only datagrams to the guest, each host's own clock
        for path in sorted(out.glob(f"up{host}.{mode}.tap.*.pcap")):
            seen = caps.setdefault(f"tap{host}>guest", {})
            for t, frame in pcap_frames(path):
                got = udp_seq(frame, stamps)
                if got and got[0] == "to":
                    seen.setdefault(got[1], t)
        # the peer's port: the answers it passed to the peer
        path = out / f"up{host}.{mode}.p1.pcap"
        if path.exists():
            seen = answered.setdefault("p1>peer", set())
            for t, frame in pcap_frames(path):
                got = udp_seq(frame)
                if got and got[0] == "from":
                    seen.add(got[1])
    return caps, answered, rarps, stamps


def trace_lines(path):
    """(kind, arrival ms, seq, round trip ms) for each line of a probe's
    trace, "t|u MS SEQ RTT" (roam-traffic.c); the round trip is None in a
    trace from before the probe wrote it."""
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        parts = line.split()
        try:
            if len(parts) not in (3, 4) or parts[0] not in ("t", "u"):
                raise ValueError
            out.append((parts[0], float(parts[1]), int(parts[2]),
                        float(parts[3]) if len(parts) == 4 else None))
        except ValueError:
            die(f"{path}:{n}: not a trace line: {line!r}")
    return out


def read_trace(out, mode):
    path = out / f"trace.{mode}"
    if not path.exists():
        die(f"{path} is missing")
    answers = {}
    for what, ms, seq, _ in trace_lines(path):
        if what == "u":
            answers.setdefault(seq, ms)
    if not answers:
        die(f"{path}: no UDP answer")
    return answers


def read_timelines(out, mode):
    """[(host, record)] of every migration record, both hosts."""
    recs = []
    for host in (1, 2):
        path = out / f"timeline.{mode}.host{host}.json"
        if not path.exists():
            path = out / f"timeline.host{host}.json"
        if not path.exists():
            die(f"no timeline of host {host} in {out}")
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec.get("events"), list):
                    raise ValueError
            except (ValueError, AttributeError):
                die(f"{path}:{n}: not a timeline record")
            recs.append((host, rec))
    return recs


def event(rec, what):
    return next((e["t"] for e in rec["events"] if e["what"] == what), None)


def main():
    if len(sys.argv) != 3:
        die("usage: lossmap.py OUT MODE")
    out, mode = Path(sys.argv[1]), sys.argv[2]
    answers = read_trace(out, mode)
    caps, answered, rarps, stamps = read_caps(out, mode)

    # host 1's clock on host 2's: host 2's frames as host 1 received them
    sent, got = caps["up2>out"], caps["up1<in"]
    diffs = [got[s] - sent[s] for s in sent.keys() & got.keys()]
    if not diffs:
        die("no frame was seen leaving host 2 and reaching host 1")
    skew = statistics.median(diffs)
    for name in ("up1<in", "up1>out", "tap1>guest"):
        if name in caps:
            caps[name] = {s: t - skew for s, t in caps[name].items()}
    for name in ("up1<in", "up1>out"):
        rarps[name] = [t - skew for t in rarps.get(name, [])]
    if "tap1>guest" not in caps and "tap2>guest" not in caps:
        print("no tap captures in this run: losses are placed by the "
              "uplinks' only")
    print(f"host 1's clock runs {skew:.1f} ms ahead of host 2's "
          f"(link latency included; {len(diffs)} frames)")

    # the pauses, on host 2's clock
    pauses = []
    for host, rec in read_timelines(out, mode):
        if rec.get("role") != "source":
            continue
        t = event(rec, "guest paused")
        if t is None:
            continue
        t -= skew if host == 1 else 0
        marks = {}
        for what in ("redirected to the uplink",
                     "first frame redirected to the uplink"):
            m = event(rec, what)
            if m is not None:
                marks[what] = m - (skew if host == 1 else 0) - t
        for what in ("queued_at_pause", "kept_by_qemu_sent_on"):
            if what in rec:
                marks[what] = rec[what]
        pauses.append((t, host, marks))
    pauses.sort()
    dests = {}
    for host, rec in read_timelines(out, mode):
        if rec.get("role") == "destination" and event(rec, "guest resumed"):
            base = skew if host == 1 else 0
            evs = {}
            for e in rec["events"]:
                evs.setdefault(e["what"], e["t"] - base)
            dests[event(rec, "guest resumed") - base] = (host, evs)

    top = max(answers)
    lost = [s for s in range(top) if s not in answers]
    on_uplink = set().union(*(v for k, v in answered.items() if k != "p1>peer"))
    # answers the guest sent that the probe never got: not a datagram the
    # guest missed (it counted it), but a gap the peer sees
    lost_answers = [s for s in lost if s in on_uplink]
    lost = [s for s in lost if s not in on_uplink]
    print(f"datagrams 0..{top}: {len(lost)} unanswered, and "
          f"{len(lost_answers)} answered but the answer lost")
    # when a lost datagram was sent: its stamp (the probe's monotonic
    # clock) on host 2's, by the answered datagram that came back
    # soonest; else the nearest stamped one's, plus 10 ms a datagram
    both = [answers[q] - stamps[q] for q in answers.keys() & stamps.keys()]
    if not both:
        die("no datagram was both captured and answered")
    mono = min(both)
    stamped = sorted(stamps)
    runs = []
    for s in lost + lost_answers:
        if s in lost:
            where = " ".join(n for n in sorted(caps) if s in caps[n])
        else:
            where = "answer: " + " ".join(n for n in sorted(answered)
                                          if s in answered[n])
        if runs and runs[-1]["last"] == s - 1 and runs[-1]["where"] == where:
            runs[-1]["last"] = s
            continue
        if s in stamps:
            t = stamps[s] + mono
        else:
            k = min(bisect.bisect_left(stamped, s), len(stamped) - 1)
            near = min(stamped[max(k - 1, 0):k + 1], key=lambda q: abs(q - s))
            t = stamps[near] + mono + 10 * (s - near)
        runs.append({"first": s, "last": s, "where": where, "t": t})
    for i, (t, host, marks) in enumerate(pauses):
        nxt = pauses[i + 1][0] if i + 1 < len(pauses) else float("inf")
        resumed = min((r for r in dests if r > t), default=None)
        head = f"migration {i + 1}, from host {host}: paused at 0"
        for what, m in marks.items():
            if what in ("queued_at_pause", "kept_by_qemu_sent_on"):
                head += f", {what.replace('_', ' ')} {m}"
            else:
                head += f", {what} {m:+.0f}"
        if resumed is not None:
            dhost, evs = dests[resumed]
            head += f", resumed on host {dhost} {resumed - t:+.0f}"
            if "announced" in evs:
                head += f", announced {evs['announced'] - t:+.0f}"
            ff = evs.get("first frame to the guest here")
            if ff is not None:
                head += f", first frame to the guest {ff - t:+.0f}"
        print(head + " (ms)")
        for name in sorted(rarps):
            near = [r - t for r in rarps[name] if t - 1000 <= r < t + 5000]
            if near:
                print(f"  RARPs {name}: " +
                      " ".join(f"{r:+.0f}" for r in near))
        # a run belongs to the pause it follows (or precedes by < 2 s)
        for r in runs:
            if t - 2000 <= r["t"] < nxt - 2000:
                n = r["last"] - r["first"] + 1
                what = "answers lost" if r["where"].startswith("answer") else "lost"
                print(f"  {n:4d} {what} from seq {r['first']}, sent about "
                      f"{r['t'] - t:+.0f} ms: {r['where'] or 'in no capture'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
