"""One list of statuses (causalarena.records.Status) through runner, store, report and progress bar."""

from __future__ import annotations

import ast
import inspect

import pytest
from fault_methods import TESTS_DIR, ChainInstance, info

import causalarena.progress as progress
import causalarena.report as report
import causalarena.runner as runner
import causalarena.runs as runs
import causalarena.store as store
import causalarena.worker as worker
from causalarena.plugins import get_registry
from causalarena.records import FAILURE_STATUSES, STATUSES, Status
from causalarena.runner import count_failures, make_cells, run_grid
from causalarena.store import Store

ENV = {"PYTHONPATH": TESTS_DIR}


def test_the_modules_share_the_records_lists():
    assert report.STATUSES is STATUSES and report.FAILURE_STATUSES is FAILURE_STATUSES
    assert store.STATUSES is STATUSES
    assert progress.FAILURE_STATUSES is FAILURE_STATUSES
    assert "env_error" in FAILURE_STATUSES
    assert set(STATUSES) - set(FAILURE_STATUSES) == {"ok", "unsupported"}


def test_count_failures_counts_env_error_not_unsupported():
    counts = {"ok": 5, "unsupported": 3, "env_error": 2, "failed": 1, "timeout": 1, "oom": 1,
              "invalid_input": 1, "invalid_output": 1}
    assert count_failures(counts) == 7
    assert count_failures({"ok": 4, "unsupported": 4}) == 0
    bar = runner._Progress(3, enabled=False)
    for status in ("env_error", Status.UNSUPPORTED, "ok"):
        bar.advance(status)
    assert bar.failures == 1


def test_progress_prints_plain_lines_when_stdout_is_not_a_terminal(capsys):
    """A redirected log gets progress lines as cells finish (rich's live bar would draw only at the end)."""
    clock = iter([100.0, 110.0, 125.0, 160.0, 200.0])  # start, then one reading per advance / stop
    bar = runner._Progress(4, enabled=True, log_every_s=20.0, clock=lambda: next(clock))
    assert bar.lines  # pytest's captured stdout is not a terminal
    for status in ("ok", "failed", "ok", "ok"):
        bar.advance(status)
    bar.stop()
    # 10 s after the start: under 20 s, no line; 25 s: a line; 60 s: a line; the last cell: only stop's line
    assert capsys.readouterr().out.splitlines() == [
        "cells 2/4 (50%), failures 1, elapsed 0:00:25, ETA 0:00:25",
        "cells 3/4 (75%), failures 1, elapsed 0:01:00, ETA 0:00:20",
        "cells 4/4 (100%), failures 1, elapsed 0:01:40, ETA 0:00:00",
    ]


def test_the_eta_waits_for_every_method_group_then_weighs_each_by_its_own_cell_time(capsys):
    """Fast methods finish first: the overall rate said "ETA 0:00:53" at 36 % with 9 minutes left."""
    clock = iter([0.0, 1.0, 2.0, 3.0, 4.0, 64.0, 65.0])  # start, then one reading per advance / stop
    bar = runner._Progress(6, enabled=True, log_every_s=0.0, clock=lambda: next(clock),
                           groups={"fast": 3, "slow": 3}, jobs=2)
    bar.advance("ok", "fast", 0.5)
    bar.advance("ok", "fast", 0.5)
    bar.advance("ok", "fast", 0.5)
    bar.advance("ok", "slow", 60.0)
    bar.advance("ok", "slow", 60.0)
    bar.stop()
    assert capsys.readouterr().out.splitlines() == [
        "cells 1/6 (16%), failures 0, elapsed 0:00:01, ETA estimating (1 of 2 methods have no finished cell yet)",
        "cells 2/6 (33%), failures 0, elapsed 0:00:02, ETA estimating (1 of 2 methods have no finished cell yet)",
        "cells 3/6 (50%), failures 0, elapsed 0:00:03, ETA estimating (1 of 2 methods have no finished cell yet)",
        # 2 slow cells left × 60 s / 2 jobs
        "cells 4/6 (66%), failures 0, elapsed 0:00:04, ETA 0:01:00",
        "cells 5/6 (83%), failures 0, elapsed 0:01:04, ETA 0:00:30",
        "cells 5/6 (83%), failures 0, elapsed 0:01:05, ETA 0:00:30",
    ]


def test_an_env_error_method_shows_in_the_progress_and_summary_failure_count(tmp_path, monkeypatch):
    """needs_r raises MethodEnvironmentError in fit (env_error), raises a plain error (failed)."""
    bars = []

    class Recording(runner._Progress):
        def __init__(self, total, enabled, **kw):
            super().__init__(total, enabled, **kw)
            bars.append(self)

    monkeypatch.setattr(runner, "_Progress", Recording)
    inst = ChainInstance("chain-env", splits=("obs", "obs_int"), n_replicates=1)
    cells = make_cells([inst], [info("chain", "Chain"), info("needs_r", "NeedsR"), info("raises", "Raises")])
    with Store(str(tmp_path / "r.sqlite")) as st:
        summary = run_grid(cells, get_registry(), st, env=ENV, progress=True)
        statuses = {(r.method, r.split): r.status for r in st.records()}
    assert statuses == {("chain", "obs"): Status.OK, ("needs_r", "obs"): Status.ENV_ERROR,
                        ("raises", "obs"): Status.FAILED, ("chain", "obs_int"): Status.UNSUPPORTED,
                        ("needs_r", "obs_int"): Status.UNSUPPORTED, ("raises", "obs_int"): Status.UNSUPPORTED}
    assert summary.counts == {"ok": 1, "env_error": 1, "failed": 1, "unsupported": 3}
    assert all(type(k) is str for k in summary.counts)  # plain text keys (cli prints them)
    assert summary.failures == 2
    assert len(bars) == 1 and bars[0].failures == 2


# -- meta-tests over the source --------------------------------------------------------------------

STATUS_MODULES = [runner, store, report, runs]


def _docstring_nodes(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _strings(node):
    """String constants of ``node`` if it is one or a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _mentions_status(node):
    return "status" in ast.unparse(node).lower()


def status_literals(source):
    """(line, literal) of every string literal the Python ``source`` uses as a status.

    A status context: a ``status=`` keyword, a ``"status"`` dict entry, an
    assignment to a name / item / attribute spelled with "status", or a
    comparison with an expression spelled with "status".
    """
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "status":
            found += [(node.value.lineno, s) for s in _strings(node.value)]
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "status":
                    found += [(v.lineno, s) for s in _strings(v)]
        elif isinstance(node, ast.Assign) and any(_mentions_status(t) for t in node.targets):
            found += [(node.lineno, s) for s in _strings(node.value)]
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_mentions_status(o) for o in operands):
                for o in operands:
                    found += [(o.lineno, s) for s in _strings(o)]
    return found


@pytest.mark.parametrize("module", STATUS_MODULES + [worker], ids=lambda m: m.__name__)
def test_every_status_literal_is_a_status_member(module):
    allowed = set(STATUSES)
    if module is worker:
        allowed.add(worker.PROTOCOL_ERROR)  # a protocol answer to a malformed request, no run
    if module is store:
        allowed.add(store.COLUMNS["status"])  # the SQL type in the schema {"status": "TEXT NOT NULL"}
    # the dict key "status" itself appears in comparisons like resp.get("status"): not a value
    bad = [(line, s) for line, s in status_literals(inspect.getsource(module))
           if s not in allowed and s != "status"]
    assert bad == [], f"{module.__name__}: status literals outside Status: {bad}"


def test_the_scanner_finds_status_literals():
    # a scanner that finds nothing would pass everything
    src = ("def f(row, resp, rec):\n"
           "    row.update(status='crashed')\n"
           "    rec.status = 'gone'\n"
           "    out = {'status': 'lost', 'error': 'x'}\n"
           "    return resp['status'] == 'okay' or resp.get('status') in ('fine', 'ok')\n")
    assert sorted(s for _, s in status_literals(src) if s != "status") == [
        "crashed", "fine", "gone", "lost", "ok", "okay"]


@pytest.mark.parametrize("module", STATUS_MODULES, ids=lambda m: m.__name__)
def test_runner_store_report_spell_statuses_through_the_enum(module):
    """No bare ``"ok"`` / ``"env_error"`` … in code (docstrings aside): one list, in records.py."""
    tree = ast.parse(inspect.getsource(module))
    docs = _docstring_nodes(tree)
    bare = sorted({(n.lineno, n.value) for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in STATUSES
                   and id(n) not in docs})
    assert bare == [], f"{module.__name__} spells statuses as string literals: {bare}"
