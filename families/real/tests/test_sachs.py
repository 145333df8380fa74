"""Sachs flow-cytometry instance as shipped by cdt 0.6.0 (known values read from the files)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena_family_real.family import SACHS_COLUMNS, RealFamily, sachs_files, sachs_instance
from causalarena.plugins import get_registry
from causalarena.protocol import cell_seed


@pytest.fixture(scope="module")
def inst():
    return sachs_instance()


def edge(inst, a, b):
    return int(inst.true_adjacency()[inst.columns.index(a), inst.columns.index(b)])


def test_files_located_without_importing_cdt():
    import sys

    data, target, version = sachs_files()
    assert version == "0.6.0"
    assert data.name == "cyto_full_data.csv" and target.name == "cyto_full_target.csv"
    assert "cdt" not in sys.modules


def test_shape_columns_and_edge_count(inst):
    ds = inst.dataset("obs", 0)
    assert ds.X.shape == (7466, 11)
    assert tuple(ds.columns) == SACHS_COLUMNS
    A = inst.true_adjacency()
    assert A.dtype == np.int8 and A.shape == (11, 11)
    assert int(A.sum()) == 18
    assert inst.factors == {"source": "cdt 0.6.0 cyto_full", "domain": "biology", "d": 11, "n": 7466}
    assert inst.splits == ("obs",) and inst.n_replicates == 1


@pytest.mark.parametrize("a,b", [("praf", "pmek"), ("pmek", "p44/42"), ("plcg", "PIP2"),
                                 ("PKA", "pakts473"), ("PKC", "praf"), ("PIP3", "pakts473")])
def test_published_edges_in_the_right_direction(inst, a, b):
    assert edge(inst, a, b) == 1
    assert edge(inst, b, a) == 0


def test_cdt_graph_has_the_plcg_pip2_pip3_cycle_recorded(inst):
    # cdt's target lists PIP2->PIP3, PIP3->plcg and plcg->PIP2: a 3-cycle.
    assert edge(inst, "PIP2", "PIP3") == 1 and edge(inst, "PIP3", "plcg") == 1
    md = inst.dataset("obs", 0).metadata
    assert md["truth_is_dag"] is False
    assert md["truth_cycles"] == [["plcg", "PIP2", "PIP3"]]


def test_first_raw_row_matches_the_file(inst):
    raw = inst.dataset("obs", 0, standardise=False)
    np.testing.assert_array_equal(
        raw.X[0], [26.4, 13.2, 8.82, 18.3, 58.8, 6.61, 17.0, 414.0, 17.0, 44.9, 40.0])


def test_standardised_vs_raw(inst):
    std = inst.dataset("obs", 0)
    raw = inst.dataset("obs", 0, standardise=False)
    np.testing.assert_allclose(std.X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(std.X.std(axis=0), 1.0, rtol=1e-12)
    assert std.metadata["standardised"] is True and raw.metadata["standardised"] is False
    assert not np.allclose(std.X, raw.X)
    # PKA has the largest raw mean (625.76 in the file)
    assert raw.X.mean(axis=0).argmax() == SACHS_COLUMNS.index("PKA")
    np.testing.assert_allclose(raw.X[:, SACHS_COLUMNS.index("PKA")].mean(), 625.758588, rtol=1e-7)


def test_obs_only_masks_and_metadata(inst):
    ds = inst.dataset("obs", 0)
    assert not ds.intervention_mask.any() and (ds.regime == -1).all()
    md = ds.metadata
    assert md["family"] == "real" and md["scm_id"] == "sachs" and md["split"] == "obs"
    assert md["replicate"] == 0 and md["source"] == "cdt 0.6.0 cyto_full"
    assert md["seed"] == cell_seed("real", "sachs", "obs", 0)
    assert md["nan_fraction"] == {c: 0.0 for c in SACHS_COLUMNS}


def test_obs_int_and_replicate_raise(inst):
    with pytest.raises(ValueError, match=r"real/sachs has no split 'obs_int'.*\('obs',\)"):
        inst.dataset("obs_int", 0)
    with pytest.raises(ValueError, match="replicate 1 out of range 0..0"):
        inst.dataset("obs", 1)


def test_bytes_identical_across_calls(inst):
    a = inst.dataset("obs", 0).to_npz_bytes()
    b = inst.dataset("obs", 0).to_npz_bytes()
    assert a == b
    # subsample with n: deterministic from the cell seed
    s1 = inst.dataset("obs", 0, n=500, standardise=False)
    s2 = inst.dataset("obs", 0, n=500, standardise=False)
    assert s1.X.shape == (500, 11) and s1.to_npz_bytes() == s2.to_npz_bytes()
    with pytest.raises(ValueError, match="n = 9000 outside 1..7466"):
        inst.dataset("obs", 0, n=9000)


def test_registered_through_entry_point():
    reg = get_registry()
    info = reg.family("real")
    assert info.kind == "real" and info.distribution == "arena-family-real"
    fam = info.load()()
    assert [i.scm_id for i in fam.instances()] == ["sachs"]
    assert fam.instance("sachs") is sachs_instance()


def test_family_without_sachs_and_unknown_option():
    assert RealFamily(sachs=False).instances() == []
    assert RealFamily(sachs="false").instances() == []
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['tabels'\]"):
        RealFamily(tabels=[])


def test_export_roundtrip_of_sachs(tmp_path, inst):
    from arena_export import export_instance, read_adjacency_csv, read_exported_table

    paths = export_instance(inst, tmp_path)
    # a real table has no executable spec: no spec.json and no audit record, but its factor tags
    assert [p.name for p in paths] == ["adjacency.csv", "obs__rep0.parquet", "factors.json"]
    assert json.loads(paths[2].read_text())["factors"]["source"]
    back = read_exported_table(paths[1])
    assert back.to_npz_bytes() == inst.dataset("obs", 0, standardise=False).to_npz_bytes()
    cols, A = read_adjacency_csv(paths[0])
    assert tuple(cols) == SACHS_COLUMNS and int(A.sum()) == 18
