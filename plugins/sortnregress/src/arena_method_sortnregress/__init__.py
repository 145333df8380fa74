"""CausalArena plugin: sortnregress (Reisach, Seiler & Weichwald, NeurIPS 2021).

The descriptor lives in :mod:`arena_method_sortnregress.plugin`, the method
in :mod:`arena_method_sortnregress.method` (scikit-learn is imported in fit).
"""

__version__ = "0.2.0"  # 0.2.0: variance ties within 1e-9 (relative) keep the column order
