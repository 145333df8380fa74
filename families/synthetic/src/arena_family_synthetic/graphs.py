"""Random DAG generators for the 10 graph families of App. A.1, with the validity filters of App. A.2.

Graphs are (d × d) int8 adjacency matrices, ``a[i, j] = 1`` meaning i → j
(row = parent). Density = edges / (d(d − 1)/2).

Every generator works in *causal-position space*: position p is the p-th node
of a causal order, so the matrix it returns is strictly upper triangular.
:func:`sample_graph` then relabels the nodes by a random permutation, so in a
sampled graph the column index never leaks the causal order.

Generator contract (the values of :data:`GENERATORS`)::

    generator(d, n_edges, cap, rng, min_roots) -> (a_pos (d × d) bool, strictly upper triangular, info dict)

``n_edges`` is the edge target drawn from the family's density range
(:func:`edge_range`), ``cap`` the optional in-degree cap (None = no explicit
cap) which the generator respects by construction, ``min_roots`` the number of
root nodes the caller needs (only chain and tree, whose natural shape has a
single root, build for it; the other families have several roots in nearly
every draw and rely on the ``roots`` rejection of :func:`sample_graph`). ``info`` holds family parameters
(scalars) and per-position assignments (length-d integer arrays: ``layers``,
``blocks``, ``modules``, ``colliders``) that :func:`sample_graph` maps to node
order and stores in the record under ``structure``.

Most families share one sampler, :func:`_select_edges`: a family is a weight
matrix over the allowed ordered pairs plus an optional required backbone, and
the extra edges are a weighted sample without replacement (Efraimidis–Spirakis
keys) subject to the in-degree cap. networkx has generators for the scale-free
(Barabási–Albert), small-world (Newman–Watts–Strogatz) and tree (uniform random
labelled tree) skeletons, used here; it has no layered, block, modular or
v-structure-targeting DAG generator and no capped weighted edge sampler, hence
the own code for those.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, Optional, Tuple

import numpy as np

# networkx is imported by the three generators that use it (scale_free, tree, small_world), so that
# listing ids (which reads GRAPH_FAMILIES) does not import it

#: the 10 graph families of App. A.1, in the paper's order (keys of config ids such as "layered-d30-004")
GRAPH_FAMILIES: Tuple[str, ...] = ("er", "sf", "chain", "tree", "layered", "bipartite", "small_world",
                                   "block_layered", "local_module", "collider_rich")

#: density ranges of App. A.1 ("Graph structure"); density = edges / (d(d − 1)/2)
DENSITY: Dict[str, Tuple[float, float]] = {
    "er": (0.05, 0.25), "sf": (0.04, 0.22), "chain": (0.03, 0.16), "tree": (0.03, 0.16),
    "layered": (0.04, 0.20), "bipartite": (0.04, 0.20), "small_world": (0.04, 0.20),
    "block_layered": (0.04, 0.20), "local_module": (0.06, 0.24), "collider_rich": (0.06, 0.24),
}

#: minimum depth (edges on the longest directed path), App. A.2: 3 for chain/tree/small-world/scale-free, 2 otherwise
MIN_DEPTH: Dict[str, int] = {g: (3 if g in ("chain", "tree", "small_world", "sf") else 2) for g in GRAPH_FAMILIES}

#: share of the cap-feasible maximum edge count the drawn edge target may use (see :func:`edge_range`)
CAP_HEADROOM = 0.8

Info = Dict[str, object]
Generator = Callable[[int, int, Optional[int], np.random.Generator, int], Tuple[np.ndarray, Info]]


def min_edges(d: int) -> int:
    """⌈0.8 d⌉ (App. A.2 graph-level audit)."""
    return math.ceil(0.8 * d)


def n_pairs(d: int) -> int:
    """d(d − 1)/2, the denominator of the density."""
    return d * (d - 1) // 2


def in_degree_cap(d: int, rng: np.random.Generator) -> Optional[int]:
    """Optional in-degree cap, App. A.1: none/4/5 for d ≤ 20; 4/5/6 for d ≤ 50; 5/6/8 at d = 100."""
    if d <= 20:
        choices = [None, 4, 5]
    elif d <= 50:
        choices = [4, 5, 6]
    else:
        choices = [5, 6, 8]
    return choices[int(rng.integers(len(choices)))]


def edge_range(graph: str, d: int, cap: Optional[int] = None) -> Tuple[int, int]:
    """Admissible edge targets [lo, hi] for family ``graph`` (App. A.1 density ranges).

    lo = max(⌈lo_density · d(d−1)/2⌉, ⌈0.8 d⌉) — the *density floor*: at small
    d the low end of the paper's range cannot reach the ⌈0.8d⌉ edges the audit
    demands (d = 10: 0.05 · 45 ≈ 2 edges), so it is raised to ⌈0.8d⌉; where
    even the top of the range is below that (chain and tree at d = 10:
    0.16 · 45 = 7 < 8) the range collapses to the floor.

    hi = ⌊hi_density · d(d−1)/2⌋, lowered under an in-degree cap c to
    ``CAP_HEADROOM`` × the most edges any DAG with in-degree ≤ c can have,
    c·d − c(c+1)/2 (at d = 100 and c = 5 that is 485 edges = density 0.098,
    far below ER's 0.25: the paper's ranges and caps cannot both hold, and a
    target the cap cannot carry would only be cut down after the fact).

    Raises:
        ValueError: unknown family.
    """
    if graph not in DENSITY:
        raise ValueError(f"unknown graph family {graph!r}; known: {list(GRAPH_FAMILIES)}")
    lo_d, hi_d = DENSITY[graph]
    lo = max(math.ceil(lo_d * n_pairs(d) - 1e-9), min_edges(d))
    hi = math.floor(hi_d * n_pairs(d) + 1e-9)
    if cap is not None:
        hi = min(hi, math.floor(CAP_HEADROOM * (cap * d - cap * (cap + 1) / 2)))
    return lo, max(hi, lo)


def density_bounds(graph: str, d: int) -> Tuple[float, float]:
    """The realisable density range of ``graph`` at ``d``: the paper's range with the floor of :func:`edge_range`."""
    lo, hi = edge_range(graph, d)
    return lo / n_pairs(d), hi / n_pairs(d)


# --------------------------------------------------------------------------- graph statistics

def _depth_or_none(a: np.ndarray) -> Optional[int]:
    """Longest directed path (edges) by peeling sources level by level; None when the graph has a cycle."""
    a = np.asarray(a) != 0
    indeg = a.sum(0)
    remaining = np.ones(a.shape[0], dtype=bool)
    level = -1
    while remaining.any():
        sources = remaining & (indeg == 0)
        if not sources.any():
            return None
        remaining &= ~sources
        indeg = indeg - a[sources].sum(0)
        level += 1
    return max(level, 0)


def depth(a: np.ndarray) -> int:
    """Edges on the longest directed path of the DAG ``a`` (d × d).

    Raises:
        ValueError: ``a`` has a directed cycle.
    """
    out = _depth_or_none(a)
    if out is None:
        raise ValueError("graph has a directed cycle")
    return out


def n_roots(a: np.ndarray) -> int:
    """Nodes without parents."""
    return int((np.asarray(a).sum(0) == 0).sum())


def n_v_structures(a: np.ndarray) -> int:
    """Unshielded colliders i → k ← j with i, j non-adjacent, each unordered pair {i, j} counted once per k.

    Σ_k C(indeg_k, 2) minus the adjacent parent pairs, diag(aᵀ S a)/2 with S the skeleton.
    """
    a = (np.asarray(a) != 0).astype(np.int64)
    indeg = a.sum(0)
    skeleton = ((a + a.T) > 0).astype(np.int64)
    shielded = np.einsum("ik,ij,jk->k", a, skeleton, a) // 2
    return int((indeg * (indeg - 1) // 2 - shielded).sum())


# --------------------------------------------------------------------------- shared machinery

def _caps(d: int, cap: Optional[int]) -> np.ndarray:
    """Per-column in-degree limit (d,), d when there is no cap."""
    return np.full(d, d if cap is None else cap, dtype=np.int64)


def _select_edges(w: np.ndarray, n_edges: int, caps: np.ndarray, rng: np.random.Generator,
                  required: Optional[np.ndarray] = None) -> np.ndarray:
    """Required edges plus a weighted sample of further edges, under per-column in-degree limits.

    Args:
        w: (d × d) non-negative weights; only strictly-upper-triangular positive
            entries are candidates.
        n_edges: total edge target (required edges included).
        caps: (d,) in-degree limit per column.
        required: (d × d) bool backbone, always kept (it must respect ``caps``).

    Each candidate gets the Efraimidis–Spirakis key log(U)/w (a top-k by key is
    a weighted sample without replacement); per column only the best
    ``caps − required`` keys stay eligible, and the best eligible keys overall
    fill the target. Fewer edges come back when the candidates run out.

    Returns:
        (d × d) bool adjacency.
    """
    d = w.shape[0]
    out = np.zeros((d, d), dtype=bool) if required is None else required.copy()
    allowed = np.triu(w > 0, 1) & ~out
    u = rng.random((d, d))
    keys = np.full((d, d), -np.inf)
    keys[allowed] = np.log(u[allowed]) / w[allowed]
    room = np.maximum(caps - out.sum(0), 0)
    order = np.argsort(-keys, axis=0, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(d)[:, None], (d, d)), axis=0)
    eligible = np.flatnonzero(allowed & (rank < room[None, :]))
    n_extra = int(n_edges) - int(out.sum())
    if n_extra <= 0 or eligible.size == 0:
        return out
    if eligible.size > n_extra:
        eligible = eligible[np.argpartition(-keys.flat[eligible], n_extra - 1)[:n_extra]]
    out.flat[eligible] = True
    return out


def _repair_isolated(a: np.ndarray, w: np.ndarray, caps: np.ndarray, rng: np.random.Generator,
                     required: Optional[np.ndarray] = None) -> np.ndarray:
    """Give every isolated node one edge of the family's support, keeping the edge count and the caps.

    For each isolated node v an edge touching v is drawn with probability ∝ w
    and one edge is removed to make room: an incoming edge of the new child
    when that child is at its cap, otherwise any redundant edge (with
    probability ∝ 1/w, so off-structure edges go first). Removed edges are
    never required and both their endpoints keep another edge. Without this the
    audit's no-isolated-variable filter rejects most sparse draws at small d
    (G(10, 9) has an isolated node in most draws).
    """
    a = a.copy()
    d = a.shape[0]
    req = np.zeros_like(a) if required is None else required
    wu = np.triu(w, 1)
    for _ in range(d):
        deg = a.sum(0) + a.sum(1)
        isolated = np.flatnonzero(deg == 0)
        if isolated.size == 0:
            break
        v = int(isolated[rng.integers(isolated.size)])
        indeg = a.sum(0)
        redundant = a & ~req & (deg[:, None] >= 2) & (deg[None, :] >= 2)
        full = indeg >= caps
        # a full child is usable only if one of its incoming edges can go
        usable = ~full | redundant.any(0)
        cand = np.concatenate([wu[:, v] * usable[v], wu[v, :] * usable])
        if cand.sum() <= 0:
            break
        pick = int(rng.choice(2 * d, p=cand / cand.sum()))
        parent, child = (pick, v) if pick < d else (v, pick - d)
        idx = np.flatnonzero(redundant[:, child]) * d + child if full[child] else np.flatnonzero(redundant)
        if idx.size:
            inv = 1.0 / np.maximum(wu.flat[idx], 1e-12)
            a.flat[int(rng.choice(idx, p=inv / inv.sum()))] = False
        a[parent, child] = True
    return a


def _sizes(n: int, k: int, smin: int, rng: np.random.Generator, concentration: float = 4.0) -> np.ndarray:
    """Random composition of n into k parts ≥ smin (Dirichlet-multinomial, moderately balanced)."""
    p = rng.dirichlet(np.full(k, concentration))
    return smin + rng.multinomial(n - k * smin, p)


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**31 - 1))


# --------------------------------------------------------------------------- families

def erdos_renyi(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
                min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Erdős–Rényi "random ordered graph" (App. A.1): ``n_edges`` pairs of the causal order, uniformly (G(d, m)).

    Under a cap the sample is uniform among the pairs left eligible per
    column; isolated nodes are repaired by :func:`_repair_isolated`.
    """
    w = np.triu(np.ones((d, d)), 1)
    caps = _caps(d, cap)
    return _repair_isolated(_select_edges(w, n_edges, caps, rng), w, caps, rng), {}


def scale_free(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
               min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Barabási–Albert preferential-attachment skeleton (networkx) oriented by a random acyclic order.

    App. A.1 "scale-free": each new node attaches k edges to existing nodes
    chosen ∝ degree; every skeleton edge then points from the earlier to the
    later node of a uniformly random causal order (the orientation of gCastle's
    and NOTEARS' scale-free DAGs), so hubs have heavy-tailed out- *and*
    in-degree until the in-degree cap binds. k starts at the smallest value
    with k(d − k) ≥ ``n_edges`` and grows while the capped skeleton cannot carry
    the target; the target is then drawn uniformly from the skeleton's edges
    under the cap. With k = 1 (d = 10, and sparse draws at d = 20) the skeleton
    is a preferential-attachment tree, kept whole (d − 1 edges): dropping a tree
    edge would mostly isolate a leaf.
    """
    import networkx as nx

    caps = _caps(d, cap)
    k = 1
    while k < d - 2 and k * (d - k) < n_edges:
        k += 1
    while True:
        g = nx.barabasi_albert_graph(d, k, seed=_seed(rng))
        pos = rng.permutation(d)
        e = np.array(list(g.edges()))
        pu, pv = pos[e[:, 0]], pos[e[:, 1]]
        w = np.zeros((d, d))
        w[np.minimum(pu, pv), np.maximum(pu, pv)] = 1.0
        if np.minimum(w.sum(0), caps).sum() >= n_edges or k >= d - 2:
            break
        k += 1
    target = max(n_edges, d - 1) if k == 1 else n_edges
    a = _select_edges(w, target, caps, rng)
    a = _repair_isolated(a, w + 1e-3 * np.triu(np.ones((d, d)), 1), caps, rng)  # off-skeleton only as last resort
    return a, {"attach": k}


def chain(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
          min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Sparse path-like DAG with long directed propagation (App. A.1 "chain").

    Backbone: directed paths through consecutive causal positions — one
    Hamiltonian path (depth d − 1) when the target allows d − 1 edges,
    otherwise (a target below d − 1 forces d − ``n_edges`` components) one long
    path plus two-node paths (d = 10, 8 edges: a path of 8 nodes and a pair).
    With ``min_roots`` = r ≥ 2 a single path gets r head roots that all feed
    position r. The rest of the target is skip edges p → p + s (s ≥ 2) drawn
    with weight exp(−(s − 2)/τ), τ = 1 + (extra edges per node): a band around
    the path, so propagation stays long and local.
    """
    n_paths = max(1, d - n_edges)
    req = np.zeros((d, d), dtype=bool)
    main = d - 2 * (n_paths - 1)
    req[np.arange(main - 1), np.arange(1, main)] = True
    req[np.arange(main, d, 2), np.arange(main + 1, d, 2)] = True
    heads = 0
    if n_paths < min_roots:
        heads = min(min_roots, d - 2)
        req[:heads, :heads] = False
        req[:heads, heads] = True
    w = np.zeros((d, d))
    extra = n_edges - int(req.sum())
    if extra > 0:
        i, j = np.indices((d, d))
        span = j - i
        tau = 1.0 + extra / d
        w = np.where((span >= 2) & (j >= max(heads, 1)), np.exp(-(span - 2) / tau), 0.0)
    return _select_edges(w, n_edges, _caps(d, cap), rng, required=req), {"n_paths": n_paths, "heads": heads}


def tree(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
         min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Branching sparse DAG (App. A.1 "tree"): a random tree plus ancestor shortcuts.

    Backbone: a uniform random labelled tree (networkx, Prüfer) rooted at a
    random node and oriented away from it (in-degree 1), cut into
    max(``min_roots``, d − ``n_edges``) trees when the target is below d − 1
    (only edges whose removal isolates nothing are cut). Edges beyond the
    backbone (targets above d − 1, possible from d = 20 on and forced at
    d = 100, where density ≥ 0.03 means ≥ 149 edges) are shortcuts from a node to a descendant at tree distance
    t ≥ 2, weight exp(−(t − 2)/τ). Shortcuts do not change reachability, so the
    family's defining property holds for every draw: the transitive reduction
    is the backbone forest, i.e. every node's ancestors form a single chain.
    """
    import networkx as nx

    g = nx.random_labeled_tree(d, seed=_seed(rng))
    root = int(rng.integers(d))
    order = [root] + [v for _, v in nx.bfs_edges(g, root)]
    pos = np.empty(d, dtype=np.int64)
    pos[order] = np.arange(d)
    parent = np.full(d, -1, dtype=np.int64)
    for u, v in nx.bfs_edges(g, root):
        parent[pos[v]] = pos[u]
    n_trees = max(min_roots, d - n_edges, 1)
    for _ in range(n_trees - 1):
        n_children = np.bincount(parent[parent >= 0], minlength=d)
        p = parent
        ok = (p >= 0) & (n_children > 0)
        ok[ok] &= (parent[p[ok]] >= 0) | (n_children[p[ok]] >= 2)
        cand = np.flatnonzero(ok)
        if cand.size == 0:
            break
        parent = parent.copy()
        parent[int(rng.choice(cand))] = -1
    anc = np.zeros((d, d), dtype=bool)
    level = np.zeros(d, dtype=np.int64)
    for j in range(1, d):  # BFS positions: a parent precedes its children
        if parent[j] >= 0:
            anc[:, j] = anc[:, parent[j]]
            anc[parent[j], j] = True
            level[j] = level[parent[j]] + 1
    req = np.zeros((d, d), dtype=bool)
    kids = np.flatnonzero(parent >= 0)
    req[parent[kids], kids] = True
    extra = n_edges - int(req.sum())
    dist = level[None, :] - level[:, None]
    tau = 1.0 + max(extra, 0) / d
    w = np.where(anc & (dist >= 2), np.exp(-(dist - 2) / tau), 0.0)
    a = _select_edges(w, n_edges, _caps(d, cap), rng, required=req)
    return a, {"n_trees": int((parent < 0).sum())}


def _fit_first_layer(sizes: np.ndarray, n_edges: float, cap: Optional[int], rng: np.random.Generator) -> np.ndarray:
    """Shrink layer 0 (parentless) until the later layers can take ``n_edges`` at ``cap`` parents each (+15 %).

    A large first layer under an in-degree cap cannot carry the drawn density
    (d = 50, cap 6, 20 of 50 nodes in layer 0: at most 180 edges for a target of
    214); the surplus nodes are spread over the later layers.
    """
    if cap is None:
        return sizes
    room = int(sizes.sum()) - math.ceil(1.15 * n_edges / cap)
    surplus = int(sizes[0]) - max(1, room)
    if surplus <= 0:
        return sizes
    sizes = sizes.copy()
    sizes[0] -= surplus
    sizes[1:] += rng.multinomial(surplus, np.full(sizes.size - 1, 1.0 / (sizes.size - 1)))
    return sizes


def _layered(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator, layer: np.ndarray,
             block: np.ndarray, skip_decay: float, cross_weight: float, n_within: int = 0) -> np.ndarray:
    """Shared layered sampler; positions are sorted by ``layer``, ``block`` labels any partition.

    Weight of i → j (i before j, Δ = layer_j − layer_i ≥ 1): ``skip_decay``^(Δ − 1)
    (``skip_decay`` = 0: consecutive layers only), times ``cross_weight`` when
    the blocks differ. Backbone: every node of layer ℓ ≥ 1 gets a parent in
    layer ℓ − 1 of its block, distinct parents first so the previous layer is
    covered. ``n_within`` within-layer edges (same block) are added after the
    rest as a fixed quota (bipartite-like stages), the first one required and
    joining a node of the last layer to a later one of that layer, so a
    two-layer graph reaches depth 2. The target is not topped up with
    off-structure edges when the cap leaves too few layer edges.
    """
    dl = layer[None, :] - layer[:, None]
    same_block = block[:, None] == block[None, :]
    w = np.where(dl >= 1, np.power(skip_decay, np.maximum(dl - 1, 0)), 0.0) if skip_decay > 0 else (dl == 1) * 1.0
    w = np.triu(w * np.where(same_block, 1.0, cross_weight), 1)
    req = np.zeros((d, d), dtype=bool)
    for b in np.unique(block):
        for ell in range(1, int(layer.max()) + 1):
            cur = np.flatnonzero((block == b) & (layer == ell))
            prev = np.flatnonzero((block == b) & (layer == ell - 1))
            if cur.size == 0 or prev.size == 0:
                continue
            parents = np.concatenate([rng.permutation(prev), rng.choice(prev, size=max(0, cur.size - prev.size))])
            req[parents[: cur.size], rng.permutation(cur)] = True
    caps = _caps(d, cap)
    later = n_within
    if n_within > 0:
        last = np.flatnonzero(layer == layer.max())
        last = last[block[last] == block[last[0]]]
        if last.size >= 2:
            u, v = np.sort(rng.choice(last, size=2, replace=False))
            if req[:, v].sum() < caps[v]:
                req[u, v] = True
                later -= 1
    a = _select_edges(w, n_edges - later, caps, rng, required=req)
    a = _repair_isolated(a, w, caps, rng, required=req)
    if later > 0:
        w_within = np.triu((dl == 0) & same_block, 1) * 1.0
        a = _select_edges(w_within, int(a.sum()) + later, caps, rng, required=a)
    return a


def _layer_labels(sizes: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(sizes.size), sizes)


def layered(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
            min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Layer-respecting DAG (App. A.1 "layered"): edges only from earlier to later layers.

    L ∈ {3, …, max(3, round(√d))} layers of moderately balanced sizes
    (Dirichlet(4) shares, the first layer shrunk by :func:`_fit_first_layer`);
    consecutive layers have weight 1 and skipping s layers weight γ^s,
    γ ~ U[0.2, 0.5].
    """
    n_layers = int(rng.integers(3, max(3, round(math.sqrt(d))) + 1))
    sizes = _fit_first_layer(_sizes(d, n_layers, max(1, d // (3 * n_layers)), rng), n_edges, cap, rng)
    layer = _layer_labels(sizes)
    gamma = float(rng.uniform(0.2, 0.5))
    a = _layered(d, n_edges, cap, rng, layer, np.zeros(d, dtype=np.int64), gamma, 1.0)
    return a, {"layers": layer, "n_layers": n_layers, "skip_decay": round(gamma, 4)}


def bipartite(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
              min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Two- or multi-stage bipartite-like DAG (App. A.1 "bipartite layered").

    S ∈ {2, 3, 4} stages; edges join consecutive stages only (no skips), plus
    a small quota of within-stage edges ("bipartite-like"): a share
    U[0, 0.05] of the target, and at least one in a two-stage graph, whose
    depth would otherwise be 1, below the audit's 2.
    """
    n_stages = int(rng.integers(2, 5))
    sizes = _fit_first_layer(_sizes(d, n_stages, max(2, d // (3 * n_stages)), rng), n_edges, cap, rng)
    layer = _layer_labels(sizes)
    n_within = max(int(n_stages == 2), int(round(rng.uniform(0.0, 0.05) * n_edges)))
    a = _layered(d, n_edges, cap, rng, layer, np.zeros(d, dtype=np.int64), 0.0, 1.0, n_within=n_within)
    return a, {"layers": layer, "n_layers": n_stages}


def small_world(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
                min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Locally clustered DAG with short paths (App. A.1 "small-world").

    Skeleton: networkx Newman–Watts–Strogatz ring lattice (each node joined to
    its k nearest ring neighbours, k = 2·round(m/d) ≥ 2) plus shortcuts with
    probability p = max(0, m/(dk/2) − 1) + 0.1, oriented by a random acyclic
    order (not the ring order, which would give depth ~ d/k); the edge target
    is then drawn uniformly from the skeleton under the cap. At d = 10 the
    target (8–9 edges) only admits k = 2, a ring without triangles. When the
    cap leaves the skeleton too few edges for the target, k grows by 2 and the
    skeleton is redrawn.
    """
    import networkx as nx

    caps = _caps(d, cap)
    k_max = d - 1 - (d - 1) % 2
    k = min(max(2, 2 * round(n_edges / d)), k_max)
    while True:
        p = min(1.0, max(0.0, n_edges / (d * k / 2) - 1.0) + 0.1)
        g = nx.newman_watts_strogatz_graph(d, k, p, seed=_seed(rng))
        pos = rng.permutation(d)
        e = np.array(list(g.edges()))
        pu, pv = pos[e[:, 0]], pos[e[:, 1]]
        w = np.zeros((d, d))
        w[np.minimum(pu, pv), np.maximum(pu, pv)] = 1.0
        if np.minimum(w.sum(0), caps).sum() >= n_edges or k + 2 > k_max:
            break
        k += 2  # the capped skeleton cannot carry the target: a wider lattice
    a = _select_edges(w, n_edges, caps, rng)
    a = _repair_isolated(a, w + 1e-3 * np.triu(np.ones((d, d)), 1), caps, rng)  # off-skeleton only as last resort
    return a, {"ring_k": int(k), "shortcut_p": round(p, 4)}


def block_layered(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
                  min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Block-structured layered DAG with sparse cross-block edges (App. A.1 "block-sparse layered").

    B ∈ {2, …, max(2, d // 15)} blocks share L ∈ {3, …, max(3, round(√(d/B)))}
    layers; each block is a layered DAG (skip decay γ ~ U[0.2, 0.5]) and edges
    between blocks (still earlier → later layer) get a weight ε set so that a
    share ρ ~ U[0.05, 0.15] of the weight mass is cross-block.
    """
    n_blocks = int(rng.integers(2, max(2, d // 15) + 1))
    n_layers = int(rng.integers(3, max(3, round(math.sqrt(d / n_blocks))) + 1))
    block_sizes = _sizes(d, n_blocks, n_layers, rng)
    layer_parts, block_parts = [], []
    for b, nb in enumerate(block_sizes):
        sizes = _fit_first_layer(_sizes(int(nb), n_layers, 1, rng), n_edges * nb / d, cap, rng)
        layer_parts.append(_layer_labels(sizes))
        block_parts.append(np.full(nb, b))
    lay, blk = np.concatenate(layer_parts), np.concatenate(block_parts)
    srt = np.lexsort((rng.random(d), lay))
    layer, block = lay[srt], blk[srt]
    gamma = float(rng.uniform(0.2, 0.5))
    rho = float(rng.uniform(0.05, 0.15))
    dl = layer[None, :] - layer[:, None]
    base = np.where(dl >= 1, np.power(gamma, np.maximum(dl - 1, 0)), 0.0)
    same = block[:, None] == block[None, :]
    eps = rho * base[same].sum() / ((1 - rho) * max(base[~same].sum(), 1e-12))
    a = _layered(d, n_edges, cap, rng, layer, block, gamma, eps)
    return a, {"layers": layer, "blocks": block, "n_layers": n_layers, "n_blocks": n_blocks,
               "cross_share": round(rho, 4)}


def local_module(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
                 min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """Modular DAG with denser within-module connectivity (App. A.1 "dense local-module").

    M ∈ {2, …, max(2, d // 8)} modules of ≥ 3 nodes, interleaved in the causal
    order. Backbone: a random recursive tree inside each module (each member
    gets a parent among its earlier members); further edges weight 1 within a
    module and ε across, ε set so that a share ρ ~ U[0.1, 0.25] of the weight
    mass is cross-module.
    """
    n_modules = int(rng.integers(2, max(2, d // 8) + 1))
    module = rng.permutation(_layer_labels(_sizes(d, n_modules, 3, rng)))
    req = np.zeros((d, d), dtype=bool)
    for mod in range(n_modules):
        members = np.flatnonzero(module == mod)
        for t in range(1, members.size):
            req[members[int(rng.integers(t))], members[t]] = True
    same = np.triu(module[:, None] == module[None, :], 1)
    cross = np.triu(~(module[:, None] == module[None, :]), 1)
    rho = float(rng.uniform(0.1, 0.25))
    eps = rho * same.sum() / ((1 - rho) * max(cross.sum(), 1))
    w = same * 1.0 + cross * eps
    caps = _caps(d, cap)
    a = _select_edges(w, n_edges, caps, rng, required=req)
    a = _repair_isolated(a, w, caps, rng, required=req)
    return a, {"modules": module, "n_modules": n_modules, "cross_share": round(rho, 4)}


def collider_rich(d: int, n_edges: int, cap: Optional[int], rng: np.random.Generator,
                  min_roots: int = 1) -> Tuple[np.ndarray, Info]:
    """DAG with deliberately many v-structures (App. A.1 "collider-rich").

    Edges are concentrated on designated collider nodes, each taking up to
    K = cap (5 without a cap) parents, drawn mostly among non-colliders (weight
    1; collider → collider 0.25); a non-collider has at most one parent
    (weight 0.05), so two parents of a collider are rarely adjacent and nearly
    every parent pair is a v-structure. The number of colliders is
    ⌈(1 − ρ) m / K⌉, ρ ~ U[0.05, 0.12] (the share of edges left to
    non-collider children), raised so that colliders at K parents plus
    non-colliders at one can carry the m-edge target; colliders are random
    positions ≥ K. One required edge from the first collider into a later one
    gives the depth of 2 the audit asks for.
    """
    kk = 5 if cap is None else cap
    rho = float(rng.uniform(0.05, 0.12))
    n_col = max(math.ceil((1 - rho) * n_edges / kk), math.ceil((n_edges - d) / (kk - 1)))
    n_col = int(np.clip(n_col, 1, d - kk))
    collider = np.zeros(d, dtype=bool)
    collider[kk + rng.choice(d - kk, size=n_col, replace=False)] = True
    w = np.where(collider[None, :], np.where(collider[:, None], 0.25, 1.0), 0.05)
    w = np.triu(w, 1)
    caps = np.where(collider, kk, 1)
    req = np.zeros((d, d), dtype=bool)
    cols = np.flatnonzero(collider)
    if cols.size >= 2:
        req[cols[0], int(rng.choice(cols[1:]))] = True
    a = _select_edges(w, n_edges, caps, rng, required=req)
    a = _repair_isolated(a, w, caps, rng, required=req)
    return a, {"colliders": collider.astype(np.int64), "n_colliders": n_col}


GENERATORS: Dict[str, Generator] = {
    "er": erdos_renyi,
    "sf": scale_free,
    "chain": chain,
    "tree": tree,
    "layered": layered,
    "bipartite": bipartite,
    "small_world": small_world,
    "block_layered": block_layered,
    "local_module": local_module,
    "collider_rich": collider_rich,
}


# --------------------------------------------------------------------------- filters and sampling

def apply_in_degree_cap(a: np.ndarray, cap: Optional[int], rng: np.random.Generator) -> np.ndarray:
    """Drop random incoming edges of nodes above ``cap`` parents (the generators respect the cap by construction)."""
    if cap is None:
        return a
    a = a.copy()
    for j in range(a.shape[0]):
        parents = np.flatnonzero(a[:, j])
        if parents.size > cap:
            drop = rng.choice(parents, size=parents.size - cap, replace=False)
            a[drop, j] = 0
    return a


def _audit(a: np.ndarray, graph: str, min_roots: int = 1) -> Tuple[Optional[str], Optional[str]]:
    """(rejection key, message) of the first failed check, (None, None) when valid."""
    d = a.shape[0]
    dep = _depth_or_none(a)
    if dep is None:
        return "cycle", "cycle"
    isolated = np.flatnonzero((a.sum(0) + a.sum(1)) == 0)
    if isolated.size:
        return "isolated", f"isolated variables {isolated.tolist()}"
    if a.sum() < min_edges(d):
        return "edges", f"{int(a.sum())} edges < ceil(0.8 d) = {min_edges(d)}"
    if dep < MIN_DEPTH[graph]:
        return "depth", f"depth {dep} < {MIN_DEPTH[graph]}"
    roots = n_roots(a)
    if roots < min_roots:
        return "roots", f"roots {roots} < {min_roots}"
    return None, None


def graph_audit(a: np.ndarray, graph: str, min_roots: int = 1) -> Optional[str]:
    """The first failed graph-level check of App. A.2, or None when valid.

    Checks, in order: acyclic; no isolated variable; ≥ ⌈0.8d⌉ edges; depth ≥
    :data:`MIN_DEPTH` of the family; and (not in the paper; for dependent root
    blocks) at least ``min_roots`` root nodes.
    """
    return _audit(a, graph, min_roots)[1]


def sample_graph(graph: str, d: int, rng: np.random.Generator, max_attempts: int = 200,
                 min_roots: int = 1) -> Tuple[np.ndarray, dict]:
    """Sample a valid DAG of family ``graph`` with bounded resampling (App. A.1 graph structure, App. A.2 audit).

    Per attempt: the in-degree cap (:func:`in_degree_cap`), an edge target
    uniform on :func:`edge_range`, the family generator, a random node
    relabelling, then :func:`graph_audit` (rejected draws are counted by
    reason: cycle, isolated, edges, depth, roots). Observed mean attempts:
    ≤ 1.1 for every family and d, except the depth-3 filter at d = 10 on
    randomly oriented sparse skeletons (sf ≈ 2.4, small_world ≈ 2.6).

    Returns:
        (adjacency (d × d) int8, record) with record keys ``density`` (realised,
        edges / (d(d−1)/2)), ``target_density`` (drawn), ``in_degree_cap``,
        ``graph_attempts``, ``graph_rejections`` ({reason: count}), ``n_edges``,
        ``depth``, ``n_roots``, ``n_v_structures`` and ``structure`` (the
        family's parameters; node-indexed lists such as ``layers``, ``blocks``,
        ``modules``, ``colliders``).

    Raises:
        ValueError: unknown family, d < 4 or min_roots < 1.
        RuntimeError: no valid graph after ``max_attempts`` draws.
    """
    if graph not in GENERATORS:
        raise ValueError(f"unknown graph family {graph!r}; known: {list(GRAPH_FAMILIES)}")
    if d < 4:
        raise ValueError(f"d must be at least 4, got {d}")
    if min_roots < 1:
        raise ValueError(f"min_roots must be at least 1, got {min_roots}")
    rejections: Dict[str, int] = {}
    for attempt in range(1, max_attempts + 1):
        cap = in_degree_cap(d, rng)
        lo, hi = edge_range(graph, d, cap)
        target = int(rng.integers(lo, hi + 1))
        a_pos, info = GENERATORS[graph](d, target, cap, rng, min_roots)
        perm = rng.permutation(d)  # node i is causal position perm[i]
        a = a_pos[np.ix_(perm, perm)].astype(np.int8)
        key, _ = _audit(a, graph, min_roots)
        if key is None:
            structure = {k: (np.asarray(v)[perm].tolist() if isinstance(v, np.ndarray) else v)
                         for k, v in info.items()}
            n_edges = int(a.sum())
            return a, {"density": round(n_edges / n_pairs(d), 4), "target_density": round(target / n_pairs(d), 4),
                       "in_degree_cap": cap, "graph_attempts": attempt, "graph_rejections": rejections,
                       "n_edges": n_edges, "depth": depth(a), "n_roots": n_roots(a),
                       "n_v_structures": n_v_structures(a), "structure": structure}
        rejections[key] = rejections.get(key, 0) + 1
    raise RuntimeError(f"no valid {graph} graph with d = {d} after {max_attempts} attempts: {rejections}")
