"""The App. A.1 catalogue reaches the core through this distribution's ``arena_components()``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arena_family_synthetic import schedule as S
from arena_family_synthetic.distributions import PAPER_NOISES, PAPER_ROOTS, ROOT_DEPENDENCY_MODES
from arena_family_synthetic.mechanisms import GRID_MECHANISMS
from arena_family_synthetic.plugin import COMPONENTS
from arena_family_synthetic.stressors import EQUATION_STRESSORS
from causalarena.plugins import KNOWN_PROVIDERS, get_registry
from causalarena.scm import COMPONENT_BASES, component_class


@pytest.mark.parametrize("kind,name,factory,description", COMPONENTS, ids=[f"{r[0]}:{r[1]}" for r in COMPONENTS])
def test_every_record_loads_a_class_of_its_kind_and_name(kind, name, factory, description):
    rec = get_registry(strict=True).components[f"{kind}:{name}"]
    assert rec.distribution == "arena-family-synthetic" and rec.factory == f"arena_family_synthetic.{factory}"
    cls = rec.load()
    assert issubclass(cls, COMPONENT_BASES[kind]) and cls.kind == name
    assert description == (cls.__doc__ or "").strip().splitlines()[0] == rec.description
    assert component_class(kind, name) is cls


def test_core_and_this_distribution_provide_exactly_the_paper_catalogue():
    reg = get_registry(strict=True)

    def names(kind):
        return {r.name for r in reg.components.values()
                if r.kind == kind and r.distribution in ("causal-arena", "arena-family-synthetic")}

    assert names("root_distribution") == set(PAPER_ROOTS) | {"laplace"}
    assert names("noise") == set(PAPER_NOISES) - {"none"}
    assert names("mechanism") == set(GRID_MECHANISMS)
    assert names("root_dependency") == set(ROOT_DEPENDENCY_MODES) - {"independent"}
    assert names("stressor") == set(S.STRESSORS) - set(EQUATION_STRESSORS)
    # the core's hint table names this distribution for exactly what it ships
    for kind, table in KNOWN_PROVIDERS.items():
        ours = {r[1] for r in COMPONENTS if r[0] == kind}
        assert {n for n, dist in table.items() if dist == "arena-family-synthetic"} == ours


def test_building_the_registry_imports_no_catalogue_module():
    code = ("import sys; from causalarena.plugins import get_registry; r = get_registry(strict=True); "
            "print(len(r.components) >= 55, sorted(m for m in sys.modules if m.startswith('arena_family_synthetic.') "
            "or m == 'scipy.stats'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True ['arena_family_synthetic.plugin']"
