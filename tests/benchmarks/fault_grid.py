"""Fault-injection grid (issue 12, "Done when"): every cell's status right, no process left over.

Builds ``instances × METHODS`` cells (obs split, one replicate): healthy
methods beside methods that raise, segfault, ``os._exit``, hang past the
budget (alone and with a setsid child), exceed the memory cap (one huge
allocation: the worker's rlimit backstop; gradual growth: the RSS monitor), return
garbage (NaN, a cycle, a wrong shape), leave ``start_new_session=True``
children and daemons running after a healthy fit, or start children that read
stdin (healthy cells of the same worker follow them). Every child carries the
grid's unique marker argument, every worker the marker in its environment.

After the grid it asserts that every stored status equals :data:`METHODS`'
expected status (and that the error names the fault), and that no process
carrying the marker — child or worker — remains (psutil). With
``--sigkill-after K`` the grid first runs in a child process that is killed
with SIGKILL once K cells are stored; the orphaned workers and their children
must vanish, and the rerun resumes the grid to the same statuses.

Run (from the repository root; about 1–2 min on 2 busy cores)::

    python tests/benchmarks/fault_grid.py [--instances 7] [--jobs 2] [--budget 3] [--sigkill-after 30]
    python tests/benchmarks/fault_grid.py --quick   # 1 instance (17 cells), no SIGKILL phase (CI)

``--quick`` is still checked: a wrong status or a leftover process exits 1
(those are the grid's correctness, not a timing target).

Exits 1 and prints the wrong cells / leftover processes on failure. The
full-disk fault (issue 12 item 1, a harness fault: the run stops, nothing is
stored for the cells it could not build) is not in the grid: it needs a
tmpfs under the dataset cache and is tested by that item's own test; pass
``--cache-dir DIR`` to run the grid's datasets through such a folder.

The toy methods live in this module: workers import them as
``fault_grid:<Class>`` with this directory on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.family import Instance
from causalarena.method import Method

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER_ENV = "ARENA_FAULT_GRID"
D = 4
TRUTH = np.eye(D, k=1, dtype=np.int8)  # the chain 0 -> 1 -> ... -> D-1
SLEEPER = "import time; time.sleep(300)"
DAEMONIZE = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', %r, sys.argv[1]], "
             "start_new_session=True, stdin=subprocess.DEVNULL)" % SLEEPER)


# -- toy methods ----------------------------------------------------------------------------------
class Chain(Method):
    """The true chain 0 → 1 → … → d-1."""

    def fit(self, dataset):
        self.adjacency_ = TRUTH.copy()
        return self


class Empty(Method):
    def fit(self, dataset):
        self.adjacency_ = np.zeros((dataset.d, dataset.d))
        return self


class Reversed(Method):
    def fit(self, dataset):
        self.adjacency_ = TRUTH.T.copy()
        return self


class Raises(Method):
    def fit(self, dataset):
        raise ValueError("injected fault: boom in fit")


class Segfaults(Method):
    def fit(self, dataset):
        import ctypes

        ctypes.string_at(0)  # SIGSEGV in C


class Exits(Method):
    def fit(self, dataset):
        os._exit(3)


class Spawns(Method):
    """Starts marked children (``setsid``: a new session; ``daemon``: a setsid grandchild whose
    parent already exited), then ``then`` = ``ok`` (returns the chain), ``hang`` or ``crash``."""

    def __init__(self, marker: str, kinds: Sequence[str] = ("setsid", "daemon"), then: str = "ok"):
        self.marker, self.kinds, self.then = marker, tuple(kinds), then

    def fit(self, dataset):
        for kind in self.kinds:
            if kind == "daemon":
                subprocess.Popen([sys.executable, "-c", DAEMONIZE, self.marker]).wait()
            else:
                subprocess.Popen([sys.executable, "-c", SLEEPER, self.marker], start_new_session=kind == "setsid")
        if self.then == "hang":
            time.sleep(600)
        elif self.then == "crash":
            os._exit(1)
        self.adjacency_ = TRUTH.copy()
        return self


class Hangs(Method):
    def fit(self, dataset):
        time.sleep(600)


class ReadsStdin(Method):
    """Leaves a marked child reading stdin (an R subprocess does), then returns the chain."""

    def __init__(self, marker: str, how: str = "python"):
        self.marker, self.how = marker, how

    def fit(self, dataset):
        if self.how == "cat":
            argv = ["sh", "-c", "cat; sleep 300", self.marker]
        else:
            argv = [sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(300)", self.marker]
        subprocess.Popen(argv)
        self.adjacency_ = TRUTH.copy()
        return self


class AllocatesAtOnce(Method):
    def fit(self, dataset):
        self.blob_ = np.ones(8 * 1024 ** 3 // 8)  # 8 GB: beyond the worker's rlimit backstop
        self.adjacency_ = TRUTH.copy()
        return self


class AllocatesGradually(Method):
    def fit(self, dataset):
        blocks = []
        # 200 MB at a time, up to 3 GB: the RSS monitor kills it at the cap (or, if it grows faster than the
        # 0.1 s polls, the worker's rlimit backstop raises MemoryError: oom either way). 200 MB, not 100: on a
        # loaded machine 100 MB steps once took longer than the 3 s budget (timeout instead of oom)
        for _ in range(15):
            blocks.append(np.ones(200 * 1024 * 1024 // 8))
            time.sleep(0.01)
        self.adjacency_ = TRUTH.copy()
        return self


class ReturnsNaN(Method):
    def fit(self, dataset):
        a = TRUTH.astype(float)
        a[0, 2] = np.nan
        self.adjacency_ = a
        return self


class ReturnsCycle(Method):
    def fit(self, dataset):
        a = TRUTH.copy()
        a[D - 1, 0] = 1
        self.adjacency_ = a
        return self


class ReturnsWrongShape(Method):
    def fit(self, dataset):
        self.adjacency_ = np.zeros((dataset.d + 1, dataset.d + 1))
        return self


# -- the grid -------------------------------------------------------------------------------------
#: (method name, class, params (``marker`` filled in), expected status, text the error must contain)
METHODS: List[Tuple[str, str, Dict[str, Any], str, Optional[str]]] = [
    ("chain", "Chain", {}, "ok", None),
    ("empty", "Empty", {}, "ok", None),
    ("reversed", "Reversed", {}, "ok", None),
    ("setsid_children_ok", "Spawns", {"then": "ok"}, "ok", None),
    ("stdin_reader_python", "ReadsStdin", {"how": "python"}, "ok", None),
    ("stdin_reader_cat", "ReadsStdin", {"how": "cat"}, "ok", None),
    ("raises", "Raises", {}, "failed", "injected fault: boom in fit"),
    ("segfault", "Segfaults", {}, "failed", "SIGSEGV"),
    ("os_exit", "Exits", {}, "failed", "exit code 3"),
    ("hangs", "Hangs", {}, "timeout", "wall-clock budget"),
    ("setsid_children_hang", "Spawns", {"then": "hang"}, "timeout", "wall-clock budget"),
    ("setsid_children_crash", "Spawns", {"then": "crash"}, "failed", "exit code 1"),
    ("alloc_at_once", "AllocatesAtOnce", {}, "oom", "MemoryError"),
    ("alloc_gradually", "AllocatesGradually", {}, "oom", None),
    ("returns_nan", "ReturnsNaN", {}, "invalid_output", None),
    ("returns_cycle", "ReturnsCycle", {}, "invalid_output", None),
    ("returns_wrong_shape", "ReturnsWrongShape", {}, "invalid_output", None),
]
HEALTHY = {name for name, *_rest, status, _ in METHODS if status == "ok" and not name.startswith(("setsid", "stdin"))}


class LinearInstance(Instance):
    """A linear-Gaussian chain on ``D`` variables (deterministic per scm_id)."""

    def __init__(self, scm_id: str, n: int = 200):
        self.family = "fault_grid"
        self.scm_id = scm_id
        self.splits = ("obs",)
        self.n_replicates = 1
        self.factors = {"graph": "chain"}
        self._n = n

    def true_adjacency(self):
        return TRUTH

    def fingerprint(self):
        return f"fault-grid-{self.scm_id}-{self._n}"

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        seed = zlib.crc32(f"{self.scm_id}/{split}/{replicate}".encode())
        rng = np.random.default_rng(seed)
        X = np.zeros((n or self._n, D))
        X[:, 0] = rng.normal(size=len(X))
        for j in range(1, D):
            X[:, j] = 0.8 * X[:, j - 1] + rng.normal(size=len(X))
        if standardise:
            X = (X - X.mean(0)) / X.std(0)
        return Dataset(X=X, columns=[f"X{j}" for j in range(D)], intervention_mask=np.zeros(X.shape, dtype=bool),
                       regime=np.full(len(X), -1), true_adjacency=TRUTH,
                       metadata={"family": self.family, "scm_id": self.scm_id, "split": split,
                                 "replicate": replicate, "seed": seed})


def build_cells(n_instances: int, marker: str, module: str = "fault_grid", **record: Any) -> list:
    """``n_instances × len(METHODS)`` cells; the methods carry ``marker`` where they start children.

    ``module`` is where workers import the toy classes from (``fault_grid`` on
    ``PYTHONPATH``, or this file packaged as a plugin for a sandbox: the docker
    backend's fault test); ``record`` adds MethodInfo fields (distribution,
    version, environment).
    """
    from causalarena.records import MethodInfo
    from causalarena.runner import make_cells

    infos = []
    for name, cls, params, _status, _err in METHODS:
        p = dict(params)
        if cls in ("Spawns", "ReadsStdin"):
            p["marker"] = marker
        infos.append(MethodInfo(name=name, factory=f"{module}:{cls}", params=p, **record))
    return make_cells([LinearInstance(f"lin-{i}") for i in range(n_instances)], infos)


def leftovers(marker: str) -> List[str]:
    """Live processes carrying ``marker``: in their command line (children) or environment (workers)."""
    import psutil

    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        try:
            if p.info["status"] == psutil.STATUS_ZOMBIE or p.pid == os.getpid():
                continue
            cmd = p.info["cmdline"] or []
            if marker in cmd or p.environ().get(MARKER_ENV) == marker:
                found.append(f"{p.pid}: {' '.join(cmd)[:120]}")
        except psutil.Error:
            pass
    return found


def wait_no_leftovers(marker: str, seconds: float = 10.0) -> List[str]:
    deadline = time.monotonic() + seconds
    while leftovers(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    return leftovers(marker)


def wrong_cells(store: Any, n_instances: int) -> List[str]:
    """Every way the stored rows differ from :data:`METHODS` (missing, extra, wrong status or error)."""
    expected = {name: (status, err) for name, _cls, _p, status, err in METHODS}
    rows = store.rows()
    problems = []
    seen: Dict[Tuple[str, str], str] = {}
    for r in rows:
        key = (r["scm_id"], r["method"])
        if key in seen:
            problems.append(f"{key}: stored twice")
        seen[key] = r["status"]
        want, err = expected.get(r["method"], (None, None))
        if r["status"] != want:
            problems.append(f"{key}: status {r['status']!r}, expected {want!r} (error: {r['error']})")
        elif err is not None and err not in (r["error"] or ""):
            problems.append(f"{key}: error {r['error']!r} does not name {err!r}")
    for i in range(n_instances):
        for name in expected:
            if (f"lin-{i}", name) not in seen:
                problems.append(f"(lin-{i}, {name}): not stored")
    return problems


def run(n_instances: int, marker: str, db: str, *, jobs: int, budget_s: float, memory_mb: float,
        cache_dir: Optional[str] = None, progress: bool = False) -> Any:
    """Run (or resume) the grid into the store at ``db``; returns the GridSummary."""
    from causalarena.runner import run_grid
    from causalarena.store import Store

    store = Store(db)
    try:
        env = {"PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               MARKER_ENV: marker}
        return run_grid(build_cells(n_instances, marker), None, store, jobs=jobs, budget_s=budget_s,
                        memory_mb=memory_mb, env=env, progress=progress, cache_dir=cache_dir,
                        load_timeout_s=120)
    finally:
        store.close()


def _stored(db: str) -> int:
    import sqlite3

    try:
        con = sqlite3.connect(db, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def check(n_instances: int = 7, jobs: int = 2, budget_s: float = 3.0, memory_mb: float = 500.0,
          sigkill_after: Optional[int] = None, workdir: Optional[str] = None,
          cache_dir: Optional[str] = None, progress: bool = False) -> Dict[str, Any]:
    """Run the grid and check it; returns ``{"cells", "faults", "problems", "leftovers", "seconds", ...}``.

    ``problems`` (wrong stored cells) and ``leftovers`` (processes with the
    grid's marker) are empty when the grid holds. ``sigkill_after``: first run
    the grid in a child process and SIGKILL it after that many stored cells
    (``leftovers_after_kill`` lists what survived it), then resume in process.
    """
    from causalarena.store import Store

    marker = f"fault-grid-{uuid.uuid4().hex}"
    workdir = workdir or tempfile.mkdtemp(prefix="arena-fault-grid-")
    db = os.path.join(workdir, "runs.sqlite")
    n_cells = n_instances * len(METHODS)
    n_faults = n_instances * sum(1 for m in METHODS if m[0] not in HEALTHY)
    out: Dict[str, Any] = {"cells": n_cells, "faults": n_faults, "marker": marker, "db": db}
    t0 = time.perf_counter()
    try:
        if sigkill_after is not None:
            code = (f"import sys; sys.path.insert(0, {HERE!r}); import fault_grid; "
                    f"fault_grid.run({n_instances}, {marker!r}, {db!r}, jobs={jobs}, budget_s={budget_s}, "
                    f"memory_mb={memory_mb}, cache_dir={cache_dir!r})")
            # TMPDIR: the killed runner cannot remove its dataset cache and worker logs; they go with workdir
            child = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, TMPDIR=workdir))
            deadline = time.monotonic() + 300
            while _stored(db) < sigkill_after and child.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
            out["stored_at_kill"] = _stored(db)
            out["leftovers_after_kill"] = wait_no_leftovers(marker)
        run(n_instances, marker, db, jobs=jobs, budget_s=budget_s, memory_mb=memory_mb, cache_dir=cache_dir,
            progress=progress)
        out["seconds"] = time.perf_counter() - t0
        store = Store(db)
        try:
            out["problems"] = wrong_cells(store, n_instances)
        finally:
            store.close()
        out["leftovers"] = wait_no_leftovers(marker, 5.0)
    finally:
        import psutil

        for line in leftovers(marker):  # never leave the grid's sleepers behind
            try:
                psutil.Process(int(line.split(":")[0])).kill()
            except (psutil.Error, ValueError):
                pass
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=7, help="instances; cells = instances x %d methods" % len(METHODS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budget", type=float, default=3.0, help="wall-clock budget of one fit, s")
    ap.add_argument("--memory-mb", type=float, default=500.0, help="memory cap of one worker's tree, MB")
    ap.add_argument("--sigkill-after", type=int, default=None,
                    help="run in a child first and SIGKILL it after this many stored cells, then resume")
    ap.add_argument("--cache-dir", default=None, help="dataset cache folder (e.g. a small tmpfs: item 1's fault)")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--quick", action="store_true",
                    help="1 instance (one cell per fault kind), no SIGKILL phase: does it still run (CI)")
    args = ap.parse_args(argv)
    if args.quick:
        args.instances, args.sigkill_after = 1, None
        print(f"quick mode: 1 instance ({len(METHODS)} cells, one per method), no SIGKILL phase; "
              "statuses and leftovers are still checked")
    res = check(args.instances, args.jobs, args.budget, args.memory_mb, args.sigkill_after, args.workdir,
                args.cache_dir, progress=True)
    print(f"fault grid: {res['cells']} cells, {res['faults']} faulty ({100.0 * res['faults'] / res['cells']:.0f} %), "
          f"{res['seconds']:.1f} s, store {res['db']}")
    if "stored_at_kill" in res:
        print(f"runner SIGKILLed after {res['stored_at_kill']} stored cells; "
              f"left over after the kill: {len(res['leftovers_after_kill'])}")
    for line in res["problems"]:
        print("WRONG", line)
    for line in res["leftovers"] + res.get("leftovers_after_kill", []):
        print("LEFT OVER", line)
    ok = not (res["problems"] or res["leftovers"] or res.get("leftovers_after_kill"))
    print("fault grid holds" if ok else "fault grid FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
