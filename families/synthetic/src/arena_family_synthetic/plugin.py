"""Registers the synthetic family (cheap: no generation at import)."""

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo


@hookimpl
def arena_families():
    yield FamilyInfo(
        name="synthetic",
        kind="synthetic",
        factory="arena_family_synthetic.family:SyntheticFamily",
        description="regenerable SCM grid: ER / scale-free graphs, d in {10, 20}, mixed mechanisms (App. A.1)",
        citation="CausalArena paper, App. A.1",
    )
