"""A hand-built store of effect-estimation runs whose every report number is known (CausalIDView report tests).

Runs are written with ``Store.record(row, **EffectTask().keep(row, (EffectPrediction, EffectOracle)))``
like the runner does; each run's metrics are the core's own functions of its
estimate (:mod:`arena_task_effect.effect`), so a stored sPEHE² is the estimate's.
Every estimate is τ + e with a chosen error vector e at q = 4 queries
(ids 10–13), so sPEHE² = mean e², its mean-effect part (mean e)² and its
centred part mean (e − mean e)².

Two worlds (``w0``: τ = 1, 2, 3, 4; ``w1``: τ = 0, 1, 0, 1) of family
``causalidview``, methods

* ``dr`` on every view; ``sl`` on bd and hc only (fd, iv, px ``unsupported``;
  one hc run of ``w1`` ``timeout``); ``sl``'s bd unit of ``w0`` averages two
  replicates (sPEHE² 1 and 0);
* Stay / Move variants of ``dr`` on bd (both worlds) and a Stay run of ``sl``
  on bd (``w0``, replicate 0), the Stay estimates stored in reversed query
  order (the report aligns by id);
* ``dr`` on bd at context size 100 (``n_override``) next to the default 1024;
* ``bl`` on ``causalidview_pi`` (pi_manski, pi_msm_1, pi_msm_2);
* ``dr`` on ``effect_real`` dataset ``ihdp``, bd and hc, three replicates.

:data:`EXPECTED` holds the hand-computed answers the tests assert.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Dict, Optional, Sequence

import numpy as np

from arena_task_effect.effect import (
    EffectOracle,
    EffectPrediction,
    bound_rmse,
    bound_width,
    centred_cate_error,
    containment,
    mean_effect_error,
    spehe2,
)
from causalarena.runs import RunRecord
from causalarena.store import Store

IDS = np.array([10, 11, 12, 13])
TAU = {"w0": np.array([1.0, 2.0, 3.0, 4.0]), "w1": np.array([0.0, 1.0, 0.0, 1.0])}

#: (method, view, world, replicate) -> error vector e of the original variant's estimate τ̂ = τ + e
ERRORS = {
    ("dr", "bd", "w0", 0): [0.5, 0.5, 0.5, 0.5],     # 0.25 = 0.25 + 0
    ("dr", "bd", "w1", 0): [1, -1, 1, -1],           # 1 = 0 + 1
    ("dr", "fd", "w0", 0): [0, 0, 0, 0],             # 0
    ("dr", "fd", "w1", 0): [0.5, -0.5, 0.5, -0.5],   # 0.25 = 0 + 0.25
    ("dr", "iv", "w0", 0): [2, 2, 2, 2],             # 4 = 4 + 0
    ("dr", "iv", "w1", 0): [2, 2, 2, 2],             # 4
    ("dr", "px", "w0", 0): [1, 0, 0, -1],            # 0.5 = 0 + 0.5
    ("dr", "px", "w1", 0): [1, 0, 0, -1],            # 0.5
    ("dr", "hc", "w0", 0): [1, 1, 1, 1],             # 1 = 1 + 0
    ("dr", "hc", "w1", 0): [2, 0, 2, 0],             # 2 = 1 + 1
    ("sl", "bd", "w0", 0): [1, 1, 1, 1],             # 1
    ("sl", "bd", "w0", 1): [0, 0, 0, 0],             # 0   -> the w0 unit is 0.5 = 0.5 + 0
    ("sl", "bd", "w1", 0): [0, 0, 0, 2],             # 1 = 0.25 + 0.75
    ("sl", "hc", "w0", 0): [3, 3, 3, 3],             # 9
    ("sl", "hc", "w1", 0): [1, 1, 1, 1],             # 1
}

EXPECTED = {
    # view x method: mean over worlds of (spehe2, mean-effect, centred), SD of spehe2 over worlds
    "view_method": {
        ("bd", "dr"): (0.625, 0.125, 0.5, math.sqrt(0.5 * 0.75 ** 2)),
        ("bd", "sl"): (0.75, 0.375, 0.375, math.sqrt(0.5 * 0.5 ** 2)),
        ("fd", "dr"): (0.125, 0.0, 0.125, math.sqrt(0.5 * 0.25 ** 2)),
        ("iv", "dr"): (4.0, 4.0, 0.0, 0.0),
        ("px", "dr"): (0.5, 0.0, 0.5, 0.0),
        ("hc", "dr"): (1.5, 1.0, 0.5, math.sqrt(0.5)),
        ("hc", "sl"): (5.0, 5.0, 0.0, math.sqrt(32.0)),
    },
    # stay: w0 (0.01 + 0.01 + 0.04 + 0) / 4 = 0.015, w1 0.4² / 4 = 0.04; move: w0 (0.04 + 0.04) / 4 = 0.02, w1 0
    "stay_move": {("dr", "bd"): (0.0275, 0.01, 2, 2), ("sl", "bd"): (1.0, math.nan, 1, 0)},
    # bd, hc, difference, ratio, pairs
    "hc": {("causalidview", "dr"): (0.625, 1.5, 0.875, 2.4, 2), ("causalidview", "sl"): (0.75, 5.0, 4.25, 5 / 0.75, 2),
           ("effect_real: ihdp", "dr"): (2.0, 5.0, 3.0, 2.5, 3)},
    # (method, view) -> bound_rmse, containment, bound_width (means over the two worlds)
    "bounds": {("bl", "pi_manski"): (0.2, 1.0, 3.6), ("bl", "pi_msm_1"): (0.2, 0.5, 0.1),
               ("bl", "pi_msm_2"): (0.4, 1.0, 0.2)},
    # ihdp: spehe2 mean, SD over the three replicates
    "real": {("bd", "dr"): (2.0, 1.0), ("hc", "dr"): (5.0, math.sqrt(13.0))},
    # context: (view, method, n_context) -> mean spehe2
    "context": {("bd", "dr", 1024): 0.625, ("bd", "dr", 100): 1.5},
}


def _hash(*parts) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:16]


def _record(store: Store, *, family: str, scm_id: str, view: str, replicate: int, method: str, factors: Dict,
            tau: np.ndarray, cate: Optional[np.ndarray] = None, lower=None, upper=None, tau_lower=None,
            tau_upper=None, order: Optional[Sequence[int]] = None, n: int = 1024, n_override: Optional[int] = None,
            status: str = "ok", error: Optional[str] = None, when: str = "2026-01-01T00:00:00") -> None:
    row = RunRecord(family=family, scm_id=scm_id, split=view, replicate=replicate, method=method,
                    config_hash=_hash(family, scm_id, method, n_override), status=status, wall_seconds=0.5,
                    fit_seconds=0.4, n=n, d=3, seed=replicate, standardise=True, protocol="default",
                    output_kind="effect", factors=factors, metrics={}, task="effect", n_override=n_override,
                    error=error, started_at=when, finished_at=when)
    if status != "ok":
        store.record(row)
        return
    idx = np.arange(len(IDS)) if order is None else np.asarray(order)
    oracle = EffectOracle(query_ids=IDS[idx], tau=tau[idx],
                          lower=None if tau_lower is None else tau_lower[idx],
                          upper=None if tau_upper is None else tau_upper[idx])
    pred = EffectPrediction(cate=None if cate is None else np.asarray(cate, dtype=float)[idx],
                            lower=None if lower is None else lower[idx], upper=None if upper is None else upper[idx])
    metrics = {}
    for name, fn in (("spehe2", spehe2), ("mean_effect_error", mean_effect_error),
                     ("centred_cate_error", centred_cate_error), ("bound_rmse", bound_rmse),
                     ("containment", containment), ("bound_width", bound_width)):
        value = fn(oracle, pred)
        metrics[name] = None if value is None else float(value)
    row.metrics = metrics
    from arena_task_effect.task import EffectTask

    store.record(row, **EffectTask().keep(row, (pred, oracle)))


def add_effect_runs(path: Path) -> None:
    """Write the effect runs of the module docstring into the store at ``path`` (created if absent)."""
    with Store(str(path)) as store:
        for (method, view, world, rep), e in ERRORS.items():
            tau = TAU[world]
            _record(store, family="causalidview", scm_id=world, view=view, replicate=rep, method=method,
                    factors={"effect_family": "causalidview", "world": world, "variant": "original"},
                    tau=tau, cate=tau + np.asarray(e, dtype=float))
        for view in ("fd", "iv", "px"):
            for world in ("w0", "w1"):
                _record(store, family="causalidview", scm_id=world, view=view, replicate=0, method="sl",
                        factors={"world": world, "variant": "original"}, tau=TAU[world], status="unsupported",
                        error=f"method 'sl' supports the view(s) bd, hc; {view!r} is missing (not a failure)")
        _record(store, family="causalidview", scm_id="w1", view="hc", replicate=1, method="sl",
                factors={"world": "w1", "variant": "original"}, tau=TAU["w1"], status="timeout",
                error="timeout after 600 s")
        # Stay / Move variants (scm ids of their own, world shared); the Stay estimates in reversed query order
        stay = {("dr", "w0", 0): [0.1, -0.1, 0.2, 0.0], ("dr", "w1", 0): [0.0, 0.0, 0.0, 0.4],
                ("sl", "w0", 0): [1.0, 1.0, 1.0, 1.0]}
        for (method, world, rep), d in stay.items():
            tau = TAU[world]
            cate = tau + np.asarray(ERRORS[(method, "bd", world, rep)]) + np.asarray(d)
            _record(store, family="causalidview", scm_id=f"{world}-stay", view="bd", replicate=rep, method=method,
                    factors={"world": world, "variant": "stay"}, tau=tau, cate=cate, order=[3, 2, 1, 0])
        move = {("dr", "w0", 0): [0.2, 0.0, 0.0, -0.2], ("dr", "w1", 0): [0.0, 0.0, 0.0, 0.0]}
        for (method, world, rep), d in move.items():
            tau = TAU[world]
            # τ_move = 2 τ: the estimate tracks the change τ up to d
            cate = tau + np.asarray(ERRORS[(method, "bd", world, rep)]) + tau + np.asarray(d)
            _record(store, family="causalidview", scm_id=f"{world}-move", view="bd", replicate=rep, method=method,
                    factors={"world": world, "variant": "move"}, tau=2 * tau, cate=cate)
        # context length: dr on bd at n = 100 (sPEHE² 1 on w0, 2 on w1)
        for world, e in (("w0", [1, 1, 1, 1]), ("w1", [2, 0, 2, 0])):
            _record(store, family="causalidview", scm_id=world, view="bd", replicate=0, method="dr",
                    factors={"world": world, "variant": "original"}, tau=TAU[world],
                    cate=TAU[world] + np.asarray(e, dtype=float), n=100, n_override=100)
        # bounds: oracle [τ − g, τ + g]; estimates shifted inwards / outwards by the chosen amounts
        for view, g, shifts in (("pi_manski", 2.0, {"w0": (0.3, -0.3), "w1": (0.1, -0.1)}),
                                ("pi_msm_1", 0.0, {"w0": (0.3, 0.3), "w1": (-0.1, 0.1)}),
                                ("pi_msm_2", 0.5, {"w0": (0.3, -0.3), "w1": (0.5, -0.5)})):
            for world, (dl, du) in shifts.items():
                tau = TAU[world]
                lo, hi = tau - g, tau + g
                _record(store, family="causalidview_pi", scm_id=world, view=view, replicate=0, method="bl",
                        factors={"world": world}, tau=tau, lower=lo + dl, upper=hi + du, tau_lower=lo, tau_upper=hi)
        # IHDP: e = a (1, 1, 1, 1), sPEHE² = a²
        for view, squares in (("bd", (1.0, 2.0, 3.0)), ("hc", (2.0, 4.0, 9.0))):
            for rep, sq in enumerate(squares):
                tau = TAU["w0"]
                _record(store, family="effect_real", scm_id="ihdp", view=view, replicate=rep, method="dr",
                        factors={"dataset": "ihdp"}, tau=tau, cate=tau + math.sqrt(sq), n=672)
