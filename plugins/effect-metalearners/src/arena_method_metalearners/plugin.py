"""Descriptors of the back-door meta-learners (entry point ``causalarena: metalearners``).

Cheap by contract: imports only the core's records and hook marker (econml,
xgboost and scikit-learn are imported in ``fit``).
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

#: the learners, in the paper's order (CausalIDView App. E.2.2 "Back-door"), and their factories
LEARNERS = {
    "s_learner": "arena_method_metalearners.method:SLearnerMethod",
    "x_learner": "arena_method_metalearners.method:XLearnerMethod",
    "dr_learner": "arena_method_metalearners.method:DRLearnerMethod",
}
#: the predictive backbones (:data:`arena_effect_backbones.BACKBONES`, repeated here so that listing
#: the plugin does not import the backbone package)
BACKBONES = ("xgboost", "extratrees", "mlp")
#: views a back-door learner serves: ``bd`` (adjusts for X and the confounder U) and ``hc`` (X only,
#: hidden confounding: evaluated without an identification claim)
VIEWS = ("bd", "hc")
#: DR-learner cross-fitting folds (econml's default ``cv=2``; the paper states no fold count)
DR_FOLDS = 2

CITATIONS = {
    "s_learner": "Künzel, S. R., Sekhon, J. S., Bickel, P. J., & Yu, B. (2019). Metalearners for estimating "
                 "heterogeneous treatment effects using machine learning. PNAS 116(10), 4156-4165.",
    "dr_learner": "Kennedy, E. H. (2023). Towards optimal doubly robust estimation of heterogeneous causal "
                  "effects. Electronic Journal of Statistics 17(2), 3008-3049.",
}
CITATIONS["x_learner"] = CITATIONS["s_learner"]

DESCRIPTIONS = {
    "s_learner": "S-learner (econml): one outcome model g(V, T), τ̂ = g(v, 1) − g(v, 0); V = X + confounders",
    "x_learner": "X-learner (econml): arm outcome models, imputed effects, propensity-weighted CATE models",
    "dr_learner": f"DR-learner (econml, {DR_FOLDS}-fold cross-fitting): AIPW pseudo-outcome regressed on V",
}

_REQUIREMENTS = {"xgboost": ("econml>=0.17", "xgboost>=2.0"), "extratrees": ("econml>=0.17", "scikit-learn>=1.2"),
                 "mlp": ("econml>=0.17", "scikit-learn>=1.2")}


def method_infos() -> Iterator[MethodInfo]:
    """The nine descriptors ``<learner>_<backbone>`` (task ``effect``, views :data:`VIEWS`)."""
    for learner, factory in LEARNERS.items():
        for backbone in BACKBONES:
            params = {"backbone": backbone}
            if learner == "dr_learner":
                params["cv"] = DR_FOLDS
            yield MethodInfo(
                name=f"{learner}_{backbone}",
                factory=factory,
                task="effect",
                views=VIEWS,
                output_kind="effect",
                params=params,
                citation=CITATIONS[learner],
                description=f"{DESCRIPTIONS[learner]}; backbone {backbone} (App. E.2.2)",
                requirements=_REQUIREMENTS[backbone],
            )


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the nine back-door meta-learner descriptors."""
    yield from method_infos()
