"""The shared protocol: splits, replicates, seeds, standardisation.

CausalArena paper §4.5 and App. B.1: two matched splits per SCM, obs-only
(n = 1000) and obs+int (800 observational + 200 interventional rows, masks
shipped), 5 replicates, seeds derived from the cell so that every method sees
byte-identical data, standardised inputs by default (raw available for the
varsortability study, Reisach et al. 2021).
"""

from __future__ import annotations

import hashlib
from typing import Dict, Optional, Tuple

import attrs
import numpy as np

from .data import Dataset

#: rows per split: (n_obs, n_int), App. B.1
SPLIT_SIZES = {"obs": (1000, 0), "obs_int": (800, 200)}
N_REPLICATES = 5


def cell_seed(family: str, scm_id: str, split: str, replicate: int) -> int:
    """A 63-bit seed derived from the cell (never from the method).

    SHA-256 of the unit-separated fields, so it is stable across processes,
    platforms and Python versions (unlike ``hash()``).
    """
    text = "\x1f".join([family, scm_id, split, str(int(replicate))])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") & (2**63 - 1)


def standardise(x: np.ndarray) -> np.ndarray:
    """Column-wise z-scores (population sd); constant columns are centred only.

    Constant columns are left at 0 so the runner's input checks can name them
    (case I2) instead of propagating NaN.
    """
    mean = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (x - mean) / sd


def sortability(scores: np.ndarray, adjacency: np.ndarray, tol: float = 1e-9) -> Optional[float]:
    """Fraction of directed paths along which ``scores`` increase.

    Reisach, Seiler & Weichwald (2021), "Beware of the Simulated DAG", Def. 1,
    with the variance replaced by any per-variable score: sum over path lengths
    k = 1 … d−1 of the ordered pairs (i, j) joined by a directed path of length
    k with score_i < score_j (ties, within relative ``tol``, count ½), divided by
    the number of such (pair, k). 1: sorting by the score recovers the causal
    order; 0.5: chance. ``None`` for a graph without edges.

    Args:
        scores: (d,) per-variable score (marginal variance, R², …).
        adjacency: (d × d) 0/1, row = parent.
    """
    e = np.asarray(adjacency) != 0
    scores = np.asarray(scores, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = scores[None, :] / scores[:, None]  # [i, j] = score_j / score_i
    ef = e.astype(np.float64)
    ek = e.copy()
    n_paths = 0.0
    n_sorted = 0.0
    for _ in range(e.shape[0] - 1):
        if not ek.any():
            break
        n_paths += ek.sum()
        n_sorted += (ek & (ratio > 1 + tol)).sum()
        n_sorted += 0.5 * (ek & (ratio <= 1 + tol) & (ratio > 1 - tol)).sum()
        ek = (ek.astype(np.float64) @ ef) > 0  # float matmul uses BLAS; int64 does not
    return None if n_paths == 0 else float(n_sorted / n_paths)


def varsortability(x: np.ndarray, adjacency: np.ndarray, tol: float = 1e-9) -> Optional[float]:
    """Sortability by marginal variance (Reisach et al. 2021, Def. 1) of raw (n × d) data."""
    return sortability(np.nanvar(x, axis=0), adjacency, tol)


def r2_scores(x: np.ndarray) -> np.ndarray:
    """(d,) coefficient of determination of each column regressed on all others.

    R²_j = 1 − 1 / (C⁻¹)_jj with C the correlation matrix (Reisach et al.
    2023, "A Scale-Invariant Sorting Criterion to Find a Causal Order in
    Additive Noise Models"); scale-invariant, so standardising does not change
    it. When C is (near-)singular (exact collinearity) each column is regressed
    on the others by least squares instead, which gives R² = 1 for the
    collinear columns.
    """
    x = np.asarray(x, dtype=float)
    c = np.corrcoef(x, rowvar=False)
    if np.all(np.isfinite(c)) and np.linalg.cond(c) < 1e10:
        r2 = 1.0 - 1.0 / np.diag(np.linalg.inv(c))
    else:
        z = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
        r2 = np.empty(x.shape[1])
        for j in range(x.shape[1]):
            others = np.delete(z, j, axis=1)
            coef, *_ = np.linalg.lstsq(others, z[:, j], rcond=None)
            resid = z[:, j] - others @ coef
            tss = float(z[:, j] @ z[:, j])
            r2[j] = 1.0 - float(resid @ resid) / tss if tss > 0 else 0.0
    return np.clip(np.round(r2, 12), 0.0, 1.0)


def r2_sortability(x: np.ndarray, adjacency: np.ndarray, tol: float = 1e-9) -> Optional[float]:
    """Sortability by R² (Reisach et al. 2023) of (n × d) data: order leaks that survive standardisation."""
    return sortability(r2_scores(x), adjacency, tol)


#: The dataset metadata keys of :func:`raw_sortabilities`, in this order.
SORTABILITY_KEYS = ("varsortability", "r2_sortability")


def _nan_variances(x: np.ndarray) -> np.ndarray:
    """(d,) population variances, NaN ignored; ``nan`` for an all-NaN column, ``inf`` on overflow."""
    import warnings

    with np.errstate(over="ignore", under="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: nan, caught by the caller
        return np.nanvar(x, axis=0)


def _scale_defined(x: np.ndarray, var: np.ndarray) -> bool:
    """Every column's variance ``var`` is finite, and positive unless the column is constant."""
    if not np.all(np.isfinite(var)):
        return False
    zero = np.flatnonzero(var == 0.0)  # constant, or a spread that underflowed (rare: look closer)
    return not any(np.nanmax(x[:, j]) > np.nanmin(x[:, j]) for j in zero)


def raw_sortabilities(x: np.ndarray, adjacency: np.ndarray, tol: float = 1e-9) -> Dict[str, Optional[float]]:
    """Both sortabilities of a raw table, as every family's dataset metadata carries them.

    ``varsortability`` (Reisach, Seiler & Weichwald 2021, Def. 1: marginal
    variances, NaN ignored) and ``r2_sortability`` (Reisach et al. 2023: R² of
    each column on all others, on the complete rows when the table has NaN),
    each a float in [0, 1] — the fraction of directed paths along which the
    score increases, ties within ``tol`` counting ½ (:func:`sortability`; the
    same numbers as CausalDisco's ``var_sortability`` / ``r2_sortability``).

    A value is ``None`` exactly when it is undefined:

    * the graph has no edges (no directed path to count), both;
    * float64 cannot hold a column's variance (squared deviations overflow
      to inf, or underflow to 0 for a column that is not constant), both;
    * fewer than d + 1 complete rows (the regressions on d − 1 others
      interpolate: every R² is 1), ``r2_sortability`` only.

    Args:
        x: (n × d) raw table (before standardisation; NaN allowed).
        adjacency: (d × d) 0/1 true graph, row = parent.
        tol: relative tie tolerance of :func:`sortability`.

    Returns:
        ``{"varsortability": v, "r2_sortability": r}`` (:data:`SORTABILITY_KEYS`).
    """
    x = np.asarray(x, dtype=float)
    out: Dict[str, Optional[float]] = dict.fromkeys(SORTABILITY_KEYS)
    if not np.any(np.asarray(adjacency) != 0):
        return out
    var = _nan_variances(x)  # the scores of varsortability(x, ...), computed once
    if not _scale_defined(x, var):
        return out
    complete = x if not np.isnan(x).any() else x[~np.isnan(x).any(axis=1)]
    # a constant column (tiny n) has no finite ratio: those pairs are not sorted, not an error
    with np.errstate(invalid="ignore", divide="ignore"):
        out["varsortability"] = sortability(var, adjacency, tol)
        if complete.shape[0] > x.shape[1]:
            out["r2_sortability"] = r2_sortability(complete, adjacency, tol)
    return out


def split_sizes(split: str, n: Optional[int] = None, n_obs: int = 800, n_int: int = 200) -> Tuple[int, int]:
    """(n_obs, n_int) of a split; ``n`` rescales obs+int keeping its 80/20 mix."""
    if split not in SPLIT_SIZES:
        raise ValueError(f"unknown split {split!r}; expected one of {sorted(SPLIT_SIZES)}")
    if split == "obs":
        return (int(n) if n else SPLIT_SIZES["obs"][0], 0)
    if n:
        k = int(round(n * n_int / (n_obs + n_int)))
        return (int(n) - k, k)
    return (n_obs, n_int)


@attrs.define
class CellSample:
    """Everything one cell's sampling produced, before standardisation.

    Attributes:
        x: (n × d) raw table as shipped (after observation stressors).
        x_structural: (n × d) structural values (before observation stressors).
        intervention_mask: (n × d) bool; regime: (n,) int.
        exogenous: (n × exo_width) exogenous draw (None when the protocol
            does not return it).
        target_pool: node indices of the pool ([] for obs).
        seed, n_obs, n_int: the cell's seed and row counts.
    """

    x: np.ndarray
    x_structural: np.ndarray
    intervention_mask: np.ndarray
    regime: np.ndarray
    exogenous: Optional[np.ndarray]
    target_pool: np.ndarray
    seed: int
    n_obs: int
    n_int: int


def sample_cell(spec, family: str, split: str, replicate: int, protocol: str = "default",
                n: Optional[int] = None, scm=None) -> CellSample:
    """Sample one cell of the shared protocol (raw; see :func:`make_dataset`).

    ``scm``: ``spec`` already compiled (default: compile it here).

    Raises:
        ValueError: unknown split or protocol.
    """
    seed = cell_seed(family, spec.id, split, replicate)
    rng = np.random.default_rng(seed)
    scm = scm if scm is not None else spec.compile()
    pool = np.zeros(0, dtype=np.int64)
    exo = None
    if split == "obs":
        n_obs, n_int = split_sizes(split, n)
        exo = scm.draw_exogenous(n_obs, rng)
        x = scm.propagate(exo)
        mask = np.zeros_like(x, dtype=bool)
        regime = np.full(n_obs, -1, dtype=np.int64)
    else:
        from .interventions import default_target_pool, resolve_protocol

        info, apply = resolve_protocol(protocol)
        n_obs, n_int = split_sizes(split, n, info.n_obs, info.n_int)
        pool = default_target_pool(scm, spec.id)
        try:
            x, mask, regime, exo = apply(scm, n_obs, n_int, rng, pool, return_exogenous=True)
        except TypeError as exc:
            if "return_exogenous" not in str(exc):
                raise
            rng = np.random.default_rng(seed)  # a third-party protocol without the keyword
            x, mask, regime = apply(scm, n_obs, n_int, rng, pool)
        # a protocol with its own pool (structural-only ones: parameter shift, dense mixed) says so
        pool_of = getattr(apply, "effective_pool", None)
        pool = pool if pool_of is None else pool_of(scm, pool)
    x_struct = x
    if scm.observation_stressors:
        # own stream, so the structural values do not depend on the stressors
        x = scm.observe(x, mask, np.random.default_rng([seed, 1]))
    return CellSample(x=x, x_structural=x_struct, intervention_mask=mask, regime=regime, exogenous=exo,
                      target_pool=np.asarray(pool, dtype=np.int64), seed=seed, n_obs=n_obs, n_int=n_int)


def make_dataset(spec, family: str, split: str, replicate: int, standardise: bool = True,
                 protocol: str = "default", n: Optional[int] = None, n_replicates: int = N_REPLICATES,
                 scm=None) -> Dataset:
    """Sample the dataset of one cell of the shared protocol.

    Args:
        spec: an :class:`causalarena.scm.SCMSpec`.
        family: family name (part of the seed).
        split: ``"obs"`` (n = 1000) or ``"obs_int"`` (800 + 200, App. B.1).
        replicate: 0 … n_replicates−1.
        standardise: z-score columns (default); raw otherwise.
        protocol: intervention protocol name (``"default"``: App. A.1).
        n: total rows (sample-size suites); default from the split.
        scm: ``spec`` already compiled (:meth:`SCMSpec.compile`), reused
            instead of compiling it again (an instance builds 10 tables from
            one spec); the tables are the same either way.

    Returns:
        A :class:`Dataset` (n × d) with masks, regime, true adjacency and
        metadata (seed, factors, varsortability and R²-sortability of the raw
        data as shipped (:func:`raw_sortabilities`), target pool).

    Raises:
        ValueError: unknown split, replicate out of range.
        FloatingPointError: the SCM produced non-finite values (names the columns).
    """
    if not 0 <= int(replicate) < n_replicates:
        raise ValueError(f"replicate {replicate} out of range 0..{n_replicates - 1} for {spec.id!r}")
    cell = sample_cell(spec, family, split, replicate, protocol, n, scm=scm)
    x = cell.x
    if not np.all(np.isfinite(x)):
        bad = [spec.names[j] for j in np.flatnonzero(~np.isfinite(x).all(axis=0))]
        raise FloatingPointError(f"SCM {spec.id!r} produced non-finite values in {bad}")
    adjacency = spec.adjacency()
    sortabilities = raw_sortabilities(x, adjacency)
    metadata = {
        "family": family,
        "scm_id": spec.id,
        "split": split,
        "replicate": int(replicate),
        "seed": cell.seed,
        "protocol": protocol if split != "obs" else None,
        "n_obs": cell.n_obs,
        "n_int": cell.n_int,
        "target_pool": [spec.names[i] for i in cell.target_pool],
        "standardised": bool(standardise),
        "varsortability": sortabilities["varsortability"],
        "r2_sortability": sortabilities["r2_sortability"],
        "factors": dict(spec.metadata),
    }
    if standardise:
        with np.errstate(invalid="ignore", divide="ignore"):  # tiny n: a constant column is left centred
            x = standardise_fn(x)
    return Dataset(X=x, columns=spec.names,
                   intervention_mask=cell.intervention_mask, regime=cell.regime, true_adjacency=adjacency,
                   metadata=metadata)


standardise_fn = standardise
