"""Descriptor of DAS (entry point ``causalarena: das``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Montagna, F., Noceti, N., Rosasco, L., Zhang, K., & Locatello, F. (2023). Scalable Causal "
    "Discovery with Score Matching. CLeaR 2023, PMLR 213, 752-771. Leaf ordering: Rolland, P., "
    "Cevher, V., Kleindessner, M., Russell, C., Janzing, D., Schölkopf, B., & Locatello, F. (2022). "
    "Score Matching Enables Causal Discovery of Nonlinear Additive Noise Models. ICML 2022."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the DAS descriptor (CausalArena App. B.4: eta_G = eta_H = 0.001, alpha = 0.05,
    10 splines of degree 3, parent range 5-20)."""
    yield MethodInfo(
        name="das",
        factory="arena_method_das.method:DAS",
        output_kind="dag",
        supports_interventions=False,
        # the spline design of one node has up to max_parents * (n_splines - 1) + 1 columns; with
        # fewer rows the number of splines is lowered (see pruning.effective_n_splines)
        min_samples_factor=1.0,
        params={
            "eta_G": 0.001, "eta_H": 0.001, "alpha": 0.05, "das_cutoff": None,
            "n_splines": 10, "splines_degree": 3, "min_parents": 5, "max_parents": 20,
        },
        citation=CITATION,
        description=("DAS: SCORE leaf order from the Stein Hessian, Hessian off-diagonal edge preselection, "
                     "CAM pruning with additive splines (own implementation of the paper's algorithm)"),
        requirements=("scipy>=1.10", "scikit-learn>=1.2", "statsmodels>=0.14"),
    )
