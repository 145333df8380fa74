"""Per-run overhead through the venv sandbox backend vs the main environment (issue 5 benchmark).

A fast method (the sandbox fixture's ``where_am_i``: one d × d zero matrix and
an ``os.environ`` lookup, fit ≈ 0.1 ms) runs on ``--cells`` cells twice in
the same process, over the same cached datasets:

* **sandboxed** — its worker is the plugin's own virtualenv interpreter
  (``arena_sandbox.venv.VenvBackend``; the environment is built once, or
  reused from ``$CAUSALARENA_SANDBOX_DIR``, before timing starts);
* **reference** — the same method in the main interpreter (``PYTHONPATH``
  pointing at the fixture's source), i.e. isolation ``none``.

Per-run overhead = ``wall_seconds − fit_seconds`` of each stored row (the fit
request sent to the warm worker until its answer is read). The target is a
sandboxed median ≤ 50 ms. The cold start of a worker (spawn → ``hello`` →
``load``) is reported separately for both, over ``--cold`` starts.

Run (not a pytest test)::

    python tests/benchmarks/bench_sandbox.py [--cells 200] [--cold 10] [--check]
    python tests/benchmarks/bench_sandbox.py --quick   # 20 cells, 2 cold starts, no target (CI)

``--check`` exits 1 above the target (ignored with ``--quick``). Only the venv
backend is measured: the docker backend needs an engine and is not part of
this benchmark (yet); ``--quick`` says so in its first line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(ROOT, "sandbox", "tests", "fixture_plugin")
TARGET_MS = 50.0


def _ms(values):
    ms = sorted(v * 1000.0 for v in values)
    return {"n": len(ms), "median": statistics.median(ms), "p90": ms[int(0.9 * (len(ms) - 1))],
            "mean": statistics.fmean(ms)}


def _line(label, s):
    print(f"  {label:<44} n={s['n']:4d}  median={s['median']:8.2f} ms  p90={s['p90']:8.2f} ms  "
          f"mean={s['mean']:8.2f} ms")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, default=200)
    ap.add_argument("--cold", type=int, default=10, help="cold starts measured per backend")
    ap.add_argument("--check", action="store_true", help=f"exit 1 if the sandboxed median > {TARGET_MS:g} ms")
    ap.add_argument("--quick", action="store_true",
                    help="20 cells, 2 cold starts, no target asserted: does it still run (CI)")
    args = ap.parse_args(argv)
    if args.quick:
        args.cells, args.cold, args.check = 20, 2, False
        print("quick mode: the venv backend only (no docker engine needed), 20 cells, 2 cold starts; timings are "
              "not representative and no target is asserted")

    sys.path.insert(0, os.path.join(ROOT, "core", "tests"))
    from fault_methods import ChainInstance

    from arena_sandbox.envs import build
    from arena_sandbox.venv import VenvBackend
    from causalarena.isolation import WorkerLaunch, local_launch
    from causalarena.records import MethodInfo
    from causalarena.runner import WorkerHandle, make_cells, run_grid
    from causalarena.store import Store

    t0 = time.perf_counter()
    manifest = build(FIXTURE, log=lambda t: print("  " + t))
    print(f"sandbox ready in {time.perf_counter() - t0:.1f} s (key {manifest['key']}, "
          f"numpy {manifest['stack'].get('numpy')})")
    method = MethodInfo(name="where_am_i", factory="arena_method_sandbox_fixture.method:WhereAmI",
                        distribution="arena-method-sandbox-fixture", version=manifest["version"], environment="venv")
    backend = VenvBackend()
    backend.prepare(method)
    reps = 10
    instances = [ChainInstance(f"bench-{i:03d}", n=1000, splits=("obs",), n_replicates=reps)
                 for i in range(-(-args.cells // reps))]
    cells = make_cells(instances, [method])[: args.cells]
    ref_env = {"PYTHONPATH": os.path.join(FIXTURE, "src")}
    print(f"{len(cells)} cells, n = 1000, d = 3, python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    results = {}
    with tempfile.TemporaryDirectory(prefix="arena-bench-sbx-") as tmp:
        cache = os.path.join(tmp, "datasets")
        for label, launcher, env in (
            ("reference (main environment)", lambda m: local_launch(), ref_env),
            ("sandboxed (venv backend)", lambda m: backend.launch(m), {}),
        ):
            store = Store(os.path.join(tmp, f"{label.split()[0]}.sqlite"))
            t = time.perf_counter()
            run_grid(cells, None, store, jobs=1, budget_s=60, env=env, cache_dir=cache, progress=False,
                     launcher=launcher)
            total = time.perf_counter() - t
            rows = store.rows()
            bad = {r["status"]: r["error"] for r in rows if r["status"] != "ok"}
            assert not bad and len(rows) == len(cells), bad
            results[label] = {"overhead": _ms([r["wall_seconds"] - r["fit_seconds"] for r in rows]),
                              "fit": _ms([r["fit_seconds"] for r in rows]), "total": total,
                              "isolation": rows[0]["isolation"]}
        files = sorted(os.path.join(cache, f) for f in os.listdir(cache) if f.endswith(".npz"))
        cold = {}
        for label, launch, env in (
            ("reference (main environment)", local_launch(), ref_env),
            ("sandboxed (venv backend)", backend.launch(method), {}),
        ):
            starts, loads = [], []
            for i in range(args.cold):
                w = WorkerHandle(env=env, launch=WorkerLaunch(argv=launch.argv, env=launch.env, label=launch.label))
                t = time.perf_counter()
                w.start()
                t_hello = time.perf_counter() - t
                resp = w.load(method.factory, {})
                t_load = time.perf_counter() - t
                res = w.fit(files[i % len(files)], i, budget_s=60, run_id=str(i))
                w.close()
                assert resp["status"] == "ok" and res["status"] == "ok", (resp, res)
                starts.append(t_hello)
                loads.append(t_load)
            cold[label] = (_ms(starts), _ms(loads))
    print("per-run overhead with a warm worker = wall − fit:")
    for label, r in results.items():
        _line(f"{label} [{r['isolation'].split('-')[0]}]", r["overhead"])
    ref, sbx = results["reference (main environment)"], results["sandboxed (venv backend)"]
    print(f"  method fit median: {sbx['fit']['median']:.3f} ms; sandboxed / reference overhead median ratio: "
          f"{sbx['overhead']['median'] / ref['overhead']['median']:.2f}×; grid totals "
          f"{ref['total']:.2f} s vs {sbx['total']:.2f} s")
    print("cold start of a worker (spawn → hello; spawn → hello + load):")
    for label, (s, l_) in cold.items():
        _line(f"{label}, hello", s)
        _line(f"{label}, hello + load", l_)
    ok = sbx["overhead"]["median"] <= TARGET_MS
    print(f"  target: sandboxed warm median ≤ {TARGET_MS:.0f} ms → {'PASS' if ok else 'FAIL'}")
    return 0 if (ok or not args.check) else 1


if __name__ == "__main__":
    sys.exit(main())
