"""The synthetic grid through the CLI: audit, suites, protocols, reserved and fresh draws, sortability report."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest
from conftest import run_arena

KEY = {"CAUSALARENA_RESERVED_KEY": "integration-test-key"}
SMALL = ["--family-option", "synthetic.graphs=er", "--family-option", "synthetic.per_cell=1"]


def test_audit_prints_pass_fail_resample_statistics_and_schedule_counts(tmp_path):
    out = tmp_path / "audit.jsonl"
    proc = run_arena("audit", "synthetic", "--family-option", "synthetic.graphs=er,chain",
                     "--family-option", "synthetic.per_cell=4", "--jobs", "2", "--out", str(out))
    assert "8 / 8 configurations pass; 80 / 80 tables pass" in proc.stdout
    assert "resample statistics" in proc.stdout and "counts match the grid's schedule" in proc.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["scm_id"] for r in records][:4] == ["er-d10-000", "er-d10-001", "er-d10-002", "er-d10-003"]
    assert all(r["passed"] and r["tables"] == 10 and r["generation"]["data_attempts"] >= 1 for r in records)


def test_reserved_configurations_need_the_key():
    proc = run_arena("audit", "synthetic", "--family-option", "synthetic.pool=reserved", *SMALL, "--jobs", "1",
                     check=False, env={"CAUSALARENA_RESERVED_KEY": ""})
    assert proc.returncode == 1 and "CAUSALARENA_RESERVED_KEY" in proc.stdout
    proc = run_arena("show", "synthetic/er-d10-r010", check=False, env={"CAUSALARENA_RESERVED_KEY": ""})
    assert proc.returncode == 2 and "CAUSALARENA_RESERVED_KEY" in proc.stderr
    with_key = json.loads(run_arena("show", "synthetic/er-d10-r010", env=KEY).stdout)
    other_key = json.loads(run_arena("show", "synthetic/er-d10-r010",
                                     env={"CAUSALARENA_RESERVED_KEY": "someone else"}).stdout)
    assert with_key["metadata"]["release"] == "reserved" and with_key != other_key


def test_fresh_round_is_a_new_draw_over_the_same_grid(tmp_path):
    proc = run_arena("run", "--fresh", "3", "--methods", "randomregress", *SMALL, "--splits", "obs",
                     "--replicates", "1", "--no-progress", "--results", str(tmp_path), env=KEY)
    assert "1 ok" in proc.stdout
    ids = {r[0] for r in sqlite3.connect(tmp_path / "arena.sqlite").execute("select scm_id from runs")}
    assert ids == {"er-d10-f3-000"}


def test_sample_size_suite_runs_one_grid_per_n(tmp_path):
    proc = run_arena("run", "--suite", "sample-size", "--methods", "sortnregress", *SMALL, "--replicates", "1",
                     "--no-progress", "--results", str(tmp_path))
    assert "suite 'sample-size': 7 grids" in proc.stdout
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert sorted(runs["n"]) == [100, 200, 500, 1000, 2000, 5000, 10000]
    assert set(runs["suite"]) == {"sample-size"} and set(runs["status"]) == {"ok"}
    board = pd.read_csv(tmp_path / "leaderboard.csv")
    assert {f"sortnregress [n={n}]" for n in (100, 10000)} <= set(board["method"])
    # every table's varsortability is stored and summarised
    assert runs["varsortability"].between(0, 1).all()
    assert (tmp_path / "sortability.csv").exists()


def test_intervention_protocol_suite_runs_the_six_protocols(tmp_path):
    # the suite's d = 30 narrowed to d = 10 (user options override the suite's) to keep CI fast
    proc = run_arena("run", "--suite", "intervention-protocols", "--methods", "randomregress,gies", *SMALL,
                     "--family-option", "synthetic.dims=10", "--replicates", "1", "--no-progress",
                     "--results", str(tmp_path))
    assert "suite 'intervention-protocols': 6 grids" in proc.stdout
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    protocols = {"default", "fixed_setpoint", "parameter_shift", "high_fraction", "multi_target", "dense_mixed"}
    assert set(runs["protocol"]) == protocols and set(runs["split"]) == {"obs_int"}
    status = runs.set_index(["method", "protocol"])["status"]
    # randomregress does not consume interventions: missing, not failed (App. B.1); GIES does
    assert {status["randomregress", p] for p in protocols} == {"unsupported"}
    assert {status["gies", p] for p in protocols} == {"ok"}
    board = pd.read_csv(tmp_path / "leaderboard.csv")
    gies_rows = board[board["method"].str.startswith("gies [protocol=") & (board["family"] == "synthetic")]
    assert len(gies_rows) == 6 and gies_rows["f1_mean"].between(0, 1).all()


def test_suite_rejects_conflicting_options(tmp_path):
    proc = run_arena("run", "--suite", "sample-size", "--n", "100", "--results", str(tmp_path), check=False)
    assert proc.returncode == 2 and "--suite sets the family" in proc.stderr
    proc = run_arena("run", "--suite", "nosuch", "--results", str(tmp_path), check=False)
    assert proc.returncode == 2 and "available: ['intervention-protocols', 'sample-size']" in proc.stderr


@pytest.mark.parametrize("protocol", ["fixed_setpoint", "multi_target"])
def test_a_protocol_is_selectable_for_a_plain_run(tmp_path, protocol):
    proc = run_arena("run", "--protocol", protocol, "--methods", "randomregress", "--families", "synthetic", *SMALL,
                     "--splits", "obs_int",
                     "--replicates", "1", "--no-progress", "--results", str(tmp_path))
    assert "1 unsupported" in proc.stdout
    con = sqlite3.connect(tmp_path / "arena.sqlite")
    assert con.execute("select protocol from runs").fetchall() == [(protocol,)]


def test_export_release_has_factor_tags_and_audit_records(tmp_path):
    out = tmp_path / "release"
    run_arena("export", "--family", "synthetic", *SMALL, "--replicates", "1", "--out", str(out))
    manifest = json.loads((out / "release.json").read_text())
    assert manifest["instances"][0]["scm_id"] == "er-d10-000" and manifest["audit_passed"] == 1
    folder = out / "synthetic__er-d10-000"
    factors = json.loads((folder / "factors.json").read_text())
    assert factors["factors"]["generator"] == "synthetic@2" and factors["factors"]["graph"] == "er"
    assert len(factors["edges"]) == factors["factors"]["n_edges"]
    assert json.loads((folder / "audit.json").read_text())["passed"] is True


def test_show_lists_the_full_pool_from_the_ids_without_generating():
    # the reserved half needs the key to be generated, not to be listed: no SCM is built
    proc = run_arena("show", "synthetic", "--family-option", "synthetic.dims=10,20,30,50,100",
                     "--family-option", "synthetic.per_cell=20", "--family-option", "synthetic.pool=all",
                     env={"CAUSALARENA_RESERVED_KEY": ""})
    lines = proc.stdout.splitlines()
    assert len(lines) == 1000
    assert lines[0] == "synthetic/er-d10-000\td=10\tsplits=obs,obs_int\treplicates=5"
    assert lines[10] == "synthetic/er-d10-r010\td=10\tsplits=obs,obs_int\treplicates=5"
    assert lines[-1] == "synthetic/collider_rich-d100-r019\td=100\tsplits=obs,obs_int\treplicates=5"
    assert sum(line.split("\t")[1] == "d=50" for line in lines) == 200
