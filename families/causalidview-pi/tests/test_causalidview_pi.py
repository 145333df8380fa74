"""Tests of arena-family-causalidview-pi (run with the distribution installed): construction integrity
(App. D-style), the SCM's stated properties on every stored unit, and the oracle identified sets
against known answers."""

from __future__ import annotations

import io

import numpy as np
import pytest

from arena_family_causalidview_pi.family import (
    EFFECT_FAMILIES,
    GAMMAS,
    VIEWS,
    CausalIDViewPI,
    PIWorld,
    iv_set,
    manski_set,
    msm_set,
)
from arena_testkit import family_checks

FAM = CausalIDViewPI()
WORLDS = FAM.instances()
#: one world of each effect family (the slow IV LP oracle runs on these)
FIVE = [w for w in WORLDS if w.k < 5]
HAND = np.array([[0.2, 0.3, 0.1, 0.4]])  # P(T,Y|x) at (0,0), (0,1), (1,0), (1,1)


#: the family kit's task-independent checks; its other checks assume discovery instances (a Dataset and a
#: true graph) and reject an EffectInstance — a core gap, covered by this file's own integrity tests
TASK_FREE_CHECKS = ("registered", "descriptor_cheap", "factors", "replicates", "fingerprint")


@pytest.mark.parametrize("check_id", TASK_FREE_CHECKS)
def test_conformance(check_id):
    dict(family_checks("causalidview_pi", max_instances=2))[check_id]()


def test_forty_worlds_eight_per_effect_family_and_clear_errors():
    ids = FAM.ids()
    assert len(ids) == 40 and ids[0] == "pi-w00-linear" and ids[-1] == "pi-w39-mlp"
    counts = {f: sum(w.factors["effect_family"] == f for w in WORLDS) for f in EFFECT_FAMILIES}
    assert counts == {f: 8 for f in EFFECT_FAMILIES} == FAM.expected_counts()["effect_family"]
    assert CausalIDViewPI(effect_families="linear,mlp").ids()[:2] == ["pi-w00-linear", "pi-w04-mlp"]
    with pytest.raises(ValueError, match="effect_families"):
        CausalIDViewPI(effect_families="cubic")
    with pytest.raises(ValueError, match="unknown option"):
        CausalIDViewPI(worlds=3)
    with pytest.raises(KeyError, match="pi-w00-mlp"):
        FAM.instance("pi-w00-mlp")
    w = WORLDS[0]
    with pytest.raises(ValueError, match="unknown view 'bd'"):
        w.dataset("bd", 0)
    with pytest.raises(ValueError, match="replicate"):
        w.dataset("pi_manski", 1)
    with pytest.raises(ValueError, match="n \\(context units\\)"):
        w.dataset("pi_manski", 0, n=1)
    with pytest.raises(ValueError, match="protocol"):
        w.dataset("pi_manski", 0, protocol="shift")


def test_views_share_rows_ids_and_targets():
    """App. D.1 pairing: every view of a world has the same units, X, T, Y, split, query ids and τ₀."""
    for w in (WORLDS[0], WORLDS[17]):
        dss = {v: w.dataset(v, 0) for v in VIEWS}
        ref = dss["pi_manski"]
        assert ref.n == 1024 and ref.q == 100 and ref.d == 50
        assert len(set(ref.unit_ids) | set(ref.query_ids)) == 1124  # disjoint context and queries
        u = w.units(0)
        for v, ds in dss.items():
            for name in ("X", "T", "Y", "X_query", "unit_ids", "query_ids"):
                np.testing.assert_array_equal(getattr(ds, name), getattr(ref, name), err_msg=f"{v}.{name}")
            assert ds.outcome == "binary" and ds.target == "bounds" and ds.view == v
            assert ds.roles == (["instrument"] if v == "pi_iv" else [])
            # each view against its master-world projection (stored values and row identities)
            np.testing.assert_array_equal(ds.T, u["T"][ds.unit_ids])
            np.testing.assert_array_equal(ds.Y, u["Y"][ds.unit_ids])
            o = w.oracle(v, 0) if v != "pi_iv" else None
            if o is not None:
                np.testing.assert_array_equal(o.query_ids, ds.query_ids)
                np.testing.assert_array_equal(o.tau, w.tau(u["X"][ds.query_ids]))
        iv = dss["pi_iv"]
        np.testing.assert_array_equal(iv.auxiliary["instrument"][:, 0], u["I"][iv.unit_ids])
        np.testing.assert_array_equal(iv.auxiliary_query["instrument"][:, 0], u["I"][iv.query_ids])
        assert [dss[f"pi_msm_{g:g}"].gamma for g in GAMMAS] == list(GAMMAS)
        assert {dss[v].assumption for v in VIEWS} == {"manski", "iv", "msm"}
        # standardised X is an affine map of the raw X, fitted on the context
        raw = w.dataset("pi_manski", 0, standardise=False)
        np.testing.assert_array_equal(raw.X, u["X"][raw.unit_ids])
        np.testing.assert_allclose(ref.X.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(ref.X.std(axis=0), 1, atol=1e-12)


def test_outcome_probabilities_potential_outcomes_and_target_on_every_stored_unit():
    for w in WORLDS:
        par = w.params
        assert par["A_b"] > 0 and par["A_tau"] > 0 and par["A_b"] + par["A_tau"] / 2 <= 0.45
        u = w.units(0)
        X = u["X"]
        for uu in (-1.0, 1.0):
            p0, p1 = w.outcome_prob(X, uu, 0), w.outcome_prob(X, uu, 1)
            assert 0.05 <= min(p0.min(), p1.min()) and max(p0.max(), p1.max()) <= 0.95
            np.testing.assert_allclose(p1 - p0, w.tau(X), rtol=0, atol=1e-14)  # p₁ − p₀ = τ₀ exactly
        # shared V_Y: Y(1) ≥ Y(0) where τ₀ > 0 and the factual Y is Y(T)
        assert ((u["Y1"] >= u["Y0"]) | (w.tau(X) < 0)).all()
        np.testing.assert_array_equal(u["Y"], np.where(u["T"] == 1, u["Y1"], u["Y0"]))
        # the realised cell frequencies match the SCM's cells (1,124 units: loose)
        freq = np.bincount(2 * u["T"] + u["Y"].astype(int), minlength=4) / len(u["T"])
        assert np.abs(freq - w.cells(X).mean(axis=0)).max() < 0.06


def test_msm_holds_at_gamma_2_on_every_stored_unit():
    """App. C.5: the odds ratio of e(x,u) = ½ Σ_z P(T=1|x,u,z) against e(x) = ½ Σ_u e(x,u) lies in [½, 2]."""
    worst = 0.0
    for w in WORLDS:
        X = w.units(0)["X"]
        eu = {uu: 0.5 * (w.propensity(X, uu, 0) + w.propensity(X, uu, 1)) for uu in (-1.0, 1.0)}
        e = 0.5 * (eu[-1.0] + eu[1.0])
        np.testing.assert_allclose(e, w.cells(X)[:, 2:].sum(axis=1), atol=1e-14)
        for uu in (-1.0, 1.0):
            ratio = (eu[uu] / (1 - eu[uu])) / (e / (1 - e))
            assert (ratio >= 0.5).all() and (ratio <= 2.0).all(), w.scm_id
        level = w.gamma_level(X)
        worst = max(worst, level.max())
        assert level.min() >= 1.0
    assert 1.5 < worst <= 2.0  # confounded, and within the calibrated level


def test_hand_computed_manski_and_msm_cell():
    # Manski: E[Y(1)] ∈ [0.4, 0.9], E[Y(0)] ∈ [0.3, 0.8] → τ ∈ [−0.4, 0.6]
    lo, hi = manski_set(HAND)
    np.testing.assert_allclose([lo[0], hi[0]], [-0.4, 0.6], atol=1e-15)
    # MSM Γ=2: e = ½, p₁ = 0.8, p₀ = 0.6, a = 1.5, b = 3; E[Y(1)] ∈ [max(.6,.7), min(1.2,.85)] = [.7,.85],
    # E[Y(0)] ∈ [max(.45,.4), min(.9,.7)] = [.45,.7] → τ ∈ [0, 0.4]
    lo, hi = msm_set(HAND, 2.0)
    np.testing.assert_allclose([lo[0], hi[0]], [0.0, 0.4], atol=1e-15)
    lo, hi = msm_set(HAND, 1.0)
    np.testing.assert_allclose([lo[0], hi[0]], [0.2, 0.2], atol=1e-15)  # p₁ − p₀


def _brute_force_msm_arm(p_y1: float, p_y0: float, gamma: float, m: int = 240):
    """min / max of E[Y(t)|x] = e·mean(Y_i W_i) over weight vectors W ∈ [a, b]^m with mean W = 1/e,
    on m treated units of which a share p₁ has Y = 1 (an LP over the weights, scipy linprog)."""
    from scipy.optimize import linprog

    e = p_y1 + p_y0
    p1 = p_y1 / e
    m1 = int(round(p1 * m))
    assert abs(m1 / m - p1) < 1e-12
    y = np.r_[np.ones(m1), np.zeros(m - m1)]
    a, b = 1 + (1 / e - 1) / gamma, 1 + (1 / e - 1) * gamma
    out = []
    for sign in (1.0, -1.0):
        res = linprog(sign * e * y / m, A_eq=np.ones((1, m)) / m, b_eq=[1 / e], bounds=[(a, b)] * m, method="highs")
        assert res.status == 0
        out.append(sign * res.fun)
    return out


@pytest.mark.parametrize("cell", [[0.2, 0.3, 0.1, 0.4], [0.05, 0.15, 0.35, 0.45], [0.3, 0.3, 0.3, 0.1],
                                  [0.45, 0.3, 0.15, 0.1]])
@pytest.mark.parametrize("gamma", [1.0, 1.5, 2.0, 5.0])
def test_msm_closed_form_equals_brute_force_weight_optimisation(cell, gamma):
    c = np.array([cell])
    l1, u1 = _brute_force_msm_arm(c[0, 3], c[0, 2], gamma)
    l0, u0 = _brute_force_msm_arm(c[0, 1], c[0, 0], gamma)
    lo, hi = msm_set(c, gamma)
    np.testing.assert_allclose([lo[0], hi[0]], [l1 - u0, u1 - l0], atol=1e-9)


def test_iv_lp_equals_its_closed_form_and_contains_the_truth():
    """The monotone-IV LP on the true cells equals the closed form
    [P(1,1|1) − P(0,1|0) − P(T=1|0), P(1,1|1) − P(0,1|0) + P(T=0|1)] (README), τ₀ inside, ⊆ Manski."""
    for w in FIVE:
        o = w.oracle("pi_iv", 0)
        Xq = w.units(0)["X"][:100]
        c0, c1 = w.cells(Xq, 0), w.cells(Xq, 1)
        base = c1[:, 3] - c0[:, 1]
        np.testing.assert_allclose(o.lower, base - c0[:, 2:].sum(axis=1), atol=1e-12)
        np.testing.assert_allclose(o.upper, base + c1[:, :2].sum(axis=1), atol=1e-12)
        assert ((o.lower <= o.tau) & (o.tau <= o.upper)).all()
        m = w.oracle("pi_manski", 0)
        assert ((m.lower <= o.lower + 1e-12) & (o.upper <= m.upper + 1e-12)).all()
        assert (o.upper - o.lower).mean() < 0.8  # informative: width 1 − complier share


def test_truth_inside_every_set_and_msm_sets_nested_and_growing():
    for w in WORLDS:
        Xq = w.units(0)["X"][:100]
        tau, cells, level = w.tau(Xq), w.cells(Xq), w.gamma_level(Xq)
        ml, mu = manski_set(cells)
        np.testing.assert_allclose(mu - ml, 1.0, atol=1e-14)
        assert ((ml <= tau) & (tau <= mu)).all()
        # IV closed form on every world (the LP itself: test_iv_lp_equals_its_closed_form…)
        c0, c1 = w.cells(Xq, 0), w.cells(Xq, 1)
        assert ((c1[:, 3] - c0[:, 1] - c0[:, 2:].sum(1) <= tau) & (tau <= c1[:, 3] - c0[:, 1] + c1[:, :2].sum(1))).all()
        prev = None
        for g in GAMMAS:
            lo, hi = msm_set(cells, g)
            ok = level <= g  # the MSM holds at x at every Γ ≥ Γ(x): τ₀(x) is in the set
            assert ((lo[ok] <= tau[ok] + 1e-12) & (tau[ok] <= hi[ok] + 1e-12)).all(), (w.scm_id, g)
            assert ((ml <= lo + 1e-12) & (hi <= mu + 1e-12)).all()
            if prev is not None:
                assert ((lo <= prev[0] + 1e-12) & (prev[1] <= hi + 1e-12)).all()
                assert (hi - lo).mean() > (prev[1] - prev[0]).mean()
            prev = (lo, hi)
        naive = cells[:, 3] / cells[:, 2:].sum(1) - cells[:, 1] / cells[:, :2].sum(1)
        np.testing.assert_allclose(msm_set(cells, 1.0)[0], naive, atol=1e-12)
        assert (level <= 2.0).all()  # so Γ ∈ {2, 3, 5} contain τ₀ at every query


def test_oracle_views_match_the_formulas_and_hidden_confounding_shows_at_gamma_1():
    w = WORLDS[3]
    Xq = w.units(0)["X"][:100]
    for g in GAMMAS:
        o = w.oracle(f"pi_msm_{g:g}", 0)
        np.testing.assert_array_equal(np.c_[o.lower, o.upper], np.c_[msm_set(w.cells(Xq), g)])
    o1 = w.oracle("pi_msm_1", 0)
    assert np.abs(o1.lower - o1.tau).max() > 0.02  # the observational contrast is biased (U confounds)


def test_no_oracle_in_the_workers_npz():
    w = WORLDS[1]
    u = w.units(0)
    for v in ("pi_manski", "pi_iv", "pi_msm_2"):
        o = w.oracle(v, 0)
        with np.load(io.BytesIO(w.dataset(v, 0).to_npz_bytes()), allow_pickle=False) as z:
            allowed = {"task", "X", "T", "Y", "X_query", "query_ids", "unit_ids", "options", "metadata", "loader"}
            allowed |= {"aux__instrument", "auxq__instrument"} if v == "pi_iv" else set()
            assert set(z.files) == allowed
            for key in z.files:
                arr = z[key]
                if arr.dtype.kind == "f":
                    for secret in (o.tau, o.lower, o.upper, u["p1"][:100]):
                        assert not np.isin(np.round(secret, 12), np.round(arr.ravel(), 12)).any(), key
            meta = str(z["metadata"])
            assert "alpha" not in meta and "tau" not in meta


def test_determinism_fingerprints_and_replicates():
    a = PIWorld("pi-w07-threshold").dataset("pi_iv", 0).to_npz_bytes()
    b = CausalIDViewPI().instance("pi-w07-threshold").dataset("pi_iv", 0).to_npz_bytes()
    assert a == b
    fps = {w.fingerprint() for w in WORLDS}
    assert len(fps) == 40 and all(len(f) == 16 for f in fps)
    assert PIWorld("pi-w07-threshold").fingerprint() == WORLDS[7].fingerprint()
    two = PIWorld("pi-w07-threshold", n_replicates=2)
    d0, d1 = two.dataset("pi_manski", 0), two.dataset("pi_manski", 1)
    assert not np.array_equal(d0.X, d1.X) and two.fingerprint() == WORLDS[7].fingerprint()
    # a larger context keeps the queries and the oracle
    big = WORLDS[7].dataset("pi_manski", 0, n=3000)
    assert big.n == 3000
    np.testing.assert_array_equal(big.query_ids, d0.query_ids)
    np.testing.assert_array_equal(WORLDS[7].dataset("pi_manski", 0, standardise=False, n=3000).X_query,
                                  WORLDS[7].dataset("pi_manski", 0, standardise=False).X_query)


def test_iv_set_names_an_incompatible_query():
    c0 = np.array([[0.2, 0.3, 0.1, 0.4]])
    c1 = np.array([[0.3, 0.3, 0.0, 0.4]])  # P(1,0|z=1) < P(1,0|z=0): a defier would be needed
    with pytest.raises(ValueError, match="query 0"):
        iv_set(c0, c1)
