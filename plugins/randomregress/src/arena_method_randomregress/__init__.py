"""CausalArena plugin: randomregress, the random-order regression control
(Reisach, Seiler & Weichwald, NeurIPS 2021; "RandomRegress" in CausalArena App. B.4).

The descriptor lives in :mod:`arena_method_randomregress.plugin`, the method
in :mod:`arena_method_randomregress.method` (scikit-learn is imported in fit).
"""

__version__ = "0.1.0"
