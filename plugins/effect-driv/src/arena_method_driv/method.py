"""ForestDRIV (Syrgkanis et al. 2019) from econml 0.17 on the ``iv`` view.

Setting (CausalIDView App. B.3, E.2.3): binary treatment T, binary instrument
I = ``dataset.auxiliary["instrument"]``, effect modifiers X. Under the view's
assumptions (exogeneity, exclusion, relevance, monotonicity and the benchmark's
within-X gain invariance Y(1) − Y(0) = τ₀(X)) the CATE is the conditional Wald
ratio τ(x) = (E[Y | I=1, x] − E[Y | I=0, x]) / (E[T | I=1, x] − E[T | I=0, x]).

DRIV (Syrgkanis et al. 2019, §4, their Eq. for the DRIV loss; derived in the
package README): with cross-fitted nuisances q̂(x) = E[Y | x], p̂(x) = E[T | x],
r̂(x) = E[I | x], the compliance β̂(x) = Cov(T, I | x) and a preliminary effect
θ̂_pre(x), the pseudo-outcome

    φᵢ = θ̂_pre(xᵢ) + (Ỹᵢ − θ̂_pre(xᵢ) T̃ᵢ) Ĩᵢ / β̂(xᵢ),
    Ỹ = Y − q̂(x), T̃ = T − p̂(x), Ĩ = I − r̂(x),

has conditional mean τ(x) when either set of nuisances is right; ForestDRIV
regresses φ on X with a generalised random forest (``RegressionForest``,
weighted by β̂² when ``opt_reweighted``; econml's default is unweighted).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from arena_effect_backbones import binary_column, resolve_seed
from arena_task_effect.effect import EffectDataset, EffectMethod


def binary_instrument(dataset: EffectDataset) -> np.ndarray:
    """The instrument as an (n,) array of its two levels, coded as in the dataset (e.g. standardised).

    Raises:
        ValueError: the view carries no instrument, or ``auxiliary['instrument']`` has more than
            one column or not exactly two distinct values (DRIV's discrete instrument is binary).
    """
    return binary_column(dataset, "instrument", who="ForestDRIV (iv view)", recode=False)


class ForestDRIVMethod(EffectMethod):
    """ForestDRIV: ``econml.iv.dr.ForestDRIV(discrete_treatment=True, discrete_instrument=True)``.

    Parameters (econml 0.17 defaults unless noted; the paper, App. E.2.3, states none):
        n_estimators: trees of the final GRF (1000).
        min_samples_leaf: leaf size of the final GRF (5).
        cv: cross-fitting folds of the nuisances (2).
        n_jobs: 1 (econml's default is -1 = every core; the estimate does not depend on it).
        nuisance_model: econml's model specification for the nuisances ``model_y_xw``,
            ``model_t_xw``, ``model_z_xw`` and ``model_tz_xw`` (``model_t_xwz`` is not fitted
            with ``projection=False`` and econml requires it left at ``"auto"``; default ``"auto"``: for each nuisance the best-scoring of a set of linear and
            forest models, chosen by cross-validation; ``"linear"`` / ``"forest"`` fix one
            family and are much faster).
        random_state: seed of folds and forests; None = derived from numpy's global
            generator (:func:`resolve_seed`).

    Other settings are econml's: ``prel_cate_approach="driv"``,
    ``prel_cv=1``, ``projection=False``, ``fit_cov_directly=True``, ``cov_clip=1e-3``,
    ``honest=True``, ``max_samples=0.45``, ``subforest_size=4``, ``max_features="auto"``.
    If the view carries a ``confounder`` it enters as controls W (never as an effect
    modifier); the ``iv`` view carries none.

    After ``fit``: ``cate_`` (q,) τ̂(X_query) (outcome units), ``seed_``, ``estimator_``.
    """

    def __init__(self, n_estimators: int = 1000, min_samples_leaf: int = 5, cv: int = 2, n_jobs: int = 1,
                 nuisance_model: str = "auto", random_state: Optional[int] = None) -> None:
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.cv = cv
        self.n_jobs = n_jobs
        self.nuisance_model = nuisance_model
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import econml's IV estimators once per worker (load time, not the first fit)."""
        import econml.iv.dr  # noqa: F401

    def _estimator(self, seed: int) -> Any:
        from econml.iv.dr import ForestDRIV

        if not isinstance(self.nuisance_model, str):
            raise ValueError(f"ForestDRIVMethod.nuisance_model must be an econml model name such as 'auto', "
                             f"got {self.nuisance_model!r}")
        m = self.nuisance_model
        return ForestDRIV(model_y_xw=m, model_t_xw=m, model_z_xw=m, model_tz_xw=m,
                          discrete_treatment=True, discrete_instrument=True, n_estimators=int(self.n_estimators),
                          min_samples_leaf=int(self.min_samples_leaf), cv=int(self.cv), n_jobs=int(self.n_jobs),
                          random_state=seed)

    def fit(self, dataset: EffectDataset) -> "ForestDRIVMethod":
        """Fit on the context (X, T, Y, I) and set ``cate_`` (q,) = τ̂(X_query).

        Raises:
            ValueError: a bounds target (``EffectDataset.target``), a missing or non-binary
                instrument (``auxiliary['instrument']``), a bad ``random_state``; econml's
                errors (non-finite inputs, a weak instrument's failures) propagate.
        """
        if dataset.target != "cate":
            raise ValueError(f"ForestDRIV estimates a point CATE; EffectDataset.target is {dataset.target!r}")
        Z = binary_instrument(dataset)
        seed = resolve_seed(self.random_state, dataset)
        W = dataset.auxiliary.get("confounder")
        est = self._estimator(seed)
        est.fit(dataset.Y, dataset.T.astype(np.int64), Z=Z, X=dataset.X, W=W, inference=None)
        cate = np.asarray(est.effect(dataset.X_query, T0=0, T1=1), dtype=np.float64).reshape(-1)
        if cate.shape != (dataset.q,):
            raise RuntimeError(f"econml returned {cate.shape} effects for {dataset.q} query units")
        self.cate_, self.seed_, self.estimator_ = cate, seed, est
        return self
