"""CausalArena family ``formula``: shipped scenario cards plus a folder option (see README).

Importing the package reads no card and imports no part of the card engine
(the entry point :mod:`.plugin` is loaded for every ``arena`` command);
:class:`FormulaFamily` is imported on first access.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__version__ = "0.1.0"

#: the shipped cards, one folder per domain (the same folder as :data:`.family.CARDS_DIR`)
CARDS_DIR = Path(__file__).with_name("cards")

__all__ = ["CARDS_DIR", "FormulaFamily"]


def __getattr__(name: str) -> Any:
    if name == "FormulaFamily":
        from .family import FormulaFamily

        return FormulaFamily
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
