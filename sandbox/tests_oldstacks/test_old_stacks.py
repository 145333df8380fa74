"""The old-stack methods in containers: sdcd (numpy 1.26, pandas 1.5) and avici (lean install, JAX).

Each runs the same small grid through the ``venv`` backend and the ``docker``
backend; the stored statuses and metrics must be identical (same resolved set,
same seeds: the container changes where the worker runs, not what it computes).
Then one grid runs methods of both backends and of this environment at once.
Neither plugin is installed in this environment (numpy 2 here).

Needs a Docker engine, debootstrap and root (see ``sandbox/tests/test_docker_engine.py``);
``CAUSALARENA_REQUIRE_DOCKER=1`` makes a missing engine a failure. Builds ~4
environments/images: ~6 minutes on 2 cores with a warm pip cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from causalarena.records import MethodInfo
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "sandbox" / "tests"))
from sandbox_support import engine_or_skip, scoped_env  # noqa: E402

CONSTRAINTS = [str(ROOT / "constraints.txt")]
METRICS = ("f1", "shd", "sid", "precision", "recall", "auroc", "ap")

SDCD = MethodInfo(name="sdcd", factory="arena_method_sdcd.method:SDCD", distribution="arena-method-sdcd",
                  version="0.1.0", supports_interventions=True,
                  # a short schedule: the comparison is of backends, not of SDCD's accuracy
                  params={"threshold": 0.1, "n_epochs_stage1": 150, "n_epochs_stage2": 150})
AVICI = MethodInfo(name="avici", factory="arena_method_avici.method:AVICI", distribution="arena-method-avici",
                   version="0.1.0", supports_interventions=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """venv + image of sdcd and avici, and a tiny avici checkpoint made in avici's own environment."""
    engine_or_skip()
    root = tmp_path_factory.mktemp("sandbox")
    with scoped_env("CAUSALARENA_SANDBOX_DIR", str(root)):
        yield _build_all(tmp_path_factory)


def _build_all(tmp_path_factory):
    """Build both plugins' environments and images (in the scoped sandbox folder)."""
    import attrs

    from arena_sandbox.docker import DockerBackend
    from arena_sandbox.envs import build

    out = {}
    for plugin in ("sdcd", "avici"):
        manifest = build(str(ROOT / "plugins" / plugin), constraints=CONSTRAINTS)
        tag = DockerBackend(constraints=CONSTRAINTS).build_image(str(ROOT / "plugins" / plugin))
        out[plugin] = (manifest, tag)
    ck = tmp_path_factory.mktemp("avici-checkpoint")
    subprocess.run([out["avici"][0]["interpreter"], "-c",
                    "import sys; from arena_method_avici.checkpoint import save_tiny_checkpoint; "
                    "save_tiny_checkpoint(sys.argv[1], 'tiny', seed=0)", str(ck)], check=True, capture_output=True)
    # pytest's folders are 0700; the container's user 65534 reads the checkpoint as "others"
    for d in (ck, *[p for p in ck.rglob("*")]):
        d.chmod(0o755 if d.is_dir() else 0o644)
    out["avici_method"] = attrs.evolve(AVICI, params={"threshold": 0.5, "checkpoint": str(ck / "tiny")})
    return out


def _instances():
    sys.path.insert(0, str(ROOT / "core" / "tests"))
    from fault_methods import ChainInstance

    return [ChainInstance(f"chain-old-{i}", splits=("obs", "obs_int"), n_replicates=1) for i in range(2)]


def _run(methods, backends, tmp_path, name):
    """Run ``methods`` (each through ``backends[method.name]``, None = here) into a fresh store; rows by cell."""
    from causalarena.isolation import local_launch
    from causalarena.plugins import get_registry

    cache = tmp_path / name / "datasets"
    cache.mkdir(parents=True)
    for m in methods:
        if backends.get(m.name) is not None:
            backends[m.name].prepare(m)

    def launcher(m):
        b = backends.get(m.name)
        return local_launch() if b is None else b.launch(m, cache_dir=str(cache), memory_mb=4000)

    store = Store(str(tmp_path / name / "r.sqlite"))
    run_grid(make_cells(_instances(), methods), get_registry(), store, progress=False, cache_dir=str(cache),
             launcher=launcher, memory_mb=4000, budget_s=900)
    rows = {(r["method"], r["scm_id"], r["split"]): r for r in store.rows()}
    store.close()
    return rows


@pytest.mark.parametrize("plugin", ["sdcd", "avici"])
def test_docker_and_venv_store_identical_metrics(built, plugin, tmp_path):
    import attrs

    from arena_sandbox.docker import DockerBackend
    from arena_sandbox.venv import VenvBackend

    method = SDCD if plugin == "sdcd" else built["avici_method"]
    got = {}
    for env, backend in (("venv", VenvBackend(constraints=CONSTRAINTS)),
                         ("docker", DockerBackend(constraints=CONSTRAINTS))):
        m = attrs.evolve(method, environment=env)
        got[env] = _run([m], {m.name: backend}, tmp_path, env)
    assert sorted(got["docker"]) == sorted(got["venv"]) and len(got["docker"]) == 4  # 2 SCMs × obs, obs+int
    for key, d in got["docker"].items():
        v = got["venv"][key]
        assert d["status"] == v["status"] == "ok", (key, d["error"], v["error"])
        assert d["isolation"] == f"docker:{built[plugin][1]}" and v["isolation"].startswith(f"venv:arena-method-{plugin}")
        for metric in METRICS:
            assert np.array_equal(d["metrics"].get(metric), v["metrics"].get(metric), equal_nan=True), (key, metric)


def test_one_grid_runs_methods_of_both_backends_and_this_environment(built, tmp_path, monkeypatch):
    import attrs

    from arena_sandbox.docker import DockerBackend
    from arena_sandbox.venv import VenvBackend

    here = MethodInfo(name="chain", factory="fault_methods:Chain", distribution="<test>")
    # the local worker imports fault_methods (the isolated ones empty PYTHONPATH themselves)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "core" / "tests"), os.environ.get("PYTHONPATH", "")]))
    avici = attrs.evolve(built["avici_method"], environment="docker")
    sdcd = attrs.evolve(SDCD, environment="venv")
    rows = _run([avici, sdcd, here], {"avici": DockerBackend(constraints=CONSTRAINTS),
                                      "sdcd": VenvBackend(constraints=CONSTRAINTS), "chain": None}, tmp_path, "mixed")
    by_method = {}
    for (method, _scm, _split), r in rows.items():
        by_method.setdefault(method, set()).add((r["status"], (r["isolation"] or "-").split(":")[0]))
    assert by_method["avici"] == {("ok", "docker")}
    assert by_method["sdcd"] == {("ok", "venv")}
    # Chain declares no interventions: its obs+int cells are unsupported (never started, no isolation)
    assert by_method["chain"] == {("ok", "none"), ("unsupported", "-")}
