"""Isolation selection (auto / none / backends), launches and env_error statuses."""

from __future__ import annotations

import sys

import attrs
import pytest
from fault_methods import TESTS_DIR, ChainInstance, info

from causalarena.isolation import IsolationError, WorkerLaunch, choose_backend, local_launch, requirement_conflicts
from causalarena.plugins import get_registry
from causalarena.records import IsolationInfo, MethodInfo
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

ENV = {"PYTHONPATH": TESTS_DIR}


class _Plugin:
    def __init__(self, **hooks):
        from causalarena.hookspecs import hookimpl

        for name, fn in hooks.items():
            setattr(self, name, hookimpl(fn, specname=name))


def test_requirement_conflicts_reads_the_distribution_and_extra_requirements():
    ok = MethodInfo(name="m", factory="x:Y", requirements=("numpy>=1.0", "attrs"))
    assert requirement_conflicts(ok) == []
    bad = MethodInfo(name="m", factory="x:Y",
                     requirements=("numpy<1.0", "surely-not-a-package-xyz==1.0", "attrs; python_version < '3'"))
    out = requirement_conflicts(bad)
    import numpy

    assert out == [f"numpy<1.0 (installed {numpy.__version__})", "surely-not-a-package-xyz==1.0 (not installed)"]
    # the core's own distribution: every Requires-Dist is installed here
    assert requirement_conflicts(MethodInfo(name="m", factory="x:Y", distribution="causal-arena")) == []
    gone = MethodInfo(name="m", factory="x:Y", distribution="arena-method-not-here")
    assert requirement_conflicts(gone) == ["arena-method-not-here (not installed in this environment)"]


def test_choose_backend_auto_none_and_named():
    here = MethodInfo(name="pc", factory="x:Y", requirements=("numpy>=1",))
    old = MethodInfo(name="sdcd", factory="x:Y", requirements=("numpy<1.0",))
    only = MethodInfo(name="notears", factory="x:Y", environment="venv")
    backends = {"venv": object(), "docker": object()}
    assert choose_backend(here, "auto", backends) == ("none", "requirements satisfied here")
    name, why = choose_backend(old, "auto", backends)
    assert name == "venv" and why.startswith("requirements not satisfied here: numpy<1.0 (installed ")
    assert choose_backend(only, "auto", backends) == ("venv", "installed only in a sandbox environment")
    assert choose_backend(here, "docker", backends) == ("docker", "--isolation docker")
    assert choose_backend(here, "none", {}) == ("none", "--isolation none")
    with pytest.raises(IsolationError, match="installed only in a venv sandbox; run it with --isolation auto or venv"):
        choose_backend(only, "none", backends)
    # a method known only from an image runs in its container under auto, and is named so under none
    image_only = attrs.evolve(only, environment="docker")
    assert choose_backend(image_only, "auto", backends) == ("docker", "installed only in a docker sandbox")
    with pytest.raises(IsolationError, match="installed only in a docker sandbox; run it with --isolation auto or "
                                             "docker"):
        choose_backend(image_only, "none", backends)
    with pytest.raises(IsolationError, match=r"installed only in a docker sandbox and the docker backend is not "
                                             r"installed \(pip install arena-sandbox\)"):
        choose_backend(image_only, "auto", {})
    with pytest.raises(IsolationError, match=r"needs its own environment .*pip install arena-sandbox"):
        choose_backend(old, "auto", {})
    with pytest.raises(IsolationError, match=r"backend 'docker' is not installed; installed: \['none'\]"):
        choose_backend(here, "docker", {})


def test_backends_register_through_the_hook_and_sandbox_records_keep_their_distribution():
    plugin = _Plugin(
        arena_isolation_backends=lambda: [IsolationInfo(name="fake", factory="x:Y")],
        arena_methods=lambda: [MethodInfo(name="remote", factory="x:Y", environment="venv",
                                          distribution="arena-method-remote", version="9.9")],
    )
    reg = get_registry(extra_plugins=[plugin])
    assert reg.isolation_backends["fake"].factory == "x:Y"
    rec = reg.method("remote")
    assert (rec.distribution, rec.version, rec.environment) == ("arena-method-remote", "9.9", "venv")
    assert {"kind": "isolation backend", "name": "fake"}.items() <= next(
        r for r in reg.as_rows() if r["name"] == "fake").items()


def test_launcher_argv_and_env_reach_the_worker_and_the_label_is_recorded(tmp_path):
    inst = ChainInstance("chain-iso", splits=("obs",), n_replicates=2)
    cells = make_cells([inst], [info("mark", "ReportsEnv")])
    launches = []

    def launcher(m):
        launches.append(m.name)
        # `-X dev`: a different command line than the default, as a sandbox interpreter would be
        return WorkerLaunch(argv=(sys.executable, "-X", "dev"), env={"ARENA_TEST_MARK": "1"},
                            label="venv:test123")

    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(cells, None, store, env=ENV, progress=False, launcher=launcher)
    rows = store.rows()
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert {r["isolation"] for r in rows} == {"venv:test123"}
    assert launches == ["mark"]  # one worker served both cells
    assert [r["worker_seq"] for r in sorted(rows, key=lambda r: r["replicate"])] == [1, 2]
    assert len({r["worker_id"] for r in rows}) == 1 and rows[0]["start_seconds"] > 0
    # without the launcher the mark is absent: the env really came from the launch
    store2 = Store(str(tmp_path / "r2.sqlite"))
    run_grid(cells, None, store2, env=ENV, progress=False)
    assert {r["isolation"] for r in store2.rows()} == {"none"}


def test_an_isolation_error_is_env_error_for_every_cell_of_that_method_only(tmp_path):
    inst = ChainInstance("chain-iso2", splits=("obs",), n_replicates=2)
    cells = make_cells([inst], [info("sdcd", "Chain"), info("chain", "Chain")])
    calls = []

    def launcher(m):
        calls.append(m.name)
        if m.name == "sdcd":
            raise IsolationError("no sandbox environment for arena-method-sdcd; run `arena sandbox build sdcd`")
        return local_launch()

    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(cells, None, store, env=ENV, progress=False, launcher=launcher)
    by = {(r["method"], r["replicate"]): r for r in store.rows()}
    for rep in (0, 1):
        assert by[("sdcd", rep)]["status"] == "env_error"
        assert "arena sandbox build sdcd" in by[("sdcd", rep)]["error"]
        assert by[("chain", rep)]["status"] == "ok"
    assert calls.count("sdcd") == 1  # asked once, remembered for the method's other cells


def test_method_environment_error_gives_env_error_at_fit_and_at_load(tmp_path):
    inst = ChainInstance("chain-r", splits=("obs",), n_replicates=2)
    cells = make_cells([inst], [info("r_fit", "NeedsR"), info("r_load", "NeedsR", params={"at_load": True})])
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(cells, None, store, env=ENV, progress=False)
    by = {(r["method"], r["replicate"]): r for r in store.rows()}
    for rep in (0, 1):
        assert by[("r_fit", rep)]["status"] == "env_error"
        assert by[("r_fit", rep)]["error"].endswith("MethodEnvironmentError: R package 'pcalg' is not installed")
        assert by[("r_load", rep)]["status"] == "env_error"
        assert "Rscript not found on PATH" in by[("r_load", rep)]["error"]


def test_preload_receives_the_parameters_it_names(tmp_path):
    inst = ChainInstance("chain-pre", splits=("obs",), n_replicates=2)
    store = Store(str(tmp_path / "r.sqlite"))
    method = info("prep", "PreloadsParams", params={"checkpoint": "/ckpt/a", "alpha": 0.2})
    run_grid(make_cells([inst], [method]), get_registry(), store, env=ENV, progress=False)
    rows = store.rows()
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert all(r["metrics"]["precision"] == 1.0 for r in rows)  # preload saw checkpoint="/ckpt/a" (not alpha)


def test_preload_params_by_signature():
    from causalarena.worker import _preload_params

    def none():
        pass

    def named(checkpoint=None, hub=None):
        pass

    def kwargs(**kw):
        pass

    params = {"checkpoint": "c", "alpha": 1}
    assert _preload_params(none, params) == {}
    assert _preload_params(named, params) == {"checkpoint": "c"}
    assert _preload_params(kwargs, params) == params


def test_preload_runs_once_at_load_and_counts_as_load_time(tmp_path):
    inst = ChainInstance("chain-pre", splits=("obs",), n_replicates=3)
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(make_cells([inst], [info("pre", "Preloads")]), get_registry(), store, env=ENV, progress=False)
    rows = sorted(store.rows(), key=lambda r: r["replicate"])
    assert [r["status"] for r in rows] == ["ok"] * 3
    assert all(r["metrics"]["precision"] == 1.0 for r in rows)  # fit saw the preloaded state
    assert {r["load_seconds"] for r in rows} == {rows[0]["load_seconds"]} and rows[0]["load_seconds"] >= 0.3
    assert max(r["fit_seconds"] for r in rows) < 0.3  # the 0.3 s import is not in the first fit
