"""The shared protocol: splits, replicates, seeds, standardisation.

CausalArena paper §4.5 and App. B.1: two matched splits per SCM, obs-only
(n = 1000) and obs+int (800 observational + 200 interventional rows, masks
shipped), 5 replicates, seeds derived from the cell so that every method sees
byte-identical data, standardised inputs by default (raw available for the
varsortability study, Reisach et al. 2021).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Optional, Tuple

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


def varsortability(x: np.ndarray, adjacency: np.ndarray, tol: float = 1e-9) -> Optional[float]:
    """Fraction of directed paths along which marginal variance increases.

    Reisach, Seiler & Weichwald (2021), "Beware of the Simulated DAG", Def. 1:
    sum over path lengths k = 1 … d−1 of the ordered pairs (i, j) joined by a
    directed path of length k with Var(X_i) < Var(X_j) (ties count ½), divided
    by the number of such (pair, k). 1 means sorting by variance recovers the
    causal order; 0.5 is chance. ``None`` for a graph without edges.

    Args:
        x: (n × d) raw (not standardised) samples.
        adjacency: (d × d) 0/1, row = parent.
    """
    e = np.asarray(adjacency) != 0
    var = np.nanvar(x, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = var[None, :] / var[:, None]  # [i, j] = Var(X_j) / Var(X_i)
    ek = e.copy()
    n_paths = 0.0
    n_sorted = 0.0
    for _ in range(e.shape[0] - 1):
        if not ek.any():
            break
        n_paths += ek.sum()
        n_sorted += (ek & (ratio > 1 + tol)).sum()
        n_sorted += 0.5 * (ek & (ratio <= 1 + tol) & (ratio > 1 - tol)).sum()
        ek = (ek.astype(np.int64) @ e.astype(np.int64)) > 0
    return None if n_paths == 0 else float(n_sorted / n_paths)


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


@functools.lru_cache(maxsize=None)
def _protocol(name: str):
    from .records import InterventionInfo

    if name == "default":
        from .interventions import hard_resampling

        return InterventionInfo(name="default", factory="causalarena.interventions:hard_resampling"), hard_resampling
    from .plugins import get_registry

    info = get_registry().intervention(name)
    return info, info.load()


def make_dataset(spec, family: str, split: str, replicate: int, standardise: bool = True,
                 protocol: str = "default", n: Optional[int] = None, n_replicates: int = N_REPLICATES) -> Dataset:
    """Sample the dataset of one cell of the shared protocol.

    Args:
        spec: an :class:`causalarena.scm.SCMSpec`.
        family: family name (part of the seed).
        split: ``"obs"`` (n = 1000) or ``"obs_int"`` (800 + 200, App. B.1).
        replicate: 0 … n_replicates−1.
        standardise: z-score columns (default); raw otherwise.
        protocol: intervention protocol name (``"default"``: App. A.1).
        n: total rows (sample-size suites); default from the split.

    Returns:
        A :class:`Dataset` (n × d) with masks, regime, true adjacency and
        metadata (seed, factors, varsortability of the raw data, target pool).

    Raises:
        ValueError: unknown split, replicate out of range.
    """
    if not 0 <= int(replicate) < n_replicates:
        raise ValueError(f"replicate {replicate} out of range 0..{n_replicates - 1} for {spec.id!r}")
    seed = cell_seed(family, spec.id, split, replicate)
    rng = np.random.default_rng(seed)
    scm = spec.compile()
    pool: list = []
    if split == "obs":
        n_obs, n_int = split_sizes(split, n)
        x = scm.sample(n_obs, rng)
        mask = np.zeros_like(x, dtype=bool)
        regime = np.full(n_obs, -1, dtype=np.int64)
    else:
        from .interventions import default_target_pool

        info, apply = _protocol(protocol)
        n_obs, n_int = split_sizes(split, n, info.n_obs, info.n_int)
        pool_idx = default_target_pool(scm, spec.id)
        pool = [spec.names[i] for i in pool_idx]
        x, mask, regime = apply(scm, n_obs, n_int, rng, pool_idx)
    raw_vs = varsortability(x, spec.adjacency())
    if not np.all(np.isfinite(x)):
        bad = [spec.names[j] for j in np.flatnonzero(~np.isfinite(x).all(axis=0))]
        raise FloatingPointError(f"SCM {spec.id!r} produced non-finite values in {bad}")
    metadata = {
        "family": family,
        "scm_id": spec.id,
        "split": split,
        "replicate": int(replicate),
        "seed": seed,
        "protocol": protocol if split != "obs" else None,
        "n_obs": n_obs,
        "n_int": n_int,
        "target_pool": pool,
        "standardised": bool(standardise),
        "varsortability": raw_vs,
        "factors": dict(spec.metadata),
    }
    return Dataset(X=standardise_fn(x) if standardise else x, columns=spec.names, intervention_mask=mask,
                   regime=regime, true_adjacency=spec.adjacency(), metadata=metadata)


standardise_fn = standardise
