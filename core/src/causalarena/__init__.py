"""CausalArena: benchmark causal discovery methods on executable SCMs.

The top-level package imports nothing heavy so that the worker
(``python -m causalarena.worker``) starts fast.
"""

__version__ = "0.9.0"  # the single source: core/pyproject.toml reads it (setuptools dynamic attr)


def __getattr__(name: str):
    """``causalarena.run`` / ``open`` / ``Results`` (:mod:`causalarena.api`), imported on first use (PEP 562)."""
    if name in ("run", "open", "Results"):
        import importlib  # not `from . import api`: the package itself stays below every layer

        return getattr(importlib.import_module("causalarena.api"), name)
    raise AttributeError(f"module 'causalarena' has no attribute {name!r}")
