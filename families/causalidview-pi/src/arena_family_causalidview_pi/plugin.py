"""Registers the ``causalidview_pi`` effect family (entry point ``causalarena: causalidview_pi``).

Cheap: no generation (and no numpy) at import.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo

CITATION = ("CausalIDView: benchmarking causal effect estimation across observational views, "
            "App. B.5 and C.5 (partial-identification companion SCM).")


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the companion family: 40 binary-outcome worlds, views pi_manski, pi_iv, pi_msm_<Γ>."""
    yield FamilyInfo(
        name="causalidview_pi",
        factory="arena_family_causalidview_pi.family:CausalIDViewPI",
        kind="synthetic",
        task="effect",
        description="CausalIDView partial-identification companion: 40 binary-outcome worlds, "
                    "Manski / monotone-IV / MSM(Γ) bound targets with SCM oracle identified sets",
        citation=CITATION,
    )
