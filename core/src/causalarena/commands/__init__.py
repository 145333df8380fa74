"""Built-in plugin: the core's ``arena`` subcommands (filled in by the small-core refactor)."""

from __future__ import annotations

from typing import Iterator

from ..hookspecs import hookimpl
from ..records import CommandInfo


@hookimpl
def arena_commands() -> Iterator[CommandInfo]:
    return iter(())
