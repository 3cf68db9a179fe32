#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.py DIR: the demo's report and plot, from what the migration
suite's hosts left in DIR (tests/vm-run.sh --out):

  results.agent, results.baseline    one line per migration: downtime and
                                     the probe's window (tests/migration)
  trace.agent, trace.baseline        the peer's trace: "t|u MS SEQ" per
                                     answer, MS on host 2's wall clock
  timeline.host1.json, ...host2.json the agents' records, one JSON a line

Prints each migration's timeline (the agent run) and its gap, loss and
downtime beside the baseline's; writes DIR/migration.dat and
DIR/migration.gp, for gnuplot to draw DIR/migration.png: the UDP answers
the peer got per 10 ms around the first migration (host 1 to host 2), with
the agent and without; in the agent run, the resume (the destination
agent's RESUMED event, on the peer's clock) and libvirt's downtime before
it are marked.  Exit status 1, with
a message, if a file is missing or holds no migration.
"""

import json
import os
import sys

BIN_MS = 10
SPAN_MS = 4000


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


def trace(path):
    """The UDP answers' arrival times (ms, host 2's wall clock)."""
    times = [float(line.split()[1]) for line in read_lines(path)
             if line.startswith("u ")]
    if not times:
        fail(f"{path}: no UDP answer")
    return times


def records(path):
    return [json.loads(line) for line in read_lines(path)]


def longest_gap(times):
    """(start, end) of the longest silence between two answers."""
    best = (times[0], times[0])
    for a, b in zip(times, times[1:]):
        if b - a > best[1] - best[0]:
            best = (a, b)
    return best


def bins(times, start):
    """Answers per BIN_MS from START for SPAN_MS * 2."""
    counts = [0] * (2 * SPAN_MS // BIN_MS)
    for t in times:
        i = int((t - start) // BIN_MS)
        if 0 <= i < len(counts):
            counts[i] += 1
    return counts


def main(d):
    agent, base = results(f"{d}/results.agent"), results(f"{d}/results.baseline")
    tl = records(f"{d}/timeline.host1.json") + records(f"{d}/timeline.host2.json")

    print("Each migration with the agent, as the hosts' agents recorded it"
          " (ms after the guest paused; each host's own clock):")
    for r in sorted(tl, key=lambda r: r["events"][0]["t"] if r["events"] else 0):
        if not r["events"]:
            continue
        t0 = r["events"][0]["t"]
        steps = ", ".join(f"{e['what']} +{e['t'] - t0}" for e in r["events"])
        down = f", downtime {r['downtime_ms']} ms" if "downtime_ms" in r else ""
        print(f"  {r['host']} ({r['role']}){down}: {steps}")
    print()
    print(f"{'':12}{'TCP max gap':>13}{'TCP lost':>10}{'resets':>8}"
          f"{'UDP lost':>10}{'downtime':>10}")
    for name, runs in (("agent", agent), ("no agent", base)):
        for i, m in enumerate(runs, 1):
            print(f"{name + ' ' + str(i):12}{float(m['tcp_max_gap_ms']):>10.0f} ms"
                  f"{m['tcp_lost']:>10}{m['resets']:>8}{m['udp_lost']:>10}"
                  f"{m['downtime']:>7} ms")

    # The first migration, host 1 to host 2: host 2 is its destination,
    # on the probe's clock; its record says when the guest resumed, and
    # libvirt's downtime (the source's job-completed event) how long it
    # had been paused.
    dest = [r for r in tl if r["role"] == "destination" and
            r["host"] == "roam-host2"]
    resumed = [e["t"] for r in dest[:1] for e in r["events"]
               if e["what"] == "guest resumed"]
    if not resumed:
        fail("timeline.host2.json: the first migration has no resume")
    pause = (resumed[0] - int(agent[0]["downtime"]), resumed[0])
    a_times, b_times = trace(f"{d}/trace.agent"), trace(f"{d}/trace.baseline")
    a_start = pause[1] - SPAN_MS
    gap = longest_gap([t for t in b_times if t < b_times[0] + 60000] or b_times)
    b_start = gap[0] - SPAN_MS
    with open(f"{d}/migration.dat", "w", encoding="utf-8") as f:
        for i, (a, b) in enumerate(zip(bins(a_times, a_start), bins(b_times, b_start))):
            f.write(f"{(i * BIN_MS - SPAN_MS) / 1000:.2f} {a} {b}\n")
    with open(f"{d}/migration.gp", "w", encoding="utf-8") as f:
        f.write(f"""set terminal pngcairo size 1000,600 font ',10'
set output '{d}/migration.png'
set multiplot layout 2,1 title 'UDP answers the peer got per 10 ms, first migration (host 1 to host 2)'
set xrange [{-SPAN_MS / 1000}:{SPAN_MS / 1000}]
set yrange [0:3]
set ylabel 'answers / 10 ms'
set object 1 rect from {(pause[0] - pause[1]) / 1000:.3f},0 to 0,3 fc rgb '#ffdddd' fs solid 0.5 behind
set arrow 1 from 0,0 to 0,3 nohead lc rgb '#c00000'
set label 1 'libvirt downtime {pause[1] - pause[0]:.0f} ms, up to the resume event' at 0.05,2.7
set title 'with roam-migrate-agent (x: s after the destination saw the guest resume)'
plot '{d}/migration.dat' using 1:2 with impulses lw 2 lc rgb '#2060c0' notitle
unset object 1
unset arrow 1
unset label 1
set title 'without the agent (x: s after the answers stopped; the pause is not recorded)'
set xlabel 'seconds'
plot '{d}/migration.dat' using 1:3 with impulses lw 2 lc rgb '#c04020' notitle
unset multiplot
""")
    print()
    print(f"Plot: {d}/migration.png (gnuplot {d}/migration.gp)")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        fail("usage: report.py DIR")
    main(sys.argv[1])
