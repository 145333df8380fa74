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
auroc      ROC AUC of edge scores over off-diagonal entries (scikit-learn)
ap         average precision of edge scores, off-diagonal (scikit-learn)
n_edges    number of predicted edges (not a quality score)
====== ===================================================================

Use :func:`compute_metrics` to evaluate a registry's metrics on one run.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from .hookspecs import hookimpl
from .records import MetricInfo

__all__ = [
    "arena_metrics",
    "precision",
    "recall",
    "f1",
    "fdr",
    "shd",
    "nshd",
    "sid",
    "auroc",
    "ap",
    "n_edges",
    "cpdag_shd",
    "orient_cpdag",
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
# CPDAG orientation (App. B.2)
# ---------------------------------------------------------------------------


def orient_cpdag(adjacency: Any, seed: int) -> np.ndarray:
    """Orient the undirected edges of a CPDAG at random with a fixed seed (App. B.2).

    Encoding (d × d, row = parent): ``A[i, j] = 1, A[j, i] = 0`` is i → j;
    ``A[i, j] = A[j, i] = 1`` is the undirected edge i — j.

    Rule: draw a random linear extension of the directed part (a topological
    order in which ties between available nodes are broken by a random
    priority drawn from ``numpy.random.default_rng(seed)``; networkx's
    ``lexicographical_topological_sort`` does the sort), then orient every
    undirected edge i — j as i → j when i comes before j in that order.
    Directed edges are kept as they are. Because every edge then points
    forward in one order, the result is always a DAG when the directed part
    is acyclic. The same ``seed`` gives the same DAG; different seeds can give
    different DAGs. The result contains every directed edge of the input but
    is not guaranteed to lie in the input's Markov equivalence class (it may
    create new v-structures); the paper's "random orientation" does not
    require that either, and the scores are directed-graph scores.

    Args:
        adjacency: (d × d) 0/1 CPDAG (a DAG passes through unchanged).
        seed: integer seed (the per-file seed from ``Dataset.metadata``).

    Returns:
        (d × d) ``int8`` DAG adjacency.

    Raises:
        ValueError: not a square 0/1 matrix, a self-loop, or the directed part
            has a cycle (the cycle is named).
    """
    import networkx as nx

    a = _as_binary(adjacency, "adjacency")
    d = a.shape[0]
    directed = a & ~a.T
    undirected = a & a.T
    graph = nx.from_numpy_array(directed.astype(np.int8), create_using=nx.DiGraph)
    rng = np.random.default_rng(seed)
    priority = rng.permutation(d)
    try:
        order = list(nx.lexicographical_topological_sort(graph, key=lambda node: priority[node]))
    except nx.NetworkXUnfeasible:
        cycle = nx.find_cycle(graph)
        path = " -> ".join(str(u) for u, _ in cycle) + f" -> {cycle[0][0]}"
        raise ValueError(
            f"the directed part of the CPDAG has a cycle ({path}); cannot orient it to a DAG"
        ) from None
    position = np.empty(d, dtype=np.int64)
    position[np.asarray(order, dtype=np.int64)] = np.arange(d)
    forward = position[:, None] < position[None, :]
    out = directed | (undirected & forward)
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
        ValueError: as :func:`shd`, or either graph is not a DAG (checked
            here: gadjid aborts with a Rust panic on 2-cycles, case I8).
    """
    import gadjid

    t, a = _pair(true_adjacency, adjacency)
    for name, g in (("true_adjacency", t), ("adjacency", a)):
        if not is_dag(g):
            raise ValueError(f"SID needs DAGs, but {name} has a cycle")
    # gadjid accepts int8 ndarrays only (not bool/int64).
    _, count = gadjid.sid(t.astype(np.int8), a.astype(np.int8),
                          edge_direction="from row to column")
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


def auroc(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> Optional[float]:
    """Area under the ROC curve of ``edge_scores`` against the truth (App. B.2).

    Computed with :func:`sklearn.metrics.roc_auc_score` over the d(d − 1)
    off-diagonal entries (score[i, j] = confidence in i → j). ``None`` when
    ``edge_scores`` is None or the truth has no edges or every edge.

    Raises:
        ValueError: shape mismatch or non-finite scores (entry named).
    """
    from sklearn.metrics import roc_auc_score

    inputs = _score_inputs(true_adjacency, edge_scores)
    if inputs is None:
        return None
    return float(roc_auc_score(*inputs))


def ap(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> Optional[float]:
    """Average precision of ``edge_scores`` (App. B.2), off-diagonal entries.

    :func:`sklearn.metrics.average_precision_score`: sum over thresholds of
    (R_n − R_{n−1}) P_n. ``None`` when ``edge_scores`` is None or the truth has
    no edges or every edge.

    Raises:
        ValueError: shape mismatch or non-finite scores (entry named).
    """
    from sklearn.metrics import average_precision_score

    inputs = _score_inputs(true_adjacency, edge_scores)
    if inputs is None:
        return None
    return float(average_precision_score(*inputs))


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
    """
    values: Dict[str, Optional[float]] = {}
    warnings: List[str] = []
    for name, info in metrics.items():
        if info.needs_scores and edge_scores is None:
            values[name] = None
            continue
        try:
            func = info.load()
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
