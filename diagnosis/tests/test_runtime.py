"""Load vs per-graph time (paper §5.5, Tables 4 and 5; the ``runtime`` analysis): known answers, CLI.

Moved with :mod:`arena_diagnosis.runtime` from the core (issue 22); the runner's worker columns are tested
in the core (``core/tests/test_report.py``).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from arena_diagnosis.runtime import runtime_points, runtime_ranking, runtime_table
from causalarena.cli import main
from causalarena.store import Store

OLD_STORE = ("this results folder has no worker_id/worker_seq columns (stored by causal-arena < 0.4); "
             "rerun to measure runtime")


def worker_rows(worker, walls, start=0.5, load=1.5, method="m", d=10, statuses=None, seqs=None):
    """The rows of one worker: the i-th cell is its i-th fit (``worker_seq`` = i unless given)."""
    statuses = statuses or ["ok"] * len(walls)
    seqs = seqs or list(range(1, len(walls) + 1))
    return [{"family": "synthetic", "scm_id": f"{worker}-{i}", "split": "obs", "replicate": 0,
             "method": method, "status": status, "wall_seconds": wall, "fit_seconds": wall,
             "error": None if status == "ok" else "boom", "start_seconds": start, "load_seconds": load,
             "worker_id": worker, "worker_seq": seq, "d": d}
            for i, (wall, status, seq) in enumerate(zip(walls, statuses, seqs))]


def frame(*workers):
    return pd.DataFrame([row for rows in workers for row in rows])


def only(table, **where):
    sel = table
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, table
    return sel.iloc[0]


def test_constant_walls_give_exact_fixed_and_per_graph_time():
    """start 0.5 + load 1.5, every wall 0.25 → T(k) = 2 + 0.25 k exactly."""
    runs = frame(worker_rows("w1", [0.25] * 8))
    points = runtime_points(runs)
    assert points["k"].tolist() == list(range(1, 9))
    assert points["t_cum_s"].tolist() == pytest.approx([2.0 + 0.25 * k for k in range(1, 9)])
    row = only(runtime_table(runs), method="m", d=10)
    assert row["t_fixed_s"] == pytest.approx(2.0, abs=1e-12)
    assert row["t_graph_s"] == pytest.approx(0.25, abs=1e-12)
    assert row["r2"] == pytest.approx(1.0, abs=1e-12)
    assert (row["n_workers"], row["k_max"], row["n_points"]) == (1, 8, 8)
    assert (row["start_s"], row["load_s"]) == (0.5, 1.5)
    assert row["flag"] == ""


def test_two_workers_balanced_with_different_loads():
    """Fixed costs 2.0 and 4.0, walls 0.25, k = 1..3 each. By hand: x̄ = 2, ȳ = 3.5, slope 0.25,
    intercept 3.0; residuals ∓1 → SS_res = 6, SS_tot = 6.25, R² = 0.04 (flagged < 0.9)."""
    runs = frame(worker_rows("a", [0.25] * 3, load=1.5), worker_rows("b", [0.25] * 3, load=3.5))
    row = only(runtime_table(runs))
    assert row["t_fixed_s"] == pytest.approx(3.0)
    assert row["t_graph_s"] == pytest.approx(0.25)
    assert row["r2"] == pytest.approx(0.04)
    assert (row["n_workers"], row["k_max"], row["n_points"]) == (2, 3, 6)
    assert row["load_s"] == pytest.approx(2.5)
    assert "R² < 0.9" in row["flag"]


def test_two_workers_unbalanced_pooled_ols():
    """Worker a (fixed 2.0) fits 3 graphs, worker b (fixed 4.0) one; walls 0.25.
    Points (1, 2.25) (2, 2.5) (3, 2.75) (1, 4.25): Sxx = 11/4, Sxy = -13/16, SS_tot = 155/64
    → slope -13/44, intercept 38/11, R² = 169/1705 (the pooled fit is tilted: flagged)."""
    runs = frame(worker_rows("a", [0.25] * 3, load=1.5), worker_rows("b", [0.25], load=3.5))
    row = only(runtime_table(runs))
    assert row["t_graph_s"] == pytest.approx(-13 / 44)
    assert row["t_fixed_s"] == pytest.approx(38 / 11)
    assert row["r2"] == pytest.approx(169 / 1705)
    assert "T_graph < 0" in row["flag"] and "R² < 0.9" in row["flag"]


def test_one_graph_per_worker_leaves_fit_undefined():
    runs = frame(worker_rows("a", [0.25]), worker_rows("b", [0.5], load=2.0))
    row = only(runtime_table(runs))
    assert row["k_max"] == 1 and row["n_workers"] == 2
    assert math.isnan(row["r2"]) and math.isnan(row["t_graph_s"]) and math.isnan(row["t_fixed_s"])
    assert "K < 2" in row["flag"] and "R² undefined" in row["flag"]


def test_failed_cells_skip_and_prefix():
    """Walls 0.25 except a failed 5.0 s fit at seq 3: skip keeps the 4 ok fits (T = 2 + 0.25 k),
    prefix keeps seq 1-2 only."""
    runs = frame(worker_rows("w", [0.25, 0.25, 5.0, 0.25, 0.25],
                             statuses=["ok", "ok", "failed", "ok", "ok"]))
    row = only(runtime_table(runs))
    assert (row["k_max"], row["n_excluded"]) == (4, 1)
    assert row["t_fixed_s"] == pytest.approx(2.0) and row["t_graph_s"] == pytest.approx(0.25)
    assert row["r2"] == pytest.approx(1.0)
    assert "1 non-ok cell(s) left out" in row["flag"]
    assert runtime_points(runs)["worker_seq"].tolist() == [1, 2, 4, 5]

    pre = only(runtime_table(runs, failures="prefix"))
    assert (pre["k_max"], pre["n_excluded"]) == (2, 3)
    assert pre["t_fixed_s"] == pytest.approx(2.0) and pre["t_graph_s"] == pytest.approx(0.25)
    # a missing worker_seq (the cell was rerun by another worker) also ends the prefix
    gap = frame(worker_rows("w", [0.25] * 3, seqs=[1, 2, 4]))
    assert only(runtime_table(gap, failures="prefix"))["k_max"] == 2
    assert only(runtime_table(gap))["k_max"] == 3
    with pytest.raises(ValueError, match="failures must be one of"):
        runtime_table(runs, failures="ignore")


def test_only_failures_give_no_row_and_rows_without_worker_are_counted():
    runs = frame(worker_rows("w", [0.25] * 2, statuses=["failed", "timeout"]),
                 worker_rows("v", [0.25] * 3))
    table = runtime_table(runs)
    assert len(table) == 1 and table["k_max"].iloc[0] == 3 and table["n_excluded"].iloc[0] == 2
    orphan = frame(worker_rows("v", [0.25] * 3), worker_rows(None, [0.25]))
    row = only(runtime_table(orphan))
    assert row["n_no_worker"] == 1 and row["n_points"] == 3


def test_groups_by_method_and_d_and_ranks_per_graph():
    """A worker serving two d contributes each d's cells to its own fit (its load to both)."""
    mixed = worker_rows("w", [0.25, 1.0, 0.25, 1.0, 0.25], method="slow")
    for row, d in zip(mixed, [10, 50, 10, 50, 10]):
        row["d"] = d
    runs = frame(mixed, worker_rows("f", [0.1] * 3, method="fast", d=10, load=10.0),
                 worker_rows("g", [0.2] * 2, method="fast", d=50, load=10.0))
    table = runtime_table(runs)
    slow10 = only(table, method="slow", d=10)
    slow50 = only(table, method="slow", d=50)
    assert slow10["t_graph_s"] == pytest.approx(0.25) and slow10["t_fixed_s"] == pytest.approx(2.0)
    assert slow50["t_graph_s"] == pytest.approx(1.0) and slow50["t_fixed_s"] == pytest.approx(2.0)
    assert only(table, method="fast", d=10)["rank"] == 1 and slow10["rank"] == 2
    ranking = runtime_ranking(table)
    assert ranking["method"].tolist() == ["fast", "slow"] and (ranking["d"] == 50).all()
    assert ranking["t_graph_s"].tolist() == pytest.approx([0.2, 1.0])
    assert ranking["t_fixed_s"].tolist() == pytest.approx([10.5, 2.0])
    assert ranking["t_graph_mean_s"].tolist() == pytest.approx([0.15, 0.625])
    assert ranking["d_values"].tolist() == ["10,50", "10,50"]


def test_missing_worker_columns_raise_named_error():
    runs = frame(worker_rows("w", [0.25] * 3)).drop(columns=["worker_id", "worker_seq"])
    with pytest.raises(ValueError) as err:
        runtime_table(runs)
    assert OLD_STORE in str(err.value) and "worker_id" in str(err.value)
    # an older store read by the current Store: the columns exist but are NULL
    old = frame(worker_rows(None, [0.25] * 3, seqs=[None] * 3))
    with pytest.raises(ValueError, match="causal-arena < 0.4"):
        runtime_table(old)


def _store_with(path, rows):
    with Store(str(path / "arena.sqlite")) as store:
        for i, row in enumerate(rows):
            # metrics: `arena report --runtime` prints the leaderboard too (the runtime analysis is arena-diagnosis's)
            store.record({"metrics": {"f1": 0.5, "shd": 1.0}, **row, "config_hash": "h", "replicate": i})


def test_cli_report_runtime_prints_and_writes_csv(tmp_path, capsys):
    _store_with(tmp_path, worker_rows("a", [0.25] * 5, method="quick")
                + worker_rows("b", [0.25] * 2, load=3.5, method="lumpy"))
    assert main(["report", "--results", str(tmp_path), "--runtime"]) == 0
    out = capsys.readouterr().out
    assert "T(k) = T_fixed + k·T_graph" in out and "Per-graph ranking at d = 10" in out
    assert "quick" in out and "2.000" in out and "0.250" in out and "1.0000" in out
    written = pd.read_csv(tmp_path / "runtime.csv")
    assert set(written["method"]) == {"quick", "lumpy"}
    quick = only(written, method="quick")
    assert quick["t_fixed_s"] == pytest.approx(2.0) and quick["t_graph_s"] == pytest.approx(0.25)
    assert {"method", "d", "n_workers", "k_max", "t_fixed_s", "t_graph_s", "r2", "flag"} <= set(written.columns)
    # --runtime runs the runtime analysis alone: the core's leaderboard files, no other analysis's table
    assert (tmp_path / "leaderboard.csv").exists() and not (tmp_path / "tables" / "slices.csv").exists()
    assert "Load and per-graph time" in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_cli_report_runtime_on_old_store(tmp_path, capsys):
    _store_with(tmp_path, worker_rows(None, [0.25] * 3, seqs=[None] * 3))
    assert main(["report", "--results", str(tmp_path), "--runtime"]) == 2
    assert OLD_STORE in capsys.readouterr().err
    assert not (tmp_path / "runtime.csv").exists()


def test_negative_intercept_is_flagged():
    # start + load = 0, walls 0.1, 0.1, 10 → T(k) = 0.1, 0.2, 10.2: slope 10.1/2 = 5.05, intercept 3.5 − 2·5.05 = −6.6
    table = runtime_table(frame(worker_rows("w1", [0.1, 0.1, 10.0], start=0.0, load=0.0)))
    row = only(table, method="m", d=10)
    assert row["t_graph_s"] == pytest.approx(5.05) and row["t_fixed_s"] == pytest.approx(-6.6)
    assert "T_fixed < 0: per-graph times vary across graphs; read T_graph only" in row["flag"]


def test_runtime_on_an_effect_only_store_or_with_analyses_is_refused_before_any_file():
    """The fit is a discovery analysis: `arena report --runtime` on effect runs only says so (exit 2 in the CLI)."""
    from arena_diagnosis.report import check_options

    effect = frame(worker_rows("w", [0.1, 0.2])).assign(task="effect")
    with pytest.raises(ValueError, match="this store holds only effect runs"):
        check_options({"runtime": True}, effect)
    with pytest.raises(ValueError, match="--runtime runs the runtime analysis alone"):
        check_options({"runtime": True, "analyses": ["slices"]}, frame(worker_rows("w", [0.1])))
    check_options({"runtime": True}, frame(worker_rows("w", [0.1])))  # a store with worker timing: fine
