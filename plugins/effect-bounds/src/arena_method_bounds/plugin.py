"""Descriptors of the plug-in bound estimators (entry point ``causalarena: bounds``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

#: the partial-identification views of the companion family (``causalidview_pi``), App. B.5 / C.5
VIEWS = ("pi_manski", "pi_iv", "pi_msm_1", "pi_msm_1.25", "pi_msm_1.5", "pi_msm_2", "pi_msm_3", "pi_msm_5")
BACKBONES = ("logistic", "xgboost", "extratrees")
#: the estimator class of each backbone (its constructor default is the backbone)
CLASSES = {"logistic": "LogisticBounds", "xgboost": "XGBoostBounds", "extratrees": "ExtraTreesBounds"}

CITATION = (
    "Manski, C. F. (1990). Nonparametric bounds on treatment effects. AER 80(2). "
    "Balke, A., & Pearl, J. (1997). Bounds on treatment effects from studies with imperfect compliance. JASA 92. "
    "Tan, Z. (2006). A distributional approach for causal inference using propensity scores. JASA 101. "
    "Dorn, J., & Guo, K. (2022). Sharp sensitivity analysis for inverse propensity weighting via quantile "
    "balancing. JASA 118. Plug-in estimators as in CausalIDView App. E.2.4."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield ``bounds_logistic``, ``bounds_xgboost``, ``bounds_extratrees``: one per cell-model backbone."""
    for backbone in BACKBONES:
        yield MethodInfo(
            name=f"bounds_{backbone}",
            factory=f"arena_method_bounds.method:{CLASSES[backbone]}",
            task="effect",
            output_kind="effect",
            views=VIEWS,
            params={"backbone": backbone, "seed": 0, "floor": 1e-4},
            citation=CITATION,
            description=f"Plug-in identified set: P(T, Y | X[, I]) by {backbone} (4-class), then the Manski "
                        "closed form, the monotone-IV LP (L2 feasibility projection) or the MSM closed form at Γ",
            requirements=("scikit-learn>=1.2", "scipy>=1.10") + (("xgboost>=2.0",) if backbone == "xgboost" else ()),
        )
