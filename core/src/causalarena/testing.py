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
* :func:`array_sketch`, :func:`assert_sketch_close` — a fingerprint of a
  float table that a known-answer test can record once and compare on any
  machine (a content hash cannot: BLAS and SIMD kernels differ in the last
  bits from one CPU class to the next).

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
from typing import Any, Callable, Dict, Iterator, List, NoReturn, Optional, Tuple, Union

import numpy as np

from .data import OBSERVATIONAL, Dataset
from .records import DISCOVERY, MethodInfo, resolve

__all__ = [
    "ConformanceError",
    "HEAVY_MODULES",
    "array_sketch",
    "assert_sketch_close",
    "check_family",
    "check_method",
    "family_checks",
    "forward_path_share",
    "make_chain_dataset",
    "make_linear_dataset",
    "method_checks",
    "parametrize_family_checks",
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


def array_sketch(values: Any) -> Dict[str, Any]:
    """A machine-independent fingerprint of a float table (n × k).

    Per column: the sum, the sum of squares and a signed sum (rows weighted by
    fixed ±1 signs drawn from ``default_rng(0)``, so a row permutation changes
    it), over the finite entries; the positions of the non-finite entries are
    hashed exactly. Recorded once as JSON, it is compared with
    :func:`assert_sketch_close`. Why not a SHA-256 of the bytes: the same code
    gives float results that differ in the last bits on another CPU class
    (OpenBLAS picks its kernels by CPU, numpy its SIMD loops), measured here at
    ≤ 6e-14 × the column's standard deviation; a code change moves the sums by
    orders of magnitude more.

    Args:
        values: an array of n rows (1-D arrays are one column), cast to float64.

    Returns:
        ``{"n": n, "columns": [[sum, sumsq, signed_sum], …] (k rows), "nonfinite": sha256 hex}``.
    """
    import hashlib

    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"array_sketch: expected a 1-D or 2-D array, got shape {arr.shape}")
    finite = np.isfinite(arr)
    clean = np.where(finite, arr, 0.0)
    signs = np.where(np.random.default_rng(0).random(arr.shape[0]) < 0.5, -1.0, 1.0)
    columns = np.column_stack([clean.sum(axis=0), (clean ** 2).sum(axis=0), signs @ clean])
    return {"n": int(arr.shape[0]), "columns": columns.tolist(),
            "nonfinite": hashlib.sha256(np.packbits(~finite).tobytes()).hexdigest()}


def assert_sketch_close(got: Dict[str, Any], want: Dict[str, Any], rtol: float = 1e-9, where: str = "") -> None:
    """Assert two :func:`array_sketch` results describe the same table up to float rounding.

    A column's sum and signed sum may differ by ``rtol × sqrt(n × sumsq)``
    (the Cauchy–Schwarz bound of a sum, so a column near zero mean is not held
    to a relative error of its own small sum), its sum of squares by
    ``rtol × sumsq``; the row count, column count and non-finite positions
    must be equal.

    Raises:
        AssertionError: naming ``where``, the column index and the three values.
    """
    label = f"{where}: " if where else ""
    if (got["n"], len(got["columns"])) != (want["n"], len(want["columns"])):
        raise AssertionError(f"{label}shape {got['n']} × {len(got['columns'])} != "
                             f"{want['n']} × {len(want['columns'])}")
    if got["nonfinite"] != want["nonfinite"]:
        raise AssertionError(f"{label}the positions of non-finite entries differ")
    g = np.asarray(got["columns"], dtype=np.float64).reshape(-1, 3)
    w = np.asarray(want["columns"], dtype=np.float64).reshape(-1, 3)
    scale = np.sqrt(want["n"] * np.abs(w[:, 1]))
    tol = rtol * np.column_stack([scale, np.abs(w[:, 1]), scale])
    bad = np.abs(g - w) > tol
    if bad.any():
        j = int(np.argwhere(bad)[0][0])
        raise AssertionError(f"{label}column {j}: [sum, sumsq, signed_sum] {g[j].tolist()} != {w[j].tolist()} "
                             f"(rtol {rtol})")


# ---------------------------------------------------------------------------
# Resolution
# ---------------------------------------------------------------------------

def _task(name: str) -> Any:
    """The :class:`~causalarena.tasks.Task` object of task ``name`` from the strict registry."""
    return _strict_registry().task(name)


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


def _fail(info: MethodInfo, rule: str) -> NoReturn:
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

def check_registered(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Registered through an entry point, with distribution and version."""
    from .method import Method
    from .plugins import CORE_DISTRIBUTION

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
    if cls.output_kind is not None and cls.output_kind != rec.output_kind:
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
    import sys

    if sys.version_info >= (3, 10):
        from importlib import metadata
    else:  # packages_distributions is new in 3.10; the backport is a core dependency on 3.9
        import importlib_metadata as metadata  # type: ignore

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


class _Check:
    """A bound check: callable with no arguments, readable repr for pytest ids."""

    def __init__(self, name: Union[str, MethodInfo], check_id: str,
                 fn: Callable[[MethodInfo, Dict[str, Any]], None], params: Dict[str, Any]) -> None:
        self.name, self.check_id, self.fn, self.params = name, check_id, fn, params

    def __call__(self) -> None:
        info = _resolve(self.name)
        if info.task == DISCOVERY:
            self.fn(info, dict(self.params))
            return
        # another task's kit replaces checks by id (:meth:`causalarena.tasks.Task.method_checks`; None: not its rule)
        fn = _task(info.task).method_checks().get(self.check_id, self.fn)
        if fn is None:
            return
        # such a class commonly serves several descriptors (one per backbone, CausalIDView App. E.2.2):
        # the kit checks the configuration the arena runs, the descriptor's parameters
        fn(info, {**dict(info.params), **self.params})

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
# Family conformance kit
# ---------------------------------------------------------------------------
#
# A family plugin's conformance test is as short as a method's::
#
#     from causalarena.testing import parametrize_family_checks
#
#     @parametrize_family_checks("my_family")
#     def test_conformance(check):
#         check()
#
# Every check builds the family afresh (``FamilyInfo.load()(**options)``) and
# raises :class:`ConformanceError` naming the family, its distribution, the
# instance (and split) and the rule.

#: Metadata keys that would hand the true graph to a method (datasets keep
#: their metadata when the truth is removed).
GRAPH_KEYS = ("true_adjacency", "adjacency", "true_graph", "graph_edges", "edges", "edge_list",
              "parents", "children", "dag", "cpdag")

#: Rows asked for by the sample-size rule (``dataset(..., n=SMALL_N)``).
SMALL_N = 200

_SCALAR_TYPES = (str, bool, int, float)


def _resolve_family(name_or_info: Any) -> Any:
    from .records import FamilyInfo

    if isinstance(name_or_info, FamilyInfo):
        return name_or_info
    return _strict_registry().family(name_or_info)


def _fwho(info: Any, inst: Any = None, split: Optional[str] = None) -> str:
    dist = f" ({info.distribution} {info.version})" if info.distribution else ""
    where = f"family {info.name!r}{dist}"
    if inst is not None:
        where += f", instance {getattr(inst, 'scm_id', inst)!r}"
    if split is not None:
        where += f", split {split!r}"
    return where


def _ffail(info: Any, rule: str, inst: Any = None, split: Optional[str] = None) -> NoReturn:
    raise ConformanceError(f"{_fwho(info, inst, split)}: {rule}")


def _build_family(info: Any, options: Dict[str, Any]) -> Any:
    from .family import Family

    try:
        cls = info.load()
    except Exception as exc:
        raise ConformanceError(f"{_fwho(info)}: factory {info.factory!r} does not import: "
                               f"{type(exc).__name__}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Family)):
        _ffail(info, f"factory {info.factory!r} is {cls!r}, not a causalarena.family.Family subclass")
    try:
        return cls(**options)
    except Exception as exc:
        raise ConformanceError(f"{_fwho(info)}: constructing the family with options {options!r} raised "
                               f"{type(exc).__name__}: {exc}") from exc


def _instances(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> List[Any]:
    """The family's instances (the first ``max_instances`` when the kit was given that)."""
    fam = _build_family(info, options)
    try:
        insts = list(fam.instances())
    except Exception as exc:
        raise ConformanceError(f"{_fwho(info)}: instances() raised {type(exc).__name__}: {exc}") from exc
    if not insts:
        _ffail(info, f"instances() is empty under options {options!r}; a family lists at least one instance")
    limit = settings.get("max_instances")
    return insts[: int(limit)] if limit else insts


def _dataset(info: Any, inst: Any, split: str, replicate: int = 0, **kw: Any) -> Any:
    """The instance's table: a :class:`Dataset`, or its task's dataset type (:attr:`causalarena.tasks.Task.dataset_type`)."""
    try:
        ds = inst.dataset(split, replicate, **kw)
    except Exception as exc:
        raise ConformanceError(
            f"{_fwho(info, inst, split)}: dataset(split={split!r}, replicate={replicate}"
            f"{''.join(f', {k}={v!r}' for k, v in kw.items())}) raised {type(exc).__name__}: {exc}"
        ) from exc
    task = getattr(inst, "task", DISCOVERY)
    want = Dataset if task == DISCOVERY else resolve(_task(task).dataset_type)
    if not isinstance(ds, want):
        _ffail(info, f"dataset() returned {type(ds).__name__}, not a {want.__module__}.{want.__name__}", inst, split)
    return ds


def _cells(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> Iterator[Tuple[Any, str]]:
    for inst in _instances(info, options, settings):
        for split in inst.splits:
            yield inst, split


def _is_dag(A: np.ndarray) -> bool:
    import networkx as nx

    return bool(nx.is_directed_acyclic_graph(nx.from_numpy_array(np.asarray(A, dtype=int),
                                                                 create_using=nx.DiGraph)))


def check_family_registered(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Registered through an entry point, with distribution and version; the factory is a Family
    subclass whose ``name`` (when set) is the registered name."""
    from .family import Family
    from .plugins import CORE_DISTRIBUTION

    reg = _strict_registry()
    if info.name not in reg.families:
        _ffail(info, f"not in the registry; installed families: {sorted(reg.families)}")
    rec = reg.families[info.name]
    if not rec.distribution or rec.distribution in ("?", "<test>", CORE_DISTRIBUTION):
        _ffail(rec, f"must come from its own distribution via the 'causalarena' entry point, "
                    f"got distribution {rec.distribution!r}")
    if not rec.version or rec.version == "?":
        _ffail(rec, f"registered without a version ({rec.version!r})")
    try:
        cls = rec.load()
    except Exception as exc:
        raise ConformanceError(f"{_fwho(rec)}: factory {rec.factory!r} does not import: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Family)):
        _ffail(rec, f"factory {rec.factory!r} is {cls!r}, not a causalarena.family.Family subclass")
    if cls.name and cls.name != rec.name:
        _ffail(rec, f"class attribute name {cls.name!r} differs from the registered name {rec.name!r}")


_FAMILY_CHEAP_SCRIPT = textwrap.dedent(
    """
    import importlib, json, sys
    args = json.loads(sys.argv[1])
    import causalarena.hookspecs, causalarena.records, causalarena.family, causalarena.data
    before = set(sys.modules)
    found = False
    for modname in args["modules"]:
        mod = importlib.import_module(modname)
        hook = getattr(mod, "arena_families", None)
        if hook is not None:
            names = [rec.name for rec in hook()]
            found = found or args["name"] in names
    new = sorted({m.split(".")[0] for m in set(sys.modules) - before})
    print(json.dumps({"found": found, "new": new}))
    """
)


def check_family_descriptor_cheap(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Importing the entry-point module(s) and listing families imports no heavy library.

    Fresh interpreter (with this interpreter's ``sys.path``). Heavy =
    :data:`HEAVY_MODULES` plus the import names of the family distribution's
    own requirements that the core does not already need.
    """
    from .plugins import ENTRY_POINT_GROUP, entry_points

    modules = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        if dist is not None and dist.metadata["Name"] == info.distribution:
            modules.append(ep.value.split(":")[0])
    if not modules:
        _ffail(info, f"no entry point in group {ENTRY_POINT_GROUP!r} belongs to distribution "
                     f"{info.distribution!r}")
    heavy = set(HEAVY_MODULES) | set(_requirement_modules(info.distribution))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run(
        [sys.executable, "-c", _FAMILY_CHEAP_SCRIPT, json.dumps({"modules": modules, "name": info.name})],
        capture_output=True, text=True, timeout=120, env=env,
    )
    if proc.returncode != 0:
        _ffail(info, f"importing entry-point module(s) {modules} failed in a fresh interpreter:\n"
                     f"{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not out["found"]:
        _ffail(info, f"entry-point module(s) {modules} do not yield a FamilyInfo named {info.name!r}")
    leaked = sorted(heavy & set(out["new"]))
    if leaked:
        _ffail(info, f"importing the descriptor module(s) {modules} imported heavy module(s) {leaked}; "
                     "import them in the Family class's module, not in the entry point")


def check_family_instances(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """instances() lists Instance objects with unique non-empty string ids, this family's name, splits
    among ("obs", "obs_int") and a positive replicate count; the listing is stable (same ids in the
    same order from a fresh family object) and instance(id) finds each one."""
    from .family import SPLITS, Instance

    insts = _instances(info, dict(options), {})
    seen: Dict[str, int] = {}
    for k, inst in enumerate(insts):
        if not isinstance(inst, Instance):
            _ffail(info, f"instances()[{k}] is {type(inst).__name__}, not a causalarena.family.Instance")
        sid = getattr(inst, "scm_id", None)
        if not isinstance(sid, str) or not sid.strip():
            _ffail(info, f"instances()[{k}] has scm_id {sid!r}; ids are non-empty strings (seeds derive from them)")
        if sid in seen:
            _ffail(info, f"duplicate instance id {sid!r} (positions {seen[sid]} and {k}); ids must be unique "
                         "within a family (results and seeds are keyed by them)")
        seen[sid] = k
        if inst.family != info.name:
            _ffail(info, f"instance.family is {inst.family!r}, not the registered name {info.name!r} "
                         "(cell seeds derive from it)", inst)
        splits = tuple(inst.splits)
        if not splits or any(s not in SPLITS for s in splits) or len(set(splits)) != len(splits):
            _ffail(info, f"splits {splits!r} must be distinct values among {SPLITS}", inst)
        reps = inst.n_replicates
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            _ffail(info, f"n_replicates must be a positive int, got {reps!r}", inst)
    again = [i.scm_id for i in _instances(info, dict(options), {})]
    if again != list(seen):
        _ffail(info, "instances() of a fresh family object lists different ids or another order: "
                     f"{list(seen)[:5]}... vs {again[:5]}...; the listing must be deterministic")
    fam = _build_family(info, dict(options))
    for sid in list(seen)[: settings.get("max_instances") or None]:
        try:
            got = fam.instance(sid)
        except Exception as exc:
            raise ConformanceError(f"{_fwho(info, sid)}: instance({sid!r}) raised "
                                   f"{type(exc).__name__}: {exc}") from exc
        if got.scm_id != sid:
            _ffail(info, f"instance({sid!r}) returned the instance {got.scm_id!r}", sid)


def check_family_factors(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """factors is a dict with string keys and JSON-serialisable values; numbers are finite; at
    least one tag is a scalar (str/int/float/bool) or a list of strings — the forms stored with
    every run and used to slice the report (others stay with the instance only)."""
    for inst in _instances(info, options, settings):
        factors = getattr(inst, "factors", None)
        if not isinstance(factors, dict):
            _ffail(info, f"factors must be a dict of tags, got {type(factors).__name__}", inst)
        bad_keys = [k for k in factors if not isinstance(k, str) or not k]
        if bad_keys:
            _ffail(info, f"factor keys must be non-empty strings, got {bad_keys!r}", inst)
        try:
            json.dumps(factors, allow_nan=False, default=_json_scalar)
        except (TypeError, ValueError) as exc:
            _ffail(info, f"factors are not JSON-serialisable with finite numbers: {exc}", inst)
        stored = [k for k, v in factors.items()
                  if (isinstance(v, _SCALAR_TYPES) or v is None
                      or (isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v)))]
        if factors and not stored:
            _ffail(info, f"no factor tag is a scalar or a list of strings ({sorted(factors)}); the runner "
                         "stores only those, so the report could not slice by any tag", inst)


def _json_scalar(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"{type(obj).__name__} value {obj!r}")


def _check_truth(info: Any, inst: Any, split: str, ds: Dataset) -> np.ndarray:
    T = ds.true_adjacency
    if T is None:
        _ffail(info, "dataset.true_adjacency is None; a family dataset carries its true graph "
                     "(the runner removes it before a method sees the table)", inst, split)
    T = np.asarray(T)
    d = ds.d
    if T.shape != (d, d):
        _ffail(info, f"true_adjacency has shape {T.shape}, expected (d × d) = {(d, d)}", inst, split)
    if not np.all(np.isin(T, (0, 1))):
        _ffail(info, f"true_adjacency must be 0/1 (row = parent), found {sorted(np.unique(T).tolist())}",
               inst, split)
    if np.any(np.diag(T)):
        _ffail(info, f"true_adjacency has self-loops at {[ds.columns[j] for j in np.flatnonzero(np.diag(T))]}",
               inst, split)
    if not _is_dag(T):
        declared = ds.metadata.get("truth_is_dag") is False and ds.metadata.get("truth_cycles")
        if not declared:
            import networkx as nx

            cyc = nx.find_cycle(nx.from_numpy_array(T.astype(int), create_using=nx.DiGraph))
            names = " -> ".join(ds.columns[u] for u, _ in cyc) + f" -> {ds.columns[cyc[0][0]]}"
            _ffail(info, f"true_adjacency is not acyclic ({names}); a published cyclic graph must be "
                         "declared with metadata truth_is_dag=False and truth_cycles", inst, split)
    return T.astype(np.int8)


def check_family_datasets(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Every split of every instance (replicate 0) gives the table the protocol promises.

    X is (n × d) float64 with n, d ≥ 1 (SCM instances: 1000 rows on both splits); columns are d
    unique non-empty strings; intervention_mask is (n × d) bool and regime (n,) int; on "obs" the
    mask is all False and regime all −1; on "obs_int" there are observational and interventional
    rows, a row's regime is −1 iff its mask row is empty, else it is an intervened column; metadata
    names family, scm_id, split, replicate, seed and standardised; ``n=200`` gives 200 rows.
    """
    from .family import SCMInstance
    from .protocol import split_sizes

    scm_ids: Dict[str, str] = {}
    for inst, split in _cells(info, options, settings):
        ds = _dataset(info, inst, split)
        n, d = ds.X.shape
        if ds.X.dtype != np.float64:
            _ffail(info, f"X has dtype {ds.X.dtype}, expected float64", inst, split)
        if n < 1 or d < 1:
            _ffail(info, f"X has shape {(n, d)}; a dataset has at least one row and one column", inst, split)
        if isinstance(inst, SCMInstance):
            expect = sum(split_sizes(split))
            if n != expect:
                _ffail(info, f"X has {n} rows, the protocol's {split!r} split has {expect}", inst, split)
        cols = list(ds.columns)
        if any(not isinstance(c, str) or not c for c in cols):
            _ffail(info, f"columns must be non-empty strings, got {cols!r}", inst, split)
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            _ffail(info, f"duplicate column names {dup}", inst, split)
        mask, regime = np.asarray(ds.intervention_mask), np.asarray(ds.regime)
        if mask.shape != (n, d) or mask.dtype != bool:
            _ffail(info, f"intervention_mask is {mask.dtype} {mask.shape}, expected bool {(n, d)}", inst, split)
        if regime.shape != (n,) or not np.issubdtype(regime.dtype, np.integer):
            _ffail(info, f"regime is {regime.dtype} {regime.shape}, expected int ({n},)", inst, split)
        if split == "obs":
            if mask.any():
                _ffail(info, f"the obs split has {int(mask.any(axis=1).sum())} rows with an intervention mask; "
                             "obs-only means an all-False mask", inst, split)
            if np.any(regime != OBSERVATIONAL):
                _ffail(info, f"the obs split has regime values {sorted(set(regime.tolist()) - {-1})}; "
                             "observational rows have regime -1", inst, split)
        else:
            intervened = mask.any(axis=1)
            if not intervened.any() or intervened.all():
                _ffail(info, f"the obs_int split has {int(intervened.sum())} of {n} intervened rows; it "
                             "mixes observational and interventional rows", inst, split)
            if np.any((regime == OBSERVATIONAL) & intervened):
                _ffail(info, "rows with regime -1 have intervention-mask entries; regime -1 means observational",
                       inst, split)
            rows = np.flatnonzero(regime != OBSERVATIONAL)
            bad = rows[(regime[rows] < 0) | (regime[rows] >= d)]
            if len(bad):
                _ffail(info, f"regime values {sorted(set(regime[bad].tolist()))} are not column indices "
                             f"0..{d - 1}", inst, split)
            wrong = rows[~mask[rows, regime[rows]]]
            if len(wrong):
                _ffail(info, f"{len(wrong)} rows (first {int(wrong[0])}) have regime r but intervention_mask[row, r] "
                             "False; regime names an intervened column", inst, split)
        md = ds.metadata
        for key, want in (("family", info.name), ("split", split), ("replicate", 0)):
            if md.get(key) != want:
                _ffail(info, f"metadata[{key!r}] is {md.get(key)!r}, expected {want!r}", inst, split)
        for key in ("scm_id", "seed", "standardised"):
            if key not in md:
                _ffail(info, f"metadata lacks {key!r}", inst, split)
        sid = md["scm_id"]
        if scm_ids.setdefault(sid, inst.scm_id) != inst.scm_id:
            _ffail(info, f"metadata scm_id {sid!r} is also that of instance {scm_ids[sid]!r}", inst, split)
        small = _dataset(info, inst, split, n=SMALL_N)
        if small.n != SMALL_N or small.d != d:
            _ffail(info, f"dataset(n={SMALL_N}) has shape {small.X.shape}, expected {(SMALL_N, d)}", inst, split)


def check_family_true_graph(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The true graph is a (d × d) 0/1 matrix without self-loops, acyclic (a published cyclic graph
    must be declared: metadata truth_is_dag=False with truth_cycles), equal to
    instance.true_adjacency() and the same on every split and replicate."""
    for inst in _instances(info, options, settings):
        ref = None
        for split in inst.splits:
            for rep in sorted({0, inst.n_replicates - 1}):
                ds = _dataset(info, inst, split, rep)
                T = _check_truth(info, inst, split, ds)
                if ref is None:
                    ref = T
                    try:
                        own = np.asarray(inst.true_adjacency())
                    except Exception as exc:
                        raise ConformanceError(f"{_fwho(info, inst)}: true_adjacency() raised "
                                               f"{type(exc).__name__}: {exc}") from exc
                    if own.shape != T.shape or not np.array_equal(own != 0, T != 0):
                        _ffail(info, "instance.true_adjacency() differs from dataset.true_adjacency", inst, split)
                elif T.shape != ref.shape or not np.array_equal(T, ref):
                    _ffail(info, f"true_adjacency of replicate {rep} differs from that of the first cell; "
                                 "one instance has one graph", inst, split)


def check_family_finite(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """X has no ±inf, raw or standardised; NaN only in columns declared in metadata nan_fraction
    (a real table's missing values, case I4)."""
    for inst, split in _cells(info, options, settings):
        for standardise in (True, False):
            ds = _dataset(info, inst, split, standardise=standardise)
            X = ds.X
            inf = np.isinf(X).any(axis=0)
            if inf.any():
                _ffail(info, f"X{'' if standardise else ' (raw)'} has infinite values in columns "
                             f"{[ds.columns[j] for j in np.flatnonzero(inf)]}", inst, split)
            nan = np.isnan(X).any(axis=0)
            if nan.any():
                declared = ds.metadata.get("nan_fraction") or {}
                undeclared = [ds.columns[j] for j in np.flatnonzero(nan)
                              if not (isinstance(declared, dict) and declared.get(ds.columns[j], 0) > 0)]
                if undeclared:
                    _ffail(info, f"X{'' if standardise else ' (raw)'} has NaN in columns {undeclared}; "
                                 "a sampler must produce finite values (missing values of a real table are "
                                 "declared in metadata nan_fraction)", inst, split)


def check_family_standardise(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """standardise=True (the default) gives z-scored columns (mean 0, sd 1 for non-constant ones) and
    metadata standardised=True; standardise=False gives the raw table (standardised=False) with the
    same shape and masks, whose z-scores are the standardised table."""
    from .protocol import standardise as zscore

    for inst, split in _cells(info, options, settings):
        std = _dataset(info, inst, split)
        raw = _dataset(info, inst, split, standardise=False)
        if std.metadata.get("standardised") is not True or raw.metadata.get("standardised") is not False:
            _ffail(info, f"metadata standardised is {std.metadata.get('standardised')!r} by default and "
                         f"{raw.metadata.get('standardised')!r} with standardise=False; expected True / False",
                   inst, split)
        same_mask = np.array_equal(np.asarray(raw.intervention_mask), np.asarray(std.intervention_mask))
        if raw.X.shape != std.X.shape or not same_mask:
            _ffail(info, "the raw and standardised tables differ in shape or intervention mask", inst, split)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean, sd = np.nanmean(std.X, axis=0), np.nanstd(std.X, axis=0)
            expect = zscore(raw.X)
        varying = sd > 1e-12
        if not (np.allclose(mean, 0.0, atol=1e-8) and np.allclose(sd[varying], 1.0, atol=1e-8)):
            cols = [std.columns[j] for j in np.flatnonzero(~np.isclose(mean, 0.0, atol=1e-8)
                                                           | (varying & ~np.isclose(sd, 1.0, atol=1e-8)))]
            _ffail(info, f"the default (standardised) table is not z-scored in columns {cols[:5]}", inst, split)
        if not np.allclose(std.X, expect, atol=1e-8, equal_nan=True):
            _ffail(info, "the standardised table is not the z-scored raw table of the same cell "
                         "(standardise must not resample)", inst, split)


def _fingerprint_of(ds: Dataset) -> Tuple[bytes, bytes, bytes]:
    return ds.X.tobytes(), np.asarray(ds.intervention_mask).tobytes(), np.asarray(ds.regime).tobytes()


def check_family_deterministic(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The same cell gives byte-identical X, mask and regime — from a fresh family object too, and
    whatever the state of numpy's and Python's global random generators (seed from the cell:
    :func:`causalarena.protocol.cell_seed`, never from global state)."""
    import random

    first = _instances(info, options, settings)
    second = _instances(info, options, settings)  # paired by position (the listing rule is `instances`)
    for inst, twin in zip(first, second):
        for split in inst.splits:
            np.random.seed(1)
            random.seed(1)
            a = _dataset(info, inst, split)
            np.random.seed(2)
            random.seed(2)
            b = _dataset(info, twin, split)
            if _fingerprint_of(a) != _fingerprint_of(b):
                what = "X" if a.X.tobytes() != b.X.tobytes() else "intervention_mask/regime"
                _ffail(info, f"two builds of the same cell (replicate 0) gave different {what}; derive every "
                             "random draw from the cell seed (causalarena.protocol.cell_seed), not global state",
                       inst, split)
            if a.metadata.get("seed") != b.metadata.get("seed"):
                _ffail(info, f"metadata seed differs between two builds of one cell "
                             f"({a.metadata.get('seed')!r} vs {b.metadata.get('seed')!r})", inst, split)


def check_family_replicates(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Replicates of a split differ (fresh draws, different metadata seed) when there are two or
    more; a replicate out of range and an unknown split raise ValueError."""
    for inst in _instances(info, options, settings):
        for split in inst.splits:
            if inst.n_replicates >= 2:
                a, b = _dataset(info, inst, split, 0), _dataset(info, inst, split, 1)
                if a.X.shape == b.X.shape and np.array_equal(a.X, b.X, equal_nan=True):
                    _ffail(info, "replicates 0 and 1 are identical; each replicate is a fresh draw "
                                 "(or declare n_replicates=1 for a fixed table)", inst, split)
                if a.metadata.get("seed") == b.metadata.get("seed"):
                    _ffail(info, f"replicates 0 and 1 share metadata seed {a.metadata.get('seed')!r}", inst, split)
            for rep in (inst.n_replicates, -1):
                try:
                    inst.dataset(split, rep)
                except ValueError:
                    continue
                except Exception as exc:
                    _ffail(info, f"dataset(replicate={rep}) raised {type(exc).__name__}, expected ValueError "
                                 f"(replicates are 0..{inst.n_replicates - 1})", inst, split)
                _ffail(info, f"dataset(replicate={rep}) succeeded; replicates are 0..{inst.n_replicates - 1} "
                             "and others raise ValueError", inst, split)
        try:
            inst.dataset("no-such-split", 0)
        except ValueError:
            continue
        except Exception as exc:
            _ffail(info, f"an unknown split raised {type(exc).__name__}, expected ValueError", inst)
        _ffail(info, "dataset('no-such-split', 0) succeeded; an unknown split raises ValueError", inst)


def _graph_in(value: Any, T: np.ndarray, names: List[str], path: str) -> Optional[str]:
    """Where in a metadata value the true graph shows up (None: nowhere)."""
    edges = {(names[i], names[j]) for i, j in zip(*np.nonzero(T))}
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and k.lower() in GRAPH_KEYS:
                return f"{path}[{k!r}] (a key that names the graph)"
            found = _graph_in(v, T, names, f"{path}[{k!r}]")
            if found:
                return found
        return None
    if isinstance(value, np.ndarray) or (isinstance(value, (list, tuple)) and value
                                          and all(isinstance(r, (list, tuple, np.ndarray)) for r in value)):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            arr = None
        if arr is not None and arr.shape == T.shape and arr.dtype.kind in "biuf" and T.any():
            if np.array_equal(arr != 0, T != 0) or np.array_equal(arr != 0, T.T != 0):
                return f"{path} (a d × d matrix equal to the true adjacency)"
        if (edges and isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) and len(r) == 2
                                                                 and all(isinstance(x, str) for x in r)
                                                                 for r in value)
                and {tuple(r) for r in value} & edges):
            return f"{path} (a list of (parent, child) pairs that are true edges)"
    if isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            found = _graph_in(v, T, names, f"{path}[{k}]")
            if found:
                return found
    return None


def check_family_no_truth_leak(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """What a method sees — ``dataset.without_truth()``, metadata included — does not carry the graph:
    no metadata key named like the graph (:data:`GRAPH_KEYS`), no d × d matrix equal to the true
    adjacency, no list of true (parent, child) name pairs; the saved table has no true_adjacency."""
    for inst, split in _cells(info, options, settings):
        ds = _dataset(info, inst, split)
        T = ds.true_adjacency
        T = np.zeros((ds.d, ds.d), dtype=np.int8) if T is None else np.asarray(T)
        seen = ds.without_truth()
        if seen.true_adjacency is not None:
            _ffail(info, "without_truth() kept true_adjacency (a Dataset subclass overrides it?)", inst, split)
        import io

        with np.load(io.BytesIO(seen.to_npz_bytes()), allow_pickle=False) as z:
            if "true_adjacency" in z.files:
                _ffail(info, "the table a method reads (without_truth, saved) contains true_adjacency", inst, split)
        where = _graph_in(dict(seen.metadata), T, list(ds.columns), "metadata")
        if where:
            _ffail(info, f"the true graph reaches methods through {where}; metadata is shown to methods, "
                         "keep the graph in true_adjacency only", inst, split)


def check_family_fingerprint(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """fingerprint() is 16 hex digits, the same from a fresh family object, and differs between
    instances (it is part of every result key)."""
    import re

    fresh = _instances(info, options, settings)  # paired by position (the listing rule is `instances`)
    seen: Dict[str, str] = {}
    for inst, twin in zip(_instances(info, options, settings), fresh):
        try:
            fp, again = inst.fingerprint(), twin.fingerprint()
        except Exception as exc:
            raise ConformanceError(f"{_fwho(info, inst)}: fingerprint() raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(fp, str) or not re.fullmatch(r"[0-9a-f]{16}", fp):
            _ffail(info, f"fingerprint() is {fp!r}, expected 16 lower-case hex digits", inst)
        if fp != again:
            _ffail(info, f"fingerprint() differs between two family objects ({fp} vs {again})", inst)
        if fp in seen:
            _ffail(info, f"fingerprint {fp} is also that of instance {seen[fp]!r}; two different instances "
                         "must not share result keys", inst)
        seen[fp] = inst.scm_id


#: Largest difference accepted between a stored sortability and the recomputed one (both are
#: ratios of path counts; a family computing them in another order of operations may differ by
#: rounding, never by a pair of variables).
SORTABILITY_ATOL = 1e-9


def check_family_sortability(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Every split of every instance (replicate 0, standardised as the runner builds it) carries
    metadata ``varsortability`` and ``r2_sortability`` of its *raw* table: each a finite float in
    [0, 1] equal (within :data:`SORTABILITY_ATOL`) to
    :func:`causalarena.protocol.raw_sortabilities` of ``dataset(..., standardise=False)`` and its
    true graph — or ``None`` exactly where that is undefined (a graph without edges; a column whose
    variance float64 cannot hold; for R², fewer complete rows than d + 1). The runner stores both
    with every run (Reisach et al. 2021 / 2023); a missing value shows as "–" in the report."""
    import math

    from .protocol import SORTABILITY_KEYS, raw_sortabilities

    for inst, split in _cells(info, options, settings):
        ds = _dataset(info, inst, split)
        raw = _dataset(info, inst, split, standardise=False)
        T = ds.true_adjacency if ds.true_adjacency is not None else inst.true_adjacency()
        ref = raw_sortabilities(raw.X, np.asarray(T))
        for key in SORTABILITY_KEYS:
            if key not in ds.metadata:
                _ffail(info, f"metadata lacks {key!r}; set it to "
                             f"causalarena.protocol.raw_sortabilities(raw X, true graph)[{key!r}] "
                             "(None where undefined)", inst, split)
            got, want = ds.metadata[key], ref[key]
            if got is None:
                if want is not None:
                    _ffail(info, f"metadata[{key!r}] is None but it is defined for this table ({want:.6g} "
                                 "from causalarena.protocol.raw_sortabilities of the raw table); None only "
                                 "for a graph without edges, a scale float64 cannot hold or (R²) fewer "
                                 "complete rows than d + 1", inst, split)
                continue
            if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
                _ffail(info, f"metadata[{key!r}] is {type(got).__name__} {got!r}, expected a float in [0, 1] "
                             "or None", inst, split)
            got = float(got)
            if not (math.isfinite(got) and 0.0 <= got <= 1.0):
                _ffail(info, f"metadata[{key!r}] is {got!r}, expected a finite float in [0, 1] or None",
                       inst, split)
            if want is None:
                _ffail(info, f"metadata[{key!r}] is {got:.6g} but it is undefined for this table (a graph "
                             "without edges, a scale float64 cannot hold or (R²) fewer complete rows than "
                             "d + 1): store None", inst, split)
            if abs(got - want) > SORTABILITY_ATOL:
                _ffail(info, f"metadata[{key!r}] is {got:.6g}, but the raw table (standardise=False) and true "
                             f"graph give {want:.6g} (causalarena.protocol.raw_sortabilities); measure it on "
                             "the raw rows of the same cell, not the standardised table", inst, split)


#: Largest mean forward share of directed paths accepted by :func:`check_family_column_order` (the
#: threshold the report flags varsortability with, :data:`causalarena.report.VARSORTABILITY_FLAG`).
COLUMN_ORDER_MAX_FORWARD = 0.9
#: Fewest directed paths an instance needs to count in :func:`check_family_column_order`.
COLUMN_ORDER_MIN_PATHS = 3


def forward_path_share(adjacency: Any) -> Tuple[Optional[float], int]:
    """Share of directed paths whose source column comes before the target column.

    Args:
        adjacency: (d × d) true graph, row = parent (nonzero = edge).

    Returns:
        ``(share, paths)``: ``paths`` is the number of ordered pairs ``(i, j)``, ``i != j``,
        with ``j`` reachable from ``i``; ``share`` the fraction of them with ``i < j`` (``None``
        when there is no path). 1.0 means the columns are a topological order; a column
        order unrelated to the graph gives about 0.5.
    """
    A = np.asarray(adjacency) != 0
    d = A.shape[0]
    reach = A.copy()
    for k in range(d):  # Warshall's transitive closure
        reach |= reach[:, [k]] & reach[[k], :]
    np.fill_diagonal(reach, False)
    paths = int(reach.sum())
    if not paths:
        return None, 0
    return float(np.triu(reach, 1).sum()) / paths, paths


def check_family_column_order(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The column order does not give away the causal order: over the instances with at least
    :data:`COLUMN_ORDER_MIN_PATHS` directed paths, the mean :func:`forward_path_share` of the true
    graph is at most :data:`COLUMN_ORDER_MAX_FORWARD`. A family listing its variables causes-first
    hands the order to any method whose ties fall back to the column order (sortnregress on a
    standardised table; Reisach et al. 2021 on such artefacts); permute the columns, e.g. by a
    permutation drawn from the instance id as arena-cards does."""
    shares: List[Tuple[float, str]] = []
    for inst in _instances(info, options, settings):
        try:
            T = inst.true_adjacency()
        except Exception as exc:
            raise ConformanceError(f"{_fwho(info, inst)}: true_adjacency() raised {type(exc).__name__}: "
                                   f"{exc}") from exc
        share, paths = forward_path_share(T)
        if share is not None and paths >= COLUMN_ORDER_MIN_PATHS:
            shares.append((share, str(getattr(inst, "scm_id", inst))))
    if not shares:
        return
    mean = float(np.mean([s for s, _ in shares]))
    if mean > COLUMN_ORDER_MAX_FORWARD:
        worst = ", ".join(f"{sid} {s:.2f}" for s, sid in sorted(shares, key=lambda t: (-t[0], t[1]))[:3])
        _ffail(info, f"the columns follow the causal order: the mean forward share of directed paths (source "
                     f"column before target) is {mean:.2f} > {COLUMN_ORDER_MAX_FORWARD} over {len(shares)} "
                     f"instance(s) with >= {COLUMN_ORDER_MIN_PATHS} paths (highest: {worst}); a method whose "
                     "ties fall back to the column order reads the order off the table. Put the columns in "
                     "an order unrelated to the graph, e.g. a permutation drawn from the instance id")


#: (check_id, check) of the family kit, in the order they run.
FAMILY_CHECKS: Tuple[Tuple[str, Callable[[Any, Dict[str, Any], Dict[str, Any]], None]], ...] = (
    ("registered", check_family_registered),
    ("descriptor_cheap", check_family_descriptor_cheap),
    ("instances", check_family_instances),
    ("factors", check_family_factors),
    ("datasets", check_family_datasets),
    ("true_graph", check_family_true_graph),
    ("finite", check_family_finite),
    ("standardise", check_family_standardise),
    ("sortability", check_family_sortability),
    ("column_order", check_family_column_order),
    ("deterministic", check_family_deterministic),
    ("replicates", check_family_replicates),
    ("no_truth_leak", check_family_no_truth_leak),
    ("fingerprint", check_family_fingerprint),
)


class _FamilyCheck:
    """A bound family check: callable with no arguments, readable repr for pytest ids."""

    def __init__(self, name: Any, check_id: str, fn: Callable[[Any, Dict[str, Any], Dict[str, Any]], None],
                 options: Dict[str, Any], settings: Dict[str, Any]) -> None:
        self.name, self.check_id, self.fn, self.options, self.settings = name, check_id, fn, options, settings

    def __call__(self) -> None:
        info = _resolve_family(self.name)
        task = getattr(info, "task", DISCOVERY)
        # another task's kit replaces checks by id (:meth:`causalarena.tasks.Task.family_checks`)
        fn = self.fn if task == DISCOVERY else _task(task).family_checks().get(self.check_id, self.fn)
        if fn is None:
            _skip(f"{info.name}: {self.check_id} is a discovery rule with no {task} counterpart")
        fn(info, dict(self.options), dict(self.settings))

    def __repr__(self) -> str:
        label = self.name if isinstance(self.name, str) else self.name.name
        return f"{label}:{self.check_id}"


def family_checks(name_or_info: Any, max_instances: Optional[int] = None,
                  **options: Any) -> Iterator[Tuple[str, Callable[[], None]]]:
    """Yield ``(check_id, check)`` for one family; ``check()`` raises on failure.

    Args:
        name_or_info: a registered family name (resolved lazily through the
            strict registry) or a :class:`~causalarena.records.FamilyInfo`.
        max_instances: check only the first this many instances (a large
            family; the listing rules still see them all). The kit's own
            keyword: a family option of that name cannot be passed.
        **options: family options (``Family(**options)``).
    """
    settings = {"max_instances": max_instances}
    for check_id, fn in FAMILY_CHECKS:
        yield check_id, _FamilyCheck(name_or_info, check_id, fn, options, settings)


def check_family(name_or_info: Any, max_instances: Optional[int] = None, **options: Any) -> None:
    """Run every family check; raise :class:`ConformanceError` on the first failure."""
    for _, check in family_checks(name_or_info, max_instances=max_instances, **options):
        check()


def parametrize_family_checks(*names: Any, max_instances: Optional[int] = None,
                              **options: Any) -> Callable[[Callable], Callable]:
    """``pytest.mark.parametrize("check", ...)`` over every check of every named family.

    Test ids are ``<family>:<check_id>``.
    """
    import pytest

    if not names:
        raise ValueError("parametrize_family_checks() needs at least one family name")
    checks: List[_FamilyCheck] = []
    for name in names:
        checks.extend(c for _, c in family_checks(name, max_instances=max_instances, **options))  # type: ignore[misc]
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
    config.addinivalue_line("markers", "conformance: causalarena method and family conformance checks")
