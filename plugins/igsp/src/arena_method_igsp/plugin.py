"""Descriptor of IGSP (entry point ``causalarena: igsp``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Wang, Y., Solus, L., Yang, K. D. & Uhler, C. (2017). Permutation-based causal inference algorithms "
    "with interventions. NeurIPS 30; Squires, C. graphical_model_learning (Python package), "
    "https://github.com/uhlerlab/graphical_model_learning."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the IGSP descriptor (Gaussian CI + invariance tests; returns a DAG)."""
    yield MethodInfo(
        name="igsp",
        factory="arena_method_igsp.method:IGSP",
        output_kind="dag",
        supports_interventions=True,
        requires_full_rank=True,  # partial correlations from the inverted correlation matrix (I1, I12)
        params={"alpha": 1e-3, "alpha_inv": 1e-3, "depth": 4, "nruns": 5, "random_state": None},
        citation=CITATION,
        description="IGSP (graphical_model_learning): permutation search with partial-correlation CI and "
                    "Gaussian invariance tests; one setting per intervention-mask pattern; returns a DAG",
        requirements=("graphical-model-learning==0.1a8", "conditional-independence==0.1a6",
                      "graphical-models==0.1a21"),
    )
