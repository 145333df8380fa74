"""CausalArena family ``semantic``: shipped scenario cards plus a folder option (see README)."""

from .family import CARDS_DIR, SemanticFamily

__all__ = ["CARDS_DIR", "SemanticFamily"]
