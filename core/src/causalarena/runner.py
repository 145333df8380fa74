"""Run a grid of cells through warm worker processes into the result store.

A cell is ``(family, instance, split, replicate, method)`` (:class:`~causalarena.cells.Cell`).
For each cell the runner

1. skips it if its key is already in the store (resume);
2. asks the cell's task (:class:`causalarena.tasks.Task`, by ``MethodInfo.task``) whether the
   method runs it at all → ``unsupported`` (missing, not failed: e.g. obs+int for a method
   without interventions, App. B.1);
3. builds the dataset once per ``(family, scm_id, split, replicate)`` and caches it as
   ``.npz`` — a copy *without* the truth for the worker (:mod:`causalarena.cache`);
4. runs the task's input checks → ``invalid_input`` without launching anything;
5. fits the method in a warm worker (:class:`~causalarena.workers.WorkerHandle`, protocol in
   :mod:`causalarena.worker`) under a wall-clock budget and a memory cap →
   ``ok`` / ``failed`` / ``timeout`` / ``oom``;
6. lets the task decode, check and score the answer → ``invalid_output`` or metrics and flags
   (discovery: CPDAG/PAG edges oriented with the cell seed, App. B.2, then every metric);
7. writes the run (a :class:`causalarena.runs.RunRecord`) and what its task keeps (discovery:
   the scored DAG, edge scores and true graph, :mod:`causalarena.predictions`) in one
   transaction (:class:`causalarena.store.Store`), then tells ``on_stored`` (the life-cycle
   hook ``arena_cell_stored``).

One pipeline serves every task. Statuses are :class:`causalarena.records.Status` members; the
progress bar (:mod:`causalarena.progress`) counts :data:`causalarena.records.FAILURE_STATUSES`
as failures. ``jobs`` threads each drive their own worker process; cells are grouped by method
so that a worker loads its method once and serves many datasets.

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

import json
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import attrs

from .cache import DatasetCache, harness_fault
from .cells import Cell, cell_key, grid_keys, instance_fingerprint, make_cells
from .conventions import CPDAG_ORIENTATIONS, CPDAG_REPAIRS
from .isolation import IsolationError, WorkerLaunch, local_launch
from .metrics import scoring_config
from .progress import GridSummary, _now, _Progress, count_failures
from .records import Status
from .runs import KEY_COLUMNS, RunRecord, to_status
from .scoring import Scorer, default_scorer
from .store import MachineFault, Store
from .tasks import task_of
from .workers import MEMORY_POLL_S, MIN_MEMORY_MB, WORKER_FIT_STATUSES, WorkerError, WorkerHandle

__all__ = ["MEMORY_POLL_S", "MIN_MEMORY_MB", "WORKER_FIT_STATUSES", "Cell", "DatasetCache", "GridSummary",
           "RunConfig", "Runner", "Scorer", "WorkerError", "WorkerHandle", "cell_key", "count_failures",
           "default_scorer", "grid_keys", "harness_fault", "instance_fingerprint", "make_cells", "run_grid"]


def _names(values: Iterable[str]) -> Tuple[str, ...]:
    return tuple(str(v) for v in values)


@attrs.frozen(kw_only=True)
class RunConfig:
    """How a grid runs: budgets, data options, scoring policy, isolation (one record, not 19 arguments).

    Every field is part of :func:`run_grid`'s contract; the dataset and scoring options are part
    of each run's key (:func:`~causalarena.cells.cell_key`), so changing them reruns, never mixes.

    Attributes:
        jobs: parallel threads, each driving its own warm worker process.
        budget_s: wall-clock budget of one fit in seconds (None: unlimited); on excess the
            worker's process group is killed and the run is ``timeout`` with ``wall_seconds = budget_s``.
        memory_mb: resident-memory cap of one worker's process tree in MB; excess → ``oom``
            (see :mod:`causalarena.worker` for the rlimit backstop).
        python: interpreter that runs ``python -m causalarena.worker``.
        standardise, protocol, n: dataset options (part of the config hash).
        progress: show a rich progress bar (cells done/total, failures, ETA).
        env: extra environment variables for the workers (``PYTHONPATH`` …).
        cache_dir: where datasets are cached as ``.npz`` (default: a temporary directory
            removed at the end).
        retry_statuses: stored statuses to run again (e.g. ``("timeout",)``).
        suite: name of the suite these runs belong to (recorded per run).
        scorer: ``(true_adjacency, prediction, seed) -> (metrics, warnings)`` replacing
            :func:`~causalarena.scoring.default_scorer` (discovery runs).
        load_timeout_s: seconds allowed for importing and constructing a method.
        launcher: ``method_info -> WorkerLaunch`` choosing where each method's worker runs
            (:mod:`causalarena.isolation`); default: ``python`` here. An
            :class:`~causalarena.isolation.IsolationError` it raises makes every cell of that
            method ``env_error``.
        cpdag_orientation: how CPDAG/PAG undirected edges are oriented before scoring,
            ``"mec"`` (default) or ``"linear_extension"`` (:func:`causalarena.metrics.orient_cpdag`).
        cpdag_repair: a CPDAG/PAG with a directed cycle: ``"undirect_cycles"`` (default,
            flagged ``cpdag_repaired``, scored) or ``"strict"`` (``invalid_output``). Both are part
            of a CPDAG/PAG method's config hash and stored in the run's ``scoring`` column.
        on_stored: called with a copy of each run's record after it is stored (the life-cycle
            hook ``arena_cell_stored``); what it does cannot change a stored result, and an
            exception it raises is reported once per kind, never stops the grid.

    Raises:
        ValueError: a bad CPDAG policy (naming it), before anything runs.
    """

    jobs: int = 1
    budget_s: Optional[float] = None
    memory_mb: Optional[float] = None
    python: str = sys.executable
    standardise: bool = True
    protocol: str = "default"
    n: Optional[int] = None
    progress: bool = True
    env: Optional[Mapping[str, str]] = None
    cache_dir: Optional[str] = None
    retry_statuses: Tuple[str, ...] = attrs.field(default=(), converter=_names)
    suite: Optional[str] = None
    scorer: Optional[Scorer] = None
    load_timeout_s: Optional[float] = 600.0
    launcher: Optional[Callable[[Any], WorkerLaunch]] = None
    cpdag_orientation: str = CPDAG_ORIENTATIONS[0]
    cpdag_repair: str = CPDAG_REPAIRS[0]
    on_stored: Optional[Callable[[RunRecord], None]] = attrs.field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        scoring_config("cpdag", self.cpdag_orientation, self.cpdag_repair)


def _config(config: Optional[RunConfig], options: Mapping[str, Any], where: str) -> RunConfig:
    """``config`` with ``options`` (fields of :class:`RunConfig`) replaced; TypeError naming an unknown one."""
    fields = attrs.fields_dict(RunConfig)
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise TypeError(f"{where}: unknown option(s) {unknown}; RunConfig fields: {sorted(fields)}")
    return attrs.evolve(config or RunConfig(), **options)


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
    """Runs cells into a :class:`~causalarena.store.Store`; see :func:`run_grid`.

    Args:
        store: the result store (None: a store-less copy that executes cells for an executor).
        metrics: name → :class:`~causalarena.records.MetricInfo`; each run is scored with those of its task.
        config: a :class:`RunConfig`; keyword ``options`` (its fields) replace single fields.
        registry: where the cells' tasks are looked up (default: :func:`causalarena.plugins.default_registry`).

    Raises:
        ValueError: a bad CPDAG policy; TypeError: an unknown option.
        MachineFault: the dataset cache folder cannot be created.
    """

    def __init__(self, store: Optional[Store], metrics: Optional[Mapping[str, Any]] = None,
                 config: Optional[RunConfig] = None, *, registry: Any = None, **options: Any) -> None:
        cfg = _config(config, options, "Runner")
        self.config = cfg
        self._remote_config = attrs.evolve(cfg, cache_dir=None, on_stored=None, progress=False)
        self._metrics_arg = metrics
        self.store = store
        self.registry = registry
        self.launcher, self.suite = cfg.launcher, cfg.suite
        self.budget_s, self.memory_mb, self.python = cfg.budget_s, cfg.memory_mb, cfg.python
        self.standardise, self.protocol, self.n = cfg.standardise, cfg.protocol, cfg.n
        self.cpdag_orientation, self.cpdag_repair = cfg.cpdag_orientation, cfg.cpdag_repair
        self.env = dict(cfg.env or {})
        self.load_timeout_s = cfg.load_timeout_s
        self._fingerprints: Dict[int, Optional[str]] = {}  # id(instance) -> fingerprint (cells hold them)
        self._tasks: Dict[str, Any] = {}
        self._own_cache = cfg.cache_dir is None
        try:
            self.cache_dir = cfg.cache_dir or tempfile.mkdtemp(prefix="arena-datasets-")
            os.makedirs(self.cache_dir, exist_ok=True)
        except OSError as exc:
            raise harness_fault(f"cannot create the dataset cache {cfg.cache_dir or tempfile.gettempdir()}", exc,
                                cfg.cache_dir) from exc
        self.cache = DatasetCache(self.cache_dir, self.standardise, self.protocol, self.n)
        self.metrics: Mapping[str, Any] = metrics if metrics is not None else {}
        self.scorer = cfg.scorer or default_scorer(self.metrics, self.cpdag_orientation)
        self._sink_errors: set = set()

    def task(self, name: str) -> Any:
        """The :class:`~causalarena.tasks.Task` object of task ``name`` (looked up once).

        Raises:
            KeyError: no installed distribution registers it (a runner error: the cell is ``failed``).
        """
        if name not in self._tasks:
            registry = self.registry
            if registry is None:
                from .plugins import default_registry

                registry = default_registry()
            self._tasks[name] = registry.task(name)
        return self._tasks[name]

    def remote_factory(self) -> Callable[[], "Runner"]:
        """A picklable zero-argument callable building a store-less copy of this runner (executors).

        The copy runs :meth:`execute_cell` where an executor places a cell;
        its dataset cache is a temporary folder of that process (data are
        generated there from the cell's seed, never shipped as tables), and it
        finds the tasks in that process's registry.
        """
        import functools

        return functools.partial(Runner, None, self._metrics_arg, self._remote_config)

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

    def commit(self, row: RunRecord, kept: Any = None) -> RunRecord:
        """Store a run with what its task keeps (when ``ok`` and scored), in one transaction.

        Then hands a copy of the stored record to :attr:`RunConfig.on_stored` (read-only for it).

        Raises:
            causalarena.store.StoreError: the store cannot be written (a MachineFault).
        """
        store = self._require_store()
        extra: Mapping[str, Any] = {}
        if kept is not None and row.status is Status.OK:
            try:
                extra = self.task(task_of(row)).keep(row, kept)
            except ValueError as exc:  # an output that does not encode: the run stands, unkept
                row.flags.append(f"prediction_not_kept: {exc}")
        try:
            store.record(row, **extra)
        except ValueError as exc:  # e.g. a prediction of another size than its truth: the run stands, unkept
            if not extra:
                raise
            row.flags.append(f"prediction_not_kept: {exc}")
            store.record(row)
        self._notify(row)
        return row

    def _notify(self, row: RunRecord) -> None:
        """Tell :attr:`RunConfig.on_stored` (a copy: a sink cannot change what was stored)."""
        sink = self.config.on_stored
        if sink is None:
            return
        try:
            sink(RunRecord.from_row(row.as_row()))
        except Exception as exc:  # noqa: BLE001 - a results sink never stops the grid
            kind = f"{type(exc).__name__}: {exc}"
            if kind not in self._sink_errors:
                self._sink_errors.add(kind)
                print(f"warning: a results sink (arena_cell_stored) raised {kind}; the run is stored, the grid "
                      "goes on", file=sys.stderr)

    def _require_store(self) -> Store:
        if self.store is None:
            raise RuntimeError("this runner has no store (a remote copy: it executes cells, the client stores them)")
        return self.store

    def execute_cell(self, cell: Cell, slot: Dict[str, Any]) -> Tuple[RunRecord, Any]:
        """Run one cell without storing it: its record and, for a scored ``ok`` run, what its task keeps.

        Raises:
            MachineFault: as :meth:`run_cell` (nothing is returned for the cell).
        """
        row = self.base_record(cell)
        t0 = time.perf_counter()
        kept: Any = None
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

    def _run_cell(self, cell: Cell, slot: Dict[str, Any], row: RunRecord) -> Any:
        """Fill ``row`` through the cell's task (:mod:`causalarena.tasks`); what to keep for a scored ``ok`` run."""
        m = cell.method
        task = self.task(task_of(m))
        why = task.unsupported(m, cell)
        if why:
            row.status, row.wall_seconds, row.error = Status.UNSUPPORTED, 0.0, why
            return None
        try:
            dataset, path = self.cache.get(cell)
        except MachineFault:
            raise  # the cache could not be written: the run's fault, not the cell's
        except Exception as exc:  # noqa: BLE001 - the family's generator raised: the cell's failure
            row.status = Status.FAILED
            row.error = f"dataset construction failed: {type(exc).__name__}: {exc}"
            return None
        why = task.check_input(m, cell, dataset, row)
        if why:
            row.status, row.wall_seconds, row.error = Status.INVALID_INPUT, 0.0, why
            return None
        res = self._fit_in_worker(cell, slot, row, path, task.loader)
        if res is None:
            return None
        return task.score(m, cell, dataset, res["prediction"], row, self)

    def _fit_in_worker(self, cell: Cell, slot: Dict[str, Any], row: RunRecord, path: str, loader: str = ""
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
        res = worker.fit(path, row.seed, self.budget_s, run_id="/".join(str(k) for k in self.key(cell)), loader=loader)
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
    def run(self, cells: Sequence[Cell], executor: Any = None) -> GridSummary:
        """Run every cell not yet in the store (``jobs``, ``progress``, ``retry_statuses`` of the config)."""
        jobs, progress, retry_statuses = self.config.jobs, self.config.progress, self.config.retry_statuses
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

        def on_result(index: int, row: RunRecord, kept: Any = None) -> None:
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


def run_grid(cells: Sequence[Cell], registry: Any, store: Store, config: Optional[RunConfig] = None, *,
             executor: Any = None, **options: Any) -> GridSummary:
    """Run a grid of cells and store one row per cell.

    Args:
        cells: :class:`~causalarena.cells.Cell` tuples ``(family, instance, split, replicate,
            method_info)`` (see :func:`~causalarena.cells.make_cells`). Duplicates run once.
        registry: a :class:`causalarena.plugins.Registry`: its ``metrics`` score the runs and its
            ``tasks`` run them; ``None`` scores nothing unless ``scorer`` is given (tasks then come
            from :func:`causalarena.plugins.default_registry`).
        store: the result store; cells whose key it holds are skipped (resume).
        config: a :class:`RunConfig` (budgets, data options, scoring policy, isolation, sink);
            keyword ``options`` (its fields, e.g. ``jobs=2``) replace single fields.
        executor: run the cells elsewhere instead of in ``jobs`` local threads
            (``arena run --cluster``; see "Executors" in the module docstring).

    Returns:
        :class:`~causalarena.progress.GridSummary` of this invocation (skipped = already stored).

    Raises:
        TypeError: an option that is not a :class:`RunConfig` field.
        MachineFault: the harness's own environment failed (the dataset cache,
            a worker log or the store cannot be written; a
            :class:`~causalarena.store.StoreError` for the store). The grid
            stops; the cells stored before are kept, the others are not stored,
            so rerunning the same grid resumes.
    """
    metrics = getattr(registry, "metrics", None) if registry is not None else None
    runner = Runner(store, metrics, _config(config, options, "run_grid"), registry=registry)
    try:
        return runner.run(cells, executor=executor)
    finally:
        runner.close()
