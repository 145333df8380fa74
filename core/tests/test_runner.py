"""The grid runner: statuses under injected faults, resume, SIGKILL, scoring."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest
from fault_methods import CHAIN, TESTS_DIR, ChainInstance, info, resume_grid, stored_runs

from causalarena.metrics import orient_cpdag
from causalarena.plugins import get_registry
from causalarena.runner import Cell, make_cells, run_grid
from causalarena.store import Store

ENV = {"PYTHONPATH": TESTS_DIR}


@pytest.fixture(scope="module")
def registry():
    return get_registry()


def by_key(store):
    return {(r["scm_id"], r["split"], r["replicate"], r["method"]): r for r in store.rows()}


FAULTS = [
    info("chain", "Chain"),
    info("reversed", "Reversed"),
    info("empty", "Empty"),
    info("raises", "Raises"),
    info("sleeps", "Sleeps", params={"seconds": 10.0}),
    info("exits", "Exits"),
    info("allocates", "AllocatesAtOnce", params={"mb": 2048}),
    info("nan", "ReturnsNaN"),
    info("cycle", "ReturnsCycle"),
    info("two_cycle", "ReturnsTwoCycle"),
    info("undirected", "UndirectedChain", output_kind="cpdag"),
    info("interventional", "Interventional", supports_interventions=True),
    info("no_truth", "NoTruth"),
]
EXPECTED = {"chain": "ok", "reversed": "ok", "empty": "ok", "raises": "failed", "sleeps": "timeout",
            "exits": "failed", "allocates": "oom", "nan": "invalid_output", "cycle": "invalid_output",
            "two_cycle": "invalid_output", "undirected": "ok", "interventional": "ok", "no_truth": "ok"}


def test_fault_grid_every_cell_present_with_its_status(tmp_path, registry):
    good = ChainInstance("chain-0", n_replicates=2)
    X = np.random.default_rng(0).normal(size=(50, 3))
    X[:, 1] = 1.0
    constant = ChainInstance("constant", X=X, splits=("obs",), n_replicates=1)
    cells = make_cells([good, constant], FAULTS)
    assert len(cells) == (2 * 2 + 1) * len(FAULTS)
    store = Store(str(tmp_path / "runs.sqlite"))
    summary = run_grid(cells, registry, store, jobs=2, budget_s=2.0, memory_mb=500, env=ENV,
                       progress=False)
    rows = by_key(store)
    assert len(rows) == len(cells) == summary.total and summary.skipped == 0
    for (scm, split, rep, method), r in rows.items():
        if scm == "constant":
            expected = "invalid_input"
        elif split == "obs_int" and method != "interventional":
            expected = "unsupported"
        else:
            expected = EXPECTED[method]
        assert r["status"] == expected, (scm, split, rep, method, r["error"])
        assert r["wall_seconds"] is not None
        if expected in ("failed", "timeout", "oom", "invalid_input", "invalid_output", "unsupported"):
            assert r["error"], (method, r)
            assert r["metrics"] == {}
    counts = summary.counts
    assert counts["timeout"] == 2 and counts["oom"] == 2 and counts["invalid_input"] == len(FAULTS)
    # specific statuses carry the right evidence
    r = rows[("chain-0", "obs", 0, "sleeps")]
    assert r["wall_seconds"] == 2.0 and "budget of 2 s" in r["error"]
    r = rows[("chain-0", "obs", 1, "allocates")]
    assert r["error"].startswith("MemoryError") and r["peak_rss_mb"] > 0
    assert rows[("chain-0", "obs", 0, "exits")]["error"].startswith("worker died during fit (exit code 1)")
    assert rows[("chain-0", "obs", 0, "raises")]["error"] == "ValueError: boom in fit: column 'X1' is weird"
    assert rows[("chain-0", "obs", 0, "cycle")]["error"] == "directed cycle in a promised DAG: X0 -> X1 -> X2 -> X0"
    assert rows[("chain-0", "obs", 0, "two_cycle")]["error"] == "2-cycles in a promised DAG: X0 <-> X1"
    assert rows[("chain-0", "obs", 0, "nan")]["error"] == "adjacency has 1 non-finite entries (first at (0, 2))"
    assert rows[("constant", "obs", 0, "chain")]["error"] == "constant (zero-variance) columns 'X1'"
    assert "does not support interventions" in rows[("chain-0", "obs_int", 0, "chain")]["error"]
    # scores: the chain is recovered exactly; its reversal has SHD 2 (case M3)
    ok = rows[("chain-0", "obs", 0, "chain")]
    assert ok["metrics"]["shd"] == 0.0 and ok["metrics"]["f1"] == 1.0 and ok["metrics"]["sid"] == 0.0
    rev = rows[("chain-0", "obs", 1, "reversed")]["metrics"]
    assert rev["shd"] == 2.0 and rev["sid"] == 6.0
    # the all-zero graph is scored but flagged (case I9)
    empty = rows[("chain-0", "obs", 0, "empty")]
    assert "degenerate_empty" in empty["flags"] and empty["metrics"]["shd"] == 2.0
    assert rows[("chain-0", "obs_int", 1, "interventional")]["metrics"]["shd"] == 0.0
    store.close()


def test_cpdag_orientation_uses_the_cell_seed(tmp_path, registry):
    inst = ChainInstance("chain-7", splits=("obs",), n_replicates=3)
    cells = make_cells([inst], [info("undirected", "UndirectedChain", output_kind="cpdag")])
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(cells, registry, store, env=ENV, progress=False)
    und = CHAIN | CHAIN.T
    from causalarena.metrics import shd

    for r in store.rows():
        dag = orient_cpdag(und, r["seed"])
        assert r["metrics"]["shd"] == shd(CHAIN, dag)
        assert r["seed"] == inst.dataset("obs", r["replicate"]).metadata["seed"]
        assert "oriented_undirected_edges" in r["flags"]


def test_resume_skips_stored_cells_and_builds_each_dataset_once(tmp_path, registry):
    inst = ChainInstance("chain-1", n_replicates=2)
    methods = [info("chain", "Chain"), info("reversed", "Reversed"),
               info("interventional", "Interventional", supports_interventions=True)]
    cells = make_cells([inst], methods)
    store = Store(str(tmp_path / "r.sqlite"))
    first = run_grid(cells[:5], registry, store, env=ENV, progress=False)
    assert first.skipped == 0 and sum(first.counts.values()) == 5
    before = {k: r["finished_at"] for k, r in by_key(store).items()}
    inst.built.clear()
    second = run_grid(cells + cells[:3], registry, store, env=ENV, progress=False)
    assert second.skipped == 5 + 3 and sum(second.counts.values()) == len(cells) - 5
    after = by_key(store)
    assert len(after) == len(cells)
    assert all(after[k]["finished_at"] == v for k, v in before.items())  # not rerun
    # each dataset is built once per run_grid and shared by all methods that need it
    assert sorted(inst.built) == [("obs", 0), ("obs", 1), ("obs_int", 0), ("obs_int", 1)]
    third = run_grid(cells, registry, store, env=ENV, progress=False, retry_statuses=("unsupported",))
    assert third.skipped == len(cells) - 4 and third.counts == {"unsupported": 4}


def test_worker_load_failure_is_recorded_per_cell(tmp_path, registry):
    inst = ChainInstance("chain-2", splits=("obs",), n_replicates=2)
    cells = make_cells([inst], [info("missing", "DoesNotExist"), info("chain", "Chain")])
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(cells, registry, store, env=ENV, progress=False)
    rows = by_key(store)
    for rep in (0, 1):
        r = rows[("chain-2", "obs", rep, "missing")]
        assert r["status"] == "failed" and "DoesNotExist" in r["error"]
        assert rows[("chain-2", "obs", rep, "chain")]["status"] == "ok"


def test_cells_accept_plain_tuples(tmp_path, registry):
    inst = ChainInstance("chain-3", splits=("obs",), n_replicates=1)
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid([Cell("toy", inst, "obs", 0, info("chain", "Chain"))], registry, store, env=ENV,
             progress=True)
    [row] = store.rows()
    assert row["status"] == "ok" and row["python"] == ".".join(map(str, sys.version_info[:3]))
    assert row["load_seconds"] > 0 and row["fit_seconds"] >= 0.0


SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from causalarena.plugins import get_registry
from causalarena.runner import run_grid
from causalarena.store import Store
from fault_methods import resume_grid
run_grid(resume_grid(), get_registry(), Store({db!r}), jobs=1, budget_s=5, env={{"PYTHONPATH": {tests!r},
         "ARENA_TEST_MARKER": {marker!r}}}, progress=False)
"""


def comparable(store):
    return {k: (r["status"], json.dumps(r["metrics"], sort_keys=True), r["error"], sorted(r["flags"]))
            for k, r in by_key(store).items()}


def test_sigkill_mid_grid_then_rerun_equals_uninterrupted(tmp_path, registry):
    import psutil

    cells = resume_grid()
    # uninterrupted reference, in process
    ref = Store(str(tmp_path / "ref.sqlite"))
    run_grid(cells, registry, ref, budget_s=5, env=ENV, progress=False)
    expected = comparable(ref)
    assert len(expected) == len(cells) == 60

    db = str(tmp_path / "killed.sqlite")
    marker = f"sigkill-{os.getpid()}-{time.time()}"
    script = SCRIPT.format(tests=TESTS_DIR, db=db, marker=marker)
    # TMPDIR: the killed runner cannot remove its dataset cache and worker logs; they go with tmp_path
    proc = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ, TMPDIR=str(tmp_path)))
    deadline = time.monotonic() + 60
    while stored_runs(db) < 4 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    stored = stored_runs(db)
    assert 4 <= stored < len(cells), stored  # killed mid-grid

    # orphaned workers notice their parent died and exit
    def orphans():
        found = []
        for p in psutil.process_iter(["cmdline"]):
            try:
                if "causalarena.worker" in " ".join(p.info["cmdline"] or []) and \
                        p.environ().get("ARENA_TEST_MARKER") == marker:
                    found.append(p.pid)
            except psutil.Error:
                pass
        return found

    deadline = time.monotonic() + 5
    while orphans() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert orphans() == []

    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    resumed = Store(db)
    assert comparable(resumed) == expected
    con = sqlite3.connect(db)
    n_rows, n_keys = con.execute(
        "SELECT COUNT(*), COUNT(DISTINCT family||scm_id||split||replicate||method||config_hash) FROM runs"
    ).fetchone()
    assert n_rows == n_keys == len(cells)


def test_a_store_failure_is_raised_not_swallowed(tmp_path, registry):
    inst = ChainInstance("chain-4", splits=("obs",), n_replicates=4)
    store = Store(str(tmp_path / "r.sqlite"))
    calls = []

    def broken(row, prediction=None, truth=None):
        calls.append(row)
        raise OSError("disk full")

    store.record = broken
    with pytest.raises(OSError, match="disk full"):
        run_grid(make_cells([inst], [info("chain", "Chain")]), registry, store, jobs=2, env=ENV,
                 progress=False)
    assert 1 <= len(calls) <= 2  # each thread stops at its first failure


def test_changed_graph_or_data_is_a_new_cell_not_a_stale_skip(tmp_path, registry):
    methods = [info("chain", "Chain")]
    store = Store(str(tmp_path / "r.sqlite"))
    first = run_grid(make_cells([ChainInstance("c", splits=("obs",), n_replicates=1)], methods),
                     registry, store, env=ENV, progress=False)
    assert first.counts == {"ok": 1}
    # same id, different published graph: must run and score against the new truth
    other_truth = np.zeros((3, 3), dtype=np.int8)
    other_truth[0, 2] = 1
    changed = ChainInstance("c", splits=("obs",), n_replicates=1, truth=other_truth)
    second = run_grid(make_cells([changed], methods), registry, store, env=ENV, progress=False)
    assert second.skipped == 0 and second.counts == {"ok": 1}
    rows = store.rows()
    assert len(rows) == 2 and len({r["config_hash"] for r in rows}) == 2
    assert sorted(r["metrics"]["shd"] for r in rows) == [0.0, 3.0]


def test_an_upgraded_method_is_rerun_not_skipped(tmp_path, registry):
    import attrs

    inst = ChainInstance("c", splits=("obs",), n_replicates=1)
    old = attrs.evolve(info("chain", "Chain"), distribution="arena-method-chain", version="0.1.0")
    store = Store(str(tmp_path / "r.sqlite"))
    assert run_grid(make_cells([inst], [old]), registry, store, env=ENV, progress=False).counts == {"ok": 1}
    same = run_grid(make_cells([inst], [old]), registry, store, env=ENV, progress=False)
    assert same.skipped == 1
    new = attrs.evolve(old, version="0.2.0")
    again = run_grid(make_cells([inst], [new]), registry, store, env=ENV, progress=False)
    assert again.skipped == 0 and again.counts == {"ok": 1}
