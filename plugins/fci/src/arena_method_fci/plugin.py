"""Descriptor of FCI (entry point ``causalarena: fci``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Spirtes, P., Meek, C., & Richardson, T. (1995). Causal inference in the presence of latent variables and "
    "selection bias. UAI; Zhang, J. (2008). On the completeness of orientation rules for causal discovery in the "
    "presence of latent confounders and selection bias. Artificial Intelligence 172(16-17); Zheng, Y. et al. "
    "(2024). Causal-learn: Causal discovery in Python. JMLR 25(60)."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the FCI descriptor (Fisher-z, alpha = 0.05 as PC in App. B.4; PAG output)."""
    yield MethodInfo(
        name="fci",
        factory="arena_method_fci.method:FCI",
        output_kind="pag",
        supports_interventions=False,
        requires_full_rank=True,  # Fisher-z inverts correlation sub-matrices (cases I1, I3)
        params={"alpha": 0.05, "indep_test": "fisherz", "depth": -1, "max_path_length": -1},
        citation=CITATION,
        description="FCI (causal-learn): Fisher-z CI tests, alpha 0.05; returns a PAG, converted to directed "
                    "edges by a documented rule (native PAG kept)",
        requirements=("causal-learn>=0.1.3.8",),
    )
