"""CausalArena plugin: methods through the ``cdt`` package (CausalDiscoveryToolbox 0.6.0).

* ``sam`` — Structural Agnostic Modeling (pure Python + torch), :mod:`arena_method_cdt.method`;
* ``cdt_ges`` — GES from the R package pcalg, run by cdt through ``Rscript``,
  :mod:`arena_method_cdt.r_methods` (preflight: ``Rscript`` on PATH and pcalg installed,
  else :class:`causalarena.method.MethodEnvironmentError` → status ``env_error``).

The descriptors live in :mod:`arena_method_cdt.plugin`; ``cdt`` and ``torch`` are imported in fit.
"""

__version__ = "0.1.0"
