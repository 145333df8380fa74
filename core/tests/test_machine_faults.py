"""Faults of the machine are never method results (issue 12, items 1-3).

An environment error of the harness's own I/O (the dataset cache, the worker
log, the result store) stops the run with one line naming the path, the cause
and the remedy; nothing is stored for the cells it could not build, what was
stored is kept, and the rerun resumes. A fault of the method (its own OSError
in fit) or of the family's generator stays the cell's status. A corrupt,
truncated or foreign store is one line with its path and the remedy.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys

import pytest
from fault_methods import TESTS_DIR, ChainInstance, info

from causalarena.cli import main
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import FamilyInfo, MethodInfo
from causalarena.runner import Cell, WorkerHandle, run_grid
from causalarena.store import MACHINE_FAULT_EXIT, MachineFault, Store, StoreError

ENV = {"PYTHONPATH": TESTS_DIR}
CHAIN = info("chain", "Chain")
UNSUPPORTED_FIRST = Cell("toy", ChainInstance("chain-0"), "obs_int", 0, CHAIN)  # stored without a dataset


def _cells(n: int = 1):
    """The unsupported obs_int cell, then ``n`` obs cells that need a dataset and a worker."""
    return [UNSUPPORTED_FIRST] + [Cell("toy", ChainInstance(f"chain-{i}"), "obs", 0, CHAIN) for i in range(n)]


def _statuses(store):
    return {(r["scm_id"], r["split"]): r["status"] for r in store.rows()}


# -- item 1: the harness's own I/O ---------------------------------------------------------------


@pytest.mark.parametrize("code", ["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EIO"])
def test_dataset_cache_write_error_stops_the_grid_and_stores_nothing_for_the_cell(tmp_path, monkeypatch, code):
    from causalarena.data import Dataset

    num = getattr(errno, code)

    def refuse(self, path):
        raise OSError(num, os.strerror(num), path)

    monkeypatch.setattr(Dataset, "save", refuse)
    cache = tmp_path / "datasets"
    store = Store(str(tmp_path / "arena.sqlite"))
    with pytest.raises(MachineFault) as caught:
        run_grid(_cells(), None, store, env=ENV, progress=False, cache_dir=str(cache), budget_s=30)
    msg = str(caught.value)
    assert f"cannot write the dataset cache {cache}: [Errno {num}] {os.strerror(num)}" in msg
    assert "rerun the same command to resume" in msg and "\n" not in msg
    assert caught.value.path == str(cache)
    # the cell already done is kept; the cell without a dataset is not stored (so a rerun runs it)
    assert _statuses(store) == {("chain-0", "obs_int"): "unsupported"}
    assert os.listdir(cache) == []  # no partial .tmp left to keep the disk full


def test_dataset_cache_fault_then_rerun_resumes(tmp_path, monkeypatch):
    from causalarena.data import Dataset

    real_save = Dataset.save
    monkeypatch.setattr(Dataset, "save", lambda self, path: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device", path)))
    cache = str(tmp_path / "datasets")
    store = Store(str(tmp_path / "arena.sqlite"))
    with pytest.raises(MachineFault):
        run_grid(_cells(2), None, store, env=ENV, progress=False, cache_dir=cache, budget_s=30)
    assert len(store.rows()) == 1
    monkeypatch.setattr(Dataset, "save", real_save)  # space freed
    summary = run_grid(_cells(2), None, store, env=ENV, progress=False, cache_dir=cache, budget_s=30)
    assert summary.skipped == 1 and summary.counts == {"ok": 2}
    assert _statuses(store) == {("chain-0", "obs_int"): "unsupported", ("chain-0", "obs"): "ok",
                                ("chain-1", "obs"): "ok"}


def test_worker_log_or_spawn_io_error_is_a_machine_fault(tmp_path, monkeypatch):
    """An OSError the runner itself raises outside the family (here starting a worker: its log file) stops the run."""
    def no_space(self):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "datasets" / "arena-worker-x.log"))

    monkeypatch.setattr(WorkerHandle, "start", no_space)
    store = Store(str(tmp_path / "arena.sqlite"))
    with pytest.raises(MachineFault) as caught:
        run_grid(_cells(), None, store, env=ENV, progress=False, cache_dir=str(tmp_path / "datasets"))
    assert "[Errno 28] No space left on device" in str(caught.value) and "arena-worker-x.log" in str(caught.value)
    assert _statuses(store) == {("chain-0", "obs_int"): "unsupported"}


def test_a_missing_worker_interpreter_is_the_cells_failure_not_the_machines(tmp_path):
    """A launch naming an interpreter that is not there (a removed sandbox) fails that method's cells and the
    grid goes on: it is the method's setup, not the disk or the store."""
    from causalarena.isolation import WorkerLaunch

    missing = str(tmp_path / "gone-venv" / "bin" / "python")
    store = Store(str(tmp_path / "arena.sqlite"))
    run_grid(_cells(2), None, store, env=ENV, progress=False, cache_dir=str(tmp_path / "datasets"),
             launcher=lambda m: WorkerLaunch(argv=(missing,), label="venv:gone"))
    rows = {(r["scm_id"], r["split"]): r for r in store.rows()}
    assert {k: r["status"] for k, r in rows.items()} == {
        ("chain-0", "obs_int"): "unsupported", ("chain-0", "obs"): "failed", ("chain-1", "obs"): "failed"}
    assert f"cannot start the worker interpreter {missing!r}: No such file or directory" in rows[("chain-1", "obs")]["error"]


def test_cache_folder_that_cannot_be_created_is_a_machine_fault(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(MachineFault) as caught:
        run_grid(_cells(), None, Store(":memory:"), progress=False, cache_dir=str(blocker / "datasets"))
    assert f"cannot create the dataset cache {blocker / 'datasets'}" in str(caught.value)


def test_the_methods_own_oserror_stays_a_method_status(tmp_path):
    (tmp_path / "disk_full_method.py").write_text(
        "import errno\nfrom causalarena.method import Method\n"
        "class DiskFull(Method):\n"
        "    def fit(self, dataset):\n"
        "        raise OSError(errno.ENOSPC, 'No space left on device', '/scratch/model.bin')\n")
    method = MethodInfo(name="diskfull", factory="disk_full_method:DiskFull")
    cells = [Cell("toy", ChainInstance(f"chain-{i}"), "obs", 0, method) for i in range(2)]
    store = Store(":memory:")
    summary = run_grid(cells, None, store, env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{TESTS_DIR}"},
                       progress=False, cache_dir=str(tmp_path / "datasets"), budget_s=30)
    assert summary.counts == {"failed": 2}
    assert all("No space left on device" in r["error"] for r in store.rows())


class _GeneratorRaises(ChainInstance):
    def dataset(self, *args, **kwargs):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/data/missing.csv")


def test_a_family_generator_that_raises_is_still_the_cells_failure(tmp_path):
    store = Store(":memory:")
    cell = Cell("toy", _GeneratorRaises("chain-0"), "obs", 0, CHAIN)
    summary = run_grid([cell], None, store, progress=False, cache_dir=str(tmp_path / "datasets"))
    assert summary.counts == {"failed": 1}
    assert store.rows()[0]["error"].startswith("dataset construction failed: FileNotFoundError")


def _can_mount() -> bool:
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    return subprocess.run(["which", "mount"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_mount(), reason="needs root and mount to make a tiny tmpfs")
def test_a_real_full_disk_under_the_dataset_cache(tmp_path):
    cache = tmp_path / "datasets"
    cache.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(cache)]).returncode != 0:
        pytest.skip("mount -t tmpfs refused here")
    try:
        big = [Cell("toy", ChainInstance("chain-big", n=20000), "obs", 0, CHAIN)]  # 480 kB > 64 kB
        store = Store(str(tmp_path / "arena.sqlite"))
        with pytest.raises(MachineFault) as caught:
            run_grid([UNSUPPORTED_FIRST] + big, None, store, env=ENV, progress=False, cache_dir=str(cache))
        assert "[Errno 28] No space left on device" in str(caught.value)
        assert _statuses(store) == {("chain-0", "obs_int"): "unsupported"}
        assert os.listdir(cache) == []
    finally:
        subprocess.run(["umount", str(cache)])


# -- item 2: a full store ------------------------------------------------------------------------


def _row(i: int, **kw):
    return dict(family="f", scm_id=f"s{i}", split="obs", replicate=0, method="m", config_hash="h", status="ok", **kw)


def _fill(store: Store) -> None:
    """Cap the database at its current size (SQLite then raises SQLITE_FULL on growth)."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_store_names_the_real_cause_and_its_path(tmp_path):
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    store.record(_row(0))
    _fill(store)
    with pytest.raises(StoreError) as caught:
        for i in range(1, 50):
            store.record(_row(i, error="x" * 4000))
    msg = str(caught.value)
    assert msg.startswith(f"cannot write the result store {path}: database or disk is full: free space")
    assert "cannot rollback" not in msg and "\n" not in msg
    assert isinstance(caught.value, MachineFault) and caught.value.path == path
    assert not store._conn.in_transaction
    assert {r["scm_id"] for r in store.rows()} >= {"s0"}  # what was stored is kept, the store still reads


def test_a_full_store_stops_the_grid_and_is_never_recorded_as_the_method(tmp_path):
    store = Store(str(tmp_path / "arena.sqlite"))
    store.record(_row(0))
    _fill(store)
    method = info("m", "Chain")
    cells = [Cell("toy", ChainInstance(f"chain-{i}"), "obs_int", 0, method) for i in range(40)]  # all unsupported
    with pytest.raises(StoreError, match="database or disk is full"):
        run_grid(cells, None, store, progress=False, cache_dir=str(tmp_path / "datasets"))
    assert all(r["status"] in ("ok", "unsupported") for r in store.rows())


# -- item 3: corrupt, truncated or foreign stores ------------------------------------------------


def _good_store_bytes(tmp_path) -> bytes:
    path = tmp_path / "good.sqlite"
    with Store(str(path)) as st:
        for i in range(200):
            st.record(_row(i, error="x" * 500))
        st._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.read_bytes()


def _corrupt(kind: str, path, tmp_path) -> str:
    """Write a broken store of ``kind`` at ``path``; SQLite's own words for it."""
    if kind == "random":
        path.write_bytes(os.urandom(8192))
        return "file is not a database"
    if kind == "truncated":
        data = _good_store_bytes(tmp_path)
        path.write_bytes(data[: len(data) // 2])
        return "database disk image is malformed"
    con = sqlite3.connect(path)  # another program's SQLite database
    con.execute("CREATE TABLE notes (x TEXT)")
    con.commit()
    con.close()
    return "no table 'runs'; its tables: notes"


KINDS = ["random", "truncated", "foreign"]


@pytest.mark.parametrize("readonly", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_store_open_of_a_broken_file_names_path_and_remedy(tmp_path, kind, readonly):
    path = tmp_path / "arena.sqlite"
    why = _corrupt(kind, path, tmp_path)
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store(str(path), readonly=readonly)
    assert str(caught.value) == (f"{path} is not a CausalArena result store ({why}): move it away or pass "
                                 "another --results folder")
    assert path.read_bytes() == before  # a foreign database is not taken over


def test_a_runs_table_without_the_key_columns_is_not_a_store(tmp_path):
    path = tmp_path / "arena.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE runs (id INTEGER, status TEXT)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=r"its table 'runs' lacks the column\(s\) family, scm_id"):
        Store(str(path))


def test_an_empty_file_becomes_a_store(tmp_path):
    path = tmp_path / "arena.sqlite"
    path.write_bytes(b"")
    with Store(str(path)) as st:
        st.record(_row(0))
        assert len(st.rows()) == 1


class _ToyFamilies:
    __distribution__ = "arena-test-machine-faults"

    @hookimpl
    def arena_families(self):
        yield FamilyInfo(name="toy", kind="synthetic", factory="family_toys:GoodFamily")

    @hookimpl
    def arena_methods(self):
        yield info("chain", "Chain")


@pytest.fixture(scope="module")
def reg():
    return get_registry(strict=False, extra_plugins=[_ToyFamilies()])


@pytest.mark.parametrize("command", ["run", "report"])
@pytest.mark.parametrize("kind", KINDS)
def test_cli_reports_a_broken_store_in_one_line_with_path_and_remedy(reg, capsys, tmp_path, kind, command):
    results = tmp_path / "r"
    results.mkdir()
    path = results / "arena.sqlite"
    why = _corrupt(kind, path, tmp_path)
    argv = [command, "--results", str(results)]
    if command == "run":
        argv += ["--families", "toy", "--methods", "chain", "--splits", "obs", "--replicates", "1", "--no-progress"]
    code = main(argv, registry=reg)
    out, err = capsys.readouterr()
    assert code == MACHINE_FAULT_EXIT == 3
    assert err == (f"arena {command}: error: {path} is not a CausalArena result store ({why}): move it away or "
                   "pass another --results folder\n")


def test_cli_run_on_a_full_dataset_disk_exits_3_then_resumes(reg, capsys, tmp_path, monkeypatch):
    from causalarena.data import Dataset

    monkeypatch.setenv("PYTHONPATH", TESTS_DIR)
    real_save = Dataset.save
    monkeypatch.setattr(Dataset, "save", lambda self, path: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device", path)))
    results = tmp_path / "r"
    argv = ["run", "--results", str(results), "--families", "toy", "--methods", "chain", "--replicates", "1",
            "--no-progress", "--isolation", "none", "--jobs", "1"]
    code = main(argv, registry=reg)
    out, err = capsys.readouterr()
    assert code == 3
    assert err == (f"arena run: error: cannot write the dataset cache {results / 'datasets'}: [Errno 28] No space "
                   "left on device: free space on that disk (or pass another --results folder), then rerun the "
                   "same command to resume\n")
    with Store(str(results / "arena.sqlite"), readonly=True) as st:
        assert {r["status"] for r in st.rows()} <= {"unsupported"}  # nothing recorded as the method's
    monkeypatch.setattr(Dataset, "save", real_save)
    assert main(argv, registry=reg) == 0
    out, err = capsys.readouterr()
    with Store(str(results / "arena.sqlite"), readonly=True) as st:
        assert {(r["scm_id"], r["split"]): r["status"] for r in st.rows() if r["split"] == "obs"} == {
            ("chain-w1", "obs"): "ok", ("chain-w2", "obs"): "ok"}
