"""CausalArena: benchmark causal discovery methods on executable SCMs.

The top-level package imports nothing heavy so that the worker
(``python -m causalarena.worker``) starts fast.
"""

__version__ = "0.8.0"  # the single source: core/pyproject.toml reads it (setuptools dynamic attr)
