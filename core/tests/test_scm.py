"""SCM spec, registries and sampler: known answers."""

import json

import numpy as np
import pytest

from causalarena.scm import (MECHANISMS, NOISES, ROOT_DISTRIBUTIONS, ComponentSpec, Mechanism, NodeSpec,
                             SCMSpec, SpecError, calibrate_outputs, register_mechanism)


def linear_chain(w1=2.0, w2=-0.5, noise=0.1):
    return SCMSpec(id="chain", nodes=[
        NodeSpec(name="a", role="root", root_distribution=ComponentSpec(kind="gaussian", params={"loc": 1.0, "scale": 2.0})),
        NodeSpec(name="b", role="mechanism", parents=["a"],
                 mechanism=ComponentSpec(kind="linear", params={"weights": [w1], "bias": 0.5}),
                 noise=ComponentSpec(kind="gaussian", params={"scale": noise})),
        NodeSpec(name="c", role="mechanism", parents=["b"],
                 mechanism=ComponentSpec(kind="linear", params={"weights": [w2], "bias": 0.0}),
                 noise=ComponentSpec(kind="uniform", params={"scale": noise})),
    ])


def test_linear_chain_moments():
    # a ~ N(1, 4); b = 2a + 0.5 + N(0, .01): E b = 2.5, Var b = 16.01; c = -0.5 b + U: E c = -1.25
    x = linear_chain().compile().sample(200_000, np.random.default_rng(0))
    assert x[:, 0].mean() == pytest.approx(1.0, abs=0.02)
    assert x[:, 1].mean() == pytest.approx(2.5, abs=0.04)
    assert x[:, 1].var() == pytest.approx(16.01, rel=0.02)
    assert x[:, 2].mean() == pytest.approx(-1.25, abs=0.02)
    assert x[:, 2].var() == pytest.approx(0.25 * 16.01 + 0.01 / 3, rel=0.02)


@pytest.mark.parametrize("kind,params,mean,var", [
    ("gaussian", {"loc": 0.3, "scale": 2.0}, 0.3, 4.0),
    ("uniform", {"low": -1.0, "high": 3.0}, 1.0, 16 / 12),
    ("laplace", {"loc": -1.0, "scale": 0.5}, -1.0, 2 * 0.25),
    ("lognormal", {"mean": 0.0, "sigma": 0.5}, np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
])
def test_root_distribution_moments(kind, params, mean, var):
    x = ROOT_DISTRIBUTIONS[kind](**params).sample(400_000, np.random.default_rng(1))
    assert x.mean() == pytest.approx(mean, abs=0.01)
    assert x.var() == pytest.approx(var, rel=0.02)


@pytest.mark.parametrize("kind,params,var", [
    ("gaussian", {"scale": 0.3}, 0.09),
    ("uniform", {"scale": 0.3}, 0.09 / 3),
    ("laplace", {"scale": 0.3}, 2 * 0.09),
    ("student_t", {"df": 5.0, "scale": 0.2}, 0.04 * 5 / 3),
])
def test_noise_is_centred_with_known_variance(kind, params, var):
    e = NOISES[kind](**params).sample(400_000, np.random.default_rng(2))
    assert e.mean() == pytest.approx(0.0, abs=0.005)
    assert e.var() == pytest.approx(var, rel=0.05)


def test_mechanisms_known_answers():
    x = np.array([[1.0, 2.0], [0.0, -1.0]])
    lin = MECHANISMS["linear"](weights=[0.5, -1.0], bias=0.25)
    assert lin(x).tolist() == [0.5 - 2.0 + 0.25, 1.0 + 0.25]
    poly = MECHANISMS["polynomial"](weights=[1.0, 0.0], quadratic=[0.5, 0.0], cubic=[0.0, 0.1], bias=0.0)
    assert poly(x).tolist() == pytest.approx([1 + 0.5 + 0.8, -0.1])
    sat = MECHANISMS["saturation"](weights=[10.0, 0.0], bias=0.0, scale=2.0)
    assert sat(x).tolist() == pytest.approx([2 * np.tanh(5.0), 0.0])
    net = MECHANISMS["neural"](hidden_weights=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], hidden_bias=[0.0, 0.0, 0.0],
                               output_weights=[1.0, 2.0, 5.0], bias=1.0)
    assert net(x).tolist() == pytest.approx([np.tanh(1) + 2 * np.tanh(2) + 1, 2 * np.tanh(-1) + 1])


def test_linear_draw_scales_weights_by_0_8_over_sqrt_k():
    params = MECHANISMS["linear"].draw(4, np.random.default_rng(3))
    w = np.abs(params["weights"])
    assert np.all(w >= 0.5 * 0.4 - 1e-12) and np.all(w <= 1.5 * 0.4 + 1e-12)  # 0.8/sqrt(4) = 0.4
    assert -0.5 <= params["bias"] <= 0.5


def test_json_round_trip_is_exact():
    spec = calibrate_outputs(linear_chain())
    again = SCMSpec.from_json(spec.to_json())
    assert again.to_json() == spec.to_json()
    rng = lambda: np.random.default_rng(5)  # noqa: E731
    assert spec.compile().sample(100, rng()).tobytes() == again.compile().sample(100, rng()).tobytes()


def test_adjacency_row_is_parent():
    a = linear_chain().adjacency()
    assert a.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["nodes"][1].update(parents=["zz"]), "parents ['zz'] are not nodes"),
    (lambda d: d["nodes"][1]["mechanism"]["params"].update(weights=[1.0, 2.0]), "parameters are for 2 inputs"),
    (lambda d: d["nodes"][0].update(name="b"), "duplicate node name 'b'"),
    (lambda d: d["nodes"][0].update(parents=["c"], role="mechanism", noise=None, root_distribution=None,
                                    mechanism={"kind": "linear", "params": {"weights": [1.0], "bias": 0}}),
     "cycle"),
    (lambda d: d["nodes"][1].update(noize=d["nodes"][1].pop("noise")), "unknown field(s) 'noize' (did you mean 'noise'?)"),
    (lambda d: d["nodes"][1]["noise"]["params"].update(sacle=0.1), "unknown parameter(s) 'sacle' (did you mean 'scale'?)"),
    (lambda d: d["nodes"][1].update(intervenable="false"), "intervenable: expected true or false, got 'false'"),
    (lambda d: d["nodes"][0].update(noise={"kind": "gaussian", "params": {"scale": 5.0}}),
     "a root node takes 'root_distribution' only"),
    (lambda d: d.update(format="causalarena.scm/99"), "format 'causalarena.scm/99' is not supported"),
    (lambda d: d.pop("id"), "'id' must be a non-empty string"),
    (lambda d: d["nodes"][1].update(parents="a"), "parents: expected a list of variable names, got 'a'"),
    (lambda d: d["nodes"][1].update(role="leaf"), "role: must be one of ['root', 'mechanism'], got 'leaf'"),
    (lambda d: d["nodes"][2]["mechanism"].update(kind="nope"), "unknown kind 'nope'"),
    (lambda d: d["nodes"][2]["noise"]["params"].update(scale=-1), "'scale' must be finite and > 0"),
    (lambda d: d["nodes"][1].pop("mechanism"), "field 'mechanism' is required"),
])
def test_bad_specs_name_node_and_field(mutate, message):
    d = json.loads(linear_chain().to_json())
    mutate(d)
    import re

    with pytest.raises(SpecError, match=re.escape(message)):
        SCMSpec.from_dict(d)


def test_adding_a_mechanism_is_one_small_class():
    @register_mechanism
    class Doubler(Mechanism):
        kind = "test_doubler"

        def __call__(self, parents):
            return 2.0 * parents.sum(axis=1)

    try:
        spec = SCMSpec(id="t", nodes=[
            NodeSpec(name="a", role="root", root_distribution=ComponentSpec(kind="uniform", params={"low": 0, "high": 1})),
            NodeSpec(name="b", role="mechanism", parents=["a"], mechanism=ComponentSpec(kind="test_doubler")),
        ])
        x = spec.compile().sample(10, np.random.default_rng(0))
        assert np.allclose(x[:, 1], 2 * x[:, 0])
    finally:
        MECHANISMS.pop("test_doubler")


def test_calibrate_outputs_gives_unit_scale_signal():
    spec = calibrate_outputs(linear_chain(w1=50.0, w2=30.0, noise=0.05), n=20_000, seed=1)
    x = spec.compile().sample(20_000, np.random.default_rng(9))
    # signal standardised to variance 1, plus noise variance .0025 (b) and .05^2/3 (c)
    assert x[:, 1].var() == pytest.approx(1.0025, rel=0.03)
    assert x[:, 2].var() == pytest.approx(1 + 0.0025 / 3, rel=0.03)
