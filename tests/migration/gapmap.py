#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gapmap.py OUT MODE: where each migration's largest TCP gap begins and
ends, against the pause and the resume (issue 18's target: the gap at
most 1.1 times the downtime).

OUT is a migration run's out/ directory (suite.sh --out): the probe's
trace (trace.MODE: "t MS SEQ" for each TCP echo, "u MS SEQ" for each UDP
answer, host 2's CLOCK_REALTIME) and both hosts' timelines
(timeline.MODE.hostN.json), whose clocks the suite keeps within 5 ms of
each other (clocksync.py).  For each migration, one line:

  N: downtime D ms (libvirt's L ms); TCP gap G ms, from the pause -B ms
     to the resume +A ms; UDP gap ...; first frame to the guest F ms
     after the resume, from it H ms after[; its first answer entered its
     tap E ms after the resume]; TCP gap / downtime R[; QEMU's pause Q ms,
     its stop S ms before the pause event, its resume T ms before the
     resume event; TCP gap / QEMU's pause P]

D is the destination's resume event less the source's pause event.
Both are libvirt's events as the agent got them, and libvirt's own
downtime L counts from when it handled QEMU's stop; Q is the time
between QEMU's own stamps of the stop and the resume (its STOP and
RESUME events, which the agent's timelines keep when it got them).  A
gap that begins before the pause is time the guest's answers stopped
while it still ran (the end of the memory copy); its end after the
resume is the guest's time to answer once running (up to H: the first
frame its tap got from it) and the way back (H to the gap's end).
E comes from a MIG_PCAP run's captures of what the guest sent into its
taps (upN.MODE.tapin.*.pcap), when they are there.  Exit status 0, or
1 with a message when an input is missing or malformed.
"""
import bisect
import sys
from pathlib import Path

import lossmap
from lossmap import die, pcap_frames, udp_seq

# How far around a pause the largest gap is looked for (ms).
WINDOW_MS = 10000


def read_trace(path):
    """{'t': sorted answer times, 'u': ...} from the probe's trace."""
    times = {"t": [], "u": []}
    for kind, ms, _, _ in lossmap.trace_lines(path):
        times[kind].append(ms)
    for kind in times:
        times[kind].sort()
    if not times["t"]:
        die(f"{path}: no TCP echo")
    return times


def read_timelines(out, mode):
    """[(host, record)] of both hosts' timelines (lossmap.py's reader),
    each record with "at": {event: time}."""
    records = lossmap.read_timelines(out, mode)
    for _, r in records:
        try:
            r["at"] = {e["what"]: e["t"] for e in r["events"]}
        except (KeyError, TypeError):
            die(f"a record of {out}'s {mode} timelines has a malformed event")
    return records


def migrations(records):
    """(pause, resume, libvirt's downtime, first frame to the guest,
    first frame from it, QEMU's stop, QEMU's resume) of each
    migration that completed: a source's pause, and the first resume
    on the other host after it (QEMU's stamps None when missing)."""
    found = []
    for host, src in records:
        pause = src["at"].get("guest paused")
        if src.get("role") != "source" or pause is None or \
                "migration failed, guest resumed here" in src["at"]:
            continue
        dests = sorted((d["at"]["guest resumed"], d) for h, d in records
                       if h != host and d.get("role") == "destination" and
                       d["at"].get("guest resumed", 0) > pause)
        if not dests:
            continue
        resume, dst = dests[0]
        # libvirt's downtime: the source's job-completed event
        found.append((pause, resume, src.get("downtime_ms", dst.get("downtime_ms")),
                      dst["at"].get("first frame to the guest here"),
                      dst["at"].get("first frame from the guest here"),
                      src["at"].get("QEMU stopped the guest"),
                      dst["at"].get("QEMU resumed the guest")))
    return sorted(found, key=lambda m: m[0])


def answers_into_taps(out, mode):
    """{host: sorted times} at which the guest's UDP answers entered its
    taps there (upN.MODE.tapin.*.pcap, a MIG_PCAP run's; each host's
    clock), or {} without such captures."""
    found = {}
    for host in (1, 2):
        for path in sorted(out.glob(f"up{host}.{mode}.tapin.*.pcap")):
            times = found.setdefault(host, [])
            for t, frame in pcap_frames(path):
                got = udp_seq(frame)
                if got and got[0] == "from":
                    times.append(t)
    for times in found.values():
        times.sort()
    return found


def largest_gap(times, pause, resume):
    """(gap, begin, end) of the longest time between two answers around
    [PAUSE, RESUME], or None."""
    near = [t for t in times if pause - WINDOW_MS <= t <= resume + WINDOW_MS]
    best = None
    for a, b in zip(near, near[1:]):
        if best is None or b - a > best[0]:
            best = (b - a, a, b)
    return best


def describe(kind, gap, pause, resume):
    if gap is None:
        return f"{kind}: no answers around it"
    g, begin, end = gap
    return (f"{kind} gap {g:.0f} ms, from the pause {begin - pause:+.0f} ms "
            f"to the resume {end - resume:+.0f} ms")


def main():
    if len(sys.argv) != 3:
        die("usage: gapmap.py OUT MODE")
    out, mode = Path(sys.argv[1]), sys.argv[2]
    times = read_trace(out / f"trace.{mode}")
    records = read_timelines(out, mode)
    found = migrations(records)
    into = answers_into_taps(out, mode)
    if not found:
        die(f"no completed migration in {out}'s {mode} timelines")
    for i, (pause, resume, libvirt, first, heard, qstop, qresume) in enumerate(found, 1):
        tcp = largest_gap(times["t"], pause, resume)
        udp = largest_gap(times["u"], pause, resume)
        line = (f"{i}: downtime {resume - pause:.0f} ms (libvirt's {libvirt} ms); "
                f"{describe('TCP', tcp, pause, resume)}; "
                f"{describe('UDP', udp, pause, resume)}")
        if first is not None:
            line += f"; first frame to the guest {first - resume:.0f} ms after the resume"
        if heard is not None:
            line += f", from it {heard - resume:.0f} ms after"
        dest = next((h for h, r in records if r.get("role") == "destination" and
                     r["at"].get("guest resumed") == resume), None)
        # from a second before the resume event, which reaches the
        # agent late (the new tap takes nothing from the guest before
        # it runs)
        entered = into.get(dest, [])
        j = bisect.bisect_left(entered, resume - 1000)
        if j < len(entered):
            line += f"; its first answer entered its tap {entered[j] - resume:.0f} ms after the resume"
        if tcp is not None and resume > pause:
            line += f"; TCP gap / downtime {tcp[0] / (resume - pause):.2f}"
        if qstop is not None and qresume is not None and qresume > qstop:
            line += (f"; QEMU's pause {qresume - qstop:.0f} ms, its stop "
                     f"{pause - qstop:.0f} ms before the pause event, its resume "
                     f"{resume - qresume:.0f} ms before the resume event")
            if tcp is not None:
                line += f"; TCP gap / QEMU's pause {tcp[0] / (qresume - qstop):.2f}"
        print(line)


if __name__ == "__main__":
    main()
