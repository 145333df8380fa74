"""Entry point ``causalarena: textbook``: the family's descriptor and its one SCM component.

Cheap by contract: imports only the core's hook marker and records; the SCMs
are built when the family is loaded for a run, and the component class
(:mod:`.components`) is imported when a spec first names it.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import ComponentInfo, FamilyInfo

CITATION = (
    "Lauritzen, S. L., & Spiegelhalter, D. J. (1988). Local computations with probabilities on graphical "
    "structures and their application to expert systems. JRSS B 50(2), 157-224 (Asia); "
    "Pearl, J. (1988). Probabilistic Reasoning in Intelligent Systems (Alarm); "
    "Russell, S., & Norvig, P. (2010). Artificial Intelligence: A Modern Approach, 3rd ed. (Sprinkler)."
)


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``textbook`` family."""
    yield FamilyInfo(
        name="textbook",
        kind="synthetic",
        factory="arena_contrib_family_example.family:TextbookFamily",
        description="five hand-written SCMs on textbook graphs (Asia, Sprinkler, Alarm, collider chain, "
                    "confounded triangle); obs and obs+int",
        citation=CITATION,
    )


@hookimpl
def arena_components() -> Iterator[ComponentInfo]:
    """Yield the ``textbook_bernoulli`` root distribution (the ``sprinkler`` SCM's ``cloudy``)."""
    yield ComponentInfo(kind="root_distribution", name="textbook_bernoulli",
                        factory="arena_contrib_family_example.components:TextbookBernoulli",
                        description="Bernoulli(p) on {0, 1} (the textbook family's own root)")
