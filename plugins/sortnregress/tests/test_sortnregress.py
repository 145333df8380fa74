"""Tests of arena-method-sortnregress (run with the distribution installed)."""

import numpy as np
import pytest

from arena_testkit import make_chain_dataset, make_linear_dataset, parametrize_method_checks


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


# --- ties: standardised data (issue 12, item 10) ------------------------------------------------
#
# After z-scoring every variance is 1 up to floating-point noise (~1e-15). The variance order is
# then a tie, and the documented answer is the column order (ties within 1e-9 · max variance,
# causalarena.ordering.TIE_RTOL) — not a permutation picked by rounding errors.


def _standardised(ds):
    from causalarena.protocol import standardise

    ds.X[:] = standardise(ds.X)
    return ds


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("d", [3, 6, 10])
def test_standardised_chain_orders_by_column(d, seed):
    # chain X0 -> ... -> X(d-1) listed in its causal order: the column order is the answer,
    # so every chain edge is found with its true direction (regression in the true order)
    from arena_method_sortnregress.method import SortNRegress

    ds = _standardised(make_chain_dataset(d=d, n=500, seed=seed)).without_truth()
    assert np.ptp(ds.X.var(axis=0)) < 1e-12  # the variances are a floating-point tie
    m = SortNRegress().fit(ds)
    assert m.order_.tolist() == list(range(d))
    assert all(m.adjacency_[j, j + 1] == 1 for j in range(d - 1))
    assert not np.tril(m.adjacency_).any()  # no edge against the column (= causal) order


@pytest.mark.parametrize("seed", range(4))
def test_standardised_reversed_chain_keeps_column_order_not_causal_order(seed):
    # truth 3 -> 2 -> 1 -> 0 standardised: variance carries no order, the column order stands
    from arena_method_sortnregress.method import SortNRegress

    A = np.eye(4, k=-1, dtype=int)
    ds = _standardised(make_linear_dataset(A, n=500, seed=seed, noise="laplace")).without_truth()
    m = SortNRegress().fit(ds)
    assert m.order_.tolist() == [0, 1, 2, 3]
    assert not np.tril(m.adjacency_).any()  # every edge points from a lower to a higher column


def test_variances_beyond_the_tolerance_still_sort():
    # scale columns by 1 + 1e-6 steps (well above 1e-9, relative): a real order, sorted by variance
    from arena_method_sortnregress.method import SortNRegress

    ds = _standardised(make_chain_dataset(d=4, n=500, seed=0))
    ds.X[:] = ds.X * np.sqrt(1 + 1e-6 * np.array([3.0, 0.0, 2.0, 1.0]))
    assert SortNRegress().fit(ds.without_truth()).order_.tolist() == [1, 3, 2, 0]
    # with tie_rtol=1e-5 they are a tie again: column order
    assert SortNRegress(tie_rtol=1e-5).fit(ds.without_truth()).order_.tolist() == [0, 1, 2, 3]


def test_tie_tolerance_is_a_recorded_parameter():
    from arena_method_sortnregress.method import SortNRegress
    from causalarena.ordering import TIE_RTOL

    assert SortNRegress().get_params() == {"criterion": "bic", "tie_rtol": TIE_RTOL}
