"""Cross-check SCMs for DAS: nonlinear additive Gaussian-noise models with a known causal order.

Two generators, both on ER DAGs whose nodes are numbered in a random order:

* :func:`gp_additive_case` — the simulation of the SCORE and DAS papers (Rolland et al.
  2022 §5; Montagna et al. 2023 §6): ``x_j = Σ_{i ∈ pa(j)} f_ij(x_i) + ε_j`` with every
  ``f_ij`` a draw of a Gaussian process with RBF kernel (length scale 1), here through
  100 random Fourier features, and ``ε_j ~ N(0, 1)``. Own numpy code: the core has no
  GP mechanism, and the core's mechanisms are either nearly linear on the calibrated
  range (``neural``, ``saturation``) or heavy-tailed (``polynomial``), see below.
* :func:`arena_polynomial_case` — the same graph through the core's own
  :mod:`causalarena.scm`: gaussian roots, the core's additive ``polynomial`` mechanism
  (App. A.1 ranges; one cubic polynomial per parent), outputs calibrated to unit
  standard deviation, additive N(0, ``noise_scale``²) noise, columns standardised as the
  protocol does. Harder for SCORE: cubic terms give heavy tails, where the Stein
  kernel estimates are noisier.

Run as a script to measure DAS on both (the figures in the plugin's README)::

    OMP_NUM_THREADS=1 python plugins/das/tests/scm_cases.py --d 10 --n 1000 --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import time
from typing import Optional, Tuple

import attrs
import numpy as np

from causalarena.data import Dataset
from causalarena.scm import ComponentSpec, SCMSpec, calibrate_outputs, node_from_components


def er_dag(d: int, expected_edges: float, rng: np.random.Generator) -> np.ndarray:
    """(d × d) ER DAG, row = parent, nodes numbered in a random causal order."""
    p = min(1.0, 2.0 * expected_edges / (d * (d - 1)))
    A = np.triu(rng.random((d, d)) < p, k=1).astype(np.int8)
    perm = rng.permutation(d)  # hide the order from the column order
    return A[np.ix_(perm, perm)]


def _dataset(X: np.ndarray, A: np.ndarray, scm_id: str, seed: int, standardised: bool) -> Dataset:
    n, d = X.shape
    return Dataset(X=X, columns=[f"X{j}" for j in range(d)], intervention_mask=np.zeros((n, d), dtype=bool),
                   regime=np.full(n, -1, dtype=np.int64), true_adjacency=np.asarray(A, dtype=np.int8),
                   metadata={"family": "testing", "scm_id": scm_id, "split": "obs", "replicate": 0,
                             "seed": seed, "standardised": standardised})


def gp_additive_case(d: int = 10, n: int = 1000, seed: int = 0, expected_edges: Optional[float] = None,
                     n_features: int = 100) -> Dataset:
    """The SCORE/DAS papers' simulation: additive GP functions of each parent plus N(0, 1) noise.

    ``f_ij(x) = Σ_m a_m cos(w_m x + b_m)`` with ``w_m ~ N(0, 1)``, ``b_m ~ U(0, 2π)``,
    ``a_m ~ N(0, 2/M)`` (M = ``n_features``) is a random-Fourier-feature draw of a GP with
    RBF kernel of length scale 1. Raw scale (no standardisation), as in the papers.

    Returns:
        A dataset with ``X`` (n × d) and ``true_adjacency`` (d × d, row = parent).
    """
    rng = np.random.default_rng(seed)
    A = er_dag(d, float(d) if expected_edges is None else expected_edges, rng)
    X = np.zeros((n, d))
    for j in _topological_order(A):
        x = rng.standard_normal(n)
        for i in np.flatnonzero(A[:, j]):
            w = rng.standard_normal(n_features)
            b = rng.uniform(0.0, 2.0 * np.pi, n_features)
            a = rng.standard_normal(n_features) * np.sqrt(2.0 / n_features)
            x += np.cos(np.outer(X[:, i], w) + b) @ a
        X[:, j] = x
    return _dataset(X, A, f"gp-additive-d{d}-s{seed}", seed, standardised=False)


def _topological_order(A: np.ndarray) -> list:
    order, indeg, A = [], A.sum(axis=0).astype(int), np.asarray(A)
    ready = [j for j in range(A.shape[0]) if indeg[j] == 0]
    while ready:
        j = ready.pop(0)
        order.append(j)
        for c in np.flatnonzero(A[j]):
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(int(c))
    return order


def arena_polynomial_case(d: int = 10, n: int = 1000, seed: int = 0, expected_edges: Optional[float] = None,
                          noise_scale: float = 1.0, mechanism: str = "polynomial") -> Tuple[Dataset, SCMSpec]:
    """An additive Gaussian-noise SCM through :mod:`causalarena.scm` (``expected_edges`` default d).

    Mechanism outputs are calibrated to unit standard deviation (``calibrate_outputs``),
    every noise is N(0, ``noise_scale``²) and the table is standardised per column, as the
    arena's protocol does (App. B).

    Returns:
        ``(dataset, spec)``: the dataset has ``X`` (n × d) and ``true_adjacency`` (d × d).
    """
    rng = np.random.default_rng(seed)
    A = er_dag(d, float(d) if expected_edges is None else expected_edges, rng)
    names = [f"X{j}" for j in range(d)]
    nodes = []
    for j in range(d):
        parents = [names[i] for i in np.flatnonzero(A[:, j])]
        node = node_from_components(names[j], parents, rng, mechanism=mechanism, noise="gaussian", root="gaussian")
        if parents:  # every noise N(0, noise_scale²) instead of the drawn App. A.1 scale
            node = attrs.evolve(node, noise=ComponentSpec(kind="gaussian", params={"scale": noise_scale}))
        nodes.append(node)
    spec = calibrate_outputs(SCMSpec(id=f"das-crosscheck-d{d}-s{seed}", nodes=nodes), n=2000, seed=seed)
    X = spec.compile().sample(n, np.random.default_rng(seed + 1))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return _dataset(X, spec.adjacency(), spec.id, seed, standardised=True), spec


def main() -> None:
    from arena_method_das.method import DAS, order_divergence
    from causalarena.metrics import f1, shd

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--edges", type=float, default=None, help="expected edges (default d)")
    ap.add_argument("--noise-scale", type=float, default=1.0, help="noise sd of the causalarena.scm case")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    cases = [("gp", lambda s: gp_additive_case(args.d, args.n, s, args.edges)),
             ("arena_polynomial", lambda s: arena_polynomial_case(args.d, args.n, s, args.edges, args.noise_scale)[0])]
    print("case              seed  edges  order_div  SHD  F1     cand_recall  seconds")
    for name, make in cases:
        for seed in args.seeds:
            ds = make(seed)
            t = time.perf_counter()
            m = DAS().fit(ds.without_truth())
            dt = time.perf_counter() - t
            T = ds.true_adjacency
            cand_recall = float((m.candidates_ & T).sum() / max(1, T.sum()))
            print(f"{name:16s}  {seed:4d}  {int(T.sum()):5d}  {order_divergence(m.order_, T):9d}  "
                  f"{shd(T, m.adjacency_):3.0f}  {f1(T, m.adjacency_):.3f}  {cand_recall:11.2f}  {dt:7.2f}")

if __name__ == "__main__":
    main()
