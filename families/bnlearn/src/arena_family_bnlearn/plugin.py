"""Entry point ``causalarena: bnlearn``: registers the ``bnlearn`` family.

Builds only the descriptor; no network file is read until the family is loaded.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = ("Scutari, M. (2010). Learning Bayesian Networks with the bnlearn R Package. Journal of "
            "Statistical Software, 35(3), 1-22 (the bnlearn Bayesian network repository); each network's "
            "own reference is in the family README and in arena_family_bnlearn.networks.")


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``bnlearn`` family (bnlearn reference networks as shipped by pgmpy 1.1.2)."""
    yield FamilyInfo(
        name="bnlearn",
        kind="real",
        factory="arena_family_bnlearn.family:BnlearnFamily",
        description="bnlearn repository networks (pgmpy 1.1.2 files): 4 linear-Gaussian networks as SCMs "
                    "(obs, obs+int), discrete networks up to 100 nodes as categorical tables",
        citation=CITATION,
    )
