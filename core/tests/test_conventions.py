"""Library graph encodings → the arena's row = parent convention (case I7)."""

import numpy as np
import pytest

from causalarena.conventions import causallearn_to_adjacency
from causalarena.ordering import regress_on_predecessors


def test_causallearn_directed_undirected_bidirected():
    # causal-learn: i -> j is G[j, i] = 1, G[i, j] = -1; i -- j is G[i, j] = G[j, i] = -1
    g = np.zeros((4, 4), dtype=int)
    g[0, 1], g[1, 0] = -1, 1      # 0 -> 1
    g[2, 3], g[3, 2] = -1, -1     # 2 -- 3
    g[1, 2], g[2, 1] = 1, 1       # 1 <-> 2 (conflict): returned undirected
    a = causallearn_to_adjacency(g)
    expected = np.zeros((4, 4), dtype=int)
    expected[0, 1] = 1
    expected[2, 3] = expected[3, 2] = 1
    expected[1, 2] = expected[2, 1] = 1
    assert a.tolist() == expected.tolist()


def test_causallearn_pag_circles_are_rejected():
    g = np.zeros((2, 2), dtype=int)
    g[0, 1], g[1, 0] = 2, 1
    with pytest.raises(ValueError, match="outside"):
        causallearn_to_adjacency(g)


def test_regress_on_predecessors_recovers_a_linear_chain_in_the_true_order():
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=2000)
    x1 = 2.0 * x0 + rng.normal(size=2000)
    x2 = -1.5 * x1 + rng.normal(size=2000)
    W = regress_on_predecessors(np.column_stack([x0, x1, x2]), [0, 1, 2])
    assert (W != 0).astype(int).tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert W[0, 1] == pytest.approx(2.0, abs=0.1) and W[1, 2] == pytest.approx(-1.5, abs=0.1)
    with pytest.raises(ValueError, match="permutation of range\\(3\\)"):
        regress_on_predecessors(np.zeros((5, 3)), [0, 0, 1])


def test_pag_conversion_rule():
    from causalarena.conventions import causallearn_pag_to_adjacency

    G = np.zeros((6, 6), dtype=int)
    G[0, 1], G[1, 0] = -1, 1   # 0 → 1
    G[1, 2], G[2, 1] = 2, 1    # 1 o→ 2  → 1 → 2
    G[2, 3], G[3, 2] = 2, 2    # 2 o-o 3 → undirected
    G[3, 4], G[4, 3] = 1, 1    # 3 ↔ 4  → undirected
    G[4, 5], G[5, 4] = -1, 2   # 4 —o 5 → 4 → 5
    A = causallearn_pag_to_adjacency(G)
    expected = np.zeros((6, 6), dtype=int)
    expected[0, 1] = expected[1, 2] = expected[4, 5] = 1
    expected[2, 3] = expected[3, 2] = expected[3, 4] = expected[4, 3] = 1
    assert A.tolist() == expected.tolist()
    with pytest.raises(ValueError, match="outside"):
        causallearn_pag_to_adjacency(np.array([[0, 3], [1, 0]]))
    with pytest.raises(ValueError, match="one-sided"):
        causallearn_pag_to_adjacency(np.array([[0, 2], [0, 0]]))
