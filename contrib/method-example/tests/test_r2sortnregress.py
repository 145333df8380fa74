"""Tests of arena-contrib-method-example (run with the distribution installed)."""

import numpy as np
import pytest

from arena_testkit import make_linear_dataset, parametrize_method_checks


@parametrize_method_checks("r2sortnregress")
def test_conformance(check):
    check()


def fit(ds, **params):
    from arena_contrib_method_example.method import R2SortNRegress

    return R2SortNRegress(**params).fit(ds.without_truth())


def collider():
    # columns [c, a, b] with a -> c <- b (listed against the causal order), weights 1,
    # unit-variance noise: R²(a) = R²(b) = 1/2 < R²(c) = 2/3, so c comes last
    A = np.zeros((3, 3), dtype=int)
    A[1, 0] = A[2, 0] = 1
    return A, make_linear_dataset(A, n=2000, seed=3, noise="uniform")


def test_r2_of_a_collider_known_values():
    from arena_contrib_method_example.method import r2_scores

    _, ds = collider()
    assert np.allclose(r2_scores(ds.X), [2 / 3, 1 / 2, 1 / 2], atol=0.03)


def test_collider_recovered_exactly_row_is_parent():
    A, ds = collider()
    m = fit(ds)
    assert m.order_[-1] == 0
    assert m.adjacency_.tolist() == A.tolist()       # a -> c, b -> c (row = parent)
    assert m.adjacency_.tolist() != A.T.tolist()     # the transposed convention (row = child) fails
    assert m.prediction().kind == "dag"


def test_scale_invariant_unlike_variance_sorting():
    # rescaling columns (units) changes marginal variances but not R²: same graph
    A, ds = collider()
    scaled = make_linear_dataset(A, n=2000, seed=3, noise="uniform")
    scaled.X[:] = scaled.X * np.array([0.001, 1000.0, 7.0])
    assert fit(scaled).adjacency_.tolist() == fit(ds).adjacency_.tolist() == A.tolist()


def test_single_edge_is_a_tie_and_keeps_column_order():
    # one edge 1 -> 0: R² of both ends is corr², a tie; the stable order keeps column
    # order, so the method finds the edge but orients it 0 -> 1 (R² cannot orient it)
    A = np.zeros((2, 2), dtype=int)
    A[1, 0] = 1
    m = fit(make_linear_dataset(A, n=1000, seed=0))
    assert m.r2_[0] == m.r2_[1]
    assert m.order_.tolist() == [0, 1]
    assert m.adjacency_.tolist() == A.T.tolist()


def test_non_finite_column_named():
    _, ds = collider()
    ds.X[5, 2] = np.inf
    with pytest.raises(ValueError, match=r"\['X2'\]"):
        fit(ds)


def single_edge_at_a_rounding_boundary(seed, r2, n=200):
    # columns [y, x], edge x -> y (1 -> 0), with corr² = r2 exactly in real arithmetic: x and the
    # noise e are centred, orthogonal and of equal norm, y = w·x + e with w² / (w² + 1) = r2
    rng = np.random.default_rng(seed)
    x, e = rng.standard_normal(n), rng.standard_normal(n)
    x, e = x - x.mean(), e - e.mean()
    e -= (e @ x) / (x @ x) * x
    e *= np.linalg.norm(x) / np.linalg.norm(e)
    from causalarena.data import Dataset

    return Dataset(X=np.column_stack([np.sqrt(r2 / (1 - r2)) * x + e, x]), columns=["y", "x"],
                   metadata={"seed": seed})


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("r2", [0.3 + 0.5e-12, 0.7 + 0.5e-12])
def test_r2_tie_within_tolerance_keeps_column_order(seed, r2):
    # The two ends of one edge have the same R²; computed, they differ by ~1e-16, and at a
    # 12-digit rounding boundary rounding alone splits them by 1e-12 (the old tie rule). The tie
    # rule is relative (1e-9 · max R², causalarena.ordering.TIE_RTOL): the column order stands.
    m = fit(single_edge_at_a_rounding_boundary(seed, r2))
    assert abs(m.r2_[0] - m.r2_[1]) <= 1e-9 * m.r2_.max()
    assert m.order_.tolist() == [0, 1]
    assert m.adjacency_.tolist() == [[0, 1], [0, 0]]


def test_tie_tolerance_is_a_recorded_parameter():
    from arena_contrib_method_example.method import R2SortNRegress
    from causalarena.ordering import TIE_RTOL

    assert R2SortNRegress().get_params() == {"criterion": "bic", "tie_rtol": TIE_RTOL}
