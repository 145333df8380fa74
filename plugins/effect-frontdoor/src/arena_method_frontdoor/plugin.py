"""Descriptors of the front-door plug-in (entry point ``causalarena: frontdoor``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Pearl, J. (2022). Causal diagrams for empirical research (front-door criterion). "
    "Guo, A., Benkeser, D., & Nabi, R. (2023). Targeted machine learning for average causal effect "
    "estimation using the front-door functional. Estimator as in CausalIDView, App. E.2.2 (Algorithm 3)."
)

#: backbones of the paper's front-door configurations available here (TabPFN-v3.5 needs hub weights)
BACKBONES = ("xgboost", "extratrees", "mlp")


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield ``frontdoor_<backbone>`` for each backbone (views: ``fd`` only)."""
    for backbone in BACKBONES:
        yield MethodInfo(
            name=f"frontdoor_{backbone}",
            factory="arena_method_frontdoor.method:FrontDoorPlugin",
            task="effect",
            views=("fd",),
            output_kind="effect",
            params={"backbone": backbone, "folds": 5, "seed": 0},
            citation=CITATION,
            description=f"front-door plug-in CATE, {backbone} nuisances, cross-fitted mediator residual pool",
            requirements=("scikit-learn>=1.2", "xgboost>=2.0"),
        )
