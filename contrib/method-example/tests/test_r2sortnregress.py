"""Tests of arena-contrib-method-example (run with the distribution installed)."""

import numpy as np
import pytest

from causalarena.testing import make_linear_dataset, parametrize_method_checks


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
