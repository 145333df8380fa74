"""Tests of arena-method-notears (run with the distribution installed)."""

import logging
import os

import numpy as np

from arena_testkit import parametrize_method_checks
from causalarena.data import Dataset


@parametrize_method_checks("notears")
def test_conformance_notears(check):
    check()


# The kit fits ~10 times on a 4-variable chain (n = 500); with the App. B.4 defaults
# one NOTEARS-MLP fit takes 10-40 s there. A 2-unit hidden layer, h_tol 1e-3 and at
# most 10 dual steps converge to the (acyclic) chain in a few seconds; the contract
# checked by the kit (shapes, 0/1 DAG, determinism, no state, no truth) is the same.
@parametrize_method_checks("notears_mlp", hidden_layers=(2, 1), h_tol=1e-3, max_iter=10)
def test_conformance_notears_mlp(check):
    check()


def _table(columns, seed, *cols):
    return Dataset(X=np.c_[cols], columns=columns, metadata={"seed": seed})


def test_notears_linear_chain_exact():
    # X0 ~ N(0, 1), X1 = 2 X0 + 0.5 e1, X2 = -1.5 X1 + 0.3 e2, raw scale, n = 1000.
    # Why the answer is known: the noise scales differ (1, 0.5, 0.3) and the marginal
    # variances grow along the chain (1, 4.25, 9.6), so the least-squares (l2) score
    # of NOTEARS is smallest for the true chain 0 -> 1 -> 2 (the reversed chain leaves
    # residual variance ~9.6 on the root). Verified on seeds 0-9: always exactly this
    # graph with W[0,1] ~ 1.9, W[1,2] ~ -1.48. gcastle's W[i, j] is i -> j (X ~ X @ W):
    # a transposed conversion (row = child) gives [[0,0,0],[1,0,0],[0,1,0]] and fails (case I7).
    from arena_method_notears.method import NOTEARS

    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(1000)
    x1 = 2.0 * x0 + 0.5 * rng.standard_normal(1000)
    x2 = -1.5 * x1 + 0.3 * rng.standard_normal(1000)
    m = NOTEARS().fit(_table(["X0", "X1", "X2"], 0, x0, x1, x2))
    assert m.adjacency_.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert m.adjacency_.dtype == np.int8
    # l1 (lambda1 = 0.1) shrinks the weights a little below 2 and -1.5
    np.testing.assert_allclose(m.native_[0, 1], 1.92, atol=0.08)
    np.testing.assert_allclose(m.native_[1, 2], -1.48, atol=0.06)
    np.testing.assert_array_equal(m.edge_scores_, np.abs(m.native_))
    assert m.prediction().kind == "dag"


def test_notears_mlp_nonlinear_edge():
    # X0 ~ U(-2, 2), X1 = 2 sin(1.5 X0) + 0.2 e, n = 500. X1 is a non-invertible function
    # of X0 plus small noise: X0 -> X1 is fitted by the MLP with residual variance 0.04,
    # while X0 given X1 is not a function (two branches), so the reverse has a large
    # residual. Verified on seeds 0-2: W[0,1] ~ 3.0, W[1,0] = 0.
    from arena_method_notears.method import NOTEARSMLP

    rng = np.random.default_rng(0)
    x0 = rng.uniform(-2.0, 2.0, 500)
    x1 = 2.0 * np.sin(1.5 * x0) + 0.2 * rng.standard_normal(500)
    m = NOTEARSMLP().fit(_table(["cause", "effect"], 0, x0, x1))
    assert m.adjacency_.tolist() == [[0, 1], [0, 0]]  # edge present, reverse absent
    assert m.native_[0, 1] > 1.0
    assert m.native_[1, 0] < 0.3


def test_default_threshold_applied_and_params_recorded():
    # X0 ~ N(0,1), X1 = 0.25 X0 + e1, X2 = 2 X1 + 0.5 e2 (seed 1, n = 1000): the weak
    # dependence on X0 comes out with |W| ~ 0.1 (0.05 < |W| <= 0.3), the strong edge 1 -> 2
    # with |W| ~ 1.9. Default threshold 0.3: only 1 -> 2 survives; threshold 0.05 on the same
    # data keeps the weak entry too; W itself does not depend on the threshold.
    from arena_method_notears.method import NOTEARS

    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(1000)
    x1 = 0.25 * x0 + rng.standard_normal(1000)
    x2 = 2.0 * x1 + 0.5 * rng.standard_normal(1000)
    ds = _table(["X0", "X1", "X2"], 1, x0, x1, x2)
    default, low = NOTEARS().fit(ds), NOTEARS(w_threshold=0.05).fit(ds)
    np.testing.assert_array_equal(default.edge_scores_, low.edge_scores_)
    S = default.edge_scores_
    assert default.adjacency_.tolist() == [[0, 0, 0], [0, 0, 1], [0, 0, 0]]
    np.testing.assert_array_equal(default.adjacency_, (S > 0.3).astype(np.int8))
    weak = (S > 0.05) & (S <= 0.3)
    assert weak.sum() >= 1  # there is an entry the default threshold removed
    np.testing.assert_array_equal(low.adjacency_, (S > 0.05).astype(np.int8))
    assert low.adjacency_[weak].all() and not default.adjacency_[weak].any()

    # params: App. B.4 values are the class defaults and are what the descriptors record
    from arena_method_notears.method import NOTEARSMLP
    from causalarena.plugins import get_registry

    reg = get_registry(strict=True)
    assert reg.method("notears").params == NOTEARS().get_params() == {
        "lambda1": 0.1, "loss_type": "l2", "w_threshold": 0.3, "max_iter": 100, "h_tol": 1e-8, "rho_max": 1e16}
    assert reg.method("notears_mlp").params == NOTEARSMLP().get_params() == {
        "lambda1": 0.01, "lambda2": 0.01, "hidden_layers": (10, 1), "max_iter": 100, "w_threshold": 0.3,
        "h_tol": 1e-8, "rho_max": 1e16, "bias": True, "random_state": None}
    assert default.get_params()["w_threshold"] == 0.3
    assert reg.method("notears").distribution == reg.method("notears_mlp").distribution == "arena-method-notears"


def test_castle_side_effects_contained():
    # gcastle sets CASTLE_BACKEND-dependent imports, logging.basicConfig(INFO), torch's default
    # dtype (float64) and numpy print precision at import; none of it may leak out of fit.
    import torch

    from arena_method_notears.method import NOTEARS, NOTEARSMLP

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    backend = os.environ.get("CASTLE_BACKEND")
    precision = np.get_printoptions()["precision"]
    dtype = torch.get_default_dtype()
    torch.manual_seed(123)
    rng_state = torch.get_rng_state()

    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(200)
    ds = _table(["a", "b"], 5, x0, x0 + 0.5 * rng.standard_normal(200))
    NOTEARS(max_iter=2).fit(ds)
    NOTEARSMLP(max_iter=1, hidden_layers=(2, 1)).fit(ds)

    assert list(root.handlers) == handlers and root.level == level
    assert os.environ.get("CASTLE_BACKEND") == backend
    assert np.get_printoptions()["precision"] == precision
    assert torch.get_default_dtype() == dtype
    assert torch.equal(torch.get_rng_state(), rng_state)  # seeded inside fork_rng only


def test_mlp_needs_a_seed():
    import pytest

    from arena_method_notears.method import NOTEARSMLP

    ds = Dataset(X=np.random.default_rng(0).standard_normal((50, 2)), columns=["a", "b"], metadata={})
    with pytest.raises(ValueError, match="seed"):
        NOTEARSMLP().fit(ds)
