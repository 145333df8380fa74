"""Benchmark of the Dask executor (arena-dask; issue 16), not a test.

1. Throughput: a CPU-bound grid (``--cells`` cells of a method that burns
   ≈ 1 CPU-s) on a LocalCluster of 2 workers against 1 worker; target ≥ 1.8×
   on two idle cores.
2. Per-cell overhead: ``--trivial`` cells of a method that returns at once,
   through the Dask path (LocalCluster of 1 worker, started before the timed
   region) against the local warm path (``run_grid(jobs=1)``, the reference,
   same process); target ≤ 20 ms per cell.

Both timed regions contain only ``run_grid`` (the cluster is started, and the
specs generated, before). Run: ``python tests/benchmarks/bench_dask.py``
(needs arena-dask and arena-family-synthetic; ``tox -e bench`` installs them).
``--quick`` (CI, ``tox -e bench-quick``): 4 burning cells of 0.2 CPU-s and 20
trivial ones, no target asserted (the figures are not representative).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from causalarena.method import Method

HERE = Path(__file__).resolve().parent


class Burn(Method):
    """Busy-loops ``seconds`` of CPU (not a sleep), then returns the empty graph."""

    def __init__(self, seconds: float = 1.0):
        self.seconds = seconds

    def fit(self, dataset):
        end = time.process_time() + self.seconds
        x = 0.0
        while time.process_time() < end:
            x += float(np.sum(np.arange(1000.0)))
        self.adjacency_ = np.zeros((dataset.d, dataset.d), dtype=int)
        return self


class Instant(Method):
    def fit(self, dataset):
        self.adjacency_ = np.zeros((dataset.d, dataset.d), dtype=int)
        return self


def _cells(method, n_cells):
    from arena_family_synthetic.family import generate_spec
    from causalarena.family import SCMInstance
    from causalarena.runner import make_cells

    ids = [f"{g}-d10-00{s}" for g in ("er", "sf", "chain", "tree", "layered") for s in range(2)]
    reps = max(1, -(-n_cells // len(ids)))
    insts = [SCMInstance(family="synthetic", scm_id=i, spec=generate_spec(i), splits=("obs",), n_replicates=reps)
             for i in ids]
    return make_cells(insts, [method])[:n_cells]


def _timed(cells, executor=None, jobs=1):
    from causalarena.runner import run_grid
    from causalarena.store import Store

    env = {"PYTHONPATH": str(HERE)}
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "r.sqlite"))
        t0 = time.perf_counter()
        summary = run_grid(cells, None, store, jobs=jobs, env=env, progress=False, executor=executor)
        elapsed = time.perf_counter() - t0
        store.close()
    assert summary.counts.get("ok") == len(cells), summary.counts
    return elapsed


def _dask(n_workers):
    from arena_dask.executor import DaskExecutor

    ex = DaskExecutor(f"local:{n_workers}", {"dashboard": "0"}, jobs=n_workers)
    ex.start()
    return ex


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", type=int, default=40)
    parser.add_argument("--trivial", type=int, default=200)
    parser.add_argument("--burn-seconds", type=float, default=1.0, help="CPU seconds of one burning cell")
    parser.add_argument("--quick", action="store_true",
                        help="4 cells of 0.2 CPU-s, 20 trivial cells: does it still run (CI)")
    args = parser.parse_args(argv)
    if args.quick:
        args.cells, args.trivial, args.burn_seconds = 4, 20, 0.2
        print("quick mode: 4 cells of 0.2 CPU-s, 20 trivial cells; the figures are not representative "
              "(no target asserted)")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    from causalarena.records import MethodInfo

    burn = _cells(MethodInfo(name="burn", factory="bench_dask:Burn", params={"seconds": args.burn_seconds}),
                  args.cells)
    instant = _cells(MethodInfo(name="instant", factory="bench_dask:Instant"), args.trivial)

    ex1 = _dask(1)
    try:
        t1 = _timed(burn, ex1)
        t_dask = _timed(instant, ex1)
    finally:
        ex1.close()
    ex2 = _dask(2)
    try:
        t2 = _timed(burn, ex2)
    finally:
        ex2.close()
    t_local = _timed(instant, None, jobs=1)
    speedup = t1 / t2
    overhead_ms = (t_dask - t_local) / len(instant) * 1000.0
    print(f"CPU-bound grid, {len(burn)} cells of ~{args.burn_seconds:g} CPU-s: 1 Dask worker {t1:.1f} s, 2 workers {t2:.1f} s "
          f"-> throughput x{speedup:.2f} (target >= 1.8)")
    print(f"trivial cells, {len(instant)}: Dask path (1 worker) {t_dask:.2f} s, local warm path {t_local:.2f} s "
          f"-> overhead {overhead_ms:.1f} ms per cell (target <= 20)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
