"""The effect task's cell pipeline (:class:`causalarena.tasks.Task` for CausalIDView).

A cell is one world's view (the instance's split) × replicate × effect method. The method
sees an :class:`~arena_task_effect.effect.EffectDataset` (context units, query covariates,
roles); the oracle CATE stays in the harness (:meth:`EffectInstance.oracle`) and scores the
returned :class:`~arena_task_effect.effect.EffectPrediction` with the effect metrics
(CausalIDView App. E.1). Each ``ok`` run keeps its query ids, estimates and the oracle at the
queries in the store table ``estimates`` (for ``arena rescore`` and the paired Stay / Move
analyses).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Tuple

import numpy as np

from causalarena.records import Status
from causalarena.store import KEY_COLUMNS, KeptRow, pack_array
from causalarena.tasks import Task

from .effect import LOADER

#: the store table of kept estimates, and its array columns (``.npy`` blobs, :func:`causalarena.store.pack_array`)
ESTIMATES_TABLE = "estimates"
ESTIMATE_ARRAYS = ("query_ids", "cate", "lower", "upper", "tau", "tau_lower", "tau_upper")
_COLUMNS = {"query_ids": "BLOB NOT NULL", "cate": "BLOB", "lower": "BLOB", "upper": "BLOB",
            "tau": "BLOB NOT NULL", "tau_lower": "BLOB", "tau_upper": "BLOB"}


def estimates_frame(store: Any) -> Any:
    """The ``estimates`` table of a :class:`causalarena.store.Store` (or a ``ReportContext``).

    Returns:
        A pandas DataFrame: the key columns, then :data:`ESTIMATE_ARRAYS` as numpy arrays
        (``None`` where absent); empty (those columns) for a store without effect runs.
    """
    reader = getattr(store, "kept_frame", None) or store.kept
    frame = reader(ESTIMATES_TABLE, ESTIMATE_ARRAYS)
    return frame[[*KEY_COLUMNS, *ESTIMATE_ARRAYS]] if len(frame) else frame


class EffectTask(Task):
    """A CATE (or identified-set bounds) at query units from one observational view (CausalIDView).

    Input checks: :func:`~arena_task_effect.effect.check_effect_input`; output checks:
    :func:`~arena_task_effect.effect.check_effect_output`; metrics: every registered metric of
    task ``effect`` that is not paired (:func:`~arena_task_effect.effect.effect_metrics`).
    A method listing ``views`` is ``unsupported`` on the others (the base task's rule).
    """

    name = "effect"
    output_kinds = ("effect",)
    loader = LOADER
    dataset_type = "arena_task_effect.effect:EffectDataset"
    default_metrics = ("spehe2",)
    splits_are_views = True

    def method_checks(self) -> Mapping[str, Any]:
        """The effect rules of the method kit, by check id (:data:`arena_task_effect.testing.METHOD_CHECKS`)."""
        from .testing import METHOD_CHECKS

        return METHOD_CHECKS

    def family_checks(self) -> Mapping[str, Any]:
        """The effect rules of the family kit, by check id (:data:`arena_task_effect.testing.FAMILY_CHECKS`)."""
        from .testing import FAMILY_CHECKS

        return FAMILY_CHECKS

    def check_input(self, method: Any, cell: Any, dataset: Any, row: Any) -> Optional[str]:
        """An :class:`EffectDataset` the method can take (no NaN unless it handles missing values)."""
        from .effect import EffectDataset, check_effect_input

        if not isinstance(dataset, EffectDataset):
            raise TypeError(f"{cell.family}/{cell.instance.scm_id} serves the effect task but built a "
                            f"{type(dataset).__name__}, not an EffectDataset")
        row.n, row.d, row.seed = dataset.n, dataset.d, dataset.metadata.get("seed")
        return check_effect_input(dataset, method.handles_missing)

    def score(self, method: Any, cell: Any, dataset: Any, payload: Any, row: Any, config: Any) -> Any:
        """Decode and check the estimate, then the effect metrics against the instance's oracle."""
        from .effect import EffectPrediction, check_effect_output, effect_metrics

        try:
            pred = EffectPrediction.from_json(payload)
        except Exception as exc:  # noqa: BLE001 - any decoding error is the method's output
            row.status, row.error = Status.INVALID_OUTPUT, f"estimate not decodable: {type(exc).__name__}: {exc}"
            return None
        bad = check_effect_output(pred, dataset)
        if bad:
            row.status, row.error = Status.INVALID_OUTPUT, bad
            return None
        oracle = cell.instance.oracle(cell.split, cell.replicate, n=config.n)
        if not np.array_equal(oracle.query_ids, dataset.query_ids):  # the family's own contract
            raise RuntimeError(f"{cell.family}/{cell.instance.scm_id}: the oracle's query ids differ from the "
                               f"dataset's ({cell.split}, replicate {cell.replicate})")
        row.metrics = effect_metrics(oracle, pred, config.metrics)
        return pred, oracle

    def keep(self, row: Any, kept: Any) -> Mapping[str, Any]:
        """The estimate and the oracle at the same queries, one row of the table ``estimates``."""
        pred, oracle = kept
        values = dict(zip(ESTIMATE_ARRAYS, (pack_array(a) for a in (
            oracle.query_ids, pred.cate, pred.lower, pred.upper, oracle.tau, oracle.lower, oracle.upper))))
        return {"kept": [KeptRow(ESTIMATES_TABLE, _COLUMNS, values)]}

    def rescore(self, store: Any, metrics: Mapping[str, Any]) -> Iterable[Tuple[Any, Mapping[str, Any]]]:
        """Each stored estimate against the stored oracle at the same queries."""
        from .effect import EffectOracle, EffectPrediction, effect_metrics

        for row in estimates_frame(store).itertuples(index=False):
            oracle = EffectOracle(query_ids=row.query_ids, tau=row.tau, lower=row.tau_lower, upper=row.tau_upper)
            values = effect_metrics(oracle, EffectPrediction(cate=row.cate, lower=row.lower, upper=row.upper),
                                    metrics)
            if values:
                yield tuple(getattr(row, k) for k in KEY_COLUMNS), values

    def write_report(self, runs: Any, outdir: Any) -> Tuple[dict, list]:
        """``effect.csv`` and the effect section of ``leaderboard.md`` (:mod:`arena_task_effect.report`)."""
        from .report import write_effect_report

        return write_effect_report(runs, outdir)

    def print_report(self, runs: Any, console: Any) -> None:
        """The effect table and its failures (:func:`arena_task_effect.report.print_effect`)."""
        from .report import print_effect

        print_effect(runs, console)
