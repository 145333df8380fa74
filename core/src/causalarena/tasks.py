"""Tasks: what a method does with an instance, and how its answer is checked, scored and kept.

A task is registered through the ``arena_tasks`` hook (:class:`~causalarena.records.TaskInfo`);
methods, families and metrics name the task they serve, and the runner sends every cell
through one pipeline (:meth:`causalarena.runner.Runner.execute_cell`) that asks the cell's
task at each step:

1. :meth:`Task.unsupported` — a reason the method does not run this cell (``unsupported``:
   missing, not failed), e.g. an obs+int split for a method without interventions;
2. the family builds the dataset (cached; its file is what the worker reads with
   :attr:`Task.loader`);
3. :meth:`Task.check_input` — a reason the table is invalid input for this method;
4. the method fits in its worker (budget, memory cap, isolation: the same for every task);
5. :meth:`Task.score` — decode and check the answer (``invalid_output``), score it against
   the truth the harness alone holds, and return what to keep;
6. :meth:`Task.keep` — the rows that keep it in the store, written in the run's transaction.

The core's own task is :class:`DiscoveryTask` (a graph from a table, the CausalArena paper's
protocol, §4.5 and App. B); ``arena-task-effect`` registers the CausalIDView effect task the
same way. Nothing in the core names another task.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable, Mapping, Optional, Sequence, Tuple

import numpy as np

from .hookspecs import hookimpl
from .records import DISCOVERY, OUTPUT_KINDS, Status, TaskInfo

__all__ = ["DiscoveryTask", "Task", "task_of"]


def task_of(obj: Any) -> str:
    """The name of the task a record, instance or dataset serves (``"discovery"`` unless it says otherwise)."""
    return str(getattr(obj, "task", "") or DISCOVERY)


class Task:
    """The protocol of a task (subclass it; every method has a working default where one exists).

    Attributes:
        name: the task's name (what ``MethodInfo.task`` / ``FamilyInfo.task`` name).
        output_kinds: the ``MethodInfo.output_kind`` values its methods may declare.
        loader: import path of ``f(path) -> dataset`` the worker calls on the cell's dataset file.
        dataset_type: import path of the class a family's ``dataset()`` returns for this task.
        default_metrics: the metrics ``arena run`` prints when ``--metrics`` is not given.
        splits_are_views: the task's splits are its families' own (e.g. CausalIDView's views)
            rather than the protocol's ``obs`` / ``obs_int``: ``arena run --splits`` is checked
            against the selected instances, and ``--protocol`` does not apply.
    """

    name: ClassVar[str] = ""
    output_kinds: ClassVar[Tuple[str, ...]] = ()
    loader: ClassVar[str] = "causalarena.data:Dataset.load"
    dataset_type: ClassVar[str] = "causalarena.data:Dataset"
    default_metrics: ClassVar[Tuple[str, ...]] = ()
    splits_are_views: ClassVar[bool] = False

    def metrics(self, registry_metrics: Mapping[str, Any]) -> Mapping[str, Any]:
        """The registered metrics (``MetricInfo`` by name) that score this task's runs per run."""
        return {k: m for k, m in registry_metrics.items() if m.task == self.name and not m.paired}

    def method_checks(self) -> Mapping[str, Any]:
        """The method conformance kit's checks this task replaces, by check id (None: not its rule).

        :mod:`arena_testkit` runs the same check ids for every method; a task whose methods
        answer differently (an estimate, not a graph) gives its own rule for each id here.
        """
        return {}

    def family_checks(self) -> Mapping[str, Any]:
        """The family kit's checks this task replaces, by check id (None: skipped, not its rule)."""
        return {}

    def unsupported(self, method: Any, cell: Any) -> Optional[str]:
        """A reason ``method`` does not run ``cell`` (recorded ``unsupported``: missing, not failed), or None.

        The default: a method that lists the splits it supports (``MethodInfo.views``) does not run another.
        """
        views = tuple(getattr(method, "views", ()) or ())
        if views and cell.split not in views:
            return (f"method {method.name!r} supports the split(s) {', '.join(views)}; {cell.split!r} is "
                    "missing (not a failure)")
        return None

    def check_input(self, method: Any, cell: Any, dataset: Any, row: Any) -> Optional[str]:
        """Fill ``row`` (``n``, ``d``, ``seed`` …) from ``dataset``; a reason it is invalid input, or None."""
        row.n, row.d = getattr(dataset, "n", None), getattr(dataset, "d", None)
        row.seed = getattr(dataset, "metadata", {}).get("seed")
        return None

    def score(self, method: Any, cell: Any, dataset: Any, payload: Any, row: Any, config: Any) -> Any:
        """Decode the worker's ``payload``, check it, score it; return what to keep, or None.

        Sets ``row.status`` to ``invalid_output`` (with ``row.error``) for an answer that cannot be
        decoded or fails its checks, else fills ``row.metrics`` and ``row.flags``. ``config`` is the
        runner (its ``metrics``, ``scorer``, ``n``, ``cpdag_repair`` …).
        """
        raise NotImplementedError(f"task {self.name!r} does not define score()")

    def keep(self, row: Any, kept: Any) -> Mapping[str, Any]:
        """What :meth:`causalarena.store.Store.record` keeps with an ``ok`` run, as its keyword arguments.

        A task keeps its output as :class:`causalarena.store.KeptRow` rows of its own tables
        (``{"kept": [KeptRow(...)]}``), written in the run's transaction. Default: nothing.

        Raises:
            ValueError: ``kept`` cannot be encoded (the run stands, unkept, with a flag).
        """
        return {}

    def rescore(self, store: Any, metrics: Mapping[str, Any]) -> Iterable[Tuple[Any, Mapping[str, Any]]]:
        """``(key, {metric: value})`` for this task's stored runs under ``metrics`` (``arena rescore``)."""
        return ()

    def check_selection(self, methods: Sequence[Any], families: Sequence[Any], protocols: Sequence[str]) -> None:
        """Raise ``ValueError`` naming what is wrong when this task's runs cannot use the selection."""
        if self.splits_are_views:
            others = sorted(p for p in protocols if p != "default")
            mine = [f.name for f in families if task_of(f) == self.name]
            if others and mine and any(task_of(m) == self.name for m in methods):
                raise ValueError(f"--protocol {','.join(others)}: intervention protocols apply to discovery "
                                 f"families; the {self.name} family(ies) {mine} have none (run them without "
                                 "--protocol, or add --task discovery)")


class DiscoveryTask(Task):
    """The core's task: a graph from a table (CausalArena §4.5, App. B).

    A method returns a :class:`causalarena.data.Prediction` (a d × d DAG, CPDAG or PAG with row =
    parent, optional edge scores); it is checked (:func:`causalarena.checks.check_output`), a CPDAG
    oriented by the runner's policy (App. B.2) and scored with every discovery metric against the
    instance's true adjacency; the scored DAG and its truth are kept (tables ``predictions`` and
    ``truths``) so any metric can be recomputed without refitting.
    """

    name = DISCOVERY
    output_kinds = OUTPUT_KINDS
    loader = "causalarena.data:Dataset.load"
    default_metrics = ("f1", "shd")

    def unsupported(self, method: Any, cell: Any) -> Optional[str]:
        """Another data type than the method declares, or obs+int for a method without interventions."""
        kind = str(getattr(cell.instance, "data_type", "continuous") or "continuous")
        if kind not in getattr(method, "data_types", ("continuous",)):
            return (f"method {method.name!r} declares data types {', '.join(method.data_types)}; instance "
                    f"{cell.instance.scm_id!r} is {kind} (missing, not a failure)")
        if cell.split == "obs_int" and not method.supports_interventions:
            return f"method {method.name!r} does not support interventions (obs+int split is missing)"
        return None

    def check_input(self, method: Any, cell: Any, dataset: Any, row: Any) -> Optional[str]:
        """The input checks of :func:`causalarena.checks.check_input` (their warnings become flags)."""
        from .checks import check_input

        row.n, row.d, row.seed = dataset.n, dataset.d, dataset.metadata.get("seed")
        row.varsortability = dataset.metadata.get("varsortability")
        row.r2_sortability = dataset.metadata.get("r2_sortability")
        chk = check_input(dataset, method)
        row.flags = list(chk.warnings)
        return None if chk.ok else chk.message()

    def score(self, method: Any, cell: Any, dataset: Any, payload: Any, row: Any, config: Any) -> Any:
        """Check the graph, orient a CPDAG, score it; keep ``(scored Prediction, Truth)``."""
        from .checks import check_output
        from .data import Prediction
        from .metrics import repair_cpdag_cycles
        from .predictions import Truth, as_adjacency, node_tags

        try:
            pred = Prediction.from_json(payload)
        except Exception as exc:  # noqa: BLE001 - any decoding error is the method's output
            row.status, row.error = Status.INVALID_OUTPUT, f"prediction not decodable: {type(exc).__name__}: {exc}"
            return None
        out = check_output(pred, dataset.d, kind=method.output_kind, columns=dataset.columns,
                           cpdag_repair=config.cpdag_repair)
        row.flags += out.flags
        if pred.kind != method.output_kind:
            row.flags.append(f"kind_mismatch: declared {method.output_kind}, returned {pred.kind}")
        if not out.ok:
            row.status, row.error = Status.INVALID_OUTPUT, out.message()
            return None
        if "edge_scores_invalid" in out.flags:
            pred.edge_scores = None
        if any(f.startswith("cpdag_repaired") for f in out.flags):  # then oriented like any CPDAG
            pred.adjacency = repair_cpdag_cycles(pred.adjacency)[0]
        pred.kind = method.output_kind
        scored: Optional[np.ndarray] = None
        truth = dataset.true_adjacency
        try:
            assert truth is not None  # protocol-built datasets always carry their SCM's adjacency
            result = config.scorer(truth, pred, int(row.seed or 0))
            values, warnings = result[0], result[1]
            if len(result) > 2:
                scored = np.asarray(result[2])
            elif pred.kind == "dag":  # a two-item scorer scored the DAG as returned
                scored = np.asarray(pred.adjacency)
        except Exception as exc:  # noqa: BLE001 - scoring error is a flag, the run stands
            values, warnings = {}, [f"scoring_error: {type(exc).__name__}: {exc}"]
        row.metrics = values
        row.flags += list(warnings)
        if scored is None or truth is None:
            return None
        try:
            spec = getattr(cell.instance, "spec", None)
            return (Prediction(adjacency=as_adjacency(scored, "scored adjacency"), kind=method.output_kind,
                               edge_scores=pred.edge_scores),
                    Truth(adjacency=truth, columns=dataset.columns,
                          node_tags=node_tags(getattr(spec, "nodes", ()), dataset.columns)))
        except ValueError as exc:  # e.g. a scorer that handed back a non-0/1 matrix: the run stands, unkept
            row.flags.append(f"prediction_not_kept: {exc}")
            return None

    def keep(self, row: Any, kept: Any) -> Mapping[str, Any]:
        """The scored DAG and its truth, for the store's ``predictions`` and ``truths`` tables."""
        return {"prediction": kept[0], "truth": kept[1]}

    def rescore(self, store: Any, metrics: Mapping[str, Any]) -> Iterable[Tuple[Any, Mapping[str, Any]]]:
        """Every stored scored DAG against its stored truth under ``metrics`` (``arena rescore``)."""
        from .metrics import compute_metrics
        from .store import KEY_COLUMNS

        truths = store.truths()
        for row in store.predictions_frame().itertuples(index=False):
            truth = truths[row.truth_id]
            values, _ = compute_metrics(truth.adjacency, row.adjacency, row.edge_scores, metrics)
            if values:  # {} when only another task's metrics were asked for: the run is not rescored
                yield tuple(getattr(row, k) for k in KEY_COLUMNS), values


@hookimpl
def arena_tasks() -> Iterable[TaskInfo]:
    """The core's built-in task."""
    yield TaskInfo(name=DISCOVERY, factory="causalarena.tasks:DiscoveryTask",
                   help="a graph from a table, scored against the SCM's adjacency (CausalArena §4.5)")
