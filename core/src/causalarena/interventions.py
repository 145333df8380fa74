"""The shared intervention protocol of the obs+int split, and the intervention audit.

CausalArena paper, App. A.1 "Interventions" and App. A.2 "Synthetic Audit and
Protocol-sensitivity Suites". The core registers one protocol through the
``arena_interventions`` hook of this built-in plugin:

===================  =========  =============================================================
name                 obs / int  interventional rows
===================  =========  =============================================================
``default``          800 / 200  one target per row (balanced), hard do, value U[q10, q90]
===================  =========  =============================================================

The App. A.2 protocol-sensitivity suite (``fixed_setpoint``,
``parameter_shift``, ``high_fraction``, ``multi_target``, ``dense_mixed``)
ships with arena-family-synthetic (:mod:`arena_family_synthetic.protocols`),
built from the blocks kept here (:class:`_Baseline`, :func:`_hard_values`,
:func:`balanced_assignment`, :func:`_finish` …).

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
one). A protocol that draws its targets from another pool than the SCM's
(the synthetic family's structural-only protocols) carries an
``effective_pool(scm, target_pool)`` attribute; :func:`effective_target_pool`
gives the pool each protocol actually used, which is what
:func:`intervention_audit` checks the mask against.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .hookspecs import hookimpl
from .records import InterventionInfo

#: target-pool size ranges by dimension, App. A.1: (min, max) inclusive
POOL_SIZE_BY_D = {10: (2, 4), 20: (3, 6), 30: (4, 8), 50: (5, 12), 100: (8, 20)}

#: hard do-resampling range, App. A.1: percentiles of the target's baseline
RESAMPLING_PERCENTILES = (10, 90)

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


@functools.lru_cache(maxsize=None)
def _protocol(name: str):
    from .records import InterventionInfo

    if name == "default":
        return InterventionInfo(name="default", factory="causalarena.interventions:hard_resampling"), hard_resampling
    from .plugins import default_registry

    registry = default_registry()  # built once per process, shared with the CLI and the SCM compiler
    if name not in registry.interventions:
        raise ValueError(f"unknown intervention protocol {name!r}; installed: {sorted(registry.interventions)} "
                         "(the App. A.2 protocol suite - fixed_setpoint, parameter_shift, high_fraction, "
                         "multi_target, dense_mixed - ships with arena-family-synthetic)")
    info = registry.intervention(name)
    return info, info.load()


def resolve_protocol(name: str):
    """``(InterventionInfo, apply)`` of intervention protocol ``name``, through the registry (cached).

    ``default`` is the core's :func:`causalarena.interventions.hard_resampling`;
    every other name comes from an installed plugin's ``arena_interventions``.

    Raises:
        ValueError: ``name`` is not installed (the message lists the installed
            protocols and says the App. A.2 suite ships with arena-family-synthetic).
    """
    return _protocol(name)


def effective_target_pool(protocol: str, scm, target_pool: Sequence[int]) -> np.ndarray:
    """The pool protocol ``protocol`` actually draws targets from (pass it to :func:`intervention_audit`).

    The protocol is resolved through the registry
    (:func:`resolve_protocol`); a protocol function with
    an ``effective_pool(scm, target_pool)`` attribute (the structural-only
    ``parameter_shift`` and ``dense_mixed`` of arena-family-synthetic, App.
    A.2) draws from that pool, every other one from ``target_pool`` (sorted).

    Raises:
        ValueError: ``protocol`` is not installed.
    """
    pool_of = getattr(resolve_protocol(protocol)[1], "effective_pool", None)
    if pool_of is not None:
        return np.asarray(pool_of(scm, target_pool), dtype=np.int64)
    return np.sort(np.asarray(target_pool, dtype=np.int64))


def balanced_assignment(pool: Sequence[int] | np.ndarray, n_int: int, rng: np.random.Generator) -> np.ndarray:
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
    return np.asarray(np.isclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True))


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
        self.min: np.ndarray = x.min(axis=0)  # n_obs >= 1 (checked above)
        self.max: np.ndarray = x.max(axis=0)
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


def regime_from_mask(mask: np.ndarray) -> np.ndarray:
    """(n,) regime: −1 for a row without target, else the row's lowest-index target."""
    return np.where(mask.any(axis=1), mask.argmax(axis=1), -1).astype(np.int64)


def _finish(x, mask, exo, return_exogenous):
    regime = regime_from_mask(mask)
    return (x, mask, regime, exo) if return_exogenous else (x, mask, regime)


# ---------------------------------------------------------------------------
# the default protocol (App. A.1)
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
       descendant of one equal ``x0`` (columns of a ``"shift"`` intervention
       stressor and their descendants may change on any intervened row);
    6. descendants are regenerated: every entry not marked by the mask
       equals its structural equation evaluated at the table's own parent
       values and the row's exogenous terms (with the "shift"
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
    int_rows: np.ndarray = np.asarray(mask.any(axis=1))
    x0 = x.copy()
    if int_rows.any():
        x0[int_rows] = scm.propagate(exogenous[int_rows])
    changed = ~_close(x, x0)
    inert = [j for j in marked if not (mask[:, j] & changed[:, j]).any()]
    if inert:
        problems.append(f"target(s) {_names(scm, inert)} keep their observational values on all their "
                        "intervened rows (the intervention has no effect)")

    reach = _reach(scm)
    shifted: Dict[int, Tuple[float, float]] = {}
    for st in scm.intervention_stressors:
        if st.effect == "shift":
            for name, loc, scale in zip(st.columns, st.shift, st.scale):
                shifted[scm.index[name]] = (float(loc), float(scale))
    # rows without a target allow nothing; on the others a float product of 0/1 matrices counts
    # small integers exactly (the same booleans as an integer product, at BLAS speed)
    allowed = np.zeros((n, d), dtype=bool)
    if int_rows.any():
        allowed[int_rows] = (mask[int_rows].astype(np.float64) @ reach.astype(np.float64)) > 0
    if shifted:
        allowed |= int_rows[:, None] & np.asarray(reach[list(shifted)].any(axis=0))[None, :]
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
    # every column's equation first, then one element-wise comparison (the same booleans as
    # comparing column by column, without d small isclose calls)
    expected_all = np.empty_like(xr)
    for j in scm.order:
        if scm.spec.nodes[j].role == "root":
            expected = er[:, j].copy()
        else:
            pa = xr[:, scm.parents[j]]
            expected = scm.apply_noise(j, scm.signal(j, pa), er, pa)
        if j in shifted:
            loc, scale = shifted[j]
            expected[ir] = expected[ir] * scale + loc
        expected_all[:, j] = expected
    off_all = ~mr & ~_close(xr, expected_all)
    for j in scm.order:
        off = off_all[:, j]
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
    """The core's protocol: ``default`` (the App. A.2 suite is registered by arena-family-synthetic)."""
    yield InterventionInfo(
        name="default",
        factory="causalarena.interventions:hard_resampling",
        n_obs=800,
        n_int=200,
        description="hard do-resampling in the 10th-90th percentile, one balanced target per row (App. A.1)",
    )
