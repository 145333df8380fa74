"""Descriptor of GIES (entry point ``causalarena: gies``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Hauser, A. & Bühlmann, P. (2012). Characterization and greedy learning of interventional Markov "
    "equivalence classes of directed acyclic graphs. JMLR 13, 2409-2464; "
    "Gamella, J. L. & Kolotuhina, O. gies (Python package), https://github.com/juangamella/gies."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the GIES descriptor (interventional Gaussian BIC score; I-essential graph as a CPDAG)."""
    yield MethodInfo(
        name="gies",
        factory="arena_method_gies.method:GIES",
        output_kind="cpdag",
        supports_interventions=True,
        requires_full_rank=True,  # the score solves with pooled covariance sub-matrices (cases I1, I12)
        params={"lmbda": None, "phases": ("forward", "backward", "turning"), "iterate": True},
        citation=CITATION,
        description="GIES (gies package): greedy interventional equivalence search with the BIC score; "
                    "one environment per intervention-mask pattern; returns the I-essential graph",
        requirements=("gies==0.0.3",),
    )
