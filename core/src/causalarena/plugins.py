"""Plugin discovery: the only module that touches ``pm.hook``.

:func:`get_registry` builds a :class:`Registry` from the built-in plugins
(:data:`DEFAULT_PLUGINS`) and every entry point in the group ``causalarena``.
Every hook is called through pluggy (``pm.subset_hook_caller``: the hook of
one plugin at a time, so each record is attributed to its distribution and a
raising plugin does not hide the others). ``pm.check_pending()`` runs after
registration: a hook implementation with no specification (a misspelled
``arena_method``), or an ``arena_*`` function not marked ``@hookimpl``, is
reported naming the plugin and its distribution.
A distribution whose entry point fails to import is recorded in
``Registry.errors`` (name, distribution, version, error) and the others still
load; ``strict=True`` (or ``CAUSALARENA_STRICT_PLUGINS=1``) raises instead.
Duplicate record names raise :class:`DuplicatePluginError` naming both
distributions.

:func:`default_registry` is the process-wide cached registry the SCM compiler
resolves components through; :func:`temporary_plugins` swaps in one with
throwaway plugins for a test.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import sys
import traceback
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

import attrs
import pluggy

from . import __version__, hookspecs
from .records import (
    COMPONENT_KINDS,
    RECORD_TYPES,
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

if sys.version_info >= (3, 10):
    from importlib.metadata import entry_points
else:  # pragma: no cover
    from importlib_metadata import entry_points  # type: ignore

ENTRY_POINT_GROUP = hookspecs.PROJECT
CORE_DISTRIBUTION = "causal-arena"

#: Built-in plugins, registered through the same hooks as third-party ones.
DEFAULT_PLUGINS = (
    "causalarena.metrics",
    "causalarena.interventions",
    "causalarena.components",
    "causalarena.commands",
    "causalarena.tasks",
)


class PluginError(RuntimeError):
    """Base class of plugin discovery errors."""


class DuplicatePluginError(PluginError):
    """Two distributions provide a record of the same kind and name."""


class PluginLoadError(PluginError):
    """An entry point failed to import, or a plugin declares an unknown hook (raised in strict mode only)."""


class UnknownComponentError(PluginError, KeyError):
    """A spec names a component (kind, name) that no installed distribution provides."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


@attrs.frozen
class LoadError:
    """An entry point that failed to import: reported, not fatal."""

    name: str
    distribution: str
    version: str
    error: str


@attrs.define
class Registry:
    """Every record contributed by installed plugins, by kind and name."""

    methods: Dict[str, MethodInfo] = attrs.field(factory=dict)
    families: Dict[str, FamilyInfo] = attrs.field(factory=dict)
    interventions: Dict[str, InterventionInfo] = attrs.field(factory=dict)
    metrics: Dict[str, MetricInfo] = attrs.field(factory=dict)
    isolation_backends: Dict[str, IsolationInfo] = attrs.field(factory=dict)
    #: keyed ``"<kind>:<name>"`` (a mechanism and a noise may share a name)
    components: Dict[str, ComponentInfo] = attrs.field(factory=dict)
    commands: Dict[str, CommandInfo] = attrs.field(factory=dict)
    reports: Dict[str, ReportInfo] = attrs.field(factory=dict)
    executors: Dict[str, ExecutorInfo] = attrs.field(factory=dict)
    tasks: Dict[str, TaskInfo] = attrs.field(factory=dict)
    analyses: Dict[str, AnalysisInfo] = attrs.field(factory=dict)
    errors: List[LoadError] = attrs.field(factory=list)
    #: (plugin manager, {id(plugin): (distribution, version)}) for the call hooks (``arena_addoption``,
    #: the life-cycle hooks)
    hooks: Optional[Tuple[Any, Dict[int, tuple]]] = attrs.field(default=None, repr=False, eq=False)
    _task_objects: Dict[str, Any] = attrs.field(factory=dict, init=False, repr=False, eq=False)
    _hook_errors: set = attrs.field(factory=set, init=False, repr=False, eq=False)

    def notify(self, hook: str, **kwargs: Any) -> None:
        """Call every plugin's life-cycle hook ``hook`` (``arena_run_start`` …) with ``kwargs``.

        One implementation at a time: one that raises is reported once on stderr (naming the
        plugin and the error) and the others still run; nothing it returns is used.
        """
        if self.hooks is None:
            return
        for impl in getattr(self.hooks[0].hook, hook).get_hookimpls():
            try:
                impl.function(*[kwargs[name] for name in impl.argnames])
            except Exception as exc:  # noqa: BLE001 - a sink never stops a run
                what = f"{impl.plugin_name}.{hook} raised {type(exc).__name__}: {exc}"
                if what not in self._hook_errors:
                    self._hook_errors.add(what)
                    print(f"warning: {what} (the run goes on; reported once)", file=sys.stderr)

    def kind(self, kind: str) -> Dict[str, Any]:
        return getattr(self, kind)

    def method(self, name: str) -> MethodInfo:
        """Return the method named ``name``; KeyError lists what is installed."""
        return _lookup(self.methods, name, "method")

    def family(self, name: str) -> FamilyInfo:
        return _lookup(self.families, name, "family")

    def task(self, name: str) -> Any:
        """The :class:`~causalarena.tasks.Task` object of task ``name``, built once per registry.

        Raises:
            KeyError: no installed distribution registers the task (the message lists what is).
        """
        if name not in self._task_objects:
            self._task_objects[name] = _lookup(self.tasks, name, "task").load()
        return self._task_objects[name]

    def intervention(self, name: str) -> InterventionInfo:
        return _lookup(self.interventions, name, "intervention protocol")

    def component(self, kind: str, name: str, where: str = "") -> ComponentInfo:
        """The component ``name`` of ``kind`` (one of :data:`~causalarena.records.COMPONENT_KINDS`).

        Args:
            where: what names it, for the message (``"node 'X3' mechanism"``).

        Raises:
            UnknownComponentError: nobody provides it; the message names the
                component, ``where``, the distribution that ships it when it is
                one this project knows (:data:`KNOWN_PROVIDERS`), and what is installed.
        """
        rec = self.components.get(f"{kind}:{name}")
        if rec is not None:
            return rec
        known = sorted(r.name for r in self.components.values() if r.kind == kind)
        place = f" ({where})" if where else ""
        msg = f"{kind.replace('_', ' ')} {name!r}{place} is not provided by any installed distribution"
        provider = KNOWN_PROVIDERS.get(kind, {}).get(name) or (
            "arena-cards" if name.startswith("card_") else None)
        if provider:
            msg += f"; it ships with {provider} (pip install {provider})"
        close = difflib.get_close_matches(name, known, n=3)
        if close:
            msg += f"; did you mean {', '.join(map(repr, close))}?"
        msg += f"; installed: {', '.join(known) or 'none'}"
        raise UnknownComponentError(msg)

    def component_names(self, kind: str) -> List[str]:
        """Names of the installed components of ``kind``, sorted."""
        return sorted(r.name for r in self.components.values() if r.kind == kind)

    def as_rows(self) -> List[dict]:
        """One dict per record (kind, name, distribution, version) + errors.

        A component's ``kind`` is its component kind with spaces (``"root
        distribution"``, ``"mechanism"``, ``"noise"`` …), not ``"component"``.
        """
        rows = []
        for kind in RECORD_TYPES:
            for rec in self.kind(kind).values():
                # a component's row names its kind ("noise"), so two of one name stay apart
                rows.append({"kind": rec.kind.replace("_", " ") if kind == "components" else _singular(kind),
                             "name": rec.name, "distribution": rec.distribution,
                             "version": rec.version, "description": rec.description or getattr(rec, "help", "")})
        for err in self.errors:
            rows.append({"kind": "error", "name": err.name, "distribution": err.distribution,
                         "version": err.version, "description": err.error})
        return rows


def _singular(kind: str) -> str:
    return {"families": "family", "isolation_backends": "isolation backend",
            "analyses": "analysis"}.get(kind, kind[:-1])


#: Which distribution of this project ships a component, for the error of a spec
#: naming one that is not installed (data only: the core imports none of them).
KNOWN_PROVIDERS: Dict[str, Dict[str, str]] = {
    "root_distribution": {n: "arena-family-synthetic" for n in (
        "truncated_gaussian", "gamma", "scaled_beta", "exponential", "gumbel", "bernoulli", "poisson",
        "ordinal", "mixture_gaussian", "multinomial", "zipf")},
    "mechanism": {n: "arena-family-synthetic" for n in (
        "product", "random_function_product", "interaction", "rational", "exp_log", "periodic",
        "piecewise", "regime_switching", "rff", "activation", "tree", "discretisation",
        "aggregation")},
    "noise": {n: "arena-family-synthetic" for n in (
        "multiplicative_lognormal", "heteroskedastic", "rff_heteroskedastic", "target_r2",
        "mixture_outlier", "quantized", "censored", "beta", "exponential", "gumbel")},
    "root_dependency": {n: "arena-family-synthetic" for n in ("common_factor", "random_covariance",
                                                              "uniform_ball")},
    "stressor": {n: "arena-family-synthetic" for n in (
        "feature_warping", "outliers", "missingness", "feature_corruption", "soft",
        "intervention_shift")},
}


def _lookup(table: Dict[str, Any], name: str, what: str) -> Any:
    try:
        return table[name]
    except KeyError:
        known = ", ".join(sorted(table)) or "none"
        raise KeyError(f"unknown {what} {name!r}; installed: {known}") from None


def _plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def _entry_points() -> Iterable[Any]:
    return entry_points(group=ENTRY_POINT_GROUP)


def _record_key(kind: str, rec: Any) -> str:
    return f"{rec.kind}:{rec.name}" if kind == "components" else rec.name


def _unknown_hooks(pm: pluggy.PluginManager) -> List[Tuple[Any, str]]:
    """(plugin, message) for each ``arena_*`` name a plugin defines that is no hook.

    ``pm.check_pending()`` finds marked implementations without a spec but stops at
    the first and cannot see an unmarked function; this lists them all.
    """
    specs = {name for name in dir(hookspecs) if name.startswith("arena_")}
    found = []
    for plugin in pm.get_plugins():
        for attr in dir(plugin):
            if not attr.startswith("arena_") or not callable(getattr(plugin, attr, None)):
                continue
            if attr not in specs:
                close = difflib.get_close_matches(attr, sorted(specs), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                found.append((plugin, f"unknown hook {attr!r}{hint}; known hooks: {', '.join(sorted(specs))}"))
            elif pm.parse_hookimpl_opts(plugin, attr) is None:
                found.append((plugin, f"function {attr!r} is not marked @hookimpl and is ignored"))
    return found


def get_registry(strict: Optional[bool] = None, extra_plugins: Iterable[Any] = ()) -> Registry:
    """Discover plugins and return their records.

    Args:
        strict: raise :class:`PluginLoadError` when an entry point fails to
            import or a plugin declares an unknown hook (default: env
            ``CAUSALARENA_STRICT_PLUGINS=1``).
        extra_plugins: plugin objects registered in addition (tests).

    Raises:
        DuplicatePluginError: two records of one kind share a name.
        PluginLoadError: strict mode and an entry point failed.
    """
    if strict is None:
        strict = os.environ.get("CAUSALARENA_STRICT_PLUGINS", "") not in ("", "0")
    pm = _plugin_manager()
    origin: Dict[int, tuple] = {}

    for modname in DEFAULT_PLUGINS:
        mod = importlib.import_module(modname)
        pm.register(mod, name=modname)
        origin[id(mod)] = (CORE_DISTRIBUTION, __version__)
    errors: List[LoadError] = []
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else "?"
        dist_version = dist.version if dist is not None else "?"
        try:
            plugin = ep.load()
            if pm.is_registered(plugin):
                continue
            pm.register(plugin, name=f"{dist_name}:{ep.name}")
        except Exception as exc:  # noqa: BLE001 - reported, never swallowed
            msg = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            if strict:
                raise PluginLoadError(
                    f"entry point {ep.name!r} of {dist_name} {dist_version} failed to load: {msg}"
                ) from exc
            errors.append(LoadError(ep.name, dist_name, dist_version, msg))
            continue
        origin[id(plugin)] = (dist_name, dist_version)
    for plugin in extra_plugins:
        pm.register(plugin)
        origin[id(plugin)] = (getattr(plugin, "__distribution__", "<test>"), "0")

    for plugin, msg in _unknown_hooks(pm):
        dist_name, dist_version = origin.get(id(plugin), ("?", "?"))
        name = pm.get_name(plugin) or repr(plugin)
        if strict:
            raise PluginLoadError(f"plugin {name!r} of {dist_name} {dist_version}: {msg}")
        errors.append(LoadError(name, dist_name, dist_version, msg))
    if strict:
        try:
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise PluginLoadError(str(exc)) from exc

    registry = Registry(errors=errors, hooks=(pm, origin))
    # registration order (built-ins first, then entry points): pm.get_plugins() is a set, whose order
    # varies between runs (which distribution a duplicate names first, the order of `arena --help`)
    plugins = [p for _, p in pm.list_name_plugin() if p is not None]
    for kind, record_type in RECORD_TYPES.items():
        hook_name = f"arena_{kind}"
        for plugin in plugins:
            if not any(impl.plugin is plugin for impl in getattr(pm.hook, hook_name).get_hookimpls()):
                continue
            dist_name, dist_version = origin.get(id(plugin), ("?", "?"))
            # one plugin's implementation at a time, through pluggy's own call machinery
            caller = pm.subset_hook_caller(hook_name, remove_plugins=[p for p in plugins if p is not plugin])
            try:
                records = [rec for result in caller() for rec in (result or ())]
            except Exception as exc:  # noqa: BLE001
                msg = f"{hook_name}() raised {type(exc).__name__}: {exc}"
                if strict:
                    raise PluginLoadError(f"{dist_name} {dist_version}: {msg}") from exc
                errors.append(LoadError(pm.get_name(plugin) or "?", dist_name, dist_version, msg))
                continue
            table = registry.kind(kind)
            for rec in records:
                if not isinstance(rec, record_type):
                    raise PluginError(
                        f"{dist_name}: {hook_name}() yielded {type(rec).__name__}, "
                        f"expected {record_type.__name__}"
                    )
                if not (kind == "methods" and rec.distribution):  # sandbox listings keep their own
                    rec = attrs.evolve(rec, distribution=dist_name, version=dist_version)
                key = _record_key(kind, rec)
                if key in table:
                    other = table[key]
                    what = f"{rec.kind.replace('_', ' ')}" if kind == "components" else _singular(kind)
                    raise DuplicatePluginError(
                        f"{what} name {rec.name!r} is "
                        f"provided by both {other.distribution} {other.version} and "
                        f"{dist_name} {dist_version}"
                    )
                table[key] = rec
    _drop_taskless(registry, strict)
    return registry


def _output_kinds(registry: Registry, task: str) -> tuple:
    """The output kinds task ``task`` accepts (its Task class attribute; () when it cannot be loaded)."""
    try:
        return tuple(registry.task(task).output_kinds)
    except Exception:  # noqa: BLE001 - a task that cannot load leaves its methods unusable, reported elsewhere
        return ()


def _drop_taskless(registry: Registry, strict: bool) -> None:
    """Move methods, families and metrics of a task no installed distribution registers to the errors,
    and methods whose ``output_kind`` their task does not accept.

    Raises:
        PluginLoadError: with ``strict``, naming the record, its distribution and the task.
    """
    for kind in ("methods", "families", "metrics"):
        table = registry.kind(kind)
        for name, rec in list(table.items()):
            if rec.task not in registry.tasks:
                msg = (f"{_singular(kind)} {name!r} serves the task {rec.task!r}, which no installed distribution "
                       f"registers (installed tasks: {', '.join(sorted(registry.tasks)) or 'none'}); install the "
                       "task's distribution")
            elif kind == "methods" and rec.output_kind not in (kinds := _output_kinds(registry, rec.task)):
                msg = (f"method {name!r}: output_kind {rec.output_kind!r} is not one of the {rec.task} task's "
                       f"{list(kinds)}")
            else:
                continue
            if strict:
                raise PluginLoadError(f"{rec.distribution} {rec.version}: {msg}")
            registry.errors.append(LoadError(name, rec.distribution, rec.version, msg))
            del table[name]


def add_options(registry: Registry, command: str, parser: Any) -> Dict[str, Tuple[str, Any]]:
    """Call every plugin's ``arena_addoption(command, parser, registry)`` on the parser of ``command``.

    One plugin at a time (the options each adds are attributed to it). A
    registry built without plugins (``Registry()`` in a test) adds nothing.

    Returns:
        ``{dest: (first option string, default)}`` of every option the plugins added.

    Raises:
        PluginLoadError: an implementation raised (an option that clashes with
            one already declared is argparse's ``ArgumentError``); the message
            names the plugin, its distribution and the command.
    """
    if registry.hooks is None:
        return {}
    pm, origin = registry.hooks
    plugins = [p for _, p in pm.list_name_plugin() if p is not None]
    impls = {id(impl.plugin) for impl in pm.hook.arena_addoption.get_hookimpls()}
    added: Dict[str, Tuple[str, Any]] = {}
    for plugin in plugins:
        if id(plugin) not in impls:
            continue
        before = len(parser._actions)  # noqa: SLF001 - argparse keeps its actions here
        caller = pm.subset_hook_caller("arena_addoption", remove_plugins=[p for p in plugins if p is not plugin])
        try:
            caller(command=command, parser=parser, registry=registry)
        except Exception as exc:  # noqa: BLE001 - named, with its distribution
            dist_name, dist_version = origin.get(id(plugin), ("?", "?"))
            raise PluginLoadError(f"plugin {pm.get_name(plugin)!r} of {dist_name} {dist_version}: "
                                  f"arena_addoption(command={command!r}) raised {type(exc).__name__}: {exc}") from exc
        for action in parser._actions[before:]:  # noqa: SLF001
            if action.option_strings and action.dest != "help":
                added[action.dest] = (action.option_strings[-1], action.default)
    return added


_DEFAULT: List[Registry] = []


def default_registry() -> Registry:
    """The registry of this process, built once (non-strict unless the env says so).

    The SCM compiler resolves components here; commands build their own with
    :func:`get_registry` to report errors.
    """
    if not _DEFAULT:
        _DEFAULT.append(get_registry())
    return _DEFAULT[0]


def reset_default_registry() -> None:
    """Forget the cached registry (after installing or uninstalling a distribution in-process)."""
    _DEFAULT.clear()


@contextlib.contextmanager
def temporary_plugins(*plugins: Any) -> Iterator[Registry]:
    """Make :func:`default_registry` include throwaway ``plugins`` inside the ``with`` block (tests).

    Example::

        with temporary_plugins(MyComponents()):
            spec.compile().sample(100, rng)
    """
    saved = list(_DEFAULT)
    _DEFAULT[:] = [get_registry(extra_plugins=plugins)]
    try:
        yield _DEFAULT[0]
    finally:
        _DEFAULT[:] = saved


def load_component(kind: str, name: str, where: str = "") -> type:
    """The class of component ``name`` of ``kind``, imported on first use.

    Raises:
        UnknownComponentError: nobody provides it (see :meth:`Registry.component`).
    """
    if kind not in COMPONENT_KINDS:
        raise ValueError(f"unknown component kind {kind!r}; expected one of {COMPONENT_KINDS}")
    return default_registry().component(kind, name, where).load()
