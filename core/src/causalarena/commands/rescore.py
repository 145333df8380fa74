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
from typing import Any, Dict, List, Mapping, Optional, Tuple

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


def rescore_updates(store: Any, metrics: Mapping[str, Any]) -> List[Tuple[Tuple[Any, ...], Dict[str, Optional[float]]]]:
    """The recomputed metric values of every stored prediction and estimate, not yet written.

    Args:
        store: a :class:`causalarena.store.Store`.
        metrics: name → :class:`causalarena.records.MetricInfo`; each run gets those of its task.

    Returns:
        ``[(run key (KEY_COLUMNS), {metric: value or None})]``, one per run with a stored prediction.

    Raises:
        StoreError: the store cannot be read.
    """
    from ..effect import EffectOracle, EffectPrediction, effect_metrics
    from ..metrics import compute_metrics
    from ..store import KEY_COLUMNS

    truths = store.truths()
    updates = []
    for row in store.predictions_frame().itertuples(index=False):
        truth = truths[row.truth_id]
        values, _ = compute_metrics(truth.adjacency, row.adjacency, row.edge_scores, metrics)
        if values:  # {} when only effect metrics were asked for: the run is not rescored
            updates.append((tuple(getattr(row, k) for k in KEY_COLUMNS), values))
    # effect runs: the stored estimate against the stored oracle at the same queries
    for row in store.estimates_frame().itertuples(index=False):
        oracle = EffectOracle(query_ids=row.query_ids, tau=row.tau, lower=row.tau_lower, upper=row.tau_upper)
        pred = EffectPrediction(cate=row.cate, lower=row.lower, upper=row.upper)
        values = effect_metrics(oracle, pred, metrics)
        if values:
            updates.append((tuple(getattr(row, k) for k in KEY_COLUMNS), values))
    return updates


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
