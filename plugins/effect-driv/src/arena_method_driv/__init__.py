"""CausalArena plugin: ForestDRIV (Syrgkanis et al. 2019) from econml, for the ``iv`` view.

The descriptor lives in :mod:`arena_method_driv.plugin` (cheap), the estimator in
:mod:`arena_method_driv.method` (econml is imported in fit).
"""

__version__ = "0.1.0"
