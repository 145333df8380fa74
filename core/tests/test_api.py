"""The Python API (causalarena.run / open) and the run life cycle (a JSON-lines results sink)."""

from __future__ import annotations

import json
import threading

import pytest
from fault_methods import TESTS_DIR, info

import causalarena
from causalarena.cli import main
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import FamilyInfo, MethodInfo
from causalarena.store import Store

#: what a run's stored row may differ in between two invocations: times, worker ids, process info
VOLATILE = ("started_at", "finished_at", "wall_seconds", "fit_seconds", "load_seconds", "start_seconds",
            "peak_rss_mb", "worker_id", "worker_seq", "python", "traceback")


class _Toys:
    __distribution__ = "arena-test-api-toys"

    @hookimpl
    def arena_families(self):
        yield FamilyInfo(name="toy", kind="synthetic", factory="family_toys:GoodFamily")

    @hookimpl
    def arena_methods(self):
        yield info("chain", "Chain")
        yield info("raises", "Raises")
        yield MethodInfo(name="scored", factory="test_predictions:ScoredChain")


class JsonLinesSink:
    """A results sink through the life-cycle hooks: every stored cell becomes one JSON line."""

    __distribution__ = "arena-test-jsonl-sink"

    def __init__(self, path):
        self.path, self.lock, self.events = path, threading.Lock(), []

    @hookimpl
    def arena_run_start(self, run):
        self.events.append(("start", run["cells"]))
        self.path.write_text("")

    @hookimpl
    def arena_cell_stored(self, run, record):
        with self.lock, self.path.open("a") as fh:
            fh.write(json.dumps({k: record[k] for k in ("scm_id", "split", "method", "status", "metrics")}) + "\n")
        record["status"] = "ok"  # read-only: a sink cannot change what was stored

    @hookimpl
    def arena_run_end(self, run, counts):
        self.events.append(("end", dict(counts)))


@pytest.fixture()
def registry(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", TESTS_DIR)
    monkeypatch.syspath_prepend(TESTS_DIR)
    return get_registry(strict=False, extra_plugins=[_Toys()])


def _stored(folder):
    with Store(str(folder / "arena.sqlite"), readonly=True) as store:
        rows = store.rows()
    return {tuple(r[k] for k in ("scm_id", "split", "replicate", "method", "config_hash")):
            {k: v for k, v in r.items() if k not in VOLATILE} for r in rows}


def test_the_api_and_the_cli_store_the_same_runs(tmp_path, registry):
    argv = ["run", "--results", str(tmp_path / "cli"), "--families", "toy", "--methods", "chain,raises,scored",
            "--replicates", "1", "--no-progress", "--isolation", "none", "--jobs", "1", "--no-extensions"]
    assert main(argv, registry=registry) == 0
    res = causalarena.run(results=tmp_path / "api", families=["toy"], methods=["chain", "raises", "scored"],
                          replicates=1, jobs=1, registry=registry)
    cli, api = _stored(tmp_path / "cli"), _stored(tmp_path / "api")
    assert cli == api and len(cli) == 12  # 2 toy SCMs x 2 splits x 3 methods, same keys, statuses, metrics
    # no toy method takes interventions: every obs_int cell is unsupported; raises fails on every obs cell
    assert res.counts == {"ok": 4, "failed": 2, "unsupported": 6} and res.skipped == 0
    # resume: the same call stores nothing new
    again = causalarena.run(results=tmp_path / "api", families=["toy"], methods=["chain", "raises", "scored"],
                            replicates=1, jobs=1, registry=registry)
    assert again.counts == {} and again.skipped == 12
    opened = causalarena.open(tmp_path / "api")
    assert len(opened.runs) == 12 and set(opened.runs["status"]) == {"ok", "failed", "unsupported"}
    board = opened.leaderboard(metrics=("shd",), numeric=True)
    assert set(board["method"]) == {"chain", "raises", "scored"}
    # the numeric cell is the mean over SCMs of the stored SHDs (one replicate each)
    runs = opened.runs
    ok = runs[(runs["method"] == "chain") & (runs["status"] == "ok") & (runs["split"] == "obs")]
    cell = board[(board["method"] == "chain") & (board["split"] == "obs")]
    assert len(ok) == 2 and cell["shd_mean"].item() == pytest.approx(ok["shd"].mean(), abs=1e-12)


def test_a_bad_value_is_the_clis_usage_error_as_a_value_error(tmp_path, registry):
    with pytest.raises(ValueError, match="unknown method"):
        causalarena.run(results=tmp_path / "r", methods=["nope"], registry=registry)
    with pytest.raises(FileNotFoundError, match="no result store"):
        causalarena.open(tmp_path / "empty")


def test_a_jsonl_sink_sees_every_stored_cell_and_cannot_change_them(tmp_path, registry):
    sink = JsonLinesSink(tmp_path / "runs.jsonl")
    reg = get_registry(strict=False, extra_plugins=[_Toys(), sink])
    res = causalarena.run(results=tmp_path / "r", families=["toy"], methods=["chain", "raises"], replicates=1,
                          registry=reg)
    lines = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert len(lines) == 8 and sink.events == [("start", 8), ("end", res.counts)]
    assert sorted(x["status"] for x in lines) == sorted(["ok"] * 2 + ["failed"] * 2 + ["unsupported"] * 4)
    # the sink's attempt to rewrite a record raised (read-only mapping), was reported, and changed nothing
    assert sorted(res.runs["status"]) == sorted(x["status"] for x in lines)


class OptionSink:
    """A sink configured on the command line: `arena run --jsonl PATH` (its own option, arena_addoption)."""

    __distribution__ = "arena-test-option-sink"

    @hookimpl
    def arena_addoption(self, command, parser):
        if command == "run":
            parser.add_argument("--jsonl", default=None, help="write every stored cell to this JSON-lines file")

    @hookimpl
    def arena_cell_stored(self, run, record):
        if run["options"]["jsonl"]:
            with open(run["options"]["jsonl"], "a") as fh:
                fh.write(json.dumps({"method": record["method"], "status": record["status"]}) + "\n")


def test_a_sink_takes_its_destination_from_its_own_option_of_arena_run(tmp_path, registry, capsys):
    reg = get_registry(strict=False, extra_plugins=[_Toys(), OptionSink()])
    out = tmp_path / "cells.jsonl"
    argv = ["run", "--results", str(tmp_path / "r"), "--families", "toy", "--methods", "chain", "--replicates", "1",
            "--no-progress", "--isolation", "none", "--jobs", "1", "--no-extensions", "--jsonl", str(out)]
    assert main(argv, registry=reg) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(x["status"] for x in lines) == ["ok", "ok", "unsupported", "unsupported"]
