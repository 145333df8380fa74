"""CausalArena plugin: the P-learner for proximal CATE estimation with binary proxies (Sverdrup & Cui 2023;
CausalIDView App. E.2.2).

The descriptors live in :mod:`arena_method_plearner.plugin`, the estimator in
:mod:`arena_method_plearner.method` (the backbones are imported in fit).
"""

__version__ = "0.1.0"
