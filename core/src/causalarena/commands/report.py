"""``arena report [--results DIR]``: the leaderboard of a results folder, then the report extensions.

Reads the store read-only, prints the leaderboard and writes the report files
(:func:`causalarena.report.write_report`), then runs every report extension
(hook ``arena_reports``, :class:`causalarena.records.ReportInfo`) in order
with a :class:`causalarena.records.ReportContext` whose ``options`` hold the
values of the options plugins added to this command (hook
``arena_addoption``: arena-diagnosis's ``--analyses``, ``--factors``,
``--reference``, ``--list-analyses``, ``--runtime``); ``--no-extensions``:
none runs, as in ``arena run``. An extension that fails is one yellow line:
the leaderboard is never lost, the exit code stays 0.
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
    _given_plugin_options,
    _machine_fault,
    _os_error_text,
    _plugin_options,
    _registry,
    _run_report_extensions,
    _validate_leaderboard_metrics,
    _write_report_files,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena report`` (plugins add theirs through ``arena_addoption``)."""
    parser.add_argument("--results", default=DEFAULT_RESULTS)
    parser.add_argument("--metrics", help="metrics in leaderboard cells (default f1,shd)")
    parser.add_argument("--no-extensions", action="store_true",
                        help="only the leaderboard and its files: skip the report extensions (e.g. "
                             "arena-diagnosis's figures and index.html)")


def run(args: argparse.Namespace) -> int:
    """Print the leaderboard of ``--results`` and write its files; 0 (also when the folder is read-only).

    A store that is corrupt, truncated or not a store (:class:`~causalarena.store.StoreError`)
    is one line on stderr naming its path and the remedy, exit code
    :data:`~causalarena.store.MACHINE_FAULT_EXIT` (3).

    Raises:
        UsageError: no store, an empty store, an unknown metric, or a plugin's
            option given with ``--no-extensions``.
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
    metrics = tuple(_csv(args.metrics) or ("f1", "shd"))
    options = {**_plugin_options(args), "metrics": metrics}
    given = _given_plugin_options(args)
    if args.no_extensions and given:
        raise UsageError(f"{', '.join(given)} configure the report extensions; "
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
