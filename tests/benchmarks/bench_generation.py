"""Generation speed of the synthetic family (issue 3 benchmark; not a pytest test).

Two figures, each against a reference measured in the same process:

1. **Linear-Gaussian sampling at d = 100, n = 1000**: ``SCM.sample`` (spec →
   compiled sampler, topological propagation, per-node mechanism objects)
   vs a plain numpy reference doing the same arithmetic: a topological loop
   ``X[:, j] = X[:, pa(j)] @ w_j + b_j + e_j`` with the same graph, weights and
   draws (the result is checked to be the same bytes), its plan (order, parent
   indices, weights) built before the clock starts — only the draws and the
   loop are timed, as for ``SCM.sample`` on a compiled SCM (medians over
   repeats, alternating; the target is ≤ 1.3×, issue 12 item 15).
2. **The full pool**: regenerate and audit all 1,000 configurations
   (public + reserved; both splits × 5 replicates = 10,000 tables of
   n = 1000) with ``--jobs`` processes — what ``arena audit synthetic`` does
   (target ≤ 3 minutes on 2 cores). Needs an operator key for the reserved
   half; a throwaway key is set for the run when none is in the environment.

Run::

    python tests/benchmarks/bench_generation.py [--jobs 2] [--skip-pool] [--pool-fraction 1.0] [--out FILE]
    python tests/benchmarks/bench_generation.py --quick   # 3 repeats, every 200th configuration (5), no target

No target is asserted by the script (it prints each figure beside its target).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def linear_gaussian_spec(d: int = 100, density: float = 0.1, seed: int = 0):
    from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

    rng = np.random.default_rng(seed)
    a = np.triu(rng.random((d, d)) < density, 1)
    names = [f"X{i}" for i in range(d)]
    nodes = []
    for j in range(d):
        parents = [names[i] for i in np.flatnonzero(a[:, j])]
        if not parents:
            nodes.append(NodeSpec(name=names[j], role="root",
                                  root_distribution=ComponentSpec(kind="gaussian", params={"loc": 0.0, "scale": 1.0})))
            continue
        w = (rng.uniform(0.5, 2.0, len(parents)) * rng.choice([-1, 1], len(parents))).tolist()
        nodes.append(NodeSpec(name=names[j], role="mechanism", parents=parents,
                              mechanism=ComponentSpec(kind="linear", params={"weights": w, "bias": 0.0}),
                              noise=ComponentSpec(kind="gaussian", params={"scale": float(rng.uniform(0.5, 2))})))
    return SCMSpec(id="bench-linear", nodes=nodes)


def numpy_plan(spec):
    """The reference's setup, done once outside any timed region: order, parent indices, weights."""
    names = spec.names
    index = {nm: i for i, nm in enumerate(names)}
    plan = []
    for j in spec.topological_order():
        node = spec.nodes[j]
        if node.role == "root":
            p = node.root_distribution.params
            plan.append((j, None, None, 0.0, float(p["loc"]), float(p["scale"])))
        else:
            plan.append((j, np.array([index[q] for q in node.parents]),
                         np.asarray(node.mechanism.params["weights"], dtype=float),
                         float(node.mechanism.params["bias"]), 0.0, float(node.noise.params["scale"])))
    return plan, len(names)


def numpy_reference(plan, d: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Plain numpy, a tight loop: draw every term in topological order, then propagate.

    ``plan`` comes from :func:`numpy_plan` (no ``topological_order()`` or other
    setup in here). The draws are made in the SCM's order (all exogenous
    terms first, node by node in topological order), so the result equals
    ``SCM.sample`` bit for bit — checked by :func:`bench_linear`.
    """
    e = np.empty((d, n))
    for j, _pa, _w, _b, loc, scale in plan:
        e[j] = rng.normal(loc, scale, n)
    x = np.empty((n, d))
    for j, pa, w, b, _loc, _scale in plan:
        x[:, j] = e[j] if pa is None else x[:, pa] @ w + b + e[j]
    return x


def numpy_solve_reference(w_matrix: np.ndarray, scales: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Plain numpy, fully vectorised: X = E (I − W)⁻¹ for a linear SEM (rows of X are samples)."""
    e = rng.standard_normal((n, scales.size)) * scales
    return np.linalg.solve((np.eye(scales.size) - w_matrix).T, e.T).T


def bench_linear(repeats: int = 30, n: int = 1000) -> None:
    spec = linear_gaussian_spec()
    scm = spec.compile()
    plan, d = numpy_plan(spec)
    same = np.array_equal(scm.sample(n, np.random.default_rng(0)), numpy_reference(plan, d, n, np.random.default_rng(0)))
    ours, ref = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        scm.sample(n, np.random.default_rng(r))
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        numpy_reference(plan, d, n, np.random.default_rng(r))
        ref.append(time.perf_counter() - t0)
    w_matrix = np.zeros((d, d))
    scales = np.ones(d)
    for j, node in enumerate(spec.nodes):
        if node.role == "mechanism":
            w_matrix[[spec.names.index(q) for q in node.parents], j] = node.mechanism.params["weights"]
            scales[j] = node.noise.params["scale"]
    solve = []
    for r in range(repeats):
        t0 = time.perf_counter()
        numpy_solve_reference(w_matrix, scales, n, np.random.default_rng(r))
        solve.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    spec.compile().sample(n, np.random.default_rng(0))
    with_compile = time.perf_counter() - t0
    mo, mr = statistics.median(ours), statistics.median(ref)
    print(f"linear-Gaussian d=100 n={n}: SCM.sample median {mo * 1e3:.2f} ms, numpy reference "
          f"{mr * 1e3:.2f} ms -> ratio {mo / mr:.2f}x (target <= 1.3x; same bytes: {same}); vectorised solve reference "
          f"{statistics.median(solve) * 1e3:.2f} ms -> ratio {mo / statistics.median(solve):.2f}x; "
          f"compile + sample {with_compile * 1e3:.1f} ms")


def bench_pool(jobs: int, fraction: float, out: str = "") -> None:
    from arena_family_synthetic import schedule as S
    from arena_family_synthetic.audits import audit_family, summarise_audit
    from arena_family_synthetic.family import SyntheticFamily

    os.environ.setdefault(S.KEY_ENV, "benchmark-throwaway-key")
    ids = SyntheticFamily(dims=S.DIMS, pool="all", per_cell=20).config_ids()
    if fraction < 1.0:
        ids = ids[:: int(round(1 / fraction))]
    t0 = time.perf_counter()
    records = audit_family("synthetic", {"dims": S.DIMS, "pool": "all", "per_cell": 20}, ids, jobs=jobs)
    wall = time.perf_counter() - t0
    s = summarise_audit(records)
    if out:
        import json

        with open(out, "w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps({k: v for k, v in r.items() if k != "node_tags"}, default=str) + "\n")
    for r in records:
        if not r["passed"]:
            print(f"  FAIL {r['scm_id']}: {r.get('generation_error') or r['failures'][:2]}")
    gen = sum(r.get("generate_seconds", 0) for r in records)
    aud = sum(r.get("audit_seconds", 0) for r in records)
    print(f"pool: {len(ids)} configurations, {s['tables']} tables, {jobs} processes: {wall:.1f} s wall "
          f"(target <= 180 s for 1,000); generation {gen:.1f} s + audit {aud:.1f} s of process time; "
          f"{s['passed']} pass; data attempts mean {np.mean(s['data_attempts']):.2f}; "
          f"rejections {s['data_rejections']}; generation errors {len(s['generation_errors'])}")
    by_d: dict = {}
    for r in records:
        d = r.get("factors", {}).get("d")
        by_d.setdefault(d, []).append(r.get("generate_seconds", 0) + r.get("audit_seconds", 0))
    print("  process seconds per configuration by d: " +
          ", ".join(f"d={d}: {np.mean(v):.2f}" for d, v in sorted(by_d.items(), key=lambda kv: kv[0] or 0)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--skip-pool", action="store_true")
    ap.add_argument("--repeats", type=int, default=30, help="repeats of the linear-Gaussian timing")
    ap.add_argument("--pool-fraction", type=float, default=1.0, help="audit every k-th configuration (quick look)")
    ap.add_argument("--out", default="", help="write the audit records (JSON lines) here")
    ap.add_argument("--quick", action="store_true",
                    help="3 repeats, every 200th pool configuration: does it still run (CI)")
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.pool_fraction = 3, 1 / 200
        print("quick mode: 3 repeats, every 200th configuration of the pool; timings are not representative")
    bench_linear(repeats=args.repeats)
    if not args.skip_pool:
        bench_pool(args.jobs, args.pool_fraction, args.out)


if __name__ == "__main__":
    main()
