"""Entry point ``causalarena: semantic``: registers the ``semantic`` family (descriptor only; cards load on use)."""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = ("CausalArena: benchmarking causal discovery on executable structural causal models "
            "(semantic and formula-grounded SCM pools, §4.2–4.4 and App. A.3–A.5).")


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``semantic`` family."""
    yield FamilyInfo(
        name="semantic",
        kind="semantic",
        factory="arena_family_semantic.family:SemanticFamily",
        description="authored operational scenario cards: named variables with meaning, unit, range, measurement and intervenability; every edge with a reason (paper §4.2, App. A.4)",
        citation=CITATION,
    )
