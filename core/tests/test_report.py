"""Hand-computed leaderboard tests for causalarena.report (Table 2 layout)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from causalarena import report as R

NAN = math.nan


def _runs() -> pd.DataFrame:
    """Two methods × two families × two splits × two SCMs × two replicates.

    pc does not support interventions: its obs_int runs are "unsupported".
    """
    rows = []

    def add(method, family, split, scm, rep, status, f1=NAN, shd=NAN):
        rows.append({"family": family, "scm_id": scm, "split": split, "replicate": rep,
                     "method": method, "status": status,
                     "wall_seconds": 1.0 + rep, "fit_seconds": 0.5 + rep,
                     "error": None if status == "ok" else f"{status} in {method}",
                     "f1": f1, "shd": shd})

    # pc, synthetic obs: SCM means s1 (0.5, 11), s2 (0.3, 21)
    add("pc", "synthetic", "obs", "s1", 0, "ok", 0.4, 10)
    add("pc", "synthetic", "obs", "s1", 1, "ok", 0.6, 12)
    add("pc", "synthetic", "obs", "s2", 0, "ok", 0.2, 20)
    add("pc", "synthetic", "obs", "s2", 1, "ok", 0.4, 22)
    # pc, semantic obs: m1 (0.8, 2) from one ok + one timeout; m2 (0.6, 6)
    add("pc", "semantic", "obs", "m1", 0, "ok", 0.8, 2)
    add("pc", "semantic", "obs", "m1", 1, "timeout")
    add("pc", "semantic", "obs", "m2", 0, "ok", 0.6, 4)
    add("pc", "semantic", "obs", "m2", 1, "ok", 0.6, 8)
    for fam, scms in (("synthetic", ("s1", "s2")), ("semantic", ("m1", "m2"))):
        for scm in scms:
            for rep in (0, 1):
                add("pc", fam, "obs_int", scm, rep, "unsupported")
    # gies, synthetic obs: s1 (0.5, 8), s2 (0.7, 6)
    add("gies", "synthetic", "obs", "s1", 0, "ok", 0.5, 8)
    add("gies", "synthetic", "obs", "s1", 1, "ok", 0.5, 8)
    add("gies", "synthetic", "obs", "s2", 0, "ok", 0.7, 6)
    add("gies", "synthetic", "obs", "s2", 1, "ok", 0.7, 6)
    # gies, synthetic obs_int: s1 (0.8, 4); s2 failed + oom -> one SCM only
    add("gies", "synthetic", "obs_int", "s1", 0, "ok", 0.9, 3)
    add("gies", "synthetic", "obs_int", "s1", 1, "ok", 0.7, 5)
    add("gies", "synthetic", "obs_int", "s2", 0, "failed")
    add("gies", "synthetic", "obs_int", "s2", 1, "oom")
    # gies, semantic obs: m1 (1.0, 0), m2 (0.5, 3)
    add("gies", "semantic", "obs", "m1", 0, "ok", 1.0, 0)
    add("gies", "semantic", "obs", "m1", 1, "ok", 1.0, 0)
    add("gies", "semantic", "obs", "m2", 0, "ok", 0.5, 3)
    add("gies", "semantic", "obs", "m2", 1, "ok", 0.5, 3)
    # gies, semantic obs_int: every run timed out
    for scm in ("m1", "m2"):
        for rep in (0, 1):
            add("gies", "semantic", "obs_int", scm, rep, "timeout")
    return pd.DataFrame(rows)


COLUMNS = ["synthetic / obs", "synthetic / obs+int", "semantic / obs", "semantic / obs+int", "Avg"]


def test_leaderboard_strings_hand_computed():
    table = R.leaderboard(_runs())
    assert list(table.columns) == COLUMNS
    assert list(table.index) == ["pc", "gies"]
    # pc synthetic obs: F1 SCM means 0.5, 0.3 -> mean 0.40, sd sqrt(0.02)=0.141;
    # SHD 11, 21 -> 16.0, sd sqrt(50)=7.07
    assert table.loc["pc", "synthetic / obs"] == "0.40 (0.14) / 16.0 (7.1)"
    # unsupported cells
    assert table.loc["pc", "synthetic / obs+int"] == "–"
    assert table.loc["pc", "semantic / obs+int"] == "–"
    # one timeout: means over the 3 successes, SCM means (0.8, 2), (0.6, 6)
    # -> F1 0.70 (0.14), SHD 4.0 (sqrt(8) = 2.83)
    assert table.loc["pc", "semantic / obs"] == "0.70 (0.14) / 4.0 (2.8) ⚠1 (3/4 ok)"
    # Avg = unweighted mean of cell means, sd = mean of cell sds:
    # F1 (0.4 + 0.7)/2 = 0.55, sd 0.141; SHD (16 + 4)/2 = 10.0, sd (7.07+2.83)/2 = 4.95
    # and the failures behind it stay visible: 1 of the 8 attempted runs failed
    assert table.loc["pc", "Avg"] == "0.55 (0.14) / 10.0 (4.9) ⚠1 (7/8 ok)"

    assert table.loc["gies", "synthetic / obs"] == "0.60 (0.14) / 7.0 (1.4)"
    # one SCM left after a failure and an oom: sd undefined
    assert table.loc["gies", "synthetic / obs+int"] == "0.80 (–) / 4.0 (–) ⚠2 (2/4 ok)"
    assert table.loc["gies", "semantic / obs"] == "0.75 (0.35) / 1.5 (2.1)"
    assert table.loc["gies", "semantic / obs+int"] == "– ⚠4 (0/4 ok)"
    # F1 (0.6 + 0.8 + 0.75)/3 = 0.7167; sds (0.1414 + 0.3536)/2 = 0.2475
    # SHD (7 + 4 + 1.5)/3 = 4.1667; sds (1.4142 + 2.1213)/2 = 1.7678
    # failures: 2 (synthetic obs+int) + 4 (semantic obs+int, a cell left out of the mean) of 16 attempts
    assert table.loc["gies", "Avg"] == "0.72 (0.25) / 4.2 (1.8) ⚠6 (10/16 ok)"


def test_leaderboard_numeric_values():
    num = R.leaderboard_numeric(_runs())
    cell = num[(num.method == "pc") & (num.family == "semantic") & (num.split == "obs")].iloc[0]
    counts = (cell.n_runs, cell.n_ok, cell.n_failed, cell.n_unsupported, cell.n_scm)
    assert counts == (4, 3, 1, 0, 2)
    assert cell.f1_mean == pytest.approx(0.7)
    assert cell.f1_sd == pytest.approx(math.sqrt(0.02))
    assert cell.shd_mean == pytest.approx(4.0)
    assert cell.shd_sd == pytest.approx(math.sqrt(8))
    unsup = num[(num.method == "pc") & (num.column == "synthetic / obs+int")].iloc[0]
    assert unsup.n_unsupported == 4 and math.isnan(unsup.f1_mean)
    avg = num[(num.method == "gies") & (num.column == "Avg")].iloc[0]
    assert avg.f1_mean == pytest.approx((0.6 + 0.8 + 0.75) / 3)
    assert avg.shd_mean == pytest.approx((7 + 4 + 1.5) / 3)
    assert avg.shd_sd == pytest.approx((math.sqrt(2) + math.sqrt(4.5)) / 2)
    assert avg.n_failed == 6 and avg.n_ok == 10  # 4 + 2 + 4 + 0


def test_failure_table_counts():
    ft = R.failure_table(_runs())
    assert list(ft.columns) == ["method", "family", "split", *R.STATUSES, "total", "example_error"]
    row = ft[(ft.method == "gies") & (ft.family == "synthetic") & (ft.split == "obs_int")].iloc[0]
    assert (row.ok, row.failed, row.oom, row.timeout, row.total) == (2, 1, 1, 0, 4)
    row = ft[(ft.method == "pc") & (ft.family == "semantic") & (ft.split == "obs")].iloc[0]
    assert (row.ok, row.timeout, row.unsupported) == (3, 1, 0)
    assert int(ft["total"].sum()) == len(_runs())


def test_bad_runs_named():
    runs = _runs()
    with pytest.raises(ValueError, match="missing column.*'status'"):
        R.leaderboard(runs.drop(columns=["status"]))
    with pytest.raises(ValueError, match="no metric column.*'sid'"):
        R.leaderboard(runs, metrics=("f1", "sid"))
    bad = runs.copy()
    bad.loc[3, "status"] = "crashed"
    with pytest.raises(ValueError, match=r"unknown status value\(s\) \['crashed'\] \(rows \[3\]\)"):
        R.leaderboard(bad)


def test_to_markdown_layout():
    md = R.to_markdown(R.leaderboard(_runs()))
    lines = md.strip().splitlines()
    assert lines[0] == "| method | " + " | ".join(COLUMNS) + " |"
    assert lines[1] == "|---|---|---|---|---|---|"
    assert lines[2].startswith("| pc | 0.40 (0.14) / 16.0 (7.1) | – |")
    assert R.to_markdown(pd.DataFrame({"a": ["x|y"]}), index=False).splitlines()[2] == "| x\\|y |"


def test_write_report_and_parquet_round_trip(tmp_path):
    runs = _runs()
    paths = R.write_report(runs, tmp_path / "out")
    assert set(paths) == {"leaderboard.csv", "leaderboard.parquet", "runs.parquet",
                          "failures.csv", "leaderboard.md"}
    assert all(p.exists() for p in paths.values())
    back = pd.read_parquet(paths["runs.parquet"])
    pd.testing.assert_frame_equal(back, runs, check_dtype=False)
    num = pd.read_parquet(paths["leaderboard.parquet"])
    pd.testing.assert_frame_equal(num, R.leaderboard_numeric(runs), check_dtype=False)
    csv = pd.read_csv(paths["leaderboard.csv"])
    assert csv.loc[(csv.method == "pc") & (csv.column == "Avg"), "shd_mean"].item() == 10.0
    md = paths["leaderboard.md"].read_text(encoding="utf-8")
    assert "| gies | 0.60 (0.14) / 7.0 (1.4) | 0.80 (–) / 4.0 (–) ⚠2 (2/4 ok) |" in md


def test_write_report_without_a_usable_pyarrow_keeps_csv_and_markdown(tmp_path, monkeypatch):
    # pyarrow 26 on numpy 1.x: "ImportError: pyarrow requires NumPy 2.0 or newer, found 1.24.4"
    def refuse(self, *args, **kwargs):
        raise ImportError("pyarrow requires NumPy 2.0 or newer, found 1.24.4")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", refuse)
    runs = _runs()
    with pytest.warns(R.ReportWarning) as caught:
        paths = R.write_report(runs, tmp_path / "out")
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, R.ReportWarning))
    assert [m.split(" ")[0] for m in messages] == ["leaderboard.parquet", "runs.parquet"]
    assert all("not written: pandas cannot use pyarrow here (pyarrow requires NumPy 2.0 or newer, "
               "found 1.24.4)" in m and "install pyarrow<26" in m for m in messages)
    assert set(paths) == {"leaderboard.csv", "failures.csv", "leaderboard.md"}
    assert not (tmp_path / "out" / "runs.parquet").exists()
    csv = pd.read_csv(paths["leaderboard.csv"])
    assert csv.loc[(csv.method == "pc") & (csv.column == "Avg"), "shd_mean"].item() == 10.0
    assert "| gies | 0.60 (0.14) / 7.0 (1.4) |" in paths["leaderboard.md"].read_text(encoding="utf-8")


def test_print_report_rich():
    from rich.console import Console

    console = Console(record=True, width=250)
    R.print_report(_runs(), console=console)
    text = console.export_text()
    assert "0.40 (0.14) / 16.0 (7.1)" in text
    assert "0.72 (0.25) / 4.2 (1.8)" in text
    assert "Failed runs" in text


def test_a_grid_where_nothing_succeeded_still_gets_its_tables():
    runs = pd.DataFrame({"family": ["real"] * 2, "scm_id": ["t"] * 2, "split": ["obs"] * 2,
                         "replicate": [0, 0], "method": ["pc", "ges"],
                         "status": ["invalid_input", "timeout"], "wall_seconds": [0.0, 2.0],
                         "fit_seconds": [None, None], "error": ["constant column 'k'", "budget"]})
    table = R.leaderboard(runs)
    assert table.loc["pc", "real / obs"] == "– ⚠1 (0/1 ok)"
    ft = R.failure_table(runs)
    assert ft.set_index("method").loc["ges", "timeout"] == 1


def test_configurations_are_never_pooled():
    rows = []
    for cfg, standardise, f1 in (("aaaa11", True, 0.2), ("bbbb22", False, 0.6)):
        for scm in ("s1", "s2"):
            rows.append({"family": "synthetic", "scm_id": scm, "split": "obs", "replicate": 0,
                         "method": "sortnregress", "status": "ok", "wall_seconds": 1.0, "fit_seconds": 1.0,
                         "error": None, "f1": f1, "shd": 3.0, "config_hash": cfg, "standardise": standardise,
                         "protocol": "default", "n": None})
    table = R.leaderboard(pd.DataFrame(rows))
    assert list(table.index) == ["sortnregress [std]", "sortnregress [raw]"]
    assert table.loc["sortnregress [raw]", "synthetic / obs"] == "0.60 (0.00) / 3.0 (0.0)"
    assert table.loc["sortnregress [std]", "synthetic / obs"] == "0.20 (0.00) / 3.0 (0.0)"


def test_a_cell_stored_under_two_data_fingerprints_counts_once_latest_wins():
    base = {"family": "real", "scm_id": "t", "split": "obs", "replicate": 0, "method": "pc", "status": "ok",
            "wall_seconds": 1.0, "fit_seconds": 1.0, "error": None, "standardise": True,
            "protocol": "default", "params": "{}"}
    runs = pd.DataFrame([{**base, "f1": 0.75, "shd": 1.0, "config_hash": "old", "finished_at": "2026-11-30T10:00"},
                         {**base, "f1": 0.25, "shd": 5.0, "config_hash": "new", "finished_at": "2026-11-30T11:00"}])
    numeric = R.leaderboard_numeric(runs)
    cell = numeric[numeric["column"] == "real / obs"].iloc[0]
    assert (cell["n_runs"], cell["f1_mean"], cell["shd_mean"]) == (1, 0.25, 5.0)


def test_n_override_runs_are_separate_leaderboard_rows():
    rows = [dict(family="f", scm_id="s", split="obs", replicate=0, method="pc", status="ok", f1=f1, shd=1.0,
                 standardise=True, protocol="default", params="{}", n_override=n)
            for n, f1 in ((100, 0.2), (1000, 0.8))]
    table = R.leaderboard_numeric(pd.DataFrame(rows), ("f1",))
    assert set(table["method"]) == {"pc [n=100]", "pc [n=1000]"}


def test_printed_leaderboard_keeps_configuration_labels():
    """"pc [raw]" must not be swallowed as rich markup (it was: both rows printed as "pc")."""
    from rich.console import Console

    runs = pd.DataFrame([dict(family="f", scm_id="s", split="obs", replicate=0, method="pc", status="ok", f1=f1,
                              shd=1.0, standardise=std, protocol="default", params="{}")
                         for std, f1 in ((True, 0.5), (False, 0.9))])
    console = Console(record=True, width=250)
    R.print_report(runs, console=console, metrics=("f1",))
    text = console.export_text()
    assert "pc [raw]" in text and "pc [std]" in text


def test_failure_table_says_why():
    runs = pd.DataFrame([dict(family="f", scm_id=f"s{i}", split="obs", replicate=0, method="pc", status=st,
                              error=err) for i, (st, err) in enumerate(
        [("ok", None), ("invalid_output", "directed cycle in a promised CPDAG: X0 -> X1 -> X0"), ("ok", None)])])
    ft = R.failure_table(runs)
    assert ft.iloc[0]["example_error"] == "directed cycle in a promised CPDAG: X0 -> X1 -> X0"


def test_runner_rows_carry_worker_columns(tmp_path):
    """Six cells of one fast method through the real runner with jobs=1: one worker, seq 1..6."""
    from fault_methods import TESTS_DIR, ChainInstance, info

    from causalarena.plugins import get_registry
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    cells = make_cells([ChainInstance("chain-0", splits=("obs",), n_replicates=6)], [info("chain", "Chain")])
    assert len(cells) == 6
    with Store(str(tmp_path / "arena.sqlite")) as store:
        run_grid(cells, get_registry(), store, jobs=1, budget_s=30.0, env={"PYTHONPATH": TESTS_DIR},
                 progress=False, cache_dir=str(tmp_path / "datasets"))
        runs = store.runs_frame()
    assert (runs["status"] == "ok").all()
    assert sorted(runs["worker_seq"].astype(int)) == [1, 2, 3, 4, 5, 6]
    assert runs["worker_id"].nunique() == 1 and runs["worker_id"].notna().all()
    assert (runs["start_seconds"] > 0).all() and (runs["load_seconds"] >= 0).all()
    # the fit of these columns (T(k) = T_fixed + k·T_graph) is arena-diagnosis's (diagnosis/tests/test_runtime.py)


def test_cli_report_without_a_usable_pyarrow_says_which_files_it_left_out(tmp_path, capsys, monkeypatch):
    from causalarena.cli import main
    from causalarena.store import Store

    with Store(str(tmp_path / "arena.sqlite")) as store:
        for i in range(3):
            store.record({"family": "synthetic", "scm_id": f"a-{i}", "split": "obs", "replicate": i, "method": "quick",
                          "status": "ok", "config_hash": "h", "wall_seconds": 0.25, "d": 10,
                          "metrics": {"f1": 0.5, "shd": 3.0}})

    def refuse(self, *args, **kwargs):
        raise ImportError("pyarrow requires NumPy 2.0 or newer, found 1.26.4")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", refuse)
    assert main(["report", "--results", str(tmp_path)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "warning: runs.parquet not written" in out and "warning: leaderboard.parquet not written" in out
    assert "found 1.26.4" in out
    assert (tmp_path / "leaderboard.md").exists() and (tmp_path / "leaderboard.csv").exists()
    assert not (tmp_path / "runs.parquet").exists()
