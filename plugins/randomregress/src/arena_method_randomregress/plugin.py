"""Descriptor of randomregress (entry point ``causalarena: randomregress``).

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
    """Yield the randomregress descriptor (a DAG from a seeded random order + sparse regression)."""
    yield MethodInfo(
        name="randomregress",
        factory="arena_method_randomregress.method:RandomRegress",
        output_kind="dag",
        supports_interventions=False,
        # LassoLarsIC needs more rows than regressors (at most d - 1) plus intercept.
        min_samples_factor=1.0,
        params={"criterion": "bic", "random_state": None},
        citation=CITATION,
        description="Control: seeded random order, adaptive-Lasso (BIC) regression on predecessors",
        requirements=("scikit-learn>=1.2",),
    )
