"""Example third-party CausalArena method ``r2sortnregress`` (see the distribution's README).

The descriptor is in :mod:`.plugin` (cheap), the method in :mod:`.method`
(scikit-learn is imported in ``fit``).
"""

__version__ = "0.2.0"  # 0.2.0: R² ties within 1e-9 (relative) keep the column order
