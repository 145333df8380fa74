"""App. D.2: the analytic identification functionals recover τ₀ (≤ 1e-10) and their ingredients match the data."""

import numpy as np
import pytest

from arena_family_causalidview import functionals as F
from arena_family_causalidview.family import CausalIDViewFamily
from arena_family_causalidview.scm import Settings, generate_world


def test_every_functional_recovers_the_target_in_every_world(originals):
    """40 worlds × 3 variants: potential-outcome identity, back-door, front-door, Wald and proximal ≤ 1e-10;
    Stay and Move targets exact."""
    worst = {}
    for inst in originals:
        for k, v in F.audit(inst.world(0)).items():
            worst[k] = max(worst.get(k, 0.0), v)
    assert worst["nonfinite"] == 0
    for key in ("potential_outcomes", "bd", "fd", "iv", "px"):
        assert worst[key] <= F.TOLERANCE, (key, worst[key])
    assert worst["stay"] == 0.0 and worst["move"] == 0.0


def test_family_audit_records(family):
    recs = CausalIDViewFamily(worlds=2).audit()
    assert [r["scm_id"] for r in recs] == ["w00-linear", "w00-linear-stay", "w00-linear-move",
                                           "w01-quadratic", "w01-quadratic-stay", "w01-quadratic-move"]
    assert all(r["passed"] and r["tables"] == 5 and r["failed_tables"] == 0 for r in recs)


def test_the_naive_contrast_is_biased_and_the_diagnostics_hold(originals):
    """Propensities in [0.02, 0.98], a relevant instrument, a well-conditioned bridge, a biased naive contrast."""
    for inst in originals:
        d = F.diagnostics(inst.world(0))
        assert 0.02 <= d["propensity_min"] and d["propensity_max"] <= 0.98, inst.scm_id
        assert d["first_stage_min"] > 0.15
        assert d["bridge_cond_max"] < 20
        assert d["naive_bias_rms"] > 0.5  # vs s_τ = 0.5: the X-only contrast is visibly confounded


def test_naive_contrast_matches_its_closed_form():
    """E[Y|T=1,x] − E[Y|T=0,x] = τ(x) + γ_U(x)(E[U|T=1,x] − E[U|T=0,x])."""
    w = generate_world("w02-threshold", 2, "threshold")
    x = w.X[w.query_ids]
    e_u = F.posterior_u_given_t(w.mech, x) @ np.array([-1.0, 1.0])
    expected = w.mech.tau0(x) + w.mech.gamma_U(x) * (e_u[:, 1] - e_u[:, 0])
    assert np.allclose(F.naive_contrast(w.mech, x), expected, atol=1e-12)


def test_analytic_ingredients_match_a_large_sample():
    """The functionals' observable-distribution quantities are those of the generator: on 60,000 units the
    residuals of T, U | T, Y | T and W_p | (Z_p, T) against their analytic conditional means average to 0
    within 4 standard errors, overall and within cells of their conditioning variables."""
    w = generate_world("w03-fourier", 3, "fourier", n_context=60_000)
    mech, x, n = w.mech, w.X, w.N
    rows, t = np.arange(n), w.T.astype(int)
    post = F.posterior_u_given_t(mech, x)[rows, t]  # P(u | T_i, x_i)
    e_u = post @ np.array([-1.0, 1.0])
    ey = (post * F.outcome_mean(mech, x)[rows, t]).sum(axis=1)
    A, _ = F.bridge_system(mech, x)
    p_w1 = A[rows, t, w.Zp.astype(int), 1]
    y = w.outcomes()["Y"]
    by_tx = (np.ones(n, bool), w.T == 1, (w.T == 0) & (x[:, 0] > 0))  # cells measurable in (T, X)
    by_ztx = by_tx + ((w.T == 0) & (w.Zp == 1),)  # … and in (Z_p, T, X)
    for name, resid, cells in (("U|T,X", w.U - e_u, by_tx), ("Y|T,X", y - ey, by_tx),
                               ("W|Z,T,X", w.Wp - p_w1, by_ztx)):
        for cell in cells:
            r = resid[cell]
            assert abs(r.mean()) < 4 * r.std() / np.sqrt(r.size), name
    # conditioning U on Z_p as well moves it: the check above has power
    r = (w.U - e_u)[(w.T == 0) & (w.Zp == 1)]
    assert abs(r.mean()) > 10 * r.std() / np.sqrt(r.size)


def test_the_wald_ratio_matches_the_sample_instrument_contrast():
    """Pooled over x, E[T | I=1] − E[T | I=0] in the sample matches the analytic first stage's mean."""
    w = generate_world("w04-mlp", 4, "mlp", n_context=60_000)
    gap = w.T[w.I == 1].mean() - w.T[w.I == 0].mean()
    assert gap == pytest.approx(F.first_stage(w.mech, w.X).mean(), abs=4 * np.sqrt(0.5 / w.N) * 2)


def test_uninformative_proxy_makes_the_bridge_singular():
    """With κ_U = 0, Z_p carries no information on U: both rows of A_t coincide (completeness fails, App. B.4)."""
    w = generate_world("w00-linear", 0, "linear", settings=Settings(kappa_U=0.0))
    A, _ = F.bridge_system(w.mech, w.X[w.query_ids])
    assert np.allclose(A[:, :, 0, :], A[:, :, 1, :], atol=1e-15)
    assert F.diagnostics(w)["bridge_cond_max"] > 1e12


def test_front_door_quadrature_is_exact_for_the_linear_mediator_response():
    w = generate_world("w01-quadratic", 1, "quadratic")
    x = w.X[w.query_ids]
    assert np.allclose(F.frontdoor(w.mech, x, nodes=2), F.frontdoor(w.mech, x), atol=1e-12)
