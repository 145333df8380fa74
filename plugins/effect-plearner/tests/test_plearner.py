"""Known answers for the P-learner (run with arena-method-plearner installed).

Proximal world (binary U, Z, W; U hidden): X ~ N(0, I_3), U ~ Bernoulli(0.5),
Z ~ Bernoulli(0.15 + 0.7U), W ~ Bernoulli(0.15 + 0.7U) (pre-treatment proxies of U),
T ~ Bernoulli(σ(−1 + 2U + 0.5X₀)), Y = τ(X) T + 2U + X₀ + 0.3ε with τ(x) = 1 + 0.5x₁.
Y ⊥ Z | T, U, X and W ⊥ (T, Z) | U, X hold, and P(W | U) is invertible, so the bridges exist
and E[Y(t) | x] = E[h_t(W, x) | x] (App. B.4). The X-only contrast is biased by
2(E[U | T=1, x] − E[U | T=0, x]).
"""

import itertools

import numpy as np
import pytest

from arena_task_effect.effect import EffectDataset

P_U = 0.5


def p_z(u):
    return 0.15 + 0.7 * u  # P(Z=1 | U=u) (and P(W=1 | U=u))


def p_t(u, x0):
    return 1 / (1 + np.exp(-(-1 + 2 * u + 0.5 * x0)))  # P(T=1 | U=u, x)


def ey(u, t, x0, x1):
    return (1 + 0.5 * x1) * t + 2 * u + x0  # E[Y | U=u, T=t, x]


def px_world(n=1000, q=100, seed=0):
    rng = np.random.default_rng(seed)
    N = n + q
    X = rng.normal(size=(N, 3))
    U = (rng.uniform(size=N) < P_U).astype(float)
    Z = (rng.uniform(size=N) < p_z(U)).astype(float)
    W = (rng.uniform(size=N) < p_z(U)).astype(float)
    T = (rng.uniform(size=N) < p_t(U, X[:, 0])).astype(int)
    Y = ey(U, T, X[:, 0], X[:, 1]) + 0.3 * rng.normal(size=N)
    c, qq = slice(0, n), slice(n, N)
    ds = EffectDataset(X=X[c], T=T[c], Y=Y[c], X_query=X[qq], query_ids=np.arange(N)[qq], view="px",
                       auxiliary={"treatment_proxy": Z[c], "outcome_proxy": W[c]},
                       auxiliary_query={"treatment_proxy": Z[qq], "outcome_proxy": W[qq]})
    return ds, 1 + 0.5 * X[qq, 1]


def naive_linear_cate(ds):
    D = np.column_stack([np.ones(ds.n), ds.X, ds.T, ds.T[:, None] * ds.X])
    b = np.linalg.lstsq(D, ds.Y, rcond=None)[0]
    return b[1 + ds.d] + ds.X_query @ b[2 + ds.d:]


# --- the two-point bridge solver ---------------------------------------------------------------


def test_ridge_two_point_equals_the_closed_form():
    from arena_method_plearner.method import ridge_two_point

    A = np.array([[[0.7, 0.3], [0.2, 0.8]]])
    b = np.array([[1.0, 2.0]])
    # λ = 0: Cramer's rule on A h = b, det = 0.7·0.8 − 0.3·0.2 = 0.5
    np.testing.assert_allclose(ridge_two_point(A, b, 0.0), [[(1.0 * 0.8 - 0.3 * 2.0) / 0.5,
                                                              (0.7 * 2.0 - 0.2 * 1.0) / 0.5]], atol=1e-14)
    # λ = 0.01: G = AᵀA + λI = [[0.54, 0.37], [0.37, 0.74]], Aᵀb = [1.1, 1.9];
    # h = adj(G) Aᵀb / det G, det G = 0.54·0.74 − 0.37² = 0.2627
    det = 0.54 * 0.74 - 0.37 ** 2
    closed = np.array([0.74 * 1.1 - 0.37 * 1.9, 0.54 * 1.9 - 0.37 * 1.1]) / det
    np.testing.assert_allclose(ridge_two_point(A, b, 0.01), closed[None], atol=1e-12)
    # a singular system (uninformative proxy) stays finite under the ridge: AᵀA = ½·11ᵀ, Aᵀb = (1, 1),
    # so h = (a, a) with (1 + λ) a = 1
    S = np.array([[[0.5, 0.5], [0.5, 0.5]]])
    np.testing.assert_allclose(ridge_two_point(S, np.array([[1.0, 1.0]]), 0.01), [[1 / 1.01, 1 / 1.01]], atol=1e-12)
    with pytest.raises(ValueError, match="m × 2 × 2"):
        ridge_two_point(np.eye(2), b)


def _population(x0, x1):
    """Exact conditional quantities of the proximal world at x (Bayes over U)."""
    us = (0.0, 1.0)

    def post(weights):  # P(U=u | ·) from unnormalised weights
        w = np.array(weights)
        return w / w.sum()

    def pb(p, v):
        return p if v else 1 - p

    mu, pw, pz, e1 = {}, {}, {}, {}
    for t, z in itertools.product((0, 1), (0, 1)):
        pu = post([pb(P_U, u) * pb(p_z(u), z) * pb(p_t(u, x0), t) for u in us])
        mu[(z, t)] = sum(pu[k] * ey(u, t, x0, x1) for k, u in enumerate(us))
        pw[(z, t)] = sum(pu[k] * p_z(u) for k, u in enumerate(us))  # P(W=1 | z, t, x)
    for w in (0, 1):
        pu = post([pb(P_U, u) * pb(p_z(u), w) for u in us])
        e1[w] = sum(pu[k] * p_t(u, x0) for k, u in enumerate(us))  # P(T=1 | W=w, x)
        for t in (0, 1):
            put = post([pb(P_U, u) * pb(p_z(u), w) * pb(p_t(u, x0), t) for u in us])
            pz[(w, t)] = sum(put[k] * p_z(u) for k, u in enumerate(us))  # P(Z=1 | w, t, x)
    return mu, pw, pz, e1


def _true_bridges(x0, x1, ridge=0.0):
    from arena_method_plearner.method import ridge_two_point, two_point_system

    mu, pw, pz, e1 = _population(x0, x1)
    h, q = {}, {}
    for t in (0, 1):
        A, b = two_point_system({z: np.array([pw[(z, t)]]) for z in (0, 1)},
                                {z: np.array([mu[(z, t)]]) for z in (0, 1)})
        h[t] = ridge_two_point(A, b, ridge)[0]
        B, c = two_point_system({w: np.array([pz[(w, t)]]) for w in (0, 1)},
                                {w: np.array([1 / (e1[w] if t else 1 - e1[w])]) for w in (0, 1)})
        q[t] = ridge_two_point(B, c, ridge)[0]
    return h, q


def _expected_gamma(x0, x1, h, q):
    """E[Γ | x] by enumerating (U, Z, W, T) (Γ is linear in Y, so Y may be its conditional mean)."""
    from arena_method_plearner.method import pseudo_outcome

    def pb(p, v):
        return p if v else 1 - p

    cells = list(itertools.product((0, 1), repeat=4))  # u, z, w, t
    weight = np.array([pb(P_U, u) * pb(p_z(u), z) * pb(p_z(u), w) * pb(p_t(u, x0), t) for u, z, w, t in cells])
    U, Z, W, T = (np.array(col, dtype=float) for col in zip(*cells))
    Y = ey(U, T, x0, x1)
    m = len(cells)
    gamma = pseudo_outcome({t: np.tile(h[t], (m, 1)) for t in (0, 1)}, {t: np.tile(q[t], (m, 1)) for t in (0, 1)},
                           W, Z, T, Y)
    return float(weight @ gamma)


@pytest.mark.parametrize("x0, x1", [(0.0, 0.0), (1.3, -0.7), (-2.0, 2.5)])
def test_bridges_identify_tau_and_the_score_is_doubly_robust(x0, x1):
    # exact population nuisances, λ = 0: E[h_t(W, x) | x] = E[Y(t) | x]; E[Γ | x] = τ(x) with both bridges,
    # with a wrong outcome bridge (h ≡ 0, q correct) and with a wrong treatment bridge (q ≡ 0, h correct)
    h, q = _true_bridges(x0, x1)
    pw1 = P_U * p_z(1.0) + (1 - P_U) * p_z(0.0)  # P(W=1 | x)
    for t in (0, 1):
        ey_t = P_U * ey(1.0, t, x0, x1) + (1 - P_U) * ey(0.0, t, x0, x1)
        assert abs((1 - pw1) * h[t][0] + pw1 * h[t][1] - ey_t) < 1e-10
    tau = 1 + 0.5 * x1
    zero = {t: np.zeros(2) for t in (0, 1)}
    assert abs(_expected_gamma(x0, x1, h, q) - tau) < 1e-10
    assert abs(_expected_gamma(x0, x1, zero, q) - tau) < 1e-10
    assert abs(_expected_gamma(x0, x1, h, zero) - tau) < 1e-10
    # the paper's ridge 0.01 perturbs the bridges a little; the score stays close
    hr, qr = _true_bridges(x0, x1, ridge=0.01)
    assert abs(_expected_gamma(x0, x1, hr, qr) - tau) < 0.1


# --- the estimator on data -----------------------------------------------------------------------


def test_recovers_tau_better_than_the_x_only_fit():
    from arena_method_plearner.method import PLearner

    ds, tau = px_world()
    naive = naive_linear_cate(ds)
    m = PLearner(backbone="extratrees", folds=3).fit(ds)
    spehe2, naive_spehe2 = np.mean((m.cate_ - tau) ** 2), np.mean((naive - tau) ** 2)
    assert abs(np.mean(naive - tau)) > 0.7  # the X-only contrast's confounding bias
    assert abs(np.mean(m.cate_ - tau)) < 0.25
    assert spehe2 < 0.25 * naive_spehe2
    assert abs(np.mean(m.pseudo_outcome_) - np.mean(1 + 0.5 * ds.X[:, 1])) < 0.3  # the context ATE from Γ


def test_same_seed_byte_identical_and_proxy_coding_invariant():
    from arena_method_plearner.method import PLearner

    ds, _ = px_world(n=300, q=10, seed=5)
    a = PLearner(backbone="xgboost", folds=2, seed=3).fit(ds).cate_
    b = PLearner(backbone="xgboost", folds=2, seed=3).fit(ds).cate_
    assert a.tobytes() == b.tobytes()
    for role in ("treatment_proxy", "outcome_proxy"):  # standardised proxies: recoded to 0/1, same bytes
        col = ds.auxiliary[role]
        ds.auxiliary[role] = (col - col.mean()) / col.std()
    assert PLearner(backbone="xgboost", folds=2, seed=3).fit(ds).cate_.tobytes() == a.tobytes()


def test_bad_input_names_the_field():
    from arena_method_plearner.method import PLearner

    ds, _ = px_world(n=60, q=5)
    no_w = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, view="px",
                         auxiliary={"treatment_proxy": ds.auxiliary["treatment_proxy"]})
    with pytest.raises(ValueError, match=r"auxiliary\['outcome_proxy'\]"):
        PLearner().fit(no_w)
    ds.auxiliary["treatment_proxy"] = np.zeros((60, 1))
    with pytest.raises(ValueError, match=r"auxiliary\['treatment_proxy'\] must be binary with both values"):
        PLearner().fit(ds)
    ds, _ = px_world(n=60, q=5)
    with pytest.raises(ValueError, match="folds must be between 2"):
        PLearner(folds=1).fit(ds)
    with pytest.raises(ValueError, match="unknown backbone 'tabpfn'"):
        PLearner(backbone="tabpfn").fit(ds)


def test_registered_for_the_proximal_view_only():
    from causalarena.plugins import get_registry

    reg = get_registry()
    for backbone in ("extratrees", "mlp", "xgboost"):
        info = reg.method(f"plearner_{backbone}")
        assert (info.task, info.views, info.output_kind) == ("effect", ("px",), "effect")
        assert info.params == {"backbone": backbone, "folds": 5, "ridge": 0.01, "propensity_clip": 0.01, "seed": 0}
        assert info.distribution == "arena-method-plearner"
        assert info.load().__name__ == "PLearner"
