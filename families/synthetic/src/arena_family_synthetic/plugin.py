"""Registers the synthetic family (cheap: no generation at import)."""

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo


@hookimpl
def arena_families():
    yield FamilyInfo(
        name="synthetic",
        kind="synthetic",
        factory="arena_family_synthetic.family:SyntheticFamily",
        description="regenerable SCM grid (App. A.1): 10 graph families x d in {10,20,30,50,100} x 20 = 1,000 "
                    "configurations (500 public + 500 reserved), mixed mechanisms, noises, roots, stressors",
        citation="CausalArena paper, App. A.1",
    )
