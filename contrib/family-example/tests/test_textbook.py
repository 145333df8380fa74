"""Tests of arena-contrib-family-example (run with the distribution installed)."""

import math

import numpy as np
import pytest

from arena_testkit import parametrize_family_checks


@parametrize_family_checks("textbook")
def test_conformance(check):
    check()


def column_order(scm_id, names):
    from arena_contrib_family_example.family import column_order

    return column_order(scm_id, names)


def family(**options):
    from arena_contrib_family_example.family import TextbookFamily

    return TextbookFamily(**options)


def test_lists_five_textbook_scms():
    assert [i.scm_id for i in family().instances()] == [
        "asia", "sprinkler", "alarm", "collider_chain", "confounded_triangle"]


def test_asia_adjacency_is_the_hand_written_graph():
    asia = family(graphs="asia").instance("asia")
    ds = asia.dataset("obs", 0)
    names = ["asia", "smoke", "tub", "lung", "bronc", "either", "xray", "dysp"]
    edges = [("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"), ("tub", "either"), ("lung", "either"),
             ("either", "xray"), ("either", "dysp"), ("bronc", "dysp")]
    # the columns are the nodes in the order drawn from the id, not the (causes-first) written order
    assert sorted(ds.columns) == sorted(names) and ds.columns != names
    assert ds.columns == column_order("asia", names)
    A = np.zeros((8, 8), dtype=int)
    for p, c in edges:
        A[ds.columns.index(p), ds.columns.index(c)] = 1
    assert ds.true_adjacency.tolist() == A.tolist()  # row = parent
    assert ds.true_adjacency.tolist() != A.T.tolist()


@pytest.mark.parametrize("scm, column, mean, sd", [
    ("asia", "smoke", 0.5, 1.0),                            # root N(0.5, 1)
    ("asia", "lung", 0.8 * 0.5, math.sqrt(0.8**2 + 0.5**2)),  # 0.8·smoke + N(0, 0.5²)
    ("sprinkler", "cloudy", 0.5, 0.5),                      # root Bernoulli(0.5)
    ("alarm", "burglary", 0.0, 1 / math.sqrt(3)),           # root U(−1, 1)
])
def test_sampled_mean_matches_the_known_mean(scm, column, mean, sd):
    # raw obs table, n = 1000: the sample mean is within 4 standard errors of the known mean
    ds = family().instance(scm).dataset("obs", 0, standardise=False)
    x = ds.X[:, ds.columns.index(column)]
    assert ds.n == 1000
    assert abs(x.mean() - mean) < 4 * sd / math.sqrt(ds.n)


def test_asia_interventions_hit_only_its_targets():
    ds = family().instance("asia").dataset("obs_int", 0)
    hit = sorted({ds.columns[j] for j in np.flatnonzero(ds.intervention_mask.any(axis=0))})
    assert hit == ["either", "smoke"]
    assert ds.metadata["n_int"] == 200 and int(ds.intervention_mask.any(axis=1).sum()) == 200


def test_options():
    assert [i.scm_id for i in family(graphs=["alarm", "asia"], n_replicates=2).instances()] == ["alarm", "asia"]
    assert family(n_replicates=2).instances()[0].n_replicates == 2
    with pytest.raises(ValueError, match="unknown graph"):
        family(graphs="asai")
    with pytest.raises(ValueError, match="unknown option"):
        family(dims=10)


def test_own_component_comes_through_arena_components():
    from arena_contrib_family_example.components import TextbookBernoulli
    from causalarena.plugins import get_registry
    from causalarena.scm import component_class

    rec = get_registry(strict=True).components["root_distribution:textbook_bernoulli"]
    assert rec.distribution == "arena-contrib-family-example"
    assert component_class("root_distribution", "textbook_bernoulli") is TextbookBernoulli
    x = TextbookBernoulli(p=0.25).sample(8, np.random.default_rng(0))
    assert x.tolist() == (np.random.default_rng(0).random(8) < 0.25).astype(float).tolist()
    with pytest.raises(ValueError, match="'p' must be in \\(0, 1\\), got 1.5"):
        TextbookBernoulli(p=1.5)
