"""Intervention protocols; the default one is a built-in plugin.

The default protocol is the main obs+int split of the CausalArena paper
(App. A.1 "Interventions"; App. A.2 "Default resampling"): 800 observational
rows + 200 interventional rows, one target per interventional row chosen by
balanced assignment from the SCM's target pool, a hard do-intervention whose
value is drawn uniformly within the target's observational 10th–90th
percentile range, the binary intervention mask recorded, and all
descendants recomputed in the same pass.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence, Tuple

import numpy as np

from .hookspecs import hookimpl
from .records import InterventionInfo

#: target-pool size ranges by dimension, App. A.1: (min, max) inclusive
POOL_SIZE_BY_D = {10: (2, 4), 20: (3, 6), 30: (4, 8), 50: (5, 12), 100: (8, 20)}


def pool_size_range(d: int) -> Tuple[int, int]:
    """Target-pool size range for dimension ``d`` (App. A.1).

    The paper gives d ∈ {10, 20, 30, 50, 100}; other ``d`` use the closest
    listed dimension at or below it (d < 10: 1–max(1, d // 3)).
    """
    if d < 10:
        return (1, max(1, d // 3))
    key = max(k for k in POOL_SIZE_BY_D if k <= d)
    return POOL_SIZE_BY_D[key]


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
    digest = hashlib.sha256(f"target-pool\x1f{seed_text}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    lo, hi = pool_size_range(spec.d)
    size = min(int(rng.integers(lo, hi + 1)), eligible.size)
    return np.sort(rng.choice(eligible, size=size, replace=False))


def balanced_assignment(pool: Sequence[int], n_int: int, rng: np.random.Generator) -> np.ndarray:
    """One target per interventional row; counts differ by at most one.

    Returns:
        (n_int,) int array of node indices, in random row order.
    """
    pool = np.asarray(pool, dtype=np.int64)
    targets = np.resize(rng.permutation(pool), n_int)
    rng.shuffle(targets)
    return targets


def hard_resampling(scm, n_obs: int, n_int: int, rng: np.random.Generator,
                    target_pool: Sequence[int]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Default protocol: hard do-resampling within the 10th–90th percentile.

    Args:
        scm: a compiled :class:`causalarena.scm.SCM` with ``d`` nodes.
        n_obs, n_int: observational and interventional row counts.
        rng: the cell's generator.
        target_pool: node indices eligible as targets.

    Returns:
        ``X`` (n × d) float, ``intervention_mask`` (n × d) bool, ``regime``
        (n,) int (−1 observational, else the target index); rows
        ``[0, n_obs)`` are observational.

    Source: CausalArena paper, App. A.1 "Interventions" and App. A.2.
    """
    n = n_obs + n_int
    exo = scm.draw_exogenous(n, rng)
    baseline = scm.propagate(exo[:n_obs])
    pool = np.asarray(target_pool, dtype=np.int64)
    q10, q90 = np.percentile(baseline[:, pool], [10, 90], axis=0)
    low = dict(zip(pool.tolist(), q10))
    high = dict(zip(pool.tolist(), q90))
    targets = balanced_assignment(pool, n_int, rng)
    rows = np.arange(n_obs, n)
    mask = np.zeros((n, scm.d), dtype=bool)
    mask[rows, targets] = True
    values = np.zeros((n, scm.d))
    lo = np.array([low[t] for t in targets])
    hi = np.array([high[t] for t in targets])
    values[rows, targets] = rng.uniform(lo, hi)
    x = scm.propagate(exo, mask, values)
    regime = np.full(n, -1, dtype=np.int64)
    regime[rows] = targets
    return x, mask, regime


@hookimpl
def arena_interventions() -> Iterable[InterventionInfo]:
    yield InterventionInfo(
        name="default",
        factory="causalarena.interventions:hard_resampling",
        n_obs=800,
        n_int=200,
        description="hard do-resampling in the 10th-90th percentile, one balanced target per row (App. A.1)",
    )
