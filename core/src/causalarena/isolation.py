"""Where a method's worker runs: this environment, a virtualenv, a container.

Causal discovery packages do not coexist (gcastle and sdcd pin numpy 1.26 and
pandas 1.5, lingam caps scipy, R-backed methods need R), so a method may need
its own environment (the CausalArena paper, §4.5 and App. B.3). The runner
never cares how: it starts ``<argv> -m causalarena.worker`` from a
:class:`WorkerLaunch` and speaks the same JSON-lines protocol
(:mod:`causalarena.worker`) to it.

Backends are plugins (hook ``arena_isolation_backends``, record
:class:`IsolationInfo`); the core knows only ``none`` (the running
interpreter). ``arena-sandbox`` registers ``venv`` and ``docker``.

Selection (``arena run --isolation``):

``none``
    every method in the running interpreter (``--python``).
``venv`` / ``docker`` / any backend name
    every method through that backend.
``auto`` (default)
    a method runs in the running interpreter unless :func:`requirement_conflicts`
    finds one of its distribution's requirements missing or at a version the
    running environment does not satisfy (then through ``venv``), or the
    method is only known from a sandbox (``MethodInfo.environment`` names the
    backend that holds it, ``"venv"`` or ``"docker"``; then through that one).

A backend that cannot serve a method raises :class:`IsolationError`; the
runner records every cell of that method as ``env_error`` with the message
and the grid goes on.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import attrs

from .records import IsolationInfo, MethodInfo

__all__ = ["IsolationError", "IsolationInfo", "WorkerLaunch", "choose_backend", "local_launch",
           "requirement_conflicts", "summarize_choices"]

if sys.version_info >= (3, 10):
    from importlib import metadata as importlib_metadata
else:  # pragma: no cover
    import importlib_metadata  # type: ignore

ISOLATION_CHOICES = ("auto", "none")


class IsolationError(RuntimeError):
    """A backend cannot run a method (environment not built, engine down …).

    The message names the method, what is missing and the command that fixes
    it; the runner stores it as the ``env_error`` of every cell of the method.
    """


@attrs.frozen
class WorkerLaunch:
    """How to start one worker process.

    Attributes:
        argv: the interpreter command; the runner appends
            ``-m causalarena.worker [--memory-mb M]`` (e.g. ``("/env/bin/python",)``
            or ``("docker", "run", …, "image", "python")``).
        env: extra environment variables for the started process.
        label: recorded per run in the ``isolation`` column (``"none"``,
            ``"venv:<key>"``, ``"docker:<image>"``).
        on_kill: called after the runner kills the process group (e.g. to
            ``docker kill`` a container the client process no longer owns).
        memory_probe: the resident memory (MB) of the worker where the
            started process tree does not hold it (a container's processes
            are not the client's children): the runner's memory cap polls it
            instead of the tree; ``None`` from the probe (not started yet)
            falls back to the tree.
        signal_exit_codes: the started process reports a worker killed by
            signal ``s`` as exit code ``128 + s`` (a container's init and
            the docker client do), so statuses and messages read the same
            as for a local worker.
    """

    argv: Tuple[str, ...]
    env: Mapping[str, str] = attrs.field(factory=dict)
    label: str = "none"
    on_kill: Optional[Callable[[], None]] = attrs.field(default=None, eq=False)
    memory_probe: Optional[Callable[[], Optional[float]]] = attrs.field(default=None, eq=False)
    signal_exit_codes: bool = False


def local_launch(python: str = sys.executable) -> WorkerLaunch:
    """The ``none`` backend: the worker runs under ``python`` in this environment."""
    return WorkerLaunch(argv=(python,), label="none")


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def requirement_conflicts(method: MethodInfo) -> List[str]:
    """Requirements of ``method`` the running environment does not satisfy.

    Reads the ``Requires-Dist`` of the method's distribution (markers
    evaluated for this interpreter, extras ignored) and ``method.requirements``
    and compares each with the installed version (``packaging``'s PEP 440
    specifiers, pre-releases allowed).

    Returns:
        One line per unmet requirement, e.g. ``"numpy<2 (installed 2.1.3)"`` or
        ``"sdcd==0.1.4 (not installed)"``; empty when the method can run here.
        A method whose distribution is not installed here at all (known only
        from a sandbox) gives ``["<dist> (not installed in this environment)"]``.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    reqs: List[str] = list(method.requirements)
    if method.distribution and method.distribution not in ("?", "<test>"):
        try:
            dist = importlib_metadata.distribution(method.distribution)
        except importlib_metadata.PackageNotFoundError:
            return [f"{method.distribution} (not installed in this environment)"]
        reqs += list(dist.requires or [])
    out: List[str] = []
    for text in reqs:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            out.append(f"{text} (unparseable requirement)")
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            installed = importlib_metadata.version(req.name)
        except importlib_metadata.PackageNotFoundError:
            out.append(f"{req} (not installed)")
            continue
        if req.specifier and not req.specifier.contains(installed, prereleases=True):
            out.append(f"{req} (installed {installed})")
    return out


def choose_backend(method: MethodInfo, isolation: str, backends: Mapping[str, Any]) -> Tuple[str, str]:
    """The backend name a method runs under, and why.

    Args:
        method: the method's record.
        isolation: ``"auto"``, ``"none"`` or a backend name.
        backends: instantiated backends by name (from the registry).

    Returns:
        ``(backend, reason)``; backend ``"none"`` means this interpreter.

    Raises:
        IsolationError: the method cannot run under the selection (e.g. it
            is known only from a sandbox and ``--isolation none``, or ``auto``
            wants ``venv`` and ``arena-sandbox`` is not installed).
    """
    home = getattr(method, "environment", "") or ""
    sandbox_only = bool(home)
    if isolation == "none":
        if sandbox_only:
            raise IsolationError(f"method {method.name!r} ({method.distribution}) is installed only in a {home} "
                                 f"sandbox; run it with --isolation auto or {home}")
        return "none", "--isolation none"
    if isolation != "auto":
        if isolation not in backends:
            raise IsolationError(f"isolation backend {isolation!r} is not installed; installed: "
                                 f"{sorted(['none', *backends])} (pip install arena-sandbox)")
        return isolation, f"--isolation {isolation}"
    if sandbox_only:
        reason = f"installed only in a {home} sandbox" if home != "venv" else "installed only in a sandbox environment"
        if home != "venv":
            if home not in backends:
                raise IsolationError(f"method {method.name!r} is installed only in a {home} sandbox and the {home} "
                                     "backend is not installed (pip install arena-sandbox)")
            return home, reason
    else:
        conflicts = requirement_conflicts(method)
        if not conflicts:
            return "none", "requirements satisfied here"
        reason = "requirements not satisfied here: " + "; ".join(conflicts)
    if "venv" not in backends:
        raise IsolationError(f"method {method.name!r} needs its own environment ({reason}); "
                             "pip install arena-sandbox, then `arena sandbox build "
                             f"{method.name}`")
    return "venv", reason


def summarize_choices(choices: Dict[str, Tuple[str, str]]) -> List[str]:
    """Human lines ``"sdcd → venv (requirements not satisfied here: …)"``."""
    return [f"{name} → {backend} ({why})" for name, (backend, why) in sorted(choices.items())]
