"""The mechanism catalogue of App. A.1: known answers, paper ranges, spec round trips, parameter checks."""

import json
import math
import re

import numpy as np
import pytest

from arena_family_synthetic.mechanisms import GRID_MECHANISMS, MECHANISM_TAGS, kinds_for_tag
from causalarena.plugins import default_registry
from causalarena.scm import SCMSpec, SpecError, calibrate_outputs, component_class, node_from_components

CATALOGUE = ("activation", "aggregation", "discretisation", "exp_log", "interaction", "linear", "neural", "periodic",
             "piecewise", "polynomial", "product", "random_function_product", "rational", "regime_switching", "rff",
             "saturation", "tree")
ACTIVATIONS = ("relu", "leaky_relu", "softplus", "sigmoid", "abs", "sign", "step", "hard_tanh", "relu6", "elu",
               "selu", "silu", "modulo", "round", "rank")

# rows (x1, x2) used by most known-answer cases
X = np.array([[1.0, 2.0], [0.0, -1.0], [-0.5, 0.5]])


def _installed(kind):
    """{spec kind: class} of ``kind`` from the core's basic set and this distribution (the grid's catalogue)."""
    registry = default_registry()
    return {r.name: component_class(kind, r.name) for r in registry.components.values()
            if r.kind == kind and r.distribution in ("causal-arena", "arena-family-synthetic")}


MECHANISMS = _installed('mechanism')


def sig(z):
    return 1.0 / (1.0 + math.exp(-z))


def mech(kind, **params):
    return MECHANISMS[kind](**params)


# ---------------------------------------------------------------------------
# tags
# ---------------------------------------------------------------------------


def test_sixteen_tags_seventeen_kinds():
    assert set(CATALOGUE) == set(MECHANISMS) == set(GRID_MECHANISMS)
    assert len(MECHANISM_TAGS) == 16 and len(set(MECHANISM_TAGS)) == 16
    assert list(MECHANISM_TAGS) == sorted(MECHANISM_TAGS)
    assert {MECHANISMS[k].factor_tag() for k in CATALOGUE} == set(MECHANISM_TAGS)
    assert kinds_for_tag("multiplicative") == ("product", "random_function_product")
    for tag in set(MECHANISM_TAGS) - {"multiplicative"}:
        assert kinds_for_tag(tag) == (tag,)
    with pytest.raises(ValueError, match="unknown mechanism tag 'multiplikative'"):
        kinds_for_tag("multiplikative")


# ---------------------------------------------------------------------------
# known answers (expected values worked out by hand from the formulas)
# ---------------------------------------------------------------------------


def test_linear():
    f = mech("linear", weights=[0.5, -1.0], bias=0.25)
    assert f(X).tolist() == pytest.approx([0.5 - 2.0 + 0.25, 1.0 + 0.25, -0.25 - 0.5 + 0.25])


def test_polynomial():
    f = mech("polynomial", weights=[1.0, 0.0], quadratic=[0.5, 0.0], cubic=[0.0, 0.1], bias=0.2)
    assert f(X).tolist() == pytest.approx([1 + 0.5 + 0.8 + 0.2, -0.1 + 0.2, -0.5 + 0.125 + 0.0125 + 0.2])


def test_neural():
    f = mech("neural", hidden_weights=[[1.0, 0.0], [0.0, 1.0]], hidden_bias=[0.0, 0.5], output_weights=[2.0, -1.0],
             bias=0.1)
    t = math.tanh
    assert f(X).tolist() == pytest.approx([2 * t(1) - t(2.5) + 0.1, -t(-0.5) + 0.1, 2 * t(-0.5) - t(1.0) + 0.1])


def test_saturation():
    f = mech("saturation", weights=[1.0, 1.0], bias=0.0, scale=2.0)
    assert f(X).tolist() == pytest.approx([2 * math.tanh(1.5), 2 * math.tanh(-0.5), 0.0])


def test_product():
    f = mech("product", weights=[2.0, -1.0], biases=[0.5, 1.0])
    # (2 x1 + 0.5)(−x2 + 1)
    assert f(X).tolist() == pytest.approx([2.5 * -1.0, 0.5 * 2.0, -0.5 * 0.5])


def test_random_function_product():
    f = mech("random_function_product", slopes=[1.0, 2.0], shifts=[0.5, -1.0], output_scale=1.5)
    t = math.tanh
    assert f(X).tolist() == pytest.approx([1.5 * t(1.5) * t(3.0), 1.5 * t(0.5) * t(-3.0), 0.0])


def test_interaction_pairs_and_single_parent_self_pair():
    f = mech("interaction", weights=[1.0, 0.0, -1.0], bias=0.5, pairs=[[0, 1], [1, 2]],
             interaction_weights=[2.0, -0.5])
    x3 = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    # x1 − x3 + 0.5 + 2 x1 x2 − 0.5 x2 x3
    assert f(x3).tolist() == pytest.approx([1 - 3 + 0.5 + 4 - 3, -1 - 2 + 0.5 - 1 - 0.5])
    one = mech("interaction", weights=[1.0], bias=0.0, pairs=[[0, 0]], interaction_weights=[0.5])
    assert one(np.array([[2.0], [-1.0]])).tolist() == pytest.approx([2 + 0.5 * 4, -1 + 0.5])
    assert MECHANISMS["interaction"].draw(1, np.random.default_rng(0))["pairs"] == [[0, 0]]


def test_rational():
    f = mech("rational", weights=[1.0, 1.0], bias=1.0, denominator_weights=[1.0, -1.0], offset=0.5)
    # (x1 + x2 + 1) / (0.5 + |x1 − x2|)
    assert f(X).tolist() == pytest.approx([4 / 1.5, 0 / 1.5, 1 / 1.5])


@pytest.mark.parametrize("transform,bias,expected", [
    ("exp", 1.0, [math.exp(3.0), 1.0, math.e]),  # u = 4 (clipped to 3), 0, 1
    ("log", 1.0, [math.log(5.0), 0.0, math.log(2.0)]),
    ("signed_log", -1.0, [math.log(3.0), -math.log(3.0), -math.log(2.0)]),  # u = 2, −2, −1
])
def test_exp_log(transform, bias, expected):
    f = mech("exp_log", weights=[1.0, 1.0], bias=bias, transform=transform)
    assert f(X).tolist() == pytest.approx(expected)


def test_exp_input_is_clipped_at_minus_3_too():
    f = mech("exp_log", weights=[1.0], bias=0.0, transform="exp")
    assert f(np.array([[-10.0], [-3.0], [10.0]])).tolist() == pytest.approx([math.exp(-3)] * 2 + [math.exp(3)])


def test_periodic():
    f = mech("periodic", amplitudes=[1.0, 2.0], frequencies=[1.0, 0.5], phases=[0.0, math.pi / 2], bias=0.1)
    # sin(x1) + 2 sin(x2/2 + π/2) + 0.1 = sin(x1) + 2 cos(x2/2) + 0.1
    expected = [math.sin(1) + 2 * math.cos(1) + 0.1, 2 * math.cos(-0.5) + 0.1, math.sin(-0.5) + 2 * math.cos(0.25) + 0.1]
    assert f(X).tolist() == pytest.approx(expected)


def test_piecewise():
    f = mech("piecewise", weights=[1.0, 1.0], cutoff=0.5, low_slope=0.5, high_slope=2.0, offset=1.0)
    x = np.vstack([X, [[0.25, 0.25]]])  # u = 3, −1, 0, and exactly the cutoff 0.5 (high piece: the offset)
    assert f(x).tolist() == pytest.approx([2.0 * 2.5 + 1.0, 0.5 * -1.5, 0.5 * -0.5, 1.0])


def test_regime_switching():
    f = mech("regime_switching", weights=[1.0, 0.0], alt_weights=[0.0, 1.0], gate_weights=[1.0, 1.0],
             gate_scale=2.0, cutoff=0.5, alt_scale=1.5, bias=0.1)
    # g = σ(2 (x1 + x2 − 0.5)); f = (1 − g) x1 + g · 1.5 x2 + 0.1
    g = [sig(5.0), sig(-3.0), sig(-1.0)]
    expected = [(1 - g[0]) * 1 + g[0] * 3.0 + 0.1, g[1] * -1.5 + 0.1, (1 - g[2]) * -0.5 + g[2] * 0.75 + 0.1]
    assert f(X).tolist() == pytest.approx(expected)


def test_rff():
    f = mech("rff", frequencies=[[1.0, 0.0], [0.0, 2.0]], phases=[0.0, math.pi / 4], amplitudes=[1.0, -1.0],
             length_scale=2.0, output_scale=1.5)
    # 1.5 · √(2/2) · (cos(x1 / 2) − cos(x2 + π/4))
    c, q = math.cos, math.pi / 4
    assert f(X).tolist() == pytest.approx([1.5 * (c(0.5) - c(2 + q)), 1.5 * (c(0) - c(-1 + q)),
                                           1.5 * (c(-0.25) - c(0.5 + q))])


U = [-2.0, -0.5, 0.0, 0.7, 7.0]
SELU_L, SELU_A = 1.0507009873554805, 1.6732632423543772


@pytest.mark.parametrize("activation,extra,expected", [
    ("relu", {}, [0, 0, 0, 0.7, 7]),
    ("leaky_relu", {}, [-0.02, -0.005, 0, 0.7, 7]),
    ("softplus", {}, [math.log(1 + math.exp(u)) for u in U]),
    ("sigmoid", {}, [sig(u) for u in U]),
    ("abs", {}, [2, 0.5, 0, 0.7, 7]),
    ("sign", {}, [-1, -1, 0, 1, 1]),
    ("step", {}, [0, 0, 0, 1, 1]),
    ("hard_tanh", {}, [-1, -0.5, 0, 0.7, 1]),
    ("relu6", {}, [0, 0, 0, 0.7, 6]),
    ("elu", {}, [math.exp(-2) - 1, math.exp(-0.5) - 1, 0, 0.7, 7]),
    ("selu", {}, [SELU_L * SELU_A * (math.exp(-2) - 1), SELU_L * SELU_A * (math.exp(-0.5) - 1), 0,
                  SELU_L * 0.7, SELU_L * 7]),
    ("silu", {}, [u * sig(u) for u in U]),
    ("modulo", {"period": 1.5}, [1.0, 1.0, 0.0, 0.7, 1.0]),  # −2 = −2·1.5 + 1; 7 = 4·1.5 + 1
    ("round", {"rounding_step": 0.5}, [-2.0, -0.5, 0.0, 0.5, 7.0]),  # u / 0.5 = −4, −1, 0, 1.4, 14
    ("rank", {}, [0.0, 0.25, 0.5, 0.75, 1.0]),
])
def test_activation(activation, extra, expected):
    f = mech("activation", weights=[1.0], bias=0.0, activation=activation, **extra)
    assert f(np.array(U)[:, None]).tolist() == pytest.approx(expected, abs=1e-12)


def test_activation_uses_weighted_input_and_rank_is_sample_dependent():
    relu = mech("activation", weights=[1.0, -1.0], bias=0.5, activation="relu")
    assert relu(X).tolist() == pytest.approx([0.0, 1.5, 0.0])  # u = −0.5, 1.5, −0.5
    rank = mech("activation", weights=[1.0, 1.0], bias=0.0, activation="rank")
    # u = 3, −1, 0 (ties get the average rank: [1, 1, 2] -> [0.25, 0.25, 1])
    assert rank(X).tolist() == pytest.approx([1.0, 0.0, 0.5])
    assert rank(X[:2]).tolist() == pytest.approx([1.0, 0.0])  # row 2 alone: 0.5 in X, 0.0 here
    assert rank(X[1:]).tolist() == pytest.approx([0.0, 1.0])
    assert rank(np.array([[1.0, 0.0], [1.0, 0.0], [2.0, 0.0]])).tolist() == pytest.approx([0.25, 0.25, 1.0])
    assert rank(X[:1]).tolist() == [0.5]


def test_tree():
    # node 0: x1 ≤ 0 ? node 1 : node 2; node 1: x2 ≤ 0.5 ? leaf 0 : leaf 1; node 2: x1 ≤ −0.5 ? leaf 2 : leaf 3
    f = mech("tree", n_parents=2, features=[0, 1, 0], thresholds=[0.0, 0.5, -0.5], leaves=[10.0, 20.0, 30.0, 40.0])
    x = np.vstack([X, [[-1.0, 3.0]]])
    # (1, 2): right, then 1 > −0.5 -> leaf 3; (0, −1): 0 ≤ 0 left, −1 ≤ 0.5 -> leaf 0;
    # (−0.5, 0.5): left, 0.5 ≤ 0.5 -> leaf 0; (−1, 3): left, 3 > 0.5 -> leaf 1
    assert f(x).tolist() == [40.0, 10.0, 10.0, 20.0]


def test_tree_depth_three():
    # a path that always goes right: splits 0, 2, 6 all on x1 at 0 -> leaf 7 for x1 > 0; x1 ≤ 0 -> node 1 -> ...
    f = mech("tree", n_parents=1, features=[0] * 7, thresholds=[0.0, -1.0, 0.0, -2.0, 0.0, 0.0, 1.0],
             leaves=[float(v) for v in range(8)])
    # x = 2: 0 -> 2 -> 6 (2 > 1) -> leaf 7; x = 0.5: 0 -> 2 -> 6 (0.5 ≤ 1) -> leaf 6;
    # x = −0.5: 0 -> 1 (−0.5 > −1) -> 4 (−0.5 ≤ 0) -> leaf 2; x = −3: 0 -> 1 -> 3 (−3 ≤ −2) -> leaf 0
    assert f(np.array([[2.0], [0.5], [-0.5], [-3.0]])).tolist() == [7.0, 6.0, 2.0, 0.0]


def test_discretisation_bins():
    f = mech("discretisation", mode="bins", weights=[1.0, 1.0], edges=[-0.5, 0.5, 2.0], levels=[1.0, 2.0, 3.0, 4.0])
    x = np.vstack([X, [[0.25, 0.25]]])  # u = 3, −1, 0 and exactly the edge 0.5 (belongs to the upper bin)
    assert f(x).tolist() == [4.0, 1.0, 2.0, 3.0]


def test_discretisation_clusters():
    f = mech("discretisation", mode="clusters", centroids=[[0.0, 0.0], [1.0, 2.0], [-1.0, 1.0]],
             levels=[5.0, 6.0, 7.0])
    x = np.vstack([X, [[-1.0, 1.0]]])
    # (1, 2) is centroid 1; (0, −1): squared distances 1, 10, 5; (−0.5, 0.5): 0.5, 4.5, 0.5 (tie -> lower index)
    assert f(x).tolist() == [6.0, 5.0, 5.0, 7.0]


def test_aggregation():
    agg_max = mech("aggregation", weights=[1.0, -2.0], bias=0.5, op="max")
    # terms (x1, −2 x2, 0.5)
    assert agg_max(X).tolist() == [1.0, 2.0, 0.5]
    lse = mech("aggregation", weights=[1.0, -2.0], bias=0.5, op="logsumexp", temperature=0.5)
    e = math.exp
    expected = [0.5 * math.log(e(2) + e(-8) + e(1)), 0.5 * math.log(e(0) + e(4) + e(1)),
                0.5 * math.log(e(-1) + e(-2) + e(1))]
    assert lse(X).tolist() == pytest.approx(expected)
    hinge = mech("aggregation", weights=[2.0], bias=0.0, op="max")  # one parent: max(2x, 0)
    assert hinge(np.array([[1.0], [-1.0]])).tolist() == [2.0, 0.0]


# ---------------------------------------------------------------------------
# draw: the paper's ranges (App. A.1)
# ---------------------------------------------------------------------------

EPS = 1e-12


def within(values, lo, hi):
    v = np.asarray(values, dtype=float)
    return bool(np.all(v >= lo - EPS) and np.all(v <= hi + EPS))


def linear_rule(w, k, scale=0.8):
    """k weights with |w| ∈ [0.5, 1.5] · scale/√k."""
    s = scale / math.sqrt(k)
    return len(w) == k and within(np.abs(w), 0.5 * s, 1.5 * s)


def unscaled_rule(w, k):
    """k weights with |w| ∈ [0.5, 1.5] (no 1/√k)."""
    return len(w) == k and within(np.abs(w), 0.5, 1.5)


def check_interaction(p, k):
    pairs, m = p["pairs"], len(p["pairs"])
    if k == 1:
        ok_pairs = pairs == [[0, 0]]
    else:
        ok_pairs = (1 <= m <= min(3, k * (k - 1) // 2) and all(0 <= i < j < k for i, j in pairs)
                    and len({tuple(q) for q in pairs}) == m)
    return (ok_pairs and linear_rule(p["weights"], k) and within(p["bias"], -0.5, 0.5)
            and len(p["interaction_weights"]) == m and within(np.abs(p["interaction_weights"]),
                                                              0.5 * 0.5 / math.sqrt(m), 1.5 * 0.5 / math.sqrt(m)))


def check_tree(p, k):
    splits = len(p["thresholds"])
    depth = int(math.log2(splits + 1))
    return (p["n_parents"] == k and 2 <= depth <= 4 and 2**depth - 1 == splits and len(p["leaves"]) == 2**depth
            and within(p["thresholds"], -0.8, 0.8) and set(p["features"]) == set(range(k)))  # k ≤ 15: all used


def check_discretisation(p, k):
    b = len(p["levels"])
    if not 3 <= b <= 7:
        return False
    if p["mode"] == "bins":
        return (linear_rule(p["weights"], k) and len(p["edges"]) == b - 1 and within(p["edges"], -1.0, 1.0)
                and bool(np.all(np.diff(p["edges"]) > 0)) and "centroids" not in p)
    return p["mode"] == "clusters" and np.shape(p["centroids"]) == (b, k) and "edges" not in p


def check_activation(p, k):
    act = p["activation"]
    return (act in ACTIVATIONS and linear_rule(p["weights"], k) and within(p["bias"], -0.5, 0.5)
            and (within(p["period"], 0.75, 3.0) if act == "modulo" else "period" not in p)
            and (within(p["rounding_step"], 0.2, 1.0) if act == "round" else "rounding_step" not in p))


def check_aggregation(p, k):
    return (unscaled_rule(p["weights"], k) and within(p["bias"], -0.5, 0.5)
            and (within(p["temperature"], 0.3, 1.5) if p["op"] == "logsumexp" else p["op"] == "max"
                 and "temperature" not in p))


def check_rff(p, k):
    m = len(p["phases"])
    return (64 <= m <= 256 and np.shape(p["frequencies"]) == (k, m) and len(p["amplitudes"]) == m
            and within(p["phases"], 0, 2 * math.pi) and within(p["length_scale"], 0.25, 3.0)
            and within(p["output_scale"], 0.4, 2.5))


RANGES = {
    "linear": lambda p, k: linear_rule(p["weights"], k) and within(p["bias"], -0.5, 0.5),
    "polynomial": lambda p, k: (linear_rule(p["weights"], k) and within(p["quadratic"], -0.5, 0.5)
                                and within(p["cubic"], -0.15, 0.15) and len(p["cubic"]) == k),
    "neural": lambda p, k: (np.shape(p["hidden_weights"])[0] == k and 3 <= len(p["hidden_bias"]) <= 8
                            and np.shape(p["hidden_weights"])[1] == len(p["hidden_bias"])),
    "saturation": lambda p, k: linear_rule(p["weights"], k, 1.6) and within(p["scale"], 0.8, 2.5),
    "product": lambda p, k: linear_rule(p["weights"], k) and len(p["biases"]) == k and within(p["biases"], -0.4, 0.4),
    "random_function_product": lambda p, k: (within(p["output_scale"], 0.4, 1.6) and unscaled_rule(p["slopes"], k)
                                             and within(p["shifts"], -1, 1)),
    "interaction": check_interaction,
    "rational": lambda p, k: (linear_rule(p["weights"], k) and linear_rule(p["denominator_weights"], k)
                              and within(p["offset"], 0.5, 1.5)),
    "exp_log": lambda p, k: linear_rule(p["weights"], k) and p["transform"] in ("exp", "log", "signed_log"),
    "periodic": lambda p, k: (linear_rule(p["amplitudes"], k) and within(p["frequencies"], 0.5, 2.0)
                              and within(p["phases"], 0, 2 * math.pi) and len(p["phases"]) == k),
    "piecewise": lambda p, k: (linear_rule(p["weights"], k) and within(p["cutoff"], -0.6, 0.6)
                               and within(p["low_slope"], 0.2, 1.0) and within(p["high_slope"], 1.0, 2.5)
                               and within(p["offset"], -1.5, 1.5)),
    "regime_switching": lambda p, k: (all(linear_rule(p[w], k) for w in ("weights", "alt_weights", "gate_weights"))
                                      and within(p["gate_scale"], 1.0, 4.0) and within(p["cutoff"], -0.5, 0.5)
                                      and within(p["alt_scale"], 0.5, 1.8)),
    "rff": check_rff,
    "activation": check_activation,
    "tree": check_tree,
    "discretisation": check_discretisation,
    "aggregation": check_aggregation,
}


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("kind", CATALOGUE)
def test_draw_stays_in_paper_ranges(kind, k):
    rng = np.random.default_rng(100 + k)
    for _ in range(40):
        params = MECHANISMS[kind].draw(k, rng)
        assert RANGES[kind](params, k), params
        assert json.loads(json.dumps(params)) == params  # JSON-ready
        assert MECHANISMS[kind](**params).n_inputs() == k


@pytest.mark.parametrize("kind,key,options", [
    ("activation", "activation", set(ACTIVATIONS)),
    ("exp_log", "transform", {"exp", "log", "signed_log"}),
    ("aggregation", "op", {"max", "logsumexp"}),
    ("discretisation", "mode", {"bins", "clusters"}),
])
def test_draw_reaches_every_option(kind, key, options):
    rng = np.random.default_rng(7)
    seen = [MECHANISMS[kind].draw(2, rng)[key] for _ in range(400)]
    assert set(seen) == options
    # uniform choice: each of c options expected 400/c times; 5 sd below is a generous floor
    c = len(options)
    assert min(seen.count(o) for o in options) > 400 / c - 5 * math.sqrt(400 * (1 / c) * (1 - 1 / c))


def test_tree_draw_depths_and_interaction_pair_counts_cover_the_range():
    rng = np.random.default_rng(8)
    depths = {int(math.log2(len(MECHANISMS["tree"].draw(1, rng)["thresholds"]) + 1)) for _ in range(200)}
    assert depths == {2, 3, 4}
    # k = 8 needs 8 splits on distinct parents: depth 4 (15 splits) every time
    assert {len(MECHANISMS["tree"].draw(8, rng)["thresholds"]) for _ in range(50)} == {15}
    pair_counts = {len(MECHANISMS["interaction"].draw(4, rng)["pairs"]) for _ in range(200)}
    assert pair_counts == {1, 2, 3}
    assert {len(MECHANISMS["interaction"].draw(2, rng)["pairs"]) for _ in range(20)} == {1}
    bins = {len(MECHANISMS["discretisation"].draw(3, rng)["levels"]) for _ in range(300)}
    assert bins == set(range(3, 8))


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("kind", CATALOGUE)
def test_finite_for_inputs_of_order_ten(kind, k):
    rng = np.random.default_rng(200 + k)
    corners = np.array([[10.0] * k, [-10.0] * k, [10.0, -10.0] * (k // 2) + [10.0] * (k % 2)])
    for _ in range(20):
        f = MECHANISMS[kind](**MECHANISMS[kind].draw(k, rng))
        y = f(np.vstack([rng.uniform(-10, 10, size=(300, k)), corners]))
        assert y.shape == (303,) and np.all(np.isfinite(y))


# ---------------------------------------------------------------------------
# spec round trip
# ---------------------------------------------------------------------------


def small_spec(kind, k, seed):
    rng = np.random.default_rng(seed)
    roots = [f"r{i}" for i in range(k)]
    nodes = [node_from_components(r, [], rng) for r in roots]
    nodes.append(node_from_components("y", roots, rng, mechanism=kind))
    return SCMSpec(id=f"mech/{kind}-{k}", nodes=nodes)


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("kind", CATALOGUE)
def test_spec_round_trip_and_calibration(kind, k):
    spec = calibrate_outputs(small_spec(kind, k, seed=k), n=1000, seed=11)
    y = spec.nodes[-1]
    assert y.tags["mechanism"] == MECHANISMS[kind].factor_tag()
    again = SCMSpec.from_json(spec.to_json())
    assert again.to_json() == spec.to_json()
    a, b = spec.compile(), again.compile()
    xa, xb = a.sample(1000, np.random.default_rng(11)), b.sample(1000, np.random.default_rng(11))
    assert xa.tobytes() == xb.tobytes()
    assert np.all(np.isfinite(xa))
    # same rows as the calibration pilot: the stored out_loc/out_scale standardise the signal exactly
    signal = b.signal(k, xb[:, :k])
    assert signal.mean() == pytest.approx(0.0, abs=1e-9)
    assert signal.std() == pytest.approx(1.0, abs=1e-9)
    noise_sd = y.noise.params["scale"]
    assert np.std(xb[:, k] - signal) == pytest.approx(noise_sd, rel=0.15)  # n = 1000: sd of a sd ≈ 2.2 %


# ---------------------------------------------------------------------------
# parameter checks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", CATALOGUE)
def test_params_drawn_for_three_parents_are_rejected_on_two(kind):
    rng = np.random.default_rng(3)
    spec = small_spec("linear", 2, seed=1)
    d = json.loads(spec.to_json())
    d["nodes"][-1]["mechanism"] = {"kind": kind, "params": MECHANISMS[kind].draw(3, rng)}
    with pytest.raises(SpecError, match=re.escape("parameters are for 3 inputs but the node has 2 parents")):
        SCMSpec.from_dict(d)


def drop_last(name):
    return lambda p: p.update({name: p[name][:-1]})


def set_(name, value):
    return lambda p: p.update({name: value})


GOOD = {
    "polynomial": dict(weights=[1.0, 1.0], quadratic=[0.1, 0.1], cubic=[0.0, 0.0], bias=0.0),
    "product": dict(weights=[1.0, 1.0], biases=[0.1, 0.2]),
    "random_function_product": dict(slopes=[1.0, 1.0], shifts=[0.0, 0.5], output_scale=1.0),
    "interaction": dict(weights=[1.0, 1.0], bias=0.0, pairs=[[0, 1]], interaction_weights=[0.5]),
    "rational": dict(weights=[1.0, 1.0], bias=0.0, denominator_weights=[1.0, 1.0], offset=1.0),
    "exp_log": dict(weights=[1.0, 1.0], bias=0.0, transform="exp"),
    "periodic": dict(amplitudes=[1.0, 1.0], frequencies=[1.0, 1.0], phases=[0.0, 0.0], bias=0.0),
    "piecewise": dict(weights=[1.0, 1.0], cutoff=0.0, low_slope=0.5, high_slope=2.0, offset=0.0),
    "regime_switching": dict(weights=[1.0, 1.0], alt_weights=[1.0, 1.0], gate_weights=[1.0, 1.0], gate_scale=2.0,
                             cutoff=0.0, alt_scale=1.0, bias=0.0),
    "rff": dict(frequencies=[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], phases=[0.0, 1.0, 2.0], amplitudes=[1.0, 1.0, 1.0],
                length_scale=1.0, output_scale=1.0),
    "activation": dict(weights=[1.0, 1.0], bias=0.0, activation="relu"),
    "tree": dict(n_parents=2, features=[0, 1, 1], thresholds=[0.0, 0.0, 0.0], leaves=[1.0, 2.0, 3.0, 4.0]),
    "discretisation": dict(mode="bins", weights=[1.0, 1.0], edges=[0.0, 1.0], levels=[1.0, 2.0, 3.0]),
    "aggregation": dict(weights=[1.0, 1.0], bias=0.0, op="max"),
}


@pytest.mark.parametrize("kind,mutate,name", [
    ("polynomial", drop_last("quadratic"), "quadratic"),
    ("product", drop_last("biases"), "biases"),
    ("random_function_product", drop_last("shifts"), "shifts"),
    ("random_function_product", set_("output_scale", [1.0]), "output_scale"),
    ("interaction", set_("interaction_weights", [0.5, 0.5]), "interaction_weights"),
    ("interaction", set_("pairs", [[0, 2]]), "pairs"),
    ("interaction", set_("pairs", [[0, 1, 1]]), "pairs"),
    ("interaction", set_("pairs", [[0, 1], [1]]), "pairs"),  # ragged
    ("rational", drop_last("denominator_weights"), "denominator_weights"),
    ("rational", set_("offset", 0.0), "offset"),
    ("exp_log", set_("transform", "sqrt"), "transform"),
    ("periodic", drop_last("phases"), "phases"),
    ("periodic", drop_last("frequencies"), "frequencies"),
    ("periodic", set_("frequencies", [1.0, -1.0]), "frequencies"),
    ("piecewise", lambda p: p.pop("cutoff"), "cutoff"),
    ("piecewise", set_("high_slope", float("nan")), "high_slope"),
    ("regime_switching", drop_last("gate_weights"), "gate_weights"),
    ("regime_switching", drop_last("alt_weights"), "alt_weights"),
    ("regime_switching", set_("gate_scale", -1.0), "gate_scale"),
    ("rff", drop_last("amplitudes"), "amplitudes"),
    ("rff", drop_last("phases"), "phases"),
    ("rff", set_("frequencies", [1.0, 2.0, 3.0]), "frequencies"),
    ("rff", set_("length_scale", 0.0), "length_scale"),
    ("activation", set_("activation", "tanh"), "activation"),
    ("activation", set_("period", 1.0), "period"),
    ("activation", lambda p: p.update(activation="round"), "rounding_step"),
    ("tree", drop_last("leaves"), "leaves"),
    ("tree", drop_last("features"), "features"),
    ("tree", set_("features", [0, 1, 2]), "features"),
    ("tree", set_("features", [0, 1, 0.5]), "features"),
    ("tree", set_("thresholds", [0.0, 0.0, 0.0, 0.0]), "thresholds"),
    ("tree", set_("n_parents", 0), "n_parents"),
    ("discretisation", drop_last("edges"), "edges"),
    ("discretisation", set_("edges", [1.0, 0.0]), "edges"),
    ("discretisation", drop_last("levels"), "levels"),
    ("discretisation", set_("centroids", [[0.0, 0.0]] * 3), "centroids"),
    ("discretisation", lambda p: p.update(mode="clusters", centroids=[[0.0, 0.0]] * 3), "weights"),
    ("discretisation", lambda p: [p.pop("weights"), p.pop("edges"), p.update(mode="clusters", centroids=[[0.0, 0.0]] * 2)],
     "centroids"),
    ("discretisation", set_("mode", "quantiles"), "mode"),
    ("aggregation", set_("temperature", 0.5), "temperature"),
    ("aggregation", lambda p: p.update(op="logsumexp"), "temperature"),
    ("aggregation", set_("weights", [1.0, float("inf")]), "weights"),
])
def test_bad_params_are_rejected_naming_the_parameter(kind, mutate, name):
    params = json.loads(json.dumps(GOOD[kind]))
    MECHANISMS[kind](**params)  # the unmutated parameters are valid
    mutate(params)
    with pytest.raises(ValueError, match=re.escape(f"'{name}'")):
        MECHANISMS[kind](**params)


def test_per_parent_counts_are_the_n_inputs():
    assert {kind: MECHANISMS[kind](**params).n_inputs() for kind, params in GOOD.items()} == {
        kind: 2 for kind in GOOD}
    clusters = MECHANISMS["discretisation"](mode="clusters", centroids=[[0.0] * 5] * 3, levels=[1.0, 2.0, 3.0])
    assert clusters.n_inputs() == 5


def test_rank_activation_with_a_calibrated_reference_is_a_fixed_function():
    """Known answer: reference quantiles [0, 1, 2, 4] → rank(u) is their piecewise-linear CDF."""

    m = MECHANISMS["activation"](weights=[1.0], bias=0.0, activation="rank", reference=[0.0, 1.0, 2.0, 4.0])
    x = np.array([[-1.0], [0.5], [2.0], [3.0], [9.0]])
    assert np.allclose(m(x), [0.0, 1 / 6, 2 / 3, 5 / 6, 1.0])
    assert np.allclose(m(x[2:3]), [2 / 3])  # a row's value does not depend on the other rows
    cal = MECHANISMS["activation"](weights=[2.0], bias=1.0, activation="rank").calibrate(
        np.linspace(0.0, 1.0, 201)[:, None])
    assert cal["reference"][0] == 1.0 and cal["reference"][-1] == 3.0 and len(cal["reference"]) == 101
