"""CausalArena family ``formula``: shipped scenario cards plus a folder option (see README)."""

__version__ = "0.1.0"

from .family import CARDS_DIR, FormulaFamily

__all__ = ["CARDS_DIR", "FormulaFamily"]
