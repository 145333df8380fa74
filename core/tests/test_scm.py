"""SCM spec, component resolution through plugins, and sampler: known answers (core basic set only)."""

import json

import numpy as np
import pytest

from causalarena import plugins
from causalarena.hookspecs import hookimpl
from causalarena.plugins import UnknownComponentError, default_registry, get_registry, temporary_plugins
from causalarena.records import ComponentInfo
from causalarena.scm import (
    ComponentSpec,
    Mechanism,
    NodeSpec,
    SCMSpec,
    SpecError,
    UnknownComponentSpecError,
    calibrate_outputs,
    component_class,
)

BASIC_SET = {
    "root_distribution": {"gaussian", "uniform", "laplace", "lognormal"},
    "mechanism": {"linear", "polynomial", "neural", "saturation"},
    "noise": {"gaussian", "uniform", "laplace", "student_t"},
}


def ROOT(kind):
    return component_class("root_distribution", kind)


def MECH(kind):
    return component_class("mechanism", kind)


def NOISE(kind):
    return component_class("noise", kind)


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
    x = ROOT(kind)(**params).sample(400_000, np.random.default_rng(1))
    assert x.mean() == pytest.approx(mean, abs=0.01)
    assert x.var() == pytest.approx(var, rel=0.02)


@pytest.mark.parametrize("kind,params,var", [
    ("gaussian", {"scale": 0.3}, 0.09),
    ("uniform", {"scale": 0.3}, 0.09 / 3),
    ("laplace", {"scale": 0.3}, 2 * 0.09),
    ("student_t", {"df": 5.0, "scale": 0.2}, 0.04 * 5 / 3),
])
def test_noise_is_centred_with_known_variance(kind, params, var):
    e = NOISE(kind)(**params).sample(400_000, np.random.default_rng(2))
    assert e.mean() == pytest.approx(0.0, abs=0.005)
    assert e.var() == pytest.approx(var, rel=0.05)


def test_mechanisms_known_answers():
    x = np.array([[1.0, 2.0], [0.0, -1.0]])
    lin = MECH("linear")(weights=[0.5, -1.0], bias=0.25)
    assert lin(x).tolist() == [0.5 - 2.0 + 0.25, 1.0 + 0.25]
    poly = MECH("polynomial")(weights=[1.0, 0.0], quadratic=[0.5, 0.0], cubic=[0.0, 0.1], bias=0.0)
    assert poly(x).tolist() == pytest.approx([1 + 0.5 + 0.8, -0.1])
    sat = MECH("saturation")(weights=[10.0, 0.0], bias=0.0, scale=2.0)
    assert sat(x).tolist() == pytest.approx([2 * np.tanh(5.0), 0.0])
    net = MECH("neural")(hidden_weights=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], hidden_bias=[0.0, 0.0, 0.0],
                               output_weights=[1.0, 2.0, 5.0], bias=1.0)
    assert net(x).tolist() == pytest.approx([np.tanh(1) + 2 * np.tanh(2) + 1, 2 * np.tanh(-1) + 1])


def test_linear_draw_scales_weights_by_0_8_over_sqrt_k():
    params = MECH("linear").draw(4, np.random.default_rng(3))
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
    (lambda d: d["nodes"][2]["mechanism"].update(kind="nope"),
     "mechanism 'nope' (SCM 'chain', node 'c'.mechanism) is not provided by any installed distribution"),
    (lambda d: d["nodes"][2]["noise"]["params"].update(scale=-1), "'scale' must be finite and > 0"),
    (lambda d: d["nodes"][1].pop("mechanism"), "field 'mechanism' is required"),
])
def test_bad_specs_name_node_and_field(mutate, message):
    d = json.loads(linear_chain().to_json())
    mutate(d)
    import re

    with pytest.raises(SpecError, match=re.escape(message)):
        SCMSpec.from_dict(d)


class Doubler(Mechanism):
    """f(x) = 2 Σ_j x_j (a throwaway test component)."""

    kind = "test_doubler"

    def __call__(self, parents):
        return 2.0 * parents.sum(axis=1)


class DoublerPlugin:
    """A plugin object contributing :class:`Doubler` through ``arena_components``."""

    __distribution__ = "test-doubler-dist"

    @hookimpl
    def arena_components(self):
        yield ComponentInfo(kind="mechanism", name="test_doubler", factory=f"{__name__}:Doubler")


def doubler_spec():
    return SCMSpec(id="t", nodes=[
        NodeSpec(name="a", role="root", root_distribution=ComponentSpec(kind="uniform", params={"low": 0, "high": 1})),
        NodeSpec(name="b", role="mechanism", parents=["a"], mechanism=ComponentSpec(kind="test_doubler"),
                 noise=None),
    ])


def test_adding_a_mechanism_is_one_small_class_and_one_record():
    with temporary_plugins(DoublerPlugin()) as registry:
        assert registry.components["mechanism:test_doubler"].distribution == "test-doubler-dist"
        x = doubler_spec().compile().sample(10, np.random.default_rng(0))
        assert np.allclose(x[:, 1], 2 * x[:, 0])
    # outside the block the class cache follows the default registry again: nobody provides it
    with pytest.raises(UnknownComponentError, match="mechanism 'test_doubler'"):
        doubler_spec().compile()


def test_basic_set_comes_through_arena_components_from_the_core():
    registry = default_registry()
    for kind, names in BASIC_SET.items():
        recs = {r.name: r for r in registry.components.values() if r.kind == kind and r.distribution == "causal-arena"}
        assert set(recs) == names
        for name, rec in recs.items():
            assert rec.factory.startswith("causalarena.components:")
            cls = rec.load()
            assert cls.kind == name and cls is component_class(kind, name)
    assert MECH("polynomial").factor_tag() == "polynomial"


@pytest.fixture
def core_components_only(monkeypatch):
    """The default registry with the core's components only (as when no family is installed)."""
    registry = get_registry()
    registry.components = {k: v for k, v in registry.components.items() if v.distribution == "causal-arena"}
    monkeypatch.setattr(plugins, "_DEFAULT", [registry])
    return registry


def test_unknown_component_in_a_spec_names_component_node_and_provider(core_components_only):
    d = json.loads(linear_chain().to_json())
    d["nodes"][1]["mechanism"] = {"kind": "periodic", "params": {}}
    with pytest.raises(UnknownComponentError) as info:
        SCMSpec.from_dict(d)
    msg = str(info.value)
    assert msg.startswith("mechanism 'periodic' (SCM 'chain', node 'b'.mechanism) is not provided")
    assert "it ships with arena-family-synthetic (pip install arena-family-synthetic)" in msg
    assert msg.endswith("installed: linear, neural, polynomial, saturation")
    assert isinstance(info.value, SpecError) and isinstance(info.value, UnknownComponentSpecError)
    d = json.loads(linear_chain().to_json())
    d["nodes"][2]["noise"] = {"kind": "studnet_t", "params": {"df": 3.0, "scale": 0.1}}
    with pytest.raises(UnknownComponentError, match=r"noise 'studnet_t' \(SCM 'chain', node 'c'.noise\).*"
                                                    r"did you mean 'student_t'"):
        SCMSpec.from_dict(d)


def test_a_component_of_the_wrong_base_class_is_a_spec_error():
    class Plugin:
        @hookimpl
        def arena_components(self):
            yield ComponentInfo(kind="noise", name="test_doubler", factory=f"{__name__}:Doubler")

    d = json.loads(linear_chain().to_json())
    d["nodes"][1]["noise"] = {"kind": "test_doubler", "params": {}}
    with temporary_plugins(Plugin()):
        with pytest.raises(SpecError, match="noise 'test_doubler' of <test> .* must be a Noise subclass"):
            SCMSpec.from_dict(d)


def test_calibrate_outputs_gives_unit_scale_signal():
    spec = calibrate_outputs(linear_chain(w1=50.0, w2=30.0, noise=0.05), n=20_000, seed=1)
    x = spec.compile().sample(20_000, np.random.default_rng(9))
    # signal standardised to variance 1, plus noise variance .0025 (b) and .05^2/3 (c)
    assert x[:, 1].var() == pytest.approx(1.0025, rel=0.03)
    assert x[:, 2].var() == pytest.approx(1 + 0.0025 / 3, rel=0.03)
