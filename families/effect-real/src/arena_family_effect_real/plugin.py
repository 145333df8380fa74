"""Entry point ``causalarena: effect_real``: registers the ``effect_real`` family.

Builds only the descriptor; no table is read until the family is loaded.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = (
    "LaLonde (1986) AER 76(4):604-620; Dehejia & Wahba (1999) JASA 94(448):1053-1062; "
    "Dorie, Hill, Shalit, Scott & Cervone (2019) Stat. Sci. 34(1):43-68 (ACIC 2016); "
    "Hill (2011) JCGS 20(1):217-240 (IHDP)"
)


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``effect_real`` family (effect task, kind ``real``)."""
    yield FamilyInfo(
        name="effect_real",
        kind="real",
        task="effect",
        factory="arena_family_effect_real.family:EffectRealFamily",
        description="effect tables with known CATE: NSW and NSW+CPS pre-treatment negative controls (tau = 0), "
                    "ACIC 2016 (10 shipped DGPs), IHDP surfaces A/B with bd and hc (b.marr hidden) views",
        citation=CITATION,
    )
