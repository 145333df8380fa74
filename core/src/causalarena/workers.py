"""The parent side of the worker protocol: a warm worker process under a budget and a memory cap.

:class:`WorkerHandle` starts ``python -m causalarena.worker`` (or an isolated launch,
:mod:`causalarena.isolation`), loads a method once, and fits it on many datasets; a hang is
killed at the budget (``timeout``), a process tree past the cap is killed (``oom``), a death is
``failed`` with the signal named. The child side is :mod:`causalarena.worker`.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .isolation import WorkerLaunch, local_launch
from .records import Status

#: seconds between resident-memory polls of a fitting worker
MEMORY_POLL_S = 0.1
#: the smallest memory cap ``arena run`` accepts (MB): an idle worker holds ~28 MB, one that has loaded a
#: dataset and numpy's BLAS ~60–90 MB; below this every cell would be oom before the method did anything
MIN_MEMORY_MB = 128
#: the statuses a worker's ``fit`` answer may carry; anything else is recorded as ``failed``
WORKER_FIT_STATUSES = (Status.OK, Status.FAILED, Status.OOM, Status.ENV_ERROR)




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
            run_id: str = "", loader: str = "") -> Dict[str, Any]:
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
            req = {"op": "fit", "id": run_id, "dataset_path": dataset_path, "seed": seed}
            if loader:
                req["loader"] = loader
            resp = self.request(req,
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
