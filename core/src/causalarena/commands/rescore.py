"""``arena rescore --results DIR [--metrics m1,m2]``: recompute metrics from the kept predictions.

Every ``ok`` run keeps the DAG it was scored on and its edge scores
(:mod:`causalarena.predictions`); this command scores them again against the
stored true graphs with the installed metrics
(:func:`causalarena.metrics.compute_metrics`), without running any method,
and merges the values into the runs' metrics (one transaction: a crash
changes nothing). No orientation step: the stored adjacency is already the
oriented DAG. A new metric plugin is thus added to a finished benchmark in
seconds. ``ok`` runs stored before predictions were kept are counted and the
command that fills them is printed (:data:`causalarena.predictions.FILL_COMMAND`).
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ._common import (
    DEFAULT_RESULTS,
    _console,
    _csv,
    _existing_store,
    _FolderLock,
    _machine_fault,
    _registry,
    _validate_metrics,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena rescore``."""
    parser.add_argument("--results", default=DEFAULT_RESULTS, help=f"results folder (default {DEFAULT_RESULTS})")
    parser.add_argument("--metrics", help="comma list of metrics to recompute (default: every installed metric)")


def rescore_updates(store: Any, metrics: Mapping[str, Any], tasks: Optional[Sequence[Any]] = None
                    ) -> List[Tuple[Tuple[Any, ...], Dict[str, Optional[float]]]]:
    """The recomputed metric values of every kept output (each task's :meth:`~causalarena.tasks.Task.rescore`).

    Args:
        store: a :class:`causalarena.store.Store`.
        metrics: name → :class:`causalarena.records.MetricInfo`; each run gets those of its task.
        tasks: the :class:`causalarena.tasks.Task` objects to ask (default: every installed task).

    Returns:
        ``[(run key (KEY_COLUMNS), {metric: value or None})]``, one per run with a stored prediction.

    Raises:
        StoreError: the store cannot be read.
    """
    from ..plugins import default_registry

    if tasks is None:
        registry = default_registry()
        tasks = [registry.task(name) for name in sorted(registry.tasks)]
    objects = tasks
    # each task rescores its own kept outputs (discovery: the scored DAG against its truth)
    return [(key, dict(values)) for task in objects for key, values in task.rescore(store, metrics)]


def rescore(store: Any, metrics: Mapping[str, Any]) -> Tuple[int, int]:
    """Recompute ``metrics`` for every stored prediction and merge them into its run.

    Args:
        store: a writable :class:`causalarena.store.Store`.
        metrics: name → :class:`causalarena.records.MetricInfo` (e.g. ``Registry.metrics``).

    Returns:
        ``(rescored, missing)``: runs whose metrics were rewritten, and ``ok``
        runs without a stored prediction (left as they are).

    Raises:
        StoreError: the store cannot be read or written (nothing is changed).
    """
    return store.update_metrics(rescore_updates(store, metrics)), store.missing_predictions()


def run(args: argparse.Namespace) -> int:
    """Rescore the runs of ``--results``; 0.

    A store that cannot be read or written (:class:`~causalarena.store.MachineFault`)
    is one line on stderr, exit code :data:`~causalarena.store.MACHINE_FAULT_EXIT` (3).

    Raises:
        UsageError: no store, an unknown metric, or another ``arena run`` uses the folder.
    """
    from ..store import MachineFault

    try:
        return _rescore(args)
    except MachineFault as exc:
        return _machine_fault("arena rescore", exc)


def _rescore(args: argparse.Namespace) -> int:
    from ..predictions import FILL_COMMAND
    from ..store import Store

    results, path = _existing_store(args.results)
    registry = _registry(args)
    _validate_metrics(args.metrics, registry)
    names = _csv(args.metrics) or list(registry.metrics)
    metrics: Dict[str, Any] = {n: registry.metrics[n] for n in names}
    console = _console()
    with _FolderLock(results), Store(str(path)) as store:
        updates = rescore_updates(store, metrics)
        rescored, missing = store.update_metrics(updates), store.missing_predictions()
    # the metrics actually written: each run gets those of its task (a discovery store: no sPEHE²)
    seen = set().union(*(values for _, values in updates))
    written = [n for n in names if n in seen]
    console.print(f"rescored {rescored} runs from their stored predictions ({', '.join(written) or 'no metric'}) "
                  f"in {path}", highlight=False, soft_wrap=True)
    if missing:
        console.print(f"{missing} ok runs have no stored prediction (stored before predictions were kept); "
                      f"to fill them: {FILL_COMMAND.format(results=args.results)}", highlight=False, soft_wrap=True)
    if rescored:
        console.print(f"the report files still show the old values: arena report --results {args.results}",
                      highlight=False, soft_wrap=True)
    return 0
