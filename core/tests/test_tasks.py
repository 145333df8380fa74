"""Tasks are plugins: a toy third task registered from a test plugin runs a grid through the one pipeline."""

from __future__ import annotations

import numpy as np
import pytest
from fault_methods import TESTS_DIR, ChainInstance, info

from causalarena.plugins import get_registry
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store
from causalarena.tasks import DiscoveryTask, Task

ENV = {"PYTHONPATH": TESTS_DIR}


class MeansInstance(ChainInstance):
    """The chain instance, serving the toy task."""

    task = "column_means"


@pytest.fixture()
def toy_registry(monkeypatch):
    monkeypatch.syspath_prepend(TESTS_DIR)
    import toy_task_plugin

    return get_registry(extra_plugins=[toy_task_plugin])


def test_a_task_from_a_plugin_runs_a_grid_without_touching_the_core(tmp_path, toy_registry):
    reg = toy_registry
    assert {"discovery", "column_means"} <= set(reg.tasks) and reg.tasks["column_means"].distribution == "<test>"
    methods = [reg.methods[m] for m in ("means", "off_by_one", "one_short")] + [info("chain", "Chain")]
    inst, chain = MeansInstance("m-0", n_replicates=1), ChainInstance("c-0", n_replicates=1)
    cells = make_cells([inst, chain], methods)
    # each method meets the instances of its own task only: 3 toy methods × 2 splits + chain × 2 splits
    assert sorted((c.method.name, c.instance.scm_id) for c in cells) == sorted(
        [(m, "m-0") for m in ("means", "off_by_one", "one_short") for _ in range(2)] + [("chain", "c-0")] * 2)
    with Store(str(tmp_path / "arena.sqlite")) as store:
        summary = run_grid(cells, reg, store, env=ENV, progress=False)
        rows = {(r.method, r.split): r for r in store.records()}
        kept = store.kept_frame("column_means", ("means",))
        missing = store.missing_predictions()
        again = run_grid(cells, reg, store, env=ENV, progress=False)
    # the chain method takes no interventions: its obs_int cell is unsupported (the discovery task's rule)
    assert summary.counts == {"ok": 5, "invalid_output": 2, "unsupported": 1} and again.skipped == len(cells) == 8
    # the exact means score 0; a shift of 1.0 on every column scores exactly 1.0
    assert rows[("means", "obs")].metrics == {"max_abs_error": pytest.approx(0.0, abs=1e-12)}
    assert rows[("off_by_one", "obs_int")].metrics == {"max_abs_error": pytest.approx(1.0, abs=1e-12)}
    assert rows[("one_short", "obs")].error == "expected 3 means, got shape (2,)"
    assert rows[("means", "obs")].task == "column_means" and rows[("chain", "obs")].task == "discovery"
    assert rows[("chain", "obs")].metrics["shd"] == 0.0  # the discovery cells of the same grid, unchanged
    # every ok toy run keeps its answer in the task's own table, in the run's transaction
    assert len(kept) == 4 and missing == 0
    first = kept[(kept["method"] == "off_by_one") & (kept["split"] == "obs")]["means"].iloc[0]
    assert first.shape == (3,) and np.all(np.isfinite(first))


def test_the_base_task_declares_the_pipeline_and_discovery_is_built_in():
    reg = get_registry()
    assert reg.tasks["discovery"].distribution == "causal-arena"
    assert isinstance(reg.task("discovery"), DiscoveryTask)
    with pytest.raises(NotImplementedError, match="does not define score"):
        Task().score(None, None, None, None, None, None)
    with pytest.raises(KeyError, match="task"):
        reg.task("column_means")


def test_a_second_discovery_task_is_a_duplicate_naming_both_distributions():
    from causalarena.hookspecs import hookimpl
    from causalarena.plugins import DuplicatePluginError
    from causalarena.records import TaskInfo

    class Again:
        __distribution__ = "arena-task-again"

        @hookimpl
        def arena_tasks(self):
            yield TaskInfo(name="discovery", factory="causalarena.tasks:DiscoveryTask")

    with pytest.raises(DuplicatePluginError, match="task name 'discovery' is provided by both causal-arena"):
        get_registry(extra_plugins=[Again()])
