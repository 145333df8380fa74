"""Graph metrics (paper App. B.2 and the App. C table header), a built-in plugin.

Every metric has the signature ``f(true_adjacency, adjacency, edge_scores=None)``
over (d × d) arrays with row = parent (``A[i, j] = 1`` means i → j) and returns
a float, or ``None`` when the value is undefined. ``adjacency`` is the
method's *DAG* output: CPDAG outputs are oriented first by
:func:`orient_cpdag` (App. B.2, "randomly oriented with a fixed per-file seed")
and outputs that are not DAGs (2-cycles, longer cycles) are rejected by the
runner as ``invalid_output`` using :func:`is_dag` / :func:`has_two_cycle`
before any metric sees them (cases M6, I8).

Registered metrics (:func:`arena_metrics`):

====== ===================================================================
name   definition
====== ===================================================================
precision  directed TP / predicted edges (0.0 when nothing is predicted)
recall     directed TP / true edges (0.0 when the truth has no edges)
f1         harmonic mean of precision and recall (0.0 when both are 0)
fdr        directed FP / predicted edges (0.0 when nothing is predicted)
shd        structural Hamming distance, a reversal counts once
nshd       SHD / (d(d − 1)) (App. B.2 / App. C; not d(d − 1)/2, case M7)
sid        structural intervention distance, SID(truth, estimate) (gadjid)
auroc      ROC AUC of edge scores over off-diagonal entries (= scikit-learn's)
ap         average precision of edge scores, off-diagonal (= scikit-learn's)
n_edges    number of predicted edges (not a quality score)
====== ===================================================================

Use :func:`compute_metrics` to evaluate a registry's metrics on one run.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from .conventions import CPDAG_ORIENTATIONS, CPDAG_REPAIRS, ORIENTED_KINDS, directed_cycle_edges
from .hookspecs import hookimpl
from .records import DISCOVERY, MetricInfo

__all__ = [
    "arena_metrics",
    "precision",
    "recall",
    "f1",
    "fdr",
    "shd",
    "shd_cdt",
    "nshd",
    "sid",
    "auroc",
    "ap",
    "n_edges",
    "cpdag_shd",
    "orient_cpdag",
    "repair_cpdag_cycles",
    "cycle_edges",
    "scoring_config",
    "CPDAG_ORIENTATIONS",
    "CPDAG_REPAIRS",
    "is_dag",
    "has_two_cycle",
    "compute_metrics",
]


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------


def _as_binary(adjacency: Any, what: str, allow_self_loops: bool = False) -> np.ndarray:
    """Return ``adjacency`` as a (d × d) bool array, checking it is a 0/1 square matrix.

    Raises:
        ValueError: not 2-D square, non-finite or non-0/1 entries, or a
            non-zero diagonal (self-loop), each naming ``what``.
    """
    arr = np.asarray(adjacency)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{what} must be a square (d × d) matrix, got shape {arr.shape}")
    if arr.dtype == bool:
        out = arr
    else:
        if not np.issubdtype(arr.dtype, np.number):
            raise ValueError(f"{what} must be numeric or bool, got dtype {arr.dtype}")
        bad = ~np.isin(arr, (0, 1))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(
                f"{what} must contain only 0/1 entries; entry [{i}, {j}] is {arr[i, j].item()!r}"
            )
        out = arr.astype(bool)
    if not allow_self_loops and out.diagonal().any():
        i = int(np.flatnonzero(out.diagonal())[0])
        raise ValueError(f"{what} has a self-loop at [{i}, {i}]; the diagonal must be 0")
    return out


def _pair(true_adjacency: Any, adjacency: Any) -> Tuple[np.ndarray, np.ndarray]:
    t = _as_binary(true_adjacency, "true_adjacency")
    a = _as_binary(adjacency, "adjacency")
    if t.shape != a.shape:
        raise ValueError(
            f"true_adjacency has shape {t.shape} but adjacency has shape {a.shape}"
        )
    return t, a


def _offdiag(arr: np.ndarray) -> np.ndarray:
    return arr[~np.eye(arr.shape[0], dtype=bool)]


# ---------------------------------------------------------------------------
# graph predicates used by the runner's output checks
# ---------------------------------------------------------------------------


def has_two_cycle(adjacency: Any) -> bool:
    """True when some pair has both i → j and j → i set (d × d, row = parent).

    In a DAG output such a pair is a 2-cycle: the run is ``invalid_output``
    and is never scored as two edges (case M6). In a CPDAG the same pattern
    encodes an undirected edge, so call this on DAG outputs only.

    Raises:
        ValueError: ``adjacency`` is not a square 0/1 matrix.
    """
    a = _as_binary(adjacency, "adjacency", allow_self_loops=True)
    return bool(np.any(a & a.T & ~np.eye(a.shape[0], dtype=bool)))


def is_dag(adjacency: Any) -> bool:
    """True when the (d × d) 0/1 matrix (row = parent) is a directed acyclic graph.

    Self-loops and 2-cycles make it not a DAG. Uses
    :func:`networkx.is_directed_acyclic_graph`.

    Raises:
        ValueError: ``adjacency`` is not a square 0/1 matrix.
    """
    import networkx as nx

    a = _as_binary(adjacency, "adjacency", allow_self_loops=True)
    graph = nx.from_numpy_array(a.astype(np.int8), create_using=nx.DiGraph)
    return bool(nx.is_directed_acyclic_graph(graph))


# ---------------------------------------------------------------------------
# CPDAG orientation (App. B.2) and the repair of cyclic CPDAGs
# ---------------------------------------------------------------------------

def scoring_config(output_kind: Optional[str], orientation: str = CPDAG_ORIENTATIONS[0],
                   repair: str = CPDAG_REPAIRS[0]) -> Optional[str]:
    """The scoring policy of a run as stored text, or ``None`` when no policy applies.

    For a ``cpdag`` or ``pag`` output the text is
    ``"orientation=<rule>, cpdag_repair=<policy>"`` (stored in the run's
    ``scoring`` column, part of its config hash, shown in the report's
    configuration label when it differs between runs of one method); a
    ``dag`` output is scored as returned, so ``None`` (its config hash is the
    same as before the policy existed).

    Raises:
        ValueError: ``orientation`` not in :data:`CPDAG_ORIENTATIONS` or
            ``repair`` not in :data:`CPDAG_REPAIRS`.
    """
    if orientation not in CPDAG_ORIENTATIONS:
        raise ValueError(f"CPDAG orientation {orientation!r}: expected one of {list(CPDAG_ORIENTATIONS)}")
    if repair not in CPDAG_REPAIRS:
        raise ValueError(f"CPDAG repair {repair!r}: expected one of {list(CPDAG_REPAIRS)}")
    if output_kind not in ORIENTED_KINDS:
        return None
    return f"orientation={orientation}, cpdag_repair={repair}"


def cycle_edges(adjacency: Any) -> np.ndarray:
    """Directed edges of a PDAG that lie on a directed cycle, as a (d × d) bool mask.

    Encoding as in :func:`orient_cpdag` (``A[i, j] = A[j, i] = 1`` is undirected
    and not part of the directed part). A directed edge i → j lies on a
    directed cycle exactly when i and j are in the same strongly connected
    component of the directed part, so the mask does not depend on the node
    order or on which cycle a search happens to find first
    (:func:`causalarena.conventions.directed_cycle_edges`).

    Raises:
        ValueError: not a square 0/1 matrix, or a self-loop.
    """
    return directed_cycle_edges(_as_binary(adjacency, "adjacency"))


def repair_cpdag_cycles(adjacency: Any) -> Tuple[np.ndarray, List[Tuple[int, int]]]:
    """Make every directed edge on a directed cycle undirected (policy ``undirect_cycles``).

    PC's orientation phase can direct edges into a cycle when its collider
    and Meek-rule orientations conflict (causal-learn, 2–3 % of PC runs on
    the synthetic pool); such a graph is no CPDAG. Rule, exactly: every
    directed edge i → j whose endpoints lie in the same strongly connected
    component of the directed part (:func:`cycle_edges`: the edges on some
    directed cycle) becomes the undirected edge i — j. One pass suffices:
    the directed edges left run between components, whose condensation is
    acyclic, so the directed part of the result is acyclic; applying the rule
    to its result changes nothing. Undirected edges, and directed edges on no
    cycle, are kept. The runner then orients the result like any CPDAG
    (:func:`orient_cpdag`) and flags the run ``cpdag_repaired``.

    Args:
        adjacency: (d × d) 0/1 PDAG, row = parent.

    Returns:
        ``(repaired, undirected)``: the (d × d) ``int8`` PDAG and the
        ``(i, j)`` edges i → j made undirected, sorted (empty when the
        directed part was acyclic; the input is then returned unchanged).

    Raises:
        ValueError: not a square 0/1 matrix, or a self-loop.
    """
    a = _as_binary(adjacency, "adjacency")
    on_cycle = cycle_edges(a)
    out = a | on_cycle | on_cycle.T
    return out.astype(np.int8), [(int(i), int(j)) for i, j in np.argwhere(on_cycle)]


def _directed_cycle_error(directed: np.ndarray) -> ValueError:
    import networkx as nx

    cycle = nx.find_cycle(nx.from_numpy_array(directed.astype(np.int8), create_using=nx.DiGraph))
    path = " -> ".join(str(u) for u, _ in cycle) + f" -> {cycle[0][0]}"
    return ValueError(f"the directed part of the CPDAG has a cycle ({path}); cannot orient it to a DAG "
                      "(repair it first: causalarena.metrics.repair_cpdag_cycles)")


def _linear_extension(directed: np.ndarray, undirected: np.ndarray, nodes: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """Orient ``undirected`` among ``nodes`` forward in a random linear extension of ``directed``."""
    import networkx as nx

    d = directed.shape[0]
    sub = np.zeros_like(directed)
    sub[np.ix_(nodes, nodes)] = directed[np.ix_(nodes, nodes)]
    graph = nx.DiGraph()
    graph.add_nodes_from(int(v) for v in nodes)
    graph.add_edges_from((int(i), int(j)) for i, j in np.argwhere(sub))
    priority = rng.permutation(d)
    try:
        order = list(nx.lexicographical_topological_sort(graph, key=lambda node: priority[node]))
    except nx.NetworkXUnfeasible:
        raise _directed_cycle_error(directed) from None
    position = np.full(d, d, dtype=np.int64)
    position[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    forward = position[:, None] < position[None, :]
    inside = np.zeros(d, dtype=bool)
    inside[nodes] = True
    return undirected & forward & inside[:, None] & inside[None, :]


def _consistent_extension(directed: np.ndarray, undirected: np.ndarray,
                          rng: np.random.Generator) -> Tuple[np.ndarray, bool]:
    """Randomised Dor–Tarsi: a random consistent extension of a PDAG, or the best effort.

    Returns ``(dag, extendable)``; see :func:`orient_cpdag` (rule ``mec``).
    """
    d = directed.shape[0]
    adjacent = directed | directed.T | undirected
    nonadjacent = (~adjacent & ~np.eye(d, dtype=bool)).astype(np.float64)  # float: BLAS; counts ≤ d are exact
    oriented = np.zeros_like(directed)
    remaining = np.ones(d, dtype=bool)
    while remaining.any():
        rem = remaining[None, :]
        und = undirected & rem & remaining[:, None]
        adj = adjacent & rem
        # a sink among the remaining nodes ...
        sink = remaining & ~(directed & rem).any(axis=1)
        # ... whose undirected neighbours are adjacent to all its other neighbours:
        # violations[x, z] = number of undirected neighbours y of x not adjacent to z
        violations = und.astype(np.float64) @ (nonadjacent * remaining[:, None])
        eligible = sink & ~((violations > 0) & adj).any(axis=1)
        candidates = np.flatnonzero(eligible)
        if candidates.size == 0:  # (a remaining node without edges would be eligible)
            nodes = np.flatnonzero(remaining)
            if not sink[nodes].any():
                raise _directed_cycle_error(directed)
            # no consistent extension: the rest by a random linear extension
            return directed | oriented | _linear_extension(directed, und, nodes, rng), False
        x = int(candidates[rng.integers(candidates.size)])
        oriented[und[:, x], x] = True          # y — x becomes y → x
        remaining[x] = False
    return directed | oriented, True


def orient_cpdag(adjacency: Any, seed: int, rule: str = CPDAG_ORIENTATIONS[0],
                 flags: Optional[List[str]] = None) -> np.ndarray:
    """Orient the undirected edges of a CPDAG at random with a fixed seed (App. B.2).

    Encoding (d × d, row = parent): ``A[i, j] = 1, A[j, i] = 0`` is i → j;
    ``A[i, j] = A[j, i] = 1`` is the undirected edge i — j. Directed edges
    are kept as they are; a DAG passes through unchanged. The same ``seed``
    gives the same DAG (byte for byte, ``numpy.random.default_rng(seed)``);
    different seeds can give different DAGs.

    Rules:

    ``"mec"`` (default) — a random member of the Markov equivalence class: a
        random *consistent extension* of the PDAG (same skeleton, same
        v-structures, acyclic; for a CPDAG these are exactly the DAGs of its
        Markov equivalence class, Verma & Pearl 1990, Meek 1995). Algorithm:
        Dor & Tarsi (1992), "A simple algorithm to construct a consistent
        extension of a partially oriented graph" (the algorithm of
        causal-learn's ``pdag2dag``), with the choice randomised: among the
        remaining nodes x that have no directed edge out to a remaining node
        and whose undirected neighbours are each adjacent to all other
        remaining neighbours of x, one is drawn uniformly; its undirected
        edges y — x become y → x and x is removed; repeat. Every member of
        the class has positive probability (the sinks of any member, taken in
        reverse topological order, are valid choices), but the draw is not
        uniform over the class (uniform sampling needs the class counts of
        Wienöbst, Bannach & Liśkiewicz 2021, "Polynomial-time algorithms for
        counting and sampling Markov equivalent DAGs"). A PDAG that has no
        consistent extension (possible for a method's output, e.g. after
        :func:`repair_cpdag_cycles`) gets the rule as far as it goes, then
        the remaining undirected edges by the linear-extension rule below
        among the remaining nodes; the result is still a DAG with every
        directed edge kept, and ``"cpdag_not_extendable: …"`` is appended to
        ``flags`` (when given).
    ``"linear_extension"`` — the rule before issue 12: draw a random linear
        extension of the directed part (a topological order, ties between
        available nodes broken by a random priority, networkx's
        ``lexicographical_topological_sort``) and orient every undirected
        edge forward in it. Always a DAG with the same skeleton, but it can
        create v-structures, i.e. leave the equivalence class (the path
        0 — 2 — 1 can become 0 → 2 ← 1).

    Args:
        adjacency: (d × d) 0/1 CPDAG (or PDAG), row = parent.
        seed: integer seed (the per-file seed from ``Dataset.metadata``).
        rule: one of :data:`CPDAG_ORIENTATIONS`.
        flags: a list to which a ``cpdag_not_extendable`` flag is appended.

    Returns:
        (d × d) ``int8`` DAG adjacency.

    Raises:
        ValueError: not a square 0/1 matrix, a self-loop, an unknown ``rule``,
            or the directed part has a cycle (the cycle is named; see
            :func:`repair_cpdag_cycles`).
    """
    if rule not in CPDAG_ORIENTATIONS:
        raise ValueError(f"CPDAG orientation rule {rule!r}: expected one of {list(CPDAG_ORIENTATIONS)}")
    a = _as_binary(adjacency, "adjacency")
    d = a.shape[0]
    directed = a & ~a.T
    undirected = a & a.T
    rng = np.random.default_rng(seed)
    if rule == "linear_extension":
        out = directed | _linear_extension(directed, undirected, np.arange(d), rng)
        return out.astype(np.int8)
    out, extendable = _consistent_extension(directed, undirected, rng)
    if not extendable and flags is not None:
        flags.append("cpdag_not_extendable: no DAG has this PDAG's skeleton and v-structures; "
                     "the rest was oriented by a random linear extension")
    return out.astype(np.int8)


# ---------------------------------------------------------------------------
# SHD
# ---------------------------------------------------------------------------


def _pair_mismatches(t: np.ndarray, a: np.ndarray) -> int:
    # Own code rather than gadjid.shd / cdt.SHD: this is two numpy lines, it
    # treats a CPDAG's A[i,j]=A[j,i]=1 as an undirected edge in the same pass,
    # and gadjid.shd uses its own CPDAG encoding (2 = undirected) and panics on
    # symmetric pairs. Each unordered pair {i, j} has a state
    # (A[i,j], A[j,i]) in {none, i→j, j→i, both}; a differing state costs 1.
    differs = (t != a) | (t.T != a.T)
    return int(np.triu(differs, k=1).sum())


def shd(true_adjacency: Any, adjacency: Any, edge_scores: Any = None,
        double_count_reversals: bool = False) -> float:
    """Structural Hamming distance between two (d × d) graphs, row = parent.

    Convention: the number of unordered node pairs whose edge differs —
    a missing edge, an extra edge and a *reversed* edge each count **once**
    (as in the NOTEARS/DAGMA ``count_accuracy``). The Causal Discovery
    Toolbox's ``SHD(..., double_for_anticausal=True)`` (its default) counts a
    reversal twice; ``double_count_reversals=True`` gives that count, i.e.
    the number of differing off-diagonal entries.

    Known answers (cases M1–M4): truth 0→1, estimate 1→0: 1 (2 with
    ``double_count_reversals``); chain 0→1→2 vs empty: 2; chain vs 2→1→0: 2.

    Args:
        true_adjacency, adjacency: (d × d) 0/1 arrays.
        edge_scores: ignored (metric signature).
        double_count_reversals: count a reversed edge as 2 (cdt default).

    Raises:
        ValueError: shapes differ, not square, non-0/1 entries or self-loops.
    """
    t, a = _pair(true_adjacency, adjacency)
    if double_count_reversals:
        return float(np.sum(t != a))
    return float(_pair_mismatches(t, a))


def shd_cdt(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """SHD in the Causal Discovery Toolbox's default convention: a reversed edge counts **twice**.

    :func:`shd` with ``double_count_reversals=True`` — the number of differing off-diagonal entries of
    the two (d × d) adjacencies, as ``cdt.metrics.SHD(..., double_for_anticausal=True)``. Registered as the
    metric ``shd_cdt`` so ``arena run`` / ``arena rescore --metrics shd_cdt`` reach it. Known answer:
    truth 0→1, estimate 1→0: 2 (``shd``: 1).

    Raises:
        ValueError: as :func:`shd`.
    """
    return shd(true_adjacency, adjacency, edge_scores, double_count_reversals=True)


def cpdag_shd(true_cpdag: Any, est_cpdag: Any) -> float:
    """CPDAG-aware SHD: pairs whose edge mark differs (directed, undirected or none).

    Encoding (d × d, row = parent): ``A[i, j] = 1, A[j, i] = 0`` is i → j and
    ``A[i, j] = A[j, i] = 1`` is i — j. Every unordered pair {i, j} is in one
    of four states (none, i → j, j → i, i — j); a pair in a different state in
    the two graphs costs 1, so an undirected edge against a directed one is a
    mismatch. Case M5: truth 0 → 2 ← 1 against the estimate 0 — 2 — 1 gives 2.

    Raises:
        ValueError: shapes differ, not square, non-0/1 entries or self-loops.
    """
    t = _as_binary(true_cpdag, "true_cpdag")
    a = _as_binary(est_cpdag, "est_cpdag")
    if t.shape != a.shape:
        raise ValueError(f"true_cpdag has shape {t.shape} but est_cpdag has shape {a.shape}")
    return float(_pair_mismatches(t, a))


def nshd(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> Optional[float]:
    """Normalised SHD = SHD / (d(d − 1)) (paper App. B.2 and App. C), in [0, 1].

    The denominator is the number of ordered off-diagonal pairs, d(d − 1),
    not d(d − 1)/2 as in some libraries (case M7). ``None`` when d < 2.

    Raises:
        ValueError: as :func:`shd`.
    """
    t, a = _pair(true_adjacency, adjacency)
    d = t.shape[0]
    if d < 2:
        return None
    return _pair_mismatches(t, a) / (d * (d - 1))


# ---------------------------------------------------------------------------
# directed-edge classification metrics
# ---------------------------------------------------------------------------


def _counts(true_adjacency: Any, adjacency: Any) -> Tuple[int, int, int]:
    # Three numpy counts; scikit-learn's precision_score would need flattening
    # and re-validation per call for the same numbers.
    t, a = _pair(true_adjacency, adjacency)
    tp = int(np.sum(t & a))
    return tp, int(a.sum()), int(t.sum())


def precision(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """Directed-edge precision TP / (predicted edges) (App. B.2), in [0, 1].

    A predicted i → j is a true positive only if i → j is in the truth (a
    reversed edge is a false positive). Undefined when nothing is predicted:
    **returns 0.0** in that case (case M2; scikit-learn's ``zero_division=0``).

    Raises:
        ValueError: as :func:`shd`.
    """
    tp, n_pred, _ = _counts(true_adjacency, adjacency)
    return tp / n_pred if n_pred else 0.0


def recall(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """Directed-edge recall (TPR) TP / (true edges) (App. B.2), in [0, 1].

    Undefined when the truth has no edges: returns 0.0 (``zero_division=0``).

    Raises:
        ValueError: as :func:`shd`.
    """
    tp, _, n_true = _counts(true_adjacency, adjacency)
    return tp / n_true if n_true else 0.0


def f1(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """Directed-edge F1 = 2PR / (P + R) (App. B.2); 0.0 when P + R = 0.

    Equivalently 2·TP / (predicted + true edges).

    Raises:
        ValueError: as :func:`shd`.
    """
    tp, n_pred, n_true = _counts(true_adjacency, adjacency)
    denom = n_pred + n_true
    return 2.0 * tp / denom if denom else 0.0


def fdr(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """False discovery rate FP / (predicted edges), in [0, 1].

    A reversed edge is a false discovery. No predicted edges means no false
    discoveries: returns 0.0 (so ``fdr`` is not ``1 − precision`` there).

    Raises:
        ValueError: as :func:`shd`.
    """
    tp, n_pred, _ = _counts(true_adjacency, adjacency)
    return (n_pred - tp) / n_pred if n_pred else 0.0


def n_edges(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """Number of predicted directed edges (an empty output is degenerate, case I9).

    Raises:
        ValueError: as :func:`shd`.
    """
    _, n_pred, _ = _counts(true_adjacency, adjacency)
    return float(n_pred)


# ---------------------------------------------------------------------------
# SID
# ---------------------------------------------------------------------------


def sid(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> float:
    """Structural intervention distance SID(truth, estimate) (Peters & Bühlmann 2015).

    The number of ordered pairs (i, j), i ≠ j, whose interventional
    distribution p(x_j | do(x_i)) would be wrongly inferred by adjusting for
    the estimate's parents of i (App. B.2); between 0 and d(d − 1). Computed by
    ``gadjid.sid(g_true, g_guess, edge_direction="from row to column")``,
    which returns ``(normalised, count)``; the count is reported. SID is not
    symmetric, so the truth always comes first (case M4); e.g. the chain
    0→1→2 against the empty graph gives SID 3, the reverse call gives 0.

    Known answers: M2 (chain vs empty) 3; M3 (chain vs reversed chain) 6;
    M4 8.

    Raises:
        ValueError: as :func:`shd` (not square, shapes differ, not 0/1, a
            self-loop), fewer than 2 variables, or either graph is not a DAG.
            All are checked here before gadjid is called: gadjid aborts with
            a Rust panic (its message printed on stderr) on d < 2 and on
            2-cycles (case I8).
    """
    import gadjid

    t, a = _pair(true_adjacency, adjacency)
    if t.shape[0] < 2:
        raise ValueError(f"SID needs graphs of at least 2 variables, got d = {t.shape[0]}")
    # Cycle check without networkx (two is_dag calls cost more than gadjid
    # itself at d = 100): gadjid panics on a 2-cycle, so those are refused
    # here; it reports any longer cycle as a RuntimeError ("Graph is not
    # acyclic"), which is then diagnosed (which graph) with is_dag.
    for name, g in (("true_adjacency", t), ("adjacency", a)):
        if np.any(g & g.T):
            raise ValueError(f"SID needs DAGs, but {name} has a cycle (a 2-cycle)")
    # gadjid accepts int8 ndarrays only (not bool/int64).
    try:
        _, count = gadjid.sid(t.astype(np.int8), a.astype(np.int8),
                              edge_direction="from row to column")
    except RuntimeError:
        for name, g in (("true_adjacency", t), ("adjacency", a)):
            if not is_dag(g):
                raise ValueError(f"SID needs DAGs, but {name} has a cycle") from None
        raise
    return float(count)


# ---------------------------------------------------------------------------
# score-based metrics
# ---------------------------------------------------------------------------


def _score_inputs(true_adjacency: Any, edge_scores: Any) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    t = _as_binary(true_adjacency, "true_adjacency")
    if edge_scores is None:
        return None
    s = np.asarray(edge_scores, dtype=np.float64)
    if s.shape != t.shape:
        raise ValueError(f"edge_scores has shape {s.shape} but true_adjacency has shape {t.shape}")
    y_true = _offdiag(t)
    y_score = _offdiag(s)
    if not np.all(np.isfinite(y_score)):
        i, j = np.argwhere(~np.isfinite(s) & ~np.eye(s.shape[0], dtype=bool))[0]
        raise ValueError(f"edge_scores has a non-finite entry at [{i}, {j}]: {s[i, j].item()!r}")
    if y_true.all() or not y_true.any():
        return None  # a single class: ROC AUC and AP are undefined
    return y_true, y_score


def _ranking(y_true: np.ndarray, y_score: np.ndarray) -> Dict[str, float]:
    """AUROC and AP of two classes from one ranking of the negatives among the positives.

    ``y_true`` (m,) bool with both classes present, ``y_score`` (m,) finite
    float64. The P positives' distinct scores u₁ < … < u_K are sorted once
    (with their multiplicities), and every negative score is located among
    them by binary search (``numpy.searchsorted``, left and right): that is
    the whole ranking both metrics need, in O(m log P) — cheaper than sorting
    all m scores when edges are sparse.

    - AUROC is the Mann–Whitney statistic with ties counted one half:
      (#{(pos, neg): s₊ > s₋} + ½ #{s₊ = s₋}) / (P·N), integer counts — the
      same number as the trapezoidal area under the ROC curve that
      :func:`sklearn.metrics.roc_auc_score` computes, and as the rank-sum form
      with tied scores given their average rank.
    - AP is scikit-learn's :func:`~sklearn.metrics.average_precision_score`:
      Σₖ (Rₖ − Rₖ₋₁) Pₖ over the distinct scores taken as thresholds from the
      highest down (predict positive when score ≥ threshold; R₀ = 0), step-wise,
      no interpolation. Only thresholds at a positive's score change the
      recall, so the sum runs over u_k: (count of u_k / P) · TP(u_k) /
      (TP(u_k) + FP(u_k)), where FP(u_k) counts the negatives scoring ≥ u_k.
    """
    pos = y_score[y_true]
    neg = y_score[~y_true]
    n_pos, n_neg = pos.size, neg.size
    u, count = np.unique(pos, return_counts=True)  # sorted distinct positive scores
    below = np.zeros(u.size + 1, dtype=np.int64)  # below[k] = positives scoring < u_k
    np.cumsum(count, out=below[1:])
    lo = np.searchsorted(u, neg, side="left")  # u's strictly below each negative
    # u's at or below it: one more when the negative ties a positive's score
    hi = lo + (u.take(np.minimum(lo, u.size - 1)) == neg)
    # pairs won by the positive: positives scoring > s₋ = P − below[hi]; ties: below[hi] − below[lo]
    wins = n_pos * n_neg - int(below[hi].sum())
    ties = int(below[hi].sum() - below[lo].sum())
    auc = (wins + 0.5 * ties) / (n_pos * n_neg)
    # negatives scoring >= u_k: those with hi > k (suffix sums of the counts of hi)
    neg_ge = np.cumsum(np.bincount(hi, minlength=u.size + 1)[::-1])[::-1][1:]
    tp = n_pos - below[:-1]
    ap_value = float(np.sum((count / n_pos) * (tp / (tp + neg_ge))))
    return {"auroc": float(auc), "ap": ap_value}


def auroc(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> Optional[float]:
    """Area under the ROC curve of ``edge_scores`` against the truth (App. B.2).

    Over the d(d − 1) off-diagonal entries (score[i, j] = confidence in
    i → j), computed as the Mann–Whitney rank statistic with tied scores
    given their average rank — the same number as
    :func:`sklearn.metrics.roc_auc_score` (to rounding, ≤ 1e-12), from one
    ranking (:func:`_ranking`) that :func:`ap` shares inside
    :func:`compute_metrics`. ``None`` when
    ``edge_scores`` is None or the truth has no edges or every edge.

    Raises:
        ValueError: shape mismatch or non-finite scores (entry named).
    """
    inputs = _score_inputs(true_adjacency, edge_scores)
    if inputs is None:
        return None
    return _ranking(*inputs)["auroc"]


def ap(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> Optional[float]:
    """Average precision of ``edge_scores`` (App. B.2), off-diagonal entries.

    As :func:`sklearn.metrics.average_precision_score` defines it (and
    equal to it to rounding, ≤ 1e-12): the sum over the distinct scores taken
    as thresholds from the highest down of (R_n − R_{n−1}) P_n, R_0 = 0,
    step-wise with no interpolation; tied scores enter together. ``None``
    when ``edge_scores`` is None or the truth has no edges or every edge.

    Raises:
        ValueError: shape mismatch or non-finite scores (entry named).
    """
    inputs = _score_inputs(true_adjacency, edge_scores)
    if inputs is None:
        return None
    return _ranking(*inputs)["ap"]


# ---------------------------------------------------------------------------
# plugin hook and evaluation
# ---------------------------------------------------------------------------

_MODULE = "causalarena.metrics"

_METRICS = (
    # name, higher_is_better, needs_scores, description
    ("precision", True, False, "directed-edge precision (0 when nothing is predicted)"),
    ("recall", True, False, "directed-edge recall / TPR"),
    ("f1", True, False, "directed-edge F1"),
    ("fdr", False, False, "directed-edge false discovery rate"),
    ("shd", False, False, "structural Hamming distance (reversal counts once)"),
    ("nshd", False, False, "SHD / (d(d-1)) (paper App. C)"),
    ("sid", False, False, "structural intervention distance SID(truth, estimate) (gadjid)"),
    ("auroc", True, True, "ROC AUC of edge scores, off-diagonal"),
    ("ap", True, True, "average precision of edge scores, off-diagonal"),
    ("n_edges", False, False, "number of predicted edges (descriptive)"),
    ("shd_cdt", False, False, "SHD with a reversed edge counted twice (the Causal Discovery Toolbox's default)"),
)


@hookimpl
def arena_metrics():
    """Yield the core's metrics as :class:`MetricInfo` records (factory = this module)."""
    for name, higher, needs_scores, description in _METRICS:
        yield MetricInfo(name=name, factory=f"{_MODULE}:{name}", higher_is_better=higher,
                         needs_scores=needs_scores, description=description)


def _is_rust_panic(exc: BaseException) -> bool:
    # pyo3's PanicException derives from BaseException, not Exception.
    return type(exc).__name__ == "PanicException"


def _bool_if_binary(arr: Any) -> Any:
    # Fast path of _as_binary's 0/1 check for integer arrays (two comparisons
    # instead of np.isin); anything else is returned as given for _as_binary.
    a = np.asarray(arr)
    if a.dtype.kind in "iu" and bool(np.all((a == 0) | (a == 1))):
        return a.astype(bool)
    return arr


def compute_metrics(
    true_adjacency: Any,
    dag_adjacency: Any,
    edge_scores: Any,
    metrics: Mapping[str, MetricInfo],
) -> Tuple[Dict[str, Optional[float]], List[str]]:
    """Evaluate every metric of a registry on one run.

    Args:
        true_adjacency: (d × d) 0/1 ground truth, row = parent.
        dag_adjacency: (d × d) 0/1 DAG output (CPDAGs already oriented).
        edge_scores: (d × d) float scores or None.
        metrics: name → :class:`MetricInfo` (``Registry.metrics``).

    Returns:
        ``(values, warnings)``: ``values[name]`` is a float or ``None``.
        ``None`` when the metric needs scores and there are none, when it is
        undefined, when it returned a non-finite number, or when it raised; the
        last two add a line to ``warnings`` naming the metric and the error.
        A metric that cannot be imported is reported the same way.

    Cost: the inputs are validated once (every metric then receives the
    checked bool arrays and float64 scores; inputs that fail the check are
    passed on unchanged, so each metric reports its own error), and the core's
    :func:`auroc` and :func:`ap` share one ranking of the scores
    (:func:`_ranking`). Benchmark: ``tests/benchmarks/bench_metrics.py``.
    """
    values: Dict[str, Optional[float]] = {}
    warnings: List[str] = []
    try:
        true_adjacency, dag_adjacency = _pair(_bool_if_binary(true_adjacency),
                                              _bool_if_binary(dag_adjacency))
    except ValueError:
        pass  # each metric raises (and is reported) with its own message
    if edge_scores is not None:
        try:
            edge_scores = np.asarray(edge_scores, dtype=np.float64)
        except (TypeError, ValueError):
            pass
    ranked: Dict[str, Any] = {}  # the shared AUROC/AP ranking, or the error it raised

    def shared_ranking(t: Any, scores: Any) -> Dict[str, Optional[float]]:
        if not ranked:
            try:
                inputs = _score_inputs(t, scores)
                ranked["value"] = (dict.fromkeys(("auroc", "ap")) if inputs is None
                                   else _ranking(*inputs))
            except Exception as exc:  # noqa: BLE001 - re-raised for each metric below
                ranked["error"] = exc
        if "error" in ranked:
            raise ranked["error"]
        return ranked["value"]

    for name, info in metrics.items():
        if getattr(info, "task", DISCOVERY) != DISCOVERY:
            continue  # another task's metric scores that task's runs only
        if info.needs_scores and edge_scores is None:
            values[name] = None
            continue
        try:
            func = info.load()
            if func is auroc or func is ap:
                value = shared_ranking(true_adjacency, edge_scores)[func.__name__]
            else:
                value = func(true_adjacency, dag_adjacency, edge_scores)
        except BaseException as exc:  # noqa: BLE001 - a metric must not kill the run record
            if not isinstance(exc, Exception) and not _is_rust_panic(exc):
                raise
            values[name] = None
            warnings.append(f"metric {name!r} ({info.distribution or 'core'}) failed: "
                            f"{type(exc).__name__}: {exc}")
            continue
        if value is None:
            values[name] = None
            continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            values[name] = None
            warnings.append(f"metric {name!r} returned a non-number: {value!r}")
            continue
        if not np.isfinite(value):
            values[name] = None
            warnings.append(f"metric {name!r} returned a non-finite value: {value!r}")
            continue
        values[name] = value
    return values, warnings
