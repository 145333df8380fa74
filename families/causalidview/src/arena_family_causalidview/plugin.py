"""Registers the ``causalidview`` effect family. Cheap: nothing is generated or imported beyond the records."""

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo


@hookimpl
def arena_families():
    yield FamilyInfo(
        name="causalidview",
        kind="synthetic",
        task="effect",
        factory="arena_family_causalidview.family:CausalIDViewFamily",
        description="CausalIDView synthetic worlds (§4.1, App. C): 40 SCMs x (original, stay, move), five views "
                    "bd/fd/iv/px/hc of one realization (1,024 context + 100 query units), oracle CATE tau0",
        citation="CausalIDView, §4.1 and App. B-D",
    )
