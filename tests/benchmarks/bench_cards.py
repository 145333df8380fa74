"""Card throughput (issue 4 benchmark; not a pytest test).

For every shipped card (both families, 40), in one process:

1. **validate + compile + sample** — :func:`arena_cards.validate_card`
   with the static gates (YAML + JSON Schema, graph, mechanisms, units and
   dimensions, the numeric scan over declared ranges, translation to an SCM
   spec), then the shared protocol's obs cell, n = 1000
   (:func:`causalarena.protocol.sample_cell`). *Cold* = the first time the
   process sees the card; *warm* = median over ``--repeats`` more (parsed
   expressions are cached per process). Median across cards; target ≤ 50 ms.
2. **full validation** — the same plus the data gates (an obs table and an
   800 + 200 obs+int table, the intervention audit, formula residuals), cold.

Reference, same process: the core sampler on a linear-Gaussian SCM of the
same size (d = 21, 31 edges), n = 1000. One-time costs per process
(imports, the pint registry, the JSON Schema validators) are reported
separately.

Run::

    python tests/benchmarks/bench_cards.py [--repeats 5]
    python tests/benchmarks/bench_cards.py --quick   # 4 cards (every 10th), 1 repeat, no target (CI)
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path


def _median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def _once_ms(fn):
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1e3, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true",
                    help="every 10th card, 1 repeat, no target asserted: does it still run (CI)")
    args = ap.parse_args()
    if args.quick:
        args.repeats = 1
        print("quick mode: every 10th card, 1 repeat; timings are not representative and no target is asserted")

    t0 = time.perf_counter()
    import arena_family_formula
    import arena_family_semantic
    from arena_cards import validate_card
    from arena_cards.model import _split_validators, card_files
    from arena_cards.units import registry
    from causalarena.protocol import sample_cell

    registry()
    _split_validators()
    one_time = (time.perf_counter() - t0) * 1e3
    example = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
    validate_card(example)  # warm numpy/scipy/pint code paths on a card that is not measured

    files = card_files(arena_family_semantic.CARDS_DIR) + card_files(arena_family_formula.CARDS_DIR)
    if args.quick:
        files = files[::10]
    rows = []
    for f in files:
        def static_then_sample(f=f):
            rep = validate_card(f, data=False)  # YAML, schema, static gates, numerics scan, translation
            if rep.spec is None:
                raise SystemExit(f"{f}: {rep.errors[:1]}")
            sample_cell(rep.spec, rep.family, "obs", 0)  # sample n = 1000
            return rep

        cold, rep = _once_ms(static_then_sample)  # first time this card is seen in the process
        warm = _median_ms(static_then_sample, args.repeats)
        full_cold, _ = _once_ms(lambda f=f: validate_card(f, data=True))  # + data gates (2 tables), residuals
        rows.append((f.stem, rep.spec.d, int(rep.spec.adjacency().sum()), cold, warm, full_cold))

    from bench_generation import linear_gaussian_spec  # same folder

    ref_spec = linear_gaussian_spec(d=21, density=31 / (21 * 20 / 2), seed=1)
    ref_ms = _median_ms(lambda: sample_cell(ref_spec, "synthetic", "obs", 0), max(args.repeats, 20))

    print(f"{'card':40s} {'d':>3s} {'edges':>5s} {'cold ms':>8s} {'warm ms':>8s} {'+data gates ms':>15s}")
    for name, d, m, cold, warm, full in rows:
        print(f"{name:40s} {d:3d} {m:5d} {cold:8.1f} {warm:8.1f} {full:15.1f}")
    med = statistics.median
    cold, warm, full = med(r[3] for r in rows), med(r[4] for r in rows), med(r[5] for r in rows)
    print(f"\n{len(rows)} cards. Validate (static gates) + compile + sample n=1000, median per card: "
          f"cold {cold:.1f} ms (max {max(r[3] for r in rows):.1f}), warm {warm:.1f} ms; target <= 50 ms")
    print(f"full validation with the data gates (obs + obs+int tables, audit, residuals), cold: median {full:.1f} ms")
    print(f"reference, same process: core sampler on a linear-Gaussian SCM (d=21, 31 edges), n=1000: "
          f"{ref_ms:.2f} ms -> cold card / reference = {cold / ref_ms:.1f}x")
    print(f"one-time per process: imports + pint registry + JSON Schema validators {one_time:.0f} ms")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    main()
