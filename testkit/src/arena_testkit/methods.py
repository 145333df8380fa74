"""The method conformance kit: the rules a method plugin obeys, as checks.

In the manner of scikit-learn's ``parametrize_with_checks``; the checks
(:data:`CHECKS`, in order): registered, descriptor_cheap, get_params,
fit_output, deterministic, ignores_true_adjacency, refit_independent,
obs_table. Each takes ``(info, params)`` — the :class:`MethodInfo` and the
constructor parameters — and raises :class:`ConformanceError` naming the
method, its distribution and the rule. The reference data is a 4-variable
linear non-Gaussian chain (:func:`make_chain_dataset`, n = 500, seed 0,
without its truth).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, Tuple, Union

import numpy as np

from causalarena.data import OBSERVATIONAL, Dataset
from causalarena.records import MethodInfo

from ._kit import (
    ConformanceError,
    Subject,
    _descriptor_cheap,
    _fail,
    _registered,
    _skip,
    _who,
    parametrize,
    subject_checks,
)
from .data import make_chain_dataset

__all__ = [
    "CHECKS", "check_descriptor_cheap", "check_deterministic", "check_fit_output", "check_get_params",
    "check_ignores_true_adjacency", "check_method", "check_obs_table", "check_refit_independent", "check_registered",
    "method_checks", "parametrize_method_checks",
]

def _build(info: MethodInfo, params: Dict[str, Any]) -> Any:
    cls = info.load()
    return cls(**params)


def _reference_dataset() -> Dataset:
    """4-variable linear non-Gaussian chain, n = 500, seed 0, no truth."""
    return make_chain_dataset(d=4, n=500, seed=0, noise="uniform").without_truth()


def _fit(info: MethodInfo, params: Dict[str, Any], dataset: Dataset) -> Any:
    est = _build(info, params)
    try:
        out = est.fit(dataset)
    except Exception as exc:
        raise ConformanceError(
            f"{_who(info)}: fit raised {type(exc).__name__}: {exc} on the reference "
            f"dataset (n={dataset.n}, d={dataset.d}, split={dataset.metadata.get('split')})"
        ) from exc
    if out is not est:
        _fail(info, f"fit() must return self, returned {type(out).__name__}")
    return est


def _validate_output(info: MethodInfo, est: Any, d: int) -> np.ndarray:
    """Shape/value/graph rules of ``adjacency_`` and ``edge_scores_``."""
    if not hasattr(est, "adjacency_"):
        _fail(info, "fit() did not set adjacency_")
    A = np.asarray(est.adjacency_)
    if A.shape != (d, d):
        _fail(info, f"adjacency_ has shape {A.shape}, expected (d × d) = {(d, d)}")
    if not np.all(np.isin(A, (0, 1))):
        bad = sorted(set(np.unique(A).tolist()) - {0, 1})
        _fail(info, f"adjacency_ must contain only 0/1 (row = parent), found values {bad}")
    A = A.astype(np.int8)
    if np.any(np.diag(A)):
        _fail(info, f"adjacency_ has self-loops at {np.flatnonzero(np.diag(A)).tolist()}")
    kind = info.output_kind
    if kind == "dag":
        two = np.argwhere(np.triu(A & A.T))
        if len(two):
            i, j = two[0]
            _fail(info, f"output_kind 'dag' but adjacency_ has the 2-cycle {i} <-> {j}")
        _assert_acyclic(info, A, "adjacency_")
    elif kind == "cpdag":
        directed = A & (1 - A.T)  # undirected edges are the symmetric pairs
        _assert_acyclic(info, directed, "the directed part of the cpdag adjacency_")
    scores = getattr(est, "edge_scores_", None)
    if scores is not None:
        S = np.asarray(scores, dtype=float)
        if S.shape != (d, d):
            _fail(info, f"edge_scores_ has shape {S.shape}, expected {(d, d)}")
        if not np.all(np.isfinite(S)):
            _fail(info, f"edge_scores_ has {int((~np.isfinite(S)).sum())} non-finite entries")
    pred = est.prediction(kind=info.output_kind)
    if pred.kind != info.output_kind:
        _fail(info, f"prediction().kind is {pred.kind!r} but the descriptor says {info.output_kind!r}")
    return A


def _assert_acyclic(info: MethodInfo, A: np.ndarray, what: str) -> None:
    import networkx as nx

    graph = nx.from_numpy_array(np.asarray(A, dtype=int), create_using=nx.DiGraph)
    if not nx.is_directed_acyclic_graph(graph):
        _fail(info, f"{what} has a directed cycle: {nx.find_cycle(graph)}")


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------

def check_registered(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Registered through an entry point, with distribution and version; the factory is a Method
    subclass whose ``output_kind`` (when set) is the descriptor's."""
    from causalarena.method import Method

    rec, cls = _registered(info, "methods", Method)
    if cls.output_kind is not None and cls.output_kind != rec.output_kind:
        _fail(rec, f"class output_kind {cls.output_kind!r} != descriptor output_kind {rec.output_kind!r}")


def check_descriptor_cheap(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Importing the plugin module and listing methods imports no heavy library.

    Runs in a fresh interpreter (``sys.modules`` of this one is polluted).
    Heavy = :data:`HEAVY_MODULES` plus the import names of the plugin
    distribution's own requirements that the core does not already need.
    """
    _descriptor_cheap(info, "arena_methods", "causalarena.method", "import them inside fit()")


def _check_params_roundtrip(info: MethodInfo, params: Dict[str, Any]) -> None:
    """The constructor stores ``params`` unchanged (identity) and ``get_params`` round-trips them."""
    est = _build(info, params)
    got = est.get_params()
    for key, value in params.items():
        if key not in got:
            _fail(info, f"get_params() lacks constructor parameter {key!r}")
        if got[key] is not value:
            _fail(info, f"__init__ must store {key}={value!r} unchanged, get_params() gives {got[key]!r}")
    again = _build(info, got).get_params()
    if again.keys() != got.keys() or any(not _same(again[k], got[k]) for k in got):
        _fail(info, f"get_params() does not round-trip: {got!r} -> {again!r}")

def check_get_params(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Constructor stores params unchanged; get_params round-trips; defaults match the descriptor."""
    _check_params_roundtrip(info, params)
    defaults = _build(info, {}).get_params()
    for key, value in info.params.items():
        if key not in defaults:
            _fail(info, f"descriptor param {key!r} is not a constructor parameter ({sorted(defaults)})")
        if not _same(defaults[key], value):
            _fail(info, f"descriptor param {key}={value!r} differs from the constructor default "
                        f"{defaults[key]!r}")

def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else a == b
    except Exception:  # noqa: BLE001 - incomparable values are different
        return False

def check_fit_output(info: MethodInfo, params: Dict[str, Any]) -> None:
    """fit returns self; adjacency_/edge_scores_ obey the output rules; input and params untouched.

    Reference data: 4-variable linear chain, uniform noise, n = 500, seed 0,
    ``true_adjacency=None``.
    """
    ds = _reference_dataset()
    X_before = ds.X.copy()
    est = _build(info, params)
    params_before = {k: repr(v) for k, v in est.get_params().items()}
    out = est.fit(ds)
    if out is not est:
        _fail(info, f"fit() must return self, returned {type(out).__name__}")
    _validate_output(info, est, ds.d)
    if not np.array_equal(ds.X, X_before):
        _fail(info, "fit() modified dataset.X in place; copy before mutating")
    params_after = {k: repr(v) for k, v in est.get_params().items()}
    if params_after != params_before:
        changed = sorted(k for k in params_before if params_before[k] != params_after.get(k))
        _fail(info, f"fit() changed constructor parameters {changed}; store learned state in *_ attributes")

def check_deterministic(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Two fresh fits on identical data (same metadata seed) give identical output."""
    a = _fit(info, params, _reference_dataset())
    b = _fit(info, params, _reference_dataset())
    if not np.array_equal(np.asarray(a.adjacency_), np.asarray(b.adjacency_)):
        _fail(info, "two fits with the same metadata['seed'] gave different adjacency_; "
                    "seed all randomness from dataset.metadata['seed']")
    sa, sb = getattr(a, "edge_scores_", None), getattr(b, "edge_scores_", None)
    if (sa is None) != (sb is None) or (sa is not None and sb is not None and not np.array_equal(sa, sb)):
        _fail(info, "two fits with the same metadata['seed'] gave different edge_scores_")

def check_ignores_true_adjacency(info: MethodInfo, params: Dict[str, Any]) -> None:
    """The method does not read ``dataset.true_adjacency``.

    Fits once with ``true_adjacency=None`` and once with a wrong "truth"
    (the reversed chain); the outputs must be identical.
    """
    import attrs

    base = _reference_dataset()
    decoy = attrs.evolve(base, true_adjacency=np.eye(base.d, k=-1, dtype=np.int8))
    a = _fit(info, params, base)
    again = _fit(info, params, base)
    if not np.array_equal(np.asarray(a.adjacency_), np.asarray(again.adjacency_)):
        # a non-deterministic method differs anyway: the check cannot tell (the
        # `deterministic` check reports the real fault)
        _skip(f"{info.name}: cannot tell whether the output depends on the truth: "
              "the method is not deterministic (see the `deterministic` check)")
        return
    b = _fit(info, params, decoy)
    if not np.array_equal(np.asarray(a.adjacency_), np.asarray(b.adjacency_)):
        _fail(info, "output depends on dataset.true_adjacency; a method must never read the truth")

def check_refit_independent(info: MethodInfo, params: Dict[str, Any]) -> None:
    """One estimator fitted on dataset A and then B gives what a fresh one gives on B.

    scikit-learn's convention: ``fit`` starts from the constructor parameters
    and forgets earlier fits. (The arena's worker builds a fresh estimator per
    dataset, so a stateful method cannot skew a leaderboard; this check tells
    its author, because the method would behave differently elsewhere.)
    """
    first = make_chain_dataset(d=4, n=500, seed=7, noise="laplace").without_truth()
    second = _reference_dataset()
    reused = _build(info, params)
    reused.fit(first)
    reused.fit(second)
    fresh = _fit(info, params, second)
    if not np.array_equal(np.asarray(reused.adjacency_), np.asarray(fresh.adjacency_)):
        _fail(info, "fit() on a second dataset depends on an earlier fit (state kept between fits); "
                    "reset learned state at the start of fit()")

def check_obs_table(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Accepts an obs-only table (all-False mask, regime −1); an interventional method also an obs+int table."""
    ds = _reference_dataset()
    if ds.has_interventions or np.any(ds.regime != OBSERVATIONAL):
        raise AssertionError("reference dataset must be observational")  # pragma: no cover
    est = _fit(info, params, ds)
    _validate_output(info, est, ds.d)
    if info.supports_interventions:
        ds_int = make_chain_dataset(d=4, n=500, seed=0, noise="uniform", n_int=100).without_truth()
        est = _fit(info, params, ds_int)
        _validate_output(info, est, ds_int.d)


#: (check_id, check) in the order they run.
CHECKS: Tuple[Tuple[str, Callable[[MethodInfo, Dict[str, Any]], None]], ...] = (
    ("registered", check_registered),
    ("descriptor_cheap", check_descriptor_cheap),
    ("get_params", check_get_params),
    ("fit_output", check_fit_output),
    ("deterministic", check_deterministic),
    ("ignores_true_adjacency", check_ignores_true_adjacency),
    ("refit_independent", check_refit_independent),
    ("obs_table", check_obs_table),
)

#: the method kit (:mod:`arena_testkit._kit`); a task's kit adds its runner to ``METHODS.tasks``
METHODS = Subject(what="method", record=MethodInfo, checks=CHECKS)


def method_checks(name_or_info: Union[str, MethodInfo], **params: Any) -> Iterator[Tuple[str, Callable[[], None]]]:
    """Yield ``(check_id, check)`` for one method; ``check()`` raises on failure.

    Args:
        name_or_info: a registered method name (resolved lazily through the
            strict registry) or a :class:`MethodInfo`.
        **params: constructor parameters (defaults of the class otherwise).
    """
    return subject_checks(METHODS, name_or_info, params)


def check_method(name_or_info: Union[str, MethodInfo], **params: Any) -> None:
    """Run every conformance check; raise :class:`ConformanceError` on the first failure.

    Raises:
        ConformanceError: a rule is violated (the message names method and rule).
        KeyError: the method is not registered (lists the installed ones).
        causalarena.plugins.PluginLoadError: some entry point fails to import.
    """
    for _, check in method_checks(name_or_info, **params):
        check()


def parametrize_method_checks(*names: Union[str, MethodInfo], **params: Any) -> Callable[[Callable], Callable]:
    """``pytest.mark.parametrize("check", ...)`` over every check of every named method.

    Test ids are ``<method>:<check_id>``.

    Raises:
        ValueError: no method name given.
    """
    return parametrize(METHODS, names, params)
