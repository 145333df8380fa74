"""Tests of arena-method-direct-lingam (run with the distribution installed)."""

import numpy as np
import pytest

from arena_testkit import make_chain_dataset, make_linear_dataset, parametrize_method_checks


@parametrize_method_checks("direct_lingam")
def test_conformance(check):
    check()


def test_chain_recovered_exactly():
    # 0 -> 1 -> 2, uniform (non-Gaussian) noise, n = 2000: LiNGAM identifies the DAG.
    # lingam returns B[1,0] != 0 for 0 -> 1; a missing transpose gives 2 -> 1 -> 0
    # and fails here (case I7).
    from arena_method_direct_lingam.method import DirectLiNGAM

    ds = make_chain_dataset(d=3, n=2000, seed=0, noise="uniform").without_truth()
    m = DirectLiNGAM().fit(ds)
    assert m.adjacency_.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert m.causal_order_ == [0, 1, 2]
    assert m.native_[1, 0] != 0 and m.native_[0, 1] == 0  # lingam's row = child
    np.testing.assert_allclose(m.edge_scores_[[0, 1], [1, 2]], 1.0, atol=0.1)  # true weights 1


def test_standardised_reverse_listed_chain():
    # Truth 2 -> 1 -> 0 on standardised data (no variance cue): still recovered.
    from arena_method_direct_lingam.method import DirectLiNGAM

    A = np.zeros((3, 3), dtype=int)
    A[2, 1] = A[1, 0] = 1
    ds = make_linear_dataset(A, n=2000, seed=0, noise="uniform", standardise=True).without_truth()
    assert DirectLiNGAM().fit(ds).adjacency_.tolist() == A.tolist()


def test_conversion_and_non_finite():
    from arena_method_direct_lingam.method import lingam_to_adjacency

    B = np.array([[0.0, 0.0], [0.7, 0.0]])  # x1 = 0.7 x0 + e1  ->  0 -> 1
    assert lingam_to_adjacency(B).tolist() == [[0, 1], [0, 0]]
    with pytest.raises(ValueError, match="non-finite"):
        lingam_to_adjacency(np.array([[0.0, np.nan], [0.0, 0.0]]))
