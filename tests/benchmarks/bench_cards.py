"""Card throughput (issue 4 benchmark; not a pytest test).

For every shipped card (both families, 40 when complete), in one process:

1. **validate + compile** — :func:`causalarena.cards.validate_card` with every
   gate: YAML + JSON Schema, static gates, the numeric scan over declared
   ranges, translation to an SCM spec, and the data gates on an obs table
   (n = 1000) and an obs+int table (800 + 200) with the intervention audit
   and, for formula cards, the pint residual check;
2. **sample n = 1000** — the shared protocol's obs cell from the compiled
   spec (:func:`causalarena.protocol.sample_cell`);

median over ``--repeats`` per card, then the median across cards (target
≤ 50 ms per card for 1 + 2). Reference, same process: the core sampler on a
linear-Gaussian SCM of the same size (d = 22, ~35 edges), n = 1000 — the
ratio says what the card machinery costs over plain sampling. The one-time
costs (importing, building the pint registry and the JSON Schema validator)
are reported separately.

Run::

    python tests/benchmarks/bench_cards.py [--repeats 5] [--no-data]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-data", action="store_true", help="static gates only (no data gates)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    from causalarena.cards import validate_card
    from causalarena.cards.model import _validator
    from causalarena.cards.units import registry
    from causalarena.protocol import sample_cell

    registry()
    _validator()
    one_time = (time.perf_counter() - t0) * 1e3
    import arena_family_formula
    import arena_family_semantic
    from causalarena.cards.model import card_files

    files = card_files(arena_family_semantic.CARDS_DIR) + card_files(arena_family_formula.CARDS_DIR)
    rows = []
    for f in files:
        rep = validate_card(f)  # warm-up (and the spec for sampling)
        if rep.spec is None:
            print(f"skip {f.name}: {rep.errors[0] if rep.errors else 'no spec'}")
            continue
        spec, fam = rep.spec, rep.family
        v_ms = _median_ms(lambda f=f: validate_card(f, data=not args.no_data), args.repeats)
        s_ms = _median_ms(lambda spec=spec, fam=fam: sample_cell(spec, fam, "obs", 0), args.repeats)
        rows.append((f.stem, spec.d, int(spec.adjacency().sum()), v_ms, s_ms))

    from bench_generation import linear_gaussian_spec  # same folder

    ref_spec = linear_gaussian_spec(d=22, density=35 / (22 * 21 / 2), seed=1)
    ref_ms = _median_ms(lambda: sample_cell(ref_spec, "synthetic", "obs", 0), max(args.repeats, 20))

    print(f"{'card':42s} {'d':>3s} {'edges':>5s} {'validate+compile ms':>20s} {'sample ms':>10s} {'total ms':>9s}")
    for name, d, m, v, s in rows:
        print(f"{name:42s} {d:3d} {m:5d} {v:20.1f} {s:10.1f} {v + s:9.1f}")
    totals = [v + s for *_, v, s in rows]
    med = statistics.median(totals)
    print(f"\n{len(rows)} cards; median per card: validate+compile {statistics.median(r[3] for r in rows):.1f} ms, "
          f"sample n=1000 {statistics.median(r[4] for r in rows):.1f} ms, total {med:.1f} ms "
          f"(max {max(totals):.1f} ms; target <= 50 ms)")
    print(f"reference: core sampler, linear-Gaussian d=22, n=1000: {ref_ms:.2f} ms; "
          f"card sample / reference = {statistics.median(r[4] for r in rows) / ref_ms:.1f}x; "
          f"card total / reference = {med / ref_ms:.1f}x")
    print(f"one-time: imports + pint registry + JSON Schema validator {one_time:.0f} ms")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    main()
