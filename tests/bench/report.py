#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py DIR [--no-plots]: the benchmark's results from DIR/*.jsonl.

Reads the measurements the bench suite's cases wrote (one JSON object a
line: case, masks, datapath, round, and one figure: pps, the forwarding
rate, with masks_per_packet; bytes_per_flow, kernel memory per megaflow;
flows_per_s, flows installed or dumped per second; or upcalls_per_s,
misses delivered to a listener per second), and writes:
  - a table on stdout, then one line per case: "ratio ours/in-tree CASE R",
    R being the median figure of ours over the in-tree module's (above 1
    is better for a rate, below 1 for memory); for the cases that also ran
    on the Linux bridge or tc flower, a second table and lines "ratio
    ours/bridge CASE R", "ratio ours/flower CASE R";
  - in the table, each module's best round too and their ratio ("best"):
    under TCG a round is now and then several times slower on either
    module, and with few rounds the median can be one of those, while the
    best rounds are what each module can do;
  - DIR/bench.json, the same for machines, with every round's figure;
  - before the table, and in bench.json, the clock the rates were taken
    on, which bench.sh writes in DIR/clock (absent: not said);
  - with gnuplot: DIR/sweep.png (median rate against the number of masks,
    both modules, of the masks-N cases) and DIR/CASE.png per case (every
    round of every switch).
Exit status 1, saying why on stderr, when a line is malformed or a case
lacks either module's results: a half report never reads as a whole one.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys

DATAPATHS = ("ours", "in-tree")
# Switches some cases also run on; a case need not have them.
OTHERS = ("bridge", "flower")
FIELDS = {"case": str, "masks": int, "datapath": str, "round": int}
# What a row measures: exactly one of these, a positive integer.
METRICS = ("pps", "bytes_per_flow", "flows_per_s", "upcalls_per_s")
UNITS = {"pps": "packets/s", "bytes_per_flow": "bytes per megaflow",
         "flows_per_s": "flows/s", "upcalls_per_s": "misses/s"}


def fail(msg):
    print("report.py: error: " + msg, file=sys.stderr)
    sys.exit(1)


def load(directory):
    """Every measurement of DIR's .jsonl files, checked field by field."""
    names = sorted(n for n in os.listdir(directory) if n.endswith(".jsonl"))
    if not names:
        fail("no .jsonl results in " + directory)
    rows = []
    for name in names:
        path = os.path.join(directory, name)
        with open(path) as f:
            for number, line in enumerate(f, 1):
                where = "%s:%d" % (path, number)
                try:
                    row = json.loads(line)
                except ValueError as e:
                    fail("%s: not JSON (%s)" % (where, e))
                if not isinstance(row, dict):
                    fail(where + ": not an object")
                for field, kind in FIELDS.items():
                    if not isinstance(row.get(field), kind):
                        fail("%s: no %s %s" % (where, kind.__name__, field))
                if row["datapath"] not in DATAPATHS + OTHERS:
                    fail("%s: unknown datapath %r" % (where, row["datapath"]))
                metrics = [m for m in METRICS if m in row]
                if len(metrics) != 1:
                    fail("%s: not exactly one of %s" % (where,
                                                        ", ".join(METRICS)))
                row["metric"] = metrics[0]
                value = row[row["metric"]]
                if not isinstance(value, int) or value <= 0:
                    fail("%s: %s is not a positive integer" % (
                        where, row["metric"]))
                row["value"] = value
                rows.append(row)
    if not rows:
        fail("the results in %s are empty" % directory)
    return rows


def summarize(rows):
    """Per case: each module's rounds and medians."""
    cases = {}
    for row in rows:
        case = cases.setdefault(row["case"], {
            "case": row["case"], "masks": row["masks"],
            "metric": row["metric"],
            "datapaths": {dp: {"values": [], "masks_per_packet": []}
                          for dp in DATAPATHS + OTHERS}})
        if case["masks"] != row["masks"] or case["metric"] != row["metric"]:
            fail("case %s has rows of two kinds" % row["case"])
        dp = case["datapaths"][row["datapath"]]
        dp["values"].append(row["value"])
        if row.get("masks_per_packet") is not None:
            dp["masks_per_packet"].append(row["masks_per_packet"])
    out = []
    # the rates by number of masks, then the rest
    for case in sorted(cases.values(),
                       key=lambda c: (c["metric"] != "pps", c["masks"],
                                      c["case"])):
        for name in OTHERS:
            if not case["datapaths"][name]["values"]:
                del case["datapaths"][name]
        for name, dp in case["datapaths"].items():
            if not dp["values"]:
                fail("case %s has no result from %s" % (case["case"], name))
            dp["median"] = statistics.median(dp["values"])
            # the best round: the fastest, or for memory the smallest
            dp["best"] = (min if case["metric"] == "bytes_per_flow"
                          else max)(dp["values"])
            mpp = dp["masks_per_packet"]
            dp["masks_per_packet_median"] = (statistics.median(mpp)
                                             if mpp else None)
        ours = case["datapaths"]["ours"]["median"]
        case["ratio"] = round(ours / case["datapaths"]["in-tree"]["median"], 3)
        case["ratio_best"] = round(case["datapaths"]["ours"]["best"] /
                                   case["datapaths"]["in-tree"]["best"], 3)
        case["ratio_to"] = {name: round(ours / dp["median"], 3)
                            for name, dp in case["datapaths"].items()
                            if name in OTHERS}
        out.append(case)
    return out


def sweep_cases(cases):
    return [c for c in cases if c["case"].startswith("masks-")]


def table(cases):
    print("%-12s %6s %-14s %12s %12s %7s %10s %10s %7s" % (
        "case", "masks", "figure", "ours", "in-tree", "ratio",
        "ours m/p", "in-tree m/p", "best"))

    def mpp(dp):
        value = dp["masks_per_packet_median"]
        return "-" if value is None else "%.2f" % value

    for c in cases:
        ours, intree = c["datapaths"]["ours"], c["datapaths"]["in-tree"]
        print("%-12s %6d %-14s %12.0f %12.0f %7.3f %10s %10s %7.3f" % (
            c["case"], c["masks"], c["metric"], ours["median"],
            intree["median"], c["ratio"], mpp(ours), mpp(intree),
            c["ratio_best"]))
    others = [c for c in cases if c["ratio_to"]]
    if others:
        print()
        print("%-12s %12s %12s %12s %12s" % (
            "case", "ours", "bridge", "flower", "in-tree"))

        def median(c, name):
            dp = c["datapaths"].get(name)
            return "-" if dp is None else "%.0f" % dp["median"]

        for c in others:
            print("%-12s %12s %12s %12s %12s" % (
                c["case"], median(c, "ours"), median(c, "bridge"),
                median(c, "flower"), median(c, "in-tree")))
    for c in cases:
        print("ratio ours/in-tree %s %.3f" % (c["case"], c["ratio"]))
        for name, ratio in sorted(c["ratio_to"].items()):
            print("ratio ours/%s %s %.3f" % (name, c["case"], ratio))


def plot(directory, cases):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        fail("gnuplot is not installed (apt install gnuplot-nox), "
             "or pass --no-plots")
    script = ["set terminal pngcairo size 800,500", "set grid"]
    if sweep_cases(cases):
        sweep = os.path.join(directory, "sweep.dat")
        with open(sweep, "w") as f:
            for c in sweep_cases(cases):
                f.write("%d %f %f\n" % (c["masks"],
                                        c["datapaths"]["ours"]["median"],
                                        c["datapaths"]["in-tree"]["median"]))
        script += [
            "set output '%s'" % os.path.join(directory, "sweep.png"),
            "set title 'Forwarding rate against masks (medians, one boot)'",
            "set xlabel 'masks'", "set ylabel 'packets/s'",
            "set logscale x 2", "set key top right",
            "plot '%s' using 1:2 with linespoints title 'ours', "
            "'' using 1:3 with linespoints title 'in-tree'" % sweep]
    for c in cases:
        data = os.path.join(directory, c["case"] + ".dat")
        with open(data, "w") as f:
            for dp, results in c["datapaths"].items():
                for i, value in enumerate(results["values"], 1):
                    f.write("%s %d %d\n" % (dp, i, value))
        script += [
            "set output '%s'" % os.path.join(directory, c["case"] + ".png"),
            "set title '%s: every round (ratio of medians %.3f)'" % (
                c["case"], c["ratio"]),
            "unset logscale x", "set xlabel 'round'",
            "set ylabel '%s'" % UNITS[c["metric"]],
            "set xtics 1", "set offsets 0.5, 0.5, 0, 0",
            "plot " + ", ".join(
                "'%s' using 2:(strcol(1) eq '%s' ? $3 : 1/0) "
                "with points pt %d title '%s'" % (data, dp, 5 + 2 * i, dp)
                for i, dp in enumerate(c["datapaths"]))]
    run = subprocess.run([gnuplot], input="\n".join(script) + "\n",
                         text=True, capture_output=True)
    if run.returncode != 0:
        fail("gnuplot failed: " + run.stderr.strip())


def main():
    args = sys.argv[1:]
    plots = "--no-plots" not in args
    args = [a for a in args if a != "--no-plots"]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        sys.exit(2)
    directory = args[0]
    if not os.path.isdir(directory):
        fail("no directory " + directory)
    cases = summarize(load(directory))
    clock = None
    clock_file = os.path.join(directory, "clock")
    if os.path.exists(clock_file):
        with open(clock_file) as f:
            clock = f.read().strip()
        print("clock: " + clock)
    table(cases)
    with open(os.path.join(directory, "bench.json"), "w") as f:
        json.dump({"clock": clock, "cases": cases}, f, indent=1)
        f.write("\n")
    if plots:
        plot(directory, cases)


if __name__ == "__main__":
    main()
