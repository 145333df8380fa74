"""The venv backend end to end: build a plugin's environment, run a grid in it, kill it.

One environment of the fixture plugin (tests/fixture_plugin, depending only on
the core) is built once per module under a temporary CAUSALARENA_SANDBOX_DIR
(about a minute with a warm pip cache); the fixture plugin is NOT installed in
the test environment, so everything it does happens in its sandbox.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from causalarena.plugins import get_registry
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixture_plugin"
sys.path.insert(0, str(HERE.parent.parent / "core" / "tests"))
from fault_methods import ChainInstance  # noqa: E402  (the core's test instance: chain 0 → 1 → 2)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX virtualenv layout and flock")


@pytest.fixture(scope="module")
def manifest(sandbox_dir):
    from arena_sandbox.envs import build

    return build(str(FIXTURE))


def test_fixture_plugin_is_not_installed_here():
    from importlib.metadata import PackageNotFoundError, distribution

    with pytest.raises(PackageNotFoundError):
        distribution("arena-method-sandbox-fixture")


def test_build_records_methods_stack_and_a_worker_that_answers(manifest, sandbox_dir):
    from arena_sandbox.envs import env_dir_for

    assert manifest["plugin"] == "arena-method-sandbox-fixture" and manifest["version"] == "0.1.0"
    assert sorted(m["name"] for m in manifest["methods"]) == ["sleep_once", "where_am_i"]
    assert len(manifest["key"]) == 12 and int(manifest["key"], 16) >= 0
    path = env_dir_for(manifest["plugin"], manifest["version"], manifest["key"], sandbox_dir)
    assert Path(manifest["path"]) == path and (path / "manifest.json").is_file()
    # the worker answered hello from the sandbox's own interpreter, with the core's version
    import causalarena

    hello = manifest["worker"]
    assert hello["executable"].startswith(str(path)) and hello["protocol"] == 1
    assert hello["versions"]["causalarena"] == causalarena.__version__
    # resolved pins: the plugin, the core (from this checkout) and numpy, as name==version
    pins = {p.split("==")[0].lower().replace("_", "-") for p in manifest["requirements"]}
    assert {"arena-method-sandbox-fixture", "causal-arena", "numpy", "attrs"} <= pins
    assert manifest["stack"]["numpy"] == hello["versions"]["numpy"]


def test_same_inputs_reuse_the_environment_and_a_changed_source_gets_a_new_key(manifest, sandbox_dir, tmp_path):
    import shutil

    from arena_sandbox.envs import build, resolve

    t0 = time.perf_counter()
    again = build(str(FIXTURE))
    assert again["key"] == manifest["key"] and again["created"] == manifest["created"]  # reused, not rebuilt
    assert time.perf_counter() - t0 < 60
    copy = tmp_path / "fixture"
    shutil.copytree(FIXTURE, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    assert resolve(str(copy))["key"] == manifest["key"]  # same content elsewhere: same key
    method_py = copy / "src" / "arena_method_sandbox_fixture" / "method.py"
    method_py.write_text(method_py.read_text() + "\n# changed\n")
    assert resolve(str(copy))["key"] != manifest["key"]  # same name and version, new code: new key


def test_sandbox_only_methods_are_listed_with_their_own_distribution(manifest):
    reg = get_registry()
    rec = reg.method("where_am_i")
    assert (rec.environment, rec.distribution, rec.version) == ("venv", "arena-method-sandbox-fixture", "0.1.0")
    assert set(reg.isolation_backends) >= {"venv", "docker"}


def _launcher(backend):
    return lambda m: backend.launch(m, cache_dir=None, memory_mb=None)


def test_a_grid_runs_in_the_sandbox_with_nothing_of_the_main_environment(manifest, tmp_path):
    from arena_sandbox.venv import VenvBackend

    reg = get_registry()
    backend = VenvBackend()
    m = reg.method("where_am_i")
    backend.prepare(m)
    inst = ChainInstance("chain-sbx", splits=("obs",), n_replicates=2)
    store = Store(str(tmp_path / "r.sqlite"))
    # PYTHONPATH set in the runner's env must not reach the sandboxed worker
    run_grid(make_cells([inst], [m]), reg, store, progress=False, env={"PYTHONPATH": "/nonexistent"},
             launcher=_launcher(backend))
    rows = store.rows()
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert {r["isolation"] for r in rows} == {f"venv:arena-method-sandbox-fixture-0.1.0-{manifest['key']}"}
    # WhereAmI returns 0 → 1 only inside its sandbox without PYTHONPATH: precision 1, recall 1/2 of the chain
    assert {r["metrics"]["precision"] for r in rows} == {1.0}
    assert {r["metrics"]["recall"] for r in rows} == {0.5}


def test_killing_a_sandboxed_worker_records_a_status_and_the_grid_goes_on(manifest, tmp_path):
    import psutil

    from arena_sandbox.venv import VenvBackend
    from causalarena.records import MethodInfo

    reg = get_registry()
    marker = tmp_path / "fit-started"
    base = reg.method("sleep_once")
    import attrs

    m = attrs.evolve(base, params={"marker": str(marker), "seconds": 120.0})
    assert isinstance(m, MethodInfo)
    backend = VenvBackend()
    backend.prepare(m)
    inst = ChainInstance("chain-kill", splits=("obs",), n_replicates=3)
    killed = []

    def killer():
        deadline = time.time() + 120
        while time.time() < deadline and not marker.exists():
            time.sleep(0.05)
        time.sleep(0.3)
        pid = int(marker.read_text())
        proc = psutil.Process(pid)
        assert manifest["path"] in proc.exe() or manifest["path"] in " ".join(proc.cmdline())
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    store = Store(str(tmp_path / "r.sqlite"))
    t0 = time.perf_counter()
    run_grid(make_cells([inst], [m]), reg, store, progress=False, launcher=_launcher(backend), budget_s=300)
    t.join(5)
    assert killed and time.perf_counter() - t0 < 100  # nobody waited for the 120 s sleep
    rows = sorted(store.rows(), key=lambda r: r["replicate"])
    assert rows[0]["status"] == "failed"
    assert "worker died during fit (killed by signal SIGKILL" in rows[0]["error"]
    assert "by a user, a supervisor or the kernel" in rows[0]["error"]
    # the grid went on: a fresh sandboxed worker served the other cells
    assert [r["status"] for r in rows[1:]] == ["ok", "ok"]
    assert rows[1]["worker_id"] != rows[0]["worker_id"] and rows[1]["worker_id"] == rows[2]["worker_id"]
    assert {r["isolation"] for r in rows} == {f"venv:arena-method-sandbox-fixture-0.1.0-{manifest['key']}"}


def test_missing_environment_and_unknown_method_are_isolation_errors(manifest, sandbox_dir):
    from arena_sandbox.venv import VenvBackend
    from causalarena.isolation import IsolationError
    from causalarena.records import MethodInfo

    b = VenvBackend()
    ghost = MethodInfo(name="ghost", factory="x:Y", environment="venv", distribution="arena-method-ghost",
                       version="1.0")
    with pytest.raises(IsolationError, match=r"no sandbox environment for arena-method-ghost 1.0; build it with"):
        b.prepare(ghost)
    stranger = MethodInfo(name="stranger", factory="x:Y", environment="venv",
                          distribution="arena-method-sandbox-fixture", version="0.1.0")
    with pytest.raises(IsolationError, match=r"'stranger' is not registered in the environment of "
                                             r"arena-method-sandbox-fixture 0.1.0 \(it has: where_am_i, sleep_once\)"):
        b.prepare(stranger)


def test_prune_removes_superseded_incomplete_and_keeps_the_newest(manifest, sandbox_dir):
    import shutil

    from arena_sandbox.envs import list_envs, prune

    venv = sandbox_dir / "venv"
    old = venv / "arena-method-sandbox-fixture-0.0.9-000000000000"
    old.mkdir()
    shutil.copy(Path(manifest["path"]) / "manifest.json", old / "manifest.json")
    data = json.loads((old / "manifest.json").read_text())
    data.update(version="0.0.9", key="000000000000", created="2000-01-01T00:00:00+00:00")
    (old / "manifest.json").write_text(json.dumps(data))
    (old / "env" / "bin").mkdir(parents=True)
    (old / "env" / "bin" / "python").symlink_to(sys.executable)
    broken = venv / "arena-method-sandbox-fixture-0.0.8-111111111111"
    shutil.copytree(old, broken, symlinks=True)
    (broken / "env" / "bin" / "python").unlink()
    (venv / "half-built").mkdir()
    plan = {p.name: why for p, why in prune(dry_run=True)}
    assert plan[old.name].startswith("superseded by arena-method-sandbox-fixture-0.1.0-")
    assert plan["half-built"] == "incomplete build"
    assert plan[broken.name] == f"interpreter {broken / 'env' / 'bin' / 'python'} is missing"
    assert old.name in plan and Path(manifest["path"]).name not in plan
    assert old.exists()  # dry run
    prune()
    assert not old.exists() and not broken.exists() and not (venv / "half-built").exists()
    assert sorted(p.name for p in venv.iterdir() if p.name.endswith(".lock")) == [Path(manifest["path"]).name + ".lock"]
    assert [m["key"] for m in list_envs()] == [manifest["key"]]


def test_a_broken_sandbox_is_an_env_error_naming_the_rebuild(manifest, tmp_path):
    import shutil

    from arena_sandbox.venv import VenvBackend
    from causalarena.isolation import IsolationError
    from causalarena.records import MethodInfo

    root = tmp_path / "root"
    copy = root / "venv" / Path(manifest["path"]).name
    copy.mkdir(parents=True)
    shutil.copy(Path(manifest["path"]) / "manifest.json", copy / "manifest.json")  # no env/: interpreter gone
    m = MethodInfo(name="where_am_i", factory="x:Y", environment="venv", distribution="arena-method-sandbox-fixture",
                   version="0.1.0")
    with pytest.raises(IsolationError) as err:
        VenvBackend(root=root).prepare(m)
    text = str(err.value)
    assert "the sandbox of arena-method-sandbox-fixture 0.1.0 is broken (interpreter " in text
    assert text.endswith(f"is missing); rebuild it: arena sandbox build {FIXTURE}")


def test_resolution_errors_are_one_line_from_pip(tmp_path):
    from arena_sandbox.envs import SandboxError, resolve

    with pytest.raises(SandboxError) as err:
        resolve(str(tmp_path / "no-such-plugin"))
    text = str(err.value)
    assert text.startswith(f"resolving {tmp_path / 'no-such-plugin'} failed: ERROR:")
    assert "\n" not in text and "does not exist" in text
