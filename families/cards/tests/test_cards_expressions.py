"""Known answers of the card expression evaluator, its numeric hazards, the card components and units.

Every expected value below is computed by hand (or from the closed form of a
distribution), not by re-running the code under test.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import special, stats

from arena_cards.components import CardChannel, CardExpression, CardRoot
from arena_cards.expressions import MAX_LENGTH, MAX_NODES, Expression, ExpressionError, Hazards
from arena_cards.units import UnitError, dimensionality, parse_unit, to_base_affine

A = np.array([0.0, 2.0])


def ev(text, names=("a", "b"), constants=None, **env):
    return np.asarray(Expression(text, list(names), constants)(env), dtype=float)


# ---------------------------------------------------------------------------
# evaluator: known answers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, a, b, want", [
    ("where(a > 1, a * 2, -a)", [0.0, 2.0], [0.0, 0.0], [0.0, 4.0]),
    ("min(a, b, 3)", [1.0, 5.0, 9.0], [2.0, 4.0, 10.0], [1.0, 3.0, 3.0]),
    ("max(a, b, 3)", [1.0, 5.0, 9.0], [2.0, 4.0, 10.0], [3.0, 5.0, 10.0]),
    ("clip(a, 0, 1)", [-1.0, 0.5, 2.0], [0, 0, 0], [0.0, 0.5, 1.0]),
    ("clip(a, b, 1)", [-1.0, 0.5, 2.0], [0.0, 0.6, 0.0], [0.0, 0.6, 1.0]),
    ("0 < a < 2", [-1.0, 0.0, 1.0, 2.0, 3.0], [0] * 5, [0.0, 0.0, 1.0, 0.0, 0.0]),
    ("0 <= a <= 2", [-1.0, 0.0, 1.0, 2.0, 3.0], [0] * 5, [0.0, 1.0, 1.0, 1.0, 0.0]),
    ("a ** -1", [2.0, 4.0, -0.5], [0] * 3, [0.5, 0.25, -2.0]),
    ("a ** 2", [-3.0, 0.5], [0, 0], [9.0, 0.25]),
    ("-a ** 2", [3.0], [0], [-9.0]),  # ** binds tighter than unary minus
    ("a ** 0.5", [4.0, 2.25], [0, 0], [2.0, 1.5]),
    ("2 + 3 * a - a / 4", [4.0], [0], [13.0]),
    ("(2 + 3) * a", [4.0], [0], [20.0]),
    ("a == b", [1.0, 2.0], [1.0, 3.0], [1.0, 0.0]),
    ("a != b", [1.0, 2.0], [1.0, 3.0], [0.0, 1.0]),
    ("a > 1 and b > 1", [2.0, 2.0, 0.0], [2.0, 0.0, 2.0], [1.0, 0.0, 0.0]),
    ("a > 1 or b > 1", [2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]),
    ("not a", [0.0, 3.0], [0, 0], [1.0, 0.0]),
    ("abs(a) + sign(b)", [-2.0, 3.0], [-5.0, 0.0], [1.0, 3.0]),
    ("floor(a) + ceil(b)", [1.7, -1.2], [0.2, -0.7], [2.0, -2.0]),
    ("round(a)", [1.4, 1.6, -2.6], [0, 0, 0], [1.0, 2.0, -3.0]),
    ("hypot(a, b)", [3.0, 5.0], [4.0, 12.0], [5.0, 13.0]),
    ("arctan2(a, b)", [1.0, 1.0], [1.0, 0.0], [math.pi / 4, math.pi / 2]),
    ("log10(a) + log1p(b)", [100.0, 1000.0], [0.0, math.e - 1], [2.0, 4.0]),
    ("exp(log(a))", [3.0, 7.5], [0, 0], [3.0, 7.5]),
    ("sqrt(a) * sqrt(b)", [4.0, 9.0], [9.0, 16.0], [6.0, 12.0]),
    ("sin(pi / 2) + cos(0) + tan(0)", [0.0], [0], [2.0]),
    ("arcsin(a) + arccos(b)", [1.0], [1.0], [math.pi / 2]),
    ("arctan(a) + sinh(0) + cosh(0) + tanh(0)", [1.0], [0], [math.pi / 4 + 1.0]),
    ("log(e) * pi", [0.0], [0], [math.pi]),
    ("clip(a, 0, 1)", [-1.0, 0.25, 3.0], [0] * 3, [0.0, 0.25, 1.0]),
    ("clip(a, b, 1)", [0.5, 0.5], [0.0, 2.0], [0.5, 1.0]),  # lo > hi gives hi, as np.clip
])
def test_known_values(text, a, b, want):
    got = ev(text, a=np.array(a, dtype=float), b=np.array(b, dtype=float))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_clip_with_a_nan_bound_is_nan_on_every_numpy():
    # numpy 1.x's np.clip read a scalar NaN bound as "no bound" (DeprecationWarning), numpy 2 gives NaN:
    # the language defines NaN, so a card samples the same on both stacks (found by the fuzz test)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ev("clip(a, a, arccos(2))", a=np.array([0.0, 1.0, -1.0]), b=0.0)
        assert np.isnan(got).all()
        got = ev("clip(a, arccos(2), 1)", a=np.array([0.0, 2.0]), b=0.0)
        assert np.isnan(got).all()


def test_sigmoid():
    got = ev("sigmoid(a)", a=np.array([0.0, math.log(3.0), -math.log(3.0), 800.0, -800.0]), b=0.0)
    np.testing.assert_allclose(got, [0.5, 0.75, 0.25, 1.0, 0.0], rtol=1e-12, atol=1e-300)


def test_scalars_and_constants():
    e = Expression("k * a + c ** 2", ["a"], {"k": 2.0, "c": 3.0})
    assert float(e({"a": 1.5})) == 12.0
    np.testing.assert_array_equal(e({"a": np.array([0.0, 1.0])}), [9.0, 11.0])
    assert e.used == ["a"] and e.unused() == []
    # a named constant may be the exponent; its magnitude is bounded like a literal
    assert float(Expression("a ** p", ["a"], {"p": 3})({"a": 2.0})) == 8.0
    with pytest.raises(ExpressionError, match="too large"):
        Expression("a ** p", ["a"], {"p": 17})


def test_used_and_unused_inputs():
    e = Expression("b * 2 + b + sigmoid(b)", ["a", "b", "c"])
    assert e.used == ["b"]
    assert e.unused() == ["a", "c"]
    assert Expression("3", ["a"]).used == []


def test_literal_arithmetic_gives_inf_nan_not_exceptions():
    # constants-only subexpressions follow numpy semantics like arrays do
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ev("1 / 0 + a", a=1.0) == np.inf
        assert ev("0 ** -1 + a", a=1.0) == np.inf
        assert ev("1e300 ** 2 + a", a=1.0) == np.inf
        assert np.isnan(ev("(-8) ** 0.5 + a", a=1.0))
        got = ev("a / 0", a=np.array([1.0, -1.0, 0.0]))
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


@pytest.mark.parametrize("text, match", [
    ("a ** b", "exponent of \\*\\* must be a number or a named constant"),
    ("2 ** 3 ** 2", "exponent of \\*\\* must be a number or a named constant"),
    ("a ** 17", "too large"),
    ("a ** -16.5", "too large"),
    ("a." + "real", "attribute access"),
    ("a[0]", "subscripts"),
    ("a if b else 1", "inline if"),
    ("'x'", "only numbers"),
    ("True + a", "only numbers"),
    ("1j * a", "only numbers"),
    ("a // 2", "not allowed"),
    ("a % 2", "not allowed"),
    ("a in b", "not allowed"),
    ("~a", "not allowed"),
    ("c", "unknown name 'c'"),
    ("exp", "used without a call"),
    ("exp(a, b)", "takes 1 argument"),
    ("min(a)", "takes 2–8 argument"),
    ("clip(a, 0, hi=1)", "keyword arguments"),
    ("max(*a)", "starred"),
    ("_a + a", "underscore"),
    ("foo(a)", "unknown function 'foo'"),
    ("", "empty"),
    ("   ", "empty"),
    ("a +", "syntax error"),
    ("a\x00", "cannot parse|syntax error"),
    ("1" * 400, "literal is too large"),
    ("a ** " + "1" * 400, "too large"),
    ("1e999 * a", "not finite"),
])
def test_rejected(text, match):
    with pytest.raises(ExpressionError, match=match):
        Expression(text, ["a", "b"])


def test_limits_and_column():
    with pytest.raises(ExpressionError, match=f"limit is {MAX_LENGTH}"):
        Expression("a" + " + a" * MAX_LENGTH, ["a"])
    with pytest.raises(ExpressionError, match=f"more than {MAX_NODES} syntax nodes"):
        Expression("a < " * (MAX_NODES + 10) + "a", ["a"])  # one flat comparison chain: shallow, many nodes
    with pytest.raises(ExpressionError, match="nested deeper") as exc:
        Expression("sin(" * 50 + "a" + ")" * 50, ["a"])
    assert exc.value.column is not None
    with pytest.raises(ExpressionError) as exc:
        Expression("a + b.c", ["a", "b"])
    assert exc.value.column == 5  # 1-based column of `b.c`
    with pytest.raises(ExpressionError, match="both inputs and constants"):
        Expression("a", ["a"], {"a": 1.0})
    with pytest.raises(ExpressionError, match="must be a string"):
        Expression(3, ["a"])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# numeric hazards
# ---------------------------------------------------------------------------


def hazards(text, **env):
    hz = Hazards()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # checked evaluation is silent: hazards are recorded, not warned
        Expression(text, sorted(env))(env, hz)
    return hz.found


def test_hazard_division_by_zero_and_sign_change():
    found = hazards("1 / (a - 1)", a=np.array([0.0, 1.0, 2.0]))
    assert found == {"division by zero: a - 1": 1, "division by zero: a - 1 (denominator changes sign)": 1}
    found = hazards("1 / (a - 1)", a=np.array([0.0, 0.5]))  # negative throughout: no hazard
    assert found == {}
    found = hazards("b / a", a=np.array([-1.0, 2.0]), b=np.array([1.0, 1.0]))  # sign change without an exact zero
    assert found == {"division by zero: a (denominator changes sign)": 1}


@pytest.mark.parametrize("text, values, key, count", [
    ("log(a)", [-1.0, 0.0, 1.0], "log argument <= 0: a", 2),
    ("log10(a - 1)", [0.5, 2.0, 3.0], "log10 argument <= 0: a - 1", 1),
    ("log1p(a)", [-1.0, -2.0, 0.0], "log1p argument <= -1: a", 2),
    ("sqrt(a)", [-0.1, 0.0, 4.0], "sqrt argument < 0: a", 1),
    ("arcsin(a)", [-1.5, 1.0, 2.0], "arcsin argument outside [-1, 1]: a", 2),
    ("arccos(a)", [0.0, 1.01], "arccos argument outside [-1, 1]: a", 1),
    ("a ** 0.5", [-1.0, 4.0, -2.0], "negative base to a fractional power: a", 2),
    ("(a - 2) ** -2", [2.0, 3.0], "zero to a negative power: a - 2", 1),
])
def test_domain_hazards(text, values, key, count):
    assert hazards(text, a=np.array(values)) == {key: count}


def test_no_hazard_inside_the_domain_and_none_without_recorder():
    assert hazards("log(a) + sqrt(a) + 1 / a + a ** 0.5 + a ** -1", a=np.array([0.5, 1.0, 3.0])) == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = Expression("log(a)", ["a"])({"a": np.array([-1.0, 0.0])})  # no recorder: silent nan/-inf
        inv = Expression("1 / a", ["a"])({"a": np.array([0.0])})
    assert np.isnan(out[0]) and out[1] == -np.inf and inv[0] == np.inf


def test_guarded_expression_has_no_hazard():
    # where() evaluates both branches; the domain guard must be inside the function argument
    assert hazards("log(max(a, 0.1))", a=np.array([-1.0, 0.0, 2.0])) == {}
    assert hazards("1 / clip(a, 1, 5)", a=np.array([-1.0, 0.0, 2.0])) == {}


# ---------------------------------------------------------------------------
# card_expression: SI conversion of formula expressions
# ---------------------------------------------------------------------------


def test_card_expression_converts_inputs_and_output_to_and_from_si():
    # scale height-like quantity: p [hPa] / c with c = 12 (SI: Pa / 12 -> "m"), returned in km
    mech = CardExpression(expression="p / c", inputs=["p"], constants={"c": 12.0},
                          si_inputs=[[100.0, 0.0]], si_output=[1000.0, 0.0])
    got = mech(np.array([[1013.25], [1200.0]]))
    np.testing.assert_allclose(got, [101325.0 / 12.0 / 1000.0, 120000.0 / 12.0 / 1000.0], rtol=1e-14)
    assert got[0] == pytest.approx(8.44375, rel=1e-14)


def test_card_expression_offset_units():
    # t [degC] -> K, doubled in K, returned in degC: 10 degC -> 283.15 K -> 566.3 K -> 293.15 degC
    mech = CardExpression(expression="2 * t", inputs=["t"], constants={},
                          si_inputs=[[1.0, 273.15]], si_output=[1.0, 273.15])
    np.testing.assert_allclose(mech(np.array([[10.0], [-273.15]])), [293.15, -273.15], rtol=1e-13)


def test_card_expression_two_inputs_and_hazards():
    # v [km/h] and t [min] -> distance in SI metres -> returned in km
    mech = CardExpression(expression="v * t", inputs=["v", "t"], constants={},
                          si_inputs=[[1000.0 / 3600.0, 0.0], [60.0, 0.0]], si_output=[1000.0, 0.0])
    np.testing.assert_allclose(mech(np.array([[60.0, 30.0], [90.0, 20.0]])), [30.0, 30.0], rtol=1e-13)
    div = CardExpression(expression="1 / (x - 5)", inputs=["x"], constants={})
    hz = Hazards()
    div.evaluate(np.array([[4.0], [5.0], [6.0]]), hz)
    assert hz.found == {"division by zero: x - 5": 1, "division by zero: x - 5 (denominator changes sign)": 1}


def test_card_expression_without_si_is_plain_and_broadcasts_constants():
    mech = CardExpression(expression="3", inputs=[], constants={})
    np.testing.assert_array_equal(mech(np.zeros((4, 0))), [3.0, 3.0, 3.0, 3.0])
    with pytest.raises(ValueError, match="not used"):
        CardExpression(expression="a", inputs=["a", "b"], constants={})
    with pytest.raises(ValueError, match="one \\[a, b\\] per input"):
        CardExpression(expression="a", inputs=["a"], constants={}, si_inputs=[[1.0, 0.0], [1.0, 0.0]])


# ---------------------------------------------------------------------------
# card_channel: noise, cut, resolution, clip
# ---------------------------------------------------------------------------

SIGNAL = np.array([-3.0, 0.0, 1.5, 40.0])


def eps(u0, u1=0.5, n=SIGNAL.size):
    return np.column_stack([np.full(n, u0, dtype=float), np.full(n, u1, dtype=float)])


def apply(channel, signal=SIGNAL, e=None):
    e = eps(0.5, n=len(signal)) if e is None else e
    return channel.apply(np.asarray(signal, dtype=float), e, np.zeros((len(signal), 0)))


@pytest.mark.parametrize("params", [
    {"family": "none"},
    {"family": "normal", "scale": 2.0},
    {"family": "laplace", "scale": 2.0},
    {"family": "student_t", "df": 3.0, "scale": 2.0},
    {"family": "uniform", "half_width": 2.0},
    {"family": "mixture_normal", "scale": 1.0, "outlier_prob": 0.1, "outlier_scale": 10.0},
])
def test_symmetric_noise_at_the_median_gives_the_signal(params):
    # exact for the closed-form quantiles; student_t's numeric ppf(0.5) is ~1e-16
    exact = params["family"] != "student_t"
    got = apply(CardChannel(**params))
    if exact:
        np.testing.assert_array_equal(got, SIGNAL)
    else:
        np.testing.assert_allclose(got, SIGNAL, rtol=0, atol=1e-12)


def test_noise_quantiles():
    u = special.ndtr(1.0)  # the standard normal's +1 sd quantile
    np.testing.assert_allclose(apply(CardChannel(family="normal", scale=2.0), e=eps(u)), SIGNAL + 2.0, rtol=1e-12)
    np.testing.assert_allclose(apply(CardChannel(family="uniform", half_width=2.0), e=eps(0.75)), SIGNAL + 1.0)
    # laplace: P(X <= m + s ln 2) = 1 - exp(-ln 2) / 2 = 0.75
    np.testing.assert_allclose(apply(CardChannel(family="laplace", scale=3.0), e=eps(0.75)),
                               SIGNAL + 3.0 * math.log(2.0), rtol=1e-12)
    np.testing.assert_allclose(apply(CardChannel(family="student_t", df=4.0, scale=2.0), e=eps(0.9)),
                               SIGNAL + 2.0 * stats.t.ppf(0.9, 4.0), rtol=1e-12)
    # lognormal is multiplicative and mean-preserving: value * exp(sigma z - sigma^2 / 2)
    np.testing.assert_allclose(apply(CardChannel(family="lognormal", sigma=0.5)), SIGNAL * math.exp(-0.125),
                               rtol=1e-14)
    # mixture_normal: u1 < outlier_prob switches to the outlier scale
    mix = CardChannel(family="mixture_normal", scale=1.0, outlier_prob=0.1, outlier_scale=10.0)
    np.testing.assert_allclose(apply(mix, e=eps(u, 0.05)), SIGNAL + 10.0, rtol=1e-12)
    np.testing.assert_allclose(apply(mix, e=eps(u, 0.50)), SIGNAL + 1.0, rtol=1e-12)


@pytest.mark.parametrize("u", [0.01, 0.3, 0.5, 0.77, 0.99])
def test_poisson_channel_is_the_poisson_quantile(u):
    rates = np.array([0.0, 0.2, 1.0, 3.5, 40.0, 1000.0])
    got = apply(CardChannel(family="poisson"), rates, eps(u, n=rates.size))
    np.testing.assert_array_equal(got, stats.poisson.ppf(u, rates))


def test_bernoulli_and_binomial_channels():
    p = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    np.testing.assert_array_equal(apply(CardChannel(family="bernoulli"), p, eps(0.3, n=p.size)), [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(apply(CardChannel(family="bernoulli"), p, eps(0.95, n=p.size)), [0, 0, 0, 0, 1])
    got = apply(CardChannel(family="binomial", trials=10), p, eps(0.4, n=p.size))
    np.testing.assert_array_equal(got, stats.binom.ppf(0.4, 10, p))
    # probabilities outside [0, 1] are clipped, not an error
    np.testing.assert_array_equal(apply(CardChannel(family="bernoulli"), [-0.5, 1.5], eps(0.5, n=2)), [0, 1])


def test_cut_points_and_cut_values():
    ordinal = CardChannel(family="none", cut=[0.0, 1.0])
    np.testing.assert_array_equal(apply(ordinal, [-1.0, 0.5, 2.0, -0.001, 1.001]), [0, 1, 2, 0, 2])
    threshold = CardChannel(family="none", cut=[2.0], cut_values=[5.0, 7.0])
    np.testing.assert_array_equal(apply(threshold, [1.0, 3.0, -10.0, 10.0]), [5.0, 7.0, 5.0, 7.0])
    # the noise is added before the cut: normal noise at +1 sd moves 1.5 above the cut at 2
    noisy = CardChannel(family="normal", scale=1.0, cut=[2.0])
    np.testing.assert_array_equal(apply(noisy, [1.5, 0.5], eps(special.ndtr(1.0), n=2)), [1.0, 0.0])


def test_threshold_at_exactly_the_cutoff_is_below():
    """FORMAT.md: `above` only if lin + noise > cutoff (noise-free thresholds over integer parents hit it)."""
    threshold = CardChannel(family="none", cut=[2.0], cut_values=[0.0, 1.0])
    np.testing.assert_array_equal(apply(threshold, [2.0]), [0.0])


def test_resolution_and_clip():
    res = CardChannel(family="none", resolution=0.25)
    np.testing.assert_allclose(apply(res, [1.13, 1.2, -0.3, 7.0]), [1.25, 1.25, -0.25, 7.0])
    clip = CardChannel(family="none", clip=[0.0, None])
    np.testing.assert_array_equal(apply(clip, [-3.0, 0.0, 5.0]), [0.0, 0.0, 5.0])
    assert clip.boundaries() == [0.0]
    both = CardChannel(family="normal", scale=1.0, resolution=0.5, clip=[None, 2.0])
    # noise (+1 sd) then resolution then clip: 0.7 + 1 = 1.7 -> 1.5; 1.9 + 1 = 2.9 -> 3.0 -> 2.0
    np.testing.assert_allclose(apply(both, [0.7, 1.9], eps(special.ndtr(1.0), n=2)), [1.5, 2.0])
    assert both.boundaries() == [2.0]
    assert CardChannel(family="none").boundaries() == []


@pytest.mark.parametrize("params, match", [
    ({"family": "gaussian"}, "unknown noise family"),
    ({"family": "normal"}, "must be a finite number"),
    ({"family": "normal", "scale": -1.0}, "must be > 0"),
    ({"family": "normal", "scale": 1.0, "df": 3.0}, "do not apply"),
    ({"family": "mixture_normal", "scale": 1.0, "outlier_prob": 1.5, "outlier_scale": 2.0}, "outlier_prob"),
    ({"family": "binomial", "trials": 2.5}, "integer"),
    ({"family": "none", "cut": [1.0, 0.0]}, "strictly increasing"),
    ({"family": "none", "cut": [0.0], "cut_values": [1.0]}, "one value per interval"),
    ({"family": "none", "resolution": 0.0}, "must be > 0"),
])
def test_channel_rejects_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        CardChannel(**params)


def test_channel_consumes_two_uniform_columns():
    ch = CardChannel(family="normal", scale=1.0)
    u = ch.sample(1000, np.random.default_rng(0))
    assert u.shape == (1000, 2) and (u >= 0).all() and (u < 1).all()


# ---------------------------------------------------------------------------
# card_root: sample moments, determinism
# ---------------------------------------------------------------------------

N = 40_000
ROOTS = [
    # (parameters, mean, sd)
    ({"distribution": "normal", "mean": 10.0, "sd": 2.0}, 10.0, 2.0),
    ({"distribution": "uniform", "low": 2.0, "high": 6.0}, 4.0, 4.0 / math.sqrt(12.0)),
    ({"distribution": "lognormal", "median": 8.0, "sigma": 0.5}, 8.0 * math.exp(0.125),
     8.0 * math.exp(0.125) * math.sqrt(math.exp(0.25) - 1.0)),
    ({"distribution": "gamma", "shape": 2.0, "scale": 3.0}, 6.0, math.sqrt(18.0)),
    ({"distribution": "exponential", "scale": 4.0}, 4.0, 4.0),
    ({"distribution": "beta", "a": 2.0, "b": 3.0, "low": 10.0, "high": 20.0}, 14.0, 2.0),
    ({"distribution": "beta", "a": 2.0, "b": 2.0}, 0.5, math.sqrt(0.05)),
    ({"distribution": "triangular", "low": 0.0, "mode": 1.0, "high": 4.0}, 5.0 / 3.0, math.sqrt(13.0 / 18.0)),
    ({"distribution": "truncated_normal", "mean": 0.0, "sd": 1.0, "low": 0.0, "high": 50.0},
     math.sqrt(2.0 / math.pi), math.sqrt(1.0 - 2.0 / math.pi)),
    ({"distribution": "student_t", "df": 5.0, "loc": 1.0, "scale": 2.0}, 1.0, 2.0 * math.sqrt(5.0 / 3.0)),
    ({"distribution": "bernoulli", "p": 0.3}, 0.3, math.sqrt(0.21)),
    ({"distribution": "binomial", "trials": 10, "p": 0.4}, 4.0, math.sqrt(2.4)),
    ({"distribution": "poisson", "rate": 3.5}, 3.5, math.sqrt(3.5)),
    ({"distribution": "categorical", "probs": [0.2, 0.5, 0.3]}, 1.1, 0.7),
    ({"distribution": "discrete_uniform", "low": 1, "high": 6}, 3.5, math.sqrt(35.0 / 12.0)),
]


@pytest.mark.parametrize("params, mean, sd", ROOTS, ids=[f"{r[0]['distribution']}-{i}" for i, r in enumerate(ROOTS)])
def test_root_sample_mean_within_four_standard_errors(params, mean, sd):
    x = CardRoot(**params).sample(N, np.random.default_rng(20240601))
    assert x.shape == (N,) and np.isfinite(x).all()
    se = sd / math.sqrt(N)
    assert abs(x.mean() - mean) < 4 * se, (x.mean(), mean, se)
    assert 0.9 * sd < x.std() < 1.1 * sd


def test_discrete_roots_are_integer_codes_in_their_support():
    rng = np.random.default_rng(1)
    supports = {"bernoulli": ({"p": 0.5}, {0, 1}), "binomial": ({"trials": 3, "p": 0.5}, {0, 1, 2, 3}),
                "categorical": ({"probs": [0.25, 0.25, 0.5]}, {0, 1, 2}),
                "discrete_uniform": ({"low": -2, "high": 2}, {-2, -1, 0, 1, 2})}
    for dist, (params, support) in supports.items():
        x = CardRoot(distribution=dist, **params).sample(5000, rng)
        assert set(np.unique(x).tolist()) == support, dist
    tn = CardRoot(distribution="truncated_normal", mean=0.0, sd=1.0, low=-0.5, high=0.5).sample(5000, rng)
    assert tn.min() >= -0.5 and tn.max() <= 0.5


@pytest.mark.parametrize("params", [r[0] for r in ROOTS], ids=[r[0]["distribution"] for r in ROOTS])
def test_same_seed_gives_byte_identical_samples(params):
    a = CardRoot(**params).sample(1000, np.random.default_rng(7))
    b = CardRoot(**params).sample(1000, np.random.default_rng(7))
    c = CardRoot(**params).sample(1000, np.random.default_rng(8))
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_same_seed_gives_byte_identical_channel_output():
    ch = CardChannel(family="poisson")
    rates = np.linspace(0.0, 30.0, 500)
    a = ch.apply(rates, ch.sample(500, np.random.default_rng(3)), np.zeros((500, 0)))
    b = ch.apply(rates, ch.sample(500, np.random.default_rng(3)), np.zeros((500, 0)))
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("params, match", [
    ({"distribution": "weibull", "shape": 1.0}, "unknown distribution"),
    ({"distribution": "normal", "mean": 0.0}, "missing parameter"),
    ({"distribution": "normal", "mean": 0.0, "sd": 0.0}, "must be > 0"),
    ({"distribution": "normal", "mean": 0.0, "sd": 1.0, "rate": 2.0}, "do not apply"),
    ({"distribution": "normal", "mean": float("nan"), "sd": 1.0}, "finite"),
    ({"distribution": "uniform", "low": 3.0, "high": 1.0}, "must be < high"),
    ({"distribution": "bernoulli", "p": 1.5}, "p must be in"),
    ({"distribution": "binomial", "trials": 2.5, "p": 0.5}, "positive integer"),
    ({"distribution": "categorical", "probs": [0.5, 0.6]}, "summing to 1"),
    ({"distribution": "categorical", "probs": [1.0]}, "summing to 1"),
    ({"distribution": "triangular", "low": 0.0, "mode": 5.0, "high": 4.0}, "low <= mode <= high"),
])
def test_root_rejects_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        CardRoot(**params)


# ---------------------------------------------------------------------------
# units
# ---------------------------------------------------------------------------


def test_to_base_affine_known_units():
    assert to_base_affine("degC") == (1.0, 273.15)
    assert to_base_affine("hPa") == (100.0, 0.0)
    assert to_base_affine("km") == (1000.0, 0.0)
    assert to_base_affine("kelvin") == (1.0, 0.0)
    assert to_base_affine("1") == (1.0, 0.0)
    assert to_base_affine("count") == (1.0, 0.0)
    assert to_base_affine("percent") == (0.01, 0.0)
    assert to_base_affine("kWh") == (3.6e6, 0.0)
    a, b = to_base_affine("mile / hour")
    assert a == pytest.approx(0.44704, rel=1e-12) and b == 0.0
    a, b = to_base_affine("degF")  # K = (F + 459.67) * 5 / 9
    assert a == pytest.approx(5.0 / 9.0, rel=1e-12) and b == pytest.approx(459.67 * 5.0 / 9.0, rel=1e-12)


def test_units_parse_and_dimensions():
    assert dimensionality("1") == "dimensionless"
    assert dimensionality("count") == "dimensionless"
    assert dimensionality("patients") == "dimensionless"
    assert dimensionality("km / hour") == "[length] / [time]"
    assert dimensionality("USD") == dimensionality("EUR") == "[currency]"
    assert str(parse_unit("hPa")) == str(parse_unit(" hPa "))
    for bad in ("furlongz", "", "   ", "km ** km", "5"):
        with pytest.raises(UnitError):
            parse_unit(bad)
