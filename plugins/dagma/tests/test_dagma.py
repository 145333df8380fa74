"""Tests of arena-method-dagma (run with the distribution installed)."""

import numpy as np

from arena_testkit import make_chain_dataset, parametrize_method_checks


@parametrize_method_checks("dagma")
def test_conformance(check):
    check()


def test_raw_chain_recovered_exactly():
    # 0 -> 1 -> 2, weight 1, raw scale, n = 500: DAGMA's W[i, j] is i -> j (no transpose),
    # the weights are near 1 and far above the 0.3 threshold, nothing else survives it.
    from arena_method_dagma.method import DAGMA

    ds = make_chain_dataset(d=3, n=500, seed=0, noise="uniform").without_truth()
    m = DAGMA().fit(ds)
    assert m.adjacency_.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    np.testing.assert_allclose(m.native_[[0, 1], [1, 2]], 1.0, atol=0.15)
    # scores are the unthresholded |W|; the graph is exactly |W| >= 0.3
    assert np.array_equal(m.adjacency_, (m.edge_scores_ >= 0.3).astype(np.int8))


def test_threshold_is_applied_to_scores():
    # A threshold above every weight leaves the empty graph but the same scores.
    from arena_method_dagma.method import DAGMA

    ds = make_chain_dataset(d=3, n=500, seed=0, noise="uniform").without_truth()
    a, b = DAGMA().fit(ds), DAGMA(w_threshold=5.0).fit(ds)
    assert b.adjacency_.sum() == 0
    np.testing.assert_array_equal(a.edge_scores_, b.edge_scores_)


def test_input_not_centred_in_place():
    # DagmaLinear.fit subtracts the mean from X in place; the wrapper passes a copy.
    from arena_method_dagma.method import DAGMA

    ds = make_chain_dataset(d=3, n=200, seed=1)
    X = ds.X.copy()
    DAGMA(max_iter=2000, warm_iter=1000).fit(ds)
    np.testing.assert_array_equal(ds.X, X)
