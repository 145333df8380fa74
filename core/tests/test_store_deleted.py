"""The result store deleted or replaced mid-run stops the run with a store error (a machine fault, exit 3)."""

from __future__ import annotations

import os
import threading
import time

import pytest
from fault_methods import ChainInstance, info, stored_runs

from causalarena.cli import main
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import FamilyInfo
from causalarena.runner import make_cells, run_grid
from causalarena.store import MACHINE_FAULT_EXIT, Store, StoreError


@pytest.mark.parametrize("how", ["db", "all three files", "replaced"])
def test_a_store_deleted_while_the_grid_writes_stops_the_run(tmp_path, monkeypatch, how):
    monkeypatch.setenv("PYTHONPATH", os.path.dirname(__file__))
    db = str(tmp_path / "runs.sqlite")
    store = Store(db)

    def saboteur():
        deadline = time.monotonic() + 60
        while stored_runs(db) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        for suffix in ("", "-wal", "-shm") if how == "all three files" else ("",):
            try:
                os.unlink(db + suffix)
            except FileNotFoundError:
                pass
        if how == "replaced":
            open(db, "wb").close()  # an empty file under the same name: another inode

    t = threading.Thread(target=saboteur)
    t.start()
    m = info("slow_chain", "Chain", params={"sleep": 0.3})
    with pytest.raises(StoreError, match=r"the result store .*runs\.sqlite was (deleted|replaced by another file) "
                                         r"while this run was writing to it"):
        run_grid(make_cells([ChainInstance("c", splits=("obs",), n_replicates=8)], [m]), None, store,
                 progress=False, cache_dir=str(tmp_path / "d"))
    t.join()
    store.close()


def test_an_in_memory_store_is_not_checked():
    s = Store(":memory:")
    s.record({"family": "f", "scm_id": "s", "split": "obs", "replicate": 0, "method": "m", "config_hash": "h",
              "status": "ok"})
    assert len(s.rows()) == 1


class _Toys:
    __distribution__ = "arena-test-store-deleted"

    @hookimpl
    def arena_families(self):
        yield FamilyInfo(name="toy", kind="synthetic", factory="family_toys:GoodFamily")

    @hookimpl
    def arena_methods(self):
        yield info("chain", "Chain")


def test_a_store_deleted_after_the_last_write_is_not_reported_stored(tmp_path, monkeypatch, capsys):
    """Deleted after the grid's last row (or on a rerun that skips every cell: no write at all), the run must
    not read the unlinked inode back and print "every run stored in this folder": exit 3 naming the file."""
    import causalarena.runner as runner

    monkeypatch.setenv("PYTHONPATH", os.path.dirname(__file__))
    results = tmp_path / "r"
    db = results / "arena.sqlite"
    real_run_grid = runner.run_grid

    def run_then_delete(*args, **kwargs):
        summary = real_run_grid(*args, **kwargs)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{db}{suffix}"):
                os.unlink(f"{db}{suffix}")
        return summary

    monkeypatch.setattr(runner, "run_grid", run_then_delete)
    reg = get_registry(strict=False, extra_plugins=[_Toys()])
    argv = ["run", "--results", str(results), "--families", "toy", "--methods", "chain", "--splits", "obs",
            "--replicates", "1", "--no-progress", "--isolation", "none", "--jobs", "1"]
    code = main(argv, registry=reg)
    out, err = capsys.readouterr()
    assert code == MACHINE_FAULT_EXIT == 3
    assert "every run stored" not in out
    assert err.startswith(f"arena run: error: the result store {db} was deleted while this run was writing to it")
    assert not db.exists()
