"""``arena report`` with every analysis on a store of 100,000 runs (issue 13; not a pytest test).

Builds (untimed) a real SQLite store through :meth:`causalarena.store.Store.record`
— 10 methods × 1,000 synthetic SCMs (the grid's d ∈ {10, 20, 30, 50, 100},
ten graph families, mechanism / noise / root tags per node) × 2 splits × 5
replicates, every ``ok`` run with its stored prediction and the SCM's truth —
then times, in one fresh process each:

* the reference: the core's leaderboard path (``Store.runs_frame()`` +
  ``leaderboard_numeric``), nothing else in the timed region;
* the full ``arena report --results DIR`` (leaderboard, report files, and the
  diagnosis extension: every analysis, every figure, ``index.html``).

It prints wall seconds, the ratio full / reference and each process's peak
resident memory (``ru_maxrss``), and the stored bytes per d = 100 prediction
(adjacency blob; the run row's key columns are the same in every table).
Targets (issue 13): full report ≤ 60 s and ≤ 2 GB on two cores; ≤ 2 KB per
d = 100 prediction.

Run::

    python tests/benchmarks/bench_report.py [--runs-per-method 10000] [--keep DIR] [--check]
    python tests/benchmarks/bench_report.py --quick   # 1,000 runs (10 SCMs per method), no target (CI)

``--check`` exits 1 when a target is missed (ignored with ``--quick``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GRAPHS = ("er", "sf", "chain", "tree", "layered", "bipartite", "small_world", "block_layered", "local_module",
          "collider_rich")
DIMS = (10, 20, 30, 50, 100)
MECHS = ("linear", "polynomial", "rff", "neural", "tree", "periodic", "rational", "activation")
NOISES = ("gaussian", "laplace", "student_t", "beta", "heteroskedastic", "mixture_outlier")
ROOTS = ("gaussian", "uniform", "gumbel", "lognormal")
ROOT_DEP = ("independent", "gaussian_copula", "common_factor", "uniform_ball")
METHODS = ("pc", "ges", "gies", "randomregress", "sortnregress", "direct_lingam", "dagma", "notears", "m9", "m10")
TARGET_SECONDS, TARGET_MB, TARGET_BYTES = 60.0, 2048.0, 2048


def _dag(rng: np.random.Generator, d: int) -> np.ndarray:
    """A random DAG with ~1.5 d edges (upper-triangular in a random order)."""
    p = min(1.0, 3.0 / (d - 1))
    a = np.triu(rng.random((d, d)) < p, k=1)
    order = rng.permutation(d)
    return a[np.ix_(order, order)]


def build(path: Path, per_method: int, seed: int = 0) -> None:
    """Write the synthetic store (not timed)."""
    from causalarena.data import Prediction
    from causalarena.predictions import Truth
    from causalarena.runs import RunRecord
    from causalarena.store import Store

    rng = np.random.default_rng(seed)
    n_scm = per_method // 10  # 2 splits x 5 replicates
    scms = []
    for s in range(n_scm):
        d = DIMS[s % len(DIMS)]
        truth = _dag(rng, d)
        roots = ~truth.any(axis=0)
        tags = tuple({"root": str(rng.choice(ROOTS))} if roots[j] else
                     {"mechanism": str(rng.choice(MECHS)), "noise": str(rng.choice(NOISES))} for j in range(d))
        cols = tuple(f"X{j}" for j in range(d))
        factors = {"graph": GRAPHS[s % len(GRAPHS)], "d": d, "difficulty_level": "clean", "difficulty": ["clean"],
                   "root_dependency": ROOT_DEP[s % len(ROOT_DEP)], "generator": "synthetic@2",
                   "mechanisms": sorted({t["mechanism"] for t in tags if "mechanism" in t}),
                   "noises": sorted({t["noise"] for t in tags if "noise" in t}),
                   "roots": sorted({t["root"] for t in tags if "root" in t})}
        scms.append((f"{factors['graph']}-d{d}-{s:04d}", truth, Truth(truth, cols, tags), factors))
    t0 = time.perf_counter()
    with Store(str(path)) as store:
        for m_i, method in enumerate(METHODS):
            for scm_id, truth, tr, factors in scms:
                d = truth.shape[0]
                for split in ("obs", "obs_int"):
                    for rep in range(5):
                        est = truth.copy()
                        flip = rng.random((d, d)) < 1.5 / d
                        est ^= flip
                        np.fill_diagonal(est, False)
                        tp = int((est & truth).sum())
                        prec, rec = tp / max(int(est.sum()), 1), tp / max(int(truth.sum()), 1)
                        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
                        row = RunRecord(family="synthetic", scm_id=scm_id, split=split, replicate=rep, method=method,
                                        config_hash="0" * 16, status="ok", wall_seconds=float(rng.gamma(2.0, 0.5)),
                                        fit_seconds=0.5, n=1000, d=d, seed=rep, standardise=True,
                                        protocol="default", output_kind="dag", factors=factors,
                                        metrics={"f1": f1, "precision": prec, "recall": rec,
                                                 "shd": float((est != truth).sum())},
                                        worker_id=f"w{m_i:02d}{split}", worker_seq=rep + 1, load_seconds=1.0,
                                        start_seconds=0.1, method_version="1.0")
                        store.record(row, prediction=Prediction(adjacency=est, kind="dag"), truth=tr)
    print(f"built {path} ({len(METHODS) * len(scms) * 10:,} runs) in {time.perf_counter() - t0:.0f} s; "
          f"{path.stat().st_size / 2**20:.0f} MiB")


def _child(mode: str, results: str) -> None:
    """One measured region in a fresh process; prints a JSON line."""
    if mode == "reference":
        from causalarena.report import leaderboard_numeric
        from causalarena.store import Store

        t0 = time.perf_counter()
        with Store(str(Path(results) / "arena.sqlite"), readonly=True) as store:
            runs = store.runs_frame()
        leaderboard_numeric(runs)
        seconds = time.perf_counter() - t0
    else:
        from causalarena.cli import main

        t0 = time.perf_counter()
        code = main(["report", "--results", results])
        seconds = time.perf_counter() - t0
        if code != 0:
            raise SystemExit(f"arena report exited {code}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"mode": mode, "seconds": seconds, "peak_mb": peak_mb}))


def _measure(mode: str, results: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", mode, str(results)], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "120"})
    if out.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-per-method", type=int, default=10_000)
    ap.add_argument("--keep", help="build the store in this folder and keep it (reused when present)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true",
                    help="100 runs per method (1,000 in all), no target asserted: does it still run (CI)")
    args = ap.parse_args()
    if args.quick and not args.child:
        args.runs_per_method, args.check = 100, False
        print("quick mode: 100 runs per method (10 SCMs x 2 splits x 5 replicates); timings are not "
              "representative and no target is asserted")
    if args.child:
        _child(*args.child)
        return 0
    results = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        results.mkdir(parents=True, exist_ok=True)
        store = results / "arena.sqlite"
        if not store.exists():
            build(store, args.runs_per_method)
        import sqlite3

        con = sqlite3.connect(str(store))
        n_runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        blob = con.execute("SELECT avg(length(adjacency)), max(length(adjacency)) FROM predictions WHERE d = 100").fetchone()
        con.close()
        ref = _measure("reference", results)
        full = _measure("full", results)
        ratio = full["seconds"] / ref["seconds"]
        print(f"runs {n_runs:,}; reference (runs_frame + leaderboard) {ref['seconds']:.1f} s, peak {ref['peak_mb']:.0f} MiB")
        print(f"full arena report (every analysis, figures, index.html) {full['seconds']:.1f} s "
              f"(x{ratio:.1f} the reference), peak {full['peak_mb']:.0f} MiB")
        print(f"d = 100 prediction: adjacency blob {blob[0]:.0f} bytes on average (max {blob[1]})")
        ok = full["seconds"] <= TARGET_SECONDS and full["peak_mb"] <= TARGET_MB and (blob[1] or 0) <= TARGET_BYTES
        print("targets (<= 60 s, <= 2 GB, <= 2 KB):", "met" if ok else "MISSED")
        return 0 if ok or not args.check else 1
    finally:
        if not args.keep:  # the store and report of a throwaway folder (~1 GB at full size)
            shutil.rmtree(results, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
