"""CausalArena family ``semantic``: shipped scenario cards plus a folder option (see README)."""

__version__ = "0.1.0"

from .family import CARDS_DIR, SemanticFamily

__all__ = ["CARDS_DIR", "SemanticFamily"]
