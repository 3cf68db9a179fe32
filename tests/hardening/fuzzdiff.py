#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fuzzdiff.py IN_TREE OURS: two genl-fuzz --answers files of one seed,
answer against answer.

Prints every request the two modules answered differently, with the
reason when the difference is an expected one: the request names a
feature this datapath lacks (MPLS, NSH, conntrack actions and matches:
README, "How our datapath differs from the in-tree one") or one the
test kernel's in-tree module lacks (conntrack mark and labels), anywhere
in its keys, masks or actions, nested ones too.  Exits 0 when every difference is
expected, 1 when one is not (a finding: tests/hardening/findings), 2
when the files cannot be read or do not pair up line by line.
"""
import sys

# Key attributes (OVS_KEY_ATTR_*) whose presence explains a difference.
KEY_EXPECTED = {
    21: "MPLS fields (ours has none)",
    28: "NSH fields (ours has none)",
    24: "conntrack mark (the test kernel lacks NF_CONNTRACK_MARK)",
    25: "conntrack labels (the test kernel lacks NF_CONNTRACK_LABELS)",
    26: "a conntrack original tuple (ours has no conntrack)",
    27: "a conntrack original tuple (ours has no conntrack)",
}
# Actions (OVS_ACTION_ATTR_*) likewise.
ACTION_EXPECTED = {
    9: "push_mpls (ours has no MPLS)",
    10: "pop_mpls (ours has no MPLS)",
    12: "ct (ours has no conntrack)",
    14: "push_eth (ours has no L3 ports)",
    15: "pop_eth (ours has no L3 ports)",
    16: "ct_clear (ours has no conntrack)",
    17: "push_nsh (ours has no NSH)",
    18: "pop_nsh (ours has no NSH)",
    21: "check_pkt_len (ours lacks it)",
    22: "add_mpls (ours has no MPLS)",
}
# Where the key and action lists sit in each family's requests.
FAMILY_LISTS = {
    "flow": {1: "key", 7: "key", 2: "actions"},
    "packet": {2: "key", 3: "actions"},
}
# Actions that hold a list of actions, and under which of their
# attributes (None: directly).
NESTED_ACTIONS = {6: 2, 20: None, 23: 1}


def attrs(data):
    """(type, payload) of each attribute of a list, as far as it parses."""
    off = 0
    while off + 4 <= len(data):
        length = int.from_bytes(data[off:off + 2], "little")
        kind = int.from_bytes(data[off + 2:off + 4], "little") & 0x3FFF
        if length < 4 or off + length > len(data):
            return
        yield kind, data[off + 4:off + length]
        off += (length + 3) & ~3


def key_reasons(data, depth=0):
    for kind, payload in attrs(data):
        if kind in KEY_EXPECTED:
            yield KEY_EXPECTED[kind]
        if kind == 1 and depth < 8:  # ENCAP
            yield from key_reasons(payload, depth + 1)


def action_reasons(data, depth=0):
    for kind, payload in attrs(data):
        if kind in ACTION_EXPECTED:
            yield ACTION_EXPECTED[kind]
        elif kind in (3, 11):  # set, set_masked: one key attribute
            yield from key_reasons(payload, depth + 1)
        elif kind in NESTED_ACTIONS and depth < 8:
            inner = NESTED_ACTIONS[kind]
            if inner is None:
                yield from action_reasons(payload, depth + 1)
            else:
                for sub, list_ in attrs(payload):
                    if sub == inner:
                        yield from action_reasons(list_, depth + 1)


def reasons(family, data):
    """Why a request of @family with attributes @data may be answered
    otherwise by the two modules."""
    lists = FAMILY_LISTS.get(family, {})
    for kind, payload in attrs(data):
        if lists.get(kind) == "key":
            yield from key_reasons(payload)
        elif lists.get(kind) == "actions":
            yield from action_reasons(payload)


def main(argv):
    if len(argv) != 3:
        print("usage: fuzzdiff.py IN_TREE OURS", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as a, open(argv[2]) as b:
            left, right = a.read().splitlines(), b.read().splitlines()
    except OSError as e:
        print(f"fuzzdiff.py: {e}", file=sys.stderr)
        return 2
    if len(left) != len(right):
        print(f"fuzzdiff.py: {len(left)} answers against {len(right)}",
              file=sys.stderr)
        return 2
    expected = unexpected = 0
    for x, y in zip(left, right):
        fx, fy = x.split(), y.split()
        if len(fx) < 5 or fx[:4] != fy[:4] or fx[5:] != fy[5:]:
            print(f"fuzzdiff.py: not the same request: {x[:60]} / {y[:60]}",
                  file=sys.stderr)
            return 2
        if fx[4] == fy[4]:
            continue
        try:
            data = bytes.fromhex(fx[5]) if len(fx) > 5 else b""
        except ValueError:
            print(f"fuzzdiff.py: bad hex in: {x[:60]}", file=sys.stderr)
            return 2
        why = sorted(set(reasons(fx[0], data)))
        head = f"{' '.join(fx[:4])}: in-tree {fx[4]}, ours {fy[4]}"
        if why:
            expected += 1
            print(f"expected   {head} ({'; '.join(why)})")
        else:
            unexpected += 1
            print(f"UNEXPECTED {head} {fx[5] if len(fx) > 5 else ''}")
    print(f"{len(left)} requests, {expected + unexpected} answered "
          f"differently: {expected} expected, {unexpected} unexpected")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
