"""Hooks of arena-sandbox: the ``venv`` and ``docker`` backends, sandbox-only methods, and ``arena sandbox``."""

from __future__ import annotations

import attrs

from causalarena.hookspecs import hookimpl
from causalarena.records import CommandInfo, IsolationInfo, MethodInfo


@hookimpl
def arena_isolation_backends():
    yield IsolationInfo(name="venv", factory="arena_sandbox.venv:VenvBackend",
                        description="a virtualenv per method plugin, built from its declared requirements")
    yield IsolationInfo(name="docker", factory="arena_sandbox.docker:DockerBackend",
                        description="an image per plugin; no network, read-only root, no capabilities, limits")


@hookimpl
def arena_commands():
    """``arena sandbox build | list | prune``: its own parser (:mod:`arena_sandbox.cli`) gets the rest of argv."""
    yield CommandInfo(name="sandbox", factory="arena_sandbox.cli", passthrough=True,
                      help="build, list and prune isolated method environments and images (arena-sandbox)")


@hookimpl
def arena_methods():
    """Methods of built sandboxes whose plugin is not installed in this environment.

    ``arena sandbox build plugins/sdcd`` (or ``--backend docker``) makes ``sdcd`` runnable without
    installing its numpy-1.26 stack here: the record comes from the
    environment's manifest (``environment="venv"``, its own distribution and
    version), so ``arena run --methods sdcd`` runs it isolated. A plugin that
    is also installed here is listed by its own entry point instead. Reading
    the manifests is cheap (JSON files; nothing is imported).
    """
    from .docker import list_images
    from .envs import list_envs, normalise
    from .venv import _installed_here

    known = {a.name for a in attrs.fields(MethodInfo)}
    seen = set()
    # a virtualenv sandbox first (auto isolation runs it there); then images whose plugin has no virtualenv
    # (``environment="docker"``: auto isolation runs those in their container)
    sources = [(m, "venv") for m in list_envs()] + [(m, "docker") for m in list_images()]
    for manifest, environment in sources:  # newest first per plugin
        plugin = manifest.get("plugin", "")
        # a broken environment is still listed: running it gives env_error "rebuild", not "unknown method"
        if plugin in seen or _installed_here(plugin):
            continue
        seen.add(plugin)
        for m in manifest.get("methods", []):
            fields = {k: v for k, v in m.items() if k in known}
            fields.update(environment=environment, distribution=normalise(m.get("distribution") or plugin),
                          version=m.get("version") or manifest.get("version", ""))
            yield MethodInfo(**fields)
