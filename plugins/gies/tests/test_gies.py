"""Tests of arena-method-gies (run with the distribution installed)."""

import numpy as np
import pytest

from arena_testkit import make_linear_dataset, parametrize_method_checks
from causalarena.data import OBSERVATIONAL, Dataset


@parametrize_method_checks("gies")
def test_conformance(check):
    check()


def _chain_dataset(n_obs, blocks, seed=0):
    """Gaussian chain X0 -> X1 -> X2 (weights 1, unit-variance noise), n_obs observational rows
    followed by one block of rows per ``(targets, n_rows)`` in ``blocks`` with the hard
    intervention do(X_t := e_t), e_t ~ N(0, 1) fresh, for every t in ``targets`` (parents cut)."""
    n = n_obs + sum(k for _, k in blocks)
    mask = np.zeros((n, 3), dtype=bool)
    start = n_obs
    for targets, k in blocks:
        mask[start:start + k, list(targets)] = True
        start += k
    E = np.random.default_rng(seed).standard_normal((n, 3))
    X = np.zeros((n, 3))
    X[:, 0] = E[:, 0]
    X[:, 1] = np.where(mask[:, 1], 0.0, X[:, 0]) + E[:, 1]
    X[:, 2] = np.where(mask[:, 2], 0.0, X[:, 1]) + E[:, 2]
    regime = np.where(mask.any(axis=1), mask.argmax(axis=1), OBSERVATIONAL)
    return Dataset(X=X, columns=["X0", "X1", "X2"], intervention_mask=mask, regime=regime,
                   metadata={"seed": seed})


# Known answers (Hauser & Bühlmann 2012, Thm. 10: D1, D2 are I-equivalent iff their
# mutilated graphs D^(I) are Markov equivalent for every target set I of the family).
# The observational class of the chain 0->1->2 is {0->1->2, 0<-1<-2, 0<-1->2}. Removing the
# edges into the targets gives, for these three DAGs:
#   I = {1}:    {1->2}, {0<-1}, {0<-1, 1->2}   -> all differ: fully directed 0->1->2
#   I = {2}:    {0->1}, {0<-1<-2}, {0<-1}      -> chain ~ fork:  0 - 1 -> 2
#   I = {0, 1}: {1->2}, {}, {1->2}             -> chain ~ fork:  0 - 1 -> 2
# The Gaussian interventional BIC is constant on an I-equivalence class, so with the skeleton
# right (edges of weight 1, n = 1500) the orientations are exact, not approximate.

CHAIN_CPDAG = [[0, 1, 0], [1, 0, 1], [0, 1, 0]]  # 0 - 1 - 2
CHAIN_DAG = [[0, 1, 0], [0, 0, 1], [0, 0, 0]]    # 0 -> 1 -> 2
CHAIN_HALF = [[0, 1, 0], [1, 0, 1], [0, 0, 0]]   # 0 - 1 -> 2


def test_observational_chain_is_undirected():
    from arena_method_gies.method import GIES

    m = GIES().fit(_chain_dataset(1500, []))
    assert m.targets_ == [[]]
    assert m.adjacency_.tolist() == CHAIN_CPDAG


def test_observational_v_structure_exact():
    # 0 -> 2 <- 1, Gaussian, n = 2000, no interventions: GIES = GES, the collider is compelled.
    from arena_method_gies.method import GIES

    A = np.zeros((3, 3), dtype=int)
    A[0, 2] = A[1, 2] = 1
    m = GIES().fit(make_linear_dataset(A, n=2000, seed=0, noise="gaussian").without_truth())
    assert m.native_.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    assert m.adjacency_.tolist() == [[0, 0, 1], [0, 0, 1], [0, 0, 0]]


def test_do_x1_orients_the_chain():
    # A transposed conversion would give [[0,0,0],[1,0,0],[0,1,0]] and fail (case I7).
    from arena_method_gies.method import GIES

    m = GIES().fit(_chain_dataset(1000, [((1,), 500)]))
    assert m.targets_ == [[], [1]]
    assert m.adjacency_.tolist() == CHAIN_DAG
    assert m.native_.tolist() == CHAIN_DAG  # gies's encoding is already row = parent
    assert m.prediction().kind == "cpdag"


def test_do_x2_orients_only_the_edge_into_x2():
    from arena_method_gies.method import GIES

    m = GIES().fit(_chain_dataset(1000, [((2,), 500)]))
    assert m.targets_ == [[], [2]]
    assert m.adjacency_.tolist() == CHAIN_HALF


def test_multi_target_rows_are_one_environment():
    # Rows with do(X0, X1) jointly: one environment with targets [0, 1], under which the chain
    # and the fork are I-equivalent (0 - 1 stays undirected). Splitting the same rows into
    # separate {0} and {1} environments would orient the whole chain (second fit).
    from arena_method_gies.method import GIES

    joint = _chain_dataset(1000, [((0, 1), 500)])
    m = GIES().fit(joint)
    assert m.targets_ == [[], [0, 1]]
    assert m.adjacency_.tolist() == CHAIN_HALF

    separate = _chain_dataset(1000, [((0,), 250), ((1,), 250)])
    m2 = GIES().fit(separate)
    assert m2.targets_ == [[], [1], [0]]
    assert m2.adjacency_.tolist() == CHAIN_DAG


def test_split_environments_by_mask_pattern():
    from arena_method_gies.method import split_environments

    X = np.arange(18, dtype=float).reshape(6, 3)
    mask = np.array([[0, 0, 0], [1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1], [1, 0, 0]], dtype=bool)
    data, targets, env = split_environments(X, mask)
    # lexicographic order of the mask rows: 000 < 010 < 100 < 101
    assert targets == [[], [1], [0], [0, 2]]
    assert env.tolist() == [0, 3, 1, 0, 3, 2]
    assert [b.tolist() for b in data] == [
        [X[0].tolist(), X[3].tolist()], [X[2].tolist()], [X[5].tolist()], [X[1].tolist(), X[4].tolist()]]
    # obs-only: a single observational environment holding every row (GIES = GES)
    data, targets, env = split_environments(X, np.zeros((6, 3), dtype=bool))
    assert targets == [[]] and env.tolist() == [0] * 6 and np.array_equal(data[0], X)
    with pytest.raises(ValueError, match="shape"):
        split_environments(X, mask[:, :2])


def test_conversion_of_handmade_matrix():
    from arena_method_gies.method import gies_to_adjacency

    G = np.zeros((3, 3))
    G[0, 2] = 1.0               # 0 -> 2
    G[1, 2] = G[2, 1] = 1.0     # 1 - 2
    assert gies_to_adjacency(G).tolist() == [[0, 0, 1], [0, 0, 1], [0, 1, 0]]
    with pytest.raises(ValueError, match="square"):
        gies_to_adjacency(np.zeros((2, 3)))


def test_non_conservative_targets_error_propagates():
    # Every row intervenes on X0: no environment leaves X0 unintervened, which GIES rejects.
    from arena_method_gies.method import GIES

    ds = _chain_dataset(0, [((0,), 300), ((0, 1), 300)])
    with pytest.raises(ValueError, match="not conservative"):
        GIES().fit(ds)
