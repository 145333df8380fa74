"""CausalArena plugin: DirectLiNGAM (Shimizu et al. 2011) from the ``lingam`` package.

The descriptor lives in :mod:`arena_method_direct_lingam.plugin`, the method in
:mod:`arena_method_direct_lingam.method` (lingam is imported in fit).
"""

__version__ = "0.1.0"
