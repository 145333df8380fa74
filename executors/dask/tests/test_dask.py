"""arena-dask: grids on a LocalCluster bound to 127.0.0.1; batch-system job scripts by dry run.

Every scheduler and worker these tests start binds 127.0.0.1; the dry runs of
slurm / pbs start a scheduler on 127.0.0.1 and no job.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from arena_dask.executor import DaskExecutor

HERE = Path(__file__).resolve().parent
ARENA = [sys.executable, "-m", "causalarena.cli"]
GRID = ["--methods", "sortnregress,randomregress", "--families", "synthetic", "--scm",
        "er-d10-000,sf-d10-000,chain-d10-000", "--no-progress", "--no-extensions", "--jobs", "2"]
KEY = ["family", "scm_id", "split", "replicate", "method"]
METRICS = ["status", "f1", "shd", "sid", "auroc", "precision", "recall"]


def _arena(args, **kw):
    return subprocess.run(ARENA + args, capture_output=True, text=True, timeout=600, **kw)


def _runs(folder):
    runs = pd.read_parquet(Path(folder) / "runs.parquet")
    return runs[KEY + [c for c in METRICS if c in runs]].sort_values(KEY).reset_index(drop=True)


@pytest.fixture(scope="module")
def local_reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "r"
    res = _arena(["run", "--results", str(out)] + GRID)
    assert res.returncode == 0, res.stderr[-2000:]
    return _runs(out)


def test_a_local_cluster_gives_the_stored_metrics_of_a_local_run(tmp_path, local_reference):
    res = _arena(["run", "--results", str(tmp_path / "r"), "--cluster", "local:2"] + GRID)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "dask: scheduler tcp://127.0.0.1:" in res.stdout and "2 worker(s) alive" in res.stdout
    got = _runs(tmp_path / "r")
    assert len(got) == len(local_reference) == 60
    pd.testing.assert_frame_equal(got, local_reference)


def test_a_client_killed_mid_grid_resumes_with_the_same_command(tmp_path, local_reference):
    folder = tmp_path / "r"
    cmd = ARENA + ["run", "--results", str(folder), "--cluster", "local:2"] + GRID
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    db = folder / "arena.sqlite"
    deadline = time.time() + 300
    stored = 0
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    stored = con.execute("select count(*) from runs").fetchone()[0]
            except sqlite3.Error:
                stored = 0
            if stored >= 5:
                break
        time.sleep(0.2)
    assert proc.poll() is None and stored >= 5, "the grid ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)  # the client and the cluster it started, as a machine loss would
    proc.wait()
    with sqlite3.connect(db) as con:
        at_kill = con.execute("select count(*) from runs").fetchone()[0]
    assert 5 <= at_kill < 60
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert f"skipped {at_kill} already stored" in res.stdout
    pd.testing.assert_frame_equal(_runs(folder), local_reference)


def _cells(method, count=6):
    from arena_family_synthetic.family import generate_spec
    from causalarena.family import SCMInstance
    from causalarena.runner import make_cells

    ids = ["er-d10-000", "sf-d10-000", "chain-d10-000"][:max(1, count // 2)]
    insts = [SCMInstance(family="synthetic", scm_id=i, spec=generate_spec(i), splits=("obs",), n_replicates=2)
             for i in ids]
    return make_cells(insts, [method])


@pytest.fixture()
def test_methods_importable(monkeypatch):
    # the LocalCluster's processes and the arena's method workers import dask_methods from here
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    return {"PYTHONPATH": str(HERE)}


def test_a_killed_dask_worker_loses_no_cell_and_duplicates_none(tmp_path, test_methods_importable):
    from causalarena.records import MethodInfo
    from causalarena.runner import run_grid
    from causalarena.store import Store

    method = MethodInfo(name="sleepy", factory="dask_methods:Sleepy", params={"seconds": 0.5})
    cells = _cells(method)
    cells = cells + _cells(MethodInfo(name="sleepy2", factory="dask_methods:Sleepy", params={"seconds": 0.5}))
    ex = DaskExecutor("local:2", {}, jobs=2)
    ex.start()
    store = Store(str(tmp_path / "r.sqlite"))
    killed = {}

    def killer():
        while True:
            if len(store.rows()) >= 2:
                pids = ex.client.run(os.getpid)
                addr, pid = sorted(pids.items())[0]
                os.kill(pid, signal.SIGKILL)
                killed["pid"] = pid
                return
            time.sleep(0.1)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    try:
        summary = run_grid(cells, None, store, env=test_methods_importable, progress=False, executor=ex)
    finally:
        ex.close()
    t.join(5)
    assert "pid" in killed
    rows = store.rows()
    keys = [(r["scm_id"], r["replicate"], r["method"]) for r in rows]
    assert len(keys) == len(set(keys)) == len(cells) == 12
    assert summary.counts == {"ok": 12}


def test_a_cell_that_kills_every_worker_is_failed_after_the_bound(tmp_path, test_methods_importable):
    from causalarena.records import MethodInfo
    from causalarena.runner import run_grid
    from causalarena.store import Store

    killer = MethodInfo(name="killer", factory="dask_methods:KillsItsDaskWorker")
    healthy = MethodInfo(name="sleepy", factory="dask_methods:Sleepy", params={"seconds": 0.05})
    ex = DaskExecutor("local:2", {"retries": "1"}, jobs=2)
    store = Store(str(tmp_path / "r.sqlite"))
    try:
        ex.start()
        # the killer alone: Dask counts a death against every task a dead worker held, so a healthy cell
        # queued beside it could reach the bound too (that is Dask's rule, not the cell's fault)
        summary = run_grid(_cells(killer, count=2)[:1], None, store, env=test_methods_importable,
                           progress=False, executor=ex)
        assert summary.counts == {"failed": 1}
        after = run_grid(_cells(healthy, count=2), None, store, env=test_methods_importable, progress=False,
                         executor=ex)  # the restarted workers serve the next grid
    finally:
        ex.close()
    assert after.counts == {"ok": 2}
    (bad,) = [r for r in store.rows() if r["status"] == "failed"]
    assert bad["method"] == "killer"
    assert "Dask worker died 2 times" in bad["error"] and "allowed-failures 1" in bad["error"]


@pytest.mark.parametrize("kind, expected", [
    ("slurm", ["#SBATCH", "--cpus-per-task=2", "-t 02:00:00", "-p short", "--mem="]),
    ("pbs", ["#PBS", "ncpus=2", "walltime=02:00:00", "#PBS -q short"]),
])
def test_dry_run_prints_the_job_script_and_binds_loopback(tmp_path, kind, expected):
    res = _arena(["run", "--results", str(tmp_path / "r"), "--cluster", kind, "--cluster-dry-run",
                  "--cluster-option", "cores=2", "--cluster-option", "walltime=02:00:00",
                  "--cluster-option", "queue=short", "--cluster-option", "jobs=3"] + GRID)
    assert res.returncode == 0, res.stderr[-2000:]
    script = res.stdout
    for text in expected:
        assert text in script, (text, script)
    assert "tcp://127.0.0.1:" in script  # the dry run's scheduler listens on loopback only
    assert "# 3 job(s) like this one" in script
    assert sys.executable in script  # the workers' interpreter: this one (shared filesystem)
    assert not (tmp_path / "r" / "arena.sqlite").exists()  # nothing ran


def test_memory_and_walltime_default_from_the_method_budget():
    ex = DaskExecutor("slurm", {"cores": "2"}, jobs=1, budget_s=1800.0, memory_mb=3000.0)
    kw = ex._jobqueue_kwargs(dry_run=True)
    assert kw["memory"] == f"{2 * 3000 + 1024}MB"  # two warm method workers at the cap + the Dask worker
    assert kw["walltime"] == "02:00:00"  # 4 × the 1800 s budget
    assert kw["scheduler_options"] == {"host": "127.0.0.1"}


@pytest.mark.parametrize("spec, options, message", [
    ("kubernetes", {}, "unknown cluster 'kubernetes'"),
    ("local:0", {}, "local:N needs a positive number"),
    ("local:2", {"cores": "2"}, r"unknown --cluster-option\(s\) \['cores'\]"),
    ("slurm", {"cores": "two"}, "cores='two'"),
])
def test_bad_specs_and_options_are_named(spec, options, message):
    with pytest.raises(ValueError, match=message):
        DaskExecutor(spec, options)


def test_bad_cluster_is_a_usage_error_before_anything_runs(tmp_path):
    res = _arena(["run", "--results", str(tmp_path / "r"), "--cluster", "kubernetes"] + GRID)
    assert res.returncode == 2
    assert "--cluster 'kubernetes': unknown cluster" in res.stderr


def test_dashboard_off_prints_no_dashboard_link():
    """``--cluster-option dashboard=0``: the start line names no dashboard (it printed one even then)."""
    pytest.importorskip("bokeh")  # without bokeh no dashboard starts either way: nothing to tell apart
    ex = DaskExecutor("local:1", {"dashboard": "0"}, jobs=1)
    try:
        line = ex.start()
    finally:
        ex.close()
    assert line.startswith("dask: scheduler tcp://127.0.0.1:") and "1 worker(s) alive" in line
    assert "dashboard" not in line


@pytest.mark.parametrize("off", ["false", "off", "no", "False"])
def test_every_spelling_of_off_prints_no_dashboard_link(off):
    """``dashboard=false`` (or off, no) is off like ``0``: it started a dashboard and printed its link."""
    pytest.importorskip("bokeh")
    ex = DaskExecutor("local:1", {"dashboard": off}, jobs=1)
    try:
        line = ex.start()
    finally:
        ex.close()
    assert line.startswith("dask: scheduler tcp://127.0.0.1:") and "dashboard" not in line, line
    assert ex.dashboard is False


def test_a_dashboard_value_that_is_no_yes_or_no_is_refused_naming_the_option():
    with pytest.raises(ValueError, match=r"^--cluster-option dashboard='maybe': expected 1/true/yes/on or "
                                         r"0/false/no/off$"):
        DaskExecutor("local:1", {"dashboard": "maybe"}, jobs=1)
    assert DaskExecutor("local:1", {"dashboard": "ON"}, jobs=1).dashboard is True
