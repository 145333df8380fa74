"""DAS edge preselection and CAM pruning.

* :func:`das_preselect` — Montagna et al. (2023), §4 and Alg. 1: for a leaf l of the
  sub-graph still to be ordered, ``∂² log p / ∂x_l ∂x_j`` is not identically zero only
  if j is adjacent to l in that sub-graph (its parent), so the off-diagonal entries of
  the leaf's Hessian row select its candidate parents. The papers' parent range
  (CausalArena App. B.4: 5–20) bounds the candidate set: the ``min_parents`` earlier
  nodes with the largest mean |Ĥ_lj| are always kept (the CAM step decides on them),
  at most ``max_parents`` are considered, and the others need their mean |Ĥ_lj| to
  exceed the reference — the smallest of the considered entries, taken as a sample of
  a zero entry — by a one-sided Welch t-test at level ``das_cutoff`` (a lone candidate
  has no reference and is kept). This is the
  "edges kept when the mean absolute off-diagonal entry exceeds a threshold" rule
  with the threshold set from the data. Own code: a few lines over scipy's t-test.
* :func:`cam_prune` — Bühlmann, Peters & Ernest (2014), "CAM", §5.2 (significance
  pruning): regress each node on an additive spline expansion of its candidate
  parents and keep a parent when its spline block is significant at level ``alpha``.
  The spline bases are scikit-learn's ``SplineTransformer`` (``n_splines`` B-splines of
  degree ``splines_degree`` per parent, quantile knots) and the test is the F-test of
  the nested OLS fits from statsmodels (``OLSResults.f_test`` with the block's
  restriction matrix). The papers' code uses pygam's penalised GAM and its Wald
  p-values; that package is not used here, so the test is the unpenalised F-test.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np


def das_preselect(
    H: np.ndarray,
    order: Sequence[int],
    min_parents: int = 5,
    max_parents: int = 20,
    das_cutoff: float = 0.05,
) -> np.ndarray:
    """Candidate parents of every node from the Stein Hessian (DAS, Montagna et al. 2023).

    Args:
        H: (n × d × d) Hessian estimate of log p of the whole table; ``H[:, l, j]`` is
            ``∂² log p / ∂x_l ∂x_j`` at each sample (see :func:`arena_method_das.stein.hessian`).
        order: topological order, root first (d ints).
        min_parents: candidates kept without a test (the largest mean |Ĥ_lj|).
        max_parents: at most this many candidates per node.
        das_cutoff: level of the one-sided Welch t-test against the reference entry.

    Returns:
        (d × d) int8 candidate adjacency, row = parent; only ``order``-consistent edges.
    """
    from scipy.stats import ttest_ind

    order = list(order)
    d = len(order)
    A = np.zeros((d, d), dtype=np.int8)
    absH = np.abs(H)
    for pos in range(d - 1, 0, -1):  # leaves first: the sub-graph of order[:pos + 1] has leaf order[pos]
        leaf, earlier = order[pos], order[:pos]
        row = absH[:, leaf, earlier]  # (n × pos)
        strength = row.mean(axis=0)
        ranked = np.argsort(-strength, kind="stable")[:max(1, max_parents)]
        reference = ranked[-1]
        for rank, k in enumerate(ranked):
            if rank < min_parents or len(ranked) == 1:  # a lone candidate has no zero reference: CAM decides
                keep = True
            elif k == reference:
                keep = False
            else:
                keep = ttest_ind(row[:, k], row[:, reference], equal_var=False, alternative="greater").pvalue < das_cutoff
            if keep:
                A[earlier[k], leaf] = 1
    return A


def effective_n_splines(n: int, n_parents: int, n_splines: int, degree: int) -> int:
    """The number of B-splines per parent, lowered from ``n_splines`` (not below ``degree + 1``)
    until the design (``n_parents · (n_splines − 1) + 1`` columns) has at most n / 2 columns."""
    k = n_splines
    while k > degree + 1 and n_parents * (k - 1) + 1 > n // 2:
        k -= 1
    return k


def spline_design(X: np.ndarray, n_splines: int, degree: int) -> np.ndarray:
    """Additive B-spline design of the columns of ``X`` (n × k): (n × k·(n_splines − 1)).

    Each column gets ``n_splines`` B-splines of ``degree`` on quantile knots
    (``SplineTransformer(n_knots=n_splines − degree + 1)``); the bias spline is dropped
    (``include_bias=False``) so the blocks are identifiable beside one intercept, as a GAM's
    centred smooths are.
    """
    from sklearn.preprocessing import SplineTransformer

    st = SplineTransformer(n_knots=max(2, n_splines - degree + 1), degree=degree, knots="quantile",
                           include_bias=False, extrapolation="linear")
    return st.fit_transform(X)


def cam_parent_pvalues(X: np.ndarray, child: int, candidates: Sequence[int], n_splines: int = 10,
                       degree: int = 3) -> np.ndarray:
    """F-test p-value of each candidate's spline block in the additive regression of ``child``.

    Args:
        X: (n × d) data.
        child: column regressed.
        candidates: its candidate parents (m ints).

    Returns:
        (m,) p-values; 1.0 for a candidate whose block the fit cannot identify.
    """
    import statsmodels.api as sm

    candidates = list(candidates)
    n = X.shape[0]
    k = effective_n_splines(n, len(candidates), n_splines, degree)
    blocks: List[Tuple[int, int]] = []
    cols = []
    start = 1  # column 0 is the intercept
    for p in candidates:
        B = spline_design(X[:, [p]], k, degree)
        cols.append(B)
        blocks.append((start, start + B.shape[1]))
        start += B.shape[1]
    Z = np.hstack([np.ones((n, 1))] + cols)
    fit = sm.OLS(X[:, child], Z).fit()
    pvals = np.ones(len(candidates))
    for i, (a, b) in enumerate(blocks):
        R = np.zeros((b - a, Z.shape[1]))
        R[np.arange(b - a), np.arange(a, b)] = 1.0
        p = float(np.asarray(fit.f_test(R).pvalue))
        pvals[i] = p if np.isfinite(p) else 1.0
    return pvals


def cam_prune(X: np.ndarray, candidates: np.ndarray, alpha: float = 0.05, n_splines: int = 10,
              degree: int = 3) -> Tuple[np.ndarray, np.ndarray]:
    """CAM significance pruning of a candidate DAG (Bühlmann et al. 2014, §5.2).

    Args:
        X: (n × d) data.
        candidates: (d × d) 0/1 candidate adjacency, row = parent (a DAG).
        alpha: significance level of the per-parent F-test.

    Returns:
        ``(adjacency, pvalues)``: the pruned (d × d) int8 DAG and the (d × d) p-values of the
        candidate edges (1.0 where no candidate was tested).
    """
    d = candidates.shape[0]
    A = np.zeros((d, d), dtype=np.int8)
    P = np.ones((d, d))
    for child in range(d):
        parents = np.flatnonzero(candidates[:, child])
        if len(parents) == 0:
            continue
        pv = cam_parent_pvalues(X, child, parents, n_splines, degree)
        P[parents, child] = pv
        A[parents[pv < alpha], child] = 1
    return A, P
