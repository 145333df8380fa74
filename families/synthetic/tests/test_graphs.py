"""Graph families of App. A.1 and the graph-level audit of App. A.2 (arena_family_synthetic.graphs)."""

import itertools
import json
import math
import time

import networkx as nx
import numpy as np
import pytest

from arena_family_synthetic.graphs import (
    DENSITY,
    GENERATORS,
    GRAPH_FAMILIES,
    MIN_DEPTH,
    _repair_isolated,
    _select_edges,
    collider_rich,
    density_bounds,
    depth,
    edge_range,
    erdos_renyi,
    graph_audit,
    in_degree_cap,
    n_pairs,
    n_roots,
    n_v_structures,
    sample_graph,
    scale_free,
    small_world,
)

DIMS = (10, 20, 30, 50, 100)
SEEDS = range(6)


def _draw(graph, d, seed):
    return sample_graph(graph, d, np.random.default_rng(seed))


def _matched(graph, d, seed):
    """(d, n_edges, cap, rng) drawn as sample_graph draws them for ``graph``, for family-vs-ER comparisons."""
    rng = np.random.default_rng(seed)
    cap = in_degree_cap(d, rng)
    lo, hi = edge_range(graph, d, cap)
    return int(rng.integers(lo, hi + 1)), cap, rng


# --------------------------------------------------------------------------- registry and ranges

def test_ten_families_in_paper_order():
    assert GRAPH_FAMILIES == ("er", "sf", "chain", "tree", "layered", "bipartite", "small_world",
                              "block_layered", "local_module", "collider_rich")
    assert set(GENERATORS) == set(DENSITY) == set(MIN_DEPTH) == set(GRAPH_FAMILIES)
    assert all("-" not in g and g == g.lower() for g in GRAPH_FAMILIES)  # config ids split on "-"
    assert {g for g, v in MIN_DEPTH.items() if v == 3} == {"chain", "tree", "small_world", "sf"}
    assert {v for g, v in MIN_DEPTH.items() if g not in ("chain", "tree", "small_world", "sf")} == {2}
    assert DENSITY["chain"] == DENSITY["tree"] == (0.03, 0.16)
    assert DENSITY["local_module"] == DENSITY["collider_rich"] == (0.06, 0.24)


@pytest.mark.parametrize("graph,d,cap,expected", [
    ("er", 10, None, (8, 11)),           # 0.05·45 = 2.25 → floor ⌈0.8·10⌉ = 8; ⌊0.25·45⌋ = 11
    ("chain", 10, None, (8, 8)),         # 0.16·45 = 7.2 < 8: the range collapses to the floor
    ("tree", 20, 4, (16, 30)),           # ⌈0.03·190⌉ = 6 → 16; ⌊0.16·190⌋ = 30 < 0.8·(80 − 10) = 56
    ("er", 100, 5, (248, 388)),          # ⌈0.05·4950⌉ = 248; cap: 0.8·(500 − 15) = 388 < 1237
    ("sf", 100, None, (198, 1089)),      # ⌈0.04·4950⌉ = 198; ⌊0.22·4950⌋ = 1089
    ("local_module", 50, 4, (74, 152)),  # ⌈0.06·1225⌉ = 74; 0.8·(200 − 10) = 152 < 294
])
def test_edge_range_known_values(graph, d, cap, expected):
    assert edge_range(graph, d, cap) == expected


def test_density_bounds_floor():
    assert density_bounds("chain", 10) == pytest.approx((8 / 45, 8 / 45))
    assert density_bounds("er", 100) == pytest.approx((248 / 4950, 1237 / 4950))
    with pytest.raises(ValueError, match="unknown graph family 'zz'"):
        edge_range("zz", 10)


# --------------------------------------------------------------------------- statistics

def test_depth_matches_networkx_and_rejects_cycles():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = np.triu(rng.random((15, 15)) < 0.2, 1).astype(np.int8)
        perm = rng.permutation(15)
        a = a[np.ix_(perm, perm)]
        assert depth(a) == nx.dag_longest_path_length(nx.DiGraph(a))
    assert depth(np.zeros((3, 3), dtype=np.int8)) == 0
    cyc = np.zeros((3, 3), dtype=np.int8)
    cyc[0, 1] = cyc[1, 2] = cyc[2, 0] = 1
    with pytest.raises(ValueError, match="cycle"):
        depth(cyc)


def test_v_structures_known_answers():
    a = np.zeros((4, 4), dtype=np.int8)
    a[0, 2] = a[1, 2] = 1
    assert n_v_structures(a) == 1                     # 0 → 2 ← 1
    a[0, 1] = 1
    assert n_v_structures(a) == 0                     # shielded: 0 → 1
    b = np.zeros((4, 4), dtype=np.int8)
    b[:3, 3] = 1
    assert n_v_structures(b) == 3                     # three non-adjacent parents: C(3, 2)
    assert n_roots(b) == 3
    assert n_v_structures(np.diag(np.ones(3, dtype=np.int8), 1)) == 0


def test_v_structures_match_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(10):
        a = np.triu(rng.random((12, 12)) < 0.3, 1).astype(np.int8)
        brute = sum(1 for k in range(12) for i, j in itertools.combinations(np.flatnonzero(a[:, k]), 2)
                    if not (a[i, j] or a[j, i]))
        assert n_v_structures(a) == brute


# --------------------------------------------------------------------------- shared machinery

def test_select_edges_keeps_required_caps_and_count():
    d = 8
    w = np.triu(np.ones((d, d)), 1)
    req = np.zeros((d, d), dtype=bool)
    req[0, 7] = req[1, 7] = True
    caps = np.full(d, 2)
    a = _select_edges(w, 10, caps, np.random.default_rng(0), required=req)
    assert a.sum() == 10 and a[0, 7] and a[1, 7]
    assert a.sum(0).max() <= 2 and a[:, 7].sum() == 2   # the required edges fill column 7's cap
    assert not np.tril(a).any()
    # more than the capped candidates can carry: every column at min(cap, position)
    full = _select_edges(w, 100, caps, np.random.default_rng(0))
    assert full.sum(0).tolist() == [0, 1, 2, 2, 2, 2, 2, 2]
    # zero weight is never drawn
    w0 = w.copy()
    w0[:, 5] = 0
    assert not _select_edges(w0, 20, np.full(d, d), np.random.default_rng(2))[:, 5].any()


def test_select_edges_is_a_weighted_sample():
    # one draw among three candidate parents of node 3, weights 1 : 2 : 7 → P = 0.1, 0.2, 0.7;
    # n = 4000 gives a standard error ≤ 0.0073, the tolerance 0.03 is > 4 of them
    w = np.zeros((4, 4))
    w[:3, 3] = [1.0, 2.0, 7.0]
    rng = np.random.default_rng(3)
    counts = np.zeros(3)
    for _ in range(4000):
        counts += _select_edges(w, 1, np.full(4, 4), rng)[:3, 3]
    assert counts / 4000 == pytest.approx([0.1, 0.2, 0.7], abs=0.03)


def test_repair_isolated_moves_an_edge_within_caps():
    d = 6
    a = np.zeros((d, d), dtype=bool)
    a[0, 1] = a[1, 2] = a[2, 3] = a[0, 3] = a[1, 3] = True   # nodes 4, 5 isolated
    w = np.triu(np.ones((d, d)), 1)
    caps = np.full(d, 3)
    out = _repair_isolated(a, w, caps, np.random.default_rng(0))
    assert ((out.sum(0) + out.sum(1)) > 0).all()
    assert out.sum() == a.sum()                               # edges moved, not added
    assert out.sum(0).max() <= 3 and not np.tril(out).any()


# --------------------------------------------------------------------------- every family at every d

@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("graph", GRAPH_FAMILIES)
def test_family_passes_filters_in_range_and_under_cap(graph, d):
    lo, hi_floor = density_bounds(graph, d)
    hi = max(DENSITY[graph][1], hi_floor)
    for seed in SEEDS:
        a, rec = _draw(graph, d, seed)
        assert a.dtype == np.int8 and a.shape == (d, d) and set(np.unique(a)) <= {0, 1}
        assert graph_audit(a, graph) is None
        assert nx.is_directed_acyclic_graph(nx.DiGraph(a))
        assert rec["n_edges"] == int(a.sum()) >= math.ceil(0.8 * d)
        assert rec["density"] == round(a.sum() / n_pairs(d), 4)
        assert lo - 1e-9 <= a.sum() / n_pairs(d) <= hi + 1e-9, (seed, rec["density"])
        assert rec["target_density"] >= lo - 1e-4
        if rec["in_degree_cap"] is not None:
            assert a.sum(0).max() <= rec["in_degree_cap"]
        assert rec["depth"] == nx.dag_longest_path_length(nx.DiGraph(a)) >= MIN_DEPTH[graph]
        assert rec["n_roots"] == int((a.sum(0) == 0).sum())
        assert rec["n_v_structures"] == n_v_structures(a)
        for key in ("layers", "blocks", "modules", "colliders"):
            if key in rec["structure"]:
                assert len(rec["structure"][key]) == d
        json.dumps(rec)


@pytest.mark.parametrize("graph", GRAPH_FAMILIES)
def test_generators_work_in_causal_positions(graph):
    # a generator returns a strictly upper-triangular matrix (position space); sample_graph relabels it
    for d in (10, 50):
        n_edges, cap, rng = _matched(graph, d, 0)
        a, _ = GENERATORS[graph](d, n_edges, cap, rng, 1)
        assert a.shape == (d, d) and not np.tril(a).any()


@pytest.mark.parametrize("graph", GRAPH_FAMILIES)
def test_deterministic_for_a_seed(graph):
    a1, r1 = _draw(graph, 30, 7)
    a2, r2 = _draw(graph, 30, 7)
    a3, _ = _draw(graph, 30, 8)
    assert a1.tobytes() == a2.tobytes() and r1 == r2
    assert a1.tobytes() != a3.tobytes()


@pytest.mark.parametrize("graph", GRAPH_FAMILIES)
def test_node_order_does_not_leak_the_causal_order(graph):
    # identity order topological ⇔ upper triangular; observed 0 of 20 at d = 20 for every family
    upper = sum(not np.tril(_draw(graph, 20, s)[0]).any() for s in range(20))
    assert upper <= 2


@pytest.mark.parametrize("graph", GRAPH_FAMILIES)
def test_rejections_stay_few(graph):
    # observed mean attempts over 30 seeds: ≤ 1.1 everywhere except the depth-3 filter at d = 10 on randomly
    # oriented sparse skeletons — sf (a preferential-attachment tree, 9 edges) ≈ 2.3–2.4 and small_world
    # (a ring lattice, 8–9 edges) ≈ 2.5–2.6; the paper's audit resamples these too
    for d in DIMS:
        attempts = [_draw(graph, d, 100 + s)[1]["graph_attempts"] for s in range(30)]
        bound = 4.0 if (graph in ("sf", "small_world") and d == 10) else 1.5
        assert np.mean(attempts) < bound, (d, np.mean(attempts))


@pytest.mark.parametrize("graph", GRAPH_FAMILIES)
def test_min_roots_two(graph):
    for d in (10, 100):
        for seed in range(4):
            a, rec = sample_graph(graph, d, np.random.default_rng(seed), min_roots=2)
            assert rec["n_roots"] == n_roots(a) >= 2 and graph_audit(a, graph, min_roots=2) is None
            if graph in ("chain", "tree"):       # these build for the root count, no rejection
                assert rec["graph_attempts"] == 1


def test_roots_rejection_is_named():
    a = np.diag(np.ones(5, dtype=np.int8), 1)
    assert graph_audit(a, "er") is None
    assert graph_audit(a, "er", min_roots=2) == "roots 1 < 2"
    with pytest.raises(RuntimeError, match=r"'roots': 3"):
        sample_graph("layered", 10, np.random.default_rng(0), max_attempts=3, min_roots=10)


def test_sample_graph_argument_errors():
    with pytest.raises(ValueError, match="unknown graph family 'zz'"):
        sample_graph("zz", 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="d must be at least 4"):
        sample_graph("er", 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="min_roots must be at least 1"):
        sample_graph("er", 10, np.random.default_rng(0), min_roots=0)


def test_d100_is_fast():
    # observed 3–20 ms per graph at d = 100; the bound leaves room for a loaded machine
    start = time.perf_counter()
    for graph in GRAPH_FAMILIES:
        for s in range(3):
            _draw(graph, 100, s)
    assert (time.perf_counter() - start) / (3 * len(GRAPH_FAMILIES)) < 0.25


# --------------------------------------------------------------------------- family character

def test_chain_has_long_propagation():
    for d in DIMS:
        for seed in range(8):
            a, rec = _draw("chain", d, seed)
            # one long path plus two-node paths (or r head roots): depth ≥ d − 2 · roots
            assert rec["depth"] >= d - 2 * rec["n_roots"]
            if rec["n_edges"] >= d - 1:
                assert rec["depth"] == d - 1
    assert _draw("chain", 10, 0)[1]["depth"] == 7       # 8 edges on 10 nodes: path of 8 nodes + a pair
    assert sample_graph("chain", 100, np.random.default_rng(0), min_roots=2)[1]["depth"] == 98


def test_tree_reachability_is_a_forest():
    # shortcuts go to descendants only: the transitive reduction is the backbone forest (in-degree ≤ 1)
    for d in DIMS:
        for seed in range(6):
            a, rec = _draw("tree", d, seed)
            red = nx.transitive_reduction(nx.DiGraph(a))
            indeg = np.array([red.in_degree(v) for v in range(d)])
            assert indeg.max() <= 1
            assert red.number_of_edges() == d - rec["structure"]["n_trees"] == d - rec["n_roots"]
    # d = 10: 8 edges → two trees; d = 100: more edges than a tree holds, all as ancestor shortcuts
    assert _draw("tree", 10, 0)[1]["n_roots"] == 2
    assert _draw("tree", 100, 0)[1]["n_edges"] > 99


@pytest.mark.parametrize("graph", ["layered", "block_layered", "bipartite"])
def test_edges_respect_layers(graph):
    for d in DIMS:
        for seed in range(6):
            a, rec = _draw(graph, d, seed)
            layer = np.array(rec["structure"]["layers"])
            i, j = np.nonzero(a)
            step = layer[j] - layer[i]
            if graph == "bipartite":
                # consecutive stages only, plus a within-stage quota ≤ 5 % of the target (≥ 1 for two stages)
                assert set(step.tolist()) <= {0, 1}
                assert (step == 0).sum() <= max(1, round(0.05 * rec["target_density"] * n_pairs(d)))
            else:
                assert (step >= 1).all()


def test_block_layered_cross_block_edges_are_sparse():
    # observed cross-block share of edges: mean 0.03 (d = 10) … 0.12 (d = 100), max 0.30
    shares = []
    for d in DIMS:
        for seed in range(10):
            a, rec = _draw("block_layered", d, seed)
            block = np.array(rec["structure"]["blocks"])
            share = a[block[:, None] != block[None, :]].sum() / a.sum()
            assert share <= 0.35
            shares.append(share)
    assert np.mean(shares) < 0.15


def test_local_module_is_denser_within_modules():
    # within- vs cross-module edge density, 10 seeds, observed (ratio of means; smallest per-graph ratio):
    # d = 10: 0.41 vs 0.014 (30; 5.5); 20: 0.29 vs 0.039 (7.3; 4.4); 30: 0.35 vs 0.031 (11; 6.9);
    # 50: 0.37 vs 0.030 (12; 4.5); 100: 0.41 vs 0.027 (15; 3.2)
    for d in DIMS:
        within, cross = [], []
        for seed in range(10):
            a, rec = _draw("local_module", d, seed)
            module = np.array(rec["structure"]["modules"])
            same = module[:, None] == module[None, :]
            np.fill_diagonal(same, False)
            within.append(a[same].sum() / (same.sum() / 2))
            cross.append(a[~same].sum() / ((~same).sum() / 2))
            assert within[-1] > 2 * cross[-1]
        assert np.mean(within) > 5 * np.mean(cross)


def test_collider_rich_has_more_v_structures_than_er():
    # v-structures per edge at matched (n_edges, cap), mean over 40 seeds, observed ER → collider_rich:
    # d = 10: 0.36 → 1.03; 20: 0.68 → 1.22; 30: 0.98 → 1.51; 50: 1.28 → 1.58; 100: 1.99 → 2.27.
    # At d = 100 the cap (≤ 8) saturates both: no DAG exceeds (cap − 1)/2 v-structures per edge.
    for d, factor in zip(DIMS, (2.0, 1.5, 1.35, 1.15, 1.08)):
        er, col = [], []
        for seed in range(40):
            n_edges, cap, rng = _matched("collider_rich", d, seed)
            a, _ = erdos_renyi(d, n_edges, cap, rng)
            b, _ = collider_rich(d, n_edges, cap, rng)
            er.append(n_v_structures(a) / a.sum())
            col.append(n_v_structures(b) / b.sum())
        assert np.mean(col) > factor * np.mean(er), (d, np.mean(er), np.mean(col))


def test_scale_free_has_hubs():
    # max out-degree / mean degree at matched (n_edges, cap), mean over 40 seeds, observed ER → sf:
    # d = 20: 3.2 → 4.2; 30: 3.2 → 4.9; 50: 3.5 → 5.7; 100: 3.5 → 6.6
    for d in (20, 30, 50, 100):
        er, sf = [], []
        for seed in range(40):
            n_edges, cap, rng = _matched("sf", d, seed)
            a, _ = erdos_renyi(d, n_edges, cap, rng)
            b, _ = scale_free(d, n_edges, cap, rng)
            er.append(a.sum(1).max() * d / a.sum())
            sf.append(b.sum(1).max() * d / b.sum())
        assert np.mean(sf) > 1.25 * np.mean(er), (d, np.mean(er), np.mean(sf))


def test_small_world_is_locally_clustered():
    # average clustering of the skeleton at matched (n_edges, cap), mean over 40 seeds, observed ER → small_world:
    # d = 30: 0.11 → 0.26; 50: 0.09 → 0.32; 100: 0.07 → 0.41 (d = 10 allows only a ring, k = 2: no triangles)
    for d in (30, 50, 100):
        er, sw = [], []
        for seed in range(40):
            n_edges, cap, rng = _matched("small_world", d, seed)
            a, _ = erdos_renyi(d, n_edges, cap, rng)
            b, _ = small_world(d, n_edges, cap, rng)
            er.append(nx.average_clustering(nx.Graph(a | a.T)))
            sw.append(nx.average_clustering(nx.Graph(b | b.T)))
        assert np.mean(sw) > 2 * np.mean(er), (d, np.mean(er), np.mean(sw))
