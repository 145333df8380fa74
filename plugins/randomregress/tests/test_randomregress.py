"""Tests of arena-method-randomregress (run with the distribution installed)."""

import attrs
import pytest

from arena_testkit import make_chain_dataset, parametrize_method_checks


@parametrize_method_checks("randomregress")
def test_conformance(check):
    check()


def test_order_comes_from_metadata_seed():
    from arena_method_randomregress.method import random_order

    # default_rng(3).permutation(3) == [2, 1, 0]; default_rng(1) gives the identity
    assert random_order(3, 3).tolist() == [2, 1, 0]
    assert random_order(3, 1).tolist() == [0, 1, 2]


def test_reversed_order_gives_reversed_chain():
    # Truth 0 -> 1 -> 2. Seed 3 orders (2, 1, 0): X1 | X2 has the edge 2 -> 1; X0 given
    # (X2, X1) depends on X1 only (X0 _||_ X2 | X1), so the output is 2 -> 1 -> 0 (SHD 2).
    from arena_method_randomregress.method import RandomRegress

    ds = make_chain_dataset(d=3, n=500, seed=3).without_truth()
    m = RandomRegress().fit(ds)
    assert m.order_.tolist() == [2, 1, 0]
    assert m.adjacency_.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_order_201_adds_covering_edge():
    # Seed 0 orders (2, 0, 1): 2 -> 0 (marginally dependent), and X1 regressed on
    # (X2, X0) keeps both (X1 is a parent of X2 and a child of X0): three edges.
    from arena_method_randomregress.method import RandomRegress

    ds = make_chain_dataset(d=3, n=500, seed=0).without_truth()
    m = RandomRegress().fit(ds)
    assert m.order_.tolist() == [2, 0, 1]
    assert m.adjacency_.tolist() == [[0, 1, 0], [0, 0, 0], [1, 1, 0]]


def test_random_state_overrides_metadata_seed():
    from arena_method_randomregress.method import RandomRegress

    ds = make_chain_dataset(d=3, n=500, seed=0).without_truth()
    assert RandomRegress(random_state=3).fit(ds).order_.tolist() == [2, 1, 0]


def test_missing_seed_is_a_clear_error():
    from arena_method_randomregress.method import RandomRegress

    ds = attrs.evolve(make_chain_dataset(d=3, n=50, seed=0), metadata={})
    with pytest.raises(ValueError, match=r"metadata\['seed'\]"):
        RandomRegress().fit(ds)
