"""Both sortabilities in every real-family dataset (issue 12, item 11).

Before: the real family stored only varsortability, so every Sachs and user-table run had
r2_sortability NULL ("–" in the report). Known answers: the values equal
causalarena.protocol.raw_sortabilities of the raw rows, for Sachs, user tables (also with NaN
rows and a subsample), and the family passes the conformance kit's ``sortability`` check.
"""

from __future__ import annotations

import numpy as np
import pytest

from arena_family_real.family import RealFamily, RealTable, sachs_instance
from arena_testkit import family_checks, parametrize_family_checks
from causalarena.protocol import r2_sortability, raw_sortabilities, varsortability


def _table(tmp_path, name, X, edges, cols="abcd"):
    rows = "\n".join(",".join("" if np.isnan(v) else repr(float(v)) for v in r) for r in X)
    (tmp_path / f"{name}.csv").write_text(",".join(cols[: X.shape[1]]) + "\n" + rows + "\n")
    (tmp_path / f"{name}.edges.csv").write_text("source,target\n" + "".join(f"{a},{b}\n" for a, b in edges))


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, 300)
    b = 2 * a + rng.uniform(-1, 1, 300)
    c = b - a + 0.5 * rng.uniform(-1, 1, 300)
    chain = np.column_stack([a, b, c])
    _table(tmp_path, "chain", chain, [("a", "b"), ("b", "c"), ("a", "c")])
    holes = chain.copy()
    holes[[3, 10, 40], [0, 2, 1]] = np.nan
    _table(tmp_path, "holes", holes, [("a", "b"), ("b", "c"), ("a", "c")])
    _table(tmp_path, "edgeless", chain, [])
    return tmp_path


def test_sachs_carries_both_sortabilities_of_its_raw_table():
    inst = sachs_instance()
    assert isinstance(inst, RealTable)
    md = inst.dataset("obs", 0).metadata
    X, A = inst.X_raw, inst.true_adjacency()
    assert md["varsortability"] == varsortability(X, A)
    assert md["r2_sortability"] == r2_sortability(X, A)
    assert 0.0 < md["r2_sortability"] < 1.0
    # the same number whether the run is standardised or raw (R² is scale-invariant; measured raw)
    assert inst.dataset("obs", 0, standardise=False).metadata["r2_sortability"] == md["r2_sortability"]


def test_user_tables_carry_both_including_nan_rows_and_subsamples(folder):
    fam = RealFamily(sachs=False, folder=str(folder))
    by_id = {i.scm_id: i for i in fam.instances()}
    assert set(by_id) == {"chain", "holes", "edgeless"}
    assert all(isinstance(i, RealTable) for i in by_id.values())
    for sid in ("chain", "holes"):
        inst = by_id[sid]
        for n in (None, 120):
            md = inst.dataset("obs", 0, n=n).metadata
            raw = inst.dataset("obs", 0, standardise=False, n=n)
            ref = raw_sortabilities(raw.X, inst.true_adjacency())
            assert md["r2_sortability"] == ref["r2_sortability"] is not None
            assert 0.0 <= md["r2_sortability"] <= 1.0
    # NaN rows are left out of the R² regressions: the complete rows give the value
    holes = by_id["holes"]
    X = holes.X_raw
    assert holes.dataset("obs", 0).metadata["r2_sortability"] == r2_sortability(
        X[~np.isnan(X).any(axis=1)], holes.true_adjacency())
    # no edges: both undefined, None (documented), not a number
    md = by_id["edgeless"].dataset("obs", 0).metadata
    assert md["varsortability"] is None and md["r2_sortability"] is None


@parametrize_family_checks("real")
def test_conformance(check):
    # every family check, the new ``sortability`` one included, on the default family (Sachs)
    check()


@pytest.mark.parametrize("check_id", ["datasets", "finite", "standardise", "sortability", "no_truth_leak",
                                      "deterministic", "replicates", "fingerprint"])
def test_conformance_with_user_tables(folder, check_id):
    # user tables: a chain, one with NaN rows, one without edges
    dict(family_checks("real", folder=str(folder)))[check_id]()
