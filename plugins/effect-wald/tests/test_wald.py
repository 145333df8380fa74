"""Known answers for the conditional Wald estimator (run with arena-method-wald installed).

IV world (linear outcome, monotone binary instrument, hidden U):
X ~ N(0, I_3), U ∈ {−1, +1}, I ~ Bernoulli(0.5), T = 1{−2 + 4I + 1.5U + 0.3X₀ + logistic > 0},
Y = τ(X) T + 1.5U + X₀ + 0.3ε with τ(x) = 1 + 0.5x₁. I is exogenous and excluded, T is monotone
in I, and Y(1) − Y(0) = τ(X) for every unit (within-X gain invariance), so the conditional Wald
ratio equals τ(x) (App. B.3); the naive contrast is biased by the U → T, U → Y path.
"""

import numpy as np
import pytest

from arena_task_effect.effect import EffectDataset, EffectInstance, EffectOracle, check_effect_output


def iv_world(n=1000, q=100, seed=0, strength=4.0, first_stage=True):
    rng = np.random.default_rng(seed)
    N = n + q
    X = rng.normal(size=(N, 3))
    U = rng.choice([-1.0, 1.0], size=N)
    Iv = (rng.uniform(size=N) < 0.5).astype(float)
    T = ((-0.5 * strength + strength * Iv + 1.5 * U + 0.3 * X[:, 0] + rng.logistic(size=N)) > 0).astype(int)
    if not first_stage:  # T a function of X alone: E[T | I=1, x] − E[T | I=0, x] = 0 exactly
        T = (X[:, 0] > 0).astype(int)
    tau = 1 + 0.5 * X[:, 1]
    Y = tau * T + 1.5 * U + X[:, 0] + 0.3 * rng.normal(size=N)
    c, qq = slice(0, n), slice(n, N)
    ds = EffectDataset(X=X[c], T=T[c], Y=Y[c], X_query=X[qq], query_ids=np.arange(N)[qq], view="iv",
                       auxiliary={"instrument": Iv[c]}, auxiliary_query={"instrument": Iv[qq]})
    return ds, tau[qq]


def naive_linear_cate(ds):
    D = np.column_stack([np.ones(ds.n), ds.X, ds.T, ds.T[:, None] * ds.X])
    b = np.linalg.lstsq(D, ds.Y, rcond=None)[0]
    return b[1 + ds.d] + ds.X_query @ b[2 + ds.d:]


def test_ratio_hand_computed():
    from arena_method_wald.method import wald_ratio

    out = wald_ratio([2.0, -1.0, 1.0, 1.0, 0.0, 3.0], [0.5, -0.25, -0.5, 1e-13, 0.0, -1e-12])
    np.testing.assert_array_equal(out[:3], [4.0, 4.0, -2.0])  # the first-stage sign is kept
    assert np.isnan(out[3:]).all()  # |Δ_T| ≤ 1e-12: undefined, no floor, no fallback


@pytest.mark.parametrize("backbone", ["xgboost", "extratrees"])
def test_recovers_tau_on_an_iv_world(backbone):
    from arena_method_wald.method import ConditionalWald

    ds, tau = iv_world()
    naive = naive_linear_cate(ds)
    m = ConditionalWald(backbone=backbone).fit(ds)
    spehe2, naive_spehe2 = np.mean((m.cate_ - tau) ** 2), np.mean((naive - tau) ** 2)
    assert np.isfinite(m.cate_).all() and check_effect_output(m.prediction(), ds) is None
    assert abs(np.mean(naive - tau)) > 0.8  # the naive contrast's confounding bias
    assert abs(np.mean(m.cate_ - tau)) < 0.3  # the Wald ratio's query-mean effect
    assert spehe2 < 0.5 * naive_spehe2
    assert 0.4 < np.mean(m.delta_t_) < 0.7  # population first stage ≈ 0.55


def test_zero_first_stage_is_undefined_and_rejected_by_the_core():
    # T depends on X only: the first-stage trees never split on I, Δ̂_T(x) = 0 exactly
    from arena_method_wald.method import ConditionalWald

    ds, _ = iv_world(n=400, q=20, first_stage=False)
    m = ConditionalWald(backbone="xgboost").fit(ds)
    assert np.all(m.delta_t_ == 0.0) and np.isnan(m.cate_).all()
    assert check_effect_output(m.prediction(), ds) == "cate has 20 non-finite value(s) of 20"


def test_constant_instrument_is_undefined_for_tree_backbones():
    from arena_method_wald.method import ConditionalWald

    ds, _ = iv_world(n=300, q=10)
    ds.auxiliary["instrument"][:] = 1.0  # no instrument variation in the context: no first stage
    for backbone in ("xgboost", "extratrees"):
        m = ConditionalWald(backbone=backbone).fit(ds)
        assert np.isnan(m.cate_).all()
        assert "non-finite" in check_effect_output(m.prediction(), ds)


def test_standardised_instrument_is_recoded_and_gives_the_same_estimate():
    from arena_effect_backbones import binary_column
    from arena_method_wald.method import ConditionalWald

    ds, _ = iv_world(n=300, q=10, seed=2)
    raw = ConditionalWald(backbone="xgboost", seed=4).fit(ds).cate_
    inst = ds.auxiliary["instrument"]
    ds.auxiliary["instrument"] = (inst - inst.mean()) / inst.std()
    np.testing.assert_array_equal(binary_column(ds, "instrument"), inst[:, 0])
    again = ConditionalWald(backbone="xgboost", seed=4).fit(ds).cate_
    assert raw.tobytes() == again.tobytes()  # byte-identical for a seed, and coding-invariant


def test_bad_input_names_the_field():
    from arena_method_wald.method import ConditionalWald

    ds, _ = iv_world(n=50, q=5)
    no_i = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, view="hc")
    with pytest.raises(ValueError, match=r"auxiliary\['instrument'\]"):
        ConditionalWald().fit(no_i)
    ds.auxiliary["instrument"] = np.linspace(0, 1, 50)
    with pytest.raises(ValueError, match=r"auxiliary\['instrument'\] must be binary with both values present, found 50 distinct"):
        ConditionalWald().fit(ds)
    ds.auxiliary["instrument"] = np.zeros((50, 2))
    with pytest.raises(ValueError, match="one binary column, got 2 columns"):
        ConditionalWald().fit(ds)


def test_registered_for_the_iv_view_only():
    from causalarena.plugins import get_registry

    reg = get_registry()
    for backbone in ("xgboost", "extratrees", "mlp"):
        info = reg.method(f"wald_{backbone}")
        assert (info.task, info.views, info.output_kind) == ("effect", ("iv",), "effect")
        assert info.params == {"backbone": backbone, "seed": 0}
        assert info.distribution == "arena-method-wald"
        assert info.load().__name__ == "ConditionalWald"


class IVWorlds(EffectInstance):
    """A two-view effect instance for the runner: ``iv`` with a zero first stage, ``fd`` (not Wald's view)."""

    family, scm_id, splits, n_replicates, factors = "wald_test", "zero-fs", ("iv", "fd"), 1, {}

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        ds, _ = iv_world(n=300, q=20, first_stage=False)
        if split == "fd":
            ds = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, view="fd",
                               auxiliary={"mediator": ds.T.astype(float)})
        ds.view = split
        return ds

    def oracle(self, split, replicate, n=None):
        _, tau = iv_world(n=300, q=20, first_stage=False)
        return EffectOracle(query_ids=np.arange(300, 320), tau=tau)

    def fingerprint(self):
        return "0123456789abcdef"


def test_the_runner_records_a_zero_first_stage_as_invalid_output(tmp_path):
    from causalarena.plugins import get_registry
    from causalarena.records import Status
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    world = IVWorlds()
    reg = get_registry()
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([world], [reg.method("wald_xgboost")]), reg, st, progress=False)
        rows = {r.split: r for r in st.records()}
    assert rows["iv"].status == Status.INVALID_OUTPUT and "20 non-finite value(s) of 20" in rows["iv"].error
    assert rows["fd"].status == Status.UNSUPPORTED
