"""The ``venv`` isolation backend: each method plugin in its own virtualenv.

``prepare`` builds (or reuses, by cache key — :mod:`arena_sandbox.envs`) the
environment of the method's plugin; ``launch`` starts the core's worker with
that environment's interpreter: ``<env>/bin/python -m causalarena.worker``,
with ``PYTHONPATH`` emptied and user site-packages off, so nothing of the
main environment leaks in.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Optional, Sequence

from causalarena.isolation import IsolationError, WorkerLaunch

from .envs import ISOLATED_ENV, SandboxError, build, find_env, installed_source, normalise

#: extra pip constraints files for every build, separated by os.pathsep
CONSTRAINTS_ENV = "CAUSALARENA_SANDBOX_CONSTRAINTS"


def default_constraints() -> Sequence[str]:
    raw = os.environ.get(CONSTRAINTS_ENV, "")
    return [c for c in raw.split(os.pathsep) if c]


def _installed_here(distribution: str) -> bool:
    from .envs import importlib_metadata

    try:
        importlib_metadata.distribution(distribution)
        return True
    except importlib_metadata.PackageNotFoundError:
        return False


class VenvBackend:
    """Runs a method's worker in the virtualenv of its plugin (see module doc)."""

    name = "venv"

    def __init__(self, constraints: Optional[Sequence[str]] = None, root: Any = None) -> None:
        self.constraints = list(constraints if constraints is not None else default_constraints())
        self.root = root
        self._manifests: Dict[str, Dict[str, Any]] = {}

    def available(self) -> Optional[str]:
        """Always available where ``python -m venv`` works (None = available)."""
        return None

    def manifest_for(self, method: Any, log: Callable[[str], None] = lambda t: None,
                     build_missing: bool = True) -> Dict[str, Any]:
        """The manifest of the environment that serves ``method``.

        A plugin installed in this environment is resolved and built (or its
        cached environment reused); a method known only from a sandbox uses
        the newest environment of its distribution.

        Raises:
            IsolationError: no environment, a failed build, or the environment
                does not register the method.
        """
        dist = method.distribution
        if build_missing and getattr(method, "environment", "") != "venv" and _installed_here(dist):
            try:
                manifest = build(installed_source(dist), constraints=self.constraints, log=log, root=self.root)
            except SandboxError as exc:
                raise IsolationError(f"method {method.name!r}: building the environment of {dist} failed: {exc}") \
                    from None
        else:
            manifest = find_env(dist, method.version or None, root=self.root)
            if manifest is None:
                broken = find_env(dist, method.version or None, root=self.root, include_broken=True)
                if broken is not None:
                    raise IsolationError(
                        f"method {method.name!r}: the sandbox of {dist} {broken.get('version')} is broken "
                        f"({broken['broken']}); rebuild it: arena sandbox build "
                        f"{broken.get('sources', {}).get('plugin', dist)}")
                raise IsolationError(f"method {method.name!r}: no sandbox environment for {dist} "
                                     f"{method.version}; build it with `arena sandbox build PATH|REQUIREMENT`")
        names = [m["name"] for m in manifest.get("methods", [])]
        if method.name not in names:
            raise IsolationError(f"method {method.name!r} is not registered in the environment of "
                                 f"{manifest['plugin']} {manifest['version']} (it has: {', '.join(names) or 'none'})")
        return manifest

    def prepare(self, method: Any, log: Callable[[str], None] = lambda t: None) -> None:
        """Build or find the method's environment once, before the grid."""
        self._manifests[method.name] = self.manifest_for(method, log)

    def launch(self, method: Any, cache_dir: Optional[str] = None, memory_mb: Optional[float] = None) -> WorkerLaunch:
        """``<env>/bin/python`` with the isolated environment variables.

        Raises:
            IsolationError: the environment is gone or was never prepared and
                cannot be found.
        """
        manifest = self._manifests.get(method.name) or self.manifest_for(method, build_missing=False)
        py = manifest["interpreter"]
        if not os.path.exists(py):
            raise IsolationError(f"method {method.name!r}: the interpreter {py} of its sandbox is missing "
                                 "(pruned?); rebuild with `arena sandbox build`")
        label = f"venv:{normalise(manifest['plugin'])}-{manifest['version']}-{manifest['key']}"
        return WorkerLaunch(argv=(py,), env=dict(ISOLATED_ENV), label=label)
