"""``arena run``: run the grid (resumes), print and write the leaderboard.

Methods × instances × splits × replicates become cells
(:func:`causalarena.runner.make_cells`); cells already stored in
``--results`` are skipped, so rerunning the same command resumes. ``--suite``
runs one of a family's named studies (:attr:`Family.suites
<causalarena.family.Family.suites>`), one grid per (protocol, n).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any, Dict, List, NamedTuple, NoReturn, Optional, Tuple

from ..records import STATUSES
from ._common import (
    DEFAULT_RESULTS,
    STORE_NAME,
    UsageError,
    _apply_fresh,
    _console,
    _csv,
    _family_instances,
    _FolderLock,
    _machine_fault,
    _plugin_options,
    _positive,
    _print_errors,
    _registry,
    _results_dir,
    _run_report_extensions,
    _select,
    _validate_leaderboard_metrics,
    _validate_splits,
    _write_report_files,
    add_family_option,
    parse_family_options,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena run``."""
    sp = parser
    sp.add_argument("--methods", help="comma list (default: every installed method)")
    sp.add_argument("--families", help="comma list (default: every installed family)")
    sp.add_argument("--task", help="run only the methods and families of this task (default: every installed "
                                   "task; each method is paired with the instances of its own task; "
                                   "`arena plugins` lists the tasks)")
    sp.add_argument("--scm", help="comma list of instance ids to keep")
    sp.add_argument("--splits", help="comma list of obs, obs_int (default: both); for a task whose splits are "
                                     "views (e.g. effect: bd, fd, iv, px, hc …), those")
    sp.add_argument("--replicates", type=int, help="replicates per split (default: the family's, 5 for SCMs)")
    add_family_option(sp, help="family option, e.g. synthetic.per_cell=3 or real.tables=data.csv=edges.csv")
    sp.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)), help="parallel workers")
    sp.add_argument("--budget", type=float, default=600.0, help="wall-clock seconds per run (default 600)")
    sp.add_argument("--memory-mb", type=float, default=6144.0, help="memory cap per worker (default 6144)")
    sp.add_argument("--raw", action="store_true", help="do not standardise inputs (varsortability study)")
    sp.add_argument("--protocol", default="default",
                    help="intervention protocol of obs+int (installed ones: arena plugins; App. A.2 suite: "
                         "arena-family-synthetic)")
    sp.add_argument("--suite", help="run a family's named suite (e.g. sample-size, intervention-protocols)")
    sp.add_argument("--fresh", type=int, metavar="ROUND",
                    help="draw fresh round ROUND of never-released configurations (needs the operator key)")
    sp.add_argument("--n", type=int, help="rows per dataset (sample-size studies)")
    sp.add_argument("--python", default=sys.executable, help="interpreter that runs the workers")
    sp.add_argument("--isolation", default="auto",
                    help="where method workers run: auto (own environment only for plugins whose requirements "
                         "this environment does not satisfy), none, venv, docker (default auto)")
    sp.add_argument("--results", default=DEFAULT_RESULTS, help=f"results folder (default {DEFAULT_RESULTS})")
    sp.add_argument("--metrics", help="metrics in leaderboard cells (default f1,shd)")
    sp.add_argument("--retry", help="stored statuses to run again, e.g. timeout,failed (ok: rerun successes, "
                                    "which also stores the predictions of runs kept before predictions were)")
    sp.add_argument("--no-progress", action="store_true")
    sp.add_argument("--no-extensions", action="store_true",
                    help="skip the report extensions (e.g. arena-diagnosis's figures and index.html) after the "
                         "leaderboard; `arena report` runs them later")
    sp.add_argument("--strict", action="store_true", help="fail when a plugin does not import")
    sp.add_argument("--cluster", metavar="SPEC",
                    help="run the cells on a cluster through an executor plugin (arena-dask: local:N, a scheduler "
                         "address tcp://HOST:PORT, slurm, pbs); the store stays here, one transaction per run")
    sp.add_argument("--cluster-option", action="append", default=[], metavar="KEY=VALUE",
                    help="an executor option, e.g. cores=4, memory=8GB, walltime=02:00:00, queue=short "
                         "(repeatable; see the executor's README)")
    sp.add_argument("--cluster-dry-run", action="store_true",
                    help="print what --cluster would submit (a batch system's job script) and exit")
    sp.add_argument("--executor", help="which installed executor serves --cluster (default: the only one)")
    sp.add_argument("--cpdag-orientation", default="mec", type=_policy, metavar="{mec,linear_extension}",
                    help="how CPDAG/PAG undirected edges are oriented before the directed metrics: mec (default: "
                         "a random member of the Markov equivalence class, seeded per cell) or linear_extension "
                         "(the rule before issue 12; can add v-structures)")
    sp.add_argument("--cpdag-repair", default="undirect_cycles", type=_policy,
                    metavar="{undirect-cycles,strict}",
                    help="a CPDAG/PAG whose directed edges form a cycle: undirect-cycles (default: the edges on "
                         "directed cycles become undirected, then oriented; flagged cpdag_repaired and scored) or "
                         "strict (invalid_output). Both are part of a CPDAG method's configuration")


def _policy(value: str) -> str:
    """A CPDAG policy value with ``-`` read as ``_`` (``undirect-cycles`` = ``undirect_cycles``)."""
    return value.replace("-", "_")


def _check_isolation(isolation: str, registry) -> None:
    """Raise :class:`UsageError` when ``--isolation`` is neither a built-in choice nor an installed backend."""
    from ..isolation import ISOLATION_CHOICES

    known = sorted(set(ISOLATION_CHOICES) | set(registry.isolation_backends))
    if isolation not in known:
        raise UsageError(f"--isolation {isolation!r}: expected one of {known}"
                         + ("" if registry.isolation_backends else " (pip install arena-sandbox for venv, docker)"))


RESERVED_KEY_ENV = "CAUSALARENA_RESERVED_KEY"


def reserved_key_note(environ) -> Optional[str]:
    """The run header's line on the reserved-round key: its fingerprint, never the key (None when unset).

    Reserved and fresh instances (synthetic ``…-r013``, ``…-f3-007``; reserved cards) derive from the
    operator's key: another key gives other SCMs under the **same ids**, and a resumed run would mix them.
    The fingerprint (first 8 hex digits of SHA-256 of the key) tells two keys apart in a log.
    """
    import hashlib

    key = environ.get(RESERVED_KEY_ENV)
    if not key:
        return None
    fp = hashlib.sha256(key.encode()).hexdigest()[:8]
    return (f"reserved rounds: {RESERVED_KEY_ENV} fingerprint {fp} (another key gives other reserved SCMs "
            "under the same ids: keep one results folder per key)")


def _validate_run_args(args, registry) -> None:
    """Reject bad values before anything runs (they would otherwise be stored as method failures)."""
    _positive("--jobs", args.jobs, integer=True)
    _positive("--budget", args.budget)
    _positive("--memory-mb", args.memory_mb)
    from ..runner import MIN_MEMORY_MB

    if args.memory_mb is not None and args.memory_mb < MIN_MEMORY_MB:
        raise UsageError(f"--memory-mb {args.memory_mb:g}: below the {MIN_MEMORY_MB} MB a worker needs to load a "
                         "dataset (an idle worker alone holds ~28 MB); every cell would be oom")
    _positive("--n", args.n, integer=True)
    _positive("--replicates", args.replicates, integer=True)
    if args.task is not None and args.task not in registry.tasks:
        raise UsageError(f"--task {args.task!r} is not installed; installed: {sorted(registry.tasks)}")
    views = args.task is None or registry.task(args.task).splits_are_views
    # a task whose splits are its families' views has them checked against the instances, once listed
    if not (args.task is not None and views):
        _validate_splits(args.splits, allow_views=views)
    if args.protocol not in registry.interventions:
        raise UsageError(f"--protocol {args.protocol!r} is not installed; installed: {sorted(registry.interventions)} "
                         "(the App. A.2 protocol suite ships with arena-family-synthetic)")
    _validate_leaderboard_metrics(args.metrics, registry, task=args.task)
    import shutil

    python = shutil.which(args.python) or args.python
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise UsageError(f"--python {args.python!r} is not an executable interpreter")
    _check_isolation(args.isolation, registry)
    from ..conventions import CPDAG_ORIENTATIONS, CPDAG_REPAIRS

    if args.cpdag_orientation not in CPDAG_ORIENTATIONS:
        raise UsageError(f"--cpdag-orientation {args.cpdag_orientation!r}: expected one of {list(CPDAG_ORIENTATIONS)}")
    if args.cpdag_repair not in CPDAG_REPAIRS:
        raise UsageError(f"--cpdag-repair {args.cpdag_repair.replace('_', '-')!r}: expected one of "
                         f"{[c.replace('_', '-') for c in CPDAG_REPAIRS]}")
    bad = [s for s in (_csv(args.retry) or []) if s not in STATUSES]
    if bad:
        raise UsageError(f"--retry: unknown status(es) {bad}; expected some of {list(STATUSES)}")
    if (args.cluster_option or args.cluster_dry_run or args.executor) and not args.cluster:
        raise UsageError("--cluster-option, --cluster-dry-run and --executor need --cluster SPEC")


def _cluster_options(pairs) -> Dict[str, str]:
    """``--cluster-option KEY=VALUE`` pairs as a dict (UsageError naming a malformed one)."""
    out: Dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--cluster-option {pair!r}: expected KEY=VALUE, e.g. cores=4")
        out[key.strip()] = value.strip()
    return out


def _executor(args, registry, console):
    """The executor object for ``--cluster`` (None without it); UsageError when none or several are installed."""
    if not args.cluster:
        return None
    infos = registry.executors
    if not infos:
        raise UsageError("--cluster needs an executor plugin; none is installed (pip install ./executors/dask)")
    if args.executor:
        if args.executor not in infos:
            raise UsageError(f"--executor {args.executor!r} is not installed; installed: {sorted(infos)}")
        info = infos[args.executor]
    elif len(infos) == 1:
        info = next(iter(infos.values()))
    else:
        raise UsageError(f"--cluster: several executors are installed {sorted(infos)}; choose one with --executor")
    try:
        return info.load()(args.cluster, _cluster_options(args.cluster_option), jobs=args.jobs,
                           budget_s=args.budget, memory_mb=args.memory_mb,
                           log=lambda text: console.print(text, highlight=False))
    except ValueError as exc:
        raise UsageError(f"--cluster {args.cluster!r}: {exc}") from exc


def run(args: argparse.Namespace) -> int:
    """Run the selected grid into ``--results`` and print its leaderboard; 0 (failed cells are stored, not fatal).

    A fault of the machine (:class:`~causalarena.store.MachineFault`: the
    dataset cache or the store cannot be written, the store is corrupt or not
    a store) stops the run: one line on stderr naming the path, the cause and
    the remedy, exit code :data:`~causalarena.store.MACHINE_FAULT_EXIT` (3);
    the cells stored before it are kept and rerunning the same command resumes.

    Raises:
        UsageError: a bad value, an empty selection, or the folder is in use by another run.
    """
    from ..store import MachineFault

    try:
        return execute(args).exit_code
    except MachineFault as exc:
        return _machine_fault("arena run", exc)


def _check_selection(registry: Any, grids: Any, families: Any, methods: Any) -> None:
    """Each selected task's :meth:`~causalarena.tasks.Task.check_selection` (e.g. an intervention
    protocol is a discovery setting: a task whose splits are views has none).

    Raises:
        UsageError: the task's message, naming the option and the families.
    """
    from ..tasks import task_of

    protocols = sorted({p for p, _ in grids})
    for name in sorted({task_of(m) for m in methods} & set(registry.tasks)):
        try:
            registry.task(name).check_selection(methods, families, protocols)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


class RunOutcome(NamedTuple):
    """What :func:`execute` did: the exit code, the results folder and this invocation's counts.

    Attributes:
        exit_code: 0 (failed cells are stored, not fatal; ``--cluster-dry-run`` too).
        results: the results folder (:class:`pathlib.Path`).
        counts: status → runs of this invocation; ``skipped``: cells already stored (resumed).
    """

    exit_code: int
    results: Any
    counts: Dict[str, int]
    skipped: int


class _Selection(NamedTuple):
    """What an ``arena run`` invocation selected: records, instances, cells and the grids to run them in."""

    methods: List[Any]
    families: List[Any]
    instances: List[Any]
    cells: List[Any]
    grids: List[Tuple[str, Optional[int]]]
    suite: Any


def execute(args: argparse.Namespace) -> RunOutcome:
    """Run the grid ``args`` selects (the parsed ``arena run`` options): ``arena run`` and
    :func:`causalarena.run` both come here, so resume, statuses and files are the same.

    Raises:
        UsageError: a bad value, an empty selection, or the folder is in use by another run.
        MachineFault: the dataset cache or the store cannot be written (cells stored so far are kept).
    """
    registry = _registry(args, args.strict)
    console = _console()
    _print_errors(registry, console)
    _validate_run_args(args, registry)
    sel = _selection(args, registry, console)
    results = _results_dir(args.results, create=True)
    what = f"suite {sel.suite.name!r}: {len(sel.grids)} grids × " if sel.suite else ""

    def count(k: int, noun: str) -> str:
        return f"{k} {noun}{'' if k == 1 else 's'}"

    console.print(f"[bold]CausalArena[/bold]: {what}{count(len(sel.methods), 'method')} × "
                  f"{count(len(sel.instances), 'instance')} "
                  f"→ {len(sel.cells) * len(sel.grids)} cells; results in {results}/ (rerun the same command to resume)")
    note = reserved_key_note(os.environ)
    if note:
        console.print(note, highlight=False)
    executor = _executor(args, registry, console)
    if executor is not None and args.cluster_dry_run:
        print(executor.dry_run())
        executor.close()
        return RunOutcome(0, results, {}, 0)
    counts, skipped, elapsed, keys, runs = _run_grids(args, registry, console, sel, results, executor)
    done = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"
    console.print(f"this invocation: {done}; skipped {skipped} already stored; {elapsed:.1f} s")
    _report(args, registry, console, results, runs, _only_keys(runs, keys), counts, skipped)
    return RunOutcome(0, results, counts, skipped)


def _selection(args: argparse.Namespace, registry: Any, console: Any) -> _Selection:
    """The methods, families, instances and cells ``args`` selects, checked before anything runs.

    Raises:
        UsageError: naming the option at fault (an unknown name, another task, an empty selection …).
    """
    from ..runner import make_cells

    methods = _select(registry.methods, _csv(args.methods), "method(s)")
    families = _select(registry.families, _csv(args.families), "family(ies)")
    if args.task:
        methods, families = _of_task(args, methods, families)
    if not methods:
        raise UsageError("no method installed: pip install a plugin, e.g. plugins/pc")
    if not families:
        raise UsageError("no family installed: pip install a family, e.g. families/synthetic")
    options = parse_family_options(args.family_option)
    for fam_name in options:
        if fam_name not in registry.families:
            raise UsageError(f"--family-option for unknown family {fam_name!r}; installed: {sorted(registry.families)}")
    suite = None
    grids: List[Tuple[str, Optional[int]]] = [(args.protocol, args.n)]
    splits = _csv(args.splits)
    if args.suite:
        suite = _find_suite(registry, args.suite)
        if args.families or args.protocol != "default" or args.n is not None:
            raise UsageError("--suite sets the family, protocols and sample sizes; "
                             "drop --families/--protocol/--n (narrow it with --family-option, --scm, --replicates)")
        families = [registry.family(suite.family)]
        options[suite.family] = {**suite.family_options, **options.get(suite.family, {})}
        grids = [(p, n) for p in suite.protocols for n in suite.n_values]
        unknown = [p for p, _ in grids if p not in registry.interventions]
        if unknown:
            raise UsageError(f"suite {suite.name!r} needs intervention protocol(s) {unknown}; "
                             f"installed: {sorted(registry.interventions)}")
        splits = splits or list(suite.splits)
    _check_selection(registry, grids, families, methods)
    for fam_name in sorted(set(options) - {f.name for f in families}):
        console.print(f"[yellow]note[/yellow]: --family-option {fam_name}.…: family {fam_name!r} is not selected, "
                      "its options are ignored", highlight=False)
    _apply_fresh(args, registry, families, options)
    instances = [inst for _, inst in _family_instances(registry, families, options, _csv(args.scm))]
    replicates = list(range(args.replicates)) if args.replicates is not None else None
    if args.replicates is not None and instances:
        most = max(i.n_replicates for i in instances)
        if args.replicates > most:
            raise UsageError(f"--replicates {args.replicates}: the selected instances provide at most {most} "
                             "(set synthetic.n_replicates to draw more)")
    if splits:
        offered = {sp for inst in instances for sp in inst.splits}
        unknown = [sp for sp in splits if sp not in offered]
        if unknown:
            raise UsageError(f"--splits: unknown split(s) {unknown}; the selected instances offer "
                             f"{sorted(offered)} (a discovery family's splits are obs, obs_int; a family of a "
                             "task with views offers those)")
    cells = make_cells(instances, methods, splits=splits, replicates=replicates)
    if not cells:
        _no_cells(methods, families)
    _warn_unpaired(methods, instances, cells, console)
    return _Selection(methods, families, instances, cells, grids, suite)


def _of_task(args: argparse.Namespace, methods: List[Any], families: List[Any]) -> Tuple[List[Any], List[Any]]:
    """``--task``: the selected methods and families of that task (naming one of another task explicitly
    is an error, not dropped quietly)."""
    from ..tasks import task_of

    picked = [m for m in methods if task_of(m) == args.task]
    if args.methods and len(picked) < len(methods):
        other = [m.name for m in methods if task_of(m) != args.task]
        raise UsageError(f"--task {args.task}: method(s) {other} serve another task")
    picked_families = [f for f in families if task_of(f) == args.task]
    if args.families and len(picked_families) < len(families):
        other = [f.name for f in families if task_of(f) != args.task]
        raise UsageError(f"--task {args.task}: family(ies) {other} serve another task")
    if not picked or not picked_families:
        raise UsageError(f"--task {args.task}: no installed {'method' if not picked else 'family'} serves "
                         f"this task (`arena plugins` lists each record's task)")
    return picked, picked_families


def _no_cells(methods: List[Any], families: List[Any]) -> NoReturn:
    """The usage error of a selection without cells: the methods' and families' tasks differ, or the filters."""
    from ..tasks import task_of

    method_tasks, family_tasks = {task_of(m) for m in methods}, {task_of(f) for f in families}
    if not method_tasks & family_tasks:
        raise UsageError(f"the selection gives no cells: method(s) {[m.name for m in methods]} serve the "
                         f"{'/'.join(sorted(method_tasks))} task, family(ies) {[f.name for f in families]} "
                         f"the {'/'.join(sorted(family_tasks))} task (`arena plugins` lists each record's task)")
    raise UsageError("the selection gives no cells (check --splits, --scm and --replicates)")


def _run_grids(args: argparse.Namespace, registry: Any, console: Any, sel: _Selection, results: Any,
               executor: Any) -> Tuple[Dict[str, int], int, float, set, Any]:
    """Run every grid of the selection into the folder's store, telling the life-cycle hooks.

    Returns:
        ``(counts, skipped, seconds, keys of the selected cells, the folder's runs frame)``.
    """
    from types import MappingProxyType

    from ..progress import _now  # the runner's own UTC ISO timestamp (the runs' started_at)
    from ..runner import RunConfig, grid_keys, run_grid
    from ..store import Store

    # one BLAS/OpenMP thread budget per worker, so N workers do not oversubscribe the cores
    threads = str(max(1, (os.cpu_count() or 1) // max(1, args.jobs)))
    worker_env = {var: os.environ.get(var, threads)
                  for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    run_info = MappingProxyType({"results": str(results), "store": str(results / STORE_NAME),
                                 "methods": tuple(m.name for m in sel.methods),
                                 "families": tuple(f.name for f in sel.families),
                                 "cells": len(sel.cells) * len(sel.grids), "started_at": _now(),
                                 "options": MappingProxyType(_plugin_options(args))})

    def stored(row: Any) -> None:  # the life-cycle hook, with a read-only copy of the stored row
        registry.notify("arena_cell_stored", run=run_info, record=MappingProxyType(row.as_row()))

    config = RunConfig(jobs=args.jobs, budget_s=args.budget, memory_mb=args.memory_mb, env=worker_env,
                       python=args.python, standardise=not args.raw, progress=not args.no_progress,
                       cache_dir=str(results / "datasets"), retry_statuses=_csv(args.retry) or [],
                       suite=sel.suite.name if sel.suite else None,
                       launcher=_isolation_launcher(args, registry, sel.methods, console, python=args.python),
                       cpdag_orientation=args.cpdag_orientation, cpdag_repair=args.cpdag_repair, on_stored=stored)
    counts: Dict[str, int] = {}
    skipped, elapsed, keys = 0, 0.0, set()
    closing = contextlib.nullcontext() if executor is None else contextlib.closing(executor)
    with _FolderLock(results), Store(str(results / STORE_NAME)) as store, closing:
        registry.notify("arena_run_start", run=run_info)
        if executor is not None:
            console.print(_start_executor(executor, args.cluster), highlight=False)
        for protocol, n in sel.grids:
            if len(sel.grids) > 1:
                console.print(f"grid: protocol={protocol}" + (f", n={n}" if n else ""))
            summary = run_grid(sel.cells, registry, store, config, executor=executor, protocol=protocol, n=n)
            for k, v in summary.counts.items():
                counts[k] = counts.get(k, 0) + v
            skipped += summary.skipped
            elapsed += summary.elapsed_seconds
            keys |= set(grid_keys(sel.cells, standardise=not args.raw, protocol=protocol, n=n,
                                  cpdag_orientation=args.cpdag_orientation, cpdag_repair=args.cpdag_repair))
        # the folder's runs are read back for the report: from the file, not from an unlinked inode
        store.check_file()
        runs = store.runs_frame()
    registry.notify("arena_run_end", run=run_info, counts=MappingProxyType(dict(counts)))
    return counts, skipped, elapsed, keys, runs


def _report(args: argparse.Namespace, registry: Any, console: Any, results: Any, runs: Any, grid_runs: Any,
            counts: Dict[str, int], skipped: int) -> None:
    """Print the grid's leaderboard, write the folder's report files, then the report extensions."""
    from ..report import print_report, write_report

    if skipped:
        _hint_stored_failures(grid_runs, counts, console)
    metrics = tuple(_csv(args.metrics) or ("f1", "shd"))
    print_report(grid_runs, console=console, metrics=metrics)
    # the files describe the whole folder (every grid run into it), as `arena report` does
    paths = _write_report_files(write_report, runs, results, metrics, console)
    console.print("wrote " + ", ".join(str(p) for p in paths.values()) + " (every run stored in this folder)")
    if not args.no_extensions:
        # the extensions' own defaults, then every option a plugin added to `arena run` (arena_addoption)
        options = {"analyses": None, "factors": None, "reference": None, **_plugin_options(args), "metrics": metrics}
        _run_report_extensions(registry, results, results / STORE_NAME, runs, console, options)



def _warn_unpaired(methods, instances, cells, console) -> None:
    """Name the selected methods that got no cell because no selected instance serves their task."""
    from ..tasks import task_of

    paired = {c.method.name for c in cells}
    tasks = {task_of(i) for i in instances}
    offered = {c.split for c in cells}
    for m in methods:
        if m.name not in paired and task_of(m) not in tasks:
            console.print(f"[yellow]note[/yellow]: method {m.name!r} serves the {task_of(m)} task and no selected "
                          f"family does: it is not run", highlight=False)
        elif m.views and not set(m.views) & offered:
            console.print(f"[yellow]note[/yellow]: method {m.name!r} supports the split(s) {', '.join(m.views)}, none "
                          "of which is selected: all its cells are unsupported", highlight=False)


def _hint_stored_failures(grid_runs, counts, console) -> None:
    """After a resume: how many of the grid's stored runs are failures this invocation did not rerun, and how."""
    from ..records import FAILURE_STATUSES

    if grid_runs is None or len(grid_runs) == 0:
        return
    stored = grid_runs["status"].astype(str).value_counts()
    old = {k: int(v) - counts.get(k, 0) for k, v in stored.items()
           if k in FAILURE_STATUSES and int(v) - counts.get(k, 0) > 0}
    if old:
        listed = ", ".join(f"{v} {k}" for k, v in sorted(old.items()))
        console.print(f"stored before and skipped: {listed}; `--retry {','.join(sorted(old))}` runs them again",
                      highlight=False)


def _start_executor(executor, spec: str) -> str:
    """Start or reach the cluster; a cluster that cannot be reached is a usage error naming it (nothing ran)."""
    try:
        return executor.start()
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"--cluster {spec!r}: cannot start or reach the cluster ({type(exc).__name__}: {exc})") \
            from exc


def _find_suite(registry, name: str):
    """The suite ``name`` among the installed families' ``suites``."""
    found = {}
    for info in registry.families.values():
        try:
            cls = info.load()
        except Exception:  # noqa: BLE001 - a broken family cannot offer suites
            continue
        for suite in cls.suites:
            found[suite.name] = suite
    if name not in found:
        raise UsageError(f"--suite {name!r} is not offered by an installed family; available: {sorted(found)}")
    return found[name]



def _only_keys(runs, keys):
    """The rows of this grid (other grids in the same store are left to `arena report`)."""
    if runs is None or len(runs) == 0:
        return runs
    from ..store import KEY_COLUMNS

    mask = [tuple(row) in keys for row in runs[list(KEY_COLUMNS)].itertuples(index=False, name=None)]
    return runs[mask].reset_index(drop=True)


def _isolation_launcher(args, registry, methods, console, python: str):
    """``method -> WorkerLaunch`` for ``--isolation`` (see :mod:`causalarena.isolation`).

    Chooses a backend per method, prints the choice, and prepares (builds)
    each isolated environment once before the grid; a method whose backend
    cannot serve it gets an :class:`IsolationError` that the runner records
    as ``env_error`` in every cell of that method.
    """
    from ..isolation import IsolationError, choose_backend, local_launch

    isolation = args.isolation
    _check_isolation(isolation, registry)
    backends = {}
    for name, rec in registry.isolation_backends.items():
        try:
            backends[name] = rec.load()()
        except Exception as exc:  # noqa: BLE001 - a broken backend is reported, others still work
            console.print(f"[yellow]isolation backend {name!r} ({rec.distribution}) failed to load: {exc}[/yellow]")
    plan: Dict[str, Any] = {}
    for m in methods:
        try:
            backend, why = choose_backend(m, isolation, backends)
        except IsolationError as exc:
            plan[m.name] = exc
            console.print(f"  {m.name}: [red]env_error[/red] {exc}")
            continue
        if backend == "none":
            plan[m.name] = None
            if isolation != "auto" or len(methods) <= 12:
                console.print(f"  {m.name}: this environment ({why})", highlight=False)
            continue
        impl = backends[backend]
        reason = impl.available()
        if reason:
            plan[m.name] = IsolationError(f"method {m.name!r} needs the {backend} backend ({why}), "
                                          f"which cannot run here: {reason}")
            console.print(f"  {m.name}: [red]env_error[/red] {plan[m.name]}")
            continue
        console.print(f"  {m.name}: {backend} ({why})", highlight=False)
        try:
            impl.prepare(m, log=lambda text: console.print(f"    {text}", highlight=False))
            plan[m.name] = impl
        except IsolationError as exc:
            plan[m.name] = exc
            console.print(f"  {m.name}: [red]env_error[/red] {exc}")

    cache_dir = str(_results_dir(args.results, create=True) / "datasets")

    def launcher(m):
        target = plan.get(m.name)
        if target is None:
            return local_launch(python)
        if isinstance(target, IsolationError):
            raise target
        return target.launch(m, cache_dir=cache_dir, memory_mb=args.memory_mb)

    return launcher
