"""Descriptor of r2sortnregress (entry point ``causalarena: r2sortnregress``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Reisach, A. G., Tami, M., Seiler, C., Lachapelle, S., & Weichwald, S. (2023). A Scale-Invariant Sorting "
    "Criterion to Find a Causal Order in Additive Noise Models. NeurIPS 2023."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the r2sortnregress descriptor."""
    yield MethodInfo(
        name="r2sortnregress",
        factory="arena_contrib_method_example.method:R2SortNRegress",
        output_kind="dag",
        supports_interventions=False,
        # LassoLarsIC needs more rows than regressors (at most d - 1) plus intercept
        min_samples_factor=1.0,
        # R² inverts the correlation matrix (falls back to least squares, but a collinear table has no order)
        requires_full_rank=True,
        params={"criterion": "bic", "tie_rtol": 1e-9},  # R² within 1e-9 · max are tied (column order)
        citation=CITATION,
        description="R²-sortability baseline: sort by R² on all other variables, adaptive Lasso (BIC) on predecessors",
        requirements=("scikit-learn>=1.2",),
    )
