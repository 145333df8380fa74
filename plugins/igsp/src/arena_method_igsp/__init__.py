"""CausalArena plugin: IGSP (interventional greedy sparsest permutation) from ``graphical_model_learning``.

The descriptor lives in :mod:`arena_method_igsp.plugin`, the method in
:mod:`arena_method_igsp.method` (``graphical_model_learning`` and
``conditional_independence`` are imported in fit).
"""

__version__ = "0.1.0"
