"""Hook implementations of ``arena-task-effect``: the effect task and its metrics."""

from __future__ import annotations

from typing import Iterable

from causalarena.hookspecs import hookimpl
from causalarena.records import MetricInfo, TaskInfo


@hookimpl
def arena_tasks() -> Iterable[TaskInfo]:
    """The effect task (CausalIDView): a CATE at query units from one observational view."""
    yield TaskInfo(name="effect", factory="arena_task_effect.task:EffectTask",
                   help="a CATE (or bounds) at query units from one observational view (CausalIDView)")


@hookimpl
def arena_metrics() -> Iterable[MetricInfo]:
    """sPEHE² and its parts, the bound metrics (per run) and the paired Stay / Move errors (App. E.1)."""
    from .effect import EFFECT_METRICS, PAIRED_EFFECT_METRICS

    for name, higher, description in EFFECT_METRICS:
        yield MetricInfo(name=name, factory=f"arena_task_effect.effect:{name}", higher_is_better=higher,
                         description=description, task="effect")
    for name, description in PAIRED_EFFECT_METRICS:
        yield MetricInfo(name=name, factory=f"arena_task_effect.effect:{name}", higher_is_better=False,
                         description=description, task="effect", paired=True)
