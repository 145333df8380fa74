"""Tests of arena-method-sortnregress (run with the distribution installed)."""

import numpy as np
import pytest

from causalarena.testing import make_chain_dataset, make_linear_dataset, parametrize_method_checks


@parametrize_method_checks("sortnregress")
def test_conformance(check):
    check()


def test_raw_chain_recovered_exactly():
    # Raw 4-chain, weight 1, unit-variance uniform noise: Var = 1, 2, 3, 4 increases
    # along the causal order (varsortability 1), so the variance order is the causal order.
    from arena_method_sortnregress.method import SortNRegress

    ds = make_chain_dataset(d=4, n=500, seed=0, noise="uniform").without_truth()
    m = SortNRegress().fit(ds)
    assert m.order_.tolist() == [0, 1, 2, 3]
    assert m.adjacency_.tolist() == np.eye(4, k=1, dtype=int).tolist()
    # the adaptive-Lasso weights estimate the true weight 1 (shrunk a little by the penalty)
    for j in range(3):
        assert abs(m.native_[j, j + 1] - 1.0) < 0.15
        assert m.edge_scores_[j, j + 1] == abs(m.native_[j, j + 1])


def test_variance_order_not_column_order():
    # Truth 2 -> 1 -> 0 (columns listed against the causal order): the variance order
    # is [2, 1, 0] and the recovered graph is the true one, not the column order.
    from arena_method_sortnregress.method import SortNRegress

    A = np.zeros((3, 3), dtype=int)
    A[2, 1] = A[1, 0] = 1
    ds = make_linear_dataset(A, n=500, seed=1, noise="laplace").without_truth()
    m = SortNRegress().fit(ds)
    assert m.order_.tolist() == [2, 1, 0]
    assert m.adjacency_.tolist() == A.tolist()


def test_non_finite_column_named():
    from arena_method_sortnregress.method import SortNRegress

    ds = make_chain_dataset(d=3, n=50, seed=0)
    ds.X[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"\['X1'\]"):
        SortNRegress().fit(ds)
