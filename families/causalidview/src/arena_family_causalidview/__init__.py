"""CausalArena effect family ``causalidview``: the CausalIDView synthetic worlds.

One world is one SCM and one complete realization of 1,124 units; its five
observational views (``bd``, ``fd``, ``iv``, ``px``, ``hc``) are projections
of that realization (CausalIDView §4.1, App. C). The descriptor lives in
:mod:`.plugin` (cheap), the generator in :mod:`.scm`, the analytic
identification functionals and the App. D audit in :mod:`.functionals`, the
family and its instances in :mod:`.family`.
"""

__version__ = "0.1.0"
