"""Descriptor of sortnregress (entry point ``causalarena: sortnregress``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Reisach, A. G., Seiler, C., & Weichwald, S. (2021). Beware of the Simulated DAG! "
    "Causal Discovery Benchmarks May Be Easy To Game. NeurIPS 2021."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the sortnregress descriptor (a DAG from variance order + sparse regression)."""
    yield MethodInfo(
        name="sortnregress",
        factory="arena_method_sortnregress.method:SortNRegress",
        output_kind="dag",
        supports_interventions=False,
        # LassoLarsIC needs more rows than regressors (at most d - 1) plus intercept.
        min_samples_factor=1.0,
        # tie_rtol: variances within 1e-9 · max are tied and keep the column order (standardised data)
        params={"criterion": "bic", "tie_rtol": 1e-9},
        citation=CITATION,
        description="Varsortability baseline: sort by marginal variance, adaptive-Lasso (BIC) on predecessors",
        requirements=("scikit-learn>=1.2",),
    )
