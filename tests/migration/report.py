#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.py DIR: the demo's report and plot, from what the migration
suite's hosts left in DIR (tests/vm-run.sh --out):

  results.redirect, results.baseline  one line per migration: downtime
                                      and the probe's window (mig.sh);
                                      results.agent too, if that mode ran
  trace.redirect, trace.baseline      the peer's trace (lossmap.py's
                                      reader): per answer, when it came on
                                      host 2's wall clock, its sequence
                                      number and its round trip
  timeline.redirect.host1.json, ...host2.json
                                      the agents' records, one JSON a line

Prints each migration's timeline with the redirect and its gap, loss and
downtime beside the other modes'; writes DIR/migration.gp (and its data,
DIR/migration.MODE.dat) for gnuplot to draw DIR/migration.png: the first
migration (host 1 to host 2), with the redirect and without the agents.
Each bar is the UDP answers the peer got in 10 ms; those to datagrams
sent during the pause are drawn apart, and every datagram never answered
is a mark below the axis at the time it was sent.  The redirect's panel
marks the pause (the source's SUSPENDED event to the destination's
RESUMED one; the hosts' clocks agree within 5 ms, 00-start) and the
redirect.  Exit status 1, with a message, if a file is missing or holds
no migration.
"""

import os
import sys
from pathlib import Path

import lossmap

BIN_MS = 10
BEFORE_MS = 1500   # shown before the pause
AFTER_MS = 3000    # and after the resume
MODES = (("redirect", "redirect"), ("agent", "agent only"),
         ("baseline", "no agent"))


def fail(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(1)


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f if line.strip()]
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def results(path):
    """One dict per migration from a results file."""
    out = []
    for line in read_lines(path):
        fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "tcp_max_gap_ms" not in fields or "downtime" not in fields:
            fail(f"{path}: an incomplete measurement: {line}")
        out.append(fields)
    if not out:
        fail(f"{path}: no migration")
    return out


def udp_stream(path):
    """({seq: arrival ms}, {seq: sent ms}) of the UDP answers, host 2's
    wall clock; the first answer of each datagram counts."""
    came, sent = {}, {}
    for kind, ms, seq, rtt in lossmap.trace_lines(Path(path)):
        if kind != "u" or seq in came:
            continue
        if rtt is None:
            fail(f"{path}: no round trips (a trace from an older probe)")
        came[seq], sent[seq] = ms, ms - rtt
    if not came:
        fail(f"{path}: no UDP answer")
    return came, sent


def lost_sent(came, sent):
    """{seq: sent ms} of the datagrams never answered, between the first
    and the last answered: each dated between its answered neighbours,
    one interval a datagram."""
    seqs = sorted(came)
    out = {}
    for a, b in zip(seqs, seqs[1:]):
        for s in range(a + 1, b):
            out[s] = sent[a] + (sent[b] - sent[a]) * (s - a) / (b - a)
    return out


def first_loss_run(lost):
    """(first, last) datagram of the first run of 5 or more lost in a
    row, or None."""
    seqs = sorted(lost)
    for i, s in enumerate(seqs):
        if i + 4 < len(seqs) and seqs[i + 4] == s + 4:
            last = s + 4
            while last + 1 in lost:
                last += 1
            return s, last
    return None


def first_migration(tl):
    """(source record, destination record) of the first migration, host 1
    to host 2, from the redirect's timelines."""
    src = [r for r in tl if r["role"] == "source" and r["host"] == "roam-host1"]
    dst = [r for r in tl if r["role"] == "destination" and
           r["host"] == "roam-host2"]
    if not src or not dst:
        fail("the redirect's timelines hold no migration from host 1 to host 2")
    return src[0], dst[0]


def panel_data(path, came, sent, lost, t0, t1):
    """Write PATH: per 10 ms from t0 - BEFORE_MS to t1 + AFTER_MS, the
    seconds from t0, the answers to datagrams sent outside [t0, t1] and
    inside it, and the datagrams sent then that were never answered.
    Returns (sent during, answered of them, lost of them, the most
    answers in a slot)."""
    n = (t1 - t0 + BEFORE_MS + AFTER_MS) // BIN_MS + 1
    start = t0 - BEFORE_MS
    rows = [[0, 0, 0] for _ in range(int(n))]

    def slot(t):
        i = int((t - start) // BIN_MS)
        return i if 0 <= i < len(rows) else None

    answered = gone = 0
    for seq, t in came.items():
        queued = t0 <= sent[seq] <= t1
        answered += queued
        i = slot(t)
        if i is not None:
            rows[i][1 if queued else 0] += 1
    for t in lost.values():
        gone += t0 <= t <= t1
        i = slot(t)
        if i is not None:
            rows[i][2] += 1
    with open(path, "w", encoding="utf-8") as f:
        for i, (other, queued, never) in enumerate(rows):
            x = (start + i * BIN_MS - t0) / 1000
            f.write(f"{x:.2f} {other} {other + queued} {-never}\n")
    return answered + gone, answered, gone, max(a + b for a, b, _ in rows)


def print_timelines(tl):
    print("Each migration with the redirect, as the hosts' agents recorded it"
          " (ms after the first event, in time order; each host's own clock):")
    # in time order: QEMU's stamps, and the kernel's, come earlier than
    # the agent learnt of them
    for r in sorted(tl, key=lambda r: min(e["t"] for e in r["events"]) if r["events"] else 0):
        if not r["events"]:
            continue
        events = sorted(r["events"], key=lambda e: e["t"])
        t0 = events[0]["t"]
        steps = ", ".join(f"{e['what']} +{e['t'] - t0}" for e in events)
        down = f", downtime {r['downtime_ms']} ms" if "downtime_ms" in r else ""
        print(f"  {r['host']} ({r['role']}){down}: {steps}")


def print_table(d):
    print(f"{'':16}{'TCP max gap':>13}{'TCP lost':>10}{'resets':>8}"
          f"{'UDP lost':>10}{'downtime':>10}")
    for mode, name in MODES:
        path = f"{d}/results.{mode}"
        if mode == "agent" and not os.path.exists(path):
            continue
        for i, m in enumerate(results(path), 1):
            print(f"{name + ' ' + str(i):16}"
                  f"{float(m['tcp_max_gap_ms']):>10.0f} ms"
                  f"{m['tcp_lost']:>10}{m['resets']:>8}{m['udp_lost']:>10}"
                  f"{m['downtime']:>7} ms")


def main(d):
    tl = [r for _, r in lossmap.read_timelines(Path(d), "redirect")]
    print_timelines(tl)
    print()
    print_table(d)

    src, dst = first_migration(tl)
    paused, resumed = lossmap.event(src, "guest paused"), lossmap.event(dst, "guest resumed")
    redirected = lossmap.event(src, "first frame redirected to the uplink")
    if paused is None or resumed is None or redirected is None:
        fail("the first migration's timeline lacks the pause, the redirect"
             " or the resume")
    came, sent = udp_stream(f"{d}/trace.redirect")
    r_during = panel_data(f"{d}/migration.redirect.dat", came, sent,
                          lost_sent(came, sent), paused, resumed)

    # Without the agents nothing records the pause: the baseline's panel
    # starts from the first datagram of its first run of losses.
    b_came, b_sent = udp_stream(f"{d}/trace.baseline")
    b_lost = lost_sent(b_came, b_sent)
    run = first_loss_run(b_lost)
    if run is None:
        fail("trace.baseline: no run of lost datagrams to place the pause by")
    b0, b1 = b_lost[run[0]], b_lost[run[1]]
    b_during = panel_data(f"{d}/migration.baseline.dat", b_came, b_sent,
                          b_lost, b0, b1)

    span = (resumed - paused) / 1000
    ymax = max(r_during[3], b_during[3]) + 1
    with open(f"{d}/migration.gp", "w", encoding="utf-8") as f:
        f.write(f"""set terminal pngcairo size 1000,650 font ',10'
set output '{d}/migration.png'
set multiplot layout 2,1 title 'UDP answers the peer got per 10 ms, first migration (host 1 to host 2)'
set xrange [{-BEFORE_MS / 1000}:{span + AFTER_MS / 1000:.2f}]
set yrange [-2:{ymax}]
set ylabel 'answers / 10 ms'
set style fill solid 1.0 noborder
set boxwidth {BIN_MS / 1000} absolute
set key below
set object 1 rect from 0,graph 0 to {span:.3f},graph 1 fc rgb '#ffdddd' fs solid 0.5 behind
set arrow 1 from {(redirected - paused) / 1000:.3f},graph 0 to {(redirected - paused) / 1000:.3f},graph 1 nohead lc rgb '#008000' dt 2
set arrow 2 from {span:.3f},graph 0 to {span:.3f},graph 1 nohead lc rgb '#c00000'
set label 1 'first frame redirected +{redirected - paused} ms' at {(redirected - paused) / 1000:.3f},graph 0.92 offset 0.5,0 tc rgb '#008000'
set label 2 'paused {resumed - paused} ms: {r_during[0]} datagrams sent, {r_during[1]} answered after the resume' at 0.05,graph 0.72
set label 3 'resumed' at {span:.3f},graph 0.84 offset 0.5,0 tc rgb '#c00000'
set title 'with roam-migrate-agent and the redirect (x: s after the guest paused)'
plot '{d}/migration.redirect.dat' using 1:3 with boxes lc rgb '#e08000' title 'answers to datagrams sent during the pause (queued at the destination)', \\
     '' using 1:2 with boxes lc rgb '#2060c0' title 'other answers', \\
     '' using 1:($4 < 0 ? $4 : 1/0) with impulses lw 2 lc rgb '#c00000' title 'never answered (when sent)'
unset object 1
unset arrow 1
unset arrow 2
unset label 1
unset label 3
set label 2 '{b_during[2]} datagrams lost in a row' at 0.05,graph 0.72
set title 'without the agents (x: s after the first datagram lost; nothing records the pause)'
set xlabel 'seconds'
plot '{d}/migration.baseline.dat' using 1:3 with boxes lc rgb '#e08000' notitle, \\
     '' using 1:2 with boxes lc rgb '#2060c0' notitle, \\
     '' using 1:($4 < 0 ? $4 : 1/0) with impulses lw 2 lc rgb '#c00000' notitle
unset multiplot
""")
    print()
    print(f"First migration, with the redirect: paused {resumed - paused} ms,"
          f" redirected {redirected - paused} ms after the pause;"
          f" {r_during[0]} datagrams sent during the pause, {r_during[1]}"
          f" answered after the resume, {r_during[2]} lost.")
    print(f"First migration, without the agents: {b_during[2]} datagrams"
          f" lost in a row from the first loss.")
    print(f"Plot: {d}/migration.png (gnuplot {d}/migration.gp)")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        fail("usage: report.py DIR")
    main(sys.argv[1])
