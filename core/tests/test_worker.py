"""The worker process, its JSON-lines protocol, and WorkerHandle's fault handling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from fault_methods import CHAIN, TESTS_DIR, ChainInstance

from causalarena.runner import WorkerHandle

ENV = {"PYTHONPATH": TESTS_DIR}


@pytest.fixture(scope="module")
def npz(tmp_path_factory):
    ds = ChainInstance().dataset("obs", 0)
    path = str(tmp_path_factory.mktemp("ds") / "chain.npz")
    ds.without_truth().save(path)
    return path


def raw_session(requests, extra_args=()):
    """Run a worker on a fixed list of requests; return (responses, stderr)."""
    env = dict(os.environ, **ENV)
    proc = subprocess.run([sys.executable, "-m", "causalarena.worker", *extra_args],
                          input="".join(json.dumps(r) + "\n" for r in requests),
                          capture_output=True, text=True, env=env, timeout=60)
    return [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr, proc.returncode


def test_protocol_roundtrip_and_stdout_protection(npz):
    resp, err, rc = raw_session([
        {"op": "hello"},
        {"op": "load", "factory": "fault_methods:Prints", "params": {}},
        {"op": "fit", "id": "a", "dataset_path": npz, "seed": 7},
        {"op": "frobnicate"},
        {"op": "shutdown"},
        {"op": "hello"},  # after shutdown: never answered
    ])
    assert rc == 0
    assert [r["op"] for r in resp] == ["hello", "load", "fit", "frobnicate", "shutdown"]
    hello, load, fit, unknown, _ = resp
    assert hello["protocol"] == 1 and hello["python"] == ".".join(map(str, sys.version_info[:3]))
    assert hello["versions"]["numpy"] == np.__version__
    assert load["status"] == "ok" and load["load_seconds"] >= 0
    assert fit["id"] == "a" and fit["status"] == "ok"
    assert fit["prediction"] == {"adjacency": CHAIN.astype(float).tolist(), "kind": "dag"}
    assert fit["peak_rss_mb"] > 10
    assert unknown["status"] == "error" and "unknown op 'frobnicate'" in unknown["error"]
    # what the method printed (Python and raw fd 1) went to stderr, not the channel
    assert "{not json} library chatter" in err and "raw fd-1 chatter" in err


def test_load_errors_are_answers_not_crashes(npz):
    resp, _, rc = raw_session([
        {"op": "load", "factory": "fault_methods:NoSuchClass", "params": {}},
        {"op": "fit", "id": "b", "dataset_path": npz, "seed": 0},
        {"op": "load", "factory": "fault_methods:Chain", "params": {"bogus": 1}},
        {"op": "load", "factory": "no_colon", "params": {}},
        "not an object",
    ])
    assert rc == 0
    assert resp[0]["status"] == "failed"
    assert "AttributeError" in resp[0]["error"] and "NoSuchClass" in resp[0]["error"]
    assert resp[1] == {"op": "fit", "id": "b", "status": "failed", "error": "fit before a successful load",
                       "prediction": None, "traceback": None, "fit_seconds": 0.0,
                       "peak_rss_mb": resp[1]["peak_rss_mb"]}
    assert "unexpected keyword argument 'bogus'" in resp[2]["error"]
    assert "must look like 'package.module:Attribute'" in resp[3]["error"]
    assert resp[4]["status"] == "error" and resp[4]["error"].startswith("bad request")


def test_seed_makes_fits_reproducible_and_state_is_cleared(npz):
    resp, _, _ = raw_session([
        {"op": "load", "factory": "fault_methods:UsesSeed", "params": {}},
        {"op": "fit", "id": "1", "dataset_path": npz, "seed": 11},
        {"op": "fit", "id": "2", "dataset_path": npz, "seed": 12},
        {"op": "fit", "id": "3", "dataset_path": npz, "seed": 11},
    ])
    s1, s2, s3 = (r["prediction"]["edge_scores"] for r in resp[1:])
    assert s1 == s3 and s1 != s2
    np.random.seed(11)
    assert s1 == np.random.random((3, 3)).tolist()


def test_bad_cli_argument():
    proc = subprocess.run([sys.executable, "-m", "causalarena.worker", "--bogus"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "unknown argument '--bogus'" in proc.stderr


def handle(cls, params=None, memory_mb=None):
    w = WorkerHandle(memory_mb=memory_mb, env=ENV)
    w.start()
    assert w.load(f"fault_methods:{cls}", params or {})["status"] == "ok"
    return w


def test_warm_worker_serves_many_fits(npz):
    w = handle("Chain")
    pid = w.info["pid"]
    try:
        results = [w.fit(npz, i, budget_s=5, run_id=str(i)) for i in range(5)]
        assert [r["status"] for r in results] == ["ok"] * 5
        assert w.info["pid"] == pid and w.alive
        assert all(r["wall_seconds"] >= r["fit_seconds"] for r in results)
    finally:
        w.close()
    assert not w.alive


def test_raise_is_failed_with_traceback_and_worker_survives(npz):
    w = handle("Raises")
    try:
        r = w.fit(npz, 0, budget_s=5, run_id="x")
        assert r["status"] == "failed"
        assert r["error"] == "ValueError: boom in fit: column 'X1' is weird"
        assert "Traceback" in r["traceback"] and "fault_methods.py" in r["traceback"]
        assert w.alive
    finally:
        w.close()


def test_timeout_kills_the_whole_process_group(npz, tmp_path, monkeypatch):
    pidfile = tmp_path / "child.pid"
    monkeypatch.setitem(ENV, "FAULT_CHILD_PIDFILE", str(pidfile))
    w = handle("Sleeps", {"seconds": 10, "child": True})
    t0 = time.monotonic()
    r = w.fit(npz, 0, budget_s=1.0, run_id="x")
    elapsed = time.monotonic() - t0
    assert r["status"] == "timeout" and r["wall_seconds"] == 1.0
    assert "budget of 1 s" in r["error"] and r["prediction"] is None
    assert elapsed < 3.0
    assert not w.alive
    child = int(pidfile.read_text())
    time.sleep(0.2)
    import psutil

    assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE
    w.close()


def test_os_exit_is_failed_with_exit_code(npz):
    w = handle("Exits")
    r = w.fit(npz, 0, budget_s=5, run_id="x")
    assert r["status"] == "failed" and r["error"].startswith("worker died during fit (exit code 1)")
    assert not w.alive
    w.close()


def test_single_huge_allocation_is_oom_and_worker_survives(npz):
    w = handle("AllocatesAtOnce", {"mb": 2048}, memory_mb=500)
    try:
        assert w.info["memory_mb"] == 500
        r = w.fit(npz, 0, budget_s=10, run_id="x")
        assert r["status"] == "oom" and r["error"].startswith("MemoryError")
        assert "2.00 GiB" in r["error"]
        assert 0 < r["peak_rss_mb"] < 500
        assert w.alive  # the rlimit made the allocation fail inside the worker
    finally:
        w.close()


def test_one_allocation_past_the_cap_is_refused_by_rlimit_data_before_it_is_resident(npz):
    """Cap 128 MB, one ~0.9 GB allocation: RLIMIT_DATA (the worker's data segment + cap + 256 MB + 64 MB per
    core) refuses it inside ``fit`` — MemoryError, oom, the worker survives, nothing became resident. Before,
    the backstop was RLIMIT_AS at the virtual size + cap + max(cap, 1 GB) + …: the allocation went through,
    the worker's resident set went to ~0.9 GB and only the poll / VmHWM made it oom afterwards."""
    cpus = os.cpu_count() or 1
    mb = 128 + 256 + 64 * cpus + 400
    w = handle("AllocatesAtOnce", {"mb": mb}, memory_mb=128)
    try:
        r = w.fit(npz, 0, budget_s=30, run_id="x")
        assert r["status"] == "oom" and r["error"].startswith("MemoryError"), r["error"]
        assert r["peak_rss_mb"] < 128  # refused, never touched
        assert w.alive
        hello = w.request({"op": "hello"})
        assert hello["rlimit"] == "data" and hello["rlimit_as_mb"] is None
        # the limit is the worker's data segment before the fit (numpy, the dataset: tens of MB) + cap + slack
        assert 10 < hello["rlimit_data_mb"] - (128 + 256 + 64 * cpus) < 400
    finally:
        w.close()


def test_an_allocator_refusal_that_is_no_memoryerror_is_oom(npz):
    """torch's CPU allocator raises RuntimeError("… DefaultCPUAllocator: not enough memory …") when the rlimit
    refuses it: that is the cap's doing, oom, not the method's failure."""
    w = handle("AllocatorRefuses", memory_mb=500)
    try:
        r = w.fit(npz, 0, budget_s=30, run_id="x")
        assert r["status"] == "oom", r
        assert r["error"].startswith("RuntimeError: [enforce fail at alloc_cpu.cpp:118] data. DefaultCPUAllocator: "
                                     "not enough memory")
        assert w.alive
    finally:
        w.close()


def test_gradual_growth_past_the_cap_is_killed_as_oom(npz):
    w = handle("AllocatesGradually", {"mb": 1200}, memory_mb=500)
    r = w.fit(npz, 0, budget_s=20, run_id="x")
    assert r["status"] == "oom"
    assert "exceeded the cap of 500 MB" in r["error"]
    assert 500 < r["peak_rss_mb"] < 1200
    assert not w.alive
    w.close()


def test_rlimit_backstop_leaves_room_for_heavy_imports_in_fit(npz):
    pytest.importorskip("torch")
    w = handle("TorchInFit", memory_mb=800)
    try:
        r = w.fit(npz, 0, budget_s=60, run_id="x")
        assert r["status"] == "ok", r["error"]
        assert 100 < r["peak_rss_mb"] < 800
    finally:
        w.close()


def test_every_fit_gets_a_fresh_estimator_so_state_never_leaks(npz):
    resp, _, _ = raw_session([
        {"op": "load", "factory": "fault_methods:Stateful", "params": {}},
        {"op": "fit", "id": "1", "dataset_path": npz, "seed": 1},
        {"op": "fit", "id": "2", "dataset_path": npz, "seed": 1},
    ])
    first, second = (np.asarray(r["prediction"]["adjacency"]) for r in resp[1:])
    assert first[0, 1] == 1 and np.array_equal(first, second)


def test_the_worker_path_imports_only_numpy_and_attrs_of_the_core_dependencies(tmp_path):
    # A sandbox holds the plugin's stack (numpy 1.26, pandas 1.5 …) plus the core: the worker
    # must not need scipy, pandas, pluggy, pyarrow … to serve hello/load/fit (issue 5).
    import subprocess
    import sys

    code = (
        "import sys, json\n"
        "from causalarena import worker, data, method, records\n"
        "w = worker.Worker()\n"
        "w.hello({})\n"
        "heavy = {'pandas', 'scipy', 'sklearn', 'pyarrow', 'networkx', 'pint', 'jsonschema', 'yaml', 'rich',\n"
        "         'pluggy', 'gadjid', 'psutil', 'packaging'}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
