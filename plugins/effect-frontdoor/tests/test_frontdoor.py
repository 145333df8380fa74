"""Known answers for the front-door plug-in (run with arena-method-frontdoor installed).

Toy world (linear SCM, front-door criterion holds, U hidden):
X ~ N(0, I_3), U ∈ {−1, +1}, T ~ Bernoulli(σ(1.5U + 0.5X₀)), M = T + 0.3X₀ + 0.5ε_M,
Y = (1 + 0.5X₁) M + 2U + X₀ + 0.3ε_Y. M intercepts T → Y, M ⊥ U | T, X, and (T, X) blocks
M ← T ← U → Y, so τ(x) = (1 + 0.5x₁) · (E[M | T=1, x] − E[M | T=0, x]) = 1 + 0.5x₁.
The naive contrast E[Y | T=1, x] − E[Y | T=0, x] adds 2(E[U | T=1, x] − E[U | T=0, x]) ≈ 2.5.
"""

import numpy as np
import pytest

from arena_task_effect.effect import EffectDataset


def fd_world(n=600, q=40, seed=0):
    rng = np.random.default_rng(seed)
    N = n + q
    X = rng.normal(size=(N, 3))
    U = rng.choice([-1.0, 1.0], size=N)
    T = (rng.uniform(size=N) < 1 / (1 + np.exp(-(1.5 * U + 0.5 * X[:, 0])))).astype(int)
    M = T + 0.3 * X[:, 0] + 0.5 * rng.normal(size=N)
    Y = (1 + 0.5 * X[:, 1]) * M + 2 * U + X[:, 0] + 0.3 * rng.normal(size=N)
    tau = 1 + 0.5 * X[:, 1]
    c, qq = slice(0, n), slice(n, N)
    ds = EffectDataset(X=X[c], T=T[c], Y=Y[c], X_query=X[qq], query_ids=np.arange(N)[qq], view="fd",
                       auxiliary={"mediator": M[c]}, auxiliary_query={"mediator": M[qq]})
    return ds, tau[qq]


def naive_linear_cate(ds):
    """OLS of Y on (1, X, T, T·X): the X-only contrast, biased by the hidden U."""
    D = np.column_stack([np.ones(ds.n), ds.X, ds.T, ds.T[:, None] * ds.X])
    b = np.linalg.lstsq(D, ds.Y, rcond=None)[0]
    return b[1 + ds.d] + ds.X_query @ b[2 + ds.d:]


def test_recovers_tau_where_the_naive_contrast_is_biased():
    from arena_method_frontdoor.method import FrontDoorPlugin

    ds, tau = fd_world()
    naive_bias = abs(np.mean(naive_linear_cate(ds) - tau))
    est = FrontDoorPlugin(backbone="xgboost").fit(ds).cate_
    rmse = np.sqrt(np.mean((est - tau) ** 2))
    assert naive_bias > 2.0  # the confounding the front-door removes
    assert rmse < 0.45
    assert naive_bias > 5 * rmse
    assert abs(np.mean(est - tau)) < 0.3  # the query-mean effect


class _LinearOutcome:
    """Stub outcome model g(x, m, t) = x₀ + 2m − 3t on [X (p), M (1), T] rows."""

    def predict(self, rows):
        return rows[:, 0] + 2.0 * rows[:, -2] - 3.0 * rows[:, -1]


@pytest.mark.parametrize("chunk_rows", [1, 37, 10_000])
def test_functional_hand_computed(chunk_rows):
    # E[Y(t)|x] = mean_j Σ_t' P(t'|x) (x0 + 2(μ_t + r_j) − 3t') = x0 + 2μ_t + 2 mean(r) − 3 e(x);
    # with a centred pool mean(r) = 0, so τ = 2(μ_1 − μ_0), whatever the chunking
    from arena_method_frontdoor.method import frontdoor_functional

    Xq = np.array([[1.0, 5.0], [-2.0, 0.0], [0.5, 0.5]])
    mu = {0: np.array([[0.0], [1.0], [2.0]]), 1: np.array([[1.0], [1.5], [5.0]])}
    e1 = np.array([0.2, 0.5, 0.9])
    R = np.array([[-1.0], [0.25], [0.75]])
    out = frontdoor_functional(_LinearOutcome(), Xq, mu, e1, R, chunk_rows=chunk_rows)
    for t in (0, 1):
        np.testing.assert_allclose(out[t], Xq[:, 0] + 2 * mu[t][:, 0] - 3 * e1, atol=1e-12)
    np.testing.assert_allclose(out[1] - out[0], [2.0, 1.0, 6.0], atol=1e-12)


def test_residual_pool_is_out_of_fold_and_centred():
    # M = 3 f + 1 exactly: every out-of-fold OLS fit is exact, so all residuals are 0;
    # with noise, the pool is centred and equals the manual K-fold residuals
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold

    from arena_method_frontdoor.method import residual_pool

    rng = np.random.default_rng(0)
    f = rng.normal(size=(50, 1))
    R = residual_pool(f, 3 * f + 1, folds=5, make=lambda s: LinearRegression(), seed=0)
    np.testing.assert_allclose(R, 0.0, atol=1e-10)
    M = 3 * f + 1 + rng.normal(size=(50, 1))
    R = residual_pool(f, M, folds=5, make=lambda s: LinearRegression(), seed=0)
    manual = np.empty(50)
    for tr, te in KFold(5, shuffle=True, random_state=0).split(f):
        manual[te] = M[te, 0] - LinearRegression().fit(f[tr], M[tr, 0]).predict(f[te])
    np.testing.assert_allclose(R[:, 0], manual - manual.mean(), atol=1e-12)
    assert abs(R.mean()) < 1e-12


def test_same_seed_same_estimate_and_query_mediator_unused():
    from arena_method_frontdoor.method import FrontDoorPlugin

    ds, _ = fd_world(n=200, q=10, seed=3)
    a = FrontDoorPlugin(backbone="xgboost", folds=3, seed=7).fit(ds).cate_
    b = FrontDoorPlugin(backbone="xgboost", folds=3, seed=7).fit(ds).cate_
    assert a.tobytes() == b.tobytes()
    ds.auxiliary_query["mediator"][:] = 1e6  # the factual query mediator plays no part
    c = FrontDoorPlugin(backbone="xgboost", folds=3, seed=7).fit(ds).cate_
    assert a.tobytes() == c.tobytes()


def test_bad_input_names_the_field():
    from arena_method_frontdoor.method import FrontDoorPlugin

    ds, _ = fd_world(n=50, q=5)
    no_m = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, view="hc")
    with pytest.raises(ValueError, match=r"auxiliary\['mediator'\]"):
        FrontDoorPlugin().fit(no_m)
    with pytest.raises(ValueError, match="folds must be between 2"):
        FrontDoorPlugin(folds=1).fit(ds)
    with pytest.raises(ValueError, match="unknown backbone 'tabpfn'"):
        FrontDoorPlugin(backbone="tabpfn").fit(ds)


def test_registered_for_the_front_door_view_only():
    from causalarena.plugins import get_registry

    reg = get_registry()
    for backbone in ("xgboost", "extratrees", "mlp"):
        info = reg.method(f"frontdoor_{backbone}")
        assert (info.task, info.views, info.output_kind) == ("effect", ("fd",), "effect")
        assert info.params == {"backbone": backbone, "folds": 5, "seed": 0}
        assert info.distribution == "arena-method-frontdoor"
        assert info.load().__name__ == "FrontDoorPlugin"
