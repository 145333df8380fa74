"""Known-answer data for plugin tests: small linear SCM tables with their truth, and table sketches.

* :func:`make_linear_dataset`, :func:`make_chain_dataset` — deterministic
  linear additive-noise SCM tables with known truth (known-answer tests).
* :func:`array_sketch`, :func:`assert_sketch_close` — a fingerprint of a
  float table that a known-answer test can record once and compare on any
  machine (a content hash cannot: BLAS and SIMD kernels differ in the last
  bits from one CPU class to the next).
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple, Union

import numpy as np

from causalarena.data import OBSERVATIONAL, Dataset

__all__ = [
    "array_sketch", "assert_sketch_close", "make_chain_dataset", "make_linear_dataset",
]

_NOISES = ("uniform", "gaussian", "laplace")


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
