"""Kept predictions: the encodings (causalarena.predictions), the store's tables, the runner's writes."""

from __future__ import annotations

import sqlite3
import zlib

import attrs
import numpy as np
import pytest
from fault_methods import CHAIN, TESTS_DIR, ChainInstance, info

from causalarena.data import Prediction
from causalarena.method import Method
from causalarena.metrics import ap, auroc, orient_cpdag
from causalarena.plugins import get_registry
from causalarena.predictions import (
    Truth,
    decode_adjacency,
    decode_scores,
    encode_adjacency,
    encode_scores,
    node_tags,
    truth_id,
)
from causalarena.runner import make_cells, run_grid
from causalarena.store import PREDICTION_COLUMNS, Store, StoreError

ENV = {"PYTHONPATH": TESTS_DIR}

#: scores of ScoredChain: the true edges 0→1 (0.9) and 1→2 (0.25); the negatives 0.3, 0.2, 0.1, 0.05.
#: AUROC: 0.9 beats all 4 negatives, 0.25 beats 3 of 4 → 7/8 = 0.875. AP, from the top: 0.9 (P, precision
#: 1), 0.3 (N), 0.25 (P, precision 2/3) → (1 + 2/3) / 2 = 5/6.
SCORES = np.array([[0.0, 0.9, 0.2], [0.1, 0.0, 0.25], [0.3, 0.05, 0.0]])


class ScoredChain(Method):
    """The chain 0 → 1 → 2 with the fixed edge scores :data:`SCORES` (worker factory ``test_predictions:ScoredChain``)."""

    def fit(self, dataset):
        self.adjacency_ = CHAIN.copy()
        self.edge_scores_ = SCORES.copy()
        return self


def _dag(d: int, n_edges: int, seed: int) -> np.ndarray:
    """A random DAG: ``n_edges`` of the upper triangle of a random order."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(d)
    iu = np.triu_indices(d, 1)
    pick = rng.choice(iu[0].size, n_edges, replace=False)
    a = np.zeros((d, d), dtype=bool)
    a[order[iu[0][pick]], order[iu[1][pick]]] = True
    return a


# --------------------------------------------------------------------------- encodings


def test_adjacency_is_packed_bits_of_the_whole_matrix():
    # row-major bits of the chain: 010 001 000 → 01000100 0(0000000) = 0x44 0x00
    blob = encode_adjacency(CHAIN)
    assert zlib.decompress(blob) == b"\x44\x00"
    back = decode_adjacency(blob, 3)
    assert back.dtype == bool and (back == CHAIN.astype(bool)).all()
    with pytest.raises(ValueError, match=r"adjacency must be 0/1, got 2 at \[0, 1\]"):
        encode_adjacency(np.array([[0, 2], [0, 0]]))
    with pytest.raises(ValueError, match=r"square d x d matrix, got shape \(2, 3\)"):
        encode_adjacency(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="holds 2 bytes, a 5 x 5 matrix needs 4"):
        decode_adjacency(blob, 5)


def test_a_d100_dag_with_150_edges_costs_well_under_2kb():
    for seed in range(5):
        a = _dag(100, 150, seed)
        blob = encode_adjacency(a)
        assert len(blob) < 400, len(blob)  # 1,250 bytes of bits before zlib; the budget is 2 KB
        assert (decode_adjacency(blob, 100) == a).all()


def test_scores_are_float32_unless_that_would_merge_two_scores():
    s = SCORES
    blob = encode_scores(s)
    assert blob[:1] == b"f"
    back = decode_scores(blob, 3)
    assert back.dtype == np.float64
    assert np.array_equal(back, s.astype(np.float32).astype(np.float64))
    assert np.abs(back - s).max() <= 6e-8 * np.abs(s).max()
    # 1 and 1 + 1e-12 are one float32: the encoding keeps float64, exactly
    close = np.array([[0.0, 1.0], [1.0 + 1e-12, 0.0]])
    blob = encode_scores(close)
    assert blob[:1] == b"d" and np.array_equal(decode_scores(blob, 2), close)
    with pytest.raises(ValueError, match="starts with b'x'"):
        decode_scores(b"x" + blob[1:], 2)


def test_rescored_auroc_and_ap_equal_the_originals_on_dense_random_scores():
    # 10,000 distinct uniform scores: float16 would keep ~3,800 distinct values (ties), float32 keeps all
    rng = np.random.default_rng(1)
    truth = _dag(100, 150, 1)
    scores = rng.random((100, 100))
    back = decode_scores(encode_scores(scores), 100)
    assert np.unique(back).size == np.unique(scores).size == 10_000
    assert auroc(truth, truth, back) == auroc(truth, truth, scores)
    assert ap(truth, truth, back) == ap(truth, truth, scores)
    assert auroc(CHAIN, CHAIN, SCORES) == 0.875 and ap(CHAIN, CHAIN, SCORES) == pytest.approx(5 / 6, abs=1e-15)


def test_truth_validates_and_round_trips():
    t = Truth(adjacency=CHAIN, columns=("a", "b", "c"),
              node_tags=({"root": "gaussian"}, {"mechanism": "linear", "noise": "gaussian"}, {}))
    assert t.d == 3 and t.adjacency.dtype == bool and not t.adjacency.flags.writeable
    assert Truth.decode(*t.encode()) == t
    assert Truth(adjacency=CHAIN, columns="abc").node_tags == ({}, {}, {})
    with pytest.raises(ValueError, match="Truth.columns has 2 names for a 3 x 3 adjacency"):
        Truth(adjacency=CHAIN, columns=("a", "b"))
    with pytest.raises(ValueError, match="Truth.node_tags has 1 dicts for a 3 x 3 adjacency"):
        Truth(adjacency=CHAIN, columns="abc", node_tags=({},))
    with pytest.raises(ValueError, match=r"Truth.adjacency must be 0/1, got 0.5 at \[0, 0\]"):
        Truth(adjacency=np.full((2, 2), 0.5), columns="ab")
    # the id covers family, scm, columns, graph and tags; not the object identity
    tid = truth_id("toy", "chain-0", t)
    assert len(tid) == 16 and tid == truth_id("toy", "chain-0", Truth.decode(*t.encode()))
    assert len({tid, truth_id("toy", "chain-1", t), truth_id("toy", "chain-0", attrs.evolve(t, columns="xyz")),
                truth_id("toy", "chain-0", attrs.evolve(t, adjacency=CHAIN.T)),
                truth_id("toy", "chain-0", attrs.evolve(t, node_tags=({}, {}, {})))}) == 5


def test_node_tags_keep_json_scalars_matched_by_name():
    from causalarena.scm import NodeSpec

    nodes = [NodeSpec(name="b", role="mechanism", parents=("a",),
                      tags={"mechanism": "linear", "noise": "gaussian", "weights": [1.0, 2.0], "strength": np.float64(0.5),
                            "depth": np.int64(2), "meta": {"x": 1}, "missing": None}),
             NodeSpec(name="a", role="root", tags={"root": "gumbel", "observed": True})]
    assert node_tags(nodes, ["a", "b", "z"]) == (
        {"observed": True, "root": "gumbel"},
        {"depth": 2, "mechanism": "linear", "noise": "gaussian", "strength": 0.5},
        {})


# --------------------------------------------------------------------------- the store


def _run_row(rep=0, status="ok", **kw):
    r = dict(family="toy", scm_id="chain-0", split="obs", replicate=rep, method="chain", config_hash="h",
             status=status, metrics={"shd": 0.0}, flags=[])
    r.update(kw)
    return r


TRUTH = Truth(adjacency=CHAIN, columns=("X0", "X1", "X2"), node_tags=({"root": "gaussian"}, {}, {}))


def test_store_keeps_prediction_and_truth_with_the_run(tmp_path):
    st = Store(str(tmp_path / "r.sqlite"))
    st.record(_run_row(0), prediction=Prediction(adjacency=CHAIN, kind="dag", edge_scores=SCORES), truth=TRUTH)
    st.record(_run_row(1), prediction=Prediction(adjacency=CHAIN.T, kind="cpdag"), truth=TRUTH)
    st.record(_run_row(2, status="failed", error="boom"))
    frame = st.predictions_frame()
    assert tuple(frame.columns) == PREDICTION_COLUMNS == (
        "family", "scm_id", "split", "replicate", "method", "config_hash", "kind", "adjacency", "edge_scores",
        "truth_id")
    assert list(frame["replicate"]) == [0, 1] and list(frame["kind"]) == ["dag", "cpdag"]
    assert (frame["adjacency"][0] == CHAIN.astype(bool)).all() and (frame["adjacency"][1] == CHAIN.T.astype(bool)).all()
    assert np.array_equal(frame["edge_scores"][0], SCORES.astype(np.float32).astype(np.float64))
    assert frame["edge_scores"][1] is None
    tid = truth_id("toy", "chain-0", TRUTH)
    assert list(frame["truth_id"]) == [tid, tid]
    assert st.truths() == {tid: TRUTH}  # the two replicates share one row
    assert st.prediction_count() == 2 and st.missing_predictions() == 0
    # a rerun that fails replaces the run and drops its prediction; an ok run without one is "missing"
    st.record(_run_row(1, status="timeout", error="budget"))
    st.record(_run_row(3))
    assert list(st.predictions_frame()["replicate"]) == [0]
    assert st.prediction_count() == 1 and st.missing_predictions() == 1
    with pytest.raises(ValueError, match="needs its truth"):
        st.record(_run_row(4), prediction=Prediction(adjacency=CHAIN))
    with pytest.raises(ValueError, match="kept for ok runs only, this run is failed"):
        st.record(_run_row(4, status="failed"), prediction=Prediction(adjacency=CHAIN), truth=TRUTH)
    with pytest.raises(ValueError, match="the prediction is 2 x 2 but its truth is 3 x 3"):
        st.record(_run_row(4), prediction=Prediction(adjacency=np.zeros((2, 2))), truth=TRUTH)
    assert 4 not in {r["replicate"] for r in st.rows()}
    st.close()


def test_a_run_and_its_prediction_are_one_transaction(tmp_path):
    st = Store(str(tmp_path / "r.sqlite"))
    st._conn.execute("DROP TABLE predictions")  # the prediction's INSERT fails inside the transaction
    with pytest.raises(StoreError, match="no such table: predictions"):
        st.record(_run_row(0), prediction=Prediction(adjacency=CHAIN), truth=TRUTH)
    assert st.rows() == []  # the run row was rolled back with it
    assert st._conn.execute("SELECT count(*) FROM truths").fetchone()[0] == 0
    st.close()


def test_an_old_store_reads_empty_and_gets_the_tables_when_opened_for_writing(tmp_path):
    path = str(tmp_path / "old.sqlite")
    with Store(path) as st:
        st.record(_run_row(0))
        st.record(_run_row(1, status="failed"))
    con = sqlite3.connect(path)
    con.execute("DROP TABLE predictions")
    con.execute("DROP TABLE truths")
    con.commit()
    con.close()
    with Store(path, readonly=True) as ro:
        frame = ro.predictions_frame()
        assert len(frame) == 0 and tuple(frame.columns) == PREDICTION_COLUMNS
        assert ro.truths() == {} and ro.prediction_count() == 0 and ro.missing_predictions() == 1
        assert len(ro.rows()) == 2
    with Store(path) as st:  # opened for writing: the tables exist (empty), the runs are kept
        tables = {r[0] for r in st._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"runs", "predictions", "truths"} <= tables
        assert st.prediction_count() == 0 and st.missing_predictions() == 1 and len(st.rows()) == 2


def test_update_metrics_merges_in_one_transaction(tmp_path):
    st = Store(str(tmp_path / "r.sqlite"))
    st.record(_run_row(0, metrics={"shd": 1.0, "f1": 0.5}))
    key = ("toy", "chain-0", "obs", 0, "chain", "h")
    assert st.update_metrics([(key, {"f1": 0.75, "tp": 2.0}), (key[:3] + (9,) + key[4:], {"f1": 0.0})]) == 1
    assert st.rows()[0]["metrics"] == {"shd": 1.0, "f1": 0.75, "tp": 2.0}
    st.close()


# --------------------------------------------------------------------------- the runner


@pytest.fixture(scope="module")
def registry():
    return get_registry()


def _tagged_instance():
    """A chain SCM (columns b, c, a) whose nodes carry factor tags."""
    from family_toys import chain_spec

    from causalarena.family import SCMInstance

    spec = chain_spec("toy/tagged", 1.0)
    tags = {"a": {"root": "gaussian"}, "b": {"mechanism": "linear", "noise": "gaussian", "parents": ["a"]},
            "c": {"mechanism": "linear", "noise": "gaussian"}}
    spec = attrs.evolve(spec, nodes=tuple(attrs.evolve(n, tags=tags[n.name]) for n in spec.nodes))
    return SCMInstance(family="toy", scm_id="tagged", spec=spec, splits=("obs",), n_replicates=2,
                       factors={"graph": "chain"})


def test_the_runner_keeps_the_scored_dag_its_scores_and_the_truth(tmp_path, registry):
    chain = ChainInstance("chain-0", splits=("obs",), n_replicates=2)
    methods = [info("scored", "ScoredChain"), info("undirected", "UndirectedChain", output_kind="cpdag"),
               info("raises", "Raises")]
    methods[0] = attrs.evolve(methods[0], factory="test_predictions:ScoredChain")
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(make_cells([chain, _tagged_instance()], methods), registry, store, env=ENV, progress=False)
    runs = {(r["scm_id"], r["replicate"], r["method"]): r for r in store.rows()}
    frame = store.predictions_frame()
    kept = {(r.scm_id, r.replicate, r.method): r for r in frame.itertuples()}
    # every ok run has its prediction, the failed ones none
    assert set(kept) == {k for k, r in runs.items() if r["status"] == "ok"} and len(kept) == 8
    s = kept[("chain-0", 0, "scored")]
    assert s.kind == "dag" and (s.adjacency == CHAIN.astype(bool)).all()
    assert np.array_equal(s.edge_scores, SCORES.astype(np.float32).astype(np.float64))
    assert runs[("chain-0", 0, "scored")]["metrics"]["auroc"] == 0.875
    # the CPDAG is kept as scored: oriented with the cell seed
    for rep in (0, 1):
        u = kept[("chain-0", rep, "undirected")]
        assert u.kind == "cpdag" and u.edge_scores is None
        oriented = orient_cpdag(CHAIN | CHAIN.T, runs[("chain-0", rep, "undirected")]["seed"])
        assert (u.adjacency == oriented.astype(bool)).all()
    truths = store.truths()
    assert len(truths) == 2  # one per SCM, shared by replicates and methods
    assert truths[s.truth_id] == Truth(adjacency=CHAIN, columns=("X0", "X1", "X2"))
    tagged = truths[kept[("tagged", 1, "scored")].truth_id]
    # columns b, c, a (family_toys.CHAIN_COLUMNS): a → b → c is b-row → c-column and a-row → b-column
    assert tagged.columns == ("b", "c", "a")
    assert (tagged.adjacency == np.array([[0, 1, 0], [0, 0, 0], [1, 0, 0]], dtype=bool)).all()
    assert tagged.node_tags == ({"mechanism": "linear", "noise": "gaussian"},
                                {"mechanism": "linear", "noise": "gaussian"}, {"root": "gaussian"})
    store.close()


def test_a_two_item_custom_scorer_still_works(tmp_path, registry):
    def scorer(truth, prediction, seed):
        return {"edges": float(np.asarray(prediction.adjacency).sum())}, ["custom"]

    chain = ChainInstance("chain-0", splits=("obs",), n_replicates=1)
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(make_cells([chain], [info("chain", "Chain"), info("undirected", "UndirectedChain", output_kind="cpdag")]),
             registry, store, env=ENV, progress=False, scorer=scorer)
    runs = {r["method"]: r for r in store.rows()}
    assert runs["chain"]["metrics"] == {"edges": 2.0} and "custom" in runs["chain"]["flags"]
    assert runs["undirected"]["metrics"] == {"edges": 4.0}
    # a DAG is kept as returned; what a two-item scorer made of a CPDAG is unknown: not kept
    assert list(store.predictions_frame()["method"]) == ["chain"]
    assert store.missing_predictions() == 1
    store.close()
