"""NOTEARS and NOTEARS-MLP from gcastle 1.0.4 (``castle``), wrapped as CausalArena methods.

Defaults (CausalArena App. B.4): NOTEARS "linear NOTEARS with lambda1 = 0.1 and
fixed adjacency threshold 0.3" (l2 loss, gcastle's ``max_iter = 100``,
``h_tol = 1e-8``, ``rho_max = 1e16``); NOTEARS-MLP "hidden size 10,
lambda1 = lambda2 = 0.01, max iteration 100, and fixed adjacency threshold 0.3"
(gcastle's ``NotearsNonlinear(model_type="mlp", hidden_layers=(10, 1))``).

Output: gcastle's ``W[i, j] != 0`` means i → j (``X ≈ X @ W`` for NOTEARS; for
the MLP ``W[i, j]`` is the l2 norm of the first-layer weights from input i in
the network of j). That is our convention (row = parent), no transpose.
``adjacency_ = |W| > w_threshold`` is gcastle's own thresholding (strict ``>``),
``edge_scores_ = |W|`` keeps the unthresholded weights (AUROC/AP),
``native_ = W``. The thresholded graph is not repaired: a cycle (case I8)
reaches the runner's output validation.

gcastle's import-time side effects, contained here: it picks a backend from
the environment variable ``CASTLE_BACKEND`` (we set ``pytorch`` for the import
and restore the variable; gcastle imports torch even for linear NOTEARS), calls
``logging.basicConfig(level=INFO)`` and logs every iteration through the root
logger (its records are filtered out, a handler it installed is removed and
the root level restored), sets ``torch.set_default_dtype(torch.double)`` (the
MLP needs float64 during ``fit``; the previous default dtype is restored
afterwards) and ``np.set_printoptions(precision=3)`` (restored).

Determinism: linear NOTEARS starts from W = 0 and runs L-BFGS-B, no randomness.
NOTEARS-MLP initialises its network from torch's global generator: ``fit``
seeds it with ``random_state`` or ``dataset.metadata["seed"]`` inside
``torch.random.fork_rng``, so the caller's torch RNG state is left unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any, Iterator, Optional, Sequence, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError


class _DropCastleRecords(logging.Filter):
    """Drop log records emitted from inside the ``castle`` package (it logs through the root logger)."""

    _marker = f"{os.sep}castle{os.sep}"

    def filter(self, record: logging.LogRecord) -> bool:
        return self._marker not in (record.pathname or "")


@contextlib.contextmanager
def _castle_environment() -> Iterator[Any]:
    """Import and run gcastle with its global side effects contained; yields ``torch``."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    record_filter = _DropCastleRecords()
    root.addFilter(record_filter)
    backend = os.environ.get("CASTLE_BACKEND")
    os.environ["CASTLE_BACKEND"] = "pytorch"
    printoptions = np.get_printoptions()
    dtype = None
    try:
        try:
            import torch

            dtype = torch.get_default_dtype()
            import castle.algorithms  # noqa: F401  (reads CASTLE_BACKEND, imports the torch backend)
        except ImportError as exc:
            raise MethodEnvironmentError(
                f"gcastle 1.0.4 with torch could not be imported ({exc}); install arena-method-notears's "
                "requirements: pip install gcastle==1.0.4 torch") from exc
        yield torch
    finally:
        if dtype is not None:
            torch.set_default_dtype(dtype)
        np.set_printoptions(**printoptions)
        if backend is None:
            os.environ.pop("CASTLE_BACKEND", None)
        else:
            os.environ["CASTLE_BACKEND"] = backend
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        root.removeFilter(record_filter)


def _finite_input(dataset: Dataset, method: str) -> Tuple[np.ndarray, list]:
    """A float64 copy of ``dataset.X`` (n × d) and the column names; non-finite columns are named."""
    X = np.array(dataset.X, dtype=np.float64, copy=True)
    bad = ~np.isfinite(X).all(axis=0)
    if bad.any():
        names = [dataset.columns[j] for j in np.flatnonzero(bad)]
        raise ValueError(f"{method} needs finite data; non-finite values in columns {names}")
    return X, [str(c) for c in dataset.columns]


def _store(est: Method, learner: Any, columns: list, w_threshold: float) -> None:
    """Set ``native_``, ``edge_scores_``, ``adjacency_`` from a fitted gcastle learner."""
    W = np.asarray(learner.weight_causal_matrix, dtype=float)
    learned = [str(c) for c in getattr(learner.weight_causal_matrix, "columns", columns)]
    if learned != columns:  # gcastle keeps the column order; a mismatch would mislabel every edge
        raise RuntimeError(f"gcastle returned columns {learned}, expected {columns}")
    if not np.isfinite(W).all():
        raise ValueError("gcastle returned non-finite weights (the optimiser diverged)")
    adjacency = (np.abs(W) > w_threshold).astype(np.int8)  # gcastle's rule: |W| > threshold
    np.fill_diagonal(adjacency, 0)
    est.native_ = W
    est.edge_scores_ = np.abs(W)
    est.adjacency_ = adjacency


class NOTEARS(Method):
    """Linear NOTEARS (Zheng et al. 2018) through ``castle.algorithms.Notears`` (gcastle 1.0.4).

    Parameters: ``lambda1`` (l1 penalty, 0.1), ``loss_type`` (``"l2"``),
    ``w_threshold`` (0.3), ``max_iter`` (dual ascent steps, 100), ``h_tol``
    (1e-8), ``rho_max`` (1e16): gcastle's ``Notears`` arguments, App. B.4 values.

    After ``fit`` on ``X`` (n × d): ``adjacency_`` (d × d) 0/1, row = parent,
    ``|W| > w_threshold``; ``edge_scores_ = |W|`` (d × d); ``native_ = W``
    (d × d, unthresholded).
    """

    output_kind = "dag"

    def __init__(self, lambda1: float = 0.1, loss_type: str = "l2", w_threshold: float = 0.3,
                 max_iter: int = 100, h_tol: float = 1e-8, rho_max: float = 1e16) -> None:
        self.lambda1 = lambda1
        self.loss_type = loss_type
        self.w_threshold = w_threshold
        self.max_iter = max_iter
        self.h_tol = h_tol
        self.rho_max = rho_max

    @classmethod
    def preload(cls) -> None:
        """Import gcastle + torch once per worker, side effects contained (load time; paper §5.5)."""
        with _castle_environment():
            pass

    def fit(self, dataset: Dataset) -> "NOTEARS":
        """Run linear NOTEARS on ``dataset.X`` (n × d); the intervention mask is ignored.

        Deterministic (W = 0 start, L-BFGS-B): no seed is used.

        Raises:
            ValueError: non-finite input (columns named) or non-finite W; gcastle's
                errors (e.g. an unknown ``loss_type``) unchanged.
            MethodEnvironmentError: gcastle/torch not importable.
        """
        X, columns = _finite_input(dataset, "notears")
        with _castle_environment():
            from castle.algorithms.gradient.notears.linear import Notears

            learner = Notears(lambda1=self.lambda1, loss_type=self.loss_type, max_iter=self.max_iter,
                              h_tol=self.h_tol, rho_max=self.rho_max, w_threshold=self.w_threshold)
            learner.learn(X, columns=columns)
        _store(self, learner, columns, self.w_threshold)
        return self


class NOTEARSMLP(Method):
    """NOTEARS-MLP (Zheng et al. 2020) through ``castle.algorithms.NotearsNonlinear`` (gcastle 1.0.4).

    Parameters: ``lambda1`` (l1 on the first layer, 0.01), ``lambda2`` (l2,
    0.01), ``hidden_layers`` (gcastle's layer sizes after the input, the last
    one the output of size 1: ``(10, 1)`` = one hidden layer of 10 units),
    ``max_iter`` (dual ascent steps, 100), ``w_threshold`` (0.3), ``h_tol``
    (1e-8), ``rho_max`` (1e16), ``bias`` (True), ``random_state`` (seed of the
    network initialisation; ``None`` = ``dataset.metadata["seed"]``).

    After ``fit`` on ``X`` (n × d): ``adjacency_`` (d × d) 0/1, row = parent,
    ``|W| > w_threshold``; ``edge_scores_ = |W|``; ``native_ = W`` (d × d), W[i, j]
    the l2 norm of the first-layer weights of input i in the network of j.
    """

    output_kind = "dag"

    def __init__(self, lambda1: float = 0.01, lambda2: float = 0.01, hidden_layers: Sequence[int] = (10, 1),
                 max_iter: int = 100, w_threshold: float = 0.3, h_tol: float = 1e-8, rho_max: float = 1e16,
                 bias: bool = True, random_state: Optional[int] = None) -> None:
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.hidden_layers = hidden_layers
        self.max_iter = max_iter
        self.w_threshold = w_threshold
        self.h_tol = h_tol
        self.rho_max = rho_max
        self.bias = bias
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import gcastle + torch once per worker, side effects contained (load time; paper §5.5)."""
        with _castle_environment():
            pass

    def fit(self, dataset: Dataset) -> "NOTEARSMLP":
        """Run NOTEARS-MLP on ``dataset.X`` (n × d) on the CPU; the intervention mask is ignored.

        Raises:
            ValueError: no ``random_state`` and no ``metadata["seed"]``; non-finite
                input (columns named) or non-finite W; gcastle's errors unchanged.
            MethodEnvironmentError: gcastle/torch not importable.
        """
        seed = self.random_state
        if seed is None:
            seed = dataset.metadata.get("seed")
            if seed is None:
                raise ValueError("notears_mlp needs dataset.metadata['seed'] (or random_state=...)")
        X, columns = _finite_input(dataset, "notears_mlp")
        with _castle_environment() as torch:
            from castle.algorithms.gradient.notears.torch.nonlinear import NotearsNonlinear

            torch.set_default_dtype(torch.float64)  # gcastle's MLP works in float64 (restored on exit)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(int(seed) % (2 ** 63))
                learner = NotearsNonlinear(lambda1=self.lambda1, lambda2=self.lambda2, max_iter=self.max_iter,
                                           h_tol=self.h_tol, rho_max=self.rho_max, w_threshold=self.w_threshold,
                                           hidden_layers=tuple(int(h) for h in self.hidden_layers),
                                           bias=self.bias, model_type="mlp", device_type="cpu")
                learner.learn(X, columns=columns)
        _store(self, learner, columns, self.w_threshold)
        return self
