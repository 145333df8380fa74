"""Intervention protocols of the obs+int split, and their audit.

CausalArena paper, App. A.1 "Interventions" and App. A.2 "Synthetic Audit and
Protocol-sensitivity Suites". Six protocols, registered through the
``arena_interventions`` hook of this built-in plugin (:data:`PROTOCOLS`, in
the paper's order):

===================  =========  =============================================================
name                 obs / int  interventional rows
===================  =========  =============================================================
``default``          800 / 200  one target per row (balanced), hard do, value U[q10, q90]
``fixed_setpoint``   800 / 200  one target per row, value q20, q50 or q80 ± 1 % of the IQR
``parameter_shift``  800 / 200  one structural (non-root) target per row, mechanism changed
``high_fraction``    200 / 800  as ``default``
``multi_target``     800 / 200  2–4 distinct targets per row, each hard do U[q10, q90]
``dense_mixed``      200 / 800  2–4 structural targets per row; rows split evenly between
                                hard do, fixed setpoint and parameter shift
===================  =========  =============================================================

Every protocol has the signature ``apply(scm, n_obs, n_int, rng,
target_pool, *, return_exogenous=False)`` and returns ``(X, intervention_mask,
regime)``: ``X`` (n × d) float, ``intervention_mask`` (n × d) bool, ``regime``
(n,) int64 with n = n_obs + n_int. Rows ``[0, n_obs)`` are observational
(regime −1, mask all False); an interventional row's regime is the index of
its lowest-index target. With ``return_exogenous=True`` the (n × exo_width)
exogenous draw is returned as a fourth element, for :func:`intervention_audit`.

Shared construction: the exogenous terms of all n rows are drawn first
(:meth:`SCM.draw_exogenous`); the baseline percentiles of a target are taken
from the observational rows of that same draw; interventional rows are then
propagated with the intervention, so their non-descendants keep their
observational values and every descendant is recomputed in the same pass.
Targets are spread over rows by balanced assignment (counts differ by at most
one). ``parameter_shift`` and ``dense_mixed`` restrict targets to structural
nodes (:func:`structural_pool`); :func:`effective_target_pool` gives the pool
each protocol actually used, which is what :func:`intervention_audit` checks
the mask against.
"""

from __future__ import annotations

import hashlib
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .hookspecs import hookimpl
from .records import InterventionInfo

#: target-pool size ranges by dimension, App. A.1: (min, max) inclusive
POOL_SIZE_BY_D = {10: (2, 4), 20: (3, 6), 30: (4, 8), 50: (5, 12), 100: (8, 20)}

#: the six protocols of App. A.2, in the paper's order
PROTOCOLS = ("default", "fixed_setpoint", "parameter_shift", "high_fraction", "multi_target", "dense_mixed")

#: hard do-resampling range, App. A.1: percentiles of the target's baseline
RESAMPLING_PERCENTILES = (10, 90)
#: fixed setpoints, App. A.2: percentiles of the target's baseline
SETPOINT_PERCENTILES = (20, 50, 80)
#: setpoint jitter half-width, as a fraction of the target's baseline IQR (App. A.2: 1 %)
SETPOINT_JITTER = 0.01
#: parameter-shift kinds understood by :meth:`SCM.propagate` (App. A.2 "Parameter shift")
SHIFT_KINDS = ("parent_scale", "bias", "strength")
#: kinds tried, in order, when a drawn shift does not move its target (see :func:`draw_shifts`)
SHIFT_FALLBACK = {"parent_scale": ("strength", "bias"), "strength": ("parent_scale", "bias"),
                  "bias": ("strength", "parent_scale")}
#: factor ranges of ``parent_scale`` and ``strength`` shifts, App. A.2: [0.6, 0.85] ∪ [1.15, 1.6]
SHIFT_FACTOR_RANGES = ((0.6, 0.85), (1.15, 1.6))
#: bias shift magnitude in baseline IQRs, App. A.2: 0.3–0.8
SHIFT_BIAS_IQR = (0.3, 0.8)
#: targets per interventional row of the multi-target and dense protocols, App. A.2: 2–4
TARGETS_PER_ROW = (2, 4)

_ALL_PERCENTILES = (10, 20, 25, 50, 75, 80, 90)


def pool_size_range(d: int) -> Tuple[int, int]:
    """Target-pool size range for dimension ``d`` (App. A.1).

    The paper gives d ∈ {10, 20, 30, 50, 100}; other ``d`` use the closest
    listed dimension at or below it (d < 10: 1–max(1, d // 3)).
    """
    if d < 10:
        return (1, max(1, d // 3))
    key = max(k for k in POOL_SIZE_BY_D if k <= d)
    return POOL_SIZE_BY_D[key]


def _spec_rng(label: str, seed_text: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{label}\x1f{seed_text}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def default_target_pool(scm, seed_text: str) -> np.ndarray:
    """The SCM's intervention target pool (node indices, sorted).

    ``spec.intervention_targets`` when the family set it; otherwise drawn
    from the intervenable nodes with a seed derived from ``seed_text`` (the
    SCM id), so that the pool is a property of the SCM, shared by every
    replicate and method.
    """
    spec = scm.spec
    if spec.intervention_targets:
        names = list(spec.names)
        return np.array(sorted(names.index(t) for t in spec.intervention_targets), dtype=np.int64)
    eligible = np.array([i for i, node in enumerate(spec.nodes) if node.intervenable], dtype=np.int64)
    if eligible.size == 0:
        raise ValueError(f"SCM {spec.id!r} has no intervenable node; an obs+int split needs one")
    rng = _spec_rng("target-pool", seed_text)
    lo, hi = pool_size_range(spec.d)
    size = min(int(rng.integers(lo, hi + 1)), eligible.size)
    return np.sort(rng.choice(eligible, size=size, replace=False))


def structural_pool(scm, target_pool: Sequence[int]) -> np.ndarray:
    """Targets of the structural-only protocols (``parameter_shift``, ``dense_mixed``; App. A.2).

    The non-root nodes of ``target_pool`` (sorted). When the pool holds no
    non-root node, as many targets as the pool has (at least one) are drawn
    from the SCM's intervenable non-root nodes with a seed derived from the
    SCM id, so the substitute pool is, like the pool itself, a property of
    the SCM shared by every replicate (not of the cell's generator).

    Raises:
        ValueError: the SCM has no intervenable non-root node.
    """
    spec = scm.spec
    pool = np.asarray(target_pool, dtype=np.int64)
    is_root = np.array([node.role == "root" for node in spec.nodes])
    structural = np.sort(pool[~is_root[pool]])
    if structural.size:
        return structural
    eligible = np.array([i for i, node in enumerate(spec.nodes) if node.role != "root" and node.intervenable],
                        dtype=np.int64)
    if eligible.size == 0:
        raise ValueError(f"SCM {spec.id!r} has no intervenable non-root node; structural-target protocols need one")
    rng = _spec_rng("structural-pool", spec.id)
    return np.sort(rng.choice(eligible, size=min(max(pool.size, 1), eligible.size), replace=False))


def effective_target_pool(protocol: str, scm, target_pool: Sequence[int]) -> np.ndarray:
    """The pool a protocol actually draws targets from: :func:`structural_pool` for
    ``parameter_shift`` and ``dense_mixed``, ``target_pool`` otherwise (pass it to
    :func:`intervention_audit`)."""
    if protocol in ("parameter_shift", "dense_mixed"):
        return structural_pool(scm, target_pool)
    return np.sort(np.asarray(target_pool, dtype=np.int64))


def balanced_assignment(pool: Sequence[int], n_int: int, rng: np.random.Generator) -> np.ndarray:
    """One target per interventional row; counts differ by at most one.

    Returns:
        (n_int,) int array of node indices, in random row order.
    """
    pool = np.asarray(pool, dtype=np.int64)
    targets = np.resize(rng.permutation(pool), n_int)
    rng.shuffle(targets)
    return targets


# ---------------------------------------------------------------------------
# shared building blocks
# ---------------------------------------------------------------------------


def _check_pool(target_pool: Sequence[int], d: int) -> np.ndarray:
    pool = np.asarray(target_pool, dtype=np.int64).reshape(-1)
    if pool.size == 0:
        raise ValueError("target_pool is empty; an interventional split needs at least one target")
    if pool.min() < 0 or pool.max() >= d or np.unique(pool).size != pool.size:
        raise ValueError(f"target_pool must hold distinct node indices in [0, {d}), got {pool.tolist()}")
    return pool


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.isclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True)


class _Baseline:
    """Percentiles (and IQR) of the pool's columns on the observational rows of one exogenous draw.

    ``q[p]`` is a (d,) array holding percentile ``p`` at the pool's columns
    (NaN elsewhere). ``iqr`` is q75 − q25; where it is 0 (a discrete column
    with one dominant value) the baseline standard deviation is used, and 1.0
    where that is 0 too, so jitter and bias shifts never vanish. ``x``
    (n_obs × d) and ``exogenous`` (n_obs × exo_width) keep the baseline rows.
    """

    def __init__(self, scm, exogenous: np.ndarray, n_obs: int, pool: np.ndarray) -> None:
        if n_obs < 1:
            raise ValueError("intervention protocols need at least one observational row: the intervention values "
                             "come from the baseline percentiles of the observational rows (App. A.1)")
        x = scm.propagate(exogenous[:n_obs])
        self.x = x
        self.exogenous = exogenous[:n_obs]
        q = np.full((len(_ALL_PERCENTILES), scm.d), np.nan)
        q[:, pool] = np.percentile(x[:, pool], _ALL_PERCENTILES, axis=0)
        self.q = dict(zip(_ALL_PERCENTILES, q))
        iqr = self.q[75][pool] - self.q[25][pool]
        sd = x[:, pool].std(axis=0)
        self.iqr = np.full(scm.d, np.nan)
        self.iqr[pool] = np.where(iqr > 0, iqr, np.where(sd > 0, sd, 1.0))
        self.min = x.min(axis=0) if n_obs else None
        self.max = x.max(axis=0) if n_obs else None
        # declared intervention domains (scenario cards: node tags ``intervention_values`` /
        # ``intervention_range``): do(alert = 0.37) means nothing for a binary alert
        self.domain: Dict[int, Tuple[str, np.ndarray]] = {}
        for j in np.asarray(pool, dtype=np.int64):
            tags = scm.spec.nodes[int(j)].tags
            if tags.get("intervention_values"):
                self.domain[int(j)] = ("values", np.asarray(tags["intervention_values"], dtype=float))
            elif tags.get("intervention_range"):
                self.domain[int(j)] = ("range", np.asarray(tags["intervention_range"], dtype=float))

    def propagate(self, scm, exogenous: np.ndarray, mask: np.ndarray, values: np.ndarray, n_obs: int,
                  **shift) -> np.ndarray:
        """Rows [0, n_obs) are the baseline; only the interventional rows are propagated again.

        Rows are independent given their exogenous terms (every mechanism is a
        row-wise function), so this equals ``scm.propagate(exogenous, mask,
        values, …)`` on all rows at a fraction of the cost.
        """
        x = np.empty((exogenous.shape[0], scm.d))
        x[:n_obs] = self.x
        kw = {k: (v[n_obs:] if k == "shift_mask" else v) for k, v in shift.items()}
        x[n_obs:] = scm.propagate(exogenous[n_obs:], mask[n_obs:], values[n_obs:], **kw)
        return x


def _hard_values(rng: np.random.Generator, cols: np.ndarray, base: _Baseline) -> np.ndarray:
    """Hard do-resampling values U[q10, q90] of each entry's column (App. A.1)."""
    lo, hi = RESAMPLING_PERCENTILES
    low, high = base.q[lo][cols], base.q[hi][cols]
    # a (near-)discrete target whose 10th and 90th percentiles coincide would be set to the
    # value it mostly has anyway: use its observed range instead, so the intervention acts
    flat = ~(high > low)
    if flat.any():
        low, high = low.copy(), high.copy()
        low[flat], high[flat] = base.min[cols[flat]], base.max[cols[flat]]
    values = rng.uniform(low, high)
    return _declared_values(rng, cols, values, base, "hard")


def _declared_values(rng: np.random.Generator, cols: np.ndarray, values: np.ndarray, base: _Baseline,
                     how: str, level: Optional[np.ndarray] = None) -> np.ndarray:
    """Replace values of columns with a declared intervention domain (scenario cards).

    ``values`` domain: hard → a uniform choice among the declared values;
    setpoint → the declared values in turn (``level`` cycles them). ``range``
    domain: hard → U[low, high] of the declared range; setpoint → the
    percentile value clipped into the range. Columns without a declared
    domain keep their values, and no random number is drawn for them, so
    specs without domains (the synthetic grid) give byte-identical tables.
    """
    if not base.domain:
        return values
    values = values.copy()
    for j, (kind, dom) in base.domain.items():
        rows = np.flatnonzero(cols == j)
        if rows.size == 0:
            continue
        if kind == "values":
            if how == "hard":
                values[rows] = dom[rng.integers(0, dom.size, rows.size)]
            else:
                values[rows] = dom[np.asarray(level)[rows] % dom.size]
        elif how == "hard":
            values[rows] = rng.uniform(dom[0], dom[1], rows.size)
        else:
            values[rows] = np.clip(values[rows], dom[0], dom[1])
    return values


def _setpoint_values(rng: np.random.Generator, cols: np.ndarray, pool: np.ndarray,
                     base: _Baseline) -> np.ndarray:
    """Fixed-setpoint values (App. A.2): q20, q50 or q80 of the column plus U[−1, 1] % of its IQR.

    The level is balanced within each column: its entries, in row order,
    cycle through the three percentiles from a random starting level, so
    each target gets each setpoint (counts differ by at most one).
    """
    order = np.argsort(cols, kind="stable")
    sorted_cols = cols[order]
    _, starts, counts = np.unique(sorted_cols, return_index=True, return_counts=True)
    rank = np.empty(cols.size, dtype=np.int64)
    rank[order] = np.arange(cols.size) - np.repeat(starts, counts)
    offset = np.zeros(int(pool.max()) + 1, dtype=np.int64)
    offset[pool] = rng.integers(0, len(SETPOINT_PERCENTILES), size=pool.size)
    level = (rank + offset[cols]) % len(SETPOINT_PERCENTILES)
    q = np.stack([base.q[p] for p in SETPOINT_PERCENTILES])  # (3 × d)
    jitter = rng.uniform(-1.0, 1.0, size=cols.size) * SETPOINT_JITTER * base.iqr[cols]
    return _declared_values(rng, cols, q[level, cols] + jitter, base, "setpoint", level)


def _shift_changes(scm, j: int, kind: str, amount: float, x: np.ndarray, exogenous: np.ndarray) -> bool:
    """Whether shift ``(kind, amount)`` changes node ``j``'s value on some row of ``x`` (n × d).

    Evaluates node ``j``'s equation with and without the shift at the parent
    values of ``x`` and the exogenous terms ``exogenous`` (n × exo_width),
    as :meth:`SCM.propagate` applies a shift.
    """
    pa = x[:, scm.parents[j]]
    sig = scm.signal(j, pa)
    if kind == "strength":
        shifted = sig * amount
    elif kind == "bias":
        shifted = sig + amount
    else:
        shifted = scm.signal(j, pa * amount)
    before = scm.apply_noise(j, sig, exogenous, pa)
    after = scm.apply_noise(j, shifted, exogenous, pa)
    return bool((~_close(before, after)).any())


def draw_shifts(rng: np.random.Generator, targets: np.ndarray, iqr: np.ndarray, scm=None,
                baseline: Optional[np.ndarray] = None,
                exogenous: Optional[np.ndarray] = None) -> Dict[int, Tuple[str, float]]:
    """One parameter shift per target, App. A.2 "Parameter shift".

    Kinds are spread over the targets by balanced assignment over
    :data:`SHIFT_KINDS`; ``parent_scale`` and ``strength`` draw a factor from
    [0.6, 0.85] or [1.15, 1.6] (each side with probability ½, uniform
    within), ``bias`` a shift of random sign and magnitude U[0.3, 0.8] × the
    target's baseline IQR (data units). Every target gets both a factor and a
    bias drawn, so the generator's stream does not depend on the kinds.

    With ``scm``, ``baseline`` (n_obs × d) and its ``exogenous`` draw, a
    shift that leaves the target's value unchanged on every baseline row
    (e.g. scaling a binary parent of a thresholded mechanism) is replaced by
    the first effective kind of :data:`SHIFT_FALLBACK` (the other factor
    kind with the same factor, then the drawn bias), so the audit's "target
    values change" rule (App. A.2) holds whenever any of the three kinds can
    move the target.

    Args:
        targets: (m,) node indices.
        iqr: (d,) baseline IQR per node (read at ``targets``).

    Returns:
        ``{node: (kind, amount)}`` as :meth:`SCM.propagate` reads ``shifts``.
    """
    targets = np.asarray(targets, dtype=np.int64)
    m = targets.size
    kinds = balanced_assignment(np.arange(len(SHIFT_KINDS)), m, rng)
    (a_lo, a_hi), (b_lo, b_hi) = SHIFT_FACTOR_RANGES
    upper = rng.random(m) < 0.5
    u = rng.random(m)
    factor = np.where(upper, b_lo + (b_hi - b_lo) * u, a_lo + (a_hi - a_lo) * u)
    sign = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    bias = sign * rng.uniform(*SHIFT_BIAS_IQR, size=m) * iqr[targets]
    out: Dict[int, Tuple[str, float]] = {}
    for t, k, f, b in zip(targets.tolist(), kinds.tolist(), factor.tolist(), bias.tolist()):
        options = (SHIFT_KINDS[k],) + SHIFT_FALLBACK[SHIFT_KINDS[k]]
        choice = (options[0], b if options[0] == "bias" else f)
        if scm is not None:
            for kind in options:
                amount = b if kind == "bias" else f
                if _shift_changes(scm, t, kind, amount, baseline, exogenous):
                    choice = (kind, amount)
                    break
        out[t] = choice
    return out


def multi_target_assignment(pool: np.ndarray, n_int: int, rng: np.random.Generator,
                            per_row: Tuple[int, int] = TARGETS_PER_ROW) -> Tuple[np.ndarray, np.ndarray]:
    """2–4 distinct targets per interventional row (App. A.2 "Multi-target per sample").

    The row's target count is uniform on ``per_row`` (inclusive), capped at
    the pool size. The first target of each row is placed by balanced
    assignment, so every pool node is hit on at least ``n_int // |pool|``
    rows; the others are a uniformly random subset of the rest of the pool.

    Returns:
        ``(rows, cols)``: int arrays of the (row in 0 … n_int−1, node) entries.
    """
    pool = np.asarray(pool, dtype=np.int64)
    p = pool.size
    k = np.minimum(rng.integers(per_row[0], per_row[1] + 1, size=n_int), p)
    first = balanced_assignment(np.arange(p), n_int, rng)
    keys = rng.random((n_int, p))
    keys[np.arange(n_int), first] = -1.0
    order = np.argsort(keys, axis=1)
    rows, slot = np.nonzero(np.arange(p)[None, :] < k[:, None])
    return rows, pool[order[rows, slot]]


def regime_from_mask(mask: np.ndarray) -> np.ndarray:
    """(n,) regime: −1 for a row without target, else the row's lowest-index target."""
    return np.where(mask.any(axis=1), mask.argmax(axis=1), -1).astype(np.int64)


def _finish(x, mask, exo, return_exogenous):
    regime = regime_from_mask(mask)
    return (x, mask, regime, exo) if return_exogenous else (x, mask, regime)


# ---------------------------------------------------------------------------
# the six protocols (App. A.2)
# ---------------------------------------------------------------------------


def hard_resampling(scm, n_obs: int, n_int: int, rng: np.random.Generator, target_pool: Sequence[int], *,
                    return_exogenous: bool = False):
    """Default protocol: hard do-resampling within the 10th–90th percentile.

    One target per interventional row from ``target_pool`` by balanced
    assignment; its value is drawn from U[q10, q90] of the target's baseline
    (the observational rows of the same exogenous draw).

    Args:
        scm: a compiled :class:`causalarena.scm.SCM` with ``d`` nodes.
        n_obs, n_int: observational and interventional row counts (n_obs ≥ 1).
        rng: the cell's generator.
        target_pool: node indices eligible as targets.
        return_exogenous: also return the (n × exo_width) exogenous draw.

    Returns:
        ``X`` (n × d) float, ``intervention_mask`` (n × d) bool, ``regime``
        (n,) int (−1 observational, else the target index); rows
        ``[0, n_obs)`` are observational. Plus the exogenous draw when asked.

    Raises:
        ValueError: empty or out-of-range pool; ``n_obs`` < 1.

    Source: CausalArena paper, App. A.1 "Interventions" and App. A.2 "Default resampling".
    """
    return _single_target(scm, n_obs, n_int, rng, target_pool, lambda t, pool, base: _hard_values(rng, t, base),
                          return_exogenous)


def _single_target(scm, n_obs, n_int, rng, target_pool, values_for, return_exogenous):
    """One balanced target per interventional row, hard-set to ``values_for(targets, pool, baseline)``."""
    pool = _check_pool(target_pool, scm.d)
    n = n_obs + n_int
    exo = scm.draw_exogenous(n, rng)
    base = _Baseline(scm, exo, n_obs, pool)
    targets = balanced_assignment(pool, n_int, rng)
    rows = np.arange(n_obs, n)
    mask = np.zeros((n, scm.d), dtype=bool)
    mask[rows, targets] = True
    values = np.zeros((n, scm.d))
    values[rows, targets] = values_for(targets, pool, base)
    return _finish(base.propagate(scm, exo, mask, values, n_obs), mask, exo, return_exogenous)


def high_fraction(scm, n_obs: int, n_int: int, rng: np.random.Generator, target_pool: Sequence[int], *,
                  return_exogenous: bool = False):
    """High intervention fraction (App. A.2): single-target hard resampling, registered with 200 obs + 800 int.

    Same construction as :func:`hard_resampling`; only the row budget differs.
    """
    return hard_resampling(scm, n_obs, n_int, rng, target_pool, return_exogenous=return_exogenous)


def fixed_setpoint(scm, n_obs: int, n_int: int, rng: np.random.Generator, target_pool: Sequence[int], *,
                   return_exogenous: bool = False):
    """Fixed setpoint (App. A.2): one target per row, set to its q20, q50 or q80 ± 1 % of its IQR.

    Targets by balanced assignment as in :func:`hard_resampling`. Each target's
    rows cycle through the three baseline percentiles (so each setpoint is
    used on a third of them, ±1), and the value gets a jitter uniform in
    ±0.01 × IQR of the target's baseline (the paper's "jitter equal to 1 % of
    the interquartile range", read as the half-width of a uniform jitter).

    Returns, raises: as :func:`hard_resampling`.
    """
    return _single_target(scm, n_obs, n_int, rng, target_pool,
                          lambda t, pool, base: _setpoint_values(rng, t, pool, base), return_exogenous)


def parameter_shift(scm, n_obs: int, n_int: int, rng: np.random.Generator, target_pool: Sequence[int], *,
                    return_exogenous: bool = False):
    """Parameter shift (App. A.2): the target's mechanism is changed, its noise kept.

    Targets are the structural (non-root) nodes of the pool
    (:func:`structural_pool`, which substitutes SCM-derived non-root targets
    when the pool has none), one per interventional row by balanced
    assignment. Each target gets one shift for the whole dataset
    (:func:`draw_shifts`): parent effects scaled (``parent_scale``, the
    mechanism evaluated at factor × parents), the output shifted by ±0.3–0.8
    baseline IQRs (``bias``), or the calibrated mechanism output scaled
    (``strength``), factors in [0.6, 0.85] ∪ [1.15, 1.6]. The mask records
    the target on its rows; descendants are recomputed.

    Returns, raises: as :func:`hard_resampling`; also ValueError when the SCM
    has no intervenable non-root node.
    """
    pool = structural_pool(scm, _check_pool(target_pool, scm.d))
    n = n_obs + n_int
    exo = scm.draw_exogenous(n, rng)
    base = _Baseline(scm, exo, n_obs, pool)
    shifts = draw_shifts(rng, pool, base.iqr, scm, base.x, base.exogenous)
    targets = balanced_assignment(pool, n_int, rng)
    mask = np.zeros((n, scm.d), dtype=bool)
    mask[np.arange(n_obs, n), targets] = True
    x = base.propagate(scm, exo, mask, np.zeros((n, scm.d)), n_obs, shift_mask=mask, shifts=shifts)
    return _finish(x, mask, exo, return_exogenous)


def multi_target(scm, n_obs: int, n_int: int, rng: np.random.Generator, target_pool: Sequence[int], *,
                 return_exogenous: bool = False):
    """Multi-target per sample (App. A.2): 2–4 distinct pool targets per row, each hard-resampled.

    Targets per row by :func:`multi_target_assignment` (capped at the pool
    size); each selected target gets its own U[q10, q90] value.

    Returns, raises: as :func:`hard_resampling` (regime: lowest-index target).
    """
    pool = _check_pool(target_pool, scm.d)
    n = n_obs + n_int
    exo = scm.draw_exogenous(n, rng)
    base = _Baseline(scm, exo, n_obs, pool)
    rows, cols = multi_target_assignment(pool, n_int, rng)
    rows = rows + n_obs
    mask = np.zeros((n, scm.d), dtype=bool)
    mask[rows, cols] = True
    values = np.zeros((n, scm.d))
    values[rows, cols] = _hard_values(rng, cols, base)
    return _finish(base.propagate(scm, exo, mask, values, n_obs), mask, exo, return_exogenous)


#: row kinds of the dense mixed protocol, in assignment order
DENSE_KINDS = ("hard", "setpoint", "shift")


def dense_mixed(scm, n_obs: int, n_int: int, rng: np.random.Generator, target_pool: Sequence[int], *,
                return_exogenous: bool = False, return_kinds: bool = False):
    """Dense mixed intervention (App. A.2): 2–4 structural targets per row, mixed kinds.

    Targets from :func:`structural_pool` by :func:`multi_target_assignment`;
    each interventional row gets one kind (balanced over rows, counts differ
    by at most one) that applies to all its targets: hard resampling
    U[q10, q90], fixed setpoint (as :func:`fixed_setpoint`) or parameter shift
    (one shift per target for the dataset, as :func:`parameter_shift`).

    Args:
        return_kinds: also return the (n,) row kind, an index into
            :data:`DENSE_KINDS` (−1 observational), after the exogenous draw
            if that is returned too.

    Returns, raises: as :func:`parameter_shift`.
    """
    pool = structural_pool(scm, _check_pool(target_pool, scm.d))
    n = n_obs + n_int
    exo = scm.draw_exogenous(n, rng)
    base = _Baseline(scm, exo, n_obs, pool)
    shifts = draw_shifts(rng, pool, base.iqr, scm, base.x, base.exogenous)
    rows, cols = multi_target_assignment(pool, n_int, rng)
    row_kind = balanced_assignment(np.arange(len(DENSE_KINDS)), n_int, rng)
    kind = row_kind[rows]
    rows = rows + n_obs
    mask = np.zeros((n, scm.d), dtype=bool)
    mask[rows, cols] = True
    shift_mask = np.zeros((n, scm.d), dtype=bool)
    is_shift = kind == DENSE_KINDS.index("shift")
    shift_mask[rows[is_shift], cols[is_shift]] = True
    values = np.zeros((n, scm.d))
    hard = kind == DENSE_KINDS.index("hard")
    values[rows[hard], cols[hard]] = _hard_values(rng, cols[hard], base)
    setp = kind == DENSE_KINDS.index("setpoint")
    values[rows[setp], cols[setp]] = _setpoint_values(rng, cols[setp], pool, base)
    x = base.propagate(scm, exo, mask, values, n_obs, shift_mask=shift_mask, shifts=shifts)
    out = _finish(x, mask, exo, return_exogenous)
    if return_kinds:
        kinds = np.full(n, -1, dtype=np.int64)
        kinds[n_obs:] = row_kind
        out = out + (kinds,)
    return out


# ---------------------------------------------------------------------------
# audit (App. A.2)
# ---------------------------------------------------------------------------


def _reach(scm) -> np.ndarray:
    """(d × d) bool, ``R[i, j]`` iff j is i or a descendant of i."""
    a = scm.adjacency().astype(bool)
    reach = np.eye(scm.d, dtype=bool)
    for i in reversed(scm.order):
        children = np.flatnonzero(a[i])
        if children.size:
            reach[i] |= reach[children].any(axis=0)
    return reach


def _names(scm, idx) -> str:
    return ", ".join(scm.names[int(i)] for i in idx)


def intervention_audit(scm, x: np.ndarray, mask: np.ndarray, regime: np.ndarray, exogenous: np.ndarray,
                       target_pool: Sequence[int]) -> List[str]:
    """Check an obs+int table against the intervention rules of App. A.2.

    Re-propagates ``exogenous`` without interventions (the observational
    counterfactual ``x0`` of every row) and checks:

    1. shapes agree and values are finite;
    2. the mask marks only intervenable columns of ``target_pool``, and every
       pool target is marked on at least one row;
    3. ``regime`` is −1 on rows without target, else the row's lowest-index
       target;
    4. every marked target's values differ from ``x0`` on at least one of
       its rows ("target values must change relative to their observational
       mechanism");
    5. on every row, columns that are neither a target of the row nor a
       descendant of one equal ``x0`` (columns of an ``intervention_shift``
       stressor and their descendants may change on any intervened row);
    6. descendants are regenerated: every entry not marked by the mask
       equals its structural equation evaluated at the table's own parent
       values and the row's exogenous terms (with the ``intervention_shift``
       stressor applied on intervened rows) — on every intervened row and
       every 10th row without a target.

    Values are compared with relative and absolute tolerance 1e-9.

    Args:
        scm: the compiled SCM that produced the table.
        x: (n × d) structural values (before observation stressors).
        mask: (n × d) bool intervention mask; regime: (n,) int.
        exogenous: (n × exo_width) exogenous draw the table was propagated from.
        target_pool: node indices the protocol drew targets from (see
            :func:`effective_target_pool`).

    Returns:
        Problems found, one sentence each naming the columns (empty if none).
    """
    x = np.asarray(x, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    regime = np.asarray(regime)
    exogenous = np.asarray(exogenous, dtype=float)
    pool = np.asarray(target_pool, dtype=np.int64).reshape(-1)
    n, d = x.shape if x.ndim == 2 else (0, -1)
    if d != scm.d or mask.shape != x.shape or regime.shape != (n,) or exogenous.shape != (n, scm.exo_width):
        return [f"shape mismatch: x {x.shape}, mask {mask.shape}, regime {regime.shape}, exogenous "
                f"{exogenous.shape}; expected (n × {scm.d}), (n × {scm.d}), (n,), (n × {scm.exo_width})"]
    problems: List[str] = []
    bad = np.flatnonzero(~np.isfinite(x).all(axis=0))
    if bad.size:
        problems.append(f"non-finite values in {_names(scm, bad)}")

    marked = np.flatnonzero(mask.any(axis=0))
    outside = np.setdiff1d(marked, pool)
    if outside.size:
        problems.append(f"mask marks {_names(scm, outside)} outside the target pool "
                        f"({_names(scm, pool) or 'empty'})")
    locked = [j for j in marked if not scm.spec.nodes[j].intervenable]
    if locked:
        problems.append(f"mask marks non-intervenable {_names(scm, locked)}")
    never = pool[~mask[:, pool].any(axis=0)] if pool.size else pool
    if never.size:
        problems.append(f"pool target(s) {_names(scm, never)} never intervened on (need at least one row)")
    wrong = np.flatnonzero(regime != regime_from_mask(mask))
    if wrong.size:
        problems.append(f"regime disagrees with the mask on {wrong.size} row(s) (first row {wrong[0]}): "
                        "expected −1 without target, else the lowest-index target")

    # the observational counterfactual of the intervened rows (rows without a target are
    # checked entry by entry against their equations below, check 6)
    int_rows = mask.any(axis=1)
    x0 = x.copy()
    if int_rows.any():
        x0[int_rows] = scm.propagate(exogenous[int_rows])
    changed = ~_close(x, x0)
    inert = [j for j in marked if not (mask[:, j] & changed[:, j]).any()]
    if inert:
        problems.append(f"target(s) {_names(scm, inert)} keep their observational values on all their "
                        "intervened rows (the intervention has no effect)")

    reach = _reach(scm)
    int_rows = mask.any(axis=1)
    shifted: Dict[int, Tuple[float, float]] = {}
    for st in scm.intervention_stressors:
        if st.kind == "intervention_shift":
            for name, loc, scale in zip(st.columns, st.shift, st.scale):
                shifted[scm.index[name]] = (float(loc), float(scale))
    allowed = (mask.astype(np.int64) @ reach.astype(np.int64)) > 0
    if shifted:
        allowed |= int_rows[:, None] & reach[list(shifted)].any(axis=0)[None, :]
    leaked = changed & ~allowed
    if leaked.any():
        cols = np.flatnonzero(leaked.any(axis=0))
        problems.append(f"{_names(scm, cols)} changed on {int(leaked.any(axis=1).sum())} row(s) where they are "
                        "neither a target nor a descendant of one")

    stale = []
    # every intervened row, and every 10th row without a target (their values come from the
    # same propagation code; checking them all would double the cost of an audit)
    rows = np.flatnonzero(int_rows | (np.arange(n) % 10 == 0))
    xr, er, mr, ir = x[rows], exogenous[rows], mask[rows], int_rows[rows]
    for j in scm.order:
        if scm.spec.nodes[j].role == "root":
            expected = er[:, j].copy()
        else:
            pa = xr[:, scm.parents[j]]
            expected = scm.apply_noise(j, scm.signal(j, pa), er, pa)
        if j in shifted:
            loc, scale = shifted[j]
            expected[ir] = expected[ir] * scale + loc
        off = ~mr[:, j] & ~_close(xr[:, j], expected)
        if off.any():
            stale.append(f"{scm.names[j]} ({int(off.sum())} rows, first {int(rows[np.flatnonzero(off)[0]])})")
    if stale:
        problems.append("not regenerated from their parents: " + ", ".join(stale))
    return problems


# ---------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------


@hookimpl
def arena_interventions() -> Iterable[InterventionInfo]:
    yield InterventionInfo(
        name="default",
        factory="causalarena.interventions:hard_resampling",
        n_obs=800,
        n_int=200,
        description="hard do-resampling in the 10th-90th percentile, one balanced target per row (App. A.1)",
    )
    yield InterventionInfo(
        name="fixed_setpoint",
        factory="causalarena.interventions:fixed_setpoint",
        n_obs=800,
        n_int=200,
        description="one target per row set to its 20th/50th/80th percentile, jitter 1% of the IQR (App. A.2)",
    )
    yield InterventionInfo(
        name="parameter_shift",
        factory="causalarena.interventions:parameter_shift",
        n_obs=800,
        n_int=200,
        description="structural targets' mechanisms shifted: parent scale, bias 0.3-0.8 IQR or strength (App. A.2)",
    )
    yield InterventionInfo(
        name="high_fraction",
        factory="causalarena.interventions:high_fraction",
        n_obs=200,
        n_int=800,
        description="200 observational + 800 single-target hard-resampling rows (App. A.2)",
    )
    yield InterventionInfo(
        name="multi_target",
        factory="causalarena.interventions:multi_target",
        n_obs=800,
        n_int=200,
        description="2-4 hard-resampled targets per interventional row (App. A.2)",
    )
    yield InterventionInfo(
        name="dense_mixed",
        factory="causalarena.interventions:dense_mixed",
        n_obs=200,
        n_int=800,
        description="2-4 structural targets per row; hard, fixed-setpoint and parameter-shift rows balanced (App. A.2)",
    )
