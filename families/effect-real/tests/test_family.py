"""The family: ids, views, splits, preprocessing, oracles, determinism and what never reaches a method."""

from __future__ import annotations

import io

import numpy as np
import pytest

from arena_family_effect_real import sources
from arena_family_effect_real.family import FAMILY, EffectRealFamily, stratified_split
from arena_task_effect.effect import EffectDataset, spehe2
from causalarena.protocol import cell_seed

ORACLE_WORDS = ("mu0", "mu1", "y0", "y1", "ite", "tau", "true_te")


@pytest.fixture(scope="module")
def fam():
    return EffectRealFamily(n_replicates=4)


def inst(fam, scm_id):
    return fam.instance(scm_id)


def test_ids_factors_listing(fam):
    ids = fam.ids()
    assert ids == ["nsw-null", "nsw-cps-null"] + [f"acic16-{k:02d}" for k in range(1, 11)] + ["ihdp-a", "ihdp-b"]
    assert inst(fam, "nsw-null").factors == {"dataset": "nsw", "kind": "negative_control"}
    assert inst(fam, "acic16-03").factors == {"dataset": "acic16", "acic_dgp": 3, "kind": "semi_synthetic"}
    assert inst(fam, "ihdp-b").factors == {"dataset": "ihdp", "surface": "B", "kind": "semi_synthetic"}
    rows = {r.scm_id: r for r in fam.listing()}
    assert (rows["nsw-null"].d, rows["acic16-01"].d, rows["ihdp-a"].d) == (7, 58, 25)
    assert rows["ihdp-a"].splits == ("bd", "hc") and rows["nsw-cps-null"].splits == ("bd",)
    assert EffectRealFamily().instance("nsw-null").n_replicates == 40  # the default
    assert all(i.task == "effect" and i.family == FAMILY for i in fam.instances())


def test_registered_as_effect_family():
    from causalarena.plugins import get_registry

    info = get_registry().families["effect_real"]
    assert (info.task, info.kind, info.distribution) == ("effect", "real", "arena-family-effect-real")


@pytest.mark.parametrize("scm_id, n, q, rows", [("nsw-null", 320, 100, 445), ("nsw-cps-null", 1024, 256, 16_177),
                                                ("acic16-05", 1024, 100, 4802), ("ihdp-b", 672, 75, 747)])
def test_split_sizes_disjoint_and_stratified(fam, scm_id, n, q, rows):
    i = inst(fam, scm_id)
    T_all = i._table(0).T
    share = T_all.mean()
    for r in range(2):
        ds = i.dataset("bd", r)
        assert (ds.n, ds.q) == (n, q)
        assert not set(ds.unit_ids) & set(ds.query_ids)
        assert len(set(ds.unit_ids)) == n and len(set(ds.query_ids)) == q
        assert max(ds.unit_ids.max(), ds.query_ids.max()) < rows
        assert abs(int(ds.T.sum()) - n * share) <= 1  # treatment-stratified context, within 1 unit
        assert abs(int(T_all[ds.query_ids].sum()) - q * share) <= 1
        np.testing.assert_array_equal(ds.T, T_all[ds.unit_ids])
    assert not np.array_equal(i.dataset("bd", 0).query_ids, i.dataset("bd", 1).query_ids)


def test_stratified_split_counts_by_hand():
    T = np.array([1] * 30 + [0] * 70)
    ctx, qry = stratified_split(T, 50, 20, seed=3)
    assert (T[ctx].sum(), T[qry].sum()) == (15, 6)  # round(50·0.3), round(20·0.3)
    ctx2, qry2 = stratified_split(T, 10, 20, seed=3)
    np.testing.assert_array_equal(qry, qry2)  # the queries do not depend on the context size
    with pytest.raises(ValueError, match="n=90"):
        stratified_split(T, 90, 20, seed=3)


def test_nsw_null_tau_zero_and_outcome_standardised(fam):
    tab = sources.nsw_table()
    for scm_id in ("nsw-null", "nsw-cps-null"):
        i = inst(fam, scm_id)
        for r in range(3):
            ds, orc = i.dataset("bd", r), i.oracle("bd", r)
            assert np.all(orc.tau == 0.0) and np.array_equal(orc.query_ids, ds.query_ids)
            assert ds.metadata["outcome_column"] == "re75" and ds.metadata["outcome_scale"] == "context"
            assert ds.Y.mean() == pytest.approx(0.0, abs=1e-12) and ds.Y.std() == pytest.approx(1.0, abs=1e-12)
            assert ds.columns["covariates"] == list(sources.NSW_COVARIATES)
    # the context outcome is re75 of the context units, z-scored with the context mean and population SD
    ds = inst(fam, "nsw-null").dataset("bd", 0)
    raw = tab.Y[ds.unit_ids]
    np.testing.assert_allclose(ds.Y, (raw - raw.mean()) / raw.std(), atol=1e-12)


def test_covariates_standardised_with_context_statistics(fam):
    i = inst(fam, "acic16-02")
    ds, raw = i.dataset("bd", 1), i.dataset("bd", 1, standardise=False)
    tab = i._table(1)
    np.testing.assert_array_equal(raw.X, tab.X[raw.unit_ids])
    np.testing.assert_array_equal(raw.X_query, tab.X[raw.query_ids])
    mean, sd = raw.X.mean(0), raw.X.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    np.testing.assert_allclose(ds.X, (raw.X - mean) / sd, atol=1e-12)
    np.testing.assert_allclose(ds.X_query, (raw.X_query - mean) / sd, atol=1e-12)  # the context's transform
    np.testing.assert_array_equal(ds.Y, raw.Y)  # semi-synthetic outcome stays in native units
    np.testing.assert_array_equal(ds.Y, tab.Y[ds.unit_ids])


def test_acic_oracle_is_mu1_minus_mu0_at_the_queries(fam):
    import pandas as pd

    path, _ = sources.package_file("causallib", f"{sources.ACIC_DIR}/zymu_7.csv")
    z = pd.read_csv(path)
    i = inst(fam, "acic16-07")
    orc, ds = i.oracle("bd", 2), i.dataset("bd", 2)
    np.testing.assert_array_equal(orc.query_ids, ds.query_ids)
    np.testing.assert_allclose(orc.tau, (z["mu1"] - z["mu0"]).to_numpy()[ds.query_ids], atol=0)
    y = np.where(z["z"] == 1, z["y1"], z["y0"])[ds.unit_ids]
    np.testing.assert_array_equal(ds.Y, y)


def test_ihdp_hc_lacks_exactly_bmarr_and_shares_the_world(fam):
    for scm_id in ("ihdp-a", "ihdp-b"):
        i = inst(fam, scm_id)
        for r in range(2):
            bd, hc = i.dataset("bd", r), i.dataset("hc", r)
            assert set(bd.columns["covariates"]) - set(hc.columns["covariates"]) == {"b.marr"}
            assert hc.columns["covariates"] == [c for c in sources.IHDP_COVARIATES if c != "b.marr"]
            assert (bd.d, hc.d) == (25, 24)
            for name in ("query_ids", "unit_ids", "T", "Y"):
                np.testing.assert_array_equal(getattr(bd, name), getattr(hc, name))
            keep = [j for j, c in enumerate(bd.columns["covariates"]) if c != "b.marr"]
            np.testing.assert_array_equal(hc.X, bd.X[:, keep])
            np.testing.assert_array_equal(hc.X_query, bd.X_query[:, keep])
            o_bd, o_hc = i.oracle("bd", r), i.oracle("hc", r)
            np.testing.assert_array_equal(o_bd.tau, o_hc.tau)
            np.testing.assert_array_equal(o_bd.query_ids, o_hc.query_ids)
            assert bd.metadata["seed"] == hc.metadata["seed"]
            assert hc.metadata["hidden"] == ["b.marr"] and bd.metadata["hidden"] == []
    # the surface is drawn per replicate from the world seed (econml's RandomState)
    i = inst(fam, "ihdp-b")
    seed = cell_seed(FAMILY, "ihdp-b", "world", 3) % 2**32
    np.testing.assert_array_equal(i.oracle("bd", 3).tau, sources.ihdp_table("B", seed).tau[i.dataset("bd", 3).query_ids])
    assert np.all(inst(fam, "ihdp-a").oracle("hc", 1).tau == 4.0)


def test_determinism_byte_identical(fam):
    other = EffectRealFamily(n_replicates=4)
    for scm_id, view in (("nsw-cps-null", "bd"), ("acic16-09", "bd"), ("ihdp-b", "hc")):
        a = inst(fam, scm_id).dataset(view, 2).to_npz_bytes()
        b = other.instance(scm_id).dataset(view, 2).to_npz_bytes()
        assert a == b
        np.testing.assert_array_equal(inst(fam, scm_id).oracle(view, 2).tau, other.instance(scm_id).oracle(view, 2).tau)
    assert inst(fam, "acic16-09").dataset("bd", 1).to_npz_bytes() != inst(fam, "acic16-09").dataset("bd", 2).to_npz_bytes()


def test_no_oracle_in_the_worker_npz(fam):
    for scm_id, view in (("acic16-04", "bd"), ("ihdp-b", "hc"), ("nsw-null", "bd")):
        i = inst(fam, scm_id)
        ds = i.dataset(view, 0)
        blob = ds.to_npz_bytes()
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            assert set(z.files) == {"task", "X", "T", "Y", "X_query", "query_ids", "unit_ids", "options", "metadata", "loader"}
            text = (str(z["options"]) + str(z["metadata"])).lower()
            numeric = [z[k] for k in ("X", "Y", "X_query")]
        for word in ORACLE_WORDS:
            assert f'"{word}"' not in text, word
        assert not {c.lower() for c in ds.columns["covariates"]} & set(ORACLE_WORDS)
        tau = i.oracle(view, 0).tau
        if np.ptp(tau) > 0:  # a heterogeneous oracle appears in no array the method receives
            for arr in numeric:
                assert not np.isin(np.round(tau, 9), np.round(arr.ravel(), 9)).any()
        back = EffectDataset.load(blob)
        np.testing.assert_array_equal(back.X, ds.X)


def test_smaller_context_keeps_queries_and_oracle(fam):
    i = inst(fam, "nsw-cps-null")
    full, small = i.dataset("bd", 1), i.dataset("bd", 1, n=256)
    assert small.n == 256 and abs(int(small.T.sum()) - 256 * 185 / 16_177) <= 1
    np.testing.assert_array_equal(full.query_ids, small.query_ids)
    np.testing.assert_array_equal(i.oracle("bd", 1, n=256).tau, i.oracle("bd", 1).tau)
    with pytest.raises(ValueError, match="n=400"):
        inst(fam, "nsw-null").dataset("bd", 0, n=400)


def test_bad_input_errors_name_the_field(fam):
    i = inst(fam, "nsw-null")
    with pytest.raises(ValueError, match="unknown view 'hc'"):
        i.dataset("hc", 0)
    with pytest.raises(ValueError, match="replicate must be 0..3"):
        i.dataset("bd", 4)
    with pytest.raises(ValueError, match="protocol 'soft'"):
        i.dataset("bd", 0, protocol="soft")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['n_rep'\]"):
        EffectRealFamily(n_rep=3)
    with pytest.raises(ValueError, match=r"unknown dataset\(s\) \['psid'\]"):
        EffectRealFamily(datasets="nsw,psid")
    with pytest.raises(ValueError, match="n_replicates must be"):
        EffectRealFamily(n_replicates="many")
    assert EffectRealFamily(datasets="ihdp").ids() == ["ihdp-a", "ihdp-b"]


def test_fingerprints_stable_and_distinct(fam):
    prints = {i.scm_id: i.fingerprint() for i in fam.instances()}
    assert len(set(prints.values())) == len(prints)
    assert all(len(p) == 16 for p in prints.values())
    assert EffectRealFamily(n_replicates=2).instance("acic16-01").fingerprint() == prints["acic16-01"]


def _ols_tau(ds):
    """τ̂ of Y ~ 1 + X + T by least squares (a known-answer estimator for a linear, constant-effect world)."""
    from sklearn.linear_model import LinearRegression

    model = LinearRegression().fit(np.column_stack([ds.X, ds.T]), ds.Y)
    return float(model.coef_[-1])


def test_known_answers_through_the_worker_format(fam):
    # IHDP surface A is linear in the covariates with τ = 4 and unit noise: OLS on the bd view recovers it
    a = inst(fam, "ihdp-a")
    for r in range(3):
        ds = EffectDataset.load(a.dataset("bd", r).to_npz_bytes())
        est = _ols_tau(ds)
        assert abs(est - 4.0) < 0.4
        from arena_task_effect.effect import EffectPrediction

        pred = EffectPrediction(cate=np.full(ds.q, est))
        assert spehe2(a.oracle("bd", r), pred) == pytest.approx((est - 4.0) ** 2)
    # NSW is an RCT: the adjusted contrast of the pre-treatment outcome is near 0 (in context SDs);
    # with CPS controls the raw difference of means is far from 0 (confounded), although τ = 0
    nsw = inst(fam, "nsw-null").dataset("bd", 0)
    assert abs(_ols_tau(nsw)) < 0.2
    cps = inst(fam, "nsw-cps-null").dataset("bd", 0)
    naive = cps.Y[cps.T == 1].mean() - cps.Y[cps.T == 0].mean()
    assert naive < -0.8
