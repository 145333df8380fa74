"""CausalArena family ``causalidview_pi``: the partial-identification companion of CausalIDView (App. C.5).

The descriptor lives in :mod:`arena_family_causalidview_pi.plugin`; the SCM,
its worlds, views and oracle identified sets in
:mod:`arena_family_causalidview_pi.family` (numpy and scipy are imported there).
"""

__version__ = "0.1.0"
