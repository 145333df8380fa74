"""Hook specifications of CausalArena (pluggy project ``causalarena``).

A plugin is a module (or object) with functions named after these hooks and
decorated with :data:`hookimpl`. Distributions advertise it through the
entry-point group ``causalarena``::

    [project.entry-points.causalarena]
    pc = "arena_method_pc.plugin"

Each hook returns an iterable of frozen records (:mod:`causalarena.records`).
Hooks must be cheap: build descriptors only; import heavy libraries inside
the method's ``fit`` or the family's loader. The core's own metrics and the
default intervention protocol are registered through these same hooks
(:data:`causalarena.plugins.DEFAULT_PLUGINS`).

Only :mod:`causalarena.plugins` calls ``pm.hook``; everything else uses its
typed facade.
"""

from __future__ import annotations

import argparse
from typing import Any, Iterable, Mapping

import pluggy

from .records import (
    AnalysisInfo,
    CommandInfo,
    ComponentInfo,
    ExecutorInfo,
    FamilyInfo,
    InterventionInfo,
    IsolationInfo,
    MethodInfo,
    MetricInfo,
    ReportInfo,
    TaskInfo,
)

PROJECT = "causalarena"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def arena_methods() -> Iterable[MethodInfo]:
    """Return the causal discovery methods this plugin provides.

    Called once when the plugin manager is built (``arena plugins``,
    ``arena run``), in every process that needs the registry, including the
    worker. Must not import the method's library.

    Returns:
        An iterable of :class:`MethodInfo`. Names must be unique across all
        installed distributions; a duplicate is an error naming both.

    Example::

        @hookimpl
        def arena_methods():
            yield MethodInfo(name="pc", factory="arena_method_pc.method:PC",
                             output_kind="cpdag", requires_full_rank=True,
                             params={"alpha": 0.05, "indep_test": "fisherz"})
    """


@hookspec
def arena_families() -> Iterable[FamilyInfo]:
    """Return the SCM families or real-data collections this plugin provides.

    Called once when the registry is built. ``FamilyInfo.factory`` points to a
    :class:`causalarena.family.Family` subclass that lists instances and
    builds datasets; it is imported only when the family is used.

    Returns:
        An iterable of :class:`FamilyInfo` with unique names.

    Example::

        @hookimpl
        def arena_families():
            yield FamilyInfo(name="real", kind="real",
                             factory="arena_family_real.family:RealFamily")
    """


@hookspec
def arena_interventions() -> Iterable[InterventionInfo]:
    """Return intervention protocols that build the obs+int split.

    A protocol's factory is a callable ``apply(scm, n_obs, n_int, rng,
    target_pool)`` returning ``(X, intervention_mask, regime)`` with shapes
    (n × d) float, (n × d) bool and (n,) int (−1 = observational, else the
    target index; multi-target protocols use the first target).
    The core registers ``"default"`` (App. A.1 hard do-resampling).

    Returns:
        An iterable of :class:`InterventionInfo` with unique names.
    """


@hookspec
def arena_metrics() -> Iterable[MetricInfo]:
    """Return graph metrics computed for every successful run.

    A metric's factory is ``f(true_adjacency, adjacency, edge_scores=None)``
    over (d × d) 0/1 arrays with row = parent, returning a float or ``None``
    when undefined. ``adjacency`` is always a DAG when a metric is called
    (CPDAGs are oriented first, App. B.2). The core registers precision,
    recall, F1, SHD, nSHD, SID, AUROC, AP and more.

    Returns:
        An iterable of :class:`MetricInfo` with unique names.
    """


@hookspec
def arena_isolation_backends() -> Iterable[IsolationInfo]:
    """Return isolated execution backends (``arena run --isolation NAME``).

    ``arena-sandbox`` registers ``venv`` (a virtualenv per method plugin) and
    ``docker`` (a container per plugin). The interface of a backend object is
    documented in :mod:`causalarena.isolation`.

    Returns:
        An iterable of :class:`IsolationInfo` with unique names (``auto`` and
        ``none`` are reserved).
    """


@hookspec
def arena_components() -> Iterable[ComponentInfo]:
    """Return SCM building blocks: root distributions, mechanisms, noises,
    root-dependency modes and stressors.

    Called once when the registry is built; the SCM compiler
    (:meth:`causalarena.scm.SCMSpec.compile`) resolves every component a spec
    names through this registry, so a third party adds a mechanism by shipping
    a distribution, never by editing the core. The core registers a basic set
    (:mod:`causalarena.components`: gaussian, uniform, laplace and lognormal
    roots; linear, polynomial, neural and saturation mechanisms; gaussian,
    uniform, laplace and student_t noise); the App. A.1 catalogue comes from
    ``arena-family-synthetic``, the scenario-card components from
    ``arena-cards``.

    Returns:
        An iterable of :class:`ComponentInfo`; ``(kind, name)`` must be unique
        across installed distributions (a duplicate is an error naming both).
        ``factory`` must not be imported by the hook itself.

    Example::

        @hookimpl
        def arena_components():
            yield ComponentInfo(kind="mechanism", name="softplus",
                                factory="my_pkg.mechanisms:Softplus")
    """


@hookspec
def arena_commands() -> Iterable[CommandInfo]:
    """Return ``arena`` subcommands (the pattern of pytest's ``pytest_addoption``
    and llm's ``register_commands``).

    Called when ``arena`` starts. Only the records are built for ``arena
    --help``; a command's factory is imported when its parser is built.
    The core's own commands (``plugins``, ``run``, ``report`` …) come through
    this hook too (:mod:`causalarena.commands`); ``sandbox`` is added by
    ``arena-sandbox``, ``validate`` and ``card`` by ``arena-cards``.

    Returns:
        An iterable of :class:`CommandInfo` with unique names.

    Example::

        @hookimpl
        def arena_commands():
            yield CommandInfo(name="validate", factory="arena_cards.commands.validate",
                              help="check scenario cards against every gate")
    """


@hookspec
def arena_reports() -> Iterable[ReportInfo]:
    """Return report extensions that ``arena report`` runs after the leaderboard.

    ``arena report`` prints the leaderboard and writes its files first (they
    never depend on an extension), then calls each report's factory in
    increasing :attr:`ReportInfo.order <causalarena.records.ReportInfo.order>`
    with one :class:`causalarena.records.ReportContext`: the results folder,
    the store path, the runs DataFrame, the registry, the console, the
    command's options (``--analyses``, ``--factors``, ``--reference``,
    ``--metrics``) and lazy ``predictions()`` / ``truths()`` (the kept
    predictions, read-only). The factory writes its files into
    ``context.results`` and returns them as ``{label: Path}``; the command
    prints them. A factory that raises (an ``OSError`` writing its files
    included) is one yellow line naming the report and its error; the exit
    code stays 0. The hook itself must not import the factory's module.
    ``arena-diagnosis`` registers the paper's §5–6 analyses, figures and the
    HTML report this way.

    Returns:
        An iterable of :class:`ReportInfo` with unique names.

    Example::

        @hookimpl
        def arena_reports():
            yield ReportInfo(name="diagnosis", factory="arena_diagnosis.report:write",
                             help="slices, win rates, figures and index.html", order=100)
    """


@hookspec
def arena_executors() -> Iterable[ExecutorInfo]:
    """Return grid executors: where ``arena run --cluster SPEC`` runs its cells.

    Without ``--cluster`` the runner's own threads drive warm local workers.
    An executor runs each cell elsewhere (e.g. a Dask task) through a
    store-less copy of the runner (``make_runner()``, the same worker
    protocol, budgets, memory caps and isolation) and hands every result back
    to the client, which alone writes the store, one transaction per run — so
    resume, statuses and the report do not change. ``arena-dask`` registers
    ``dask`` (a local cluster, a scheduler address, Slurm / PBS through
    dask-jobqueue).

    Returns:
        An iterable of :class:`ExecutorInfo` with unique names.
    """


@hookspec
def arena_analyses() -> Iterable[AnalysisInfo]:
    """Return the analyses a report extension runs (slices, win rates, curves …).

    ``arena-diagnosis`` registers its own this way and runs every installed
    one in :attr:`~causalarena.records.AnalysisInfo.order`; a third party adds
    an analysis (its tables, figures and page section) by shipping a
    distribution, without editing the core or the diagnosis layer. The hook
    must not import the factory's module.

    Returns:
        An iterable of :class:`AnalysisInfo` with unique names.

    Example::

        @hookimpl
        def arena_analyses():
            yield AnalysisInfo(name="edge_count", factory="my_pkg.analysis:edge_count",
                               help="mean predicted edges per method", tables=("edge_count",))
    """


@hookspec
def arena_addoption(command: str, parser: argparse.ArgumentParser, registry: Any) -> None:
    """Add options to the ``arena`` subcommand ``command`` (pytest's ``pytest_addoption``, tox's ``tox_add_option``).

    Called by the command frame (:func:`causalarena.cli.build_parser`) right
    after the command's own ``configure(parser)``, once per plugin, for the
    command that runs. A plugin adds its arguments to ``parser`` for the
    commands it serves (``if command == "report": parser.add_argument(...)``)
    and ignores the others. The parsed values reach report extensions as
    ``ReportContext.options[<dest>]``. An option that clashes with one
    already declared, or an implementation that raises, is a
    :class:`~causalarena.plugins.PluginLoadError` naming the plugin.

    Args:
        command: the subcommand's name (``"run"``, ``"report"`` …).
        parser: its ``argparse`` parser.
        registry: the command's :class:`~causalarena.plugins.Registry` (e.g. for an
            action that lists what is installed).

    Returns:
        Nothing: the options are added to ``parser`` in place.
    """


@hookspec
def arena_tasks() -> Iterable[TaskInfo]:
    """Return tasks: what methods do with instances, and how a cell is checked, scored and kept.

    The core registers ``"discovery"`` (:class:`causalarena.tasks.DiscoveryTask`). A task's
    factory is a :class:`causalarena.tasks.Task` subclass, imported only when a cell of the task
    runs; methods, families and metrics name it in their ``task`` field (a record naming a task
    that no installed distribution registers is reported by ``arena plugins`` and left out).
    ``arena-task-effect`` registers the CausalIDView effect task this way.

    Returns:
        An iterable of :class:`TaskInfo` with unique names.

    Example::

        @hookimpl
        def arena_tasks():
            yield TaskInfo(name="ranking", factory="my_pkg.task:RankingTask",
                           help="a causal order from a table, scored by its order divergence")
    """


# -- life cycle of a run (read-only: what a hook does cannot change a stored result) ------------------------


@hookspec
def arena_run_start(run: Mapping[str, Any]) -> None:
    """Called once by ``arena run`` (and :func:`causalarena.run`) before the first cell runs.

    ``run`` is a read-only mapping: ``results`` (the folder), ``store`` (its SQLite file),
    ``methods``, ``families`` (names), ``cells`` (how many this invocation asks for),
    ``started_at`` (ISO time) and ``options`` (the values of the options plugins added to
    ``arena run`` through ``arena_addoption``, by dest: e.g. a sink's destination). A hook that raises is reported once as a warning; the run goes on.
    A results sink (MLflow, W&B, a JSON-lines file) opens its destination here.

    Returns:
        None (a value is ignored).
    """


@hookspec
def arena_cell_stored(run: Mapping[str, Any], record: Mapping[str, Any]) -> None:
    """Called after each run is stored (in the process that writes the store), with a read-only copy.

    ``record`` is the stored row (:meth:`causalarena.runs.RunRecord.as_row`: key, status,
    metrics as JSON text, timings …); changing it changes nothing stored. Called in the order
    runs are stored, from the runner's threads (a sink that writes a file locks it).

    Returns:
        None (a value is ignored).
    """


@hookspec
def arena_run_end(run: Mapping[str, Any], counts: Mapping[str, int]) -> None:
    """Called once when the grid ends: ``counts`` is status → runs of this invocation (not resumed ones).

    Not called when the run stops on a machine fault or an interrupt (the cells stored so far were
    already reported by :func:`arena_cell_stored`).

    Returns:
        None (a value is ignored).
    """
