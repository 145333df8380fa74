"""The generator: known values, calibration, seeds, monotonicity, determinism (App. C)."""

import numpy as np
import pytest

from arena_family_causalidview.scm import (
    EFFECT_FAMILIES,
    SETTINGS,
    Settings,
    draw_mechanisms,
    effect_surface,
    generate_world,
    sparse_direction,
    world_seed,
)
from causalarena.protocol import cell_seed


@pytest.mark.parametrize("family, coef, a, b, expected", [
    ("linear", {"w": np.array([2.0, -1.0])}, 1.5, 0.5, 2.5),
    ("quadratic", {"c": np.array([1.0, 0.5, -0.5])}, 2.0, 1.0, 2.0 + 2.0 - 0.5),
    ("threshold", {"theta": np.array([0.0, 0.0]), "sign": np.array([1.0])}, 1.0, 1.0, 1.5 + 0.5),
    ("threshold", {"theta": np.array([0.0, 0.0]), "sign": np.array([-1.0])}, -1.0, 1.0, -0.5),
    ("fourier", {"omega": np.array([1.0, 1.0]), "phi": np.array([0.0, 0.0])}, 0.0, np.pi / 2, 0.5),
    ("mlp", {"W": np.array([[1.0, 0.0]]), "bias": np.array([0.0]), "out": np.array([2.0])},
     np.arctanh(0.5), 3.0, 1.0),
])
def test_effect_surfaces_hand_values(family, coef, a, b, expected):
    got = effect_surface(family, coef, np.array([a]), np.array([b]))
    assert got[0] == pytest.approx(expected, abs=1e-12)


def test_sparse_direction_is_a_k_sparse_unit_vector():
    v = sparse_direction(np.random.default_rng(0), 50, 14)
    assert np.count_nonzero(v) == 14 and np.linalg.norm(v) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="k = 51"):
        sparse_direction(np.random.default_rng(0), 50, 51)


def test_linear_tau0_by_hand():
    """τ₀ of world 0 (linear) at x = v_a: a = 1, b = v_aᵀv_b, τ₀ = τ̄ + s_τ (w₀ + w₁ b − m_q)/sd_q;
    and m_q, sd_q match their analytic values 0 and √(w₀² + w₁² + 2w₀w₁ v_aᵀv_b) to Monte Carlo error."""
    w = generate_world("w00-linear", 0, "linear")
    mech = w.mech
    w0, w1 = mech.coef["w"]
    rho = float(mech.v_a @ mech.v_b)
    x = mech.v_a[None, :]
    by_hand = 1.0 + 0.5 * (w0 * 1.0 + w1 * rho - mech.m_q) / mech.sd_q
    assert mech.tau0(x)[0] == pytest.approx(by_hand, abs=1e-12)
    sd = np.sqrt(w0 ** 2 + w1 ** 2 + 2 * w0 * w1 * rho)
    assert abs(mech.m_q) < 4 * sd / np.sqrt(SETTINGS.n_calibration)
    assert mech.sd_q == pytest.approx(sd, rel=0.03)


@pytest.mark.parametrize("family", EFFECT_FAMILIES)
def test_calibration_gives_every_family_the_same_mean_and_scale(family):
    """τ₀ on a fresh sample of 50,000 X has mean ≈ τ̄ = 1 and sd ≈ s_τ = 0.5 (App. C.4)."""
    mech = draw_mechanisms(family, np.random.default_rng(1), np.random.default_rng(2))
    tau = mech.tau0(np.random.default_rng(3).standard_normal((50_000, 50)))
    assert tau.mean() == pytest.approx(1.0, abs=0.02)
    assert tau.std() == pytest.approx(0.5, rel=0.03)


def test_seed_is_the_cell_seed_and_shared():
    w = generate_world("w07-threshold", 7, "threshold")
    assert w.seed == cell_seed("causalidview", "w07-threshold", "world", 0) == world_seed("w07-threshold", 0)


def test_same_world_twice_is_identical_and_replicates_share_the_scm():
    a, b = generate_world("w03-fourier", 3, "fourier"), generate_world("w03-fourier", 3, "fourier")
    for name in ("X", "U", "I", "T", "Zp", "Wp", "M", "context_ids", "query_ids"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    r1 = generate_world("w03-fourier", 3, "fourier", replicate=1)
    assert not np.array_equal(a.X, r1.X)  # a fresh realization …
    assert np.array_equal(a.mech.v_a, r1.mech.v_a) and a.mech.sd_q == r1.mech.sd_q  # … of the same SCM


def test_shared_threshold_monotonicity_and_propensity():
    """T^I(1) ≥ T^I(0) at every unit (App. B.3.4); T = T^I(I); and T's mean matches σ(η) (logistic threshold)."""
    w = generate_world("w01-quadratic", 1, "quadratic", n_context=40_000)
    assert (w.T_I1 >= w.T_I0).all() and np.array_equal(w.T, np.where(w.I == 1, w.T_I1, w.T_I0))
    e = w.mech.propensity(w.X)[np.arange(w.N), (w.U > 0).astype(int), w.I]
    resid = w.T - e
    assert abs(resid.mean()) < 4 * np.sqrt(np.mean(e * (1 - e)) / w.N)
    # and within the instrument arms (the instrument shifts the threshold)
    for i in (0, 1):
        r = resid[w.I == i]
        assert abs(r.mean()) < 4 * 0.5 / np.sqrt(r.size)


def test_mediator_is_complete_and_shared():
    w = generate_world("w04-mlp", 4, "mlp")
    assert np.allclose(w.M1 - w.M0, SETTINGS.delta, atol=1e-12)
    assert np.array_equal(w.M, np.where(w.T == 1, w.M1, w.M0))


def test_variants_change_only_the_outcome():
    w = generate_world("w02-threshold", 2, "threshold")
    o, s, m = (w.outcomes(v) for v in ("original", "stay", "move"))
    assert np.array_equal(s["tau"], o["tau"]) and np.array_equal(m["tau"], 2 * o["tau"])
    # stay: the confounding term flips sign, nothing else
    gam = w.mech.gamma_U(w.X)
    assert np.allclose(s["Y"], o["Y"] - 2 * gam * w.U, atol=1e-12)
    # move: β → 2β adds β(X) M(T) once more
    assert np.allclose(m["Y"], o["Y"] + w.mech.beta(w.X) * w.M, atol=1e-12)
    with pytest.raises(ValueError, match="variant 'shift'"):
        w.outcomes("shift")


def test_bad_generator_inputs_are_named():
    with pytest.raises(ValueError, match="effect family 'cubic'"):
        generate_world("w00-cubic", 0, "cubic")
    with pytest.raises(ValueError, match="n_context"):
        generate_world("w00-linear", 0, "linear", n_context=1)
    with pytest.raises(ValueError, match="replicate"):
        generate_world("w00-linear", 0, "linear", replicate=-1)
    with pytest.raises(ValueError, match="degenerate"):
        draw_mechanisms("linear", np.random.default_rng(0), np.random.default_rng(0),
                        Settings(n_calibration=1))
