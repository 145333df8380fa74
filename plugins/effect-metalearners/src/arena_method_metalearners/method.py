"""Back-door S-, X- and DR-learners (econml 0.17) on the backbones of :mod:`arena_effect_backbones`.

CausalIDView App. E.2.2 "Back-door": the learners adjust for the observed
vector V = (X, U) — in the ``bd`` view U is ``dataset.auxiliary["confounder"]``
and the factual query U is ``dataset.auxiliary_query["confounder"]``; the
learners do not marginalise over it. Their evaluation against τ₀(X) relies on
the benchmark's restriction E[Y(1) − Y(0) | X, U] = τ₀(X). In ``hc`` V = X
(no identification claim). Generic rule: V = X plus every auxiliary of role
``confounder`` the view carries; other roles (a post-treatment mediator, an
instrument, proxies) are never adjusted for.

Estimators (the formulas, derived in the package README; V is (n × p′)):

* S-learner (Künzel et al. 2019, §3): one regression ĝ(v, t) of Y on (V, T);
  τ̂(v) = ĝ(v, 1) − ĝ(v, 0).  (``econml.metalearners.SLearner``)
* X-learner (Künzel et al. 2019, §3, Eq. 4–6 of that paper): arm regressions
  μ̂₀, μ̂₁; imputed effects D¹ᵢ = Yᵢ − μ̂₀(Vᵢ) on the treated and
  D⁰ᵢ = μ̂₁(Vᵢ) − Yᵢ on the controls; CATE regressions τ̂₁ on D¹, τ̂₀ on D⁰;
  τ̂(v) = ê(v) τ̂₀(v) + (1 − ê(v)) τ̂₁(v) with ê the propensity.
  (``econml.metalearners.XLearner``)
* DR-learner (Kennedy 2023, §3): with K-fold cross-fitted nuisances μ̂(v, t)
  and ê(v), the pseudo-outcome
  φᵢ = μ̂(Vᵢ, 1) − μ̂(Vᵢ, 0) + (Tᵢ − ê(Vᵢ)) (Yᵢ − μ̂(Vᵢ, Tᵢ)) / (ê(Vᵢ)(1 − ê(Vᵢ)))
  is regressed on V; τ̂ is that final regression.  (``econml.dr.DRLearner``;
  its outcome nuisance μ̂ is one regression on (V, one-hot T).)
"""

from __future__ import annotations

from typing import Any, ClassVar, List, Optional, Tuple

import numpy as np

from arena_effect_backbones import resolve_seed
from arena_task_effect.effect import EffectDataset, EffectMethod

#: the roles a back-door learner adjusts for (pre-treatment confounders only; App. E.2.2)
ADJUSTMENT_ROLES = ("confounder",)


def adjustment_features(dataset: EffectDataset) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """The adjustment vector V at the context (n × p′) and at the queries (q × p′), and its column names.

    V = X followed by the columns of every role in :data:`ADJUSTMENT_ROLES` the view
    carries (``bd``: X and U, p′ = p + 1; ``hc``: X alone). The query rows use the
    factual auxiliary values ``auxiliary_query`` (App. E.2.2: no marginalisation over U).

    Raises:
        ValueError: the context carries a confounder the queries lack (field
            ``auxiliary_query['confounder']``).
    """
    roles = [r for r in ADJUSTMENT_ROLES if r in dataset.auxiliary]
    for role in roles:
        if role not in dataset.auxiliary_query:
            raise ValueError(f"EffectDataset.auxiliary_query[{role!r}] is missing: the context carries the "
                             f"{role} but the query units do not (a back-door learner needs it at the queries)")
    names = list(dataset.columns.get("covariates", [])) + [c for r in roles for c in dataset.columns.get(r, [])]
    return dataset.features(roles), dataset.features(roles, query=True), names


def check_point_target(dataset: EffectDataset, who: str) -> None:
    """Raise ValueError (naming ``EffectDataset.target``) unless the dataset asks for a point CATE."""
    if dataset.target != "cate":
        raise ValueError(f"{who} estimates a point CATE; EffectDataset.target is {dataset.target!r} "
                         f"(a bounds view, assumption {dataset.assumption!r})")


class _BackdoorLearner(EffectMethod):
    """Common part of the three learners: backbone check, seed, adjustment vector, prediction.

    Parameters:
        backbone: ``"xgboost"``, ``"extratrees"`` or ``"mlp"`` (:mod:`arena_effect_backbones`).
        random_state: seed of every backbone (and of the DR folds); None = derived
            from numpy's global generator (:func:`resolve_seed`).

    After ``fit``: ``cate_`` (q,) τ̂ at the query units (outcome units), ``seed_`` the
    seed used, ``adjustment_`` the names of V's columns, ``estimator_`` the fitted
    econml estimator.
    """

    learner: ClassVar[str] = ""

    def __init__(self, backbone: str = "xgboost", random_state: Optional[int] = None) -> None:
        self.backbone = backbone
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import econml, xgboost and scikit-learn once per worker (load time, not the first fit)."""
        import econml.dr  # noqa: F401
        import econml.metalearners  # noqa: F401
        import sklearn.ensemble  # noqa: F401
        import sklearn.neural_network  # noqa: F401
        import xgboost  # noqa: F401

        import arena_effect_backbones  # noqa: F401

    def _check_backbone(self) -> None:
        from arena_effect_backbones import BACKBONES

        if self.backbone not in BACKBONES:
            raise ValueError(f"{type(self).__name__}.backbone {self.backbone!r} is not one of {', '.join(BACKBONES)}")

    def _estimator(self, seed: int) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_estimator(self, est: Any, Y: np.ndarray, T: np.ndarray, V: np.ndarray) -> None:
        est.fit(Y, T, X=V)

    def fit(self, dataset: EffectDataset) -> "_BackdoorLearner":
        """Fit on the context (V, T, Y) and set ``cate_`` (q,) = τ̂(V_query).

        Raises:
            ValueError: an unknown backbone, a bounds target, a confounder missing
                at the queries, a bad ``random_state``; econml's / the backbone's
                errors (non-finite inputs) propagate.
        """
        self._check_backbone()
        check_point_target(dataset, type(self).__name__)
        V, V_query, names = adjustment_features(dataset)
        seed = resolve_seed(self.random_state, dataset)
        est = self._estimator(seed)
        self._fit_estimator(est, dataset.Y, dataset.T.astype(np.int64), V)
        cate = np.asarray(est.effect(V_query, T0=0, T1=1), dtype=np.float64).reshape(-1)
        if cate.shape != (dataset.q,):
            raise RuntimeError(f"econml returned {cate.shape} effects for {dataset.q} query units")
        self.cate_, self.seed_, self.adjustment_, self.estimator_ = cate, seed, names, est
        return self


class SLearnerMethod(_BackdoorLearner):
    """S-learner (Künzel et al. 2019): ``econml.metalearners.SLearner(overall_model=regressor)``.

    One regression ĝ of Y on (V, one-hot T) over the full context (the backbone's
    nuisance regressor, ``final=False``); τ̂(v) = ĝ(v, 1) − ĝ(v, 0) (App. E.2.2).
    """

    learner = "s_learner"

    def _estimator(self, seed: int) -> Any:
        from econml.metalearners import SLearner

        from arena_effect_backbones import make_regressor

        return SLearner(overall_model=make_regressor(self.backbone, seed))


class XLearnerMethod(_BackdoorLearner):
    """X-learner (Künzel et al. 2019): ``econml.metalearners.XLearner``.

    Arm outcome models μ̂₀, μ̂₁ = the backbone's nuisance regressor; CATE models
    τ̂₀, τ̂₁ = the backbone's final regressor (``final=True``: ExtraTrees leaf 10);
    propensity ê = the backbone's classifier; τ̂ = ê τ̂₀ + (1 − ê) τ̂₁.
    """

    learner = "x_learner"

    def _estimator(self, seed: int) -> Any:
        from econml.metalearners import XLearner

        from arena_effect_backbones import make_classifier, make_regressor

        return XLearner(models=make_regressor(self.backbone, seed),
                        cate_models=make_regressor(self.backbone, seed, final=True),
                        propensity_model=make_classifier(self.backbone, seed))


class DRLearnerMethod(_BackdoorLearner):
    """DR-learner (Kennedy 2023): ``econml.dr.DRLearner`` with ``cv``-fold cross-fitting.

    Parameters (besides ``backbone`` and ``random_state``):
        cv: cross-fitting folds of the nuisances (default 2 = econml's default;
            the paper states none). Folds are stratified on T and drawn with the seed.

    Nuisances: ``model_regression`` = the backbone's regressor on (V, one-hot T),
    ``model_propensity`` = the backbone's classifier; ``model_final`` = the backbone's
    final regressor (``final=True``). Everything else is econml's default:
    ``min_propensity=1e-6`` (propensities clipped to [1e-6, 1 − 1e-6] in the
    pseudo-outcome's weights), no trimming, ``mc_iters=None``.
    """

    learner = "dr_learner"

    def __init__(self, backbone: str = "xgboost", random_state: Optional[int] = None, cv: int = 2) -> None:
        super().__init__(backbone=backbone, random_state=random_state)
        self.cv = cv

    def _estimator(self, seed: int) -> Any:
        from econml.dr import DRLearner

        from arena_effect_backbones import make_classifier, make_regressor

        if isinstance(self.cv, bool) or not isinstance(self.cv, (int, np.integer)) or self.cv < 2:
            raise ValueError(f"DRLearnerMethod.cv must be an integer >= 2 (cross-fitting folds), got {self.cv!r}")
        return DRLearner(model_propensity=make_classifier(self.backbone, seed),
                         model_regression=make_regressor(self.backbone, seed),
                         model_final=make_regressor(self.backbone, seed, final=True),
                         cv=int(self.cv), random_state=seed)

    def _fit_estimator(self, est: Any, Y: np.ndarray, T: np.ndarray, V: np.ndarray) -> None:
        # inference=None: no bootstrap / statsmodels inference object (the arena scores point estimates)
        est.fit(Y, T, X=V, inference=None)
