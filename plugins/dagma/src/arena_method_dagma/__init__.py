"""CausalArena plugin: DAGMA, linear model (Bello, Aragam & Ravikumar 2022) from the ``dagma`` package.

The descriptor lives in :mod:`arena_method_dagma.plugin`, the method in
:mod:`arena_method_dagma.method` (dagma is imported in fit).
"""

__version__ = "0.1.0"
