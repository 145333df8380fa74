"""CausalArena plugin: SDCD (Nazaret et al. 2024) from the ``sdcd`` package.

The descriptor lives in :mod:`arena_method_sdcd.plugin`, the method in
:mod:`arena_method_sdcd.method` (``sdcd`` and ``torch`` are imported in fit).
"""

__version__ = "0.1.0"
