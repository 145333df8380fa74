"""Built-in plugin: the core's basic set of SCM components (filled in by the small-core refactor)."""

from __future__ import annotations

from typing import Iterator

from .hookspecs import hookimpl
from .records import ComponentInfo


@hookimpl
def arena_components() -> Iterator[ComponentInfo]:
    return iter(())
