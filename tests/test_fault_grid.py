"""A smaller fault-injection grid (tests/benchmarks/fault_grid.py; issue 12, "Done when").

Two instances × every fault of the grid (raise, segfault, os._exit, hang,
setsid children that hang / crash / outlive a healthy fit, stdin readers
followed by healthy cells of the same worker, memory at once and gradually,
NaN / cycle / wrong-shape output) beside healthy methods; the runner is
SIGKILLed once 10 cells are stored and the grid resumed. Every stored status
must match the grid's table, and no process carrying the grid's marker
(worker or child) may remain, after the kill or at the end.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))

import fault_grid  # noqa: E402


@pytest.mark.slow
def test_fault_grid_statuses_are_right_and_nothing_is_left_running(tmp_path):
    res = fault_grid.check(n_instances=2, jobs=2, budget_s=3.0, memory_mb=500.0, sigkill_after=10,
                           workdir=str(tmp_path))
    assert res["cells"] == 2 * len(fault_grid.METHODS)
    assert res["faults"] >= 0.2 * res["cells"]
    assert res["stored_at_kill"] >= 10
    assert res["leftovers_after_kill"] == []
    assert res["problems"] == []
    assert res["leftovers"] == []
