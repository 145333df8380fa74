"""Descriptors of the conditional Wald estimator (entry point ``causalarena: wald``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Wald, A. (1940). The fitting of straight lines if both variables are subject to error. "
    "Angrist, J. D., & Imbens, G. W. (1995). Identification and estimation of local average treatment effects. "
    "Wang, L., & Tchetgen Tchetgen, E. (2018). Bounded, efficient and multiply robust estimation of average "
    "treatment effects using instrumental variables. JRSS-B. Estimator as in CausalIDView, App. E.2.2 (Algorithm 4)."
)

#: backbones of the paper's Wald configurations available here (TabPFN-v3.5 needs hub weights)
BACKBONES = ("xgboost", "extratrees", "mlp")


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield ``wald_<backbone>`` for each backbone (views: ``iv`` only)."""
    for backbone in BACKBONES:
        yield MethodInfo(
            name=f"wald_{backbone}",
            factory="arena_method_wald.method:ConditionalWald",
            task="effect",
            views=("iv",),
            output_kind="effect",
            params={"backbone": backbone, "seed": 0},
            citation=CITATION,
            description=f"conditional Wald ratio of {backbone} reduced-form and first-stage fits (binary instrument)",
            requirements=("scikit-learn>=1.2", "xgboost>=2.0"),
        )
