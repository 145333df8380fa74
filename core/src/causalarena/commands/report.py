"""``arena report [--results DIR]``: the leaderboard of a results folder, then the report extensions.

Reads the store read-only, prints the leaderboard and writes the report files
(:func:`causalarena.report.write_report`), then runs every report extension
(hook ``arena_reports``, :class:`causalarena.records.ReportInfo`) in order
with a :class:`causalarena.records.ReportContext`; ``--analyses``,
``--factors`` and ``--reference`` are passed on to them (``--no-extensions``:
none runs, as in ``arena run``). An extension that
fails is one yellow line: the leaderboard is never lost, the exit code stays
0. ``--runtime`` instead fits load vs per-graph time (paper §5.5, Table 5)
and writes ``runtime.csv``.
"""

from __future__ import annotations

import argparse

from ._common import (
    DEFAULT_RESULTS,
    UsageError,
    _check_report_options,
    _console,
    _csv,
    _existing_store,
    _machine_fault,
    _os_error_text,
    _registry,
    _run_report_extensions,
    _validate_leaderboard_metrics,
    _write_report_files,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena report``."""
    parser.add_argument("--results", default=DEFAULT_RESULTS)
    parser.add_argument("--metrics", help="metrics in leaderboard cells (default f1,shd)")
    parser.add_argument("--runtime", action="store_true",
                        help="instead: fit load vs per-graph time T(k) = T_fixed + k*T_graph per method and d "
                             "(paper 5.5, Table 5) and write runtime.csv")
    parser.add_argument("--analyses", help="comma list of the report extensions' analyses to run (default: all)")
    parser.add_argument("--factors", help="comma list of factors to slice by (default: the extensions' own)")
    parser.add_argument("--reference", help="comma list of reference methods, e.g. pc,ges (default: the "
                                            "graphical-search methods installed)")
    parser.add_argument("--no-extensions", action="store_true",
                        help="only the leaderboard and its files: skip the report extensions (e.g. "
                             "arena-diagnosis's figures and index.html)")


def run(args: argparse.Namespace) -> int:
    """Print the leaderboard of ``--results`` and write its files; 0 (also when the folder is read-only).

    A store that is corrupt, truncated or not a store (:class:`~causalarena.store.StoreError`)
    is one line on stderr naming its path and the remedy, exit code
    :data:`~causalarena.store.MACHINE_FAULT_EXIT` (3).

    Raises:
        UsageError: no store, an empty store, or an unknown metric.
    """
    from ..store import MachineFault

    try:
        return _report(args)
    except MachineFault as exc:
        return _machine_fault("arena report", exc)


def _report(args: argparse.Namespace) -> int:
    from ..report import print_report, task_runs, write_report
    from ..store import Store

    results, path = _existing_store(args.results)
    registry = _registry(args)
    _validate_leaderboard_metrics(args.metrics, registry)
    with Store(str(path), readonly=True) as store:
        runs = store.runs_frame()
    if len(runs) == 0:
        raise UsageError(f"{path} holds no runs yet")
    if args.metrics and len(task_runs(runs, "discovery")) == 0:
        other = sorted(set(runs["task"].astype(str))) if "task" in runs.columns else ["?"]
        _validate_leaderboard_metrics(args.metrics, registry, task=other[0],
                                      why=f"{path} holds {'/'.join(other)} runs only")
    console = _console()
    if args.runtime:
        return _report_runtime(runs, results, console)
    metrics = tuple(_csv(args.metrics) or ("f1", "shd"))
    options = {"analyses": _csv(args.analyses), "factors": _csv(args.factors), "reference": _csv(args.reference),
               "metrics": metrics}
    if args.no_extensions and any(options[k] for k in ("analyses", "factors", "reference")):
        raise UsageError("--analyses, --factors and --reference configure the report extensions; "
                         "--no-extensions skips them: give one or the other")
    if not args.no_extensions:
        _check_report_options(registry, options, runs)  # a bad --analyses / --factors: exit 2 before any file
    print_report(runs, console=console, metrics=metrics)
    try:
        paths = _write_report_files(write_report, runs, results, metrics, console)
    except OSError as exc:
        console.print(f"[yellow]report files not written[/yellow] ({_os_error_text(exc)}); "
                      "the leaderboard above is complete")
    else:
        console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    if not args.no_extensions:
        _run_report_extensions(registry, results, path, runs, console, options)
    return 0


def _report_runtime(runs, results, console) -> int:
    """`arena report --runtime`: load vs per-graph time (§5.5, Table 5), runtime.csv."""
    from ..report import print_runtime, runtime_table, task_runs, write_runtime

    if len(runs) and not len(task_runs(runs, "discovery")):
        raise UsageError("--runtime fits the discovery methods' load vs per-graph time (paper §5.5); this store "
                         "holds no discovery run (their fit times are in runs.parquet, column wall_seconds)")
    try:
        table = runtime_table(runs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print_runtime(table, console=console)
    try:
        path = write_runtime(table, results)
    except OSError as exc:
        console.print(f"[yellow]runtime.csv not written[/yellow] ({_os_error_text(exc)})")
        return 0
    console.print(f"wrote {path}")
    return 0
