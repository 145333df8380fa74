#!/usr/bin/env python3
"""Compare the stored runs of two results folders: same keys, statuses and metrics (to a tolerance).

Usage: python scripts/compare_stores.py BEFORE/arena.sqlite AFTER/arena.sqlite [--atol 1e-12]

Reads each store's ``runs`` table with sqlite3 only (no arena import, so it compares stores written by
different versions): the key (family, scm_id, split, replicate, method, config_hash), the status, and every
metric of the ``metrics`` JSON. Exit 0 when both hold the same keys with the same status and metrics
(|a − b| <= atol; NaN/None equal), else 1 with the differences listed. Timings, worker ids and the
Python path are not compared (they differ between any two runs).
"""

import argparse
import json
import math
import sqlite3
import sys

KEY = ("family", "scm_id", "split", "replicate", "method", "config_hash")


def load(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = con.execute(f"SELECT {', '.join(KEY)}, status, metrics FROM runs").fetchall()
    con.close()
    return {r[:6]: (r[6], json.loads(r[7] or "{}")) for r in rows}


def same(a, b, atol):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return abs(float(a) - float(b)) <= atol


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--atol", type=float, default=1e-12)
    args = ap.parse_args()
    before, after = load(args.before), load(args.after)
    problems = []
    for k in sorted(set(before) ^ set(after), key=str):
        problems.append(f"only in {'before' if k in before else 'after'}: {k}")
    compared = 0
    for k in sorted(set(before) & set(after), key=str):
        (s1, m1), (s2, m2) = before[k], after[k]
        if s1 != s2:
            problems.append(f"status {k}: {s1} -> {s2}")
            continue
        if set(m1) != set(m2):
            problems.append(f"metric names {k}: {sorted(set(m1) ^ set(m2))}")
            continue
        for name in m1:
            compared += 1
            if not same(m1[name], m2[name], args.atol):
                problems.append(f"metric {name} {k}: {m1[name]} -> {m2[name]}")
    print(f"{len(before)} runs before, {len(after)} after; {len(set(before) & set(after))} common keys; "
          f"{compared} metric values compared (atol {args.atol:g}); {len(problems)} differences")
    for p in problems[:50]:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
