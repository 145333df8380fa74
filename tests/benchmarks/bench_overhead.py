"""Per-run orchestration overhead of the runner: warm workers vs a fresh interpreter per run.

Overhead of a cell = wall time of the cell − the method's own fit time
(``fit_seconds``, timed inside the worker around ``fit`` + ``prediction``).
The method is :class:`EmptyGraph` (fit ≈ 0), so the overhead is what the
harness costs per run. Two wall times are reported for warm workers:

* round trip — the fit request sent to the worker until its answer is read
  (``wall_seconds`` in the store): dataset load in the worker, JSON, pipes;
* whole cell — ``started_at`` → ``finished_at`` of the stored row: adds the
  dataset build and ``.npz`` write, input and output checks, scoring with all
  registry metrics and the SQLite transaction.

"Fresh" starts ``python -m causalarena.worker`` for every cell (spawn, hello,
load, fit, shutdown) over the same datasets — what an interpreter per run
would cost even for a method that imports nothing heavy (real methods add
their 1–5 s of imports on top).

Run (not a pytest test)::

    python tests/benchmarks/bench_overhead.py [--cells 200] [--d 10] [--n 1000] [--check]
    python tests/benchmarks/bench_overhead.py --quick   # 20 cells, 3 fresh interpreters, no target (CI)

``--check`` exits 1 when the warm whole-cell median exceeds 30 ms (ignored with ``--quick``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_MS = 30.0

try:
    from causalarena.method import Method
except ImportError:  # pragma: no cover
    Method = object  # type: ignore[misc,assignment]


class EmptyGraph(Method):  # type: ignore[misc,valid-type]
    """The fastest possible method: the empty graph."""

    def fit(self, dataset):
        self.adjacency_ = np.zeros((dataset.d, dataset.d))
        return self


class RandomInstance:
    """Independent Gaussian columns with a random DAG as 'truth' (n × d)."""

    splits = ("obs",)

    def __init__(self, scm_id: str, n: int, d: int, n_replicates: int) -> None:
        self.family = "bench"
        self.scm_id = scm_id
        self.n, self.d = n, d
        self.n_replicates = n_replicates
        self.factors = {}

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        from causalarena.data import Dataset
        from causalarena.protocol import cell_seed

        seed = cell_seed(self.family, self.scm_id, split, replicate)
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n or self.n, self.d))
        truth = np.triu(rng.random((self.d, self.d)) < 0.3, 1).astype(np.int8)
        return Dataset(X=X, columns=[f"X{i}" for i in range(self.d)], true_adjacency=truth,
                       metadata={"family": self.family, "scm_id": self.scm_id, "split": split,
                                 "replicate": replicate, "seed": seed})


def summarise(label: str, values_s) -> dict:
    ms = sorted(v * 1000.0 for v in values_s)
    out = {"label": label, "cells": len(ms), "median": statistics.median(ms),
           "p90": ms[int(0.9 * (len(ms) - 1))], "mean": statistics.fmean(ms)}
    print(f"  {label:<46} cells={out['cells']:4d}  median={out['median']:8.2f} ms  "
          f"p90={out['p90']:8.2f} ms  mean={out['mean']:8.2f} ms")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, default=200, help="number of cells (>= 200 for the report)")
    ap.add_argument("--n", type=int, default=1000, help="rows per dataset")
    ap.add_argument("--d", type=int, default=10, help="variables per dataset")
    ap.add_argument("--fresh-cells", type=int, default=None,
                    help="cells for the fresh-interpreter run (default: same as --cells)")
    ap.add_argument("--check", action="store_true", help=f"exit 1 if warm median > {TARGET_MS} ms")
    ap.add_argument("--quick", action="store_true",
                    help="20 cells, 3 fresh interpreters, no target asserted: does it still run (CI)")
    args = ap.parse_args(argv)
    if args.quick:
        args.cells, args.fresh_cells, args.check = 20, 3, False
        print("quick mode: 20 cells, 3 fresh interpreters; timings are not representative and no target is asserted")

    from causalarena.plugins import get_registry
    from causalarena.records import MethodInfo
    from causalarena.runner import WorkerHandle, make_cells, run_grid
    from causalarena.store import Store

    reps = 10
    n_inst = -(-args.cells // reps)
    instances = [RandomInstance(f"rand-{i:03d}", args.n, args.d, reps) for i in range(n_inst)]
    method = MethodInfo(name="empty", factory="bench_overhead:EmptyGraph")
    cells = make_cells(instances, [method])[: args.cells]
    env = {"PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    registry = get_registry()

    print(f"CausalArena orchestration overhead: {len(cells)} cells, n = {args.n}, d = {args.d}, "
          f"method EmptyGraph, python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        store = Store(os.path.join(tmp, "runs.sqlite"))
        cache = os.path.join(tmp, "datasets")
        t0 = time.perf_counter()
        run_grid(cells, registry, store, jobs=1, budget_s=60, memory_mb=None, env=env,
                 cache_dir=cache, progress=False)
        total_warm = time.perf_counter() - t0
        rows = store.rows()
        assert len(rows) == len(cells) and all(r["status"] == "ok" for r in rows), \
            {r["status"]: r["error"] for r in rows if r["status"] != "ok"}
        roundtrip = [r["wall_seconds"] - r["fit_seconds"] for r in rows]
        whole = [(datetime.fromisoformat(r["finished_at"]) - datetime.fromisoformat(r["started_at"])).total_seconds()
                 - r["fit_seconds"] for r in rows]
        fits = [r["fit_seconds"] for r in rows]

        # fresh interpreter per run, same dataset files
        files = sorted(os.path.join(cache, f) for f in os.listdir(cache) if f.endswith(".npz"))
        k = args.fresh_cells or len(cells)
        fresh = []
        for i in range(k):
            path = files[i % len(files)]
            t = time.perf_counter()
            w = WorkerHandle(env=env)
            w.start()
            w.load(method.factory, {})
            res = w.fit(path, i, budget_s=60, run_id=str(i))
            w.close()
            fresh.append(time.perf_counter() - t - (res["fit_seconds"] or 0.0))
            assert res["status"] == "ok", res

    print("per-run overhead = wall − fit:")
    print(f"  median fit time of the method: {statistics.median(fits) * 1000:.3f} ms")
    a = summarise("warm worker, round trip", roundtrip)
    b = summarise("warm worker, whole cell (build→checks→store)", whole)
    c = summarise("fresh interpreter per run", fresh)
    print(f"  fresh / warm (round trip) median ratio: {c['median'] / a['median']:.1f}×; "
          f"fresh / warm (whole cell): {c['median'] / b['median']:.1f}×")
    print(f"  whole warm grid: {total_warm:.2f} s for {len(cells)} cells "
          f"({total_warm / len(cells) * 1000:.1f} ms per cell incl. worker start)")
    ok = b["median"] <= TARGET_MS
    print(f"  target: warm median ≤ {TARGET_MS:.0f} ms → {'PASS' if ok else 'FAIL'}")
    return 0 if (ok or not args.check) else 1


if __name__ == "__main__":
    sys.exit(main())
