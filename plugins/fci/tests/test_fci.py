"""Tests of arena-method-fci (run with the distribution installed)."""

import numpy as np

from arena_testkit import make_chain_dataset, make_linear_dataset, parametrize_method_checks


@parametrize_method_checks("fci")
def test_conformance(check):
    check()


def test_v_structure_known_directed_edges():
    # 0 -> 2 <- 1, Gaussian, n = 2000. FCI finds the collider with circles at the tails:
    # 0 o-> 2 <-o 1, which the rule turns into 0 -> 2 and 1 -> 2. A transposed reading of
    # causal-learn's endpoint matrix would give 2 -> 0 and fail here (case I7).
    from arena_method_fci.method import FCI

    A = np.zeros((3, 3), dtype=int)
    A[0, 2] = A[1, 2] = 1
    ds = make_linear_dataset(A, n=2000, seed=0, noise="gaussian").without_truth()
    m = FCI().fit(ds)
    assert m.native_.tolist() == [[0, 0, 2], [0, 0, 2], [1, 1, 0]]
    assert m.adjacency_.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]


def test_chain_stays_undirected():
    # 0 -> 1 -> 2 has no collider: FCI returns 0 o-o 1 o-o 2, kept as undirected pairs.
    from arena_method_fci.method import FCI

    ds = make_chain_dataset(d=3, n=2000, seed=0, noise="gaussian").without_truth()
    m = FCI().fit(ds)
    assert m.native_.tolist() == [[0, 2, 0], [2, 0, 2], [0, 2, 0]]
    assert m.adjacency_.tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
