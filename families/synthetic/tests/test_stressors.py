"""Difficulty stressors, CausalArena paper App. A.1 "Difficulty variants"."""

import json

import numpy as np
import pytest

from arena_family_synthetic import stressors as stz
from causalarena.plugins import default_registry
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec, SpecError, component_class

NAMES = [f"X{i}" for i in range(6)]


def _installed(kind):
    """{spec kind: class} of ``kind`` from the core's basic set and this distribution (the grid's catalogue)."""
    registry = default_registry()
    return {r.name: component_class(kind, r.name) for r in registry.components.values()
            if r.kind == kind and r.distribution in ("causal-arena", "arena-family-synthetic")}


STRESSORS = _installed('stressor')


def table(n=20_000, seed=0):
    """(n × 6) continuous table with different locations and scales."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 6)) * np.arange(1, 7) + np.arange(6) * 10.0


def build(kind, **params):
    return STRESSORS[kind](**params)


def test_registry_and_names():
    assert stz.STRESSOR_NAMES == ("weak_signal", "high_noise", "feature_warping", "outliers", "missingness",
                                  "feature_corruption", "intervention_shift", "soft")
    # weak_signal and high_noise act through calibrate_outputs / noise extra_scale, not a class
    assert {k for k in stz.STRESSOR_NAMES if k in STRESSORS} == set(stz.STRESSOR_NAMES) - {"weak_signal",
                                                                                          "high_noise"}
    assert (stz.WEAK_SIGNAL_STRENGTH, stz.HIGH_NOISE_SCALE) == (0.45, 0.35)
    assert {k: STRESSORS[k].stage for k in ("soft", "intervention_shift")} == {"soft": "intervention",
                                                                               "intervention_shift": "intervention"}
    for k in ("feature_warping", "outliers", "missingness", "feature_corruption"):
        assert STRESSORS[k].stage == "observation"


@pytest.mark.parametrize("d", [10, 20, 30, 50, 100])
def test_draws_stay_in_range_and_round_trip_through_a_spec(d):
    names = [f"V{i}" for i in range(d)]
    rng = np.random.default_rng(d)
    for _ in range(20):
        warp = STRESSORS["feature_warping"].draw(d, names, rng)
        assert len(warp["columns"]) == round(0.55 * d) == len(set(warp["columns"]))
        assert set(warp["columns"]) <= set(names) and set(warp["transforms"]) <= set(stz.WARP_TRANSFORMS)
        out = STRESSORS["outliers"].draw(d, names, rng)
        assert out["columns"] == names and out["fraction"] == 0.025 and 3.0 <= out["scale"] <= 5.0
        assert STRESSORS["missingness"].draw(d, names, rng) == {"columns": names, "fraction": 0.05,
                                                                "jitter": 0.05}
        assert STRESSORS["feature_corruption"].draw(d, names, rng) == {"columns": names, "fraction": 0.03}
        assert STRESSORS["soft"].draw(d, names, rng) == {"softness": 0.45}
        sh = STRESSORS["intervention_shift"].draw(d, names, rng)
        assert len(sh["columns"]) == max(1, round(0.25 * d)) == len(sh["shift"]) == len(sh["scale"])
        assert all(0.25 <= abs(s) <= 0.75 for s in sh["shift"])
        assert all(0.6 <= s <= 0.85 or 1.15 <= s <= 1.6 for s in sh["scale"])
    # every kind builds from its draw, through JSON, and params() returns the JSON-ready input
    for kind in STRESSORS:
        params = json.loads(json.dumps(STRESSORS[kind].draw(d, names, rng)))
        comp = STRESSORS[kind](**params)
        assert comp.params() == params


def test_warp_transforms_are_drawn_uniformly():
    rng = np.random.default_rng(0)
    names = [f"V{i}" for i in range(20)]
    tr = [t for _ in range(300) for t in STRESSORS["feature_warping"].draw(20, names, rng)["transforms"]]
    counts = np.array([tr.count(t) for t in stz.WARP_TRANSFORMS])
    assert np.abs(counts / len(tr) - 1 / 3).max() < 0.02      # n = 3300: sd 0.008


@pytest.mark.parametrize("kind, params, message", [
    ("feature_warping", {"columns": ["X0"], "transforms": ["cube"]}, "unknown transform"),
    ("feature_warping", {"columns": ["X0", "X1"], "transforms": ["tanh"]}, "one entry per column"),
    ("outliers", {"columns": ["X0"], "fraction": 1.5, "scale": 3.0}, "'fraction' must be in"),
    ("outliers", {"columns": ["X0"], "fraction": 0.1, "scale": 0.0}, "'scale' must be finite and > 0"),
    ("missingness", {"columns": [], "fraction": 0.1, "jitter": 0.1}, "non-empty list of column names"),
    ("feature_corruption", {"columns": ["X0", "X0"], "fraction": 0.1}, "duplicates"),
    ("feature_corruption", {"columns": ["X0"], "fraction": 0.1, "frac": 1}, "did you mean 'fraction'"),
    ("soft", {"softness": 1.0}, "'softness' must be in"),
    ("intervention_shift", {"columns": ["X0", "X1"], "shift": [0.1], "scale": [1.0, 1.0]}, "'shift' must be"),
    ("intervention_shift", {"columns": ["X0"], "shift": [0.1], "scale": [-1.0]}, "'scale' entries must be > 0"),
])
def test_validation_names_the_parameter(kind, params, message):
    with pytest.raises(ValueError, match=message):
        build(kind, **params)


def test_soft_default_and_unknown_column_at_apply():
    assert build("soft").softness == 0.45
    st = build("outliers", columns=["nope"], fraction=0.1, scale=3.0)
    with pytest.raises(ValueError, match=r"columns \['nope'\] are not variables"):
        st.apply(table(10), None, np.random.default_rng(0), NAMES)


def test_feature_warping_known_answer():
    x = np.column_stack([np.array([-2.0, -1.0, 0.0, 1.0, 2.0]) + 3.0] * 3 + [np.ones(5)])
    st = build("feature_warping", columns=["X0", "X1", "X2", "X3"],
               transforms=["signed_log", "tanh", "signed_sqrt", "tanh"])
    out = st.apply(x.copy(), None, np.random.default_rng(0), ["X0", "X1", "X2", "X3"])
    z = np.array([-2.0, -1.0, 0.0, 1.0, 2.0]) / np.sqrt(2.0)     # mean 3, population sd sqrt(2)
    s = np.sqrt(2.0)
    assert np.allclose(out[:, 0], 3 + s * np.sign(z) * np.log1p(np.abs(z)), rtol=0, atol=1e-14)
    assert np.allclose(out[:, 1], 3 + s * np.tanh(z), rtol=0, atol=1e-14)
    assert np.allclose(out[:, 2], 3 + s * np.sign(z) * np.sqrt(np.abs(z)), rtol=0, atol=1e-14)
    assert np.array_equal(out[:, 3], np.ones(5))                  # constant column left as is


def test_feature_warping_touches_the_drawn_columns_only_and_keeps_order():
    x = table()
    params = STRESSORS["feature_warping"].draw(6, NAMES, np.random.default_rng(1))
    out = build("feature_warping", **params).apply(x.copy(), None, np.random.default_rng(0), NAMES)
    warped = [NAMES.index(c) for c in params["columns"]]
    assert len(warped) == round(0.55 * 6)
    changed = np.flatnonzero((out != x).any(axis=0))
    assert changed.tolist() == sorted(warped)
    for j in warped:                                              # monotone: ranks kept
        assert np.array_equal(np.argsort(out[:, j]), np.argsort(x[:, j]))


def entry_stressor(kind, **params):
    return build(kind, columns=NAMES[:5], **params)           # X5 is never touched


@pytest.mark.parametrize("kind, params, fraction", [
    ("outliers", {"fraction": 0.025, "scale": 4.0}, 0.025),
    ("missingness", {"fraction": 0.05, "jitter": 0.05}, 0.05),
    ("feature_corruption", {"fraction": 0.03}, 0.03),
])
def test_entry_stressors_fraction_untouched_entries_and_determinism(kind, params, fraction):
    x = table()
    mask = np.zeros_like(x, dtype=bool)
    mask[-2000:, 1] = True                                       # intervened entries are spared
    st = entry_stressor(kind, **params)
    out = st.apply(x.copy(), mask, np.random.default_rng(7), NAMES)
    changed = out != x
    eligible = np.ones_like(mask)
    eligible[:, 5] = False
    eligible &= ~mask
    # binomial: N = 98,000 eligible entries, sd of the fraction <= 0.0007; 6 sd tolerance
    assert abs(changed[eligible].mean() - fraction) < 0.0045
    assert not changed[~eligible].any()
    assert np.array_equal(out[~changed], x[~changed])
    again = st.apply(x.copy(), mask, np.random.default_rng(7), NAMES)
    assert np.array_equal(out, again)
    other = st.apply(x.copy(), mask, np.random.default_rng(8), NAMES)
    assert not np.array_equal(out, other)


def test_outlier_jumps_are_at_least_scale_sds_and_heavy_tailed():
    x = table()
    out = entry_stressor("outliers", fraction=0.025, scale=4.0).apply(x.copy(), None, np.random.default_rng(3), NAMES)
    sd = x.std(axis=0)
    r, c = np.nonzero(out != x)
    ratio = np.abs(out[r, c] - x[r, c]) / (4.0 * sd[c])
    assert ratio.min() >= 1 - 1e-12
    # Pareto(shape 3, min 1): mean 1.5, P(> 2) = 1/8; n ~ 2500 hits
    assert abs(ratio.mean() - 1.5) < 0.1 and abs((ratio > 2).mean() - 0.125) < 0.03
    assert abs(np.mean(out[r, c] > x[r, c]) - 0.5) < 0.05       # random sign


def test_missingness_imputes_the_column_mean_with_small_jitter():
    x = table()
    out = entry_stressor("missingness", fraction=0.05, jitter=0.05).apply(x.copy(), None,
                                                                         np.random.default_rng(4), NAMES)
    for j in range(5):
        hit = out[:, j] != x[:, j]
        kept_mean, kept_sd = x[~hit, j].mean(), x[~hit, j].std()
        z = (out[hit, j] - kept_mean) / (0.05 * kept_sd)         # standard normal jitter
        assert abs(z.mean()) < 0.25 and abs(z.std() - 1) < 0.1    # ~1000 imputed entries per column
        assert np.abs(z).max() < 6


def test_feature_corruption_permutes_within_columns():
    x = table()
    out = entry_stressor("feature_corruption", fraction=0.03).apply(x.copy(), None, np.random.default_rng(5), NAMES)
    for j in range(6):
        assert np.array_equal(np.sort(out[:, j]), np.sort(x[:, j]))   # same values, moved rows
    r, c = np.nonzero(out != x)
    # every moved value comes from another row of the same column
    for j in range(5):
        moved = r[c == j]
        assert set(out[moved, j].tolist()) == set(x[moved, j].tolist())


def chain(stressors):
    nodes = [NodeSpec(name="A", role="root",
                      root_distribution=ComponentSpec(kind="gaussian", params={"loc": 0.0, "scale": 1.0}))]
    for parent, name, w in (("A", "B", 2.0), ("B", "C", -1.0), ("C", "D", 0.5)):
        nodes.append(NodeSpec(name=name, role="mechanism", parents=(parent,),
                              mechanism=ComponentSpec(kind="linear", params={"weights": [w], "bias": 0.5}),
                              noise=ComponentSpec(kind="gaussian", params={"scale": 0.5})))
    return SCMSpec(id="chain4", nodes=nodes, stressors=stressors).compile()


def test_soft_intervention_blends_the_structural_value():
    scm = chain([ComponentSpec(kind="soft", params={"softness": 0.45})])
    n = 200
    exo = scm.draw_exogenous(n, np.random.default_rng(0))
    mask = np.zeros((n, 4), dtype=bool)
    mask[100:, 1] = True
    values = np.zeros((n, 4))
    values[100:, 1] = 3.0
    x = scm.propagate(exo, mask, values)
    x0 = scm.propagate(exo)
    # on intervened entries: 0.45 * structural + 0.55 * 3.0; A is untouched so structural = x0
    assert np.allclose(x[100:, 1], 0.45 * x0[100:, 1] + 0.55 * 3.0, rtol=0, atol=1e-12)
    assert np.array_equal(x[:100], x0[:100])
    # the child is computed from the blended value
    eps_c = x0[:, 2] - (-1.0 * x0[:, 1] + 0.5)
    assert np.allclose(x[100:, 2], -1.0 * x[100:, 1] + 0.5 + eps_c[100:], rtol=0, atol=1e-12)


def test_intervention_shift_shifts_and_scales_the_columns_on_intervened_rows():
    scm = chain([ComponentSpec(kind="intervention_shift",
                               params={"columns": ["C", "A"], "shift": [0.3, -0.2], "scale": [1.4, 0.7]})])
    n = 200
    exo = scm.draw_exogenous(n, np.random.default_rng(1))
    mask = np.zeros((n, 4), dtype=bool)
    mask[150:, 3] = True                                    # intervene on D only
    values = np.zeros((n, 4))
    values[150:, 3] = -1.0
    x = scm.propagate(exo, mask, values)
    x0 = scm.propagate(exo)
    assert np.array_equal(x[:150], x0[:150])                  # observational rows unchanged
    r = slice(150, None)
    assert np.allclose(x[r, 0], 0.7 * x0[r, 0] - 0.2, rtol=0, atol=1e-12)
    eps_b = x0[:, 1] - (2.0 * x0[:, 0] + 0.5)
    assert np.allclose(x[r, 1], 2.0 * x[r, 0] + 0.5 + eps_b[r], rtol=0, atol=1e-12)
    eps_c = x0[:, 2] - (-1.0 * x0[:, 1] + 0.5)
    assert np.allclose(x[r, 2], (-1.0 * x[r, 1] + 0.5 + eps_c[r]) * 1.4 + 0.3, rtol=0, atol=1e-12)
    assert np.array_equal(x[r, 3], np.full(50, -1.0))


def test_spec_json_round_trip_and_observation_in_a_dataset():
    from causalarena.protocol import sample_cell

    stressors = [ComponentSpec(kind="missingness", params={"columns": ["B", "C"], "fraction": 0.05, "jitter": 0.05}),
                 ComponentSpec(kind="feature_warping", params={"columns": ["D"], "transforms": ["tanh"]})]
    spec = chain(stressors).spec
    assert SCMSpec.from_json(spec.to_json()) == spec
    cell = sample_cell(spec, "fam", "obs_int", 0)
    diff = cell.x != cell.x_structural
    assert not diff[:, 0].any() and diff[:, 3].all()
    assert abs(diff[:, 1:3].mean() - 0.05) < 0.025                 # 2000 entries: sd 0.005
    assert not diff[:, 1:3][cell.intervention_mask[:, 1:3]].any()
    with pytest.raises(SpecError, match="stressors\\[0\\]: feature_warping: unknown transform"):
        SCMSpec.from_dict({**spec.to_dict(), "stressors": [{"kind": "feature_warping",
                                                            "params": {"columns": ["A"], "transforms": ["x"]}}]})
