"""The memory cap: a cap no worker can live under is a usage error; a fast allocation past the cap is oom."""

from __future__ import annotations

import numpy as np
from fault_methods import ChainInstance, info

from causalarena.cli import main
from causalarena.runner import MIN_MEMORY_MB, make_cells, run_grid
from causalarena.store import Store


def test_an_impossible_cap_is_a_usage_error(tmp_path, capsys):
    assert main(["run", "--memory-mb", "1", "--results", str(tmp_path / "r"), "--methods", "x"]) == 2
    err = capsys.readouterr().err
    assert f"--memory-mb 1: below the {MIN_MEMORY_MB} MB a worker needs to load a dataset" in err
    assert not (tmp_path / "r").exists()  # refused before anything was created


def test_an_allocation_between_two_polls_is_oom_not_ok(tmp_path, monkeypatch):
    """100 MB touched and freed in ~30 ms, on a worker of ~70 MB, cap 128 MB: the 0.1 s poll sees it about one
    time in four and the RLIMIT_DATA backstop (data segment + cap + 256 MB + 64 MB a core) never; the worker's own
    peak (VmHWM, reset before the fit) always does. (Before: stored ok in 10 of 10 runs here.)"""
    monkeypatch.setenv("PYTHONPATH", str(__import__("pathlib").Path(__file__).parent))
    m = info("alloc100", "AllocatesBriefly", params={"mb": 100})
    small = info("alloc0", "AllocatesBriefly", params={"mb": 1})
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(make_cells([ChainInstance("c", splits=("obs",), n_replicates=1)], [m, small]), None, store,
             progress=False, memory_mb=128.0, cache_dir=str(tmp_path / "d"))
    rows = {r["method"]: r for r in store.rows()}
    assert rows["alloc100"]["status"] == "oom"
    assert "exceeded the cap of 128 MB" in rows["alloc100"]["error"]
    assert rows["alloc100"]["peak_rss_mb"] > 128
    assert rows["alloc0"]["status"] == "ok" and np.isfinite(rows["alloc0"]["peak_rss_mb"])
    store.close()
