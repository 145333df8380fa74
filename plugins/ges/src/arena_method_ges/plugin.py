"""Descriptor of GES (entry point ``causalarena: ges``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Chickering, D. M. (2002). Optimal structure identification with greedy search. JMLR 3, 507-554; "
    "Zheng, Y. et al. (2024). Causal-learn: Causal discovery in Python. JMLR 25(60)."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the GES descriptor (BIC score, causal-learn defaults; CPDAG output)."""
    yield MethodInfo(
        name="ges",
        factory="arena_method_ges.method:GES",
        output_kind="cpdag",
        supports_interventions=False,
        requires_full_rank=True,  # the BIC score inverts covariance sub-matrices (case I12)
        params={"score_func": "local_score_BIC", "maxP": None},
        citation=CITATION,
        description="GES (causal-learn): greedy equivalence search with the BIC score; returns a CPDAG",
        requirements=("causal-learn>=0.1.3.8",),
    )
