"""CausalArena family ``formula``: shipped scenario cards plus a folder option (see README)."""

from .family import CARDS_DIR, FormulaFamily

__all__ = ["CARDS_DIR", "FormulaFamily"]
