"""The executor seam of the runner (hook ``arena_executors``; ``arena run --cluster``), core alone.

An in-process executor stands in for a cluster: it runs each cell through the
store-less runner copy ``make_runner()`` builds (after a pickle round trip, as
a cluster would ship it) and hands the results back; the client stores them.
"""

from __future__ import annotations

import pickle
import threading
import types

from fault_methods import TESTS_DIR, ChainInstance, info

from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import ExecutorInfo
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

ENV = {"PYTHONPATH": TESTS_DIR}


class ThreadExecutor:
    """Runs cells in two threads of this process, each with its own slot (its warm worker)."""

    def __init__(self, answer_twice=(), give_up=()):
        self.answer_twice, self.give_up = set(answer_twice), set(give_up)
        self.seen = []

    def run(self, cells, make_runner, on_result, failed_record):
        make_runner = pickle.loads(pickle.dumps(make_runner))  # what a cluster ships must pickle
        runner = make_runner()
        assert runner.store is None
        lock = threading.Lock()
        queue = list(enumerate(cells))

        def drive():
            slot = {}
            try:
                while True:
                    with lock:
                        if not queue:
                            return
                        i, cell = queue.pop(0)
                    self.seen.append(cell.instance.scm_id)
                    if i in self.give_up:
                        on_result(i, failed_record(cell, "the cell killed 3 workers (test)"), None)
                        continue
                    row, kept = runner.execute_cell(cell, slot)
                    on_result(i, row, kept)
                    if i in self.answer_twice:  # a retried task whose first copy also answered
                        on_result(i, row, kept)
            finally:
                w = slot.pop("worker", None)
                if w is not None:
                    w.close()

        threads = [threading.Thread(target=drive) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        runner.close()


def _grid(tmp_path, name, executor=None):
    insts = [ChainInstance(f"chain-x{i}", splits=("obs",), n_replicates=2) for i in range(3)]
    cells = make_cells(insts, [info("chain", "Chain")])
    store = Store(str(tmp_path / f"{name}.sqlite"))
    summary = run_grid(cells, get_registry(), store, jobs=2, env=ENV, progress=False, executor=executor)
    return store, summary


def _metrics(store):
    return {(r["scm_id"], r["replicate"]): (r["status"], r["metrics"]) for r in store.rows()}


def test_an_executor_gives_the_stored_results_of_a_local_run(tmp_path):
    local, _ = _grid(tmp_path, "local")
    remote, summary = _grid(tmp_path, "remote", ThreadExecutor())
    assert summary.counts == {"ok": 6}
    assert _metrics(remote) == _metrics(local)
    assert len(_metrics(remote)) == 6
    assert remote.predictions_frame().shape[0] == 6  # predictions and truths came back with the runs


def test_a_cell_answered_twice_is_stored_once(tmp_path):
    store, summary = _grid(tmp_path, "twice", ThreadExecutor(answer_twice={0, 3}))
    assert summary.counts == {"ok": 6}
    assert len(store.rows()) == 6


def test_a_cell_given_up_is_failed_with_the_reason_and_resume_skips_the_rest(tmp_path):
    store, summary = _grid(tmp_path, "gaveup", ThreadExecutor(give_up={1}))
    assert summary.counts == {"ok": 5, "failed": 1}
    (bad,) = [r for r in store.rows() if r["status"] == "failed"]
    assert bad["error"] == "the cell killed 3 workers (test)" and bad["method"] == "chain"
    again = ThreadExecutor()
    insts = [ChainInstance(f"chain-x{i}", splits=("obs",), n_replicates=2) for i in range(3)]
    summary = run_grid(make_cells(insts, [info("chain", "Chain")]), get_registry(), store, env=ENV,
                       progress=False, executor=again, retry_statuses=("failed",))
    assert summary.counts == {"ok": 1} and summary.skipped == 5 and len(again.seen) == 1


def test_executors_come_through_their_hook():
    plugin = types.ModuleType("exec_plugin")

    def arena_executors():
        yield ExecutorInfo(name="threads", factory="test_executor:ThreadExecutor", help="in-process (test)")

    plugin.arena_executors = hookimpl(arena_executors)  # noqa: B010
    plugin.__distribution__ = "dist-exec"
    reg = get_registry(extra_plugins=[plugin])
    assert reg.executors["threads"].load() is ThreadExecutor
    assert reg.executors["threads"].description == "in-process (test)"


def test_cluster_options_need_cluster_and_no_executor_is_a_usage_error(tmp_path, capsys):
    from causalarena.cli import main

    assert main(["run", "--methods", "x", "--cluster-option", "cores=2", "--results", str(tmp_path / "r")]) == 2
    assert "need --cluster SPEC" in capsys.readouterr().err
