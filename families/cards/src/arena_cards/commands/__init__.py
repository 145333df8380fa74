"""The card engine's ``arena`` subcommands, one module each (contributed by
:mod:`arena_cards.plugin` through ``arena_commands``):

- :mod:`.validate` — ``arena validate PATH …``: every gate of App. A.3 on card files or folders;
- :mod:`.card` — ``arena card show|render ID|PATH``: a card as a table, or its drawn graph.

Each module exposes ``configure(parser)`` (adds its arguments) and
``run(args) -> int`` (the exit code: 0 success, 1 a card failed, 2 bad
arguments). Shared helpers live here; errors follow the core's command
conventions (:class:`causalarena.commands.UsageError`: one line
``arena COMMAND: error: …`` on stderr, exit code 2).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence

# the core's command conventions: a UsageError is one line on stderr, exit code 2
from causalarena.commands import UsageError, parse_family_options

#: the attribute of the parsed arguments under which the ``arena`` frame passes its registry
REGISTRY_ATTR = "arena_registry"

__all__ = ["REGISTRY_ATTR", "UsageError", "console", "csv", "family_options", "registry", "usage_error"]


def usage_error(command: str, message: Any) -> int:
    """Print ``arena COMMAND: error: MESSAGE`` to stderr (the core CLI's convention) and return 2."""
    print(f"arena {command}: error: {message}", file=sys.stderr)
    return 2


def console():
    """A rich console; 200 columns when stdout is not a terminal (CI logs, pipes), as the core CLI's."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=200)


def csv(value: Optional[str]) -> Optional[List[str]]:
    """``"png, svg"`` → ``["png", "svg"]``; ``None`` or only commas → ``None``."""
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


def family_options(items: Sequence[str]) -> Dict[str, Dict[str, Any]]:
    """``--family-option`` values → ``{family: {key: value}}`` (the core's
    :func:`~causalarena.commands.parse_family_options`, the same rules as ``arena run``).

    Raises:
        UsageError: an item is not ``FAMILY.KEY=VALUE``.
    """
    return parse_family_options(items)


def registry(args: Any = None):
    """The registry the ``arena`` frame built for this invocation (``args.arena_registry``),
    or the default one when a command runs without the frame."""
    reg = getattr(args, REGISTRY_ATTR, None)
    if reg is not None:
        return reg
    from causalarena.plugins import default_registry

    return default_registry()
