"""Entry point ``causalarena: formula``: registers the ``formula`` family (descriptor only; cards load on use)."""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = ("CausalArena: benchmarking causal discovery on executable structural causal models "
            "(semantic and formula-grounded SCM pools, §4.2–4.4 and App. A.3–A.5).")


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``formula`` family."""
    yield FamilyInfo(
        name="formula",
        kind="formula",
        factory="arena_family_formula.family:FormulaFamily",
        description="scenario cards whose key nodes are named scientific equations with units and validity ranges, computed exactly from their parents; residual checks (paper §4.3, App. A.5)",
        citation=CITATION,
    )
