"""Shared fixtures: the 40 default worlds are generated once per session (about 3 s)."""

import pytest

from arena_family_causalidview.family import CausalIDViewFamily


@pytest.fixture(scope="session")
def family():
    return CausalIDViewFamily()


@pytest.fixture(scope="session")
def originals(family):
    """The 40 original-variant instances, each world generated once (cached)."""
    insts = [i for i in family.instances() if i.variant == "original"]
    for inst in insts:
        inst.world(0)
    return insts
