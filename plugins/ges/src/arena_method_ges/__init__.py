"""CausalArena plugin: greedy equivalence search (GES, BIC score) from causal-learn.

The descriptor lives in :mod:`arena_method_ges.plugin`, the method in
:mod:`arena_method_ges.method` (causal-learn is imported in fit).
"""

__version__ = "0.1.0"
