"""``arena sandbox build | list | prune``: a passthrough command (:func:`main` gets the arguments after ``sandbox``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from .envs import SandboxError, build, dir_size_mb, list_envs, prune, sandbox_root
from .venv import default_constraints


def _target_source(target: str) -> str:
    """A folder, wheel or requirement as given; a method name → its plugin's source here."""
    if os.path.exists(target):
        return os.path.abspath(target)
    if any(c in target for c in "=<>!~[@"):
        return target  # a requirement
    from causalarena.plugins import get_registry

    reg = get_registry(strict=False)
    if target in reg.methods:
        rec = reg.methods[target]
        if rec.environment == "venv":
            from .envs import find_env

            manifest = find_env(rec.distribution, rec.version)
            if manifest is not None:
                return manifest["sources"]["plugin"]
        from .envs import installed_source

        return installed_source(rec.distribution)
    return target  # a bare distribution name: pip resolves it from the index


def _console(width=None):
    from rich.console import Console

    return Console(highlight=False, width=width)


def cmd_build(args) -> int:
    console = _console()
    source = _target_source(args.target)
    constraints = list(default_constraints()) + list(args.constraint or [])
    if args.backend == "docker":
        from causalarena.isolation import IsolationError

        from .docker import DockerBackend

        try:
            tag = DockerBackend(base_image=args.base_image, constraints=constraints).build_image(
                source, log=console.print, force=args.force)
        except IsolationError as exc:
            print(f"arena sandbox build: error: {exc}", file=sys.stderr)
            return 1
        console.print(f"image {tag}")
        return 0
    try:
        manifest = build(source, constraints=constraints, force=args.force, log=console.print)
    except SandboxError as exc:
        print(f"arena sandbox build: error: {exc}", file=sys.stderr)
        return 1
    console.print(f"[bold]{manifest['plugin']} {manifest['version']}[/bold] key {manifest['key']}: "
                  f"methods {', '.join(m['name'] for m in manifest['methods'])}; "
                  f"numpy {manifest['worker']['versions'].get('numpy')}, python {manifest['python']}")
    console.print(f"interpreter: {manifest['interpreter']}", soft_wrap=True)
    return 0


def cmd_base_image(args) -> int:
    from causalarena.isolation import IsolationError

    from .baseimage import build_base_image

    console = _console()
    try:
        info = build_base_image(minor=args.python, suite=args.suite, mirror=args.mirror, force=args.force,
                                log=console.print)
    except IsolationError as exc:
        print(f"arena sandbox base-image: error: {exc}", file=sys.stderr)
        return 1
    console.print(f"base image {info['tag']} ({'reused' if info['reused'] else 'built'}; "
                  f"{info['size_mb']} MB; {info['seconds']:.0f} s)")
    return 0


def cmd_list(args) -> int:
    from .docker import list_images

    envs = list_envs()
    images = list_images()
    if args.json:
        print(json.dumps(envs + [dict(m, backend="docker") for m in images], indent=2, default=str))
        return 0
    from rich.table import Table

    console = _console()
    if images:
        itable = Table(title="docker images (made here, never pulled)")
        for col in ("plugin", "version", "tag", "methods", "numpy", "size MB", "build s", "created"):
            itable.add_column(col, overflow="fold")
        for m in images:
            itable.add_row(m.get("plugin", "?"), m.get("version", "?"), m.get("tag", "?"),
                           ", ".join(x["name"] for x in m.get("methods", [])), m.get("stack", {}).get("numpy", "–"),
                           str(m.get("size_mb", "?")), str(m.get("build_seconds", "?")), m.get("created", ""))
        console.print(itable)
    if not envs:
        console.print(f"no sandbox environments under {sandbox_root()} (build one: arena sandbox build PLUGIN)")
        return 0
    console = _console(width=max(console.width, 132))  # a table of 10 columns is unreadable at 80
    table = Table(title=f"sandbox environments in {sandbox_root()}")
    for col in ("plugin", "version", "key", "methods", "python", "numpy", "pandas", "size MB", "created", "state"):
        table.add_column(col, overflow="fold")
    for m in envs:
        stack = m.get("stack", {})
        table.add_row(m.get("plugin", "?"), m.get("version", "?"), m.get("key", "?"),
                      ", ".join(x["name"] for x in m.get("methods", [])), m.get("python", "?"),
                      stack.get("numpy", "–"), stack.get("pandas", "–"),
                      f"{dir_size_mb(Path(m['path'])):.0f}", m.get("created", ""), m.get("broken") or "ok")
    console.print(table)
    return 0


def cmd_prune(args) -> int:
    removed = prune(everything=args.all, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for path, why in removed:
        print(f"{verb} {path} ({why})")
    if not removed:
        print("nothing to prune")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena sandbox", description=(
        "Isolated environments for method plugins (one per plugin, cached by name, version and resolved "
        f"requirements) under {sandbox_root()} (set CAUSALARENA_SANDBOX_DIR to move them)."))
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("build", help="build (or reuse) the environment of a plugin")
    sp.add_argument("target", help="a plugin folder (plugins/sdcd), a wheel, a requirement "
                                   "(arena-method-sdcd==0.1.0) or the name of an installed method (pc)")
    sp.add_argument("--backend", choices=("venv", "docker"), default="venv")
    sp.add_argument("--constraint", "-c", action="append", metavar="FILE",
                    help="pip constraints file (repeatable; also $CAUSALARENA_SANDBOX_CONSTRAINTS, $PIP_CONSTRAINT)")
    sp.add_argument("--force", action="store_true", help="rebuild even if the key is cached")
    sp.add_argument("--base-image", help="docker: a base image already on the engine (default "
                                         "causalarena/python:X.Y-SUITE, made from Debian packages when absent)")
    sp.set_defaults(func=cmd_build)
    sp = sub.add_parser("base-image", help="docker: make the Python base image from Debian packages (never pulled)",
                        description="debootstrap a minimal Debian whose python3 is this interpreter's X.Y and import "
                                    "it as causalarena/python:X.Y-SUITE (reused once built; needs root, "
                                    "debootstrap and a running engine)")
    sp.add_argument("--python", help="X.Y (default: the running interpreter's)")
    sp.add_argument("--suite", help="Debian suite (default: the one whose python3 is X.Y)")
    sp.add_argument("--mirror", help="Debian archive (default: $CAUSALARENA_DEBIAN_MIRROR, the host's apt source, "
                                     "deb.debian.org)")
    sp.add_argument("--force", action="store_true", help="rebuild even if the tag exists")
    sp.set_defaults(func=cmd_base_image)
    sp = sub.add_parser("list", help="list built environments")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_list)
    sp = sub.add_parser("prune", help="remove superseded, broken and incomplete environments")
    sp.add_argument("--all", action="store_true", help="remove every environment")
    sp.add_argument("--dry-run", action="store_true")
    sp.set_defaults(func=cmd_prune)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``arena sandbox``; returns the exit code (2 = usage error)."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return int(args.func(args) or 0)
    except SandboxError as exc:
        print(f"arena sandbox {args.command}: error: {exc}", file=sys.stderr)
        return 1


