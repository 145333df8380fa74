"""CausalArena plugin: the front-door plug-in CATE estimator (Pearl 2022; Guo et al. 2023; CausalIDView App. E.2.2).

The descriptors live in :mod:`arena_method_frontdoor.plugin`, the estimator in
:mod:`arena_method_frontdoor.method` (the backbones are imported in fit).
"""

__version__ = "0.1.0"
