"""Known-answer tests for causalarena.metrics (cases M1–M7 of shared/cases/README.md)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalarena import metrics as M
from causalarena.records import MetricInfo


def adj(d, edges):
    a = np.zeros((d, d), dtype=np.int8)
    for i, j in edges:
        a[i, j] = 1
    return a


CHAIN = adj(3, [(0, 1), (1, 2)])
EMPTY3 = adj(3, [])
REVERSED_CHAIN = adj(3, [(2, 1), (1, 0)])
M4_TRUTH = adj(5, [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)])
M4_EST = adj(5, [(1, 0), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)])


# --- M1: reversal counts once; the option doubles it ------------------------


def test_m1_reversal_counts_once_and_option_doubles():
    t, e = adj(2, [(0, 1)]), adj(2, [(1, 0)])
    assert M.shd(t, e) == 1.0
    assert M.shd(t, e, double_count_reversals=True) == 2.0
    assert "once" in M.shd.__doc__ and "double_for_anticausal" in M.shd.__doc__


# --- M2: empty estimate -----------------------------------------------------


def test_m2_empty_estimate():
    assert M.shd(CHAIN, EMPTY3) == 2.0
    assert M.sid(CHAIN, EMPTY3) == 3.0
    assert M.precision(CHAIN, EMPTY3) == 0.0
    assert "0.0" in M.precision.__doc__ and "nothing is predicted" in M.precision.__doc__
    assert M.recall(CHAIN, EMPTY3) == 0.0
    assert M.f1(CHAIN, EMPTY3) == 0.0
    assert M.fdr(CHAIN, EMPTY3) == 0.0
    assert M.n_edges(CHAIN, EMPTY3) == 0.0


# --- M3: fully reversed chain ----------------------------------------------


def test_m3_reversed_chain():
    assert M.shd(CHAIN, REVERSED_CHAIN) == 2.0
    assert M.shd(CHAIN, REVERSED_CHAIN, double_count_reversals=True) == 4.0
    assert M.sid(CHAIN, REVERSED_CHAIN) == 6.0  # = d(d-1), the maximum
    assert M.precision(CHAIN, REVERSED_CHAIN) == 0.0
    assert M.fdr(CHAIN, REVERSED_CHAIN) == 1.0


# --- M4: SID known answer and asymmetry ------------------------------------


def test_m4_shd_and_sid():
    assert M.shd(M4_TRUTH, M4_EST) == 1.0
    assert M.sid(M4_TRUTH, M4_EST) == 8.0
    assert M.precision(M4_TRUTH, M4_EST) == pytest.approx(6 / 7)
    assert M.recall(M4_TRUTH, M4_EST) == pytest.approx(6 / 7)
    assert M.f1(M4_TRUTH, M4_EST) == pytest.approx(6 / 7)


def test_sid_is_not_symmetric():
    # M4 happens to be symmetric (8 both ways) ...
    assert M.sid(M4_EST, M4_TRUTH) == 8.0
    # ... but not in general: truth = chain, estimate = empty gives 3;
    # swapping the arguments (truth = empty) gives 0. Always SID(truth, est).
    assert M.sid(CHAIN, EMPTY3) == 3.0
    assert M.sid(EMPTY3, CHAIN) == 0.0


def test_sid_rejects_non_dag_before_gadjid():
    cyclic = adj(3, [(0, 1), (1, 2), (2, 0)])
    with pytest.raises(ValueError, match="adjacency has a cycle"):
        M.sid(CHAIN, cyclic)
    with pytest.raises(ValueError, match="cycle"):
        M.sid(CHAIN, adj(3, [(0, 1), (1, 0)]))  # gadjid would panic here


# --- M5: CPDAG-aware SHD and seeded orientation ----------------------------


def test_m5_cpdag_shd():
    truth = adj(3, [(0, 2), (1, 2)])
    est = adj(3, [(0, 2), (2, 0), (1, 2), (2, 1)])
    assert M.cpdag_shd(truth, est) == 2.0
    assert M.cpdag_shd(truth, truth) == 0.0
    assert M.cpdag_shd(est, est) == 0.0


def test_m5_orientation_is_seeded():
    est = adj(3, [(0, 2), (2, 0), (1, 2), (2, 1)])
    first = M.orient_cpdag(est, seed=7)
    assert first.dtype == np.int8
    assert np.array_equal(first, M.orient_cpdag(est, seed=7))  # byte-identical
    assert first.tobytes() == M.orient_cpdag(est.copy(), seed=7).tobytes()
    assert M.is_dag(first)
    # exactly one direction per undirected edge, no other edges
    assert np.array_equal(first + first.T, est)
    outcomes = {M.orient_cpdag(est, seed=s).tobytes() for s in range(40)}
    assert len(outcomes) > 1  # different seeds can orient differently
    # the path 0—2—1 has 4 orientations (a tree: all acyclic); the default rule
    # (a random member of the Markov equivalence class, issue 12 item 13) reaches
    # the 3 without a v-structure and never the v-structure 0→2←1 ...
    collider = adj(3, [(0, 2), (1, 2)]).astype(np.int8).tobytes()
    assert len(outcomes) == 3 and collider not in outcomes
    # ... which the old rule, random linear extensions (an option), reaches too
    old = {M.orient_cpdag(est, seed=s, rule="linear_extension").tobytes() for s in range(40)}
    assert len(old) == 4 and collider in old
    assert M.orient_cpdag(est, 7, rule="linear_extension").tobytes() == M.orient_cpdag(est, 7, "linear_extension").tobytes()


def test_orient_cpdag_keeps_dag_unchanged_and_rejects_cycles():
    assert np.array_equal(M.orient_cpdag(M4_TRUTH, seed=1), M4_TRUTH)
    with pytest.raises(ValueError, match="cycle"):
        M.orient_cpdag(adj(3, [(0, 1), (1, 2), (2, 0)]), seed=0)


@st.composite
def cpdag_like(draw):
    d = draw(st.integers(min_value=1, max_value=8))
    order = draw(st.permutations(range(d)))
    pos = {node: k for k, node in enumerate(order)}
    a = np.zeros((d, d), dtype=np.int8)
    for i in range(d):
        for j in range(d):
            if pos[i] < pos[j]:
                kind = draw(st.sampled_from(["none", "directed", "undirected"]))
                if kind == "directed":
                    a[i, j] = 1
                elif kind == "undirected":
                    a[i, j] = a[j, i] = 1
    return a


@settings(max_examples=200, deadline=None)
@given(cpdag_like(), st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(M.CPDAG_ORIENTATIONS))
def test_orient_cpdag_property(a, seed, rule):
    # any PDAG with an acyclic directed part, extendable or not (the mec rule's fallback)
    out = M.orient_cpdag(a, seed, rule=rule)
    directed = (a == 1) & (a.T == 0)
    undirected = (a == 1) & (a.T == 1)
    assert M.is_dag(out)
    assert np.all(out[directed] == 1)  # every directed edge kept
    assert np.array_equal((out + out.T) > 0, (a + a.T) > 0)  # same skeleton
    assert not M.has_two_cycle(out)
    assert np.all((out + out.T)[undirected] == 1)  # one direction per undirected edge
    assert np.array_equal(out, M.orient_cpdag(a, seed, rule=rule))


# --- M6: 2-cycles ----------------------------------------------------------


def test_m6_two_cycle_detected_and_metrics_bounded():
    truth = adj(2, [(0, 1)])
    both = adj(2, [(0, 1), (1, 0)])
    assert M.has_two_cycle(both) and not M.is_dag(both)
    assert not M.has_two_cycle(truth) and M.is_dag(truth)
    assert not M.is_dag(adj(3, [(0, 1), (1, 2), (2, 0)]))
    assert not M.has_two_cycle(adj(3, [(0, 1), (1, 2), (2, 0)]))
    # even if scored, nothing leaves [0, 1]
    assert M.precision(truth, both) == 0.5
    assert M.recall(truth, both) == 1.0
    assert 0.0 <= M.f1(truth, both) <= 1.0


@st.composite
def graph_pair(draw):
    d = draw(st.integers(1, 7))
    off = 1 - np.eye(d, dtype=np.int8)
    cells = st.lists(st.integers(0, 1), min_size=d * d, max_size=d * d)
    t = np.array(draw(cells), dtype=np.int8).reshape(d, d) * off
    e = np.array(draw(cells), dtype=np.int8).reshape(d, d) * off
    return t, e


@settings(max_examples=200, deadline=None)
@given(graph_pair())
def test_metrics_stay_in_unit_interval(pair):
    t, e = pair
    for f in (M.precision, M.recall, M.f1, M.fdr):
        assert 0.0 <= f(t, e) <= 1.0
    value = M.nshd(t, e)
    if t.shape[0] >= 2:
        assert 0.0 <= value <= 1.0
    assert M.shd(t, e) <= M.shd(t, e, double_count_reversals=True)


# --- M7: nSHD normalisation -------------------------------------------------


def test_m7_nshd_uses_ordered_pairs():
    assert M.nshd(CHAIN, EMPTY3) == pytest.approx(2 / 6)  # not 2/3
    assert M.nshd(M4_TRUTH, M4_EST) == pytest.approx(1 / 20)
    assert M.nshd(adj(1, []), adj(1, [])) is None


# --- AUROC / AP hand-computed ------------------------------------------------


def test_auroc_ap_known_answer():
    # off-diagonal entries of the chain: positives (0,1),(1,2); 4 negatives.
    scores = np.array([[0.0, 0.9, 0.8],
                       [0.3, 0.0, 0.4],
                       [0.2, 0.1, 0.0]])
    # AUROC: pos 0.9 beats all 4 negatives, pos 0.4 beats 3 (not 0.8): 7/8.
    assert M.auroc(CHAIN, None, scores) == pytest.approx(7 / 8)
    # AP: ranking 0.9(P) 0.8(N) 0.4(P): 0.5 * 1 + 0.5 * 2/3.
    assert M.ap(CHAIN, None, scores) == pytest.approx(0.5 + 0.5 * 2 / 3)
    # diagonal is ignored even if large
    scores2 = scores.copy()
    np.fill_diagonal(scores2, 5.0)
    assert M.auroc(CHAIN, None, scores2) == pytest.approx(7 / 8)


def test_auroc_ap_undefined_cases():
    scores = np.random.default_rng(0).random((3, 3))
    assert M.auroc(EMPTY3, None, scores) is None
    assert M.ap(EMPTY3, None, scores) is None
    full = 1 - np.eye(3, dtype=np.int8)
    assert M.auroc(full, None, scores) is None
    assert M.ap(full, None, scores) is None
    assert M.auroc(CHAIN, None, None) is None
    bad = scores.copy()
    bad[0, 2] = np.nan
    with pytest.raises(ValueError, match=r"\[0, 2\]"):
        M.auroc(CHAIN, None, bad)


# --- input validation --------------------------------------------------------


def test_bad_inputs_named():
    with pytest.raises(ValueError, match="shape"):
        M.shd(CHAIN, adj(2, []))
    with pytest.raises(ValueError, match="square"):
        M.shd(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"entry \[0, 1\] is 0.5"):
        M.f1(CHAIN, np.array([[0, 0.5, 0], [0, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="self-loop at \\[1, 1\\]"):
        M.shd(CHAIN, adj(3, [(1, 1)]))


# --- registry and compute_metrics ------------------------------------------------


def _infos():
    return {rec.name: rec for rec in M.arena_metrics()}


def test_shd_cdt_counts_a_reversal_twice_and_is_a_registered_metric():
    from causalarena.metrics import compute_metrics, shd, shd_cdt
    from causalarena.plugins import get_registry

    truth = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])  # 0 → 1 → 2
    est = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0]])  # 1 → 0: one reversal, one missing edge
    assert (shd(truth, est), shd_cdt(truth, est)) == (2.0, 3.0)  # by hand: 1 + 1, then 2 + 1
    values, _ = compute_metrics(truth, est, None, get_registry().metrics)
    assert (values["shd"], values["shd_cdt"]) == (2.0, 3.0)


def test_arena_metrics_records():
    infos = _infos()
    assert len(infos) >= 8
    assert {"precision", "recall", "f1", "shd", "nshd", "sid", "auroc", "ap", "fdr",
            "n_edges"} <= set(infos)
    assert infos["auroc"].needs_scores and infos["ap"].needs_scores
    assert not infos["shd"].higher_is_better and infos["f1"].higher_is_better
    for info in infos.values():
        assert callable(info.load())


def test_registry_lists_core_metrics():
    from causalarena.plugins import get_registry

    reg = get_registry()
    assert reg.metrics["nshd"].factory == "causalarena.metrics:nshd"
    assert reg.metrics["sid"].distribution == "causal-arena"


def test_compute_metrics_values_and_skips():
    values, warnings = M.compute_metrics(M4_TRUTH, M4_EST, None, _infos())
    assert warnings == []
    assert values["shd"] == 1.0 and values["sid"] == 8.0
    assert values["nshd"] == pytest.approx(0.05)
    assert values["auroc"] is None and values["ap"] is None
    scores = np.array([[0.0, 0.9, 0.8], [0.3, 0.0, 0.4], [0.2, 0.1, 0.0]])
    values, warnings = M.compute_metrics(CHAIN, CHAIN, scores, _infos())
    assert values["auroc"] == pytest.approx(7 / 8) and values["f1"] == 1.0


def test_compute_metrics_catches_errors():
    infos = _infos()
    infos["broken"] = MetricInfo(name="broken", factory="causalarena.metrics:does_not_exist")
    cyclic = adj(3, [(0, 1), (1, 2), (2, 0)])
    values, warnings = M.compute_metrics(CHAIN, cyclic, None, infos)
    assert values["sid"] is None and values["broken"] is None
    assert values["shd"] == 1.0  # only the pair {0, 2} differs (extra 2 -> 0)
    assert any("'sid'" in w and "cycle" in w for w in warnings)
    assert any("'broken'" in w and "AttributeError" in w for w in warnings)


def test_compute_metrics_catches_rust_panic():
    """gadjid panics (pyo3 PanicException, a BaseException) on a 2-cycle."""
    import types

    import gadjid

    def raw_sid(t, a, s=None):
        return gadjid.sid(np.asarray(t, np.int8), np.asarray(a, np.int8),
                          edge_direction="from row to column")[1]

    fake = types.SimpleNamespace(needs_scores=False, distribution="test", load=lambda: raw_sid)
    values, warnings = M.compute_metrics(adj(2, [(0, 1)]), adj(2, [(0, 1), (1, 0)]), None,
                                         {"raw_sid": fake})
    assert values == {"raw_sid": None}
    assert len(warnings) == 1 and "PanicException" in warnings[0]
