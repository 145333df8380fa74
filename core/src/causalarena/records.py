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
from typing import Any, Callable, Dict, Optional, Tuple, Type

import attrs

OUTPUT_KINDS = ("dag", "cpdag", "pag")


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


@attrs.frozen(kw_only=True)
class MethodInfo:
    """A causal discovery method contributed through ``arena_methods``.

    Attributes:
        name: literature name, lower case (``"pc"``, ``"direct_lingam"``).
        factory: import path of a :class:`causalarena.method.Method` subclass.
        supports_interventions: the method consumes ``intervention_mask``; a
            method without it is *missing* on obs+int splits (App. B.1).
        output_kind: ``"dag"``, ``"cpdag"`` or ``"pag"`` (native output).
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
        environment: ``""`` = importable in this environment; ``"venv"`` = known
            only from a built sandbox environment (listed by ``arena-sandbox``,
            runs only isolated; see :mod:`causalarena.isolation`).
        distribution, version: filled by the plugin manager (kept when the
            record already names them, as sandbox listings do).
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    supports_interventions: bool = False
    output_kind: str = attrs.field(default="dag", validator=attrs.validators.in_(OUTPUT_KINDS))
    handles_missing: bool = False
    min_samples_factor: float = 0.0
    requires_full_rank: bool = False
    params: dict = attrs.field(factory=dict)
    citation: str = ""
    description: str = ""
    requirements: tuple = attrs.field(default=(), converter=tuple)
    environment: str = ""
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
        description: one line shown by ``arena families``.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    kind: str = "synthetic"
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
        higher_is_better: direction for rankings.
        needs_scores: only computed when the method returned edge scores.
    """

    name: str = attrs.field(validator=_check_name)
    factory: str
    higher_is_better: bool = True
    needs_scores: bool = False
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


#: registry kind -> its record class (all attrs classes with ``name``, ``distribution``, ``version``)
RECORD_TYPES: Dict[str, Type[Any]] = {
    "methods": MethodInfo,
    "families": FamilyInfo,
    "interventions": InterventionInfo,
    "metrics": MetricInfo,
    "isolation_backends": IsolationInfo,
    "components": ComponentInfo,
    "commands": CommandInfo,
}
