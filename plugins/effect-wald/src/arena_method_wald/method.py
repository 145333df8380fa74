"""The conditional Wald CATE estimator for a binary instrument (CausalIDView App. E.2.2 "Instrumental variable",
Algorithm 4).

No library implements this plug-in ratio with arbitrary backbones (econml's IV
learners — DRIV, OrthoIV — fit a residualised final stage instead, not the
unfloored Wald ratio of two conditional contrasts), so the ratio is own code;
both supervised models are backbones of :mod:`arena_effect_backbones`.

Identification (App. B.3): with I ⊥ {Y(t), T(i)} | X, exclusion, relevance
E[T | I=1, x] ≠ E[T | I=0, x], monotonicity and the benchmark's within-X gain
invariance Y(1) − Y(0) = τ₀(X),

    τ(x) = Δ_Y(x) / Δ_T(x),   Δ_Y(x) = E[Y | I=1, x] − E[Y | I=0, x],
                              Δ_T(x) = E[T | I=1, x] − E[T | I=0, x]             (Wald)

(derivation in the README). Estimation: a backbone regressor of Y on (X, I)
(reduced form) and a backbone classifier of T on (X, I) (first stage), each
fitted once on the full context (no cross-fitting); both are evaluated at
every query with I set to 0 and to 1. The first-stage sign is kept; there is
no denominator floor, epsilon, fallback or clipping: where |Δ̂_T(x)| ≤ 1e-12
the estimate is undefined (NaN), and the run fails the core's finiteness
check (``check_effect_output`` → ``invalid_output``), the paper's rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena_effect_backbones import binary_column
from arena_task_effect.effect import EffectDataset, EffectMethod

#: |Δ_T(x)| at or below this leaves τ̂(x) undefined (App. E.2.2)
FIRST_STAGE_TOL = 1e-12


def wald_ratio(delta_y: Any, delta_t: Any, tol: float = FIRST_STAGE_TOL) -> np.ndarray:
    """τ̂(x) = Δ̂_Y(x) / Δ̂_T(x), NaN where |Δ̂_T(x)| ≤ ``tol`` (App. E.2.2; no floor, no clipping).

    Args:
        delta_y: (q,) reduced-form contrasts Ê[Y | I=1, x] − Ê[Y | I=0, x] (outcome units).
        delta_t: (q,) first-stage contrasts P̂(T=1 | I=1, x) − P̂(T=1 | I=0, x), sign kept.
        tol: the undefined threshold (1e-12, the paper's).

    Returns:
        (q,) float τ̂ (outcome units per unit of treatment), NaN where undefined.
    """
    dy, dt = np.asarray(delta_y, dtype=float), np.asarray(delta_t, dtype=float)
    out = np.full(np.broadcast(dy, dt).shape, np.nan)
    ok = np.abs(dt) > tol
    np.divide(dy, dt, out=out, where=ok)
    return out


class ConditionalWald(EffectMethod):
    """Conditional Wald ratio of a reduced-form regressor and a first-stage classifier (CausalIDView App. E.2.2).

    Parameters:
        backbone: ``"xgboost"``, ``"extratrees"`` or ``"mlp"`` (:mod:`arena_effect_backbones`).
        seed: random state of both models.

    After ``fit``: ``cate_`` (q,) τ̂ at ``dataset.X_query`` (NaN where |Δ̂_T| ≤ 1e-12);
    ``delta_y_`` and ``delta_t_`` (q,) the two contrasts.
    """

    def __init__(self, backbone: str = "xgboost", seed: int = 0) -> None:
        self.backbone = backbone
        self.seed = seed

    @classmethod
    def preload(cls, backbone: str = "xgboost") -> None:
        """Import the backbone's library once per worker."""
        from arena_effect_backbones import make_classifier, make_regressor

        make_regressor(backbone)
        make_classifier(backbone)

    def fit(self, dataset: EffectDataset) -> "ConditionalWald":
        """Estimate τ(x) at ``dataset.X_query`` from the context (X, I, T, Y).

        Raises:
            ValueError: no single binary ``instrument`` column, or an unknown backbone.
        """
        from arena_effect_backbones import make_classifier, make_regressor

        instrument = binary_column(dataset, "instrument", who="conditional Wald", allow_constant=True)
        XI = np.column_stack([dataset.X, instrument])
        seed = int(self.seed)
        reduced = make_regressor(self.backbone, seed).fit(XI, dataset.Y)
        first = make_classifier(self.backbone, seed).fit(XI, dataset.T)
        Xq = dataset.X_query
        at = {i: np.column_stack([Xq, np.full(len(Xq), float(i))]) for i in (0, 1)}
        self.delta_y_ = np.asarray(reduced.predict(at[1]), float) - np.asarray(reduced.predict(at[0]), float)
        self.delta_t_ = first.predict_proba(at[1])[:, 1] - first.predict_proba(at[0])[:, 1]
        self.cate_ = wald_ratio(self.delta_y_, self.delta_t_)
        return self
