"""Root distributions, noise families and root dependency (App. A.1): known answers and paper ranges.

Tolerances: moments are checked on n = 200,000 draws with 5 standard errors
(se of a mean = sd/√n; se of a sample variance = √((μ4 − σ⁴)/n), μ4 from the
known kurtosis or, where it is finite, estimated from the sample); frequencies
with 5 binomial standard errors √(p(1 − p)/n). Every test uses a fixed seed,
so a pass is reproducible; 5 se makes a false failure under a new seed
unlikely (< 1e-6 per check).
"""

import math

import numpy as np
import pytest
from scipy import stats

from arena_family_synthetic.distributions import PAPER_NOISES, PAPER_ROOTS, ROOT_DEPENDENCY_MODES
from causalarena.plugins import default_registry
from causalarena.scm import (
    ComponentSpec,
    NodeSpec,
    SCMSpec,
    SpecError,
    calibrate_outputs,
    component_class,
    node_from_components,
)

N = 200_000
SEEDS = range(300)


def _installed(kind):
    """{spec kind: class} of ``kind`` from the core's basic set and this distribution (the grid's catalogue)."""
    registry = default_registry()
    return {r.name: component_class(kind, r.name) for r in registry.components.values()
            if r.kind == kind and r.distribution in ("causal-arena", "arena-family-synthetic")}


ROOT_DISTRIBUTIONS = _installed('root_distribution')

NOISES = _installed('noise')

ROOT_DEPENDENCIES = _installed('root_dependency')

MECHANISMS = _installed('mechanism')


def assert_mean(x, mean, sd):
    """Sample mean within 5 se of ``mean`` (sd: the population sd)."""
    tol = 5 * sd / math.sqrt(len(x))
    assert abs(x.mean() - mean) <= tol, (x.mean(), mean, tol)


def assert_var(x, var, kurtosis=None):
    """Sample variance within 5 se of ``var``; kurtosis (non-excess) known or estimated from the sample."""
    m4 = var ** 2 * kurtosis if kurtosis is not None else np.mean((x - x.mean()) ** 4)
    tol = 5 * math.sqrt((m4 - var ** 2) / len(x))
    assert abs(x.var() - var) <= tol, (x.var(), var, tol)


def assert_freq(hits, p, n):
    tol = 5 * math.sqrt(p * (1 - p) / n)
    assert abs(hits / n - p) <= tol, (hits / n, p, tol)


# ---------------------------------------------------------------------------
# catalogue
# ---------------------------------------------------------------------------


def test_paper_catalogue_is_registered():
    assert len(PAPER_ROOTS) == 14 and set(PAPER_ROOTS) <= set(ROOT_DISTRIBUTIONS)
    assert "laplace" in ROOT_DISTRIBUTIONS and "laplace" not in PAPER_ROOTS
    assert len(PAPER_NOISES) == 15 and PAPER_NOISES[-1] == "none"
    assert set(PAPER_NOISES) - {"none"} == set(NOISES) and "none" not in NOISES
    assert ROOT_DEPENDENCY_MODES == ("independent", "common_factor", "random_covariance", "uniform_ball")
    assert set(ROOT_DEPENDENCY_MODES[1:]) <= set(ROOT_DEPENDENCIES)
    assert {k for k in PAPER_ROOTS if ROOT_DISTRIBUTIONS[k].discrete} == {
        "bernoulli", "poisson", "ordinal", "multinomial", "zipf"}


def test_no_noise_option_is_a_null_noise():
    node = node_from_components("b", ["a"], np.random.default_rng(0), noise="none")
    assert node.noise is None and node.tags["noise"] == "none"


# ---------------------------------------------------------------------------
# root distributions: moments and support vs parameters
# ---------------------------------------------------------------------------


def _root(kind, **params):
    return ROOT_DISTRIBUTIONS[kind](**params).sample(N, np.random.default_rng(11))


@pytest.mark.parametrize("kind,params,ref", [
    ("uniform", {"low": -1.5, "high": 2.5}, stats.uniform(-1.5, 4.0)),
    ("gaussian", {"loc": -0.7, "scale": 1.6}, stats.norm(-0.7, 1.6)),
    ("lognormal", {"mean": 0.4, "sigma": 0.8}, stats.lognorm(s=0.8, scale=math.exp(0.4))),
    ("gamma", {"concentration": 2.5, "rate": 1.6}, stats.gamma(a=2.5, scale=1 / 1.6)),
    ("scaled_beta", {"a": 0.9, "b": 3.0, "low": -0.6, "high": 2.2}, stats.beta(0.9, 3.0, loc=-0.6, scale=2.8)),
    ("exponential", {"rate": 0.5}, stats.expon(scale=2.0)),
    ("gumbel", {"loc": 0.3, "scale": 1.2}, stats.gumbel_r(0.3, 1.2)),
    ("poisson", {"rate": 7.5}, stats.poisson(7.5)),
])
def test_root_moments_and_support_match_scipy(kind, params, ref):
    x = _root(kind, **params)
    mean, var, _, kurt = (float(v) for v in ref.stats("mvsk"))
    assert_mean(x, mean, math.sqrt(var))
    assert_var(x, var, kurtosis=kurt + 3)
    lo, hi = ref.support()
    assert x.min() >= lo and x.max() <= hi


def test_gamma_mean_is_concentration_over_rate():
    x = _root("gamma", concentration=4.0, rate=0.5)
    assert_mean(x, 4.0 / 0.5, math.sqrt(4.0 / 0.25))
    assert_var(x, 4.0 / 0.25, kurtosis=3 + 6 / 4.0)


def test_poisson_mean_equals_variance_on_integers():
    x = _root("poisson", rate=3.0)
    assert np.all(x == np.round(x)) and x.min() >= 0
    assert_mean(x, 3.0, math.sqrt(3.0))
    assert_var(x, 3.0, kurtosis=3 + 1 / 3.0)


def test_bernoulli_mean_is_p():
    x = _root("bernoulli", p=0.3)
    assert set(np.unique(x)) == {0.0, 1.0}
    assert_freq(x.sum(), 0.3, N)


def test_truncated_gaussian_never_beyond_2_5_sd_with_clip_mass():
    dist = ROOT_DISTRIBUTIONS["truncated_gaussian"](loc=0.5, scale=0.8)
    lo, hi = dist.boundaries()
    assert (lo, hi) == pytest.approx((0.5 - 2.0, 0.5 + 2.0))
    x = dist.sample(N, np.random.default_rng(3))
    assert x.min() == lo and x.max() == hi  # clipped, so both points are hit on a large sample
    tail = stats.norm.cdf(-2.5)  # 0.0062 on each side
    assert_freq(np.sum(x == lo), tail, N)
    assert_freq(np.sum(x == hi), tail, N)
    assert_mean(x, 0.5, 0.8)  # symmetric clipping keeps the mean


def test_ordinal_support_and_softmax_probabilities():
    probs = [0.1, 0.2, 0.3, 0.4]
    x = _root("ordinal", probs=probs)
    values, counts = np.unique(x, return_counts=True)
    assert values.tolist() == [0.0, 1.0, 2.0, 3.0]
    for c, p in zip(counts, probs):
        assert_freq(c, p, N)


def test_mixture_gaussian_moments_and_component_share():
    w, m1, s1, m2, s2 = 0.3, -1.5, 0.4, 1.2, 0.6
    x = _root("mixture_gaussian", weight=w, loc1=m1, scale1=s1, loc2=m2, scale2=s2)
    mean = w * m1 + (1 - w) * m2
    var = w * (s1 ** 2 + m1 ** 2) + (1 - w) * (s2 ** 2 + m2 ** 2) - mean ** 2
    assert_mean(x, mean, math.sqrt(var))
    assert_var(x, var)
    # P(x < 0) = w Φ(−m1/s1) + (1 − w) Φ(−m2/s2)
    assert_freq(np.sum(x < 0), w * stats.norm.cdf(-m1 / s1) + (1 - w) * stats.norm.cdf(-m2 / s2), N)


def test_multinomial_index_standardised_with_population_moments():
    probs = [0.5, 0.25, 0.25]
    dist = ROOT_DISTRIBUTIONS["multinomial"](probs=probs)
    # index c ∈ {0, 1, 2}: μ = 0.75, σ² = 0.5625·0.5 + 0.0625·0.25 + 1.5625·0.25 = 0.6875
    assert dist.index_mean == pytest.approx(0.75) and dist.index_sd == pytest.approx(math.sqrt(0.6875))
    x = dist.sample(N, np.random.default_rng(4))
    values, counts = np.unique(x, return_counts=True)
    assert values == pytest.approx((np.arange(3) - 0.75) / math.sqrt(0.6875))
    for c, p in zip(counts, probs):
        assert_freq(c, p, N)
    assert_mean(x, 0.0, 1.0)
    assert_var(x, 1.0)


def test_zipf_known_answer_small_support():
    # support 3, alpha 1: p ∝ (1, 1/2, 1/3) = (6, 3, 2)/11, mean 18/11, values v − 18/11
    dist = ROOT_DISTRIBUTIONS["zipf"](support=3, alpha=1.0)
    assert dist.center == pytest.approx(18 / 11)
    x = dist.sample(N, np.random.default_rng(5))
    values, counts = np.unique(x, return_counts=True)
    assert values == pytest.approx(np.array([1, 2, 3]) - 18 / 11)
    for c, p in zip(counts, [6 / 11, 3 / 11, 2 / 11]):
        assert_freq(c, p, N)


def test_zipf_capped_at_10_and_centred():
    support, alpha = 20, 2.0
    v = np.arange(1, support + 1)
    p = v ** -alpha / np.sum(v ** -alpha)
    mean = np.minimum(v, 10) @ p
    x = _root("zipf", support=support, alpha=alpha)
    assert x.max() == pytest.approx(10 - mean)  # capped value reached, nothing above
    assert_freq(np.sum(np.isclose(x, 10 - mean)), p[9:].sum(), N)  # all of v ≥ 10 lands on the cap
    sd = math.sqrt(((np.minimum(v, 10) - mean) ** 2) @ p)
    assert_mean(x, 0.0, sd)


# ---------------------------------------------------------------------------
# root draws stay in the paper's ranges (App. A.1 "Root distributions")
# ---------------------------------------------------------------------------

ROOT_RANGES = {
    "uniform": {"low": (-2, 0), "high": (0.5, 3.0)},
    "gaussian": {"scale": (0.5, 2.0)},
    "truncated_gaussian": {"scale": (0.4, 1.4)},
    "lognormal": {"mean": (-0.3, 0.7), "sigma": (0.25, 0.9)},
    "gamma": {"concentration": (1, 5), "rate": (0.5, 2)},
    "scaled_beta": {"a": (0.8, 5), "b": (0.8, 5), "low": (-1, 0), "high": (0.8, 3.0)},
    "exponential": {"rate": (0.4, 2.5)},
    "gumbel": {"loc": (-1, 1), "scale": (0.3, 1.8)},
    "bernoulli": {"p": (0.15, 0.85)},
    "poisson": {"rate": (1, 12)},
    "mixture_gaussian": {"weight": (0.2, 0.8), "loc1": (-2, -0.2), "loc2": (0.2, 2), "scale1": (0.3, 1.0),
                         "scale2": (0.3, 1.0)},
    "zipf": {"support": (8, 20), "alpha": (2, 4)},
    "ordinal": {}, "multinomial": {},
}


@pytest.mark.parametrize("kind", PAPER_ROOTS)
def test_root_draws_within_paper_ranges(kind):
    cls = ROOT_DISTRIBUTIONS[kind]
    draws = [cls.draw(np.random.default_rng(s)) for s in SEEDS]
    for params in draws:
        assert set(params) == set(cls.parameters)
        for name, (lo, hi) in ROOT_RANGES[kind].items():
            assert lo <= params[name] <= hi, (name, params[name])
        cls(**params)  # valid
    assert set(ROOT_RANGES[kind]) <= set(cls.parameters)


@pytest.mark.parametrize("kind,sd", [("gaussian", 1.0), ("truncated_gaussian", 0.8)])
def test_root_mean_drawn_from_normal(kind, sd):
    locs = np.array([ROOT_DISTRIBUTIONS[kind].draw(np.random.default_rng(s))["loc"] for s in range(4000)])
    assert_mean(locs, 0.0, sd)
    assert_var(locs, sd ** 2, kurtosis=3)


def test_categorical_draws_levels_and_logits():
    ordinal = [ROOT_DISTRIBUTIONS["ordinal"].draw(np.random.default_rng(s))["probs"] for s in range(2000)]
    assert {len(p) for p in ordinal} == {3, 4, 5, 6}
    # probs = softmax(z), z iid N(0, 1): centred log-probs are z − z̄, with E[(z_i − z̄)²] = (k − 1)/k
    k4 = np.array([np.log(p) - np.mean(np.log(p)) for p in ordinal if len(p) == 4])
    assert_var(k4.ravel(), 3 / 4)
    multi = [ROOT_DISTRIBUTIONS["multinomial"].draw(np.random.default_rng(s))["probs"] for s in range(2000)]
    assert {len(p) for p in multi} == set(range(2, 11))
    for p in multi:
        assert sum(p) == pytest.approx(1.0)
        logit_range = np.ptp(np.log(p))  # logits ∈ [−1.5, 1.5]
        assert logit_range <= 3.0 + 1e-9


# ---------------------------------------------------------------------------
# noise: moments / support / formula vs parameters
# ---------------------------------------------------------------------------


def _noise(kind, **params):
    return NOISES[kind](**params)


def _eps(kind, **params):
    return _noise(kind, **params).sample(N, np.random.default_rng(21))


@pytest.mark.parametrize("kind,params,var,kurt,support", [
    ("gaussian", {"scale": 0.3}, 0.09, 3.0, (-np.inf, np.inf)),
    ("uniform", {"scale": 0.3}, 0.03, 1.8, (-0.3, 0.3)),
    ("laplace", {"scale": 0.2}, 0.08, 6.0, (-np.inf, np.inf)),
    ("student_t", {"df": 7.0, "scale": 0.2}, 0.04 * 7 / 5, 3 + 6 / 3, (-np.inf, np.inf)),
    ("beta", {"a": 2.0, "b": 6.0, "scale": 0.4}, 0.16 * 12 / (64 * 9), None, (-0.4 * 0.25, 0.4 * 0.75)),
    ("exponential", {"rate": 2.0, "scale": 0.3}, (0.3 / 2) ** 2, 9.0, (-0.15, np.inf)),
    ("gumbel", {"scale": 0.25}, math.pi ** 2 * 0.0625 / 6, 3 + 2.4, (-np.inf, np.inf)),
])
def test_additive_noise_centred_with_known_variance_and_support(kind, params, var, kurt, support):
    e = _eps(kind, **params)
    assert_mean(e, 0.0, math.sqrt(var))
    assert_var(e, var, kurtosis=kurt)
    assert e.min() >= support[0] and e.max() <= support[1]
    # additive: value − signal is the exogenous draw
    sig = np.linspace(-1, 1, 5)
    assert _noise(kind, **params).apply(sig, e[:5, None], np.zeros((5, 1))) == pytest.approx(sig + e[:5])


def test_student_t_quantile():
    e = _eps("student_t", df=3.0, scale=0.1)
    q = 0.1 * stats.t.ppf(0.975, 3.0)
    assert_freq(np.sum(np.abs(e) > q), 0.05, N)


def test_multiplicative_lognormal_is_median_one_in_log():
    noise = _noise("multiplicative_lognormal", sigma=0.2)
    rng = np.random.default_rng(6)
    signal = rng.uniform(0.5, 3.0, N)
    value = noise.apply(signal, noise.sample(N, rng)[:, None], signal[:, None])
    log_ratio = np.log(value / signal)
    assert_mean(log_ratio, 0.0, 0.2)  # E[log(value/signal)] = 0
    assert_var(log_ratio, 0.04, kurtosis=3)
    neg = -signal[:10]
    assert np.all(noise.apply(neg, np.full((10, 1), 0.1), neg[:, None]) == neg * math.exp(0.1))


def test_heteroskedastic_variance_grows_with_abs_signal():
    base, slope = 0.1, 0.2
    noise = _noise("heteroskedastic", base=base, slope=slope)
    rng = np.random.default_rng(7)
    for s in (0.0, 1.0, -1.0, 4.0):
        signal = np.full(N, s)
        resid = noise.apply(signal, noise.sample(N, rng)[:, None], signal[:, None]) - signal
        sd = base + slope / (1 + math.exp(-abs(s)))  # base + slope·sigmoid(|s|)
        assert_mean(resid, 0.0, sd)
        assert_var(resid, sd ** 2, kurtosis=3)
    assert noise.conditional_scale(np.array([0.0, 4.0])) == pytest.approx([0.2, 0.1 + 0.2 / (1 + math.exp(-4))])


def _rff_known():
    # D = 2 features, k = 1 parent
    return _noise("rff_heteroskedastic", frequencies=[[1.0], [2.0]], phases=[0.0, math.pi / 2],
                  coefficients=[1.0, -1.0], length_scale=2.0, output_scale=0.5)


def test_rff_heteroskedastic_known_answer():
    noise = _rff_known()
    assert noise.n_inputs() == 1
    # g(x) = 0.5·√(2/2)·(cos(x/2) − cos(x + π/2)); g(0) = 0.5, g(π) = 0.5·(0 − cos(3π/2)) = 0
    x = np.array([[0.0], [math.pi]])
    # float32 evaluation (the RFF numeric policy, generator synthetic@2): ~1e-7 absolute here
    assert noise.latent(x) == pytest.approx([0.5, 0.0], abs=1e-6)
    assert noise.conditional_scale(x) == pytest.approx([math.log1p(math.exp(0.5)), math.log(2.0)])
    rng = np.random.default_rng(8)
    parents = np.zeros((N, 1))
    signal = np.ones(N)
    resid = noise.apply(signal, noise.sample(N, rng)[:, None], parents) - signal
    sd = math.log1p(math.exp(0.5))
    assert_var(resid, sd ** 2, kurtosis=3)
    with pytest.raises(ValueError, match="parameters are for 1 parents"):
        noise.apply(signal[:3], np.zeros((3, 1)), np.zeros((3, 2)))


def test_rff_latent_is_an_rbf_gp_draw():
    # over parameter draws, E[g(x) g(y)] = output_scale²·exp(−|x − y|²/(2 ℓ²)) (Rahimi & Recht)
    x, y = np.array([[0.3, -0.2]]), np.array([[0.8, 0.4]])
    gx, gy = [], []
    for s in range(3000):
        params = NOISES["rff_heteroskedastic"].draw(np.random.default_rng(s), k=2)
        params.update(length_scale=1.0, output_scale=1.0)
        noise = NOISES["rff_heteroskedastic"](**params)
        gx.append(noise.latent(x)[0])
        gy.append(noise.latent(y)[0])
    gx, gy = np.array(gx), np.array(gy)
    # near-Gaussian unit-variance factors: sd(g_x g_y) = √(1 + c²) ≤ √2, so 5 se = 5·√2/√3000 ≈ 0.13
    assert np.mean(gx * gx) == pytest.approx(1.0, abs=0.13)
    assert np.mean(gx * gy) == pytest.approx(math.exp(-(0.25 + 0.36) / 2), abs=0.13)


def test_target_r2_known_answer_and_large_sample():
    noise = _noise("target_r2", r2=0.8)
    # signal of variance exactly 4: scale² = 4·(1 − 0.8)/0.8 = 1
    assert noise.calibrate(np.tile([-2.0, 2.0], 50), None, None) == {"scale": pytest.approx(1.0)}
    with pytest.raises(ValueError, match="calibrate"):
        noise.apply(np.zeros(3), np.zeros((3, 1)), np.zeros((3, 1)))
    for r2 in (0.1, 0.5, 0.9):
        noise = _noise("target_r2", r2=r2)
        rng = np.random.default_rng(9)
        pilot = 2.0 * rng.standard_normal(20_000)
        calibrated = _noise("target_r2", r2=r2, **noise.calibrate(pilot, noise.sample(20_000, rng)[:, None], None))
        signal = 2.0 * rng.standard_normal(N)
        value = calibrated.apply(signal, calibrated.sample(N, rng)[:, None], None)
        # pilot variance has relative se √(2/20000) = 1 %, moving R² by ≤ r2(1 − r2)·1 % ≤ .0025; 0.01 is 4 se
        assert np.var(signal) / np.var(value) == pytest.approx(r2, abs=0.01)


def test_mixture_outlier_variance_and_outlier_rate():
    bs, p, os_ = 0.1, 0.05, 2.0
    e = _eps("mixture_outlier", base_scale=bs, outlier_prob=p, outlier_scale=os_)
    var = (1 - p) * bs ** 2 + p * os_ ** 2
    assert_mean(e, 0.0, math.sqrt(var))
    assert_var(e, var)
    # |e| > 0.5 is 5 base sds: essentially only outliers, P = p·P(|N(0, 2²)| > 0.5)
    share = p * 2 * stats.norm.sf(0.5 / os_) + (1 - p) * 2 * stats.norm.sf(0.5 / bs)
    assert_freq(np.sum(np.abs(e) > 0.5), share, N)


def test_quantized_on_grid_with_sheppard_variance():
    noise = _noise("quantized", scale=0.2, step=0.25)
    assert noise.apply(np.array([0.26, -0.4]), np.zeros((2, 1)), None) == pytest.approx([0.25, -0.5])
    rng = np.random.default_rng(10)
    signal = rng.uniform(-3, 3, N)
    value = noise.apply(signal, noise.sample(N, rng)[:, None], None)
    assert np.allclose(value / 0.25, np.round(value / 0.25))
    # continuous signal: rounding error ~ U(−step/2, step/2) independent of it, var step²/12
    var = 0.04 + 0.25 ** 2 / 12
    assert_mean(value - signal, 0.0, math.sqrt(var))
    assert_var(value - signal, var)


def test_censored_at_pilot_percentiles():
    noise = _noise("censored", scale=0.3)
    assert noise.boundaries() == []
    with pytest.raises(ValueError, match="calibrate"):
        noise.apply(np.zeros(3), np.zeros((3, 1)), None)
    rng = np.random.default_rng(12)
    pilot = rng.standard_normal(20_000)
    update = noise.calibrate(pilot, noise.sample(20_000, rng)[:, None], None)
    # s + ε ~ N(0, 1.09): percentiles ±1.8808·√1.09 (pilot quantile se ≈ 0.02)
    assert update["high"] == pytest.approx(stats.norm.ppf(0.97) * math.sqrt(1.09), abs=0.1)
    assert update["low"] == pytest.approx(-stats.norm.ppf(0.97) * math.sqrt(1.09), abs=0.1)
    censored = _noise("censored", scale=0.3, **update)
    assert censored.boundaries() == [update["low"], update["high"]]
    signal = rng.standard_normal(N)
    value = censored.apply(signal, censored.sample(N, rng)[:, None], None)
    assert value.min() == update["low"] and value.max() == update["high"]
    # mass at each boundary ≈ 3 %: pilot quantile error shifts it by ≲ 0.12 pp, plus the binomial 5 se
    for bound in (update["low"], update["high"]):
        assert np.mean(value == bound) == pytest.approx(0.03, abs=5 * math.sqrt(0.03 * 0.97 / N) + 0.003)


@pytest.mark.parametrize("kind,params,message", [
    ("bernoulli", {"p": 1.5}, "'p' must be in"),
    ("ordinal", {"probs": [0.5, 0.6]}, "'probs'"),
    ("multinomial", {"probs": [1.0, 0.0]}, "'probs' puts all mass"),
    ("zipf", {"support": 8.5, "alpha": 2.0}, "'support' must be an integer"),
    ("scaled_beta", {"a": 1, "b": 1, "low": 1.0, "high": 0.0}, "low"),
    ("gamma", {"concentration": 2.0, "rate": -1.0}, "'rate'"),
])
def test_root_validation_names_the_parameter(kind, params, message):
    with pytest.raises(ValueError, match=message):
        ROOT_DISTRIBUTIONS[kind](**params)


@pytest.mark.parametrize("kind,params,message", [
    ("target_r2", {"r2": 1.0}, "'r2'"),
    ("censored", {"scale": 0.1, "low": 0.0}, "both 'low' and 'high'"),
    ("censored", {"scale": 0.1, "low": 1.0, "high": 0.0}, "low"),
    ("rff_heteroskedastic", {"frequencies": [[1.0]], "phases": [0.0, 1.0], "coefficients": [1.0],
                             "length_scale": 1.0, "output_scale": 1.0}, "'phases'"),
    ("mixture_outlier", {"base_scale": 0.1, "outlier_prob": 0.0, "outlier_scale": 1.0}, "'outlier_prob'"),
])
def test_noise_validation_names_the_parameter(kind, params, message):
    with pytest.raises(ValueError, match=message):
        NOISES[kind](**params)


# ---------------------------------------------------------------------------
# noise draws stay in the paper's ranges (App. A.1 "Structural noise")
# ---------------------------------------------------------------------------

NOISE_RANGES = {
    "gaussian": {"scale": (0.05, 0.45)},
    "uniform": {"scale": (0.05, 0.45)},
    "laplace": {"scale": (0.03, 0.35)},
    "student_t": {"df": (2.5, 8), "scale": (0.03, 0.30)},
    "multiplicative_lognormal": {"sigma": (0.03, 0.25)},
    "heteroskedastic": {"base": (0.02, 0.15), "slope": (0.02, 0.20)},
    "rff_heteroskedastic": {"length_scale": (0.25, 3.0), "output_scale": (0.3, 1.8)},
    "target_r2": {"r2": (0.1, 0.9)},
    "mixture_outlier": {"base_scale": (0.02, 0.15), "outlier_prob": (0.01, 0.08), "outlier_scale": (0.8, 2.5)},
    "quantized": {"scale": (0.05, 0.45), "step": (0.05, 0.35)},
    "censored": {"scale": (0.05, 0.45)},
    "beta": {"a": (1, 10), "b": (1, 10), "scale": (0.05, 0.45)},
    "exponential": {"rate": (0.8, 4.0), "scale": (0.03, 0.35)},
    "gumbel": {"scale": (0.03, 0.35)},
}


@pytest.mark.parametrize("kind", [k for k in PAPER_NOISES if k != "none"])
def test_noise_draws_within_paper_ranges(kind):
    cls = NOISES[kind]
    for s in SEEDS:
        params = cls.draw(np.random.default_rng(s), k=3)
        for name, (lo, hi) in NOISE_RANGES[kind].items():
            assert lo <= params[name] <= hi, (name, params[name])
        cls(**params)
    assert set(NOISE_RANGES[kind]) <= set(cls.parameters)


def test_rff_draw_needs_k_and_sizes_features():
    with pytest.raises(ValueError, match="needs k"):
        NOISES["rff_heteroskedastic"].draw(np.random.default_rng(0))
    sizes = set()
    for s in SEEDS:
        params = NOISES["rff_heteroskedastic"].draw(np.random.default_rng(s), k=4)
        d = len(params["phases"])
        assert 64 <= d <= 256 and np.shape(params["frequencies"]) == (d, 4) and len(params["coefficients"]) == d
        assert all(0 <= p <= 2 * math.pi for p in params["phases"])
        sizes.add(d)
    assert min(sizes) < 80 and max(sizes) > 240  # the whole 64–256 range is used


# ---------------------------------------------------------------------------
# root dependency (App. A.1 "Root dependency")
# ---------------------------------------------------------------------------


def _block(kind, r, seed):
    params = ROOT_DEPENDENCIES[kind].draw(r, np.random.default_rng(seed))
    return ROOT_DEPENDENCIES[kind](nodes=[f"x{i}" for i in range(r)], **params)


@pytest.mark.parametrize("kind", ROOT_DEPENDENCY_MODES[1:])
@pytest.mark.parametrize("r", [2, 5])
def test_dependency_population_standardisation(kind, r):
    dep = _block(kind, r, seed=r)
    x = dep.sample(N, np.random.default_rng(13))
    assert x.shape == (N, r)
    for j in range(r):
        assert_mean(x[:, j], 0.0, 1.0)
        # Gaussian kinds: kurtosis 3; uniform ball coordinates are platykurtic, so 3 is conservative
        assert_var(x[:, j], 1.0, kurtosis=3)


def test_common_factor_correlation_is_rho_times_signs():
    dep = ROOT_DEPENDENCIES["common_factor"](nodes=["a", "b", "c"], rho=0.6, signs=[1, -1, 1])
    c = np.corrcoef(dep.sample(N, np.random.default_rng(14)), rowvar=False)
    expected = 0.6 * np.outer([1, -1, 1], [1, -1, 1])
    np.fill_diagonal(expected, 1.0)
    # se of a correlation ≈ (1 − ρ²)/√n < 1/√n
    assert c == pytest.approx(expected, abs=5 / math.sqrt(N))


def test_random_covariance_correlation_is_standardised_LLt_plus_jitter():
    loadings = [[1.0, 0.0], [0.5, 0.5], [-1.0, 2.0]]
    dep = ROOT_DEPENDENCIES["random_covariance"](nodes=["a", "b", "c"], loadings=loadings)
    sigma = np.array(loadings) @ np.array(loadings).T + 0.15 * np.eye(3)
    assert dep.covariance() == pytest.approx(sigma)
    corr = sigma / np.sqrt(np.outer(np.diag(sigma), np.diag(sigma)))
    x = dep.sample(N, np.random.default_rng(15))
    assert np.corrcoef(x, rowvar=False) == pytest.approx(corr, abs=5 / math.sqrt(N))
    assert x.var(axis=0) == pytest.approx(np.ones(3), abs=5 * math.sqrt(2 / N))


def test_uniform_ball_radius_and_uncorrelated_columns():
    r = 3
    dep = ROOT_DEPENDENCIES["uniform_ball"](nodes=["a", "b", "c"], scale=1.5, center=[0.2, -0.4, 0.1])
    x = dep.sample(N, np.random.default_rng(16))
    radius = np.linalg.norm(x, axis=1) / math.sqrt(r + 2)  # back to the unit ball
    assert radius.max() <= 1.0 + 1e-12
    for q in (0.3, 0.5, 0.9):  # R = U^{1/r}: P(R ≤ q) = q^r (uniform in the ball)
        assert_freq(np.sum(radius <= q), q ** r, N)
    assert np.corrcoef(x, rowvar=False) == pytest.approx(np.eye(r), abs=5 / math.sqrt(N))


def test_dependency_draws_within_paper_ranges():
    qs = set()
    for s in SEEDS:
        rng = np.random.default_rng(s)
        cf = ROOT_DEPENDENCIES["common_factor"].draw(4, rng)
        assert 0.25 <= cf["rho"] <= 0.75 and len(cf["signs"]) == 4 and set(cf["signs"]) <= {-1.0, 1.0}
        rc = ROOT_DEPENDENCIES["random_covariance"].draw(4, rng)
        assert np.shape(rc["loadings"])[0] == 4
        qs.add(np.shape(rc["loadings"])[1])
        ub = ROOT_DEPENDENCIES["uniform_ball"].draw(4, rng)
        assert 0.75 <= ub["scale"] <= 2.0 and len(ub["center"]) == 4
        assert all(-0.5 <= c <= 0.5 for c in ub["center"])
        for kind, params in (("common_factor", cf), ("random_covariance", rc), ("uniform_ball", ub)):
            assert "nodes" not in params
            ROOT_DEPENDENCIES[kind](nodes=["a", "b", "c", "d"], **params)
    assert qs == {1, 2, 3, 4}  # latent dimension 1..r


@pytest.mark.parametrize("kind,params,message", [
    ("common_factor", {"nodes": ["a", "b"], "rho": 0.5, "signs": [1, 1, -1]}, "for 3 roots but 'nodes' names 2"),
    ("common_factor", {"nodes": ["a", "b"], "rho": 0.5, "signs": [1, 0.5]}, "'signs'"),
    ("uniform_ball", {"nodes": ["a"], "scale": 1.0, "center": [0.0]}, "'nodes'"),
    ("random_covariance", {"nodes": ["a", "b"], "loadings": [1.0, 2.0]}, "'loadings'"),
])
def test_dependency_validation(kind, params, message):
    with pytest.raises(ValueError, match=message):
        ROOT_DEPENDENCIES[kind](**params)


# ---------------------------------------------------------------------------
# end to end through the SCM
# ---------------------------------------------------------------------------


def _linear(parents, rng):
    return ComponentSpec(kind="linear", params=MECHANISMS["linear"].draw(len(parents), rng))


def _noise_spec(kind, k, rng):
    return ComponentSpec(kind=kind, params=NOISES[kind].draw(rng, k=k))


def _mixed_spec(seed=0):
    rng = np.random.default_rng(seed)
    roots = {"a": "gamma", "b": "ordinal", "c": "zipf"}
    nodes = [NodeSpec(name=n, role="root",
                      root_distribution=ComponentSpec(kind=k, params=ROOT_DISTRIBUTIONS[k].draw(rng)))
             for n, k in roots.items()]
    for name, parents, noise in (("d", ["a", "b", "c"], "rff_heteroskedastic"), ("e", ["d"], "censored"),
                                 ("f", ["d", "e"], "target_r2"), ("g", ["e"], "multiplicative_lognormal")):
        nodes.append(NodeSpec(name=name, role="mechanism", parents=parents, mechanism=_linear(parents, rng),
                              noise=_noise_spec(noise, len(parents), rng)))
    dep = ComponentSpec(kind="common_factor",
                        params={"nodes": ["a", "b"], **ROOT_DEPENDENCIES["common_factor"].draw(2, rng)})
    return SCMSpec(id="dist/e2e", nodes=nodes, root_dependency=dep)


def test_spec_with_nonadditive_noise_and_dependency_round_trips_bit_for_bit():
    spec = calibrate_outputs(_mixed_spec(), n=2000, seed=1)
    text = spec.to_json()
    again = SCMSpec.from_json(text)
    assert again.to_json() == text
    x1 = spec.compile().sample(1000, np.random.default_rng(5))
    x2 = again.compile().sample(1000, np.random.default_rng(5))
    assert x1.tobytes() == x2.tobytes()
    assert np.all(np.isfinite(x1))
    # the censored node stays within its calibrated points; the dependent roots are correlated ±rho
    e = again.nodes[4].noise.params
    assert x1[:, 4].min() >= e["low"] and x1[:, 4].max() <= e["high"]
    rho, signs = again.root_dependency.params["rho"], again.root_dependency.params["signs"]
    assert np.corrcoef(x1[:, 0], x1[:, 1])[0, 1] == pytest.approx(rho * signs[0] * signs[1], abs=5 / math.sqrt(1000))


@pytest.mark.parametrize("kind", [k for k in PAPER_NOISES if k != "none"])
def test_scm_node_value_is_the_noise_channel(kind):
    rng = np.random.default_rng(17)
    nodes = [NodeSpec(name=n, role="root", root_distribution=ComponentSpec(kind="uniform",
                                                                           params={"low": 0.5, "high": 2.0}))
             for n in ("a", "b")]
    nodes.append(NodeSpec(name="y", role="mechanism", parents=["a", "b"], mechanism=_linear(["a", "b"], rng),
                          noise=_noise_spec(kind, 2, rng)))
    spec = calibrate_outputs(SCMSpec(id=f"dist/{kind}", nodes=nodes), n=2000, seed=2)
    scm = spec.compile()
    exo = scm.draw_exogenous(500, np.random.default_rng(3))
    x = scm.propagate(exo)
    noise = NOISES[kind](**spec.nodes[2].noise.params)
    parents = x[:, scm.parents[2]]
    signal = scm.signal(2, parents)
    expected = noise.apply(signal, exo[:, scm._exo_cols[2]], parents)
    assert x[:, 2].tobytes() == expected.tobytes()
    assert SCMSpec.from_json(spec.to_json()).compile().sample(200, np.random.default_rng(4)).tobytes() == \
        scm.sample(200, np.random.default_rng(4)).tobytes()


def test_spec_rejects_bad_dependency_and_noise_params():
    spec = _mixed_spec()
    bad = spec.to_dict()
    bad["root_dependency"]["params"]["signs"] = [1.0, 1.0, 1.0]
    with pytest.raises(SpecError, match="for 3 roots"):
        SCMSpec.from_dict(bad)
