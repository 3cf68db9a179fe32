#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py DIR [--no-plots]: the benchmark's results from DIR/*.jsonl.

Reads the measurements the bench suite's cases wrote (one JSON object a
line: case, masks, datapath, round, pps, masks_per_packet), and writes:
  - a table on stdout, then one line per case: "ratio ours/in-tree CASE R",
    R being the median rate of ours over the median rate of the in-tree
    module;
  - DIR/bench.json, the same for machines, with every round's figure;
  - with gnuplot: DIR/sweep.png (median rate against the number of masks,
    both modules) and DIR/CASE.png per case (every round of both).
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
FIELDS = {"case": str, "masks": int, "datapath": str, "round": int,
          "pps": int}


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
                if row["datapath"] not in DATAPATHS:
                    fail("%s: unknown datapath %r" % (where, row["datapath"]))
                if row["pps"] <= 0:
                    fail(where + ": a rate of zero or less")
                rows.append(row)
    if not rows:
        fail("the results in %s are empty" % directory)
    return rows


def summarize(rows):
    """Per case, in order of masks: each module's rounds and medians."""
    cases = {}
    for row in rows:
        case = cases.setdefault(row["case"], {
            "case": row["case"], "masks": row["masks"],
            "datapaths": {dp: {"pps": [], "masks_per_packet": []}
                          for dp in DATAPATHS}})
        if case["masks"] != row["masks"]:
            fail("case %s has two mask counts" % row["case"])
        dp = case["datapaths"][row["datapath"]]
        dp["pps"].append(row["pps"])
        if row.get("masks_per_packet") is not None:
            dp["masks_per_packet"].append(row["masks_per_packet"])
    out = []
    for case in sorted(cases.values(), key=lambda c: (c["masks"], c["case"])):
        for name, dp in case["datapaths"].items():
            if not dp["pps"]:
                fail("case %s has no result from %s" % (case["case"], name))
            dp["pps_median"] = statistics.median(dp["pps"])
            mpp = dp["masks_per_packet"]
            dp["masks_per_packet_median"] = (statistics.median(mpp)
                                             if mpp else None)
        case["ratio"] = round(case["datapaths"]["ours"]["pps_median"] /
                              case["datapaths"]["in-tree"]["pps_median"], 3)
        out.append(case)
    return out


def table(cases):
    print("%-12s %6s %12s %12s %7s %10s %10s" % (
        "case", "masks", "ours pps", "in-tree pps", "ratio",
        "ours m/p", "in-tree m/p"))

    def mpp(dp):
        value = dp["masks_per_packet_median"]
        return "-" if value is None else "%.2f" % value

    for c in cases:
        ours, intree = c["datapaths"]["ours"], c["datapaths"]["in-tree"]
        print("%-12s %6d %12.0f %12.0f %7.3f %10s %10s" % (
            c["case"], c["masks"], ours["pps_median"], intree["pps_median"],
            c["ratio"], mpp(ours), mpp(intree)))
    for c in cases:
        print("ratio ours/in-tree %s %.3f" % (c["case"], c["ratio"]))


def plot(directory, cases):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        fail("gnuplot is not installed (apt install gnuplot-nox), "
             "or pass --no-plots")
    sweep = os.path.join(directory, "sweep.dat")
    with open(sweep, "w") as f:
        for c in cases:
            f.write("%d %f %f\n" % (c["masks"],
                                    c["datapaths"]["ours"]["pps_median"],
                                    c["datapaths"]["in-tree"]["pps_median"]))
    script = [
        "set terminal pngcairo size 800,500",
        "set output '%s'" % os.path.join(directory, "sweep.png"),
        "set title 'Forwarding rate against masks (medians, one boot)'",
        "set xlabel 'masks'", "set ylabel 'packets/s'",
        "set logscale x 2", "set key top right", "set grid",
        "plot '%s' using 1:2 with linespoints title 'ours', "
        "'' using 1:3 with linespoints title 'in-tree'" % sweep]
    for c in cases:
        data = os.path.join(directory, c["case"] + ".dat")
        with open(data, "w") as f:
            for dp in DATAPATHS:
                for i, pps in enumerate(c["datapaths"][dp]["pps"], 1):
                    f.write("%s %d %d\n" % (dp, i, pps))
        script += [
            "set output '%s'" % os.path.join(directory, c["case"] + ".png"),
            "set title '%s: every round (ratio of medians %.3f)'" % (
                c["case"], c["ratio"]),
            "unset logscale x", "set xlabel 'round'",
            "set xtics 1", "set offsets 0.5, 0.5, 0, 0",
            "plot '%s' using 2:(strcol(1) eq 'ours' ? $3 : 1/0) "
            "with points pt 7 title 'ours', "
            "'' using 2:(strcol(1) eq 'in-tree' ? $3 : 1/0) "
            "with points pt 5 title 'in-tree'" % data]
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
    table(cases)
    with open(os.path.join(directory, "bench.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    if plots:
        plot(directory, cases)


if __name__ == "__main__":
    main()
