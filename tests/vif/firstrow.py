#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""firstrow.py FILE NAME [all] COLUMN[:KEY]...: a row's versions in an
`ovsdb-client --format=json monitor` transcript.

Prints the first version of the row named NAME (its insert, or its initial
contents), or with "all" every version, one line each, as COLUMN=VALUE
words: sets as comma-separated atoms, maps as KEY=VALUE words, COLUMN:KEY
as that map entry alone (empty when absent).  Prints nothing when NAME
never appears; fails on a transcript that does not parse."""

import json
import sys


def atoms(value):
    if isinstance(value, list) and value[0] == "set":
        return [atoms(v) for v in value[1]]
    if isinstance(value, list) and value[0] == "uuid":
        return value[1]
    return value


def show(value, key=None):
    if isinstance(value, list) and value and value[0] == "map":
        entries = {k: v for k, v in value[1]}
        if key is not None:
            return str(entries.get(key, ""))
        return " ".join(f"{k}={entries[k]}" for k in sorted(entries))
    value = atoms(value)
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def main(path, name, *cols):
    every = bool(cols) and cols[0] == "all"
    cols = cols[1:] if every else cols
    text = open(path, encoding="utf-8").read()
    dec, pos, names, out, last = json.JSONDecoder(), 0, {}, [], None
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            break
        table, pos = dec.raw_decode(text, pos)
        heads = table["headings"]
        for row in table["data"]:
            r = dict(zip(heads, row))
            # A "new" row after an "old" one carries no uuid of its own.
            uuid = r["row"] or last
            last = uuid
            if r["action"] in ("initial", "insert", "new") and "name" in r:
                names[uuid] = r["name"]
            if names.get(uuid) != name or r["action"] not in ("initial", "insert", "new"):
                continue
            words = []
            for c in cols:
                col, _, key = c.partition(":")
                words.append(f"{c}={show(r.get(col), key if key else None)}")
            out.append(" ".join(words))
    for line in out if every else out[:1]:
        print(line)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
