"""Descriptor of DirectLiNGAM (entry point ``causalarena: direct_lingam``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Shimizu, S., Inazumi, T., Sogawa, Y., Hyvarinen, A., Kawahara, Y., Washio, T., Hoyer, P. O., & "
    "Bollen, K. (2011). DirectLiNGAM: A direct method for learning a linear non-Gaussian structural "
    "equation model. JMLR 12, 1225-1248."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the DirectLiNGAM descriptor (App. B.4: standard wrapper, returned directed graph)."""
    yield MethodInfo(
        name="direct_lingam",
        factory="arena_method_direct_lingam.method:DirectLiNGAM",
        output_kind="dag",
        supports_interventions=False,
        min_samples_factor=1.0,  # n >= d, else invalid input before launch (case I6)
        params={"measure": "pwling", "random_state": None},
        citation=CITATION,
        description="DirectLiNGAM (lingam): causal order by pairwise likelihood ratios, adaptive-Lasso pruning",
        requirements=("lingam>=1.8",),
    )
