"""The docker backend against a real engine: base image, plugin image, lock-down, faults.

Needs a Docker engine (``dockerd``), ``debootstrap`` and root for the base
image. Where no engine answers the module is skipped with the reason, unless
``CAUSALARENA_REQUIRE_DOCKER=1`` (CI sets it): then it fails with the reason.
Where an engine answers but no base image can be built, the tests fail with
that reason (never skipped).

Containers carry the label ``org.causalarena.worker=1``; after every test none
may be left (``docker ps -a`` filtered on it is empty).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from arena_sandbox.docker import CGROUP_HEADROOM_MB, DockerBackend
from causalarena.plugins import get_registry
from causalarena.records import MethodInfo
from causalarena.runner import WorkerHandle, make_cells, run_grid
from causalarena.store import Store

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixture_plugin"
BENCH = HERE.parent.parent / "tests" / "benchmarks"
sys.path.insert(0, str(HERE.parent.parent / "core" / "tests"))
sys.path.insert(0, str(BENCH))
from fault_methods import ChainInstance  # noqa: E402  (the core's test instance: chain 0 → 1 → 2)
from sandbox_support import engine_or_skip  # noqa: E402

DOCKER = shutil.which("docker") or "docker"


def _worker_containers() -> list:
    out = subprocess.run([DOCKER, "ps", "-a", "-q", "--filter", "label=org.causalarena.worker=1"],
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.fixture(scope="module")
def base_image(sandbox_dir):
    engine_or_skip()
    from arena_sandbox.baseimage import base_image_tag, build_base_image

    info = build_base_image()  # reused when present; an error here fails the test with its reason
    assert info["tag"] == base_image_tag() and info["tag"].startswith("causalarena/python:3.")
    out = subprocess.run([DOCKER, "run", "--rm", "--network", "none", info["tag"], "python3", "-c",
                          "import sys, ensurepip; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"{sys.version_info[0]}.{sys.version_info[1]}"  # the wheelhouse's ABI
    return info["tag"]


@pytest.fixture(scope="module")
def fixture_image(base_image):
    return DockerBackend().build_image(str(FIXTURE))


@pytest.fixture(autouse=True)
def no_container_left():
    engine_or_skip()  # without an engine `docker ps` cannot answer: skip (or fail under CI) with the reason
    yield
    deadline = time.monotonic() + 15  # --rm removes a container a moment after its client exits
    while _worker_containers() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _worker_containers() == []


def test_the_base_image_is_debian_python_with_no_pip_in_the_system(base_image):
    out = subprocess.run([DOCKER, "image", "inspect", base_image], capture_output=True, text=True, check=True)
    labels = json.loads(out.stdout)[0]["Config"]["Labels"]
    assert labels["org.causalarena.base"] == "debian-bookworm" and labels["org.causalarena.python"] == "3.11"
    # nothing was pulled: the image has no registry digest
    assert json.loads(out.stdout)[0]["RepoDigests"] == []


def test_plugin_image_runs_the_worker_locked_down(fixture_image, tmp_path):
    """Start a worker; while it runs, the engine must report every lock-down setting on the container."""
    b = DockerBackend()
    m = MethodInfo(name="where_am_i", factory="arena_method_sandbox_fixture.method:WhereAmI",
                   distribution="arena-method-sandbox-fixture", version="0.1.0", environment="docker")
    b.prepare(m)
    assert b._images["where_am_i"] == fixture_image
    launch = b.launch(m, cache_dir=str(tmp_path), memory_mb=512)
    name = launch.argv[list(launch.argv).index("--name") + 1]
    w = WorkerHandle(launch=launch, memory_mb=512)
    try:
        hello = w.start()
        # the plugin's virtualenv inside the image, not Debian's system Python (PEP 668)
        assert hello["protocol"] == 1 and hello["executable"] == "/opt/venv/arena-method-sandbox-fixture/bin/python"
        info = json.loads(subprocess.run([DOCKER, "inspect", name], capture_output=True, text=True,
                                         check=True).stdout)[0]
        host, config = info["HostConfig"], info["Config"]
        assert info["State"]["Running"] is True
        assert host["NetworkMode"] == "none"
        assert host["ReadonlyRootfs"] is True
        assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
        assert host["SecurityOpt"] == ["no-new-privileges"]
        assert host["Privileged"] is False
        assert config["User"] == "65534:65534"
        assert host["Memory"] == host["MemorySwap"] == (512 + CGROUP_HEADROOM_MB) * 1024 * 1024
        assert host["PidsLimit"] == 512
        assert host["Init"] is True and host["AutoRemove"] is True
        assert list(host["Tmpfs"]) == ["/tmp"]
        [mount] = info["Mounts"]
        assert (mount["Type"], mount["Source"], mount["Destination"], mount["RW"]) == \
            ("bind", str(tmp_path), str(tmp_path), False)
        # and from inside: no interface but loopback, and / is not writable
        probe = subprocess.run([DOCKER, "exec", name, "python", "-c",
                                "import os, socket; print(sorted(n for _i, n in socket.if_nameindex())); "
                                "print(os.access('/', os.W_OK), os.getuid())"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
        assert probe[0] == "['lo']" and probe[1] == "False 65534"
    finally:
        w.close()


def test_a_grid_through_docker_matches_the_venv_backend(fixture_image, tmp_path):
    from arena_sandbox.envs import build
    from arena_sandbox.venv import VenvBackend

    build(str(FIXTURE))
    inst = ChainInstance("chain-docker", splits=("obs",), n_replicates=2)
    rows = {}
    for backend in (VenvBackend(), DockerBackend()):
        env = "venv" if backend.name == "venv" else "docker"
        m = MethodInfo(name="where_am_i", factory="arena_method_sandbox_fixture.method:WhereAmI",
                       distribution="arena-method-sandbox-fixture", version="0.1.0", environment=env)
        backend.prepare(m)
        cache = tmp_path / env / "datasets"
        cache.mkdir(parents=True)
        store = Store(str(tmp_path / env / "r.sqlite"))
        run_grid(make_cells([inst], [m]), get_registry(), store, progress=False, cache_dir=str(cache),
                 launcher=lambda mm, b=backend, c=cache: b.launch(mm, cache_dir=str(c), memory_mb=1000),
                 memory_mb=1000)
        rows[env] = sorted(store.rows(), key=lambda r: r["replicate"])
        store.close()
    assert [r["status"] for r in rows["docker"]] == ["ok", "ok"]
    assert {r["isolation"] for r in rows["docker"]} == {f"docker:{fixture_image}"}
    # WhereAmI returns 0 → 1 only inside its own sandbox with PYTHONPATH empty: the same metrics both ways
    assert [r["metrics"] for r in rows["docker"]] == [r["metrics"] for r in rows["venv"]]
    assert {r["metrics"]["precision"] for r in rows["docker"]} == {1.0}
    assert {r["metrics"]["recall"] for r in rows["docker"]} == {0.5}


def _fault_plugin(root: Path) -> Path:
    """tests/benchmarks/fault_grid.py packaged as a plugin (its toy methods, registered by name)."""
    import fault_grid

    pkg = root / "src" / "arena_method_fault_grid"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "arena-method-fault-grid"
        version = "0.1.0"
        dependencies = ["causal-arena", "numpy", "psutil"]
        [project.entry-points.causalarena]
        fault_grid = "arena_method_fault_grid.plugin"
        [tool.setuptools.packages.find]
        where = ["src"]
        """))
    (pkg / "__init__.py").write_text("")
    shutil.copy(fault_grid.__file__, pkg / "fault_grid.py")
    records = [(name, cls, {"marker": ""} if cls in ("Spawns", "ReadsStdin") else {})
               for name, cls, _p, _s, _e in fault_grid.METHODS]
    (pkg / "plugin.py").write_text(
        "from causalarena.hookspecs import hookimpl\nfrom causalarena.records import MethodInfo\n\n"
        f"RECORDS = {records!r}\n\n@hookimpl\ndef arena_methods():\n"
        "    for name, cls, params in RECORDS:\n"
        "        yield MethodInfo(name=name, factory='arena_method_fault_grid.fault_grid:' + cls, params=params)\n")
    return root


@pytest.mark.slow
def test_the_fault_grid_gets_the_same_statuses_in_containers(base_image, tmp_path):
    """raise, exit, SIGSEGV, hang past budget, memory past the cap, stdout noise, children: docker = venv."""
    import fault_grid

    from arena_sandbox.envs import build
    from arena_sandbox.venv import VenvBackend

    plugin = _fault_plugin(tmp_path / "plugin")
    build(str(plugin))
    tag = DockerBackend().build_image(str(plugin))
    marker = f"fault-grid-{uuid.uuid4().hex}"
    stored = {}
    try:
        for backend in (VenvBackend(), DockerBackend()):
            cells = fault_grid.build_cells(1, marker, module="arena_method_fault_grid.fault_grid",
                                           distribution="arena-method-fault-grid", version="0.1.0",
                                           environment=backend.name)
            for m in {c.method.name: c.method for c in cells}.values():
                backend.prepare(m)
            cache = tmp_path / backend.name / "datasets"
            cache.mkdir(parents=True)
            store = Store(str(tmp_path / backend.name / "r.sqlite"))
            run_grid(cells, None, store, jobs=2, budget_s=5.0, memory_mb=500.0, progress=False,
                     cache_dir=str(cache), env={fault_grid.MARKER_ENV: marker}, load_timeout_s=120,
                     launcher=lambda m, b=backend, c=cache: b.launch(m, cache_dir=str(c), memory_mb=500.0))
            assert fault_grid.wrong_cells(store, 1) == [], backend.name
            stored[backend.name] = {r["method"]: (r["status"], r["isolation"]) for r in store.rows()}
            store.close()
            assert fault_grid.wait_no_leftovers(marker, 10.0) == [], backend.name
    finally:
        for line in fault_grid.leftovers(marker):
            subprocess.run(["kill", "-9", line.split(":")[0]], check=False)
    assert {k: v[0] for k, v in stored["docker"].items()} == {k: v[0] for k, v in stored["venv"].items()}
    assert {v[1] for k, v in stored["docker"].items() if v[0] not in ("unsupported",)} == {f"docker:{tag}"}


@pytest.mark.slow
def test_a_killed_runner_leaves_no_container_running(fixture_image, tmp_path):
    """SIGKILL the runner while a containerised worker sleeps in fit: the container goes too."""
    marker = tmp_path / "fit-started"
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(HERE.parent.parent / 'core' / 'tests')!r})
        from fault_methods import ChainInstance
        from arena_sandbox.docker import DockerBackend
        from causalarena.records import MethodInfo
        from causalarena.runner import make_cells, run_grid
        from causalarena.store import Store
        b = DockerBackend()
        m = MethodInfo(name="sleep_once", factory="arena_method_sandbox_fixture.method:SleepOnce",
                       distribution="arena-method-sandbox-fixture", version="0.1.0", environment="docker",
                       params={{"marker": "/tmp/started", "seconds": 300.0}})
        b.prepare(m)
        cache = {str(tmp_path / 'datasets')!r}
        run_grid(make_cells([ChainInstance("chain-kill", splits=("obs",))], [m]), None,
                 Store({str(tmp_path / 'r.sqlite')!r}), progress=False, cache_dir=cache,
                 launcher=lambda mm: b.launch(mm, cache_dir=cache))
        """)
    (tmp_path / "datasets").mkdir()
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 120
        running = []
        while time.monotonic() < deadline and not running:
            running = [c for c in _worker_containers()
                       if subprocess.run([DOCKER, "exec", c, "test", "-e", "/tmp/started"]).returncode == 0]
            time.sleep(0.3)
        assert running, "the containerised fit never started"
    finally:
        child.kill()
        child.wait()
    assert not marker.exists()  # the fit wrote its marker inside the container's /tmp, not here
    deadline = time.monotonic() + 20  # the worker's watchdog sees the protocol pipe hang up
    while _worker_containers() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _worker_containers() == []
