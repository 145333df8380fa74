"""Tests of arena-method-pc (run with the distribution installed)."""

import numpy as np
import pytest

from arena_testkit import make_chain_dataset, make_linear_dataset, parametrize_method_checks
from causalarena.data import Dataset


@parametrize_method_checks("pc")
def test_conformance(check):
    check()


def _v_structure():
    A = np.zeros((3, 3), dtype=int)
    A[0, 2] = A[1, 2] = 1  # 0 -> 2 <- 1
    return A


def test_v_structure_exact():
    # 0 -> 2 <- 1, Gaussian, n = 2000: the CPDAG is the DAG itself (a v-structure is
    # compelled). causal-learn returns graph[2,0]=1, graph[0,2]=-1; a transposed
    # conversion would give A[2,0]=A[2,1]=1 and fail here (case I7).
    from arena_method_pc.method import PC

    ds = make_linear_dataset(_v_structure(), n=2000, seed=0, noise="gaussian").without_truth()
    m = PC().fit(ds)
    assert m.adjacency_.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    assert m.native_.tolist() == [[0, 0, -1], [0, 0, -1], [1, 1, 0]]


def test_chain_is_undirected_cpdag():
    # 0 -> 1 -> 2 has no v-structure: its CPDAG is 0 - 1 - 2 (both entries set).
    from arena_method_pc.method import PC

    ds = make_chain_dataset(d=3, n=2000, seed=0, noise="gaussian").without_truth()
    m = PC().fit(ds)
    assert m.adjacency_.tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]


def test_conversion_of_handmade_endpoints():
    from arena_method_pc.method import causallearn_to_adjacency

    G = np.zeros((4, 4), dtype=int)
    G[1, 0], G[0, 1] = 1, -1      # 0 -> 1
    G[1, 2] = G[2, 1] = -1        # 1 - 2
    G[2, 3] = G[3, 2] = 1         # 2 <-> 3: orientation unknown -> undirected
    A = causallearn_to_adjacency(G)
    assert A.tolist() == [[0, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
    with pytest.raises(ValueError, match="outside"):
        causallearn_to_adjacency(np.array([[0, 2], [1, 0]]))


def test_singular_correlation_error_propagates():
    # Case I1: W = 0.5 X, Y = 0.8 X exactly -> Fisher-z cannot run; the library's error
    # must reach the runner (never swallowed into an empty graph).
    from arena_method_pc.method import PC

    x = np.random.default_rng(0).standard_normal(500)
    ds = Dataset(X=np.c_[x, 0.5 * x, 0.8 * x], columns=["X", "W", "Y"], metadata={"seed": 0})
    with pytest.raises(ValueError, match="singular"):
        PC().fit(ds)
