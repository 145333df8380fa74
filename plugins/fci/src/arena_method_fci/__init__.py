"""CausalArena plugin: FCI (Fisher-z) from causal-learn.

The descriptor lives in :mod:`arena_method_fci.plugin`, the method in
:mod:`arena_method_fci.method` (causal-learn is imported in fit).
"""

__version__ = "0.1.0"
