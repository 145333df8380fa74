"""Tests of arena-method-ges (run with the distribution installed)."""

import numpy as np
import pytest

from arena_testkit import make_chain_dataset, make_linear_dataset, parametrize_method_checks


@parametrize_method_checks("ges")
def test_conformance(check):
    check()


def test_v_structure_exact():
    # 0 -> 2 <- 1, Gaussian, n = 2000: a compelled v-structure. causal-learn returns
    # graph[2,0]=1, graph[0,2]=-1; a transposed conversion fails here (case I7).
    from arena_method_ges.method import GES

    A = np.zeros((3, 3), dtype=int)
    A[0, 2] = A[1, 2] = 1
    ds = make_linear_dataset(A, n=2000, seed=0, noise="gaussian").without_truth()
    m = GES().fit(ds)
    assert m.adjacency_.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    assert m.native_.tolist() == [[0, 0, -1], [0, 0, -1], [1, 1, 0]]


def test_chain_is_undirected_cpdag():
    from arena_method_ges.method import GES

    ds = make_chain_dataset(d=3, n=2000, seed=0, noise="gaussian").without_truth()
    m = GES().fit(ds)
    assert m.adjacency_.tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]


def test_conversion_of_handmade_endpoints():
    from arena_method_ges.method import causallearn_to_adjacency

    G = np.zeros((3, 3), dtype=int)
    G[2, 0], G[0, 2] = 1, -1      # 0 -> 2
    G[1, 2] = G[2, 1] = -1        # 1 - 2
    assert causallearn_to_adjacency(G).tolist() == [[0, 0, 1], [0, 0, 1], [0, 1, 0]]
    with pytest.raises(ValueError, match="square"):
        causallearn_to_adjacency(np.zeros((2, 3)))
