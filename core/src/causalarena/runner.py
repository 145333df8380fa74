"""Run a grid of cells through warm worker processes into the result store.

A cell is ``(family, instance, split, replicate, method)`` (:class:`Cell`).
For each cell the runner

1. skips it if its key is already in the store (resume);
2. records ``unsupported`` for an obs+int split and a method without
   ``supports_interventions`` (App. B.1: *missing*, not failed), and for an
   instance whose ``data_type`` (e.g. ``"categorical"``) is not among the
   method's ``data_types``;
3. builds the dataset once per ``(family, scm_id, split, replicate)`` and
   caches it as ``.npz`` — a copy *without* the true graph for the worker;
4. runs :func:`causalarena.checks.check_input` → ``invalid_input`` without
   launching anything;
5. fits the method in a warm worker (:class:`WorkerHandle`, protocol in
   :mod:`causalarena.worker`) under a wall-clock budget and a memory cap →
   ``ok`` / ``failed`` / ``timeout`` / ``oom``;
6. checks the output (:func:`causalarena.checks.check_output`) →
   ``invalid_output`` or flags;
7. orients CPDAG/PAG undirected edges with the cell seed
   (:func:`causalarena.metrics.orient_cpdag`, App. B.2) and scores the DAG
   (:func:`causalarena.metrics.compute_metrics`);
8. writes the run (a :class:`causalarena.runs.RunRecord`) and, for an ``ok``
   run, its scored DAG, edge scores and true graph
   (:mod:`causalarena.predictions`) in one transaction
   (:class:`causalarena.store.Store`).

Statuses are :class:`causalarena.records.Status` members; the progress bar
counts :data:`causalarena.records.FAILURE_STATUSES` as failures.

``jobs`` threads each drive their own worker process; cells are grouped by
method so that a worker loads its method once and serves many datasets.

Executors (``arena run --cluster``, hook ``arena_executors``): an object
``executor`` given to :func:`run_grid` runs the cells elsewhere instead. The
runner still skips stored cells and orders the rest by method; it calls
``executor.run(cells, make_runner, on_result, failed_record)`` where

* ``make_runner`` is a picklable zero-argument callable that builds a
  store-less copy of this runner (:meth:`Runner.remote_factory`); the
  executor calls ``copy.execute_cell(cell, slot)`` where the cell runs (one
  ``slot`` dict per thread keeps that thread's warm worker), which returns
  ``(record, kept)``;
* ``on_result(i, record, kept)`` hands back the result of ``cells[i]``; the
  runner stores it (once per cell: a second answer for the same ``i`` is
  dropped) in its own transaction;
* ``failed_record(cell, error)`` builds the ``failed`` record of a cell the
  executor gave up on (e.g. it killed every worker it ran on).

A :class:`~causalarena.store.MachineFault` raised where a cell runs must be
re-raised by ``executor.run`` on the client: the grid stops, nothing is stored
for that cell.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .checks import check_input, check_output
from .conventions import CPDAG_ORIENTATIONS, CPDAG_REPAIRS
from .data import Dataset, Prediction
from .effect import (
    EffectDataset,
    EffectOracle,
    EffectPrediction,
    check_effect_input,
    check_effect_output,
    effect_metrics,
    task_of,
)
from .isolation import IsolationError, WorkerLaunch, local_launch
from .metrics import repair_cpdag_cycles, scoring_config
from .predictions import Truth, as_adjacency, node_tags
from .records import FAILURE_STATUSES, Status, data_type_of
from .runs import KEY_COLUMNS, RunRecord, to_status
from .store import MachineFault, Store, config_hash

#: seconds between resident-memory polls of a fitting worker
MEMORY_POLL_S = 0.1
#: the smallest memory cap ``arena run`` accepts (MB): an idle worker holds ~28 MB, one that has loaded a
#: dataset and numpy's BLAS ~60–90 MB; below this every cell would be oom before the method did anything
MIN_MEMORY_MB = 128
#: the statuses a worker's ``fit`` answer may carry; anything else is recorded as ``failed``
WORKER_FIT_STATUSES = (Status.OK, Status.FAILED, Status.OOM, Status.ENV_ERROR)


class Cell(NamedTuple):
    """One run: a family instance × split × replicate × method.

    Attributes:
        family: family name (``"synthetic"``).
        instance: a :class:`causalarena.family.Instance` (has ``scm_id`` and
            ``dataset(split, replicate, standardise=, protocol=, n=)``).
        split: ``"obs"`` or ``"obs_int"``.
        replicate: replicate index (0-based).
        method: a :class:`causalarena.records.MethodInfo`.
    """

    family: str
    instance: Any
    split: str
    replicate: int
    method: Any


def make_cells(instances: Iterable[Any], methods: Iterable[Any],
               splits: Optional[Sequence[str]] = None,
               replicates: Optional[Sequence[int]] = None) -> List[Cell]:
    """The full grid over instances × splits × replicates × methods.

    Only splits an instance provides (``instance.splits``) and replicates
    below ``instance.n_replicates`` are included; ``splits`` / ``replicates``
    restrict further. A method is paired only with instances of its task
    (``MethodInfo.task`` and ``instance.task``, :mod:`causalarena.effect`;
    both ``"discovery"`` unless they say otherwise). Cells are ordered method-major.
    """
    methods = list(methods)
    instances = list(instances)
    cells = []
    for m in methods:
        for inst in instances:
            if task_of(inst) != task_of(m):
                continue
            for split in inst.splits:
                if splits is not None and split not in splits:
                    continue
                for rep in range(int(inst.n_replicates)):
                    if replicates is not None and rep not in replicates:
                        continue
                    cells.append(Cell(inst.family, inst, split, rep, m))
    return cells


def instance_fingerprint(instance: Any, cache: Optional[Dict[int, Optional[str]]] = None) -> Optional[str]:
    """``instance.fingerprint()`` (None when it has none), memoised in ``cache`` by id."""
    if cache is not None and id(instance) in cache:
        return cache[id(instance)]
    method = getattr(instance, "fingerprint", None)
    fp = method() if callable(method) else None
    if cache is not None:
        cache[id(instance)] = fp
    return fp


def cell_key(cell: Cell, standardise: bool = True, protocol: str = "default", n: Optional[int] = None,
             cache: Optional[Dict[int, Optional[str]]] = None, cpdag_orientation: str = CPDAG_ORIENTATIONS[0],
             cpdag_repair: str = CPDAG_REPAIRS[0]) -> tuple:
    """Store key ``(family, scm_id, split, replicate, method, config_hash)`` of a cell.

    The config hash covers the method parameters and its distribution version
    (an upgraded plugin is rerun, not skipped), the dataset options, the
    instance fingerprint and, for a CPDAG/PAG method, the CPDAG scoring policy
    (:func:`causalarena.metrics.scoring_config`; :func:`causalarena.store.config_hash`).
    """
    m = cell.method
    return (cell.family, cell.instance.scm_id, cell.split, int(cell.replicate), m.name,
            config_hash(dict(m.params), standardise, protocol, n, data=instance_fingerprint(cell.instance, cache),
                        method_version=f"{getattr(m, 'distribution', '')}=={getattr(m, 'version', '')}",
                        scoring=scoring_config(m.output_kind, cpdag_orientation, cpdag_repair)))


def grid_keys(cells: Iterable[Cell], standardise: bool = True, protocol: str = "default",
              n: Optional[int] = None, cpdag_orientation: str = CPDAG_ORIENTATIONS[0],
              cpdag_repair: str = CPDAG_REPAIRS[0]) -> List[tuple]:
    """Store keys of ``cells`` under these dataset and scoring options (see :func:`cell_key`)."""
    cache: Dict[int, Optional[str]] = {}
    return [cell_key(c, standardise, protocol, n, cache, cpdag_orientation, cpdag_repair) for c in cells]


# ---------------------------------------------------------------------------
# Worker handle
# ---------------------------------------------------------------------------


class WorkerError(RuntimeError):
    """The worker could not be started or answered out of protocol."""


class _Timeout(Exception):
    pass


class _OverMemory(Exception):
    def __init__(self, rss_mb: float) -> None:
        super().__init__(rss_mb)
        self.rss_mb = rss_mb


class _Died(Exception):
    pass


def _signal_name(returncode: Optional[int]) -> str:
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


_OOM_SIGNATURES = ("MemoryError", "std::bad_alloc", "Cannot allocate memory", "out of memory")


class WorkerHandle:
    """A ``python -m causalarena.worker`` process driven over its JSON-lines protocol.

    The process runs in its own session (``start_new_session=True``) and
    carries a unique token (env ``CAUSALARENA_WORKER_TOKEN``, inherited by
    everything the method starts). :meth:`kill` and :meth:`close` remove
    every process the method started: the worker's recursive children
    (psutil, collected *before* the kill, so ``start_new_session=True``
    children outside the group are included), the process group, and any
    process carrying the token (daemons re-parented away from the tree, the
    children of a worker that crashed). If the runner itself dies, the
    worker's watchdog does the same (:mod:`causalarena.worker`). Its stderr
    (where the method's prints go) is a log file.

    Args:
        python: interpreter to run the worker with.
        memory_mb: resident-memory cap of the worker's process tree during a
            fit (None: no cap); also passed to the worker (``--memory-mb``),
            which sets an ``RLIMIT_DATA`` backstop (``RLIMIT_AS`` before Linux 4.7).
        env: extra environment variables for the worker (e.g. ``PYTHONPATH``).
        log_dir: directory of the stderr log (default: a temporary file).
        startup_timeout_s: seconds to wait for the ``hello`` answer.
        launch: how to start the process (:class:`causalarena.isolation.WorkerLaunch`:
            a sandbox interpreter, a container); default ``python`` here.
    """

    def __init__(self, python: str = sys.executable, memory_mb: Optional[float] = None,
                 env: Optional[Mapping[str, str]] = None, log_dir: Optional[str] = None,
                 startup_timeout_s: float = 60.0, launch: Optional[WorkerLaunch] = None) -> None:
        self.launch = launch if launch is not None else local_launch(python)
        self.python = python
        self.memory_mb = memory_mb
        self.env = dict(env or {})
        self.log_dir = log_dir
        self.startup_timeout_s = startup_timeout_s
        self.proc: Optional[subprocess.Popen] = None
        self.info: Dict[str, Any] = {}
        self.loaded: Optional[Tuple[str, str]] = None
        self.load_seconds: Optional[float] = None
        self._buf = bytearray()
        self._log: Any = None
        self._killed = False
        self.worker_id: Optional[str] = None
        self.token: Optional[str] = None
        self._created: Optional[float] = None  # the worker's psutil create_time (same clock as its children's)
        self.n_fits = 0
        self.start_seconds: Optional[float] = None

    # -- lifecycle -----------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> Dict[str, Any]:
        """Start the process and return its ``hello`` answer.

        Raises:
            WorkerError: the process exited or did not answer in time (the
                message includes its stderr).
        """
        cmd = [*self.launch.argv, "-m", "causalarena.worker"]
        if self.memory_mb:
            cmd += ["--memory-mb", str(int(self.memory_mb))]
        from .worker import TOKEN_ENV

        self.token = uuid.uuid4().hex
        env = dict(os.environ)
        env.update(self.env)
        env.update(self.launch.env)
        env[TOKEN_ENV] = self.token
        self._log = tempfile.NamedTemporaryFile(prefix="arena-worker-", suffix=".log",
                                                dir=self.log_dir, delete=False)
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._log, env=env, start_new_session=True,
                                         close_fds=True)
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            # the method's launch names an interpreter that is not there (a removed sandbox):
            # that method's setup, not a fault of this machine's disk or store
            self._log.close()
            raise WorkerError(f"cannot start the worker interpreter {cmd[0]!r}: {exc.strerror or exc}") from exc
        self._created = None
        try:
            import psutil

            self._created = psutil.Process(self.proc.pid).create_time()
        except Exception:  # noqa: BLE001 - already gone: start() reports it below
            pass
        self._buf = bytearray()
        self._killed = False
        self.loaded = None
        self.worker_id = self.token[:12]
        self.n_fits = 0
        t0 = time.perf_counter()
        try:
            self.info = self.request({"op": "hello"}, timeout_s=self.startup_timeout_s)
            self.start_seconds = time.perf_counter() - t0
        except (_Timeout, _Died) as exc:
            self.kill()
            raise WorkerError(f"worker {' '.join(cmd)} did not start ({type(exc).__name__.strip('_')}, "
                              f"{_signal_name(self.proc.returncode)}): {self.stderr_tail()}") from None
        return self.info

    def _method_processes(self) -> List[Any]:
        """psutil processes the method started: the worker's recursive children
        (while it lives) and every process whose environment carries this
        worker's token. The worker itself and this process are not included."""
        import psutil

        if self.proc is None:
            return []
        found: Dict[int, Any] = {}
        try:
            for c in psutil.Process(self.proc.pid).children(recursive=True):
                found[c.pid] = c
        except psutil.Error:
            pass
        if self.token:
            from .worker import TOKEN_ENV

            me = os.getpid()
            born = self._created or 0.0  # processes older than the worker cannot carry its token
            for p in psutil.process_iter():
                if p.pid in found or p.pid in (me, self.proc.pid):
                    continue
                try:
                    if p.create_time() >= born and p.environ().get(TOKEN_ENV) == self.token:
                        found[p.pid] = p
                except psutil.Error:  # gone, a zombie or another user's
                    continue
        return list(found.values())

    def _kill_method_processes(self, procs: Sequence[Any] = ()) -> None:
        """SIGKILL ``procs`` (collected before the worker died), the worker's
        process group and then whatever still carries the token (rescanned
        until none is left, at most 5 times). psutil refuses to signal a
        pid that was reused by another process."""
        import psutil

        assert self.proc is not None  # callers (kill, close) return early when no worker was started
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        seen: set = set()
        for _ in range(5):
            for p in procs:
                try:
                    p.kill()
                except psutil.Error:
                    pass
            seen.update(p.pid for p in procs)
            procs = [p for p in self._method_processes() if p.pid not in seen]
            if not procs:
                break

    def kill(self) -> None:
        """SIGKILL the worker, its process group and every process its method
        started (:meth:`_method_processes`, collected before the kill), and reap it."""
        if self.proc is None:
            return
        self._killed = True
        procs = self._method_processes()
        try:
            self.proc.kill()
        except OSError:  # pragma: no cover - already reaped
            pass
        self._kill_method_processes(procs)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        self._on_kill()
        self._close_pipes()

    def _on_kill(self) -> None:
        if self.launch.on_kill is not None:
            try:
                self.launch.on_kill()
            except Exception:  # noqa: BLE001 - best effort (e.g. the container is already gone)
                pass

    def close(self) -> None:
        """Ask the worker to shut down (kill it if it does not within 5 s), then
        kill whatever its method left running (children, setsid ones included)."""
        if self.proc is None:
            return
        procs = self._method_processes() if self.alive else []  # the tree, before its root exits
        if self.alive:
            try:
                self.request({"op": "shutdown"}, timeout_s=5.0)
                self.proc.wait(timeout=5)
            except (_Timeout, _Died, OSError, subprocess.TimeoutExpired):
                pass
        if self.alive:
            self.kill()
        else:
            # reap anything the method left: its children (setsid ones too), the group, token carriers
            self._kill_method_processes(procs)
            if self._killed:
                self._on_kill()
        self._close_pipes()
        self._remove_log()

    def _close_pipes(self) -> None:
        assert self.proc is not None  # callers (kill, close) return early when no worker was started
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

    def _remove_log(self) -> None:
        if self._log is not None:
            try:
                self._log.close()
                os.unlink(self._log.name)
            except OSError:
                pass
            self._log = None

    def stderr_tail(self, start: int = 0, limit: int = 2000) -> str:
        """The last ``limit`` characters the worker wrote to stderr after ``start``."""
        if self._log is None:
            return ""
        try:
            with open(self._log.name, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                end = fh.tell()
                fh.seek(max(start, end - limit))
                return fh.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def _log_size(self) -> int:
        try:
            return os.path.getsize(self._log.name) if self._log is not None else 0
        except OSError:
            return 0

    # -- protocol ------------------------------------------------------------
    def _tree_rss_mb(self) -> float:
        import psutil

        assert self.proc is not None  # polled by request(), which runs only on a started worker
        probe = self.launch.memory_probe if self.launch is not None else None
        if probe is not None:  # e.g. a container: its processes are not the client's children
            outside = probe()
            if outside is not None:
                return float(outside)
        try:
            p = psutil.Process(self.proc.pid)
            procs = [p] + p.children(recursive=True)
        except psutil.Error:
            return 0.0
        total = 0
        for q in procs:
            try:
                total += q.memory_info().rss
            except psutil.Error:
                pass
        return total / (1024.0 * 1024.0)

    def request(self, req: Dict[str, Any], timeout_s: Optional[float] = None,
                memory_mb: Optional[float] = None, peak: Optional[List[float]] = None) -> Dict[str, Any]:
        """Send one request and wait for its response line.

        Raises:
            _Timeout: no answer within ``timeout_s`` (the worker is left running).
            _OverMemory: the process tree's RSS exceeded ``memory_mb``.
            _Died: EOF on the worker's stdout.
        """
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _Died() from None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        next_poll = time.monotonic() + MEMORY_POLL_S
        while b"\n" not in self._buf:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                raise _Timeout()
            wait = MEMORY_POLL_S if deadline is None else min(MEMORY_POLL_S, deadline - now)
            if memory_mb is not None:
                wait = min(wait, max(0.0, next_poll - now))
            ready, _, _ = select.select([fd], [], [], wait)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise _Died()
                self._buf.extend(chunk)
            if memory_mb is not None and time.monotonic() >= next_poll:
                next_poll = time.monotonic() + MEMORY_POLL_S
                rss = self._tree_rss_mb()
                if peak is not None:
                    peak[0] = max(peak[0], rss)
                if rss > memory_mb:
                    raise _OverMemory(rss)
        idx = self._buf.index(b"\n")
        line = bytes(self._buf[:idx])
        del self._buf[: idx + 1]
        try:
            return json.loads(line)
        except ValueError as exc:
            raise WorkerError(f"worker answered out of protocol: {line[:200]!r} ({exc})") from None

    def load(self, factory: str, params: Dict[str, Any], timeout_s: Optional[float] = None,
             output_kind: Optional[str] = None) -> Dict[str, Any]:
        """Load ``factory(**params)`` in the worker (once); returns the answer.

        A timeout or a death while loading gives ``status =``
        :attr:`Status.FAILED <causalarena.records.Status.FAILED>` with the
        reason; the worker is killed in both cases.
        """
        key = (factory, json.dumps(params, sort_keys=True, default=str))
        log_start = self._log_size()
        try:
            resp = self.request({"op": "load", "factory": factory, "params": params, "output_kind": output_kind},
                                timeout_s=timeout_s)
        except _Timeout:
            self.kill()
            return {"status": Status.FAILED, "error": f"loading {factory!r} exceeded {timeout_s} s",
                    "load_seconds": timeout_s}
        except _Died:
            self.kill()
            assert self.proc is not None  # request() raised _Died: the worker was started
            return {"status": Status.FAILED, "load_seconds": None,
                    "error": f"worker died while loading {factory!r} ({_signal_name(self.proc.returncode)}): "
                             f"{self.stderr_tail(log_start)}"}
        if resp.get("status") == Status.OK:
            self.loaded = key
            self.load_seconds = resp.get("load_seconds")
        return resp

    def fit(self, dataset_path: str, seed: Optional[int], budget_s: Optional[float] = None,
            run_id: str = "") -> Dict[str, Any]:
        """Fit the loaded method on one dataset under a budget and the memory cap.

        Returns a dict with ``status`` (a :class:`~causalarena.records.Status`:
        ``ok``/``failed``/``oom``/``timeout``/``env_error``),
        ``wall_seconds`` (request to answer; ``budget_s`` on timeout),
        ``fit_seconds``, ``prediction`` (JSON or None), ``error``,
        ``traceback`` and ``peak_rss_mb``. After ``timeout``/``oom``/death the
        worker is dead (:attr:`alive` is False) and must be restarted.
        """
        peak = [0.0]
        log_start = self._log_size()
        t0 = time.perf_counter()
        base: Dict[str, Any] = {"fit_seconds": None, "prediction": None, "traceback": None}
        try:
            resp = self.request({"op": "fit", "id": run_id, "dataset_path": dataset_path, "seed": seed},
                                timeout_s=budget_s, memory_mb=self.memory_mb, peak=peak)
        except _Timeout:
            self.kill()
            assert budget_s is not None  # request() times out only under a deadline
            return dict(base, status=Status.TIMEOUT, wall_seconds=float(budget_s),
                        peak_rss_mb=peak[0] or None,
                        error=f"exceeded the wall-clock budget of {budget_s:g} s; worker process group killed")
        except _OverMemory as exc:
            wall = time.perf_counter() - t0
            self.kill()
            return dict(base, status=Status.OOM, wall_seconds=wall, peak_rss_mb=exc.rss_mb,
                        error=f"resident memory {exc.rss_mb:.0f} MB exceeded the cap of "
                              f"{self.memory_mb:g} MB; worker process group killed")
        except _Died:
            wall = time.perf_counter() - t0
            assert self.proc is not None  # request() raised _Died: the worker was started
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            rc = self.proc.returncode
            if rc is not None and self.launch is not None and self.launch.signal_exit_codes and 128 < rc < 160:
                rc = -(rc - 128)  # a container's init reports death by signal s as exit code 128 + s
            tail = self.stderr_tail(log_start)
            self.kill()
            # SIGKILL from outside the runner is the kernel OOM killer's signature only when the
            # worker was near its memory cap; otherwise someone (a user, a supervisor) killed it.
            near_cap = self.memory_mb is not None and bool(self.memory_mb) and peak[0] >= 0.8 * float(self.memory_mb)
            oom = any(s in tail for s in _OOM_SIGNATURES) or (rc == -signal.SIGKILL and near_cap)
            how = _signal_name(rc)
            if rc == -signal.SIGKILL:
                how += (" (not by the runner, near the memory cap: the kernel OOM killer's signature)" if near_cap
                        else " (not by the runner: by a user, a supervisor or the kernel)")
            return dict(base, status=Status.OOM if oom else Status.FAILED, wall_seconds=wall,
                        peak_rss_mb=peak[0] or None,
                        error=f"worker died during fit ({how})" + (f"; stderr: {tail}" if tail else ""))
        wall = time.perf_counter() - t0
        if resp.get("op") != "fit" or resp.get("id") != run_id:
            self.kill()
            return dict(base, status=Status.FAILED, wall_seconds=wall, peak_rss_mb=None,
                        error=f"worker answered out of protocol: {str(resp)[:300]}")
        out = dict(base)
        out.update({k: resp.get(k) for k in ("status", "fit_seconds", "prediction", "error",
                                             "traceback", "peak_rss_mb")})
        out["wall_seconds"] = wall
        if peak[0] and (out.get("peak_rss_mb") or 0) < peak[0]:
            out["peak_rss_mb"] = peak[0]
        out["status"] = Status(out["status"]) if out["status"] in WORKER_FIT_STATUSES else Status.FAILED
        # An allocation made and released between two polls (0.1 s) escapes the poll; the worker's own peak
        # (VmHWM, reset before the fit) does not: a fit that went past the cap is oom, whatever it returned.
        peak_mb = out.get("peak_rss_mb")
        if out["status"] == Status.OK and self.memory_mb and peak_mb and float(peak_mb) > float(self.memory_mb):
            out.update(status=Status.OOM, prediction=None,
                       error=f"peak resident memory {float(peak_mb):.0f} MB exceeded the cap of "
                             f"{float(self.memory_mb):g} MB between two polls (the worker's own peak, VmHWM)")
        return out


# ---------------------------------------------------------------------------
# Dataset cache
# ---------------------------------------------------------------------------


def harness_fault(what: str, exc: OSError, path: Optional[str] = None, name_file: bool = True) -> MachineFault:
    """The :class:`~causalarena.store.MachineFault` for ``exc``, an ``OSError`` of the harness's own I/O.

    ``what`` says what failed and where (e.g. ``"cannot write the dataset cache
    R/datasets"``); the message adds the cause (``[Errno 28] No space left on
    device``, then the file of ``exc`` unless ``name_file`` is false or it is
    ``path``) and the remedy. ``path`` defaults to the file of ``exc``.
    """
    import errno

    cause = f"[Errno {exc.errno}] {exc.strerror}" if exc.errno is not None and exc.strerror else str(exc)
    if name_file and exc.filename is not None and exc.filename != path:
        cause += f": {exc.filename}"
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        remedy = "free space on that disk"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        remedy = "make the folder writable"
    elif exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN):
        remedy = "free system resources (open files, memory, processes)"
    else:
        remedy = "check the folder and its disk"
    return MachineFault(f"{what}: {cause}: {remedy} (or pass another --results folder), then rerun the same "
                        "command to resume", path=path or exc.filename, cause=cause)


class _DatasetCache:
    """Datasets built once per (family, scm_id, split, replicate) and config.

    The full dataset (with truth) stays in memory for the parent's checks
    and scoring (LRU of ``keep`` entries); the worker gets a ``.npz`` without
    the true graph. :meth:`get` raises what the family's generator raises (the
    cell's failure) and a :class:`~causalarena.store.MachineFault` when the
    ``.npz`` cannot be written (disk full, read-only …: the run's failure).
    """

    def __init__(self, directory: str, standardise: bool, protocol: str, n: Optional[int],
                 keep: int = 64) -> None:
        self.directory = directory
        self.standardise = standardise
        self.protocol = protocol
        self.n = n
        self.keep = keep
        self._lock = threading.Lock()
        self._locks: Dict[str, threading.Lock] = {}
        self._mem: Dict[str, Dataset] = {}
        self._written: set = set()

    def get(self, cell: Cell) -> Tuple[Dataset, str]:
        ident = json.dumps([cell.family, cell.instance.scm_id, cell.split, int(cell.replicate),
                            self.standardise, self.protocol, self.n])
        h = hashlib.sha256(ident.encode()).hexdigest()[:20]
        with self._lock:
            lock = self._locks.setdefault(h, threading.Lock())
        with lock:
            path = os.path.join(self.directory, f"{h}.npz")
            with self._lock:
                ds = self._mem.get(h)
            if ds is None:
                ds = cell.instance.dataset(cell.split, cell.replicate, standardise=self.standardise,
                                           protocol=self.protocol, n=self.n)
                with self._lock:
                    self._mem[h] = ds
                    while len(self._mem) > self.keep:
                        self._mem.pop(next(iter(self._mem)))
            if h not in self._written:
                # (re)written once per runner even if a previous run left the
                # file: the dataset code may have changed since.
                tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
                try:
                    ds.without_truth().save(tmp)
                    os.replace(tmp, path)
                except OSError as exc:  # the harness's own write: a machine fault, not the cell's
                    try:
                        os.remove(tmp)  # a partial file would keep the disk full
                    except OSError:
                        pass
                    raise harness_fault(f"cannot write the dataset cache {self.directory}", exc,
                                        self.directory, name_file=False) from exc  # (a temporary name)
                self._written.add(h)
        return ds, path


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------

#: ``(true_adjacency, prediction, seed) -> (metrics, warnings)`` or ``(metrics, warnings, scored_adjacency)``:
#: the optional third item is the d × d DAG the metrics were computed on (after CPDAG orientation), which the
#: runner stores as the run's prediction. A scorer returning two items gets a DAG output's adjacency stored
#: as is, and no stored prediction for a CPDAG/PAG output (what it scored is unknown).
Scorer = Callable[[np.ndarray, Prediction, int], Tuple[Any, ...]]


def default_scorer(metrics: Mapping[str, Any], orientation: str = CPDAG_ORIENTATIONS[0]) -> Scorer:
    """Score with the registry's metrics (App. B.2).

    CPDAG and PAG predictions have their undirected edges oriented at random
    with the cell seed by ``orientation`` (:func:`causalarena.metrics.orient_cpdag`:
    ``"mec"``, a random member of the Markov equivalence class, or
    ``"linear_extension"``); the DAG is then scored by
    :func:`causalarena.metrics.compute_metrics`. Returns ``(metrics,
    warnings, dag)``, ``dag`` the scored (d × d) adjacency (:data:`Scorer`).
    """
    from .metrics import compute_metrics, orient_cpdag

    def score(truth: np.ndarray, prediction: Prediction, seed: int
              ) -> Tuple[Dict[str, Optional[float]], List[str], np.ndarray]:
        adjacency = np.asarray(prediction.adjacency)
        warnings: List[str] = []
        if prediction.kind in ("cpdag", "pag"):
            adjacency = orient_cpdag(adjacency, seed, rule=orientation, flags=warnings)
            if (np.asarray(prediction.adjacency) != adjacency).any():
                warnings.append("oriented_undirected_edges")
        values, w = compute_metrics(truth, adjacency, prediction.edge_scores, metrics)
        return values, warnings + list(w), adjacency

    return score


# ---------------------------------------------------------------------------
# Grid
# ---------------------------------------------------------------------------


class GridSummary(NamedTuple):
    """What :func:`run_grid` did: counts by status, skipped (resumed) cells, seconds.

    Attributes:
        counts: status value (``"ok"``, ``"env_error"`` …) → runs of this invocation.
        skipped: cells already in the store (resumed), not run.
        total: cells asked for (duplicates included).
        elapsed_seconds: wall-clock seconds of the invocation.
    """

    counts: Dict[str, int]
    skipped: int
    total: int
    elapsed_seconds: float

    @property
    def failures(self) -> int:
        """Runs of this invocation counted as failures (:data:`~causalarena.records.FAILURE_STATUSES`)."""
        return count_failures(self.counts)


def count_failures(counts: Mapping[str, int]) -> int:
    """The number of failures in status → count ``counts``: the progress bar's and the summary's figure.

    Failures are :data:`causalarena.records.FAILURE_STATUSES` (every status
    but ``ok`` and ``unsupported``; ``env_error`` included).
    """
    return sum(int(v) for k, v in counts.items() if k in FAILURE_STATUSES)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _Progress:
    """The rich progress bar of a grid: cells done / total, failures, ETA (disabled: counts only).

    Where stdout is not a terminal (a redirected log, a batch job's output file) rich's live bar
    would draw nothing until the grid ends, so a plain line is printed instead, at most every
    ``log_every_s`` seconds and once at the end.
    """

    def __init__(self, total: int, enabled: bool, log_every_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, groups: Optional[Mapping[str, int]] = None,
                 jobs: int = 1) -> None:
        self.enabled = enabled and total > 0
        self.failures = 0
        self.total, self.done = total, 0
        # ETA per method group: fast methods finish their cells first, so the grid's overall rate early on
        # says little about the slow ones (36 % done at 30 s once read "ETA 0:00:53" with 9 minutes left)
        self.groups = dict(groups or {})
        self.jobs = max(1, int(jobs))
        self._group_done: Dict[str, int] = {}
        self._group_seconds: Dict[str, float] = {}
        self._lock = threading.Lock()
        if not self.enabled:
            return
        import rich
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = rich.get_console()
        self.lines = not self.console.is_terminal
        self.log_every_s, self._clock = log_every_s, clock
        self._started = self._logged = clock()
        if self.lines:
            return
        self.bar = Progress(TextColumn("[bold]cells"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("failures: {task.fields[failures]}"),
                            TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"),
                            transient=False, console=self.console)
        self.task = self.bar.add_task("cells", total=total, failures=0, eta=self.eta_text(0.0))
        self.bar.start()

    def eta_text(self, elapsed: float) -> str:
        """``0:02:32``, or ``estimating (…)`` while a method group with cells left has none finished.

        With method groups: Σ over groups of (cells left × that group's mean wall seconds per finished
        cell) / jobs. Without (an executor's grid): the grid's overall rate.
        """
        def hms(sec: float) -> str:
            return str(timedelta(seconds=round(sec)))

        if not self.groups:
            return "?" if not self.done else hms(elapsed / self.done * (self.total - self.done))
        left = {g: n - self._group_done.get(g, 0) for g, n in self.groups.items()}
        unknown = [g for g, n in left.items() if n > 0 and not self._group_done.get(g)]
        if unknown:
            return f"estimating ({len(unknown)} of {len(self.groups)} methods have no finished cell yet)"
        work = sum(n * self._group_seconds[g] / self._group_done[g] for g, n in left.items() if n > 0)
        return hms(work / self.jobs)

    def line(self, now: float) -> str:
        """The plain progress line: ``cells 12/40 (30%), failures 1, elapsed 0:01:05, ETA 0:02:32``."""
        elapsed = now - self._started
        return (f"cells {self.done}/{self.total} ({100 * self.done // self.total}%), failures {self.failures}, "
                f"elapsed {str(timedelta(seconds=round(elapsed)))}, ETA {self.eta_text(elapsed)}")

    def advance(self, status: str, group: Optional[str] = None, seconds: Optional[float] = None) -> None:
        """One cell finished with ``status``; a failure (:func:`count_failures`) raises the failure count.

        ``group`` (the method) and ``seconds`` (the cell's wall time) feed the per-group ETA.
        """
        with self._lock:
            self.failures += count_failures({str(status): 1})
            self.done += 1
            if group is not None:
                self._group_done[group] = self._group_done.get(group, 0) + 1
                self._group_seconds[group] = self._group_seconds.get(group, 0.0) + float(seconds or 0.0)
            if not self.enabled:
                return
            if not self.lines:
                self.bar.update(self.task, advance=1, failures=self.failures,
                                eta=self.eta_text(self._clock() - self._started))
                return
            if self.done == self.total:
                return  # stop() prints the last line
            now = self._clock()
            if now - self._logged >= self.log_every_s:
                self._logged = now
                self.console.print(self.line(now), markup=False, highlight=False, soft_wrap=True)

    def stop(self) -> None:
        if not self.enabled:
            return
        if self.lines:
            self.console.print(self.line(self._clock()), markup=False, highlight=False, soft_wrap=True)
        else:
            self.bar.stop()


def _scalar_factors(instance: Any) -> Dict[str, Any]:
    """The instance's factor tags that are scalars (str, int, float, bool) or lists of strings.

    Stored with every run so the report can slice by factor (paper Eq. 6)
    without regenerating instances.
    """
    out: Dict[str, Any] = {}
    for k, v in dict(getattr(instance, "factors", {}) or {}).items():
        if isinstance(v, (str, bool, int, float)) or v is None:
            out[k] = v
        elif isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
            out[k] = list(v)
    return out


class Runner:
    """Runs cells into a :class:`~causalarena.store.Store`; see :func:`run_grid`."""

    def __init__(self, store: Optional[Store], metrics: Optional[Mapping[str, Any]] = None, *,
                 budget_s: Optional[float] = None, memory_mb: Optional[float] = None,
                 python: str = sys.executable, standardise: bool = True, protocol: str = "default",
                 n: Optional[int] = None, env: Optional[Mapping[str, str]] = None,
                 cache_dir: Optional[str] = None, scorer: Optional[Scorer] = None,
                 load_timeout_s: Optional[float] = 600.0, suite: Optional[str] = None,
                 launcher: Optional[Callable[[Any], WorkerLaunch]] = None,
                 cpdag_orientation: str = CPDAG_ORIENTATIONS[0], cpdag_repair: str = CPDAG_REPAIRS[0]) -> None:
        scoring_config("cpdag", cpdag_orientation, cpdag_repair)  # ValueError naming a bad policy, before anything runs
        # what a store-less copy elsewhere needs (an executor's worker, :meth:`remote_factory`)
        self._remote: Dict[str, Any] = dict(metrics=metrics, budget_s=budget_s, memory_mb=memory_mb, python=python,
                            standardise=standardise, protocol=protocol, n=n, env=env, scorer=scorer,
                            load_timeout_s=load_timeout_s, suite=suite, launcher=launcher,
                            cpdag_orientation=cpdag_orientation, cpdag_repair=cpdag_repair)
        self.cpdag_orientation, self.cpdag_repair = cpdag_orientation, cpdag_repair
        self.store = store
        self.launcher = launcher
        self.suite = suite
        self.budget_s = budget_s
        self.memory_mb = memory_mb
        self.python = python
        self.standardise = standardise
        self.protocol = protocol
        self.n = n
        self.env = dict(env or {})
        self.load_timeout_s = load_timeout_s
        self._fingerprints: Dict[int, Optional[str]] = {}  # id(instance) -> fingerprint (cells hold them)
        self._own_cache = cache_dir is None
        try:
            self.cache_dir = cache_dir or tempfile.mkdtemp(prefix="arena-datasets-")
            os.makedirs(self.cache_dir, exist_ok=True)
        except OSError as exc:
            raise harness_fault(f"cannot create the dataset cache {cache_dir or tempfile.gettempdir()}", exc,
                                cache_dir) from exc
        self.cache = _DatasetCache(self.cache_dir, standardise, protocol, n)
        self.metrics: Mapping[str, Any] = metrics if metrics is not None else {}
        if scorer is None:
            scorer = default_scorer(metrics if metrics is not None else {}, cpdag_orientation)
        self.scorer = scorer

    def remote_factory(self) -> Callable[[], "Runner"]:
        """A picklable zero-argument callable building a store-less copy of this runner (executors).

        The copy runs :meth:`execute_cell` where an executor places a cell;
        its dataset cache is a temporary folder of that process (data are
        generated there from the cell's seed, never shipped as tables).
        """
        import functools

        return functools.partial(Runner, None, **self._remote)

    def base_record(self, cell: Cell) -> RunRecord:
        """The record of a cell before it runs (key, parameters, protocol, factors; ``started_at`` now)."""
        m = cell.method
        key = self.key(cell)
        return RunRecord(**dict(zip(KEY_COLUMNS, key)),
                         params=dict(m.params), output_kind=m.output_kind, standardise=self.standardise,
                         protocol=self.protocol, method_version=getattr(m, "version", "") or None,
                         n_override=self.n, suite=self.suite, factors=_scalar_factors(cell.instance),
                         started_at=_now(), flags=[], metrics={}, task=task_of(m),
                         scoring=scoring_config(m.output_kind, self.cpdag_orientation, self.cpdag_repair))

    def failed_record(self, cell: Cell, error: str) -> RunRecord:
        """A ``failed`` record of a cell that never returned (an executor's worker died every time it ran it)."""
        row = self.base_record(cell)
        row.status, row.error, row.wall_seconds, row.finished_at = Status.FAILED, error, None, _now()
        return row

    def key(self, cell: Cell) -> tuple:
        """The store key of a cell; its config hash covers the instance fingerprint."""
        return cell_key(cell, self.standardise, self.protocol, self.n, self._fingerprints,
                        self.cpdag_orientation, self.cpdag_repair)

    # -- one cell --------------------------------------------------------------
    def run_cell(self, cell: Cell, slot: Dict[str, Any]) -> RunRecord:
        """Run one cell (reusing the thread's worker in ``slot``), store it and return its record.

        :meth:`execute_cell` then :meth:`commit`; an executor that runs cells
        elsewhere (a Dask worker) calls the first there and the second here.

        Raises:
            MachineFault: the harness's own environment failed (an ``OSError``
                raised here in the runner, not by the method in its worker:
                the dataset cache, the worker log or a temporary file cannot
                be written; the store cannot be written). Nothing is stored
                for this cell, so a rerun runs it.
        """
        row, kept = self.execute_cell(cell, slot)
        return self.commit(row, kept)

    def commit(self, row: RunRecord, kept: Optional[Tuple[Any, Any]] = None) -> RunRecord:
        """Store a run (with its scored prediction and truth when kept), in one transaction.

        ``kept`` is ``(Prediction, Truth)`` of a discovery run or
        ``(EffectPrediction, EffectOracle)`` of an effect run.

        Raises:
            causalarena.store.StoreError: the store cannot be written (a MachineFault).
        """
        store = self._require_store()
        if kept is not None and row.status is Status.OK and isinstance(kept[0], EffectPrediction):
            store.record(row, estimate=kept)
            return row
        if kept is not None and row.status is Status.OK:
            try:  # the run, its scored DAG and its truth in one transaction
                store.record(row, prediction=kept[0], truth=kept[1])
                return row
            except ValueError as exc:  # a prediction that does not encode: the run stands, unkept
                row.flags.append(f"prediction_not_kept: {exc}")
        store.record(row)
        return row

    def _require_store(self) -> Store:
        if self.store is None:
            raise RuntimeError("this runner has no store (a remote copy: it executes cells, the client stores them)")
        return self.store

    def execute_cell(self, cell: Cell, slot: Dict[str, Any]) -> Tuple[RunRecord, Optional[Tuple[Prediction, Truth]]]:
        """Run one cell without storing it: its record and, for a scored ``ok`` run, (prediction, truth).

        Raises:
            MachineFault: as :meth:`run_cell` (nothing is returned for the cell).
        """
        row = self.base_record(cell)
        t0 = time.perf_counter()
        kept: Optional[Tuple[Prediction, Truth]] = None
        try:
            kept = self._run_cell(cell, slot, row)
        except MachineFault:
            raise  # the machine's fault, never the method's result: the grid stops, nothing is stored
        except OSError as exc:  # the runner's own I/O (the method's OSErrors come back as fit answers)
            raise harness_fault(f"the runner's own I/O failed (dataset cache and worker logs in {self.cache_dir})",
                                exc, self.cache_dir) from exc
        except Exception as exc:  # noqa: BLE001 - a harness error is a recorded status
            import traceback

            row.status = Status.FAILED
            row.error = f"runner error: {type(exc).__name__}: {exc}"
            row.traceback = traceback.format_exc()
        if row.wall_seconds is None:
            row.wall_seconds = time.perf_counter() - t0
        row.finished_at = _now()
        return row, kept

    def _run_cell(self, cell: Cell, slot: Dict[str, Any], row: RunRecord) -> Optional[Tuple[Any, Any]]:
        """Fill ``row``; for a scored ``ok`` run return what to keep: the scored prediction and its truth."""
        m = cell.method
        if task_of(m) == "effect":
            return self._run_effect_cell(cell, slot, row)
        kind = data_type_of(cell.instance)
        if kind not in getattr(m, "data_types", ("continuous",)):
            row.status, row.wall_seconds = Status.UNSUPPORTED, 0.0
            row.error = (f"method {m.name!r} declares data types {', '.join(m.data_types)}; instance "
                         f"{cell.instance.scm_id!r} is {kind} (missing, not a failure)")
            return None
        if cell.split == "obs_int" and not m.supports_interventions:
            row.status, row.wall_seconds = Status.UNSUPPORTED, 0.0
            row.error = f"method {m.name!r} does not support interventions (obs+int split is missing)"
            return None
        try:
            dataset, path = self.cache.get(cell)
        except MachineFault:
            raise  # the cache could not be written: the run's fault, not the cell's
        except Exception as exc:  # noqa: BLE001 - the family's generator raised: the cell's failure
            row.status = Status.FAILED
            row.error = f"dataset construction failed: {type(exc).__name__}: {exc}"
            return None
        row.n, row.d, row.seed = dataset.n, dataset.d, dataset.metadata.get("seed")
        row.varsortability = dataset.metadata.get("varsortability")
        row.r2_sortability = dataset.metadata.get("r2_sortability")
        chk = check_input(dataset, m)
        row.flags = list(chk.warnings)
        if not chk.ok:
            row.status, row.wall_seconds, row.error = Status.INVALID_INPUT, 0.0, chk.message()
            return None
        res = self._fit_in_worker(cell, slot, row, path)
        if res is None:
            return None
        try:
            pred = Prediction.from_json(res["prediction"])
        except Exception as exc:  # noqa: BLE001
            row.status = Status.INVALID_OUTPUT
            row.error = f"prediction not decodable: {type(exc).__name__}: {exc}"
            return None
        out = check_output(pred, dataset.d, kind=m.output_kind, columns=dataset.columns,
                           cpdag_repair=self.cpdag_repair)
        row.flags += out.flags
        if pred.kind != m.output_kind:
            row.flags.append(f"kind_mismatch: declared {m.output_kind}, returned {pred.kind}")
        if not out.ok:
            row.status, row.error = Status.INVALID_OUTPUT, out.message()
            return None
        if "edge_scores_invalid" in out.flags:
            pred.edge_scores = None
        if any(f.startswith("cpdag_repaired") for f in out.flags):  # then oriented like any CPDAG
            pred.adjacency = repair_cpdag_cycles(pred.adjacency)[0]
        pred.kind = m.output_kind
        scored: Optional[np.ndarray] = None
        try:
            truth = dataset.true_adjacency
            assert truth is not None  # protocol-built datasets always carry their SCM's adjacency
            result = self.scorer(truth, pred, int(row.seed or 0))
            values, warnings = result[0], result[1]
            if len(result) > 2:
                scored = np.asarray(result[2])
            elif pred.kind == "dag":  # a two-item scorer scored the DAG as returned
                scored = np.asarray(pred.adjacency)
        except Exception as exc:  # noqa: BLE001 - scoring error is a flag, the run stands
            values, warnings = {}, [f"scoring_error: {type(exc).__name__}: {exc}"]
        row.metrics = values
        row.flags += list(warnings)
        if scored is None or truth is None:
            return None
        try:
            spec = getattr(cell.instance, "spec", None)
            kept = (Prediction(adjacency=as_adjacency(scored, "scored adjacency"), kind=m.output_kind,
                               edge_scores=pred.edge_scores),
                    Truth(adjacency=truth, columns=dataset.columns,
                          node_tags=node_tags(getattr(spec, "nodes", ()), dataset.columns)))
        except ValueError as exc:  # e.g. a scorer that handed back a non-0/1 matrix: the run stands, unkept
            row.flags.append(f"prediction_not_kept: {exc}")
            return None
        return kept

    def _run_effect_cell(self, cell: Cell, slot: Dict[str, Any], row: RunRecord
                         ) -> Optional[Tuple[EffectPrediction, EffectOracle]]:
        """An effect cell (:mod:`causalarena.effect`): view support, input checks, the fit in the
        worker, output checks, then the effect metrics against the instance's oracle, which stays
        in this process (the worker's ``.npz`` is the :class:`EffectDataset` alone)."""
        m = cell.method
        if m.views and cell.split not in m.views:
            row.status, row.wall_seconds = Status.UNSUPPORTED, 0.0
            row.error = (f"method {m.name!r} supports the view(s) {', '.join(m.views)}; "
                         f"{cell.split!r} is missing (not a failure)")
            return None
        try:
            built, path = self.cache.get(cell)
        except MachineFault:
            raise
        except Exception as exc:  # noqa: BLE001 - the family's generator raised: the cell's failure
            row.status = Status.FAILED
            row.error = f"dataset construction failed: {type(exc).__name__}: {exc}"
            return None
        if not isinstance(built, EffectDataset):
            row.status = Status.FAILED
            row.error = (f"dataset construction failed: {cell.family}/{cell.instance.scm_id} serves the effect task "
                         f"but built a {type(built).__name__}, not an EffectDataset")
            return None
        dataset = built
        row.n, row.d, row.seed = dataset.n, dataset.d, dataset.metadata.get("seed")
        why = check_effect_input(dataset, m.handles_missing)
        if why:
            row.status, row.wall_seconds, row.error = Status.INVALID_INPUT, 0.0, why
            return None
        res = self._fit_in_worker(cell, slot, row, path)
        if res is None:
            return None
        try:
            pred = EffectPrediction.from_json(res["prediction"])
        except Exception as exc:  # noqa: BLE001
            row.status = Status.INVALID_OUTPUT
            row.error = f"estimate not decodable: {type(exc).__name__}: {exc}"
            return None
        bad = check_effect_output(pred, dataset)
        if bad:
            row.status, row.error = Status.INVALID_OUTPUT, bad
            return None
        oracle = cell.instance.oracle(cell.split, cell.replicate, n=self.n)
        if not np.array_equal(oracle.query_ids, dataset.query_ids):  # the family's own contract
            raise RuntimeError(f"{cell.family}/{cell.instance.scm_id}: the oracle's query ids differ from the "
                               f"dataset's ({cell.split}, replicate {cell.replicate})")
        row.metrics = effect_metrics(oracle, pred, self.metrics)
        return pred, oracle

    def _fit_in_worker(self, cell: Cell, slot: Dict[str, Any], row: RunRecord, path: str
                       ) -> Optional[Dict[str, Any]]:
        """Fit the cell's method on the dataset at ``path`` in the slot's worker, filling ``row``
        (worker, timing, status, error); the worker's answer when the fit is ``ok``, else None."""
        worker = self._worker_for(cell.method, slot, row)
        if worker is None:
            return None
        row.isolation = worker.launch.label
        row.python = worker.info.get("python")
        row.load_seconds = worker.load_seconds
        worker.n_fits += 1
        row.start_seconds, row.worker_id, row.worker_seq = worker.start_seconds, worker.worker_id, worker.n_fits
        res = worker.fit(path, row.seed, self.budget_s, run_id="/".join(str(k) for k in self.key(cell)))
        row.status = res["status"]
        row.wall_seconds, row.fit_seconds = res["wall_seconds"], res["fit_seconds"]
        row.peak_rss_mb, row.error, row.traceback = res["peak_rss_mb"], res["error"], res["traceback"]
        if not worker.alive:
            slot.pop("worker", None)
            worker.close()
        return res if row.status is Status.OK else None

    def _worker_for(self, m: Any, slot: Dict[str, Any], row: RunRecord) -> Optional[WorkerHandle]:
        key = (m.name, m.factory, json.dumps(dict(m.params), sort_keys=True, default=str))
        worker: Optional[WorkerHandle] = slot.get("worker")
        if worker is not None and (worker.loaded != key[1:] or slot.get("method") != m.name or not worker.alive):
            slot.pop("worker").close()
            worker = None
        if slot.get("load_error", (None,))[0] == key:
            row.status, row.error = slot["load_error"][2], slot["load_error"][1]
            return None
        if worker is None:
            try:
                launch = self.launcher(m) if self.launcher is not None else local_launch(self.python)
            except IsolationError as exc:
                slot["load_error"] = (key, str(exc), Status.ENV_ERROR)
                row.status, row.error = Status.ENV_ERROR, str(exc)
                return None
            worker = WorkerHandle(self.python, self.memory_mb, self.env, log_dir=self.cache_dir, launch=launch)
            try:
                worker.start()
            except WorkerError as exc:
                row.status, row.error, row.isolation = Status.FAILED, str(exc), launch.label
                return None
            resp = worker.load(m.factory, dict(m.params), timeout_s=self.load_timeout_s, output_kind=m.output_kind)
            if resp.get("status") != Status.OK:
                err = resp.get("error") or "load failed"
                status = Status.ENV_ERROR if resp.get("status") == Status.ENV_ERROR else Status.FAILED
                slot["load_error"] = (key, err, status)
                worker.close()
                row.status, row.error = status, err
                row.traceback, row.load_seconds = resp.get("traceback"), resp.get("load_seconds")
                return None
            slot["worker"] = worker
            slot["method"] = m.name
        return worker

    # -- grid ---------------------------------------------------------------
    def run(self, cells: Sequence[Cell], jobs: int = 1, progress: bool = True,
            retry_statuses: Iterable[str] = (), executor: Any = None) -> GridSummary:
        """Run every cell not yet in the store; see :func:`run_grid`."""
        t_start = time.perf_counter()
        retry = {to_status(s).value for s in retry_statuses}
        done = self._require_store().done_keys()
        if retry:
            done -= self._require_store().done_keys(retry)
        todo: List[Cell] = []
        seen = set()
        for c in cells:
            k = self.key(c)
            if k in done or k in seen:
                continue
            seen.add(k)
            todo.append(c)
        skipped = len(cells) - len(todo)
        # Group by method configuration (a worker loads once per group); split
        # a group into chunks so that `jobs` threads share a large group.
        groups: Dict[tuple, List[Cell]] = {}
        for c in todo:
            groups.setdefault((c.method.name, json.dumps(dict(c.method.params), sort_keys=True, default=str)),
                              []).append(c)
        jobs = max(1, int(jobs))
        work: "queue.Queue[List[Cell]]" = queue.Queue()
        for g in groups.values():
            size = max(1, min(-(-len(g) // jobs), 64))
            for i in range(0, len(g), size):
                work.put(g[i:i + size])
        counts: Dict[str, int] = {}
        lock = threading.Lock()
        method_cells: Dict[str, int] = {}
        for c in todo:
            method_cells[c.method.name] = method_cells.get(c.method.name, 0) + 1
        bar = _Progress(len(todo), progress, groups=method_cells if executor is None else None, jobs=jobs)
        if executor is not None:
            return self._run_executor(executor, [c for g in groups.values() for c in g], counts, bar,
                                      skipped, len(cells), t_start)

        stop = threading.Event()
        errors: List[BaseException] = []

        def drive() -> None:
            slot: Dict[str, Any] = {}
            try:
                while not stop.is_set():
                    try:
                        chunk = work.get_nowait()
                    except queue.Empty:
                        return
                    for cell in chunk:
                        if stop.is_set():
                            return
                        t_cell = time.monotonic()
                        done_status = self.run_cell(cell, slot).status
                        assert done_status is not None  # run_cell sets a status on every path
                        status = done_status.value
                        with lock:
                            counts[status] = counts.get(status, 0) + 1
                        bar.advance(status, cell.method.name, time.monotonic() - t_cell)
            except BaseException as exc:  # noqa: BLE001 - re-raised by the main thread
                errors.append(exc)
                stop.set()
            finally:
                w = slot.pop("worker", None)
                if w is not None:
                    if stop.is_set():
                        w.kill()
                    w.close()

        try:
            if jobs == 1:
                drive()
            else:
                threads = [threading.Thread(target=drive, name=f"arena-runner-{i}", daemon=True)
                           for i in range(jobs)]
                for t in threads:
                    t.start()
                for t in threads:
                    while t.is_alive():
                        t.join(0.2)
        except BaseException:
            stop.set()
            raise
        finally:
            bar.stop()
        if errors:  # e.g. the store could not be written: never report a partial grid as done
            raise errors[0]
        return GridSummary(counts, skipped, len(cells), time.perf_counter() - t_start)

    def _run_executor(self, executor: Any, todo: List[Cell], counts: Dict[str, int], bar: "_Progress",
                      skipped: int, total: int, t_start: float) -> GridSummary:
        """Cells run by ``executor``; each result is stored here, once, in its own transaction."""
        stored: set = set()
        lock = threading.Lock()

        def on_result(index: int, row: RunRecord, kept: Optional[Tuple[Prediction, Truth]] = None) -> None:
            with lock:
                if index in stored:  # a retried task whose first copy also answered: store a cell once
                    return
                stored.add(index)
                status = self.commit(row, kept).status
                assert status is not None
                counts[status.value] = counts.get(status.value, 0) + 1
            bar.advance(status.value)

        try:
            executor.run(todo, self.remote_factory(), on_result, self.failed_record)
        finally:
            bar.stop()
        return GridSummary(counts, skipped, total, time.perf_counter() - t_start)

    def close(self) -> None:
        """Remove the dataset cache if the runner created it."""
        if self._own_cache:
            shutil.rmtree(self.cache_dir, ignore_errors=True)


def run_grid(cells: Sequence[Cell], registry: Any, store: Store, *, jobs: int = 1,
             budget_s: Optional[float] = None, memory_mb: Optional[float] = None,
             python: str = sys.executable, standardise: bool = True, protocol: str = "default",
             n: Optional[int] = None, progress: bool = True, env: Optional[Mapping[str, str]] = None,
             cache_dir: Optional[str] = None, retry_statuses: Iterable[str] = (), suite: Optional[str] = None,
             scorer: Optional[Scorer] = None, load_timeout_s: Optional[float] = 600.0,
             launcher: Optional[Callable[[Any], WorkerLaunch]] = None,
             cpdag_orientation: str = CPDAG_ORIENTATIONS[0], cpdag_repair: str = CPDAG_REPAIRS[0],
             executor: Any = None) -> GridSummary:
    """Run a grid of cells and store one row per cell.

    Args:
        cells: :class:`Cell` tuples ``(family, instance, split, replicate,
            method_info)`` (see :func:`make_cells`). Duplicates run once.
        registry: a :class:`causalarena.plugins.Registry` (its ``metrics``
            score the runs); ``None`` scores nothing unless ``scorer`` is given.
        store: the result store; cells whose key it holds are skipped (resume).
        jobs: parallel threads, each driving its own warm worker process.
        budget_s: wall-clock budget of one fit (None: unlimited); on excess the
            worker's process group is killed and the run is ``timeout`` with
            ``wall_seconds = budget_s``.
        memory_mb: resident-memory cap of one worker's process tree; excess →
            ``oom`` (see :mod:`causalarena.worker` for the rlimit backstop).
        python: interpreter that runs ``python -m causalarena.worker``.
        standardise, protocol, n: dataset options (part of the config hash).
        progress: show a rich progress bar (cells done/total, failures, ETA).
        env: extra environment variables for the workers (``PYTHONPATH`` …).
        cache_dir: where datasets are cached as ``.npz`` (default: a temporary
            directory removed at the end).
        retry_statuses: stored statuses to run again (e.g. ``("timeout",)``).
        suite: name of the suite these runs belong to (recorded per run).
        scorer: ``(true_adjacency, prediction, seed) -> (metrics, warnings)``
            replacing :func:`default_scorer`.
        load_timeout_s: seconds allowed for importing and constructing a method.
        launcher: ``method_info -> WorkerLaunch`` choosing where each method's
            worker runs (:mod:`causalarena.isolation`); default: ``python`` here.
            An :class:`~causalarena.isolation.IsolationError` it raises makes
            every cell of that method ``env_error``.
        cpdag_orientation: how CPDAG/PAG undirected edges are oriented before
            scoring, ``"mec"`` (default) or ``"linear_extension"``
            (:func:`causalarena.metrics.orient_cpdag`).
        cpdag_repair: a CPDAG/PAG with a directed cycle: ``"undirect_cycles"``
            (default: :func:`causalarena.metrics.repair_cpdag_cycles`, flagged
            ``cpdag_repaired``, scored) or ``"strict"`` (``invalid_output``). Both
            options are part of a CPDAG/PAG method's config hash and stored in
            the run's ``scoring`` column.
        executor: run the cells elsewhere instead of in ``jobs`` local threads
            (``arena run --cluster``; see "Executors" in the module docstring).

    Returns:
        :class:`GridSummary` of this invocation (skipped = already stored).

    Raises:
        MachineFault: the harness's own environment failed (the dataset cache,
            a worker log or the store cannot be written; a
            :class:`~causalarena.store.StoreError` for the store). The grid
            stops; the cells stored before are kept, the others are not stored,
            so rerunning the same grid resumes.
    """
    metrics = getattr(registry, "metrics", None) if registry is not None else None
    runner = Runner(store, metrics, budget_s=budget_s, memory_mb=memory_mb, python=python,
                    standardise=standardise, protocol=protocol, n=n, env=env, cache_dir=cache_dir,
                    scorer=scorer, load_timeout_s=load_timeout_s, suite=suite, launcher=launcher,
                    cpdag_orientation=cpdag_orientation, cpdag_repair=cpdag_repair)
    try:
        return runner.run(cells, jobs=jobs, progress=progress, retry_statuses=retry_statuses, executor=executor)
    finally:
        runner.close()
