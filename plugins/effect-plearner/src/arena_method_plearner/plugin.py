"""Descriptors of the P-learner (entry point ``causalarena: plearner``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Sverdrup, E., & Cui, Y. (2023). Proximal causal learning of conditional average treatment effects. ICML 2023. "
    "Cui, Y., Pu, H., Shi, X., Miao, W., & Tchetgen Tchetgen, E. (2023). Semiparametric proximal causal inference. "
    "JASA. Estimator as in CausalIDView, App. E.2.2 (Algorithm 5)."
)

#: backbones of the paper's P-learner configurations available here (TabPFN-v3.5 needs hub weights)
BACKBONES = ("extratrees", "mlp", "xgboost")


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield ``plearner_<backbone>`` for each backbone (views: ``px`` only)."""
    for backbone in BACKBONES:
        yield MethodInfo(
            name=f"plearner_{backbone}",
            factory="arena_method_plearner.method:PLearner",
            task="effect",
            views=("px",),
            output_kind="effect",
            params={"backbone": backbone, "folds": 5, "ridge": 0.01, "propensity_clip": 0.01, "seed": 0},
            citation=CITATION,
            description=f"P-learner: ridge two-point proximal bridges, cross-fitted DR score, {backbone} backbone",
            requirements=("scikit-learn>=1.2", "xgboost>=2.0"),
        )
