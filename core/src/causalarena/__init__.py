"""CausalArena: benchmark causal discovery methods on executable SCMs.

The top-level package imports nothing heavy so that the worker
(``python -m causalarena.worker``) starts fast.
"""

__version__ = "0.4.0"  # keep equal to core/pyproject.toml (tested)
