"""The card engine's ``arena`` subcommands, one module each (contributed by
:mod:`arena_cards.plugin` through ``arena_commands``):

- :mod:`.validate` — ``arena validate PATH …``: every gate of App. A.3 on card files or folders;
- :mod:`.card` — ``arena card show|render ID|PATH``: a card as a table, or its drawn graph;
  ``arena card audit [PATH …]``: the pool's near-duplicate audit; ``arena card seal FOLDER``: the reserved half.

Each module exposes ``configure(parser)`` (adds its arguments) and
``run(args) -> int`` (the exit code: 0 success, 1 a card failed, 2 bad
arguments). Shared helpers live here; errors follow the core's command
conventions (:class:`causalarena.commands.UsageError`: one line
``arena COMMAND: error: …`` on stderr, exit code 2).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

# the core's command conventions and helpers: a UsageError is one line on stderr, exit code 2
from causalarena.commands import UsageError, add_family_option, comma_list, console, parse_family_options

#: the attribute of the parsed arguments under which the ``arena`` frame passes its registry
REGISTRY_ATTR = "arena_registry"

__all__ = ["REGISTRY_ATTR", "UsageError", "add_family_option", "comma_list", "console", "parse_family_options",
           "registry", "run_command", "usage_error"]


def usage_error(command: str, message: Any) -> int:
    """Print ``arena COMMAND: error: MESSAGE`` to stderr (the core CLI's convention) and return 2."""
    print(f"arena {command}: error: {message}", file=sys.stderr)
    return 2


def run_command(command: str, body: Callable[[Any], int], args: Any) -> int:
    """``body(args)``, its exit code; a :class:`UsageError` it raises, or a :class:`PermissionError`
    (:class:`arena_cards.seal.ReservedKeyError`: a sealed card without the reserved key), becomes
    :func:`usage_error` (exit code 2)."""
    try:
        return body(args)
    except (UsageError, PermissionError) as exc:
        return usage_error(command, exc)


def registry(args: Any = None):
    """The registry the ``arena`` frame built for this invocation (``args.arena_registry``),
    or the default one when a command runs without the frame."""
    reg = getattr(args, REGISTRY_ATTR, None)
    if reg is not None:
        return reg
    from causalarena.plugins import default_registry

    return default_registry()
