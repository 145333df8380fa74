"""The front-door plug-in CATE estimator (CausalIDView App. E.2.2 "Front-door", Algorithm 3).

No library implements this procedure (econml and DoWhy have no conditional
front-door CATE estimator with a residual-pool mediator law), so the causal
step is own code; every supervised model is a backbone of
:mod:`arena_effect_backbones` (App. E.2.2 settings).

Identification (App. B.2; Pearl 2022, Guo et al. 2023). With M intercepting
every directed path T → Y, no open back-door path T ↔ M given X, and every
back-door path M ↔ Y blocked by (T, X), the conditional front-door functional
is

    E[Y(t) | X=x] = ∫ p(m | T=t, x) Σ_{t'} P(T=t' | x) E[Y | M=m, T=t', x] dm,      (FD)

and τ(x) = E[Y(1) | x] − E[Y(0) | x] (derivation in the README).

Estimation (App. E.2.2):

1. propensity ê(x) = P̂(T=1 | x): backbone classifier on X (full context);
2. mediator mean μ̂(t, x) = Ê[M | T=t, X=x]: backbone regressor on (X, T) per
   mediator column, fitted on the full context for the queries; the residuals
   r_j = M_j − μ̂^{(−k(j))}(T_j, X_j) come from K-fold cross-fitted copies (unit j
   predicted by the model that did not see its fold) and are centred,
   r_j ← r_j − mean(r);
3. outcome regression ĝ(m, t, x) = Ê[Y | M=m, T=t, X=x]: backbone regressor on
   (X, M, T), full context;
4. the mediator law in arm t at x is the location-shifted pool
   {μ̂(t, x) + r_j}_{j=1..n}, so (FD) becomes the deterministic average

    Ê[Y(t) | x] = (1/n) Σ_j Σ_{t'} P̂(T=t' | x) ĝ(μ̂(t, x) + r_j, t', x)             (FD-hat)

   over the whole pool (no Monte Carlo), and τ̂(x) = Ê[Y(1)|x] − Ê[Y(0)|x].

Query input: X only; the factual query mediator is never used (it is
post-treatment: conditioning a total effect on it would be wrong).
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from arena_task_effect.effect import EffectDataset, EffectMethod


def _mediator(dataset: EffectDataset) -> np.ndarray:
    """The context mediator (n × k), checked finite. Raises ValueError naming the field."""
    if "mediator" not in dataset.auxiliary:
        raise ValueError(f"front-door needs auxiliary['mediator']; view {dataset.view!r} carries "
                         f"{dataset.roles or 'no auxiliary role'}")
    M = np.asarray(dataset.auxiliary["mediator"], dtype=float)
    if not np.isfinite(M).all():
        raise ValueError("front-door needs a finite auxiliary['mediator'] (found NaN/inf)")
    return M


def residual_pool(features: np.ndarray, M: np.ndarray, folds: int, make: Any, seed: int) -> np.ndarray:
    """Centred out-of-fold mediator residuals (App. E.2.2 "Front-door", step 2).

    Args:
        features: (n × p′) inputs of the mediator model, here (X, T).
        M: (n × k) mediator.
        folds: K ≥ 2 folds (scikit-learn ``KFold``, shuffled with ``seed``).
        make: ``make(seed) -> regressor`` (a fresh backbone per fold and column).
        seed: fold shuffling seed.

    Returns:
        (n × k) residuals r_j = M_j − μ̂^{(−k(j))}(features_j), centred column-wise
        so that the shifted pool has the predicted mean exactly.

    Raises:
        ValueError: ``folds`` < 2 or more folds than units.
    """
    from sklearn.model_selection import KFold

    n = M.shape[0]
    if not 2 <= int(folds) <= n:
        raise ValueError(f"folds must be between 2 and n = {n}, got {folds}")
    R = np.empty_like(M, dtype=float)
    for train, test in KFold(int(folds), shuffle=True, random_state=seed).split(features):
        for j in range(M.shape[1]):
            R[test, j] = M[test, j] - make(seed).fit(features[train], M[train, j]).predict(features[test])
    return R - R.mean(axis=0, keepdims=True)


def frontdoor_functional(outcome: Any, Xq: np.ndarray, mu: Dict[int, np.ndarray], e1: np.ndarray,
                         R: np.ndarray, chunk_rows: int = 200_000) -> Dict[int, np.ndarray]:
    """(FD-hat): Ê[Y(t) | x_i] for t = 0, 1 at each query, averaging the whole residual pool.

    Args:
        outcome: fitted ``predict((m × (p + k + 1)) [X, M, T]) -> (m,)`` outcome model.
        Xq: (q × p) query covariates.
        mu: t → (q × k) predicted mediator means μ̂(t, x_i).
        e1: (q,) propensities P̂(T=1 | x_i).
        R: (n × k) centred residual pool.
        chunk_rows: prediction rows per call (memory bound; the result does not depend on it).

    Returns:
        t → (q,) Ê[Y(t) | x_i] (outcome units).
    """
    q, p = Xq.shape
    n, k = R.shape
    per_query = 4 * n  # (arm t, reference t') × pool
    step = max(1, int(chunk_rows) // per_query)
    out = {0: np.empty(q), 1: np.empty(q)}
    for start in range(0, q, step):
        idx = np.arange(start, min(q, start + step))
        blocks, keys = [], []
        for t in (0, 1):
            m = (mu[t][idx][:, None, :] + R[None, :, :]).reshape(-1, k)  # (len(idx)·n × k)
            x = np.repeat(Xq[idx], n, axis=0)
            for tp in (0, 1):
                blocks.append(np.hstack([x, m, np.full((len(m), 1), float(tp))]))
                keys.append((t, tp))
        pred = np.asarray(outcome.predict(np.vstack(blocks)), dtype=float).reshape(len(keys), len(idx), n).mean(axis=2)
        g = {key: pred[i] for i, key in enumerate(keys)}
        for t in (0, 1):
            out[t][idx] = (1.0 - e1[idx]) * g[(t, 0)] + e1[idx] * g[(t, 1)]
    return out


class FrontDoorPlugin(EffectMethod):
    """Front-door plug-in CATE with a cross-fitted residual-pool mediator law (CausalIDView App. E.2.2).

    Parameters:
        backbone: ``"xgboost"``, ``"extratrees"`` or ``"mlp"`` (:mod:`arena_effect_backbones`), used
            for the propensity classifier, the mediator regressions and the outcome regression.
        folds: K of the mediator-residual cross-fitting (default 5).
        seed: random state of every model and of the fold split.
        chunk_rows: rows per outcome-model prediction call (memory only).

    After ``fit``: ``cate_`` (q,) τ̂ at ``dataset.X_query``; ``potential_`` t → (q,) Ê[Y(t) | x];
    ``propensity_`` (q,) P̂(T=1 | x); ``mediator_mean_`` t → (q × k); ``residuals_`` (n × k) pool.
    """

    def __init__(self, backbone: str = "xgboost", folds: int = 5, seed: int = 0, chunk_rows: int = 200_000) -> None:
        self.backbone = backbone
        self.folds = folds
        self.seed = seed
        self.chunk_rows = chunk_rows

    @classmethod
    def preload(cls, backbone: str = "xgboost") -> None:
        """Import the backbone's library once per worker."""
        from arena_effect_backbones import make_classifier, make_regressor

        make_regressor(backbone)
        make_classifier(backbone)

    def fit(self, dataset: EffectDataset) -> "FrontDoorPlugin":
        """Estimate τ(x) at ``dataset.X_query`` from the context (X, T, M, Y).

        Raises:
            ValueError: no ``mediator`` role, a non-finite mediator, an unknown backbone,
                or ``folds`` outside [2, n] (the message names the field).
        """
        from arena_effect_backbones import make_classifier, make_regressor

        M = _mediator(dataset)
        X, T, Y, Xq = dataset.X, dataset.T.astype(float), dataset.Y, dataset.X_query
        seed, bb = int(self.seed), self.backbone
        make_regressor(bb)  # unknown backbone: ValueError before any fit

        # 1. propensity P(T=1 | x), full context
        self.propensity_ = make_classifier(bb, seed).fit(X, dataset.T).predict_proba(Xq)[:, 1]
        # 2. mediator: cross-fitted residual pool; full-context means at the queries
        XT = np.column_stack([X, T])
        self.residuals_ = residual_pool(XT, M, self.folds, lambda s: make_regressor(bb, s), seed)
        self.mediator_mean_: Dict[int, np.ndarray] = {}
        models = [make_regressor(bb, seed).fit(XT, M[:, j]) for j in range(M.shape[1])]
        for t in (0, 1):
            Xqt = np.column_stack([Xq, np.full(len(Xq), float(t))])
            self.mediator_mean_[t] = np.column_stack([mdl.predict(Xqt) for mdl in models])
        # 3. outcome regression E[Y | M, T, X], full context
        outcome = make_regressor(bb, seed).fit(np.column_stack([X, M, T]), Y)
        # 4. the front-door average over the whole pool
        self.potential_ = frontdoor_functional(outcome, Xq, self.mediator_mean_, self.propensity_,
                                               self.residuals_, self.chunk_rows)
        self.cate_ = self.potential_[1] - self.potential_[0]
        return self
