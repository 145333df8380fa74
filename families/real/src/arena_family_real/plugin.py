"""Entry point ``causalarena: real``: registers the ``real`` family.

Builds only the descriptor; nothing is read until the family is loaded.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = (
    "Sachs, K., Perez, O., Pe'er, D., Lauffenburger, D. A., & Nolan, G. P. (2005). "
    "Causal protein-signaling networks derived from multiparameter single-cell data. "
    "Science, 308(5721), 523-529."
)


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``real`` family (Sachs via cdt 0.6.0, plus user CSV tables)."""
    yield FamilyInfo(
        name="real",
        kind="real",
        factory="arena_family_real.family:RealFamily",
        description="public tables with published graphs (Sachs flow cytometry from cdt) "
                    "and user CSV + edge-list tables; obs-only, one replicate",
        citation=CITATION,
    )
