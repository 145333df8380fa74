"""DAS (Discovery At Scale; Montagna et al. 2023) as a CausalArena method.

Three steps on the (n × d) table (own implementation of the paper's algorithm; no
installable package provides DAS here — dodiscover, which has it, is not on the
registry):

1. **Order** — SCORE (Rolland et al. 2022, Alg. 1): the leaf of the remaining
   variables is the one whose Stein estimate of ``∂² log p / ∂x_j²`` varies least
   over the samples (:func:`arena_method_das.stein.score_order`).
2. **DAS preselection** (Montagna et al. 2023, Alg. 1): one Stein Hessian of the whole
   table; each leaf's off-diagonal row picks candidate parents among the earlier nodes
   (:func:`arena_method_das.pruning.das_preselect`, parent range 5–20).
3. **CAM pruning** (Bühlmann et al. 2014): per node, additive spline regression on the
   candidates, a parent kept when its block's F-test p-value is below ``alpha``
   (:func:`arena_method_das.pruning.cam_prune`).

Defaults are CausalArena App. B.4: η_G = η_H = 0.001, α = 0.05, 10 splines of degree 3,
parent range 5–20; ``das_cutoff`` (the preselection t-test level) defaults to α as in the
authors' code. The method is deterministic (no randomness), so the cell seed is unused.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method


def order_divergence(order, true_adjacency) -> int:
    """Topological-order divergence (Rolland et al. 2022, §5): the number of true edges
    ``i → j`` that ``order`` puts backwards (j before i). 0 iff the order is compatible
    with the true DAG; a fully connected DAG on the order then contains every true edge.

    Args:
        order: a permutation of 0..d−1, root first.
        true_adjacency: (d × d) 0/1, row = parent.
    """
    A = np.asarray(true_adjacency) != 0
    pos = np.empty(len(order), dtype=int)
    pos[np.asarray(order, dtype=int)] = np.arange(len(order))
    parents, children = np.nonzero(A)
    return int(np.sum(pos[parents] > pos[children]))


class DAS(Method):
    """DAS: SCORE ordering + Hessian preselection + CAM pruning (Montagna et al. 2023).

    Parameters:
        eta_G: ridge of the Stein score estimator (App. B.4: 0.001).
        eta_H: ridge of the Stein Hessian estimator (App. B.4: 0.001).
        alpha: level of the CAM pruning F-test (App. B.4: 0.05).
        das_cutoff: level of the preselection t-test; ``None`` → ``alpha``.
        n_splines: B-splines per parent in the pruning regression (App. B.4: 10).
        splines_degree: their degree (App. B.4: 3).
        min_parents, max_parents: the preselection's parent range (App. B.4: 5–20).

    After ``fit`` (d = number of columns):
        order_: (d,) topological order, root first.
        candidates_: (d × d) int8 DAS preselection, row = parent.
        pvalues_: (d × d) CAM p-values of the candidate edges (1 elsewhere).
        adjacency_: (d × d) int8 DAG, row = parent.
        edge_scores_: (d × d) ``1 − p`` on candidate edges, 0 elsewhere.
    """

    def __init__(self, eta_G: float = 0.001, eta_H: float = 0.001, alpha: float = 0.05,
                 das_cutoff: Optional[float] = None, n_splines: int = 10, splines_degree: int = 3,
                 min_parents: int = 5, max_parents: int = 20) -> None:
        self.eta_G = eta_G
        self.eta_H = eta_H
        self.alpha = alpha
        self.das_cutoff = das_cutoff
        self.n_splines = n_splines
        self.splines_degree = splines_degree
        self.min_parents = min_parents
        self.max_parents = max_parents

    @classmethod
    def preload(cls) -> None:
        """Import scipy, scikit-learn and statsmodels once per worker (load time, paper §5.5)."""
        import scipy.linalg  # noqa: F401
        import scipy.stats  # noqa: F401
        import sklearn.preprocessing  # noqa: F401
        import statsmodels.api  # noqa: F401

    def fit(self, dataset: Dataset) -> "DAS":
        """Run DAS on ``dataset.X`` (n × d); the intervention mask is ignored (observational method).

        Raises:
            ValueError: non-finite entries in X, or fewer than 2 rows.
        """
        from .pruning import cam_prune, das_preselect
        from .stein import hessian, score_order

        X = np.array(dataset.X, dtype=float)
        n, d = X.shape
        if n < 2 or not np.isfinite(X).all():
            raise ValueError(f"DAS needs a finite table with at least 2 rows, got n={n} (finite: {np.isfinite(X).all()})")
        if d == 1:
            self.order_ = [0]
            self.candidates_ = np.zeros((1, 1), dtype=np.int8)
            self.pvalues_ = np.ones((1, 1))
            self.adjacency_ = np.zeros((1, 1), dtype=np.int8)
        else:
            self.order_ = score_order(X, self.eta_G, self.eta_H)
            H = hessian(X, self.eta_G, self.eta_H)
            cutoff = self.alpha if self.das_cutoff is None else self.das_cutoff
            self.candidates_ = das_preselect(H, self.order_, self.min_parents, self.max_parents, cutoff)
            self.adjacency_, self.pvalues_ = cam_prune(X, self.candidates_, self.alpha, self.n_splines,
                                                       self.splines_degree)
        self.edge_scores_ = np.where(self.candidates_ == 1, 1.0 - self.pvalues_, 0.0)
        self.native_ = {"order": list(self.order_)}
        return self
