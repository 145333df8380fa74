"""The method worker: ``python -m causalarena.worker [--memory-mb M] [--no-rlimit]``.

One worker process imports and loads one method once, then fits it on many
datasets (imports cost seconds; an interpreter per run is not acceptable).
The runner (:mod:`causalarena.runner`) starts it with
``start_new_session=True`` so that a timeout kills the whole process group.
The worker depends only on the standard library, numpy, attrs and
:mod:`causalarena.data` / :mod:`causalarena.method` / :mod:`causalarena.records`
— never on the plugin registry — so it can later run inside another virtualenv
or a container. Its run statuses are values of
:class:`causalarena.records.Status`.

Protocol (version 1)
--------------------
JSON lines: one request object per line on **stdin**, exactly one response
object per line on **stdout**. Every response carries ``"op"`` (echo of the
request) and ``"status"``. ``NaN`` / ``Infinity`` tokens (Python's JSON
extension) may appear in predictions. Anything a method prints, from Python or
from C, goes to the worker's **stderr**: at start the worker duplicates the
original stdout fd for the protocol and points fd 1 (and ``sys.stdout``) at
stderr, so library output can never corrupt the channel.

``{"op": "hello"}``
    → ``{"op": "hello", "status": "ok", "protocol": 1, "pid": int,
    "python": "3.11.9", "executable": str, "versions": {"numpy": ...,
    "causalarena": ...}, "memory_mb": int | null, "rlimit": "data" | "as" | null,
    "rlimit_data_mb": int | null, "rlimit_as_mb": int | null}``
    (the rlimit set before the last fit: its kind and MB; see Memory below)
``{"op": "load", "factory": "pkg.mod:Class", "params": {...}, "output_kind": "dag"}``
    imports the class, constructs ``Class(**params)`` once and calls
    ``Class.preload()`` (the method's heavy imports, timed as load).
    → ``{"op": "load", "status": "ok" | "failed" | "env_error", "load_seconds": float,
    "error": str | null, "traceback": str | null}``
``{"op": "fit", "id": str, "dataset_path": "/x.npz", "seed": int, "loader": "pkg.mod:read"}``
(``loader``: the import path of the cell's task's dataset reader, :attr:`causalarena.tasks.Task.loader`;
default :meth:`causalarena.data.Dataset.load`)
    loads the ``.npz`` written by :meth:`causalarena.data.Dataset.save`
    (without the true graph), seeds ``random`` and ``numpy.random`` with
    ``seed``, clears the previous fit's ``adjacency_`` / ``edge_scores_`` /
    ``native_`` and calls ``method.fit(dataset)``.
    → ``{"op": "fit", "id": str, "status": "ok" | "failed" | "oom" | "env_error",
    "fit_seconds": float, "prediction": Prediction.to_json() | null,
    "error": str | null, "traceback": str | null, "peak_rss_mb": float}``
    ``fit_seconds`` times ``fit`` + ``prediction`` only (not the dataset load);
    ``peak_rss_mb`` is the worker's peak resident set during this fit (Linux
    ``VmHWM`` after resetting it through ``/proc/self/clear_refs``; elsewhere
    the process-lifetime peak). A ``MemoryError`` gives status ``"oom"``;
    :class:`causalarena.method.MethodEnvironmentError` (a preflight found a
    missing R package, library …) gives ``"env_error"``, at load or fit.
``{"op": "shutdown"}``
    → ``{"op": "shutdown", "status": "ok"}`` and the worker exits 0. EOF on
    stdin also ends it.

Unknown ops or malformed lines get ``{"op": ..., "status": "error", "error":
...}`` and the worker keeps serving (``"error"`` is a protocol answer, not a
run status: no run is recorded from it).

Memory
------
``--memory-mb M`` (or env ``CAUSALARENA_WORKER_MEMORY_MB``) is the cap on the
resident memory a fit may use. The runner enforces it from outside by polling
the resident set of the worker's process tree (psutil) and killing the group
on excess (status ``oom``); the worker's own peak (``VmHWM``, reset per fit)
above the cap makes the fit ``oom`` too, even when it fell between two polls.
Inside, against one allocation far past the cap, the worker sets an rlimit
before every fit, so the allocation fails in the method (``MemoryError``, or
an allocator's own error such as torch's "DefaultCPUAllocator: not enough
memory": status ``oom``, the worker survives) before it is ever resident:

* Linux ≥ 4.7: ``RLIMIT_DATA`` at ``current data segment (VmData) + M + 256 +
  64 · cpu_count MB``. Since 4.7 it counts every private writable mapping
  (what ``malloc``/numpy/torch allocate), but not the ``PROT_NONE``
  address-space reservations of glibc's per-thread arenas, JAX or the JVM,
  nor shared-library text — so it can sit close to the cap. The 64 MB per
  core covers what each extra thread costs in data (its 8 MB stack, its
  malloc arena, OpenBLAS's per-thread buffer: measured ~20–40 MB a thread
  with torch and numpy); the 256 MB, heavy imports inside the first fit.
* elsewhere (older kernels, where ``RLIMIT_DATA`` counts only the brk heap):
  ``RLIMIT_AS`` at ``current virtual size + M + max(M, 1024) + 64 · cpu_count
  MB``. Address space is not memory — torch and BLAS reserve gigabytes of it
  for thread pools and arenas — so this one must be generous and only stops
  allocations far beyond the cap.

The limit is inherited by processes the method starts. A method that
allocates much more than it touches (a huge ``np.zeros`` used sparsely) can
hit the data limit below the cap; ``--no-rlimit`` (or env
``CAUSALARENA_WORKER_RLIMIT=0``) leaves the backstop off.

Processes the method starts
----------------------------
The protocol's stdin is private too: at start the worker reads requests from
a duplicate of fd 0 (not inheritable, PEP 446) and points fd 0 (and
``sys.stdin``) at ``/dev/null``, so a child that reads stdin (an R
subprocess does) sees EOF instead of swallowing the next request.

The runner starts the worker with a unique ``CAUSALARENA_WORKER_TOKEN`` in
its environment, which every process the method starts inherits. A watchdog
thread polls the parent pid every :data:`WATCHDOG_S` seconds; when the
parent dies (the worker is re-parented: a runner killed with SIGKILL), or,
with ``CAUSALARENA_WORKER_HANGUP=1`` (the docker backend sets it), when the
protocol's stdin pipe hangs up (in a container the parent is the
container's init, which outlives the runner; the docker client's stdin
closes when the runner dies, and the engine closes the container's), it
SIGKILLs every process the method started — the worker's descendants,
including ``start_new_session=True`` children outside its process group, and
every process carrying the token (daemons whose parent already exited and
were re-parented away from the worker's tree) — then exits with code 3. The
worker does the same when it stops serving (``shutdown`` or EOF on the
protocol: an idle worker whose runner died sees EOF first). So
a killed runner leaves neither workers nor their children behind. (A method
holding the GIL in C code delays the watchdog until it returns; a child that
replaces its environment loses the token and is found only while it is the
worker's descendant.)
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from typing import Any, Dict, List, Optional

from .records import Status

PROTOCOL_VERSION = 1
#: the ``status`` of a protocol-level error answer (unknown op, malformed line); not a :class:`Status`
PROTOCOL_ERROR = "error"
MEMORY_ENV = "CAUSALARENA_WORKER_MEMORY_MB"
#: environment variable carrying the token that marks every process of one worker (set by the runner)
TOKEN_ENV = "CAUSALARENA_WORKER_TOKEN"
#: seconds between the watchdog's checks that the parent (the runner) is alive
WATCHDOG_S = 0.25
#: set to 1 by a launcher whose worker's parent outlives the runner (a container's init): the watchdog then
#: also ends the worker when the protocol pipe hangs up
HANGUP_ENV = "CAUSALARENA_WORKER_HANGUP"


def _read_status_kb(field: str) -> Optional[float]:
    """A ``Vm*`` field of /proc/self/status in kB (None off Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return float(line.split()[1])
    except OSError:
        return None
    return None


#: what allocators other than Python's say when an allocation is refused (torch's CPU allocator, C++'s
#: operator new, XLA, an mmap's ENOMEM); matched in the text of a non-MemoryError raised by ``fit``
ALLOCATION_FAILURE_MARKERS = ("DefaultCPUAllocator: not enough memory", "DefaultCPUAllocator: can't allocate memory",
                              "std::bad_alloc", "RESOURCE_EXHAUSTED: Out of memory", "[Errno 12] Cannot allocate memory")


def _is_allocation_failure(exc: BaseException) -> bool:
    """True when ``exc`` (not a MemoryError) reports a refused allocation (:data:`ALLOCATION_FAILURE_MARKERS`)."""
    text = str(exc)
    return any(marker in text for marker in ALLOCATION_FAILURE_MARKERS)


def _data_rlimit_counts_mmap() -> bool:
    """True on Linux >= 4.7, where ``RLIMIT_DATA`` counts private writable mappings (before, only the brk
    heap: glibc's malloc serves large blocks by mmap, so the limit would stop nothing)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        major, minor = (int(part) for part in os.uname().release.split(".")[:2])
    except ValueError:  # an unparsable release string: take the safe, generous RLIMIT_AS
        return False
    return (major, minor) >= (4, 7)


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM); False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mb() -> float:
    hwm = _read_status_kb("VmHWM")
    if hwm is not None:
        return hwm / 1024.0
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return ru / (1024.0 * 1024.0) if sys.platform == "darwin" else ru / 1024.0


def _preload_params(preload: Any, params: Dict[str, Any]) -> Dict[str, Any]:
    """The method's parameters that ``preload`` names (all of them if it takes ``**kwargs``).

    So a pretrained method loads the checkpoint its parameters name, once, as
    load time; a ``preload(cls)`` without parameters gets none (the original contract).
    """
    import inspect

    try:
        sig = inspect.signature(preload)
    except (TypeError, ValueError):
        return {}
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return dict(params)
    names = {n for n, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return {k: v for k, v in params.items() if k in names}


def _error_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _proc_table() -> Optional[Dict[int, int]]:
    """``{pid: ppid}`` of the live (non-zombie) processes, from ``/proc``; None without ``/proc``."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    table: Dict[int, int] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # the command name may hold spaces and parentheses
        if len(fields) > 1 and fields[0] not in (b"Z", b"X"):
            table[int(name)] = int(fields[1])
    return table


def method_processes(root: int, token: Optional[str] = None) -> List[int]:
    """Pids of the processes started under ``root``: its live descendants and,
    when ``token`` is given, every process whose environment holds
    ``CAUSALARENA_WORKER_TOKEN=<token>`` (children re-parented away from the
    tree). ``root`` and the calling process are not included.

    Reads ``/proc`` (standard library only, the worker runs in sandboxes);
    elsewhere falls back to psutil's recursive children when psutil is
    importable, else returns ``[]``. Processes of other users whose
    environment cannot be read are skipped.
    """
    table = _proc_table()
    if table is None:  # pragma: no cover - no /proc (macOS)
        try:
            import psutil

            return [c.pid for c in psutil.Process(root).children(recursive=True)]
        except Exception:  # noqa: BLE001 - psutil missing or root gone
            return []
    kids: Dict[int, List[int]] = {}
    for pid, ppid in table.items():
        kids.setdefault(ppid, []).append(pid)
    found = set()
    stack = [root]
    while stack:
        for child in kids.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    if token:
        needle = f"\0{TOKEN_ENV}={token}\0".encode()
        for pid in table:
            if pid in found or pid == root:
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as fh:
                    if needle in b"\0" + fh.read():
                        found.add(pid)
            except OSError:
                continue
    found.discard(root)
    found.discard(os.getpid())
    return sorted(found)


def kill_method_processes(token: Optional[str] = None, rounds: int = 5) -> List[int]:
    """SIGKILL every process this worker's method started (:func:`method_processes`
    of this process); rescans until none is left (a child may fork while its
    siblings die), at most ``rounds`` times. Returns the pids signalled."""
    import signal

    killed: List[int] = []
    for _ in range(rounds):
        pids = [p for p in method_processes(os.getpid(), token) if p not in killed]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        killed += pids
    return killed


def _runner_hung_up(poller: Any) -> bool:
    """The protocol's pipe lost its writer (``POLLHUP``): the runner is gone even where ``getppid`` cannot tell."""
    if poller is None:
        return False
    import select

    try:
        return any(ev & (select.POLLHUP | select.POLLERR) for _fd, ev in poller.poll(0))
    except OSError:  # pragma: no cover
        return False


def _watch_parent(parent: int, token: Optional[str] = None,
                  channel_fd: Optional[int] = None) -> None:  # pragma: no cover - SIGKILL tests
    # In a container the parent is the container's init, which outlives a killed runner; there the
    # protocol pipe's hang-up (the client's stdin closed when the runner died) says the runner is gone.
    poller = None
    if channel_fd is not None:
        import select

        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(channel_fd, 0)  # 0: only POLLHUP / POLLERR are reported
    while True:
        time.sleep(WATCHDOG_S)
        if os.getppid() != parent or _runner_hung_up(poller):
            try:
                kill_method_processes(token)
            finally:
                os._exit(3)


def _file_loader(path: str) -> str:
    """The import path of the reader a dataset ``.npz`` names in its ``loader`` entry ("" when none).

    Only the harness writes these files (the runner's dataset cache); the worker imports what
    the runner's own task declares, or failing that what the file it was handed names.
    """
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:
            return str(z["loader"]) if "loader" in z.files else ""
    except (OSError, ValueError):
        return ""  # the reader of last resort raises the real error


class Worker:
    """State of one worker process: the loaded method and the memory cap."""

    def __init__(self, memory_mb: Optional[int] = None, rlimit: bool = True) -> None:
        self.memory_mb = memory_mb
        self.rlimit = rlimit
        self.rlimit_as_mb: Optional[int] = None
        self.rlimit_data_mb: Optional[int] = None
        self.method_class: Any = None
        self.params: Dict[str, Any] = {}
        self.factory: Optional[str] = None
        self.output_kind: Optional[str] = None

    # -- ops ---------------------------------------------------------------
    def hello(self, req: Dict[str, Any]) -> Dict[str, Any]:
        import platform

        import numpy

        from . import __version__

        return {"status": Status.OK.value, "protocol": PROTOCOL_VERSION, "pid": os.getpid(),
                "python": platform.python_version(), "executable": sys.executable,
                "versions": {"numpy": numpy.__version__, "causalarena": __version__},
                "memory_mb": self.memory_mb,
                "rlimit": "data" if self.rlimit_data_mb else "as" if self.rlimit_as_mb else None,
                "rlimit_data_mb": self.rlimit_data_mb, "rlimit_as_mb": self.rlimit_as_mb}

    def load(self, req: Dict[str, Any]) -> Dict[str, Any]:
        from .records import resolve

        t0 = time.perf_counter()
        try:
            cls = resolve(req["factory"])
            params = dict(req.get("params") or {})
            cls(**params)  # construct once here so bad parameters fail the load, not every fit
            preload = getattr(cls, "preload", None)
            if callable(preload):  # heavy imports count as load time, not as the first fit (§5.5)
                preload(**_preload_params(preload, params))
            self.method_class, self.params, self.factory = cls, params, req["factory"]
            self.output_kind = req.get("output_kind")  # the descriptor's, for a class that declares none
        except BaseException as exc:  # noqa: BLE001 - reported to the runner
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            from .method import MethodEnvironmentError

            status = (Status.ENV_ERROR if isinstance(exc, MethodEnvironmentError) else Status.FAILED).value
            return {"status": status, "load_seconds": time.perf_counter() - t0,
                    "error": f"loading {req.get('factory')!r}: {_error_text(exc)}",
                    "traceback": traceback.format_exc()}
        return {"status": Status.OK.value, "load_seconds": time.perf_counter() - t0,
                "error": None, "traceback": None}

    def _set_rlimit(self) -> None:
        """Set the allocation backstop for the next fit (see "Memory" in the module docstring).

        Recomputed before every fit from the worker's current size, so what earlier fits and imports
        left behind never eats into the next fit's room. A no-op without a cap, with ``--no-rlimit``,
        off Linux, or when the hard limit is lower.
        """
        if not self.memory_mb or not self.rlimit:
            return
        try:
            import resource
        except ImportError:  # pragma: no cover - Windows
            return
        per_core = 64 * (os.cpu_count() or 1)
        data_kb = _read_status_kb("VmData") if _data_rlimit_counts_mmap() else None
        if data_kb is not None:
            limit_mb = int(data_kb / 1024.0 + self.memory_mb + 256 + per_core)
            which, attr = resource.RLIMIT_DATA, "rlimit_data_mb"
        else:
            vms_kb = _read_status_kb("VmSize")
            if vms_kb is None:
                return
            limit_mb = int(vms_kb / 1024.0 + self.memory_mb + max(self.memory_mb, 1024) + per_core)
            which, attr = resource.RLIMIT_AS, "rlimit_as_mb"
        try:
            resource.setrlimit(which, (limit_mb * 1024 * 1024, resource.RLIM_INFINITY))
            setattr(self, attr, limit_mb)
        except (ValueError, OSError):  # pragma: no cover - hard limit lower
            pass

    def fit(self, req: Dict[str, Any]) -> Dict[str, Any]:
        out: Dict[str, Any] = {"id": req.get("id"), "prediction": None, "error": None,
                               "traceback": None, "fit_seconds": 0.0}
        if self.method_class is None:
            out.update(status=Status.FAILED.value, error="fit before a successful load", peak_rss_mb=_peak_rss_mb())
            return out
        import random

        import numpy as np

        from .method import MethodEnvironmentError
        from .records import resolve

        _reset_peak_rss()
        self._set_rlimit()
        t0 = time.perf_counter()
        try:
            # the cell's task names its dataset reader; a request without one reads the reader the file
            # names (a task's dataset writes its own), else a discovery Dataset
            loader = req.get("loader") or _file_loader(req["dataset_path"]) or "causalarena.data:Dataset.load"
            dataset = resolve(loader)(req["dataset_path"])
            seed = req.get("seed")
            if seed is not None:
                random.seed(seed)
                np.random.seed(int(seed) % (2 ** 32))
            # a fresh estimator per dataset (scikit-learn's clone): nothing a method keeps
            # between fits can leak into the next dataset, so results never depend on which
            # datasets a worker served before (or on --jobs). Imports stay warm.
            method = self.method_class(**self.params)
            t0 = time.perf_counter()
            method.fit(dataset)
            prediction = method.prediction(kind=self.output_kind).to_json()
            out.update(status=Status.OK.value, prediction=prediction)
        except MethodEnvironmentError as exc:
            out.update(status=Status.ENV_ERROR.value, error=_error_text(exc), traceback=traceback.format_exc())
        except MemoryError as exc:
            out.update(status=Status.OOM.value, error=f"MemoryError: {exc}" if str(exc) else "MemoryError",
                       traceback=traceback.format_exc())
        except BaseException as exc:  # noqa: BLE001 - reported to the runner
            if isinstance(exc, KeyboardInterrupt):
                raise
            # an allocator that reports a refused allocation as its own error (torch, XLA, C++) is the
            # cap's doing as much as a MemoryError is
            status = Status.OOM if _is_allocation_failure(exc) else Status.FAILED
            out.update(status=status.value, error=_error_text(exc), traceback=traceback.format_exc())
        out["fit_seconds"] = time.perf_counter() - t0
        out["peak_rss_mb"] = _peak_rss_mb()
        return out

    def serve(self, stdin: Any, channel: Any) -> int:
        """Answer requests from ``stdin`` on ``channel`` until shutdown/EOF."""
        for line in stdin:
            line = line.strip()
            if not line:
                continue
            op = None
            try:
                req = json.loads(line)
                op = req.get("op")
                if op == "shutdown":
                    resp: Dict[str, Any] = {"status": Status.OK.value}
                elif op in ("hello", "load", "fit"):
                    resp = getattr(self, op)(req)
                else:
                    resp = {"status": PROTOCOL_ERROR, "error": f"unknown op {op!r}; expected hello, load, fit, shutdown"}
            except Exception as exc:  # noqa: BLE001 - malformed request
                resp = {"status": PROTOCOL_ERROR, "error": f"bad request: {_error_text(exc)}"}
            resp["op"] = op
            try:
                payload = json.dumps(resp)
            except (TypeError, ValueError) as exc:
                payload = json.dumps({"op": op, "id": resp.get("id"), "status": Status.FAILED.value,
                                      "error": f"response not JSON serialisable: {exc}",
                                      "fit_seconds": resp.get("fit_seconds"),
                                      "peak_rss_mb": resp.get("peak_rss_mb")})
            channel.write(payload + "\n")
            channel.flush()
            if op == "shutdown":
                return 0
        return 0


def _protect_stdout() -> Any:
    """Return a writer on the original stdout; route fd 1 to stderr."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def _protect_stdin() -> Any:
    """Return a reader on the original stdin; point fd 0 (and ``sys.stdin``) at /dev/null."""
    channel = os.fdopen(os.dup(0), "r")  # os.dup: not inheritable, so children never see the protocol
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
    finally:
        os.close(devnull)
    sys.stdin = open(0, "r", closefd=False)  # nothing was read through the old object yet
    return channel


def main(argv: Optional[list] = None) -> int:
    """Entry point of ``python -m causalarena.worker``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    memory_mb: Optional[int] = None
    rlimit = os.environ.get("CAUSALARENA_WORKER_RLIMIT", "1") not in ("0", "")
    env_value = os.environ.get(MEMORY_ENV)
    if env_value:
        memory_mb = int(env_value)
    while argv:
        arg = argv.pop(0)
        if arg == "--memory-mb" and argv:
            memory_mb = int(argv.pop(0))
        elif arg.startswith("--memory-mb="):
            memory_mb = int(arg.split("=", 1)[1])
        elif arg == "--no-rlimit":
            rlimit = False
        else:
            sys.stderr.write(f"causalarena.worker: unknown argument {arg!r}\n"
                             "usage: python -m causalarena.worker [--memory-mb M] [--no-rlimit]\n")
            return 2
    if memory_mb is not None and memory_mb <= 0:
        memory_mb = None
    channel = _protect_stdout()
    requests = _protect_stdin()
    token = os.environ.get(TOKEN_ENV) or None
    # the hang-up rule only where the parent cannot tell (a container, whose launcher sets the variable): a
    # local client may pipeline requests and close stdin, leaving them in the reader's buffer to be served
    hangup_fd = requests.fileno() if os.environ.get(HANGUP_ENV) == "1" else None
    threading.Thread(target=_watch_parent, args=(os.getppid(), token, hangup_fd), daemon=True).start()
    try:
        return Worker(memory_mb, rlimit).serve(requests, channel)
    finally:
        # shutdown or EOF (an idle worker whose runner died sees EOF before its watchdog fires):
        # nothing the method started outlives the worker
        kill_method_processes(token)


if __name__ == "__main__":
    sys.exit(main())
