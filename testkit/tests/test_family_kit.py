"""The family conformance kit (``arena_testkit.family_checks``).

Known answers: a good toy family passes every check (registered for real,
through a ``*.dist-info`` entry point on ``sys.path``); each broken toy
family of ``family_toys`` fails exactly the rule it breaks, with a message
naming the family, the instance and the rule.
"""

from __future__ import annotations

import textwrap

import pytest

import arena_testkit as testing
from arena_testkit import (
    FAMILY_CHECKS,
    ConformanceError,
    _kit,
    check_family,
    check_family_column_order,
    check_family_datasets,
    check_family_deterministic,
    check_family_factors,
    check_family_finite,
    check_family_instances,
    check_family_no_truth_leak,
    check_family_replicates,
    check_family_sortability,
    check_family_true_graph,
    families,
    family_checks,
)
from causalarena.records import FamilyInfo


def toy(cls: str) -> FamilyInfo:
    return FamilyInfo(name="toy", factory=f"family_toys:{cls}", distribution="arena-family-toy", version="0.1.0")


@pytest.fixture
def registered_toy(tmp_path, monkeypatch):
    """Install ``arena-family-toy`` (entry point ``causalarena: toy``) by putting its dist-info on sys.path."""
    (tmp_path / "toy_family_plugin.py").write_text(textwrap.dedent('''
        from causalarena.hookspecs import hookimpl
        from causalarena.records import FamilyInfo

        @hookimpl
        def arena_families():
            yield FamilyInfo(name="toy", factory="family_toys:GoodFamily", description="two chains")
    '''))
    info = tmp_path / "arena_family_toy-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-family-toy\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[causalarena]\ntoy = toy_family_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _kit._strict_registry.cache_clear()
    yield "toy"
    _kit._strict_registry.cache_clear()


def test_good_family_passes_every_check(registered_toy):
    ids = [cid for cid, _ in family_checks(registered_toy)]
    assert ids == [cid for cid, _ in FAMILY_CHECKS]
    assert len(ids) == 14
    check_family(registered_toy)


def test_good_family_by_info_passes_the_data_checks():
    for cid, check in family_checks(toy("GoodFamily")):
        if cid not in ("registered", "descriptor_cheap"):
            check()


def test_unregistered_family_fails_registered():
    with pytest.raises(ConformanceError, match=r"family 'toy' .*not in the registry"):
        dict(family_checks(toy("GoodFamily")))["registered"]()


def test_parametrize_ids():
    mark = testing.parametrize_family_checks("toy", max_instances=1)
    values = mark.args[1]
    assert [repr(c) for c in values][:3] == ["toy:registered", "toy:descriptor_cheap", "toy:instances"]
    assert all(c.args == ({}, {"max_instances": 1}) for c in values)  # (options, settings)


@pytest.mark.parametrize("cls, check, pattern", [
    ("DuplicateIdsFamily", check_family_instances, r"family 'toy' \(arena-family-toy 0\.1\.0\): duplicate instance id 'chain'"),
    ("CyclicFamily", check_family_true_graph, r"instance 'chain-w1', split 'obs': true_adjacency is not acyclic "
                                              r"\(b -> c -> a -> b\)"),  # columns b, c, a
    ("NondeterministicFamily", check_family_deterministic, r"instance 'chain-w1', split 'obs': two builds of the "
                                                           r"same cell \(replicate 0\) gave different X"),
    ("NaNFamily", check_family_finite, r"instance 'chain-w1', split 'obs': X has NaN in columns \['b'\]"),
    ("LeakyFamily", check_family_no_truth_leak, r"metadata\['notes'\]\['links'\] \(a list of \(parent, child\) "
                                                r"pairs that are true edges\)"),
    ("FrozenReplicatesFamily", check_family_replicates, r"instance 'chain-w1', split 'obs': replicates 0 and 1 "
                                                        r"are identical"),
    ("ObsMaskFamily", check_family_datasets, r"split 'obs': the obs split has 1 rows with an intervention mask"),
    ("DictFactorsFamily", check_family_factors, r"instance 'chain-w1': no factor tag is a scalar"),
    ("NoR2Family", check_family_sortability, r"instance 'chain-w1', split 'obs': metadata lacks 'r2_sortability'"),
    ("NoneR2Family", check_family_sortability, r"split 'obs': metadata\['r2_sortability'\] is None but it is "
                                               r"defined for this table \(0\.\d+ from"),
    ("StandardisedSortabilityFamily", check_family_sortability,
     r"split 'obs': metadata\['varsortability'\] is 0\.5, but the raw table \(standardise=False\) and true "
     r"graph give 1 "),
    ("TopologicalColumnsFamily", check_family_column_order,
     r"family 'toy' \(arena-family-toy 0\.1\.0\): the columns follow the causal order: the mean forward share "
     r"of directed paths \(source column before target\) is 1\.00 > 0\.9 over 2 instance\(s\) with >= 3 paths "
     r"\(highest: chain-w1 1\.00, chain-w2 1\.00\)"),
])
def test_broken_family_fails_its_rule(cls, check, pattern):
    with pytest.raises(ConformanceError, match=pattern):
        check(toy(cls), {}, {})


@pytest.mark.parametrize("cls, broken", [
    ("DuplicateIdsFamily", "instances"),
    ("NoR2Family", "sortability"),
    ("StandardisedSortabilityFamily", "sortability"),
    ("CyclicFamily", "true_graph"),
    ("NaNFamily", "finite"),
    ("LeakyFamily", "no_truth_leak"),
    ("ObsMaskFamily", "datasets"),
    ("TopologicalColumnsFamily", "column_order"),
])
def test_broken_family_fails_only_its_rule(cls, broken):
    failed = []
    for cid, check in family_checks(toy(cls)):
        if cid in ("registered", "descriptor_cheap"):
            continue
        try:
            check()
        except ConformanceError:
            failed.append(cid)
    if cls == "NaNFamily":  # NaN also breaks z-scoring of column b
        assert failed == ["finite", "standardise"]
    elif cls == "CyclicFamily":  # its sortabilities were measured on the DAG, not on the graph it claims
        assert failed == ["true_graph", "sortability"]
    else:
        assert failed == [broken]


def test_declared_cycle_is_accepted():
    import attrs
    import numpy as np
    from family_toys import CyclicInstance, _instances

    @attrs.define(eq=False)
    class Declared(CyclicInstance):
        def dataset(self, *a, **kw):
            ds = super().dataset(*a, **kw)
            return attrs.evolve(ds, metadata={**ds.metadata, "truth_is_dag": False,
                                              "truth_cycles": [["a", "b", "c"]]})

    inst = _instances(Declared)[0]
    ds = inst.dataset("obs", 0)
    assert families._check_truth(toy("x"), inst, "obs", ds).tolist() == np.asarray(inst.true_adjacency()).tolist()


def test_max_instances_limits_the_data_checks():
    calls = []

    def spy(info, options, settings):
        calls.append(len(families._instances(info, options, settings)))

    _kit._Check(families.FAMILIES, toy("GoodFamily"), "spy", spy, {}, {"max_instances": 1})()
    assert calls == [1]


def test_undefined_sortability_is_none_and_passes():
    # a graph without edges: no directed path, both sortabilities None (documented), and the check
    # accepts exactly that; a number there would fail
    import attrs
    from family_toys import EdgelessFamily

    inst = EdgelessFamily().instances()[0]
    md = inst.dataset("obs", 0).metadata
    assert md["varsortability"] is None and md["r2_sortability"] is None
    check_family_sortability(toy("EdgelessFamily"), {}, {})

    class Claims(EdgelessFamily):
        def instances(self):
            @attrs.define(eq=False)
            class Wrong(type(inst)):
                def dataset(self, *a, **kw):
                    ds = super().dataset(*a, **kw)
                    return attrs.evolve(ds, metadata={**ds.metadata, "varsortability": 0.5})
            return [Wrong(family=inst.family, scm_id=inst.scm_id, spec=inst.spec, factors=inst.factors)]

    import family_toys

    family_toys.ClaimsFamily = Claims
    try:
        with pytest.raises(ConformanceError, match=r"metadata\['varsortability'\] is 0\.5 but it is undefined"):
            check_family_sortability(toy("ClaimsFamily"), {}, {})
    finally:
        del family_toys.ClaimsFamily


def test_good_family_sortabilities_are_the_raw_tables():
    # known answer: these chains have variances increasing along the causal order (raw), so
    # varsortability is 1 on both splits; R²-sortability is defined and in [0, 1]
    from family_toys import GoodFamily

    for inst in GoodFamily().instances():
        for split in inst.splits:
            md = inst.dataset(split, 0).metadata
            assert md["varsortability"] == 1.0
            assert 0.0 <= md["r2_sortability"] <= 1.0


def test_forward_path_share_known_answers():
    import numpy as np

    chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])  # a -> b -> c: paths a->b, b->c, a->c
    assert testing.forward_path_share(chain) == (1.0, 3)
    assert testing.forward_path_share(chain.T) == (0.0, 3)  # reversed columns: every path backwards
    p = [1, 2, 0]  # columns b, c, a
    assert testing.forward_path_share(chain[np.ix_(p, p)]) == (1 / 3, 3)
    assert testing.forward_path_share(np.zeros((4, 4))) == (None, 0)
    cycle = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])  # every ordered pair reachable
    assert testing.forward_path_share(cycle) == (0.5, 6)


def test_column_order_ignores_instances_with_fewer_than_three_paths():
    # the edgeless toy has no path at all: nothing to measure, the check passes
    check_family_column_order(toy("EdgelessFamily"), {}, {})
    check_family_column_order(toy("GoodFamily"), {}, {})
