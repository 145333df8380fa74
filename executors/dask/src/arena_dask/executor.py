"""Arena grids on a Dask cluster: the ``dask`` executor of ``arena run --cluster SPEC``.

SPEC:

* ``local:N`` (``local`` = ``--jobs``): a :class:`distributed.LocalCluster` of N
  worker processes, one thread each, scheduler and workers on 127.0.0.1;
* ``tcp://HOST:PORT`` (or ``tls://…``): an existing scheduler;
* ``slurm`` / ``pbs``: a :mod:`dask_jobqueue` cluster whose workers are batch
  jobs (resources from ``--cluster-option`` and the method budget, below).

How a cell runs: every cell is one Dask task (submitted in the runner's
method-grouped order, so a worker mostly serves one method at a time). The
task calls ``make_runner()`` once per Dask worker process — a store-less copy
of the client's runner with the same worker protocol, budgets, memory caps,
scorer and isolation launcher — and ``execute_cell`` with one slot per worker
thread, so each Dask worker keeps the arena's warm method worker between
cells. The dataset is generated there from the cell's seed (byte-identical to
a local run; the cell carries the SCM spec, never a table). The record, the
scored prediction and the truth come back to the client, which alone writes
the SQLite store, one transaction per run.

Faults of the cluster are not faults of the method: a Dask worker that dies
hands its running task back to the scheduler, which reruns it elsewhere, up
to ``retries`` deaths (``distributed.scheduler.allowed-failures``; default 3);
a cell that kills every worker it lands on is then recorded ``failed`` with
that reason. A cell answered twice is stored once (the runner drops the
second answer). A killed client loses only the cells in flight: the same
command resumes from the store.

Options (``--cluster-option KEY=VALUE``):

* every SPEC: ``retries`` (worker deaths a cell may cause, default 3);
* ``local``: ``dashboard`` (``0``/``false``/``no``/``off`` disables it, ``1``/``true``/``yes``/``on``
  keeps it, case-insensitive; anything else is refused; default on when bokeh is installed);
* ``slurm`` / ``pbs``: ``cores`` (threads = warm method workers per job,
  default 1), ``memory`` (default ``cores × --memory-mb`` + 1 GiB for the
  worker itself), ``walltime`` (default max(1 h, 4 × --budget), HH:MM:SS),
  ``jobs`` (batch jobs to start, default ``--jobs``), ``queue``, ``account``,
  ``python`` (interpreter on the compute nodes, default this one: a shared
  filesystem is assumed), ``interface`` / ``host`` (where the scheduler
  listens; compute nodes must reach it), ``job_extra`` (extra scheduler
  directives, ``;``-separated).
"""

from __future__ import annotations

import atexit
import math
import sys
import threading
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

JOBQUEUE = {"slurm": "SLURMCluster", "pbs": "PBSCluster"}
COMMON_OPTIONS = ("retries",)
LOCAL_OPTIONS = ("dashboard",)
JOBQUEUE_OPTIONS = ("cores", "memory", "walltime", "jobs", "queue", "account", "python", "interface", "host",
                    "job_extra")
DEFAULT_RETRIES = 3
#: the spellings of a yes/no cluster option (compared lower-case)
TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")

# -- the task (runs in a Dask worker process) ---------------------------------------------------------

_RUNNERS: Dict[str, Any] = {}
_LOCAL = threading.local()
_LOCK = threading.Lock()


def execute(token: str, make_runner: Callable[[], Any], cell: Any) -> Tuple[Any, ...]:
    """Run one cell where this task landed: ``("ok", record, kept)`` or ``("machine_fault", message)``.

    One runner per (process, grid token), one slot per thread: the thread's
    warm method worker survives between the cells it runs.
    """
    from causalarena.store import MachineFault

    with _LOCK:
        runner = _RUNNERS.get(token)
        if runner is None:
            runner = _RUNNERS[token] = make_runner()
            atexit.register(runner.close)
    slots = getattr(_LOCAL, "slots", None)
    if slots is None:
        slots = _LOCAL.slots = {}
        atexit.register(_close_slot_dict, slots)
    slot = slots.setdefault(token, {})
    try:
        row, kept = runner.execute_cell(cell, slot)
    except MachineFault as exc:  # the worker host's disk or cache: the client stops the grid, stores nothing
        return ("machine_fault", f"on Dask worker: {exc}")
    return ("ok", row, kept)


def _close_slot_dict(slots: Dict[str, Dict[str, Any]]) -> None:
    for slot in slots.values():
        worker = slot.pop("worker", None)
        if worker is not None:
            worker.close()


# -- the client side ---------------------------------------------------------------------------------

def _walltime(seconds: float) -> str:
    s = int(math.ceil(seconds))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


class DaskExecutor:
    """The ``dask`` executor (module docstring has SPEC and the options).

    Raises (constructor):
        ValueError: an unknown SPEC form or option, or a malformed value (named).
    """

    def __init__(self, spec: str, options: Mapping[str, str], *, jobs: int = 1, budget_s: Optional[float] = None,
                 memory_mb: Optional[float] = None, log: Callable[[str], None] = print) -> None:
        self.spec, self.options, self.jobs = spec, dict(options), max(1, int(jobs))
        self.budget_s, self.memory_mb, self.log = budget_s, memory_mb, log
        self.client: Any = None
        self.cluster: Any = None
        if spec == "local" or spec.startswith("local:"):
            self.kind = "local"
            count = spec.partition(":")[2] or str(self.jobs)
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"local:N needs a positive number of workers, got {count!r}")
            self.n_workers = int(count)
            allowed = COMMON_OPTIONS + LOCAL_OPTIONS
        elif "://" in spec:
            self.kind, self.n_workers = "address", 0
            allowed = COMMON_OPTIONS
        elif spec in JOBQUEUE:
            self.kind = spec
            self.n_workers = int(self.options.get("jobs", self.jobs))
            allowed = COMMON_OPTIONS + JOBQUEUE_OPTIONS
        else:
            raise ValueError(f"unknown cluster {spec!r}; expected local:N, tcp://HOST:PORT, "
                             f"or one of {sorted(JOBQUEUE)} (dask-jobqueue)")
        unknown = sorted(set(self.options) - set(allowed))
        if unknown:
            raise ValueError(f"unknown --cluster-option(s) {unknown} for {spec!r}; known: {list(allowed)}")
        self.retries = self._int("retries", DEFAULT_RETRIES, minimum=0)
        #: the local cluster's dashboard as asked (on by default; it starts only where bokeh is installed)
        self.dashboard = self._bool("dashboard", True)
        if self.kind in JOBQUEUE:
            self._int("cores", 1, minimum=1)
            self._int("jobs", self.jobs, minimum=1)

    def _int(self, key: str, default: int, minimum: int) -> int:
        raw = self.options.get(key)
        if raw is None:
            return default
        if not raw.isdigit() or int(raw) < minimum:
            raise ValueError(f"--cluster-option {key}={raw!r}: expected an integer >= {minimum}")
        return int(raw)

    def _bool(self, key: str, default: bool) -> bool:
        """A yes/no option (:data:`TRUE_WORDS` / :data:`FALSE_WORDS`); ValueError naming it otherwise.

        Every spelling is read here, once: ``dashboard=false`` used to be compared with ``"0"`` only, so
        it started a dashboard and printed its link.
        """
        raw = self.options.get(key)
        if raw is None:
            return default
        word = raw.strip().lower()
        if word not in TRUE_WORDS + FALSE_WORDS:
            raise ValueError(f"--cluster-option {key}={raw!r}: expected {'/'.join(TRUE_WORDS)} or "
                             f"{'/'.join(FALSE_WORDS)}")
        return word in TRUE_WORDS

    # -- cluster construction --------------------------------------------------------------------
    def _jobqueue_kwargs(self, dry_run: bool) -> Dict[str, Any]:
        cores = self._int("cores", 1, minimum=1)
        memory = self.options.get("memory") or f"{int(cores * (self.memory_mb or 4096) + 1024)}MB"
        walltime = self.options.get("walltime") or _walltime(max(3600.0, 4.0 * (self.budget_s or 900.0)))
        kw: Dict[str, Any] = dict(cores=cores, processes=1, memory=memory, walltime=walltime,
                                  python=self.options.get("python", sys.executable))
        for key in ("queue", "account"):
            if key in self.options:
                kw[key] = self.options[key]
        if "job_extra" in self.options:
            kw["job_extra_directives"] = [d.strip() for d in self.options["job_extra"].split(";") if d.strip()]
        host = self.options.get("host") or ("127.0.0.1" if dry_run else None)
        if host:
            kw["scheduler_options"] = {"host": host}
        if "interface" in self.options:
            kw["interface"] = self.options["interface"]
        return kw

    def _make_cluster(self, dry_run: bool = False) -> Any:
        import dask

        # the worker's statistical profiler samples every 10 ms: CPU a method needs when every core fits a
        # cell (measured: x1.75 -> see notes/issue-16.md); a task here only waits on its method worker's pipe
        dask.config.set({"distributed.scheduler.allowed-failures": self.retries,
                         "distributed.worker.profile.enabled": False,
                         "distributed.admin.system-monitor.gil.enabled": False,
                         "distributed.admin.system-monitor.interval": "2s"})
        if self.kind == "local":
            from distributed import LocalCluster

            dashboard = self.dashboard and _has_bokeh()
            # memory_limit=0: Dask's own memory monitor (psutil every 100 ms) is off; the arena caps each
            # method worker (--memory-mb), which is where a cell's memory goes
            return LocalCluster(n_workers=self.n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                dashboard_address="127.0.0.1:0" if dashboard else None, memory_limit=0)
        import dask_jobqueue

        return getattr(dask_jobqueue, JOBQUEUE[self.kind])(**self._jobqueue_kwargs(dry_run))

    def dry_run(self) -> str:
        """What ``--cluster`` would submit: the job script of ``slurm`` / ``pbs``; a description otherwise.

        The dry-run cluster's scheduler binds 127.0.0.1 (unless ``host=``) and starts no job.
        """
        if self.kind not in JOBQUEUE:
            what = f"a local cluster of {self.n_workers} workers" if self.kind == "local" else "an existing scheduler"
            return f"# {self.spec}: no job script ({what}); retries {self.retries}"
        cluster = self._make_cluster(dry_run=True)
        try:
            return f"# {self.n_workers} job(s) like this one (scale = --cluster-option jobs=N)\n" + cluster.job_script()
        finally:
            cluster.close()

    def start(self) -> str:
        """Start or connect to the cluster; the line ``arena run`` prints (address, workers, dashboard)."""
        from distributed import Client

        if self.kind == "address":
            self.client = Client(self.spec)
        else:
            self.cluster = self._make_cluster()
            if self.kind in JOBQUEUE:
                self.cluster.scale(jobs=self.n_workers)
            self.client = Client(self.cluster)
        if self.kind == "local":
            self.client.wait_for_workers(self.n_workers, timeout=120)
        workers = len(self.client.scheduler_info().get("workers", {}))
        dash = getattr(self.client, "dashboard_link", None) if self._dashboard_on() else None
        return (f"dask: scheduler {self.client.scheduler.address}, {workers} worker(s) alive"
                + (f", dashboard {dash}" if dash else ""))

    def _dashboard_on(self) -> bool:
        if not self.dashboard:  # asked off: never a link, whatever the scheduler lists
            return False
        try:
            return bool(self.client.scheduler_info().get("services", {}).get("dashboard"))
        except Exception:  # noqa: BLE001 - a scheduler without the info: no link
            return False

    def workers_alive(self) -> int:
        return len(self.client.scheduler_info().get("workers", {})) if self.client is not None else 0

    def run(self, cells: Sequence[Any], make_runner: Callable[[], Any],
            on_result: Callable[..., None], failed_record: Callable[[Any, str], Any]) -> None:
        """Submit every cell, hand each result back as it completes (see :mod:`causalarena.runner`, "Executors").

        Raises:
            causalarena.store.MachineFault: a cell hit a fault of its worker's host (disk, cache); the
                other tasks are cancelled.
        """
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        from causalarena.store import MachineFault

        if self.client is None:
            self.start()
        token = uuid.uuid4().hex
        futures: Dict[Any, int] = {}
        for i, cell in enumerate(cells):
            fut = self.client.submit(execute, token, make_runner, cell, key=f"arena-cell-{token[:8]}-{i}",
                                     pure=False, retries=0)
            futures[fut] = i
        alive = self.workers_alive()
        pending: List[Any] = list(futures)
        try:
            for fut in as_completed(pending):
                i = futures[fut]
                try:
                    answer = fut.result()
                except KilledWorker as exc:
                    on_result(i, failed_record(cells[i], f"the cell's Dask worker died {self.retries + 1} times "
                                                         f"(every worker it ran on; allowed-failures "
                                                         f"{self.retries}): {exc}"), None)
                    continue
                if answer[0] == "machine_fault":
                    raise MachineFault(answer[1])
                on_result(i, answer[1], answer[2])
                now = self.workers_alive()
                if now != alive:
                    self.log(f"dask: {now} worker(s) alive (was {alive})")
                    alive = now
        except BaseException:
            self.client.cancel(pending, force=True)
            raise

    def close(self) -> None:
        """Close the client and the cluster this executor started (an existing scheduler stays up)."""
        for obj in (self.client, self.cluster):
            if obj is not None:
                try:
                    obj.close()
                except Exception:  # noqa: BLE001 - closing a half-started cluster
                    pass
        self.client = self.cluster = None


def _has_bokeh() -> bool:
    import importlib.util

    return importlib.util.find_spec("bokeh") is not None
