"""Synthetic family: determinism, validity filters, factor tags."""

import math
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

from arena_family_synthetic.family import (SyntheticFamily, generate_spec, parse_config_id,
                                           root_family_count)
from arena_family_synthetic.graphs import apply_in_degree_cap, depth, graph_audit, sample_graph
from causalarena.plugins import get_registry


def test_registered_through_entry_point():
    info = get_registry(strict=True).family("synthetic")
    assert info.distribution == "arena-family-synthetic" and info.version == "0.1.0"


def test_same_id_same_spec_in_another_process():
    code = "from arena_family_synthetic.family import generate_spec; print(generate_spec('sf-d10-001').to_json())"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert other.strip() == generate_spec("sf-d10-001").to_json().strip()


def test_instances_pass_graph_filters_and_carry_factor_tags():
    fam = SyntheticFamily(per_cell=2)
    insts = fam.instances()
    assert [i.scm_id for i in insts][:3] == ["er-d10-000", "er-d10-001", "er-d20-000"]
    assert len(insts) == 8
    for inst in insts:
        a = inst.true_adjacency()
        graph, d, _ = parse_config_id(inst.scm_id)
        assert a.shape == (d, d)
        assert nx.is_directed_acyclic_graph(nx.DiGraph(a))
        assert ((a.sum(0) + a.sum(1)) > 0).all()
        assert a.sum() >= math.ceil(0.8 * d)
        assert depth(a) >= (3 if graph == "sf" else 2)
        f = inst.factors
        assert f["graph"] == graph and f["d"] == d and f["n_edges"] == a.sum()
        for node in inst.spec.nodes:
            key = "root" if node.role == "root" else "mechanism"
            assert node.tags[key] in f["roots" if key == "root" else "mechanisms"]
        cap = f["in_degree_cap"]
        if cap is not None:
            assert a.sum(0).max() <= cap


def test_graph_audit_reasons():
    chain = np.diag(np.ones(3, dtype=np.int8), 1)
    assert graph_audit(chain, "er") == "3 edges < ceil(0.8 d) = 4"
    iso = np.zeros((4, 4), dtype=np.int8)
    iso[0, 1] = 1
    assert graph_audit(iso, "er").startswith("isolated variables [2, 3]")
    star = np.zeros((6, 6), dtype=np.int8)
    star[0, 1:] = 1
    assert graph_audit(star, "sf").startswith("depth 1 < 3")


def test_in_degree_cap_drops_excess_parents():
    a = np.zeros((7, 7), dtype=np.int8)
    a[:6, 6] = 1
    capped = apply_in_degree_cap(a, 4, np.random.default_rng(0))
    assert capped[:, 6].sum() == 4 and capped.sum() == 4


def test_sample_graph_records_attempts():
    a, rec = sample_graph("sf", 10, np.random.default_rng(4))
    assert rec["n_edges"] == int(a.sum()) and rec["graph_attempts"] >= 1


@pytest.mark.parametrize("n_roots,lo,hi", [(1, 1, 1), (3, 1, 2), (8, 2, 4), (12, 3, 4)])
def test_root_family_count(n_roots, lo, hi):
    counts = {root_family_count(n_roots, 4, np.random.default_rng(s)) for s in range(50)}
    assert min(counts) >= lo and max(counts) <= hi


def test_dataset_is_finite_and_matches_truth():
    inst = SyntheticFamily().instance("er-d20-001")
    ds = inst.dataset("obs_int", 2)
    assert ds.X.shape == (1000, 20) and np.isfinite(ds.X).all()
    assert np.array_equal(ds.true_adjacency, inst.true_adjacency())
    assert 0.0 <= ds.metadata["varsortability"] <= 1.0


def test_unknown_component_is_named():
    with pytest.raises(ValueError, match=r"unknown mechanism\(s\) \['rff'\]"):
        generate_spec("er-d10-000", mechanisms=("rff",))
    with pytest.raises(ValueError, match="malformed synthetic config id"):
        generate_spec("er10")


@pytest.mark.parametrize("options,message", [
    ({"bogus": 3}, r"unknown option\(s\) \['bogus'\]"),
    ({"per_cell": 0}, "per_cell must be a positive integer, got 0"),
    ({"n_replicates": -1}, "n_replicates must be a positive integer"),
    ({"graphs": "zz"}, r"unknown graph families \['zz'\]"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        SyntheticFamily(**options)
