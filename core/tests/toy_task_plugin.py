"""A third task from a test plugin: "column_means" — a method returns each column's mean.

Registered with ``get_registry(extra_plugins=[toy_task_plugin])``; nothing in the core names it.
The worker imports the methods by their factory path (``toy_task_plugin:Means``).
"""

from __future__ import annotations

import json

import numpy as np

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo, MetricInfo, Status, TaskInfo
from causalarena.store import KeptRow, pack_array
from causalarena.tasks import Task

TASK = "column_means"


class MeansAnswer:
    """What a column-means method returns (JSON on the worker's wire)."""

    def __init__(self, means):
        self.means = np.asarray(means, dtype=float)

    def to_json(self):
        return json.dumps({"means": self.means.tolist()})


class Means:
    """The right answer: the mean of every column of X."""

    def __init__(self, shift: float = 0.0):
        self.shift = shift

    def fit(self, dataset):
        self.means_ = np.asarray(dataset.X, dtype=float).mean(axis=0) + self.shift
        return self

    def prediction(self, kind=None):
        return MeansAnswer(self.means_)


class OneShort(Means):
    """A wrong-shaped answer: one mean too few (invalid output)."""

    def prediction(self, kind=None):
        return MeansAnswer(self.means_[:-1])


def max_abs_error(truth, answer):
    """max_j |answer_j − truth_j| (the toy task's metric)."""
    return float(np.max(np.abs(np.asarray(answer) - np.asarray(truth))))


class ColumnMeansTask(Task):
    """Cells of methods that estimate column means, scored against the table's own means."""

    name = TASK
    output_kinds = ("means",)

    def score(self, method, cell, dataset, payload, row, config):
        means = np.asarray(json.loads(payload)["means"], dtype=float)
        if means.shape != (dataset.d,):
            row.status, row.error = Status.INVALID_OUTPUT, f"expected {dataset.d} means, got shape {means.shape}"
            return None
        truth = np.asarray(dataset.X, dtype=float).mean(axis=0)
        row.metrics = {name: info.load()(truth, means) for name, info in self.metrics(config.metrics).items()}
        return means

    def keep(self, row, kept):
        return {"kept": [KeptRow("column_means", {"means": "BLOB NOT NULL"}, {"means": pack_array(kept)})]}


@hookimpl
def arena_tasks():
    yield TaskInfo(name=TASK, factory="toy_task_plugin:ColumnMeansTask", help="column means of a table")


@hookimpl
def arena_metrics():
    yield MetricInfo(name="max_abs_error", factory="toy_task_plugin:max_abs_error", higher_is_better=False,
                     task=TASK)


@hookimpl
def arena_methods():
    yield MethodInfo(name="means", factory="toy_task_plugin:Means", task=TASK, output_kind="means")
    yield MethodInfo(name="off_by_one", factory="toy_task_plugin:Means", task=TASK, output_kind="means",
                     params={"shift": 1.0})
    yield MethodInfo(name="one_short", factory="toy_task_plugin:OneShort", task=TASK, output_kind="means")
