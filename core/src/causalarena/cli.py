"""The ``arena`` command line: the frame every subcommand plugs into.

Subcommands are :class:`~causalarena.records.CommandInfo` records from the
hook ``arena_commands`` (:mod:`causalarena.hookspecs`). The core's own come
from the built-in plugin :mod:`causalarena.commands`::

    arena plugins [--json] [--strict]      everything installed, with distribution and version
    arena methods | families [--json]      the installed methods / families
    arena show FAMILY[/SCM_ID]             an SCM spec as JSON (or the family's instance ids)
    arena run [options]                    run the grid, resume, print the leaderboard
    arena audit FAMILY                     regenerate + audit a family's SCMs (App. A.2)
    arena report [--results DIR]           the leaderboard of a results folder
    arena rescore [--results DIR]          recompute metrics from the stored predictions

``sandbox`` comes from arena-sandbox; ``validate`` and ``card`` from
arena-cards; ``export`` from arena-export. ``arena --help`` is built from the records alone; a command's
factory is imported (and its ``configure(parser)`` called) only when that
command runs, so a command whose module fails to import breaks only itself.
A passthrough command (``CommandInfo.passthrough``) gets the rest of the
command line, ``--help`` included, as ``main(argv)``.

Exit codes: 0 success, 1 runtime failure, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import traceback
from typing import Any, Dict, Iterable, Optional, Sequence

from .commands._common import (  # noqa: F401 - re-exported
    PLUGIN_OPTIONS_ATTR,
    REGISTRY_ATTR,
    UsageError,
    parse_family_options,
)

#: where build_parser leaves {command name: its subparser} on the parsed namespace
SUBPARSERS_ATTR = "_arena_subparsers"

#: Commands this project's other distributions provide, for the error of one that is not installed
#: (data only: the core imports none of them).
KNOWN_COMMANDS = {
    "sandbox": ("arena-sandbox", "./sandbox"),
    "validate": ("arena-cards", "./families/cards"),
    "card": ("arena-cards", "./families/cards"),
    "export": ("arena-export", "./export"),
}
#: Options this project's other distributions add to a command (hook ``arena_addoption``), for the error
#: of one given while its distribution is not installed (data only).
KNOWN_OPTIONS = {("report", o): "arena-diagnosis" for o in (
    "--analyses", "--list-analyses", "--factors", "--reference", "--runtime")}


def load_command(info) -> Any:
    """The command object of ``info`` (a module or object), imported now.

    Raises:
        PluginLoadError: the factory does not import, or lacks ``configure`` and
            ``run`` (``main`` for a passthrough command); the message names the
            command and its distribution.
    """
    from .plugins import PluginLoadError

    where = f"command {info.name!r} of {info.distribution} {info.version}".rstrip()
    try:
        obj = info.load()
    except Exception as exc:  # noqa: BLE001 - reported in one line naming the distribution
        msg = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        raise PluginLoadError(f"{where} failed to load ({info.factory}): {msg}") from exc
    needed = ("main",) if info.passthrough else ("configure", "run")
    missing = [n for n in needed if not callable(getattr(obj, n, None))]
    if missing:
        raise PluginLoadError(f"{where}: {info.factory} has no {', '.join(m + '()' for m in missing)}")
    return obj


def _ordered(commands):
    """The core's commands first (in their order), then the others by distribution (each in its order)."""
    from .plugins import CORE_DISTRIBUTION

    items = list(commands.items())
    return sorted(items, key=lambda kv: (kv[1].distribution != CORE_DISTRIBUTION, kv[1].distribution))


def build_parser(registry=None, configure: Iterable[str] = ()) -> argparse.ArgumentParser:
    """The ``arena`` parser: one subparser per installed command, with its one-line help.

    Args:
        registry: the :class:`~causalarena.plugins.Registry` (default: the process's :func:`~causalarena.plugins.default_registry`).
        configure: names of the commands whose arguments are added (their
            factories are imported and ``configure(subparser)`` called; the
            command object's ``run`` becomes ``args.func``). The others parse
            nothing, which is all ``arena --help`` needs.

    Raises:
        PluginLoadError: a command in ``configure`` does not load (see :func:`load_command`).
    """
    if registry is None:  # the process's one registry: the SCM compiler resolves components through it too
        from .plugins import default_registry

        registry = default_registry()
    wanted = set(configure)
    epilog = None
    if registry.errors:
        epilog = f"{len(registry.errors)} plugin error(s); `arena plugins` lists them"
    # allow_abbrev=False: `--method pc` must not silently mean `--methods pc` (nor `--family` `--family-option`)
    p = argparse.ArgumentParser(prog="arena", epilog=epilog, allow_abbrev=False,
                                description="CausalArena: benchmark causal discovery methods on executable SCMs "
                                            "under one shared protocol, and effect estimators across "
                                            "observational views (--task effect).")
    from . import __version__

    p.add_argument("--version", action="version", version=f"arena (causal-arena) {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    subparsers: Dict[str, argparse.ArgumentParser] = {}
    for name, info in _ordered(registry.commands):
        sp = sub.add_parser(name, help=info.help, description=info.description or info.help or None,
                            add_help=not info.passthrough, allow_abbrev=False)
        subparsers[name] = sp
        if name in wanted and not info.passthrough:
            command = load_command(info)
            try:
                command.configure(sp)
            except Exception as exc:  # noqa: BLE001 - a plugin's bug, named
                from .plugins import PluginLoadError

                raise PluginLoadError(f"command {name!r} of {info.distribution} {info.version}: "
                                      f"configure() raised {type(exc).__name__}: {exc}") from exc
            from .plugins import add_options

            # the plugins' own options of this command (hook arena_addoption); the command reads them by dest
            sp.set_defaults(func=command.run, **{PLUGIN_OPTIONS_ATTR: add_options(registry, name, sp)})
    p.set_defaults(**{SUBPARSERS_ATTR: subparsers})
    return p


def _dispatch(argv: Sequence[str], name: str, registry) -> int:
    if registry is None:  # the process's one registry: the SCM compiler resolves components through it too
        from .plugins import default_registry

        registry = default_registry()
    info = registry.commands.get(name)
    if info is None and name in KNOWN_COMMANDS:
        dist, folder = KNOWN_COMMANDS[name]
        raise UsageError(f"the {name} command comes with {dist}: pip install {dist} "
                         f"(in this repository: pip install {folder})")
    if info is not None and info.passthrough:  # everything after the name belongs to the command (incl. --help)
        return int(load_command(info).main(list(argv[1:])) or 0)
    parser = build_parser(registry, configure=[name] if info is not None else ())
    args, extra = parser.parse_known_args(list(argv))
    if extra:  # reported by the subcommand's own parser (its usage), with the closest option
        sp = getattr(args, SUBPARSERS_ATTR, {}).get(name, parser)
        options = [o for action in sp._actions for o in action.option_strings]  # noqa: SLF001 - argparse API
        close = [difflib.get_close_matches(e.split("=")[0], options, n=1) for e in extra if e.startswith("-")]
        hint = "; did you mean " + ", ".join(repr(c[0]) for c in close if c) + "?" if any(close) else ""
        for opt in dict.fromkeys(e.split("=")[0] for e in extra):
            if (name, opt) in KNOWN_OPTIONS:
                hint += f"; {opt} comes with {KNOWN_OPTIONS[name, opt]} (pip install {KNOWN_OPTIONS[name, opt]})"
        sp.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    delattr(args, SUBPARSERS_ATTR)
    setattr(args, REGISTRY_ATTR, registry)
    return int(args.func(args) or 0)


def main(argv: Optional[Sequence[str]] = None, registry=None) -> int:
    """Run ``arena`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    Args:
        registry: use this :class:`~causalarena.plugins.Registry` instead of
            discovering one (tests: ``get_registry(extra_plugins=[...])``);
            commands asked for ``--strict`` still build their own.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    name = argv[0] if argv and not argv[0].startswith("-") else ""
    prog = f"arena {name}" if name else "arena"
    try:
        return _dispatch(argv, name, registry)
    except UsageError as exc:
        if os.environ.get("CAUSALARENA_DEBUG") and exc.__context__ is not None:
            traceback.print_exception(type(exc.__context__), exc.__context__, exc.__context__.__traceback__)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"{prog}: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except PermissionError as exc:  # e.g. a reserved configuration without the operator key
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `arena plugins --json | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - one line naming the error; the traceback on request
        from .plugins import PluginError

        if os.environ.get("CAUSALARENA_DEBUG"):
            raise
        kind = "plugin error" if isinstance(exc, PluginError) else f"error ({type(exc).__name__})"
        print(f"{prog}: {kind}: {exc}\n(set CAUSALARENA_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
