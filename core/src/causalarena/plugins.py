"""Plugin discovery: the only module that touches ``pm.hook``.

:func:`get_registry` builds a :class:`Registry` from the built-in plugins
(:data:`DEFAULT_PLUGINS`) and every entry point in the group ``causalarena``.
A distribution whose entry point fails to import is recorded in
``Registry.errors`` (name, distribution, version, error) and the others still
load; ``strict=True`` (or ``CAUSALARENA_STRICT_PLUGINS=1``) raises instead.
Duplicate record names raise :class:`DuplicatePluginError` naming both
distributions.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any, Dict, Iterable, List, Optional

import attrs
import pluggy

from . import __version__, hookspecs
from .records import RECORD_TYPES, FamilyInfo, InterventionInfo, IsolationInfo, MethodInfo, MetricInfo

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
)


class PluginError(RuntimeError):
    """Base class of plugin discovery errors."""


class DuplicatePluginError(PluginError):
    """Two distributions provide a record of the same kind and name."""


class PluginLoadError(PluginError):
    """An entry point failed to import (raised in strict mode only)."""


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
    errors: List[LoadError] = attrs.field(factory=list)

    def kind(self, kind: str) -> Dict[str, Any]:
        return getattr(self, kind)

    def method(self, name: str) -> MethodInfo:
        """Return the method named ``name``; KeyError lists what is installed."""
        return _lookup(self.methods, name, "method")

    def family(self, name: str) -> FamilyInfo:
        return _lookup(self.families, name, "family")

    def intervention(self, name: str) -> InterventionInfo:
        return _lookup(self.interventions, name, "intervention protocol")

    def as_rows(self) -> List[dict]:
        """One dict per record (kind, name, distribution, version) + errors."""
        rows = []
        for kind in RECORD_TYPES:
            for rec in self.kind(kind).values():
                rows.append({"kind": _singular(kind),
                             "name": rec.name, "distribution": rec.distribution,
                             "version": rec.version, "description": rec.description})
        for err in self.errors:
            rows.append({"kind": "error", "name": err.name, "distribution": err.distribution,
                         "version": err.version, "description": err.error})
        return rows


def _singular(kind: str) -> str:
    return {"families": "family", "isolation_backends": "isolation backend"}.get(kind, kind[:-1])


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


def get_registry(strict: Optional[bool] = None, extra_plugins: Iterable[Any] = ()) -> Registry:
    """Discover plugins and return their records.

    Args:
        strict: raise :class:`PluginLoadError` when an entry point fails to
            import (default: env ``CAUSALARENA_STRICT_PLUGINS=1``).
        extra_plugins: plugin objects registered in addition (tests).

    Raises:
        DuplicatePluginError: two records of one kind share a name.
        PluginLoadError: strict mode and an entry point failed.
    """
    if strict is None:
        strict = os.environ.get("CAUSALARENA_STRICT_PLUGINS", "") not in ("", "0")
    pm = _plugin_manager()
    origin: Dict[int, tuple] = {}
    import importlib

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

    registry = Registry(errors=errors)
    for kind, record_type in RECORD_TYPES.items():
        hook = getattr(pm.hook, f"arena_{kind}")
        for impl in hook.get_hookimpls():
            dist_name, dist_version = origin.get(id(impl.plugin), ("?", "?"))
            try:
                records = list(impl.function() or ())
            except Exception as exc:  # noqa: BLE001
                msg = f"arena_{kind}() raised {type(exc).__name__}: {exc}"
                if strict:
                    raise PluginLoadError(f"{dist_name} {dist_version}: {msg}") from exc
                errors.append(LoadError(impl.plugin_name, dist_name, dist_version, msg))
                continue
            table = registry.kind(kind)
            for rec in records:
                if not isinstance(rec, record_type):
                    raise PluginError(
                        f"{dist_name}: arena_{kind}() yielded {type(rec).__name__}, "
                        f"expected {record_type.__name__}"
                    )
                if not (kind == "methods" and rec.distribution):  # sandbox listings keep their own
                    rec = attrs.evolve(rec, distribution=dist_name, version=dist_version)
                if rec.name in table:
                    other = table[rec.name]
                    raise DuplicatePluginError(
                        f"{_singular(kind)} name {rec.name!r} is "
                        f"provided by both {other.distribution} {other.version} and "
                        f"{dist_name} {dist_version}"
                    )
                table[rec.name] = rec
    return registry
