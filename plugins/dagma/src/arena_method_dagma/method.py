"""DAGMA (linear) from the ``dagma`` package, wrapped as a CausalArena method.

Defaults: ``dagma.linear.DagmaLinear(loss_type="l2").fit`` with the library's
defaults (lambda1 = 0.03, T = 5, mu_init = 1, mu_factor = 0.1,
s = [1.0, .9, .8, .7, .6], warm_iter = 3e4, max_iter = 6e4, lr = 3e-4) and the
weight threshold 0.3 (CausalArena App. B.4: "default optimization settings and
default weight threshold 0.3"). The paper's wrapper selects linear or
nonlinear DAGMA automatically; this plugin is the linear model only.

Output: W (d × d), ``W[i, j] != 0`` means i → j (row = parent, our
convention). The library thresholds at the end of ``fit``; we run it with
threshold 0 and apply ``|W| >= w_threshold`` ourselves, which is the same
graph and keeps the unthresholded ``|W|`` as ``edge_scores_`` (AUROC/AP).
The thresholded graph is not repaired: a cycle (case I8) reaches the runner's
output validation.

Two library quirks handled here: ``fit`` centres ``X`` in place (we pass a
copy), and ``s`` is a mutable default list that the library grows on retries
(we pass a fresh list each fit). The progress bar is disabled.
"""

from __future__ import annotations

import functools
from typing import Sequence
from unittest import mock

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method


class DAGMA(Method):
    """DAGMA with a linear SEM (Bello et al. 2022).

    Parameters: those of ``DagmaLinear`` (``loss_type``) and of its ``fit``
    (``lambda1``, ``w_threshold``, ``T``, ``mu_init``, ``mu_factor``, ``s``,
    ``warm_iter``, ``max_iter``, ``lr``); see the module docstring.

    After ``fit``: ``adjacency_`` (d × d) 0/1, ``edge_scores_ = |W|`` before
    thresholding, ``native_`` = W before thresholding.
    """

    output_kind = "dag"

    def __init__(self, loss_type: str = "l2", lambda1: float = 0.03, w_threshold: float = 0.3,
                 T: int = 5, mu_init: float = 1.0, mu_factor: float = 0.1,
                 s: Sequence[float] = (1.0, 0.9, 0.8, 0.7, 0.6), warm_iter: int = 30000,
                 max_iter: int = 60000, lr: float = 0.0003) -> None:
        self.loss_type = loss_type
        self.lambda1 = lambda1
        self.w_threshold = w_threshold
        self.T = T
        self.mu_init = mu_init
        self.mu_factor = mu_factor
        self.s = s
        self.warm_iter = warm_iter
        self.max_iter = max_iter
        self.lr = lr

    @classmethod
    def preload(cls) -> None:
        """Import dagma once per worker (load time, not the first fit; paper §5.5)."""
        import dagma.linear  # noqa: F401

    def fit(self, dataset: Dataset) -> "DAGMA":
        """Run linear DAGMA on ``dataset.X`` (n × d); the intervention mask is ignored.

        Deterministic (zero initialisation, Adam): no seed is needed.

        Raises:
            ValueError: non-finite W from the optimiser (named), library errors unchanged.
        """
        import dagma.linear as dagma_linear
        from tqdm.auto import tqdm

        s = [float(v) for v in self.s] if isinstance(self.s, (list, tuple)) else float(self.s)
        model = dagma_linear.DagmaLinear(loss_type=self.loss_type, verbose=False)
        with mock.patch.object(dagma_linear, "tqdm", functools.partial(tqdm, disable=True)):
            W = model.fit(np.array(dataset.X, dtype=float), lambda1=self.lambda1, w_threshold=0.0,
                          T=self.T, mu_init=self.mu_init, mu_factor=self.mu_factor, s=s,
                          warm_iter=self.warm_iter, max_iter=self.max_iter, lr=self.lr)
        W = np.asarray(W, dtype=float)
        if not np.isfinite(W).all():
            raise ValueError("DAGMA returned non-finite weights (diverged); try a smaller lr")
        self.native_ = W
        self.edge_scores_ = np.abs(W)
        self.adjacency_ = (np.abs(W) >= self.w_threshold).astype(np.int8)
        np.fill_diagonal(self.adjacency_, 0)
        return self
