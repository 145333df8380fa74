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
