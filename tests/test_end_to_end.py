"""A small arena run through the CLI: grid, leaderboard, resume, export."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest
from conftest import run_arena

GRID = ["--methods", "randomregress,sortnregress,pc", "--families", "synthetic,real",
        "--family-option", "synthetic.dims=10", "--family-option", "synthetic.graphs=er",
        "--family-option", "synthetic.per_cell=1", "--replicates", "2", "--jobs", "2",
        "--budget", "120", "--no-progress"]


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    first = run_arena("run", *GRID, "--results", str(results))
    return results, first


def test_every_cell_is_stored_once_with_its_status(arena_run):
    results, _ = arena_run
    con = sqlite3.connect(results / "arena.sqlite")
    rows = con.execute("select family, scm_id, split, replicate, method, status from runs").fetchall()
    # synthetic: 1 SCM x 2 splits x 2 replicates x 3 methods; real: sachs x obs x 1 replicate x 3 methods
    assert len(rows) == 12 + 3
    assert len(set(rows)) == len(rows)
    status = {(f, sp, m): s for f, _, sp, _, m, s in rows}
    # none of the three consumes interventions: obs+int is *missing*, not failed (App. B.1)
    assert {status[("synthetic", "obs_int", m)] for m in ("pc", "sortnregress", "randomregress")} == {"unsupported"}
    assert {status[("real", "obs", m)] for m in ("pc", "sortnregress", "randomregress")} == {"ok"}


def test_leaderboard_has_sachs_for_every_method(arena_run):
    results, first = arena_run
    board = pd.read_csv(results / "leaderboard.csv")
    sachs = board[(board["family"] == "real") & (board["split"] == "obs")]
    assert set(sachs["method"]) == {"randomregress", "sortnregress", "pc"}
    assert sachs["f1_mean"].between(0, 1).all() and (sachs["shd_mean"] >= 0).all()
    md = (results / "leaderboard.md").read_text()
    assert "real / obs" in md and "synthetic / obs+int" in md and "–" in md
    assert "Leaderboard" in first.stdout


def test_rerun_resumes_without_running_or_duplicating(arena_run):
    results, _ = arena_run
    before = pd.read_parquet(results / "runs.parquet")
    again = run_arena("run", *GRID, "--results", str(results))
    assert "nothing new; skipped 15 already stored" in again.stdout
    after = pd.read_parquet(results / "runs.parquet")
    cols = ["family", "scm_id", "split", "replicate", "method", "status", "f1", "shd"]
    key = ["family", "scm_id", "split", "replicate", "method"]
    pd.testing.assert_frame_equal(before[cols].sort_values(key).reset_index(drop=True),
                                  after[cols].sort_values(key).reset_index(drop=True))


def test_report_command_reads_the_store(arena_run):
    results, _ = arena_run
    out = run_arena("report", "--results", str(results)).stdout
    assert "sortnregress" in out and "real / obs" in out


def test_show_prints_the_spec_as_json():
    spec = json.loads(run_arena("show", "synthetic/er-d10-000").stdout)
    assert spec["id"] == "er-d10-000" and len(spec["nodes"]) == 10


def test_export_writes_parquet_spec_and_adjacency(tmp_path):
    out = tmp_path / "export"
    run_arena("export", "--family", "synthetic", "--scm", "er-d10-000", "--replicates", "1",
              "--family-option", "synthetic.dims=10", "--out", str(out))
    folder = out / "synthetic__er-d10-000"
    table = pd.read_parquet(folder / "obs_int__rep0.parquet")
    assert table.shape[0] == 1000 and table["mask__X0"].dtype == bool
    assert int(table.filter(like="mask__").to_numpy().sum()) == 200
    spec = json.loads((folder / "spec.json").read_text())
    adj = pd.read_csv(folder / "adjacency.csv", index_col=0)
    names = [n["name"] for n in spec["nodes"]]
    expected = np.zeros((10, 10), dtype=int)
    for j, node in enumerate(spec["nodes"]):
        for p in node["parents"]:
            expected[names.index(p), j] = 1
    assert np.array_equal(adj.to_numpy(), expected)


def test_bad_arguments_give_clear_errors():
    proc = run_arena("run", "--methods", "nosuch", check=False)
    assert proc.returncode == 2 and "unknown method(s) ['nosuch']" in proc.stderr
    proc = run_arena("run", "--family-option", "per_cell=3", check=False)
    assert proc.returncode == 2 and "expected FAMILY.KEY=VALUE" in proc.stderr
    proc = run_arena("show", "synthetic/zz-d10-000", check=False)
    assert proc.returncode == 2


@pytest.mark.parametrize("args,message", [
    (["--jobs", "0"], "--jobs must be a positive integer, got 0"),
    (["--budget", "-1"], "--budget must be > 0, got -1.0"),
    (["--memory-mb", "0"], "--memory-mb must be > 0"),
    (["--n", "0"], "--n must be a positive integer"),
    (["--splits", "obs,foo"], "--splits: unknown split(s) ['foo']"),
    (["--protocol", "nope"], "--protocol 'nope' is not installed"),
    (["--metrics", "bogus"], "--metrics: unknown metric(s) ['bogus']"),
    (["--python", "/nonexistent/python"], "--python '/nonexistent/python' is not an executable interpreter"),
    (["--retry", "crashed"], "--retry: unknown status(es) ['crashed']"),
    (["--family-option", "synthetic.per_cell=0"], "per_cell must be a positive integer"),
    (["--family-option", "synthetic.bogus=3"], "unknown option(s) ['bogus']"),
])
def test_bad_run_options_are_rejected_before_anything_runs(tmp_path, args, message):
    proc = run_arena("run", "--methods", "pc", "--results", str(tmp_path / "r"), *args, check=False)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r" / "arena.sqlite").exists()


def test_user_table_errors_are_one_line_not_a_traceback(tmp_path):
    (tmp_path / "t.csv").write_text("a,b,c\n1,2,3\n4,oops,6\n7,8,9\n")
    (tmp_path / "t.edges.csv").write_text("source,target\na,b\n")
    proc = run_arena("run", "--families", "real", "--methods", "pc", "--results", str(tmp_path / "r"),
                     "--family-option", f"real.tables={tmp_path / 't.csv'}={tmp_path / 't.edges.csv'}",
                     check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "'b' is not numeric" in proc.stderr and "oops" in proc.stderr


def test_results_that_is_a_file_is_named(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    proc = run_arena("run", "--methods", "pc", "--results", str(afile), check=False)
    assert proc.returncode == 2 and "is a file, not a folder" in proc.stderr


def test_a_grid_where_nothing_succeeds_still_reports(tmp_path):
    (tmp_path / "t.csv").write_text("a,b,k\n" + "".join(f"{i},{(i * 7) % 5},1\n" for i in range(60)))
    (tmp_path / "t.edges.csv").write_text("source,target\na,b\n")
    results = tmp_path / "r"
    run_arena("run", "--families", "real", "--methods", "pc,ges", "--results", str(results), "--no-progress",
              "--family-option", f"real.tables={tmp_path / 't.csv'}={tmp_path / 't.edges.csv'}",
              "--family-option", "real.sachs=false")
    failures = pd.read_csv(results / "failures.csv")
    assert failures["invalid_input"].sum() == 2
    md = (results / "leaderboard.md").read_text()
    assert "– ⚠1 (0/1 ok)" in md


def test_report_reads_a_read_only_results_folder(arena_run, tmp_path):
    import os
    import shutil

    results, _ = arena_run
    ro = tmp_path / "ro"
    shutil.copytree(results, ro)
    for p in ro.rglob("*"):
        os.chmod(p, 0o555 if p.is_dir() else 0o444)
    os.chmod(ro, 0o555)
    try:
        proc = run_arena("report", "--results", str(ro), check=False)
        if os.geteuid() == 0:  # root ignores permission bits: the read path is still exercised
            assert proc.returncode == 0
        else:
            assert proc.returncode == 0 and "report files not written" in proc.stdout
        assert "real / obs" in proc.stdout
    finally:
        for p in [ro, *ro.rglob("*")]:
            os.chmod(p, 0o755)


def test_two_concurrent_runs_on_one_folder_do_not_both_compute(tmp_path):
    import fcntl
    import os

    results = tmp_path / "r"
    results.mkdir()
    with open(results / ".arena.lock", "a+") as fh:  # hold the lock as a running arena would
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fh.write(str(os.getpid()))
        fh.flush()
        proc = run_arena("run", "--methods", "pc", "--families", "real", "--results", str(results), check=False)
    assert proc.returncode == 2 and f"another `arena run` (pid {os.getpid()})" in proc.stderr
