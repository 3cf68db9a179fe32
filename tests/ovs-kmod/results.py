#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge one full.sh run into tests/ovs-kmod/results.md.

results.py --tap FILE --results FILE --tests RANGE --started STAMP
           --secs N --rc N

The whole testsuite takes longer than a session here, so it runs in
ranges (OVS_KMOD_TESTS=FIRST-LAST), and the table is the union of them:
a test's row comes from the newest run that ran it.  The TAP stream's
"# kmod-result PASS NN OUTCOME SECONDS TITLE" comments give the outcomes,
its "[ours] NN:" points the last column.  The "## Runs" list gains a
line for this run; the "## Notes" section, written by hand, is kept as
it is.  Input that does not parse fails with its line, and the table is
then left as it was.
"""

import argparse
import os
import re
import sys

HEADER = """# Open vSwitch's kernel testsuite on both modules

Written by `tests/ovs-kmod/full.sh` (`./roam test ovs-full`) from the
runs listed below: each ran a range of the tests of
`tests/system-kmod-testsuite` from Debian's openvswitch-source on the
host kernel, the in-tree module's pass then ours, in one boot.  A test's
row is from the newest run that ran it (its "run" column).  `pass`,
`FAIL`, `skip` as the testsuite reported it; `timeout`: killed at the
per-test limit; `not run`: the run ended before it.  The column "ours'
point" is what the suite gave ours: `ok`, `skip` (the testsuite skipped
it, or `tests/ovs-kmod/expect` lists the difference) or `not ok`.
"""

COLUMNS = ["#", "test", "in-tree", "s", "ours", "s", "ours' point", "run"]
RUN_LINE = re.compile(r"^- run (\d+): tests (\S+), started (.+ UTC), "
                      r"openvswitch-source (\S+|\(not seen\)), (\d+) s, "
                      r"launch\.sh exited (\d+)$")
RESULT = re.compile(r"^# kmod-result (in-tree|ours) (\d+) (\S+) (\d+) (.+)$")
POINT = re.compile(r"^(not )?ok \d+ - \[ours\] (\d+): ")
OUTCOMES = {"pass": "pass", "fail": "FAIL", "skip": "skip",
            "timeout": "timeout", "error": "error"}


class Bad(Exception):
    pass


def read_results(path):
    """Rows by test number, the runs' lines and the notes of results.md."""
    rows, runs, notes = {}, [], ""
    if not os.path.exists(path):
        return rows, runs, notes
    with open(path, encoding="utf-8") as f:
        text = f.read()
    head, sep, tail = text.partition("\n## Notes")
    if sep:
        notes = "## Notes" + tail
    for n, line in enumerate(head.splitlines(), 1):
        if line.startswith("- run "):
            m = RUN_LINE.match(line)
            if not m:
                raise Bad(f"{path}:{n}: a run line that does not parse: {line}")
            runs.append(line)
        elif line.startswith("| ") and not line.startswith("| # "):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != len(COLUMNS) or not cells[0].isdigit():
                raise Bad(f"{path}:{n}: a table row that does not parse "
                          f"(want {len(COLUMNS)} cells): {line}")
            rows[int(cells[0])] = cells
    return rows, runs, notes


def read_tap(path, run):
    """This run's rows by test number, and the source version it saw."""
    got, points, version = {}, {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            m = re.search(r"built from openvswitch-source ([^ ,]+)", line)
            if m and version is None:
                version = m.group(1)
            m = RESULT.match(line)
            if m:
                pas, num, outcome, secs, title = m.groups()
                if outcome not in OUTCOMES:
                    raise Bad(f"{path}:{n}: unknown outcome '{outcome}'")
                row = got.setdefault(int(num), {"title": title})
                row[pas] = (OUTCOMES[outcome], secs)
                continue
            m = POINT.match(line)
            if m:
                points[int(m.group(2))] = ("not ok" if m.group(1) else
                                           "skip" if "# SKIP" in line else "ok")
    rows = {}
    for num, r in got.items():
        it, ours = r.get("in-tree", ("not run", "")), r.get("ours", ("not run", ""))
        rows[num] = [str(num), r["title"], it[0], it[1], ours[0], ours[1],
                     points.get(num, ""), str(run)]
    return rows, version


def render(rows, runs, notes):
    out = [HEADER, "## Runs", ""] + runs + ["", "## Results", "",
           "| " + " | ".join(COLUMNS) + " |",
           "|---:|---|---|---:|---|---:|---|---:|"]
    out += ["| " + " | ".join(rows[n]) + " |" for n in sorted(rows)]
    out.append("")
    for pas, col in (("in-tree", 2), ("ours", 4)):
        count = {}
        for r in rows.values():
            count[r[col]] = count.get(r[col], 0) + 1
        secs = sum(int(r[col + 1]) for r in rows.values() if r[col + 1])
        out.append(f"- {pas}: " + ", ".join(
            f"{count.get(o, 0)} {o}" for o in
            ("pass", "FAIL", "skip", "timeout", "error", "not run")) +
            f"; {secs} s of tests")
    out.append(f"- {len(rows)} tests have a row")
    text = "\n".join(out) + "\n"
    if notes:
        text += "\n" + notes.rstrip("\n") + "\n"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for opt in ("--tap", "--results", "--tests", "--started", "--secs", "--rc"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    try:
        rows, runs, notes = read_results(a.results)
        run = len(runs) + 1
        new, version = read_tap(a.tap, run)
        if not new:
            raise Bad(f"{a.tap}: no '# kmod-result' line: nothing ran")
        runs.append(f"- run {run}: tests {a.tests}, started {a.started}, "
                    f"openvswitch-source {version or '(not seen)'}, "
                    f"{int(a.secs)} s, launch.sh exited {int(a.rc)}")
        rows.update(new)
        text = render(rows, runs, notes)
    except (Bad, OSError, ValueError) as e:
        print(f"results.py: {e}", file=sys.stderr)
        return 1
    tmp = a.results + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, a.results)
    print(f"# results: {len(new)} tests of run {run} merged into {a.results}, "
          f"{len(rows)} rows in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
