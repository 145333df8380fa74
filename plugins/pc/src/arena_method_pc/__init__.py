"""CausalArena plugin: the PC algorithm (stable PC, Fisher-z) from causal-learn.

The descriptor lives in :mod:`arena_method_pc.plugin`, the method in
:mod:`arena_method_pc.method` (causal-learn is imported in fit).
"""

__version__ = "0.1.0"
