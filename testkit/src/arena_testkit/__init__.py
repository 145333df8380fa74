"""Conformance kit for method plugins (also a pytest plugin).

In the manner of scikit-learn's ``parametrize_with_checks``: a plugin's
conformance test is three lines::

    from arena_testkit import parametrize_method_checks

    @parametrize_method_checks("pc")
    def test_conformance(check):
        check()

Public API:

* :func:`method_checks` — ``(check_id, callable)`` pairs for one method.
* :func:`check_method` — run every check, raise on the first failure.
* :func:`parametrize_method_checks` — the pytest decorator above.
* :func:`family_checks`, :func:`check_family`,
  :func:`parametrize_family_checks` — the same for a family plugin
  (:data:`FAMILY_CHECKS`: listing, factor tags, dataset shapes and masks,
  true graph, finiteness, standardisation, both sortabilities of the raw
  table, a column order that is not the causal order, determinism,
  replicates, no truth leak, fingerprints).
* For a method or family of another task the same check ids run that task's
  rules (:meth:`causalarena.tasks.Task.method_checks` / ``family_checks``,
  e.g. ``arena_task_effect.testing``).
* :func:`make_linear_dataset`, :func:`make_chain_dataset` — small
  deterministic linear SCM tables with known truth (known-answer tests).
* :func:`run_offline` — run code in a fresh interpreter with the network refused (a family
  that reads shipped files must never download).
* :func:`array_sketch`, :func:`assert_sketch_close` — a fingerprint of a
  float table that a known-answer test can record once and compare on any
  machine (a content hash cannot: BLAS and SIMD kernels differ in the last
  bits from one CPU class to the next).

Every check is a real assertion and raises :class:`ConformanceError`
(an ``AssertionError``) naming the method, its distribution and the rule.
The checks resolve the method lazily (at call time), so an uninstalled
plugin shows up as failing checks, not as a collection error.

The modules: :mod:`._kit` (the machinery both kits share: check record,
resolver, failure message, checks list, pytest decorator, the rules every
plugin obeys), :mod:`.methods` and :mod:`.families` (each kit's rules),
:mod:`.data`
(known-answer tables and sketches). Import from ``arena_testkit``.

As a pytest plugin (entry point ``pytest11: arena_testkit``) this package adds
the ``arena_registry`` and ``chain_dataset`` fixtures. Importing it is cheap
(numpy and attrs only): pytest loads it in every session of an environment
where the kit is installed.

Its own distribution (``arena-testkit``, issue 22) rather than a module of the
core: a plugin needs it only to test itself, and the core's runtime install
stays the size of what an arena run uses.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the single source: testkit/pyproject.toml reads it

from typing import Any, Callable

from causalarena.data import Dataset

from . import _kit, data, families, methods, offline
from ._kit import *  # noqa: F403 - each module's __all__ is the public API
from .data import *  # noqa: F403
from .data import make_chain_dataset
from .families import *  # noqa: F403
from .methods import *  # noqa: F403
from .offline import *  # noqa: F403

__all__ = [*_kit.__all__, *data.__all__, *methods.__all__, *families.__all__, *offline.__all__]


# ---------------------------------------------------------------------------
# pytest plugin (entry point pytest11: causalarena)
# ---------------------------------------------------------------------------

def _fixture(fn: Callable) -> Callable:
    """Declare a pytest fixture without importing pytest when it is absent."""
    try:
        import pytest
    except ImportError:  # pragma: no cover - the kit works without pytest
        return fn
    return pytest.fixture(fn)


@_fixture
def arena_registry() -> Any:
    """The strict plugin registry (a broken entry point fails the test)."""
    from causalarena.plugins import get_registry

    return get_registry(strict=True)


@_fixture
def chain_dataset() -> Dataset:
    """4-variable uniform-noise linear chain, n = 500, seed 0 (truth included)."""
    return make_chain_dataset()


def pytest_configure(config: Any) -> None:
    """Register the ``conformance`` marker."""
    config.addinivalue_line("markers", "conformance: causalarena method and family conformance checks")
