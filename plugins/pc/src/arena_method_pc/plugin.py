"""Descriptor of PC (entry point ``causalarena: pc``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Spirtes, P., Glymour, C., & Scheines, R. (2000). Causation, Prediction, and Search (2nd ed.). MIT Press; "
    "Colombo, D., & Maathuis, M. H. (2014). Order-independent constraint-based causal structure learning. "
    "JMLR 15; Zheng, Y. et al. (2024). Causal-learn: Causal discovery in Python. JMLR 25(60)."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the PC descriptor (App. B.4: stable PC, Fisher-z, alpha = 0.05; CPDAG output)."""
    yield MethodInfo(
        name="pc",
        factory="arena_method_pc.method:PC",
        output_kind="cpdag",
        supports_interventions=False,
        requires_full_rank=True,  # Fisher-z inverts correlation sub-matrices (cases I1, I3)
        params={"alpha": 0.05, "indep_test": "fisherz", "stable": True, "uc_rule": 0, "uc_priority": 2},
        citation=CITATION,
        description="PC (causal-learn): stable skeleton, Fisher-z CI tests, alpha 0.05; returns a CPDAG",
        requirements=("causal-learn>=0.1.3.8",),
    )
