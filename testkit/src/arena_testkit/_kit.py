"""The machinery the method kit and the family kit share, written once.

A kit is a :class:`Subject` (what is checked: its word, its descriptor type,
its ``(check_id, check)`` list) plus its check functions
(:mod:`arena_testkit.methods`, :mod:`arena_testkit.families`).
Everything else is here: the lazy resolver (:meth:`Subject.resolve`), the
bound check record (:class:`_Check`, a pytest parameter), the checks-list
builder (:func:`subject_checks`), the pytest decorator (:func:`parametrize`),
the failure message (:func:`_fail`) and the rules every plugin obeys whatever
it contributes (:func:`_registered`, :func:`_descriptor_cheap`).

A task other than discovery answers the same check ids with its own rules
(:meth:`causalarena.tasks.Task.method_checks` / ``family_checks``; ``arena-task-effect``
does): a check of a plugin of that task runs the task's counterpart.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from typing import Any, Callable, Dict, Iterator, List, NoReturn, Optional, Tuple, Type, TypeVar

import attrs

from causalarena.records import DISCOVERY, FamilyInfo, MethodInfo

__all__ = [
    "ConformanceError", "HEAVY_MODULES",
]

#: Top-level modules that a plugin's descriptor module must never import
#: (in addition to the plugin distribution's own requirements).
HEAVY_MODULES = (
    "torch", "tensorflow", "jax", "sklearn", "causallearn", "lingam", "dagma",
    "cdt", "rpy2", "castle", "avici", "pytorch_lightning", "lightning",
)


class ConformanceError(AssertionError):
    """A plugin violates its contract; the message names the plugin, its distribution and the rule."""


@functools.lru_cache(maxsize=None)
def _strict_registry() -> Any:
    """The strict plugin registry, built once per process (a broken entry point raises)."""
    from causalarena.plugins import get_registry

    return get_registry(strict=True)


#: descriptor type → the word that names such a plugin in a failure message
_WORDS: Tuple[Tuple[type, str], ...] = ((MethodInfo, "method"), (FamilyInfo, "family"))


def _who(info: Any, inst: Any = None, split: Optional[str] = None) -> str:
    """``method 'pc' (arena-method-pc 0.1.0)``, or ``family 'x' (…), instance 'id', split 'obs'``.

    ``inst`` is an instance (its ``scm_id`` is named) or an id string.
    """
    word = next((w for cls, w in _WORDS if isinstance(info, cls)), "plugin")
    dist = f" ({info.distribution} {info.version})" if info.distribution else ""
    where = f"{word} {info.name!r}{dist}"
    if inst is not None:
        where += f", instance {getattr(inst, 'scm_id', inst)!r}"
    if split is not None:
        where += f", split {split!r}"
    return where


def _fail(info: Any, rule: str, inst: Any = None, split: Optional[str] = None) -> NoReturn:
    """Raise :class:`ConformanceError` ``"<who>: <rule>"`` (see :func:`_who`)."""
    raise ConformanceError(f"{_who(info, inst, split)}: {rule}")


def _skip(message: str) -> None:
    """Skip the current check: ``pytest.skip`` inside a pytest test, else return (check passes)."""
    if os.environ.get("PYTEST_CURRENT_TEST"):
        import pytest

        pytest.skip(message)


@attrs.define(eq=False)
class Subject:
    """What a kit checks.

    Attributes:
        what: ``"method"`` or ``"family"``: the registry's lookup
            (``registry.method(name)``) and the word of
            ``parametrize_<what>_checks``.
        record: the descriptor type a name resolves to
            (:class:`~causalarena.records.MethodInfo`, :class:`~causalarena.records.FamilyInfo`);
            an object of this type is checked as given.
        checks: ``(check_id, check)`` in the order they run; a check takes
            ``(info, *arguments)`` (a method's ``params``; a family's
            ``options, settings``) and raises :class:`ConformanceError`.

    A plugin of another task than discovery runs that task's rule under each check id
    (:meth:`causalarena.tasks.Task.method_checks` / ``family_checks``; None: not its rule).
    """

    what: str
    record: type
    checks: Tuple[Tuple[str, Callable[..., None]], ...]

    def resolve(self, name_or_info: Any) -> Any:
        """The descriptor: ``name_or_info`` itself, or the strict registry's record of that name.

        Raises:
            KeyError: no such plugin is registered (the message lists the installed ones).
            causalarena.plugins.PluginLoadError: some entry point fails to import.
        """
        if isinstance(name_or_info, self.record):
            return name_or_info
        return getattr(_strict_registry(), self.what)(name_or_info)


class _Check:
    """A bound check: callable with no arguments, readable repr (``<name>:<check_id>``) for pytest ids.

    The plugin is resolved when the check runs (an uninstalled plugin shows up
    as failing checks, not as a collection error); every call passes fresh
    copies of the argument dicts, so a check cannot leak state into the next.
    """

    def __init__(self, subject: Subject, name: Any, check_id: str, fn: Callable[..., None],
                 *args: Dict[str, Any]) -> None:
        self.subject, self.name, self.check_id, self.fn, self.args = subject, name, check_id, fn, args

    def __call__(self) -> None:
        info = self.subject.resolve(self.name)
        args = [dict(a) for a in self.args]
        task = getattr(info, "task", DISCOVERY)
        if task == DISCOVERY:
            self.fn(info, *args)
            return
        rule = getattr(_strict_registry().task(task), f"{self.subject.what}_checks")().get(self.check_id, self.fn)
        if rule is None:  # a discovery rule with no counterpart in that task
            if self.subject.what == "family":
                _skip(f"{info.name}: {self.check_id} is a discovery rule with no {task} counterpart")
            return
        if self.subject.what == "method":
            # such a class commonly serves several descriptors (one per backbone, CausalIDView App. E.2.2):
            # the kit checks the configuration the arena runs, the descriptor's parameters
            args = [{**dict(info.params), **args[0]}]
        rule(info, *args)

    def __repr__(self) -> str:
        label = self.name if isinstance(self.name, str) else self.name.name
        return f"{label}:{self.check_id}"


def subject_checks(subject: Subject, name_or_info: Any,
                   *args: Dict[str, Any]) -> Iterator[Tuple[str, Callable[[], None]]]:
    """``(check_id, check)`` for one plugin, every check of ``subject`` bound to ``args``."""
    for check_id, fn in subject.checks:
        yield check_id, _Check(subject, name_or_info, check_id, fn, *args)


def parametrize(subject: Subject, names: Tuple[Any, ...], *args: Dict[str, Any]) -> Callable[[Callable], Callable]:
    """``pytest.mark.parametrize("check", ...)`` over every check of every named plugin; ids ``<name>:<check_id>``.

    Raises:
        ValueError: no name given.
    """
    import pytest

    if not names:
        raise ValueError(f"parametrize_{subject.what}_checks() needs at least one {subject.what} name")
    checks: List[Any] = [c for name in names for _, c in subject_checks(subject, name, *args)]
    return pytest.mark.parametrize("check", checks, ids=[repr(c) for c in checks])


# ---------------------------------------------------------------------------
# Rules every plugin obeys
# ---------------------------------------------------------------------------

_T = TypeVar("_T")


def _registered(info: Any, table: str, base: Type[_T]) -> Tuple[Any, Type[_T]]:
    """The registry's record of ``info`` and its factory, once the common rules hold.

    Rules: registered (in ``registry.<table>``) through an entry point of its
    own distribution (not the core's), with a version; the factory imports and
    is a subclass of ``base``.

    Returns:
        ``(record, factory class)``.

    Raises:
        ConformanceError: naming the rule broken.
    """
    from causalarena.plugins import CORE_DISTRIBUTION

    records = getattr(_strict_registry(), table)
    if info.name not in records:
        _fail(info, f"not in the registry; installed {table}: {sorted(records)}")
    rec = records[info.name]
    if not rec.distribution or rec.distribution in ("?", "<test>", CORE_DISTRIBUTION):
        _fail(rec, f"must come from its own distribution via the 'causalarena' entry point, "
                   f"got distribution {rec.distribution!r}")
    if not rec.version or rec.version == "?":
        _fail(rec, f"registered without a version ({rec.version!r})")
    try:
        cls = rec.load()
    except Exception as exc:
        raise ConformanceError(f"{_who(rec)}: factory {rec.factory!r} does not import: "
                               f"{type(exc).__name__}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, base)):
        _fail(rec, f"factory {rec.factory!r} is {cls!r}, not a {base.__module__}.{base.__name__} subclass")
    return rec, cls


_CHEAP_SCRIPT = textwrap.dedent(
    """
    import importlib, json, sys
    args = json.loads(sys.argv[1])
    # modules every plugin may import: the core's plugin-facing API
    for name in args["api"]:
        importlib.import_module(name)
    before = set(sys.modules)
    found = False
    for modname in args["modules"]:
        mod = importlib.import_module(modname)
        hook = getattr(mod, args["hook"], None)
        if hook is not None:
            names = [rec.name for rec in hook()]
            found = found or args["name"] in names
    new = sorted({m.split(".")[0] for m in set(sys.modules) - before})
    print(json.dumps({"found": found, "new": new}))
    """
)


def _requirement_modules(distribution: str) -> List[str]:
    """Import names of a distribution's requirements (not those of the core)."""
    import re

    if sys.version_info >= (3, 10):
        from importlib import metadata
    else:  # packages_distributions is new in 3.10; the backport is a core dependency on 3.9
        import importlib_metadata as metadata  # type: ignore

    def reqs(dist: str) -> List[str]:
        try:
            return [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in (metadata.requires(dist) or [])
                    if "extra ==" not in r]
        except metadata.PackageNotFoundError:
            return []

    core = {r.lower().replace("_", "-") for r in reqs("causal-arena")}
    mine = {r.lower().replace("_", "-") for r in reqs(distribution)} - core - {"causal-arena"}
    modules = []
    for mod, dists in metadata.packages_distributions().items():
        if any(d.lower().replace("_", "-") in mine for d in dists):
            modules.append(mod)
    return modules


def _descriptor_cheap(info: Any, hook: str, api: str, advice: str) -> None:
    """Importing the distribution's entry-point module(s) and calling ``hook`` imports no heavy library.

    Runs in a fresh interpreter (``sys.modules`` of this one is polluted) with
    this interpreter's ``sys.path``, after the core's plugin-facing modules
    (hookspecs, records, data and ``api``). Heavy = :data:`HEAVY_MODULES` plus the
    import names of the distribution's own requirements that the core does not
    already need.

    Args:
        info: the descriptor (its ``distribution`` owns the entry points; its
            ``name`` must be among the records ``hook()`` yields).
        hook: ``"arena_methods"`` or ``"arena_families"``.
        api: the core module the plugin subclasses from (``"causalarena.method"``).
        advice: where the heavy import belongs (ends the failure message).

    Raises:
        ConformanceError: no entry point, an import failure, the name not
            listed, or the heavy modules imported.
    """
    from causalarena.plugins import ENTRY_POINT_GROUP, entry_points

    modules = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        if dist is not None and dist.metadata["Name"] == info.distribution:
            modules.append(ep.value.split(":")[0])
    if not modules:
        _fail(info, f"no entry point in group {ENTRY_POINT_GROUP!r} belongs to distribution "
                    f"{info.distribution!r}")
    heavy = set(HEAVY_MODULES) | set(_requirement_modules(info.distribution))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    api_modules = ["causalarena.hookspecs", "causalarena.records", api, "causalarena.data"]
    proc = subprocess.run(
        [sys.executable, "-c", _CHEAP_SCRIPT,
         json.dumps({"modules": modules, "name": info.name, "hook": hook, "api": api_modules})],
        capture_output=True, text=True, timeout=120, env=env,
    )
    if proc.returncode != 0:
        _fail(info, f"importing entry-point module(s) {modules} failed in a fresh interpreter:\n"
                    f"{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not out["found"]:
        _fail(info, f"entry-point module(s) {modules} do not yield a {type(info).__name__} named {info.name!r}")
    leaked = sorted(heavy & set(out["new"]))
    if leaked:
        _fail(info, f"importing the descriptor module(s) {modules} imported heavy module(s) {leaked}; {advice}")
