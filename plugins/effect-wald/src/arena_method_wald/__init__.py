"""CausalArena plugin: the conditional Wald CATE estimator for a binary instrument (CausalIDView App. E.2.2).

The descriptors live in :mod:`arena_method_wald.plugin`, the estimator in
:mod:`arena_method_wald.method` (the backbones are imported in fit).
"""

__version__ = "0.1.0"
