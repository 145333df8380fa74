"""Entry point ``causalarena: chambers``: registers the ``chambers`` family and its SCM components.

Builds only descriptors; ``causalchamber`` is imported when a chamber spec is built or compiled.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import ComponentInfo, FamilyInfo

CITATION = ("Gamella, J. L., Peters, J., & Bühlmann, P. (2025). Causal chambers as a real-world physical testbed "
            "for AI methodology. Nature Machine Intelligence. doi:10.1038/s42256-024-00964-x (graphs and "
            "simulators: the causalchamber package 0.2.8, MIT)")


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``chambers`` family (the Light Tunnel and the Wind Tunnel)."""
    yield FamilyInfo(
        name="chambers",
        kind="real",
        factory="arena_family_chambers.family:ChambersFamily",
        description="Causal Chambers light tunnel (d=29) and wind tunnel (d=8): published ground-truth graphs "
                    "restricted to the simulated variables, data from the causalchamber simulators (obs, obs+int)",
        citation=CITATION,
    )


@hookimpl
def arena_components() -> Iterator[ComponentInfo]:
    """The mechanisms that call the causalchamber simulators, and a finite-levels root."""
    yield ComponentInfo(kind="mechanism", name="chamber_light_sensor",
                        factory="arena_family_chambers.components:LightSensor",
                        description="one output of causalchamber.simulators.lt.Deterministic (light-tunnel sensors)")
    yield ComponentInfo(kind="mechanism", name="chamber_wind",
                        factory="arena_family_chambers.components:WindTunnel",
                        description="one output of causalchamber.simulators.wt ModelA1 / ModelB1 / SimA1C3")
    yield ComponentInfo(kind="root_distribution", name="chamber_levels",
                        factory="arena_family_chambers.components:Levels",
                        description="uniform over a finite list of settings (chamber sensor parameters)")
