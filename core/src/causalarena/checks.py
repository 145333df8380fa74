"""Input checks before a run and output checks after it.

:func:`check_input` refuses tables a method cannot handle *before* a worker
is launched (status :attr:`Status.INVALID_INPUT <causalarena.records.Status.INVALID_INPUT>`,
``invalid_input``) and flags suspicious ones; the cases are I1–I6 and I12 of
``shared/cases/README.md``. :func:`check_output` validates a method's
:class:`~causalarena.data.Prediction` (status
:attr:`Status.INVALID_OUTPUT <causalarena.records.Status.INVALID_OUTPUT>`,
``invalid_output``) and flags degenerate graphs; cases I7–I9 and M6. The
runner (:mod:`causalarena.runner`) sets those statuses; this module returns
only problems and flags.

Both return a result with ``problems`` (refuse: the run is recorded with the
status and the joined message) and ``warnings`` / ``flags`` (stored in the
run's ``flags`` column, the run still counts).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import attrs
import numpy as np

from .conventions import CPDAG_REPAIRS, directed_cycle_edges
from .data import SCALE_PROBLEMS_KEY, Dataset, Prediction, scale_problems

#: condition number of the standardised table above which a near-collinear
#: warning is raised (case I3: X4 = X1 + X2 + X3 + 1e-7 noise gives ~1e7).
CONDITION_WARNING = 1e6


@attrs.define
class InputCheck:
    """Result of :func:`check_input`.

    Attributes:
        problems: reasons to refuse the run (each names the columns).
        warnings: short flags kept with the run (``"near_collinear: cond=3.1e+07"``).
        nan_fraction: per-column fraction of NaN entries (columns with any NaN).
        condition_number: of the standardised complete-case table (None if
            not computed).
    """

    problems: List[str] = attrs.field(factory=list)
    warnings: List[str] = attrs.field(factory=list)
    nan_fraction: Dict[str, float] = attrs.field(factory=dict)
    condition_number: Optional[float] = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def message(self) -> str:
        return "; ".join(self.problems)


@attrs.define
class OutputCheck:
    """Result of :func:`check_output`: ``problems`` refuse, ``flags`` annotate."""

    problems: List[str] = attrs.field(factory=list)
    flags: List[str] = attrs.field(factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def message(self) -> str:
        return "; ".join(self.problems)


def _names(columns: Sequence[str], idx: Iterable[int]) -> str:
    return ", ".join(repr(columns[i]) for i in idx)


def _getattr(info: Any, name: str, default: Any) -> Any:
    return default if info is None else getattr(info, name, default)


def check_input(dataset: Dataset, method_info: Any = None) -> InputCheck:
    """Check an (n × d) dataset against a method's declared capabilities.

    Refusals (``problems``), each naming the columns:

    * fewer than 2 variables (``d < 2``: there is no graph to discover, and
      graph metrics such as SID are undefined);
    * I4 — ``inf`` anywhere; ``NaN`` unless ``method_info.handles_missing``
      (the per-column NaN fraction is always recorded);
    * a scale float64 cannot handle (:func:`causalarena.data.scale_problems`):
      a column whose variance overflows (a value near 1e308) or underflows
      to 0, found in the table as given and in what the family recorded
      before standardising (``metadata["scale_problems"]``: a standardised
      overflowing column is all zeros and would look constant); with raw
      input also a value whose square overflows. Such columns are left out
      of the checks below;
    * I2 — constant (zero-variance) columns;
    * I5 — exact duplicate column pairs;
    * I6 — ``n < method_info.min_samples_factor · d``;
    * I12 / I1 — when ``method_info.requires_full_rank``: ``n ≤ d`` (the
      covariance of n centred rows has rank ≤ n − 1 < d) or a rank-deficient
      centred table, naming each dependent column and the columns it is a
      linear combination of (QR with column pivoting, then least squares).

    Warnings: near-collinearity, condition number > :data:`CONDITION_WARNING`
    (I3: a flag, not a refusal); rank deficiency or ``n ≤ d`` for methods that
    do not require full rank; NaN fractions for methods handling missing data.

    Args:
        dataset: the dataset the method will see (``X`` is n × d), or any
            object with ``X`` and ``columns`` (``metadata`` optional).
        method_info: a :class:`~causalarena.records.MethodInfo` (or any object
            with ``handles_missing``, ``min_samples_factor``,
            ``requires_full_rank``); ``None`` applies the strictest defaults
            for NaN and none of the others.
    """
    X = dataset.X
    n, d = X.shape
    cols = list(dataset.columns)
    res = InputCheck()
    handles_missing = bool(_getattr(method_info, "handles_missing", False))
    factor = float(_getattr(method_info, "min_samples_factor", 0.0) or 0.0)
    full_rank = bool(_getattr(method_info, "requires_full_rank", False))

    if n == 0 or d == 0:
        res.problems.append(f"empty table: n = {n} rows, d = {d} columns")
        return res
    if d < 2:
        res.problems.append(
            f"d = {d} variable ({_names(cols, range(d))}): causal discovery needs at least 2 variables; "
            "add the table's other variables")
        return res

    # I4: non-finite entries.
    nan = np.isnan(X)
    inf = np.isinf(X)
    if inf.any():
        bad = np.flatnonzero(inf.any(axis=0))
        res.problems.append(f"infinite values in columns {_names(cols, bad)}")
    if nan.any():
        frac = nan.mean(axis=0)
        res.nan_fraction = {cols[j]: float(frac[j]) for j in np.flatnonzero(frac)}
        desc = ", ".join(f"{c!r} ({f:.0%})" for c, f in res.nan_fraction.items())
        if handles_missing:
            res.warnings.append(f"missing_values: {desc}")
        else:
            res.problems.append(f"missing values (NaN) in columns {desc}; the method does not handle missing data")

    # Scale: what float64 cannot standardise or square, before and after the family standardised.
    meta = getattr(dataset, "metadata", None) or {}  # duck-typed callers pass only X and columns
    recorded = meta.get(SCALE_PROBLEMS_KEY) or {}
    scale = {c: str(r) for c, r in dict(recorded).items() if c in cols}
    for c, r in scale_problems(X, cols, squares=not meta.get("standardised", False)).items():
        scale.setdefault(c, r)
    for c in [c for c in cols if c in scale]:
        res.problems.append(
            f"column {c!r}: {scale[c]}; rescale the column (e.g. change its unit) or drop it")
    unscaled = {cols.index(c) for c in scale}

    # Complete finite rows are used for the remaining statistics.
    finite_rows = np.isfinite(X).all(axis=1)
    Xc = X[finite_rows]
    m = Xc.shape[0]

    # I2: constant columns.
    constant: List[int] = []
    if m > 0:
        constant = [j for j in range(d) if j not in unscaled and np.ptp(Xc[:, j]) == 0.0]
    if constant:
        res.problems.append(f"constant (zero-variance) columns {_names(cols, constant)}")

    # I5: exact duplicate columns (hash the bytes, then compare exactly).
    duplicates: List[Tuple[int, int]] = []
    seen: Dict[bytes, List[int]] = {}
    for j in range(d):
        if j in constant or j in unscaled:
            continue
        key = np.ascontiguousarray(X[:, j]).tobytes()
        for i in seen.get(key, []):
            if np.array_equal(X[:, i], X[:, j], equal_nan=True):
                duplicates.append((i, j))
                break
        seen.setdefault(key, []).append(j)
    if duplicates:
        pairs = ", ".join(f"{cols[i]!r} = {cols[j]!r}" for i, j in duplicates)
        res.problems.append(f"duplicate columns: {pairs}")

    # I6: too few rows for the method.
    if factor > 0 and n < factor * d:
        res.problems.append(
            f"too few rows: n = {n} < {factor:g} · d = {factor * d:g} required by the method")

    # I12 / I1 / I3: rank and conditioning on the remaining columns.
    keep = [j for j in range(d)
            if j not in constant and j not in unscaled and j not in {b for _, b in duplicates}]
    if n <= d:
        msg = f"n = {n} rows ≤ d = {d} columns: the sample covariance is singular"
        (res.problems if full_rank else res.warnings).append(msg if full_rank else "n_le_d: " + msg)
    if len(keep) >= 2 and m >= 2:
        _rank_checks(Xc[:, keep], [cols[j] for j in keep], full_rank, n <= d, res)
    return res


def _rank_checks(Xk: np.ndarray, names: List[str], full_rank: bool, n_le_d: bool,
                 res: InputCheck) -> None:
    # numpy/scipy give the rank (SVD, numpy's default tolerance) and the
    # dependent columns (QR with column pivoting); the naming is ours.
    from scipy.linalg import qr

    Z = Xk - Xk.mean(axis=0)
    Z = Z / Z.std(axis=0)
    m, k = Z.shape
    s = np.linalg.svd(Z, compute_uv=False)
    tol = s.max() * max(m, k) * np.finfo(float).eps
    rank = int((s > tol).sum())
    if rank == k:
        cond = float(s.max() / s.min())
        res.condition_number = cond
        if cond > CONDITION_WARNING:
            res.warnings.append(f"near_collinear: condition number {cond:.1e} > {CONDITION_WARNING:.0e}")
        return
    res.condition_number = float("inf")
    if n_le_d:  # already reported; naming dependencies is meaningless here
        return
    _, _, piv = qr(Z, mode="economic", pivoting=True)
    basis, dependent = list(piv[:rank]), list(piv[rank:])
    parts = []
    for j in sorted(dependent):
        coef, *_ = np.linalg.lstsq(Z[:, basis], Z[:, j], rcond=None)
        used = [basis[i] for i in np.flatnonzero(np.abs(coef) > 1e-8 * max(1.0, np.abs(coef).max()))]
        if used:
            parts.append(f"{names[j]!r} is a linear combination of {_names(names, sorted(used))}")
        else:  # nothing to combine: the column itself is numerically zero after centring and scaling
            parts.append(f"{names[j]!r} is numerically constant (no spread left after centring and scaling)")
    msg = f"rank-deficient table (rank {rank} < {k} columns): " + "; ".join(parts)
    if full_rank:
        res.problems.append(msg)
    else:
        res.warnings.append("rank_deficient: " + msg)


def _find_cycle(directed: np.ndarray) -> Optional[List[int]]:
    """A directed cycle as a node list (first node repeated at the end), or None."""
    import networkx as nx

    g = nx.from_numpy_array(directed.astype(np.int8), create_using=nx.DiGraph)
    try:
        edges = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return None
    return [u for u, _ in edges] + [edges[0][0]]


def check_output(prediction: Prediction, d: int, kind: Optional[str] = None,
                 columns: Optional[Sequence[str]] = None, cpdag_repair: str = "strict") -> OutputCheck:
    """Validate a method's prediction for a d-variable dataset.

    Problems (status ``invalid_output``):

    * adjacency shape is not (d × d), or it holds NaN / inf (I7-type encoding
      bugs show up here as values outside {0, 1});
    * values other than 0 and 1;
    * a self-loop;
    * ``kind == "dag"``: a 2-cycle ``A[i, j] = A[j, i] = 1`` (case M6 — never
      scored as two edges) or any longer directed cycle (case I8; SID and
      other DAG metrics are undefined on cyclic graphs);
    * ``kind in ("cpdag", "pag")``: a directed cycle among the directed edges
      (symmetric pairs are undirected edges there), unless ``cpdag_repair`` is
      ``"undirect_cycles"``: then it is a flag and the runner repairs the graph
      (:func:`causalarena.metrics.repair_cpdag_cycles`) before orienting it;
    * an unknown kind.

    Flags: ``degenerate_empty`` for an all-zero graph (case I9);
    ``edge_scores_invalid`` when edge scores have the wrong shape or
    non-finite values (the runner then drops the scores);
    ``cpdag_repaired: k directed edge(s) on directed cycles made undirected
    (a -> b, …)`` for a cyclic CPDAG/PAG under ``cpdag_repair="undirect_cycles"``
    (issue 12: PC's orientation conflicts). A DAG-kind output with a cycle is
    a problem under every policy (case I8).

    Args:
        prediction: the method's output.
        d: number of variables of the dataset.
        kind: the promised output kind; defaults to ``prediction.kind``.
        columns: names used in messages (default ``X0 … X{d-1}`` indices).
        cpdag_repair: ``"strict"`` (default here: a cyclic CPDAG/PAG is a
            problem) or ``"undirect_cycles"`` (the runner's default, ``arena run
            --cpdag-repair``); see :data:`causalarena.conventions.CPDAG_REPAIRS`.

    Raises:
        ValueError: ``cpdag_repair`` is not one of those policies.
    """
    if cpdag_repair not in CPDAG_REPAIRS:
        raise ValueError(f"cpdag_repair {cpdag_repair!r}: expected one of {list(CPDAG_REPAIRS)}")
    kind = prediction.kind if kind is None else kind
    names = list(columns) if columns is not None else [str(i) for i in range(d)]
    res = OutputCheck()
    if kind not in ("dag", "cpdag", "pag"):
        res.problems.append(f"unknown output kind {kind!r}; expected 'dag', 'cpdag' or 'pag'")
        return res
    try:
        A = np.asarray(prediction.adjacency, dtype=float)
    except (TypeError, ValueError) as exc:
        res.problems.append(f"adjacency is not numeric: {exc}")
        return res
    if A.shape != (d, d):
        res.problems.append(f"adjacency has shape {A.shape}, expected ({d}, {d})")
        return res
    if not np.isfinite(A).all():
        bad = np.argwhere(~np.isfinite(A))
        res.problems.append(f"adjacency has {len(bad)} non-finite entries (first at ({int(bad[0][0])}, {int(bad[0][1])}))")
        return res
    off = ~np.isin(A, (0.0, 1.0))
    if off.any():
        i, j = np.argwhere(off)[0]
        vals = np.unique(A[off])[:5]
        res.problems.append(
            f"adjacency values must be 0 or 1; found {vals.tolist()} (first at [{i}, {j}]: "
            f"{names[i]} -> {names[j]})")
        return res
    B = A.astype(bool)
    loops = np.flatnonzero(np.diag(B))
    if loops.size:
        res.problems.append(f"self-loops at {', '.join(names[i] for i in loops)}")
    sym = B & B.T
    np.fill_diagonal(sym, False)
    if kind == "dag" and sym.any():
        pairs = [(i, j) for i, j in np.argwhere(np.triu(sym, 1))]
        shown = ", ".join(f"{names[i]} <-> {names[j]}" for i, j in pairs[:5])
        res.problems.append(f"2-cycles in a promised DAG: {shown}" + (" …" if len(pairs) > 5 else ""))
    directed = B & ~B.T
    np.fill_diagonal(directed, False)
    if not res.problems:
        cycle = _find_cycle(directed)
        if cycle is not None and kind != "dag" and cpdag_repair == "undirect_cycles":
            edges = np.argwhere(directed_cycle_edges(directed))
            shown = ", ".join(f"{names[i]} -> {names[j]}" for i, j in edges[:5])
            res.flags.append(f"cpdag_repaired: {len(edges)} directed edge(s) on directed cycles made undirected "
                             f"({shown}{', …' if len(edges) > 5 else ''})")
        elif cycle is not None:
            res.problems.append(f"directed cycle in a promised {kind.upper()}: "
                                + " -> ".join(names[i] for i in cycle))
    if not B.any():
        res.flags.append("degenerate_empty")
    scores = prediction.edge_scores
    if scores is not None:
        S = np.asarray(scores, dtype=float)
        if S.shape != (d, d) or not np.isfinite(S).all():
            res.flags.append("edge_scores_invalid")
    return res
