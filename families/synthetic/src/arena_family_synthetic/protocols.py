"""The App. A.2 intervention-protocol suite (protocol sensitivity), moved out of the core.

CausalArena paper, App. A.2 "Synthetic Audit and Protocol-sensitivity Suites";
the study runs on synthetic d = 30 SCMs. Five protocols besides the core's
``default`` (:func:`causalarena.interventions.hard_resampling`), registered
through this family's ``arena_interventions`` hook (:data:`PROTOCOLS`, in the
paper's order, includes ``default``):

===================  =========  =============================================================
name                 obs / int  interventional rows
===================  =========  =============================================================
``default``          800 / 200  one target per row (balanced), hard do, value U[q10, q90] (core)
``fixed_setpoint``   800 / 200  one target per row, value q20, q50 or q80 ± 1 % of the IQR
``parameter_shift``  800 / 200  one structural (non-root) target per row, mechanism changed
``high_fraction``    200 / 800  as ``default``
``multi_target``     800 / 200  2–4 distinct targets per row, each hard do U[q10, q90]
``dense_mixed``      200 / 800  2–4 structural targets per row; rows split evenly between
                                hard do, fixed setpoint and parameter shift
===================  =========  =============================================================

Signature, return values and the shared construction are those of the core's
protocol (:mod:`causalarena.interventions`), whose building blocks these
protocols use. ``parameter_shift`` and ``dense_mixed`` restrict targets to
structural nodes (:func:`structural_pool`); both carry it as their
``effective_pool`` attribute, which
:func:`causalarena.interventions.effective_target_pool` reads.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from causalarena.interventions import (
    _Baseline,
    _check_pool,
    _close,
    _declared_values,
    _finish,
    _hard_values,
    _single_target,
    _spec_rng,
    balanced_assignment,
    hard_resampling,
)

#: the six protocols of App. A.2, in the paper's order (``default`` is the core's)
PROTOCOLS = ("default", "fixed_setpoint", "parameter_shift", "high_fraction", "multi_target", "dense_mixed")

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


def structural_pool(scm, target_pool: Sequence[int] | np.ndarray) -> np.ndarray:
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
            assert baseline is not None and exogenous is not None, "draw_shifts: scm needs baseline and exogenous"
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


# the structural-only protocols draw from their own pool (read by effective_target_pool)
parameter_shift.effective_pool = structural_pool  # type: ignore[attr-defined]
dense_mixed.effective_pool = structural_pool  # type: ignore[attr-defined]
