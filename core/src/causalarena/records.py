"""Typed, frozen records that plugins yield from the ``arena_*`` hooks.

Every record has a ``name``; the plugin manager fills ``distribution`` and
``version`` from the entry point that provided it. Records are cheap to build:
``factory`` is an import path (``"package.module:Attribute"``) resolved only
when the method or family is loaded for a run, so listing plugins never imports
torch, R bridges or checkpoints.
"""

from __future__ import annotations

import enum
import importlib
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Type

import attrs

__all__ = ["COMPONENT_KINDS", "DATA_TYPES", "DISCOVERY", "FAILURE_STATUSES", "OUTPUT_KINDS", "PRIOR_AXES", "RECORD_TYPES", "STATUSES",
           "AnalysisInfo", "CommandInfo", "ComponentInfo", "FamilyInfo", "TaskInfo", "InterventionInfo", "IsolationInfo", "MethodInfo",
           "MetricInfo", "PretrainingPrior", "ReportContext", "ReportInfo", "ExecutorInfo", "Status", "resolve"]

#: the native graph outputs of the built-in discovery task; another task declares its own
#: (:attr:`causalarena.tasks.Task.output_kinds`)
OUTPUT_KINDS = ("dag", "cpdag", "pag")
#: the core's built-in task (a graph from a table); other tasks come through ``arena_tasks``
DISCOVERY = "discovery"
#: the kinds of table a discovery method may declare it accepts (:attr:`MethodInfo.data_types`) and an
#: instance may serve (``Instance.data_type``): real-valued columns, or category codes 0..k-1 per column
DATA_TYPES = ("continuous", "categorical")


def _data_types(value: Any) -> Tuple[str, ...]:
    """``MethodInfo.data_types`` as a non-empty tuple of :data:`DATA_TYPES` members (a list from JSON is fine)."""
    items = (value,) if isinstance(value, str) else tuple(value)
    bad = [v for v in items if v not in DATA_TYPES]
    if not items or bad:
        raise ValueError(f"MethodInfo.data_types must be a non-empty tuple of {DATA_TYPES}, got {value!r}")
    return items


def data_type_of(instance: Any) -> str:
    """The kind of table an instance serves (``"continuous"`` unless it declares ``data_type``)."""
    return str(getattr(instance, "data_type", "") or "continuous")


class Status(str, enum.Enum):
    """The status of one run (method × cell): the one list runner, store, report and progress bar use.

    A ``str`` enum, so ``Status.OK == "ok"`` and the store keeps plain text.

    Members:
        OK: the method returned a valid graph; metrics were computed.
        FAILED: the method raised, or its worker died (segfault, ``os._exit``).
        TIMEOUT: wall-clock budget exceeded; the worker's process group was killed.
        OOM: memory cap exceeded (peak memory recorded).
        INVALID_INPUT: the table violates a declared capability (case I1–I6, I12).
        INVALID_OUTPUT: the output is not a graph of the declared kind (cycles, NaN).
        UNSUPPORTED: the split needs a capability the method does not declare
            (interventions): *missing*, not a failure (App. B.1).
        ENV_ERROR: the method's environment cannot run it here (a missing R,
            a sandbox that cannot be built): a fault of the setup, not of the method's result.
    """

    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"
    OOM = "oom"
    INVALID_INPUT = "invalid_input"
    INVALID_OUTPUT = "invalid_output"
    UNSUPPORTED = "unsupported"
    ENV_ERROR = "env_error"

    def __str__(self) -> str:
        return self.value

    @property
    def is_failure(self) -> bool:
        """Counted as a failure (⚠) in reports: everything but ``ok`` and ``unsupported``."""
        return self not in (Status.OK, Status.UNSUPPORTED)


#: every status value, in report order
STATUSES: Tuple[str, ...] = tuple(s.value for s in Status)
#: the statuses counted as failures (⚠k in the leaderboard, the progress bar's failure count)
FAILURE_STATUSES: Tuple[str, ...] = tuple(s.value for s in Status if s.is_failure)


def resolve(path: str) -> Any:
    """Import ``"package.module:attr.sub"`` and return the attribute.

    Raises:
        ValueError: ``path`` has no ``:`` separator.
        ImportError / AttributeError: the module or attribute does not exist.
    """
    if ":" not in path:
        raise ValueError(f"factory path {path!r} must look like 'package.module:Attribute'")
    module_name, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _check_name(instance: Any, attribute: attrs.Attribute, value: str) -> None:
    if not value or not all(c.isalnum() or c in "_-." for c in value):
        raise ValueError(f"{type(instance).__name__}.name {value!r} must be a non-empty identifier")


#: the factor axes a :class:`PretrainingPrior` may declare (the arena's factor vocabulary: the runs'
#: factors ``graph`` / ``mechanisms`` / ``noises`` / ``roots``)
PRIOR_AXES = ("graph", "mechanism", "noise", "root")


def _prior_axes(value: Any) -> Dict[str, Tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise ValueError(f"PretrainingPrior.axes must be a mapping axis -> categories, got {type(value).__name__}")
    out: Dict[str, Tuple[str, ...]] = {}
    for axis, categories in value.items():
        if axis not in PRIOR_AXES:
            raise ValueError(f"PretrainingPrior.axes: unknown axis {axis!r}; expected some of {', '.join(PRIOR_AXES)}")
        if isinstance(categories, str) or not isinstance(categories, (list, tuple)) or not categories or not all(
                isinstance(c, str) and c for c in categories):
            raise ValueError(f"PretrainingPrior.axes[{axis!r}] must be a non-empty tuple of non-empty strings, "
                             f"got {categories!r}")
        out[axis] = tuple(categories)
    return out


def _prior_range(name: str, value: Any) -> Optional[Tuple[int, int]]:
    if value is None:
        return None
    ok = (isinstance(value, (list, tuple)) and len(value) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
          and value[0] <= value[1])
    if not ok:
        raise ValueError(f"PretrainingPrior.{name} must be (lo, hi) with positive integers lo <= hi, got {value!r}")
    return (int(value[0]), int(value[1]))


def _d_range(value: Any) -> Optional[Tuple[int, int]]:
    return _prior_range("d_range", value)


def _n_range(value: Any) -> Optional[Tuple[int, int]]:
    return _prior_range("n_range", value)


def _nonempty_source(instance: Any, attribute: attrs.Attribute, value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"PretrainingPrior.source must name where the prior is documented, got {value!r}")


@attrs.frozen(kw_only=True)
class PretrainingPrior:
    """What a pretrained method was trained on, in the arena's own factor vocabulary (paper §6.2).

    The exposure analysis (Eq. 8–10, Fig. 14–16) splits a method's slices
    into in-distribution (a category it was trained on) and out-of-distribution
    ones; nothing is entered by hand: a method without a prior is left out.

    Attributes:
        axes: axis → the categories trained on; axes among :data:`PRIOR_AXES`
            (``"graph"``: graph families such as ``"er"``, ``"sf"``;
            ``"mechanism"``, ``"noise"``, ``"root"``: component names such as
            ``"linear"``, ``"gaussian"``, ``"gumbel"``, as in the runs'
            factors ``graph`` / ``mechanisms`` / ``noises`` / ``roots``). An
            axis left out is not declared (not "nothing").
        d_range: ``(lo, hi)`` numbers of variables trained on (inclusive), or None.
        n_range: ``(lo, hi)`` sample sizes trained on (inclusive), or None.
        source: where this is documented (paper section, model card URL).

    Raises:
        ValueError: an unknown axis, an empty or non-string category list, a
            range that is not two positive integers ``lo <= hi``, or an empty
            source; the message names the field.

    Example::

        PretrainingPrior(axes={"graph": ("er", "sf"), "mechanism": ("linear", "mlp")},
                         d_range=(2, 100), n_range=(200, 1000), source="Lorch et al. 2022, App. C")
    """

    axes: Dict[str, Tuple[str, ...]] = attrs.field(factory=dict, converter=_prior_axes)
    d_range: Optional[Tuple[int, int]] = attrs.field(default=None, converter=_d_range)
    n_range: Optional[Tuple[int, int]] = attrs.field(default=None, converter=_n_range)
    source: str = attrs.field(validator=_nonempty_source)


def _as_prior(value: Any) -> Optional[PretrainingPrior]:
    """A prior, or its ``attrs.asdict`` form (sandbox listings round-trip records through JSON)."""
    if value is None or isinstance(value, PretrainingPrior):
        return value
    if isinstance(value, Mapping):
        return PretrainingPrior(**value)
    raise ValueError(f"MethodInfo.prior must be a PretrainingPrior, got {type(value).__name__}")


@attrs.frozen(kw_only=True)
class MethodInfo:
    """A causal discovery method contributed through ``arena_methods``.

    Attributes:
        name: literature name, lower case (``"pc"``, ``"direct_lingam"``).
        factory: import path of a :class:`causalarena.method.Method` subclass.
        supports_interventions: the method consumes ``intervention_mask``; a
            method without it is *missing* on obs+int splits (App. B.1).
        output_kind: the native output, one of its task's
            :attr:`~causalarena.tasks.Task.output_kinds` (discovery: ``"dag"``,
            ``"cpdag"`` or ``"pag"``; checked when the registry is built).
        handles_missing: accepts NaN entries in ``X`` (case I4).
        min_samples_factor: input check: require ``n >= factor * d`` rows
            (case I6); 0 disables.
        requires_full_rank: the method's test or score inverts the covariance
            (Fisher-z, BIC); a rank-deficient table is invalid input (I1, I12).
        params: default parameters (App. B.4), recorded for provenance.
        citation: reference for the method.
        description: one line shown by ``arena methods``.
        requirements: pip requirement strings the method needs at run time
            (besides its distribution's own ``Requires-Dist``).
        environment: ``""`` = importable in this environment; otherwise the
            isolation backend that alone holds it (``"venv"``: a built sandbox
            environment, ``"docker"``: a built image; listed by
            ``arena-sandbox``, runs only isolated; see :mod:`causalarena.isolation`).
        prior: what a pretrained method was trained on
            (:class:`PretrainingPrior`); ``None`` (default) for methods that
            are not pretrained, or whose prior is not declared: the exposure
            analysis leaves them out.
        task: the name of the task the method serves (a :class:`TaskInfo`):
            ``"discovery"`` (default: a graph from a table) or a task a
            distribution registers; a method is only paired with instances of
            its task.
        views: the splits (for a task whose splits are views, e.g. ``("bd",)``)
            the method supports; a cell on another split is ``unsupported``
            (missing, not failed). Empty: every split.
        data_types: the kinds of table the method accepts, among
            :data:`DATA_TYPES` (default ``("continuous",)``); a cell whose
            instance serves another kind (``Instance.data_type``, e.g. the
            categorical bnlearn networks) is ``unsupported`` (missing, not failed).
        distribution, version: filled by the plugin manager (kept when the
            record already names them, as sandbox listings do).
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    task: str = attrs.field(default=DISCOVERY, validator=_check_name)
    views: tuple = attrs.field(default=(), converter=tuple)
    data_types: tuple = attrs.field(default=("continuous",), converter=_data_types)
    supports_interventions: bool = False
    output_kind: str = attrs.field(default="dag", validator=_check_name)
    handles_missing: bool = False
    min_samples_factor: float = 0.0
    requires_full_rank: bool = False
    params: dict = attrs.field(factory=dict)
    citation: str = ""
    description: str = ""
    requirements: tuple = attrs.field(default=(), converter=tuple)
    environment: str = ""
    prior: Optional[PretrainingPrior] = attrs.field(default=None, converter=_as_prior)
    distribution: str = ""
    version: str = ""

    def load(self) -> type:
        """Import and return the method class (heavy imports happen here)."""
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class FamilyInfo:
    """An SCM family or real-data collection contributed through ``arena_families``.

    Attributes:
        name: ``"synthetic"``, ``"semantic"``, ``"formula"``, ``"real"`` …
        factory: import path of a :class:`causalarena.family.Family` subclass.
        kind: ``"synthetic"``, ``"semantic"``, ``"formula"`` or ``"real"``.
        task: the name of the task its instances serve (default ``"discovery"``).
        description: one line shown by ``arena families``.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    kind: str = "synthetic"
    task: str = attrs.field(default=DISCOVERY, validator=_check_name)
    description: str = ""
    citation: str = ""
    distribution: str = ""
    version: str = ""

    def load(self) -> type:
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class InterventionInfo:
    """An intervention protocol contributed through ``arena_interventions``.

    Attributes:
        name: ``"default"`` (hard do-resampling, App. A.1) …
        factory: import path of a callable ``(scm, n_obs, n_int, rng) ->
            (X, intervention_mask, regime)``; see :mod:`causalarena.interventions`.
        n_obs, n_int: row budget of the obs+int split under this protocol.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    n_obs: int = 800
    n_int: int = 200
    description: str = ""
    distribution: str = ""
    version: str = ""

    def load(self) -> Callable[..., Any]:
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class MetricInfo:
    """A graph metric contributed through ``arena_metrics``.

    Attributes:
        name: column name in the result store (``"f1"``, ``"shd"`` …).
        factory: import path of ``f(true_adjacency, adjacency, edge_scores) ->
            float | None`` (d × d arrays, row = parent); ``None`` = undefined.
            A metric of another task takes what that task's
            :meth:`~causalarena.tasks.Task.score` passes it (its docstring says).
        higher_is_better: direction for rankings.
        needs_scores: only computed when the method returned edge scores.
        task: the name of the task whose runs it scores (default ``"discovery"``).
        paired: computed by a report on a pair of runs from stored outputs,
            not per run (e.g. a world and its Stay / Move variant).
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    higher_is_better: bool = True
    needs_scores: bool = False
    task: str = attrs.field(default=DISCOVERY, validator=_check_name)
    paired: bool = False
    description: str = ""
    distribution: str = ""
    version: str = ""

    def load(self) -> Callable[..., Optional[float]]:
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class IsolationInfo:
    """An isolation backend contributed through ``arena_isolation_backends``.

    Attributes:
        name: ``"venv"``, ``"docker"`` … (used by ``arena run --isolation``).
        factory: import path of a class whose instances provide
            ``available() -> Optional[str]`` (None, or why it cannot run here),
            ``prepare(method, log) -> None`` (build what the method needs, once,
            before the grid; may raise :class:`causalarena.isolation.IsolationError`) and
            ``launch(method, cache_dir, memory_mb) -> WorkerLaunch`` (may raise
            :class:`causalarena.isolation.IsolationError`). ``cache_dir`` is the folder of the
            datasets the worker reads (mounted read-only by containers),
            ``memory_mb`` the run's memory cap (None: none).
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    description: str = ""
    distribution: str = ""
    version: str = ""

    def load(self) -> Any:
        return resolve(self.factory)


#: The kinds of SCM building block (:class:`ComponentInfo.kind`), each with the base class of
#: :mod:`causalarena.scm` its factory must subclass.
COMPONENT_KINDS = ("root_distribution", "mechanism", "noise", "root_dependency", "stressor")


@attrs.frozen(kw_only=True)
class ComponentInfo:
    """An SCM building block contributed through ``arena_components``.

    A spec names components by ``kind`` and ``name`` (``{"kind": "linear", ...}``
    in a node's ``mechanism``); the SCM compiler looks them up in the registry.

    Attributes:
        kind: one of :data:`COMPONENT_KINDS`.
        name: the spec's ``kind`` string (``"linear"``, ``"student_t"`` …), unique per kind.
        factory: import path of the class (a subclass of the matching base in
            :mod:`causalarena.scm`: :class:`~causalarena.scm.RootDistribution`,
            :class:`~causalarena.scm.Mechanism`, :class:`~causalarena.scm.Noise`,
            :class:`~causalarena.scm.RootDependency`, :class:`~causalarena.scm.Stressor`),
            imported only when a spec uses it.
        description: one line shown by ``arena plugins``.
        distribution, version: filled by the plugin manager.
    """

    kind: str = attrs.field(validator=attrs.validators.in_(COMPONENT_KINDS))
    name: str = attrs.field(validator=_check_name)
    factory: str
    description: str = ""
    distribution: str = ""
    version: str = ""

    def load(self) -> type:
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class TaskInfo:
    """A task contributed through ``arena_tasks``: what methods do to instances and how it is scored.

    The core registers ``"discovery"`` (a graph from a table, :class:`causalarena.tasks.DiscoveryTask`);
    a distribution adds another (``arena-task-effect`` registers the effect task). A method, a family
    and a metric name the task they serve (``MethodInfo.task`` …); the runner pairs them by it and
    runs every cell through its task's :class:`~causalarena.tasks.Task` object.

    Attributes:
        name: the task's name (``"discovery"``), what records' ``task`` fields name.
        factory: import path of a :class:`causalarena.tasks.Task` subclass (or instance), imported
            only when a cell of the task runs or its runs are reported.
        help: one line shown by ``arena plugins`` and ``arena run --help``.
        distribution, version: filled by the plugin manager.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    help: str = ""
    distribution: str = ""
    version: str = ""

    @property
    def description(self) -> str:
        """The one line ``arena plugins`` lists (:attr:`help`)."""
        return self.help

    def load(self) -> Any:
        """The task object (a class is instantiated with no arguments)."""
        obj = resolve(self.factory)
        return obj() if isinstance(obj, type) else obj


@attrs.frozen(kw_only=True)
class CommandInfo:
    """An ``arena`` subcommand contributed through ``arena_commands``.

    Attributes:
        name: the subcommand (``"run"``, ``"sandbox"``, ``"validate"``).
        factory: import path of the command object: a module or object with
            ``configure(parser: argparse.ArgumentParser) -> None`` (adds its
            arguments) and ``run(args: argparse.Namespace) -> int`` (the exit
            code); with ``passthrough=True`` instead ``main(argv: list[str]) ->
            int``, which receives everything after the subcommand (its own
            parser, ``--help`` included). A path without ``:`` names a module.
        help: one line shown by ``arena --help`` (read without importing the factory).
        passthrough: the command parses its own arguments.
        distribution, version: filled by the plugin manager.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    help: str = ""
    passthrough: bool = False
    description: str = ""
    distribution: str = ""
    version: str = ""

    def load(self) -> Any:
        if ":" not in self.factory:
            return importlib.import_module(self.factory)
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class ExecutorInfo:
    """A grid executor contributed through ``arena_executors`` (``arena run --cluster SPEC``).

    Attributes:
        name: the executor's name (``"dask"``), chosen with ``--executor``.
        factory: import path of a class built as ``cls(spec, options, jobs=…,
            budget_s=…, memory_mb=…, log=…)`` with the methods documented in
            :mod:`causalarena.runner` ("Executors"): ``dry_run()``, ``start()``,
            ``run(cells, make_runner, on_result, failed_record)`` and ``close()``.
        help: one line shown by ``arena plugins``.
        distribution, version: filled by the plugin manager.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    help: str = ""
    distribution: str = ""
    version: str = ""

    @property
    def description(self) -> str:
        """The one line ``arena plugins`` lists (:attr:`help`)."""
        return self.help

    def load(self) -> Any:
        return resolve(self.factory)


@attrs.frozen(kw_only=True)
class ReportInfo:
    """A report extension contributed through ``arena_reports``, run by ``arena report``.

    Attributes:
        name: the report's name (``"diagnosis"``), shown in its messages.
        factory: import path of ``f(context: ReportContext) -> Dict[str, Path]``
            (the files it wrote, by label), imported only when ``arena report`` runs.
        help: one line shown by ``arena plugins``.
        order: reports run in increasing ``order`` (then name); default 100.
        check: optional import path of ``g(options, runs, registry) -> None`` that
            raises ``ValueError`` naming a bad value of an option the extension's
            plugin added (``ReportContext.options``; a two-argument ``g(options, runs)`` is called so too); ``arena report`` calls it before it writes
            anything and turns the error into a usage error (exit code 2).
        distribution, version: filled by the plugin manager.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    help: str = ""
    order: int = 100
    check: str = ""
    distribution: str = ""
    version: str = ""

    @property
    def description(self) -> str:
        """The one line ``arena plugins`` lists (:attr:`help`)."""
        return self.help

    def load(self) -> Callable[["ReportContext"], Mapping[str, Any]]:
        return resolve(self.factory)

    def load_check(self) -> Optional[Callable[[Mapping[str, Any], Any, Any], None]]:
        """The :attr:`check` callable, or None when the report declares none."""
        return resolve(self.check) if self.check else None


@attrs.frozen
class AnalysisInfo:
    """One analysis of a report extension, contributed through ``arena_analyses``.

    The report extension that runs analyses (``arena-diagnosis``) calls each
    installed one in increasing :attr:`order` (then name); ``arena report
    --analyses a,b`` picks some, ``--list-analyses`` lists them.

    Attributes:
        name: what ``--analyses`` names (``"slices"``, ``"winrates"``).
        factory: import path of ``f(run) -> None``; ``run`` is the extension's
            context (``arena_diagnosis.AnalysisRun``: the runs, the report
            context, ``csv`` / ``figure`` / ``table`` / ``skip`` writers), imported
            only when the analysis runs.
        help: one line shown by ``--list-analyses`` and ``arena plugins``.
        order: analyses run in increasing ``order`` (then name); default 100.
        task: the task whose runs it reads (default ``"discovery"``).
        tables: the CSV stems it may write (``tables/<stem>.csv``), for the listing.
        figures: the figure stems it may write (``figures/<stem>.png`` / ``.svg``).
        section: the page section its output appears under (``"Figures"``, ``"Tables"`` …).
        distribution, version: filled by the plugin manager.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    help: str = ""
    order: int = 100
    task: str = attrs.field(default=DISCOVERY, validator=_check_name)
    tables: Tuple[str, ...] = attrs.field(default=(), converter=tuple)
    figures: Tuple[str, ...] = attrs.field(default=(), converter=tuple)
    section: str = ""
    distribution: str = ""
    version: str = ""

    @property
    def description(self) -> str:
        """The one line ``arena plugins`` lists (:attr:`help`)."""
        return self.help

    def load(self) -> Callable[[Any], None]:
        return resolve(self.factory)


def _no_reader(name: str, *args: Any) -> Any:
    raise RuntimeError(f"this ReportContext was built without a store reader: cannot read {name}")


@attrs.frozen(kw_only=True)
class ReportContext:
    """What ``arena report`` hands every report extension (:class:`ReportInfo`).

    Attributes:
        results: the results folder (``--results``), where reports write their files.
        store_path: its result store (``arena.sqlite``).
        runs: :meth:`causalarena.store.Store.runs_frame` of the store (pandas
            DataFrame, one row per run, one float column per metric).
        registry: the :class:`causalarena.plugins.Registry` of the command.
        console: the ``rich`` console the leaderboard was printed to.
        options: ``{"metrics": (...), <dest>: value, ...}``: the leaderboard's
            metrics and the value of every option plugins added to the command
            (hook ``arena_addoption``; e.g. arena-diagnosis's ``analyses``,
            ``factors``, ``reference``), by argparse ``dest``.
        reader: ``(name, *args) -> value`` calling the read-only store's reader of that
            name (``"predictions_frame"``, ``"truths"``, ``"missing_predictions"``,
            ``"kept_frame"``); ``arena report`` passes one, a test
            may pass ``{...}.__getitem__``. (The store is read through it so
            that this record module never imports the store.)

    :meth:`predictions`, :meth:`truths` and :meth:`missing_predictions` read on
    first call only (then cached), so a report that needs no predictions costs nothing.
    """

    results: Path
    store_path: Path
    runs: Any
    registry: Any
    console: Any
    options: Dict[str, Any] = attrs.field(factory=dict)
    reader: Callable[..., Any] = attrs.field(default=_no_reader, repr=False, eq=False)
    _cache: Dict[Any, Any] = attrs.field(factory=dict, init=False, repr=False, eq=False)

    def _read(self, name: str, *args: Any) -> Any:
        if (name, args) not in self._cache:
            self._cache[(name, args)] = self.reader(name, *args)
        return self._cache[(name, args)]

    def predictions(self) -> Any:
        """:meth:`causalarena.store.Store.predictions_frame` (empty for a store older than kept predictions)."""
        return self._read("predictions_frame")

    def truths(self) -> Dict[str, Any]:
        """:meth:`causalarena.store.Store.truths`: ``truth_id`` → :class:`causalarena.predictions.Truth`."""
        return self._read("truths")

    def kept(self, table: str, arrays: Tuple[str, ...] = ()) -> Any:
        """:meth:`causalarena.store.Store.kept_frame`: a task's kept table (``arrays`` unpacked)."""
        return self._read("kept_frame", table, tuple(arrays))

    def missing_predictions(self) -> int:
        """``ok`` runs without a stored prediction (:meth:`causalarena.store.Store.missing_predictions`)."""
        return int(self._read("missing_predictions"))

    @property
    def fill_command(self) -> str:
        """The command that stores missing predictions, for messages (:data:`causalarena.predictions.FILL_COMMAND`)."""
        from .predictions import FILL_COMMAND

        return FILL_COMMAND.format(results=self.results)


#: registry kind -> its record class (all attrs classes with ``name``, ``distribution``, ``version``)
RECORD_TYPES: Dict[str, Type[Any]] = {
    "methods": MethodInfo,
    "families": FamilyInfo,
    "interventions": InterventionInfo,
    "metrics": MetricInfo,
    "isolation_backends": IsolationInfo,
    "components": ComponentInfo,
    "commands": CommandInfo,
    "reports": ReportInfo,
    "analyses": AnalysisInfo,
    "executors": ExecutorInfo,
    "tasks": TaskInfo,
}
