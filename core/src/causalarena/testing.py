"""Conformance kit for method plugins (also a pytest plugin).

In the manner of scikit-learn's ``parametrize_with_checks``: a plugin's
conformance test is three lines::

    from causalarena.testing import parametrize_method_checks

    @parametrize_method_checks("pc")
    def test_conformance(check):
        check()

Public API:

* :func:`method_checks` — ``(check_id, callable)`` pairs for one method.
* :func:`check_method` — run every check, raise on the first failure.
* :func:`parametrize_method_checks` — the pytest decorator above.
* :func:`make_linear_dataset`, :func:`make_chain_dataset` — small
  deterministic linear SCM tables with known truth (known-answer tests).

Every check is a real assertion and raises :class:`ConformanceError`
(an ``AssertionError``) naming the method, its distribution and the rule.
The checks resolve the method lazily (at call time), so an uninstalled
plugin shows up as failing checks, not as a collection error.

As a pytest plugin (entry point ``pytest11: causalarena``) this module adds
the ``arena_registry`` and ``chain_dataset`` fixtures. Importing it is cheap
(numpy and attrs only): pytest loads it in every session of an environment
where the core is installed.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from typing import Any, Callable, Dict, Iterator, List, Tuple, Union

import numpy as np

from .data import OBSERVATIONAL, Dataset
from .records import MethodInfo

__all__ = [
    "ConformanceError",
    "HEAVY_MODULES",
    "check_method",
    "make_chain_dataset",
    "make_linear_dataset",
    "method_checks",
    "parametrize_method_checks",
]

#: Top-level modules that a plugin's descriptor module must never import
#: (in addition to the plugin distribution's own requirements).
HEAVY_MODULES = (
    "torch", "tensorflow", "jax", "sklearn", "causallearn", "lingam", "dagma",
    "cdt", "rpy2", "castle", "avici", "pytorch_lightning", "lightning",
)

_NOISES = ("uniform", "gaussian", "laplace")


class ConformanceError(AssertionError):
    """A method violates the plugin contract; the message names the rule."""


# ---------------------------------------------------------------------------
# Known-answer data
# ---------------------------------------------------------------------------

def _noise(rng: np.random.Generator, kind: str, size: Tuple[int, ...]) -> np.ndarray:
    """Unit-variance zero-mean noise of the named kind."""
    if kind == "uniform":
        return rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), size=size)
    if kind == "gaussian":
        return rng.standard_normal(size=size)
    if kind == "laplace":
        return rng.laplace(0.0, 1.0 / np.sqrt(2.0), size=size)
    raise ValueError(f"noise must be one of {_NOISES}, got {kind!r}")


def _topological_order(adjacency: np.ndarray) -> List[int]:
    """Topological order of a 0/1 adjacency (row = parent).

    Raises:
        ValueError: the graph has a directed cycle (names one node on it).
    """
    import networkx as nx

    graph = nx.from_numpy_array(np.asarray(adjacency != 0, dtype=int), create_using=nx.DiGraph)
    try:
        # lexicographical order: deterministic for a given graph
        return list(nx.lexicographical_topological_sort(graph))
    except nx.NetworkXUnfeasible:
        cycle = nx.find_cycle(graph)
        raise ValueError(f"adjacency is not acyclic: cycle {cycle}") from None


def make_linear_dataset(
    adjacency: Any,
    n: int = 500,
    seed: int = 0,
    noise: str = "uniform",
    weights: Union[float, Any] = 1.0,
    n_int: int = 0,
    standardise: bool = False,
    scm_id: str = "linear",
) -> Dataset:
    """Sample a linear additive-noise SCM ``X_j = sum_i W[i, j] X_i + e_j``.

    Args:
        adjacency: (d × d) 0/1 DAG, row = parent.
        n: total rows (observational plus interventional).
        seed: seed of :func:`numpy.random.default_rng`; also stored as
            ``metadata["seed"]`` (the seed a method must use).
        noise: ``"uniform"`` (U(−√3, √3)), ``"gaussian"`` or ``"laplace"``,
            all zero mean and unit variance.
        weights: a scalar applied to every edge, or a (d × d) array (only
            entries on edges of ``adjacency`` are used).
        n_int: the last ``n_int`` rows are interventional: row k sets
            ``do(X_t := e)`` with target ``t = k mod d`` and fresh noise
            ``e`` of the same kind; descendants are recomputed
            (hard do-resampling, App. A.1 of the CausalArena paper).
        standardise: z-score each column after sampling.
        scm_id: stored in ``metadata["scm_id"]``.

    Returns:
        A :class:`Dataset` with ``X`` (n × d), ``true_adjacency`` (d × d),
        intervention mask/regime as above, and metadata ``family="testing"``,
        ``split`` (``"obs"`` if ``n_int == 0`` else ``"obs_int"``),
        ``replicate=0``, ``seed``, ``noise``, ``standardised``.

    Raises:
        ValueError: non-square or cyclic adjacency, bad shapes, unknown noise,
            ``n_int`` not in ``[0, n]``.
    """
    A = np.asarray(adjacency)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"adjacency must be square (d × d), got shape {A.shape}")
    A = (A != 0).astype(np.int8)
    d = A.shape[0]
    if np.any(np.diag(A)):
        raise ValueError("adjacency has self-loops on its diagonal")
    if not 0 <= n_int <= n:
        raise ValueError(f"n_int must be in [0, n={n}], got {n_int}")
    order = _topological_order(A)
    W = np.full((d, d), float(weights)) if np.ndim(weights) == 0 else np.asarray(weights, dtype=float)
    if W.shape != (d, d):
        raise ValueError(f"weights must be a scalar or (d × d) = {(d, d)}, got shape {W.shape}")
    W = W * A

    rng = np.random.default_rng(seed)
    E = _noise(rng, noise, (n, d))
    mask = np.zeros((n, d), dtype=bool)
    regime = np.full(n, OBSERVATIONAL, dtype=np.int64)
    targets = np.arange(n_int) % d if d else np.zeros(0, dtype=int)
    rows = np.arange(n - n_int, n)
    mask[rows, targets] = True
    regime[rows] = targets
    X = np.zeros((n, d))
    for j in order:
        X[:, j] = X @ W[:, j] + E[:, j]
        X[mask[:, j], j] = E[mask[:, j], j]  # do(X_j := e_j): parents cut
    if standardise:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return Dataset(
        X=X,
        columns=[f"X{j}" for j in range(d)],
        intervention_mask=mask,
        regime=regime,
        true_adjacency=A,
        metadata={
            "family": "testing", "scm_id": scm_id, "split": "obs_int" if n_int else "obs",
            "replicate": 0, "seed": int(seed), "noise": noise, "standardised": bool(standardise),
        },
    )


def make_chain_dataset(
    d: int = 4,
    n: int = 500,
    seed: int = 0,
    noise: str = "uniform",
    weight: float = 1.0,
    n_int: int = 0,
    standardise: bool = False,
) -> Dataset:
    """A linear chain ``X0 → X1 → … → X(d−1)`` (see :func:`make_linear_dataset`).

    With the defaults (weight 1, unit-variance noise, raw scale) the marginal
    variances are 1, 2, …, d: they increase along the causal order
    (varsortability 1, Reisach et al. 2021), and the noise is non-Gaussian,
    so LiNGAM-type methods can orient every edge.

    Returns:
        A :class:`Dataset`, ``X`` (n × d), ``true_adjacency[j, j+1] = 1``.
    """
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    A = np.eye(d, k=1, dtype=np.int8)
    return make_linear_dataset(A, n=n, seed=seed, noise=noise, weights=weight, n_int=n_int,
                               standardise=standardise, scm_id=f"chain-d{d}")


# ---------------------------------------------------------------------------
# Resolution
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _strict_registry() -> Any:
    from .plugins import get_registry

    return get_registry(strict=True)


def _resolve(name_or_info: Union[str, MethodInfo]) -> MethodInfo:
    if isinstance(name_or_info, MethodInfo):
        return name_or_info
    return _strict_registry().method(name_or_info)


def _who(info: MethodInfo) -> str:
    dist = f" ({info.distribution} {info.version})" if info.distribution else ""
    return f"method {info.name!r}{dist}"


def _fail(info: MethodInfo, rule: str) -> None:
    raise ConformanceError(f"{_who(info)}: {rule}")


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
    pred = est.prediction()
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

def check_registered(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Registered through an entry point, with distribution and version."""
    from .plugins import CORE_DISTRIBUTION
    from .method import Method

    reg = _strict_registry()
    if info.name not in reg.methods:
        _fail(info, f"not in the registry; installed: {sorted(reg.methods)}")
    rec = reg.methods[info.name]
    if not rec.distribution or rec.distribution in ("?", "<test>", CORE_DISTRIBUTION):
        _fail(rec, f"must come from its own distribution via the 'causalarena' entry point, "
                   f"got distribution {rec.distribution!r}")
    if not rec.version or rec.version == "?":
        _fail(rec, f"registered without a version ({rec.version!r})")
    try:
        cls = rec.load()
    except Exception as exc:
        raise ConformanceError(f"{_who(rec)}: factory {rec.factory!r} does not import: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Method)):
        _fail(rec, f"factory {rec.factory!r} is {cls!r}, not a causalarena.method.Method subclass")
    if cls.output_kind != rec.output_kind:
        _fail(rec, f"class output_kind {cls.output_kind!r} != descriptor output_kind {rec.output_kind!r}")


_CHEAP_SCRIPT = textwrap.dedent(
    """
    import importlib, json, sys
    args = json.loads(sys.argv[1])
    # modules every plugin may import: the core's plugin-facing API
    import causalarena.hookspecs, causalarena.records, causalarena.method, causalarena.data
    before = set(sys.modules)
    found = False
    for modname in args["modules"]:
        mod = importlib.import_module(modname)
        hook = getattr(mod, "arena_methods", None)
        if hook is not None:
            names = [rec.name for rec in hook()]
            found = found or args["name"] in names
    new = sorted({m.split(".")[0] for m in set(sys.modules) - before})
    print(json.dumps({"found": found, "new": new}))
    """
)


def _requirement_modules(distribution: str) -> List[str]:
    """Import names of a distribution's requirements (not those of the core)."""
    import re
    from importlib import metadata

    def reqs(dist: str) -> List[str]:
        try:
            return [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in (metadata.requires(dist) or [])
                    if "extra ==" not in r]
        except metadata.PackageNotFoundError:
            return []

    core = {r.lower().replace("_", "-") for r in reqs("causal-arena")}
    mine = {r.lower().replace("_", "-") for r in reqs(distribution)} - core - {"causal-arena"}
    modules = []
    for mod, dists in metadata.packages_distributions().items():
        if any(d.lower().replace("_", "-") in mine for d in dists):
            modules.append(mod)
    return modules


def check_descriptor_cheap(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Importing the plugin module and listing methods imports no heavy library.

    Runs in a fresh interpreter (``sys.modules`` of this one is polluted).
    Heavy = :data:`HEAVY_MODULES` plus the import names of the plugin
    distribution's own requirements that the core does not already need.
    """
    from .plugins import ENTRY_POINT_GROUP, entry_points

    modules = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        if dist is not None and dist.metadata["Name"] == info.distribution:
            modules.append(ep.value.split(":")[0])
    if not modules:
        _fail(info, f"no entry point in group {ENTRY_POINT_GROUP!r} belongs to distribution "
                    f"{info.distribution!r}")
    heavy = set(HEAVY_MODULES) | set(_requirement_modules(info.distribution))
    proc = subprocess.run(
        [sys.executable, "-c", _CHEAP_SCRIPT, json.dumps({"modules": modules, "name": info.name})],
        capture_output=True, text=True, timeout=120,
    )
    if proc.returncode != 0:
        _fail(info, f"importing plugin module(s) {modules} failed in a fresh interpreter:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not out["found"]:
        _fail(info, f"plugin module(s) {modules} do not yield a MethodInfo named {info.name!r}")
    leaked = sorted(heavy & set(out["new"]))
    if leaked:
        _fail(info, f"importing the descriptor module(s) {modules} imported heavy "
                    f"module(s) {leaked}; import them inside fit()")


def check_get_params(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Constructor stores params unchanged; get_params round-trips; defaults match the descriptor."""
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


def _skip(message: str) -> None:
    """Skip the current check: ``pytest.skip`` inside a pytest test, else return (check passes)."""
    if os.environ.get("PYTEST_CURRENT_TEST"):
        import pytest

        pytest.skip(message)


def check_deterministic(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Two fresh fits on identical data (same metadata seed) give identical output."""
    a = _fit(info, params, _reference_dataset())
    b = _fit(info, params, _reference_dataset())
    if not np.array_equal(np.asarray(a.adjacency_), np.asarray(b.adjacency_)):
        _fail(info, "two fits with the same metadata['seed'] gave different adjacency_; "
                    "seed all randomness from dataset.metadata['seed']")
    sa, sb = getattr(a, "edge_scores_", None), getattr(b, "edge_scores_", None)
    if (sa is None) != (sb is None) or (sa is not None and not np.array_equal(sa, sb)):
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


class _Check:
    """A bound check: callable with no arguments, readable repr for pytest ids."""

    def __init__(self, name: Union[str, MethodInfo], check_id: str,
                 fn: Callable[[MethodInfo, Dict[str, Any]], None], params: Dict[str, Any]) -> None:
        self.name, self.check_id, self.fn, self.params = name, check_id, fn, params

    def __call__(self) -> None:
        self.fn(_resolve(self.name), dict(self.params))

    def __repr__(self) -> str:
        label = self.name if isinstance(self.name, str) else self.name.name
        return f"{label}:{self.check_id}"


def method_checks(name_or_info: Union[str, MethodInfo], **params: Any) -> Iterator[Tuple[str, Callable[[], None]]]:
    """Yield ``(check_id, check)`` for one method; ``check()`` raises on failure.

    Args:
        name_or_info: a registered method name (resolved lazily through the
            strict registry) or a :class:`MethodInfo`.
        **params: constructor parameters (defaults of the class otherwise).
    """
    for check_id, fn in CHECKS:
        yield check_id, _Check(name_or_info, check_id, fn, params)


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
    """
    import pytest

    if not names:
        raise ValueError("parametrize_method_checks() needs at least one method name")
    checks: List[_Check] = []
    for name in names:
        checks.extend(c for _, c in method_checks(name, **params))  # type: ignore[misc]
    return pytest.mark.parametrize("check", checks, ids=[repr(c) for c in checks])


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
    from .plugins import get_registry

    return get_registry(strict=True)


@_fixture
def chain_dataset() -> Dataset:
    """4-variable uniform-noise linear chain, n = 500, seed 0 (truth included)."""
    return make_chain_dataset()


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "conformance: causalarena method conformance checks")
