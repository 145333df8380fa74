"""Random DAG generators with the validity filters of App. A.1.

Graphs are (d × d) int8 adjacency matrices, row = parent, in a random causal
order (the node order is a random permutation of the topological order, so
column index never leaks the causal order).
"""

from __future__ import annotations

import math
from typing import Callable, Dict, Optional, Tuple

import networkx as nx
import numpy as np

#: density ranges of App. A.1 ("Graph structure")
DENSITY = {"er": (0.05, 0.25), "sf": (0.04, 0.22)}
#: minimum depth (edges on the longest directed path), App. A.1/A.2
MIN_DEPTH = {"er": 2, "sf": 3}


def min_edges(d: int) -> int:
    """⌈0.8 d⌉ (App. A.2 graph-level audit)."""
    return math.ceil(0.8 * d)


def in_degree_cap(d: int, rng: np.random.Generator) -> Optional[int]:
    """Optional in-degree cap, App. A.1: none/4/5 for d ≤ 20; 4/5/6 for d ≤ 50; 5/6/8 at d = 100."""
    if d <= 20:
        choices = [None, 4, 5]
    elif d <= 50:
        choices = [4, 5, 6]
    else:
        choices = [5, 6, 8]
    return choices[int(rng.integers(len(choices)))]


def _density(graph: str, d: int, rng: np.random.Generator) -> float:
    """Density = edges / (d(d−1)/2), drawn in the family's range.

    At small d the low end of the paper's range cannot reach ⌈0.8d⌉ edges
    (d = 10: 0.05 · 45 ≈ 2 edges), so the range is clipped below at the
    density that meets the edge filter; the filter would otherwise reject
    those draws anyway (and the rejection count would be unbounded).
    """
    lo, hi = DENSITY[graph]
    floor = min_edges(d) / (d * (d - 1) / 2)
    lo = min(max(lo, floor), hi)
    return float(rng.uniform(lo, max(lo, hi)))


def erdos_renyi(d: int, density: float, rng: np.random.Generator) -> np.ndarray:
    """Random ordered graph: each pair i < j (in a random order) joined with prob. ``density``."""
    upper = np.triu(rng.random((d, d)) < density, k=1).astype(np.int8)
    perm = rng.permutation(d)
    return upper[np.ix_(perm, perm)]


def scale_free(d: int, density: float, rng: np.random.Generator) -> np.ndarray:
    """Barabási–Albert skeleton (networkx) oriented by a random acyclic order.

    ``m`` (edges per new node) is chosen so the edge count m(d − m) matches
    the density.
    """
    target = density * d * (d - 1) / 2
    m = max(1, min(d - 1, int(round((d - math.sqrt(max(d * d - 4 * target, 0))) / 2))))
    g = nx.barabasi_albert_graph(d, m, seed=int(rng.integers(2**31)))
    order = rng.permutation(d)  # position of each node in the causal order
    a = np.zeros((d, d), dtype=np.int8)
    for u, v in g.edges():
        if order[u] < order[v]:
            a[u, v] = 1
        else:
            a[v, u] = 1
    return a


GENERATORS: Dict[str, Callable[[int, float, np.random.Generator], np.ndarray]] = {
    "er": erdos_renyi,
    "sf": scale_free,
}


def apply_in_degree_cap(a: np.ndarray, cap: Optional[int], rng: np.random.Generator) -> np.ndarray:
    """Drop random incoming edges of nodes above ``cap`` parents."""
    if cap is None:
        return a
    a = a.copy()
    for j in range(a.shape[0]):
        parents = np.flatnonzero(a[:, j])
        if parents.size > cap:
            drop = rng.choice(parents, size=parents.size - cap, replace=False)
            a[drop, j] = 0
    return a


def depth(a: np.ndarray) -> int:
    """Edges on the longest directed path."""
    return int(nx.dag_longest_path_length(nx.DiGraph(a)))


def graph_audit(a: np.ndarray, graph: str) -> Optional[str]:
    """The first failed graph-level check (App. A.2), or None when valid."""
    d = a.shape[0]
    g = nx.DiGraph(a)
    if not nx.is_directed_acyclic_graph(g):
        return "cycle"
    isolated = np.flatnonzero((a.sum(0) + a.sum(1)) == 0)
    if isolated.size:
        return f"isolated variables {isolated.tolist()}"
    if a.sum() < min_edges(d):
        return f"{int(a.sum())} edges < ceil(0.8 d) = {min_edges(d)}"
    if depth(a) < MIN_DEPTH[graph]:
        return f"depth {depth(a)} < {MIN_DEPTH[graph]}"
    return None


def sample_graph(graph: str, d: int, rng: np.random.Generator, max_attempts: int = 200) -> Tuple[np.ndarray, dict]:
    """Sample a valid DAG of family ``graph`` with bounded resampling.

    Returns:
        (adjacency (d × d) int8, record) where record holds the density, the
        in-degree cap, the attempt count and the rejection reasons.

    Raises:
        RuntimeError: no valid graph after ``max_attempts`` draws.
    """
    if graph not in GENERATORS:
        raise ValueError(f"unknown graph family {graph!r}; known: {sorted(GENERATORS)}")
    rejections: Dict[str, int] = {}
    for attempt in range(1, max_attempts + 1):
        density = _density(graph, d, rng)
        cap = in_degree_cap(d, rng)
        a = apply_in_degree_cap(GENERATORS[graph](d, density, rng), cap, rng)
        reason = graph_audit(a, graph)
        if reason is None:
            return a, {"density": round(density, 4), "in_degree_cap": cap, "graph_attempts": attempt,
                       "graph_rejections": rejections, "n_edges": int(a.sum()), "depth": depth(a)}
        key = reason.split(" ")[0] if not reason[0].isdigit() else "edges"
        rejections[key] = rejections.get(key, 0) + 1
    raise RuntimeError(f"no valid {graph} graph with d = {d} after {max_attempts} attempts: {rejections}")
