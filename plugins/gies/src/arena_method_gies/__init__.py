"""CausalArena plugin: greedy interventional equivalence search (GIES) from the ``gies`` package.

The descriptor lives in :mod:`arena_method_gies.plugin`, the method in
:mod:`arena_method_gies.method` (``gies`` is imported in fit).
"""

__version__ = "0.1.0"
