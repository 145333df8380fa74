"""CausalArena plugin: NOTEARS and NOTEARS-MLP from gcastle 1.0.4 (``castle``).

Two methods in one distribution because both wrap the same library and share
one environment: ``notears`` (linear, Zheng et al. 2018) and ``notears_mlp``
(NOTEARS-MLP, Zheng et al. 2020). The descriptors live in
:mod:`arena_method_notears.plugin`, the methods in
:mod:`arena_method_notears.method` (castle and torch are imported in fit).
"""

__version__ = "0.1.0"
