"""Tests of arena-method-igsp (run with the distribution installed)."""

import random

import numpy as np
import pytest

from arena_testkit import make_chain_dataset, parametrize_method_checks
from causalarena.data import OBSERVATIONAL, Dataset


@parametrize_method_checks("igsp")
def test_conformance(check):
    check()


def _two_node_dataset(parent, n_obs=1000, n_int=500, seed=0):
    """Linear Gaussian X_parent -> X_child (weight 1, unit noise): n_obs observational rows,
    then n_int rows under do(X0 := N(0, 2^2)) and n_int rows under do(X1 := N(0, 2^2))
    (parents cut). The interventional variance (4) differs from every observational one,
    so each intervention changes the intervened variable and, for the parent, its child."""
    child = 1 - parent
    n = n_obs + 2 * n_int
    mask = np.zeros((n, 2), dtype=bool)
    mask[n_obs:n_obs + n_int, 0] = True
    mask[n_obs + n_int:, 1] = True
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, 2))
    X = np.zeros((n, 2))
    X[:, parent] = np.where(mask[:, parent], 2.0 * E[:, parent], E[:, parent])
    X[:, child] = np.where(mask[:, child], 2.0 * E[:, child], X[:, parent] + E[:, child])
    regime = np.where(mask.any(axis=1), mask.argmax(axis=1), OBSERVATIONAL)
    return Dataset(X=X, columns=["X0", "X1"], intervention_mask=mask, regime=regime,
                   metadata={"seed": seed})


def test_known_edge_0_to_1_exact():
    # Wang et al. 2017: with {0} and {1} as single-node targets, 0 -> 1 is identifiable
    # (do(X0) changes X1's distribution, do(X1) leaves X0's unchanged). A transposed
    # conversion would give [[0, 0], [1, 0]] and fail (case I7).
    from arena_method_igsp.method import IGSP

    m = IGSP().fit(_two_node_dataset(parent=0))
    assert m.targets_ == [[1], [0]]  # lexicographic order of the mask patterns: 01 < 10
    assert m.n_obs_ == 1000
    assert m.native_ == [(0, 1)]
    assert m.adjacency_.tolist() == [[0, 1], [0, 0]]
    assert m.prediction().kind == "dag"


def test_known_edge_1_to_0_exact():
    # the same data with the roles swapped: the answer follows the data, not the column order
    from arena_method_igsp.method import IGSP

    m = IGSP().fit(_two_node_dataset(parent=1))
    assert m.native_ == [(1, 0)]
    assert m.adjacency_.tolist() == [[0, 0], [1, 0]]


def test_chain_with_interventions_on_every_node():
    # X0 -> X1 -> X2 -> X3 (weight 1, Gaussian); 2000 observational rows and 500 rows per
    # single-node intervention do(X_t := N(0, 2^2)): the whole chain is identified.
    from arena_method_igsp.method import IGSP

    d, n_obs, k = 4, 2000, 500
    n = n_obs + d * k
    mask = np.zeros((n, d), dtype=bool)
    for t in range(d):
        mask[n_obs + t * k:n_obs + (t + 1) * k, t] = True
    E = np.random.default_rng(3).standard_normal((n, d))
    X = np.zeros((n, d))
    for j in range(d):
        parent = X[:, j - 1] if j else 0.0
        X[:, j] = np.where(mask[:, j], 2.0 * E[:, j], parent + E[:, j])
    ds = Dataset(X=X, columns=[f"X{j}" for j in range(d)], intervention_mask=mask,
                 regime=np.where(mask.any(axis=1), mask.argmax(axis=1), OBSERVATIONAL), metadata={"seed": 0})
    m = IGSP().fit(ds)
    assert m.adjacency_.tolist() == np.eye(d, k=1, dtype=int).tolist()


def test_observational_only_gives_the_skeleton():
    # obs-only: IGSP reduces to GSP, one DAG of the Markov equivalence class of the chain
    # X0 - X1 - X2 (any orientation without a collider); the skeleton is exact.
    from arena_method_igsp.method import IGSP

    ds = make_chain_dataset(d=3, n=2000, seed=0, noise="gaussian").without_truth()
    m = IGSP().fit(ds)
    assert m.targets_ == []
    A = m.adjacency_
    assert (A | A.T).tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    assert not (A[0, 1] and A[2, 1])  # no v-structure at X1


def test_seed_from_metadata_and_global_random_state_restored():
    from arena_method_igsp.method import IGSP

    ds = make_chain_dataset(d=5, n=800, seed=2, noise="gaussian", n_int=200).without_truth()
    random.seed(12345)
    before = random.getstate()
    a = IGSP().fit(ds)
    assert random.getstate() == before
    b = IGSP(random_state=2).fit(ds)  # metadata["seed"] is 2
    assert np.array_equal(a.adjacency_, b.adjacency_)


def test_split_settings_by_mask_pattern():
    from arena_method_igsp.method import split_settings

    X = np.arange(18, dtype=float).reshape(6, 3)
    mask = np.array([[0, 0, 0], [1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1], [1, 0, 0]], dtype=bool)
    obs, samples, targets = split_settings(X, mask)
    assert obs.tolist() == [X[0].tolist(), X[3].tolist()]
    # lexicographic order of the interventional patterns: 010 < 100 < 101; multi-target rows
    # stay together in one setting with both targets
    assert targets == [[1], [0], [0, 2]]
    assert [s.tolist() for s in samples] == [[X[2].tolist()], [X[5].tolist()], [X[1].tolist(), X[4].tolist()]]
    obs, samples, targets = split_settings(X, np.zeros((6, 3), dtype=bool))
    assert np.array_equal(obs, X) and samples == [] and targets == []
    with pytest.raises(ValueError, match="observational rows"):
        split_settings(X, np.ones((6, 3), dtype=bool))
    with pytest.raises(ValueError, match="shape"):
        split_settings(X, mask[:, :2])


def test_arcs_to_adjacency_is_row_parent():
    from arena_method_igsp.method import arcs_to_adjacency

    A = arcs_to_adjacency({(0, 2), (np.int64(1), np.int64(2))}, 3)
    assert A.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    with pytest.raises(ValueError, match="arc"):
        arcs_to_adjacency({(0, 3)}, 3)
    with pytest.raises(ValueError, match="arc"):
        arcs_to_adjacency({(1, 1)}, 3)
