"""Scoring cost of one run against ``gadjid.sid`` alone (issue 12 item 16; not a pytest test).

``compute_metrics`` (every metric the core registers: precision, recall, F1,
FDR, SHD, nSHD, SID, AUROC, AP, n_edges) on one (truth, estimate, scores)
triple at d = 100, against the reference ``gadjid.sid`` alone on the same
pair. Both are timed in the same process, alternating, medians over repeats;
the reference's timed region holds the gadjid call only (the int8 arrays it
needs are prepared before the clock starts). Target: ratio ≤ 3×.

Two pairs: a noisy estimate and a near-truth one (gadjid is fastest there,
so the ratio is worst); the worst ratio is what ``--check`` tests. The noisy
pair is an ER DAG (expected degree 4) and an estimate that keeps 80 % of
its edges, reverses 10 % and adds as many false edges (still a DAG: every edge
points forward in a random order); the scores are the estimate plus uniform
noise, rounded to two decimals so that ties occur.

Only the core's *discovery* metrics are timed: an effect metric (``task ==
"effect"``, e.g. spehe2) scores an effect run, takes ``(oracle, prediction)``
and is skipped by ``compute_metrics`` on a graph pair (calling it with the
graph triple was the crash of issue 21).

Run::

    python tests/benchmarks/bench_metrics.py [--d 100] [--repeats 200] [--check]
    python tests/benchmarks/bench_metrics.py --quick   # d = 20, 5 repeats, no target (CI: tox -e bench-quick)

``--check`` exits 1 when the ratio is above the target (ignored with ``--quick``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

TARGET = 3.0


def make_pair(d: int, seed: int = 0):
    """(truth, estimate, scores): two (d × d) int8 DAGs (row = parent) and float scores."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(d)
    pos = np.empty(d, dtype=np.int64)
    pos[order] = np.arange(d)
    forward = pos[:, None] < pos[None, :]
    p = 4.0 / (d - 1)
    truth = (rng.random((d, d)) < p) & forward
    est = truth & (rng.random((d, d)) < 0.8)
    # reverse ~10 % of the kept edges in a second order (stays acyclic in that order)
    order2 = rng.permutation(d)
    pos2 = np.empty(d, dtype=np.int64)
    pos2[order2] = np.arange(d)
    forward2 = pos2[:, None] < pos2[None, :]
    est = (est & forward2) | (est & ~forward2).T
    extra = (rng.random((d, d)) < 0.1 * truth.sum() / (d * d)) & forward2 & ~est.T
    est = est | extra
    np.fill_diagonal(est, False)
    scores = np.round(est + rng.random((d, d)) * 0.9, 2)
    return truth.astype(np.int8), est.astype(np.int8), scores


def near_pair(d: int, seed: int = 1):
    """A good estimate (truth minus 5 % of its edges): gadjid.sid is fastest here, the ratio worst."""
    truth, _, _ = make_pair(d, seed)
    rng = np.random.default_rng(seed + 100)
    est = truth.astype(bool) & (rng.random((d, d)) < 0.95)
    scores = np.round(est + rng.random((d, d)) * 0.9, 2)
    return truth, est.astype(np.int8), scores


def discovery_metrics(registry) -> dict:
    """name -> MetricInfo of the core's per-run discovery metrics (what ``compute_metrics`` scores a graph with).

    Effect metrics (``task == "effect"``: ``f(oracle, prediction)``) and paired ones are left out, as
    ``compute_metrics`` leaves them out; plugins' metrics too (the benchmark times the core's).
    """
    return {k: v for k, v in registry.metrics.items()
            if v.distribution in (None, "", "causal-arena") and v.task == "discovery" and not v.paired}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="d = 20, 5 repeats, no target asserted: does it still run (CI)")
    args = ap.parse_args(argv)
    if args.quick:
        args.d, args.repeats, args.check = 20, 5, False
        print("quick mode: d = 20, 5 repeats; timings are not representative and no target is asserted")

    import gadjid

    from causalarena.metrics import compute_metrics, is_dag
    from causalarena.plugins import get_registry

    metrics = discovery_metrics(get_registry())
    worst = 0.0
    for label, maker in (("noisy estimate", make_pair), ("near-truth estimate", near_pair)):
        truth, est, scores = maker(args.d)
        assert is_dag(truth) and is_dag(est)
        # warm-up: imports (sklearn, networkx, gadjid) and the loaders happen here, not in the timed loop
        values, warnings = compute_metrics(truth, est, scores, metrics)
        assert not warnings, warnings
        gadjid.sid(truth, est, edge_direction="from row to column")
        ours, ref = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            compute_metrics(truth, est, scores, metrics)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            gadjid.sid(truth, est, edge_direction="from row to column")
            ref.append(time.perf_counter() - t0)
        mo, mr = statistics.median(ours), statistics.median(ref)
        ratio = mo / mr
        worst = max(worst, ratio)
        print(f"metrics d={args.d}, {label}: compute_metrics ({len(metrics)} metrics) median "
              f"{mo * 1e3:.3f} ms; gadjid.sid alone {mr * 1e3:.3f} ms -> ratio {ratio:.2f}x "
              f"(target <= {TARGET}x)")
        print("  values: " + ", ".join(f"{k}={v:.4g}" if v is not None else f"{k}=None"
                                       for k, v in values.items()))
        # where the time goes: each metric alone, same process
        per = {}
        for name, info in metrics.items():
            func = info.load()
            ts = []
            for _ in range(max(3 if args.quick else 20, args.repeats // 5)):
                t0 = time.perf_counter()
                func(truth, est, scores)
                ts.append(time.perf_counter() - t0)
            per[name] = statistics.median(ts)
        print("  each metric alone (ms): " + ", ".join(f"{k} {v * 1e3:.3f}" for k, v in per.items()))
    ratio = worst
    if args.check and ratio > TARGET:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
