"""Subnetworks sampled by avici's own ``_module_extraction``: the requested size, an induced
subgraph of the source (self-loops removed, only cycle-closing edges dropped), acyclic, with a
regulator, columns not in causal order, and the same draw from the same id."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from arena_family_grn.family import GRNFamily, instance_seed
from arena_family_grn.networks import load_source
from arena_family_grn.simulate import sample_subnetwork


@pytest.mark.parametrize("source,d", [("ecoli", 10), ("ecoli", 50), ("yeast", 10), ("yeast", 30)])
def test_a_sampled_subnetwork_is_an_induced_subgraph_of_the_requested_size(source, d):
    net = load_source(source)
    sub = sample_subnetwork(net, d, np.random.default_rng(d))
    A = sub.adjacency
    assert A.shape == (d, d) and len(set(sub.genes)) == d and sub.source_index.shape == (d,)
    assert [net.genes[i] for i in sub.source_index] == list(sub.genes)
    induced = net.adjacency[np.ix_(sub.source_index, sub.source_index)].astype(np.int8)
    np.fill_diagonal(induced, 0)
    assert np.all(A <= induced)  # every edge is a source edge between the chosen genes
    assert sub.dropped == int((induced - A).sum())
    G = nx.from_numpy_array(A, create_using=nx.DiGraph)
    assert nx.is_directed_acyclic_graph(G) and not np.any(np.diag(A))
    for u, v in zip(*np.nonzero(induced - A)):  # a dropped edge u -> v closed a cycle: v reaches u
        assert nx.has_path(G, int(v), int(u)), (sub.genes[u], sub.genes[v])
    assert np.any(net.adjacency[sub.source_index].sum(axis=1) > 0)  # at_least_n_regulators = 1


def test_size_out_of_range_is_refused():
    with pytest.raises(ValueError, match=r"d=1565 out of range for ecoli \(1565 genes\)"):
        sample_subnetwork(load_source("ecoli"), 1565, np.random.default_rng(0))


def test_the_same_id_gives_the_same_subnetwork_and_pinned_genes():
    a = GRNFamily(sizes="10").instance("ecoli-d10-0")
    b = GRNFamily(sources="ecoli", sizes="10,20").instance("ecoli-d10-0")
    assert a.subnetwork.genes == b.subnetwork.genes
    assert np.array_equal(a.true_adjacency(), b.true_adjacency())
    # pinned: avici 1.0.7's sampler with the instance seed of "ecoli-d10-0" (numpy PCG64 streams)
    assert sorted(a.subnetwork.genes) == ["amiA", "hipB", "ihfB", "ilvA", "ulaB", "ulaD", "ulaE", "ulaF", "ulaG",
                                          "ulaR"]
    assert int(a.true_adjacency().sum()) == 13
    other = GRNFamily(sizes="10", graphs=2).instance("ecoli-d10-1")
    assert other.subnetwork.genes != a.subnetwork.genes


def test_instance_seed_streams_differ_and_are_stable():
    assert instance_seed("ecoli-d10-0", 0).integers(2**32) == instance_seed("ecoli-d10-0", 0).integers(2**32)
    assert instance_seed("ecoli-d10-0", 0).integers(2**32) != instance_seed("ecoli-d10-0", 1).integers(2**32)
