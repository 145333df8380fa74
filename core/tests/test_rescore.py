"""``arena rescore``: metrics recomputed from the kept predictions of a real run, no method run again."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from fault_methods import TESTS_DIR, info

from causalarena.cli import main
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import FamilyInfo, MethodInfo, MetricInfo
from causalarena.store import Store

ALL = ("f1", "shd", "precision", "recall", "sid", "nshd", "auroc", "ap", "fdr", "n_edges")


def reversed_edges(true_adjacency, adjacency, edge_scores=None):
    """Predicted edges whose reverse is a true edge (a metric added after the run)."""
    return float((np.asarray(adjacency, dtype=bool) & np.asarray(true_adjacency, dtype=bool).T).sum())


class _Toys:
    __distribution__ = "arena-test-rescore"

    @hookimpl
    def arena_families(self):
        yield FamilyInfo(name="toy", kind="synthetic", factory="family_toys:GoodFamily")

    @hookimpl
    def arena_methods(self):
        yield info("chain", "Chain")
        yield info("reversed", "Reversed")
        yield info("undirected", "UndirectedChain", output_kind="cpdag")
        yield MethodInfo(name="scored", factory="test_predictions:ScoredChain")
        yield info("seeded", "UsesSeed")  # random float64 edge scores: AUROC / AP from a float32 round trip

    @hookimpl
    def arena_metrics(self):
        yield MetricInfo(name="reversed_edges", factory=f"{__name__}:reversed_edges", higher_is_better=False)


@pytest.fixture(scope="module")
def reg():
    import sys

    sys.path.insert(0, TESTS_DIR)
    import toy_task_plugin  # a second task and its metric (max_abs_error), as an installed task would add

    return get_registry(strict=False, extra_plugins=[_Toys(), toy_task_plugin])


RUN = ["run", "--families", "toy", "--methods", "chain,reversed,undirected,scored,seeded", "--splits", "obs",
       "--replicates", "2", "--no-progress", "--isolation", "none", "--jobs", "1"]


def _metrics(path):
    with Store(str(path), readonly=True) as st:
        return {(r["scm_id"], r["replicate"], r["method"]): r["metrics"] for r in st.rows() if r["status"] == "ok"}


def test_rescore_reproduces_every_stored_metric_then_adds_a_new_one(reg, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", TESTS_DIR)
    results = tmp_path / "r"
    assert main(RUN + ["--results", str(results)], registry=reg) == 0
    path = results / "arena.sqlite"
    stored = _metrics(path)
    assert len(stored) == 2 * 2 * 5  # 2 chains x 2 replicates x 5 methods, all ok
    scored = stored[("chain-w1", 0, "scored")]
    # the toy chains are a → b → c in columns (b, c, a): true entries [0, 1] and [2, 0], scored 0.9 and 0.3
    # by ScoredChain, above all four negatives (0.25, 0.2, 0.1, 0.05): AUROC 1, AP 1
    assert scored["auroc"] == 1.0 and scored["ap"] == 1.0
    # ScoredChain returns 0 → 1 → 2 = b → c → a: b → c right, c → a wrong, a → b missed:
    # precision 1/2, recall 1/2, SHD 2
    assert (scored["precision"], scored["recall"], scored["shd"]) == (0.5, 0.5, 2.0)
    assert 0.0 < stored[("chain-w1", 0, "seeded")]["auroc"] < 1.0
    assert all(set(ALL) <= set(m) for m in stored.values())
    # wipe every metric: rescore must rebuild them from the stored predictions alone
    with Store(str(path)) as st:
        st._conn.execute("UPDATE runs SET metrics = '{}'")
    capsys.readouterr()
    assert main(["rescore", "--results", str(results), "--metrics", ",".join(ALL)], registry=reg) == 0
    out = capsys.readouterr().out
    assert f"rescored 20 runs from their stored predictions ({', '.join(ALL)}) in {path}" in out
    assert "no stored prediction" not in out
    # every installed metric by default, but the line names only those written: a discovery store gets no
    # metric of another task
    assert reg.metrics["max_abs_error"].task == "column_means"
    assert main(["rescore", "--results", str(results)], registry=reg) == 0
    out = capsys.readouterr().out
    assert "rescored 20 runs" in out and "shd" in out and "max_abs_error" not in out
    # only another task's metric asked for: no run is rescored (it said "rescored 20 runs" before)
    assert main(["rescore", "--results", str(results), "--metrics", "max_abs_error"], registry=reg) == 0
    assert "rescored 0 runs from their stored predictions (no metric)" in capsys.readouterr().out
    again = _metrics(path)
    for key, values in stored.items():
        assert {m: again[key][m] for m in ALL} == {m: values[m] for m in ALL}, key  # exactly, AUROC/AP included
    # a metric installed after the run: the default (every installed metric) adds it, the others stay equal
    assert main(["rescore", "--results", str(results)], registry=reg) == 0
    after = _metrics(path)
    for key, values in stored.items():
        assert {m: after[key][m] for m in ALL} == {m: values[m] for m in ALL}
    # in columns (b, c, a) the truth is b → c, a → b. Chain: b → c, c → a: no reversal. Reversed (c → b,
    # a → c): c → b reverses b → c, one
    assert after[("chain-w1", 0, "chain")]["reversed_edges"] == 0.0
    assert after[("chain-w1", 0, "reversed")]["reversed_edges"] == 1.0
    with Store(str(path), readonly=True) as st:
        frame, truths = st.predictions_frame(), st.truths()
    for r in frame.itertuples():
        expected = float((r.adjacency & truths[r.truth_id].adjacency.T).sum())
        assert after[(r.scm_id, r.replicate, r.method)]["reversed_edges"] == expected
    code = main(["rescore", "--results", str(results), "--metrics", "f1,nope"], registry=reg)
    assert code == 2 and "--metrics: unknown metric(s) ['nope']" in capsys.readouterr().err


def test_an_old_store_names_the_missing_runs_and_retry_ok_fills_them(reg, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", TESTS_DIR)
    results = tmp_path / "r"
    run = RUN + ["--results", str(results)]
    assert main(run, registry=reg) == 0
    path = results / "arena.sqlite"
    con = sqlite3.connect(str(path))
    con.execute("DROP TABLE predictions")  # a store written before predictions were kept
    con.commit()
    con.close()
    capsys.readouterr()
    assert main(["rescore", "--results", str(results)], registry=reg) == 0
    out = capsys.readouterr().out
    assert "rescored 0 runs" in out
    assert (f"20 ok runs have no stored prediction (stored before predictions were kept); to fill them: "
            f"arena run <the same selection> --results {results} --retry ok") in out
    with Store(str(path), readonly=True) as st:
        before = {(r["scm_id"], r["replicate"], r["method"]): r["started_at"] for r in st.rows()}
    # a plain rerun skips the stored ok cells; --retry ok reruns them and keeps their predictions
    assert main(run, registry=reg) == 0
    assert "this invocation: nothing new; skipped 20 already stored" in capsys.readouterr().out
    assert main(run + ["--retry", "ok"], registry=reg) == 0
    assert "this invocation: 20 ok; skipped 0 already stored" in capsys.readouterr().out
    with Store(str(path), readonly=True) as st:
        assert st.prediction_count() == 20 and st.missing_predictions() == 0
        after = {(r["scm_id"], r["replicate"], r["method"]): r["started_at"] for r in st.rows()}
    assert set(after) == set(before) and all(after[k] > before[k] for k in before)
    assert main(["rescore", "--results", str(results)], registry=reg) == 0
    out = capsys.readouterr().out
    assert "rescored 20 runs" in out and "no stored prediction" not in out


def test_rescore_without_a_store_is_a_usage_error(reg, capsys, tmp_path):
    assert main(["rescore", "--results", str(tmp_path / "none")], registry=reg) == 2
    assert f"no result store at {tmp_path / 'none' / 'arena.sqlite'}" in capsys.readouterr().err
