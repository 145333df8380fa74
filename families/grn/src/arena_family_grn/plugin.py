"""Entry point ``causalarena: grn``: registers the ``grn`` family.

Builds only the descriptor; nothing of avici is imported and no file is read until the family
is loaded and a table or graph is asked for.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = ("Dibaeinia, P. & Sinha, S. (2020). SERGIO: a single-cell expression simulator guided by gene "
            "regulatory networks. Cell Systems 11(3), 252-271; Lorch, L., Sussex, S., Rothfuss, J., Krause, A. "
            "& Schölkopf, B. (2022). Amortized inference for causal structure learning. NeurIPS 2022 "
            "(subnetwork sampling and parameter ranges, avici 1.0.7); networks: RegulonDB 6.7 (Gama-Castro et "
            "al. 2008) and Balaji et al. (2006), as distributed with GeneNetWeaver (Schaffter et al. 2011).")


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``grn`` family (SERGIO on E. coli / yeast subnetworks, knockouts)."""
    yield FamilyInfo(
        name="grn",
        kind="real",
        factory="arena_family_grn.family:GRNFamily",
        description="SERGIO single-cell expression (avici 1.0.7's simulator, UMI counts with 10x technical "
                    "noise) on 10-100-gene subnetworks of the E. coli RegulonDB 6.7 and yeast Balaji 2006 "
                    "networks sampled as AVICI does; obs and obs+int with gene knockouts",
        citation=CITATION,
    )
