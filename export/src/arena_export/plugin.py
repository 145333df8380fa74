"""Entry point ``causalarena: export`` of ``arena-export``: the ``arena export`` command.

A descriptor only: :mod:`arena_export.command` (and pyarrow) load when
``arena export`` runs, not when ``arena`` lists its commands.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import CommandInfo


@hookimpl
def arena_commands() -> Iterator[CommandInfo]:
    """Yield ``arena export`` (:mod:`arena_export.command`)."""
    help = "export datasets (Parquet), specs (JSON), adjacency (CSV), audit records and release.json"
    yield CommandInfo(name="export", factory="arena_export.command", help=help, description=help)
