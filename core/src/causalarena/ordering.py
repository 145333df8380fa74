"""Order-based DAG estimation shared by the ordering baselines.

Reisach, Seiler & Weichwald (2021), "Beware of the Simulated DAG", Sec. 4:
given a causal order, regress each variable on its predecessors with an
adaptive Lasso (``LassoLarsIC``, BIC) and keep the nonzero coefficients.
``sortnregress`` (variance order) and ``randomregress`` (random order) differ
only in the order, so they share this step; :func:`order_by_score` is the
sort with its tie rule, shared by every baseline that orders by a score
(marginal variance, R²).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

#: Relative tolerance of a tie in :func:`order_by_score`: two scores are tied
#: when they differ by at most ``TIE_RTOL · max |score|``. Standardised columns
#: have variances 1 ± ~1e-15 (floating-point noise of the z-scoring), far below
#: it; distinct variances or R² of real data differ by far more.
TIE_RTOL = 1e-9


def order_by_score(scores: Sequence[float], rtol: float = TIE_RTOL) -> np.ndarray:
    """The order of increasing score, ties falling back to the column order.

    Ties: scores are sorted, and consecutive sorted scores at most
    ``rtol · max |score|`` apart belong to one tie group (single linkage, so
    the rule does not depend on the column order: any two scores within the
    tolerance are in one group). Groups come in increasing score; inside a
    group the columns keep their order (lowest index first). All scores zero
    is one group. With ``rtol = 0`` this is ``np.argsort(scores, kind="stable")``.

    Used for sortnregress's variance order (on standardised data every
    variance is 1 up to ~1e-15, so the order is the column order, not
    floating-point noise) and for R²-sortnregress's R² order (the two ends of
    a lone edge have the same R²). Reisach, Seiler & Weichwald (2021), Sec. 4.

    Args:
        scores: (d,) finite floats (marginal variances, R² ...).
        rtol: relative tie tolerance, ``>= 0`` (default :data:`TIE_RTOL`).

    Returns:
        (d,) int64, a permutation of ``range(d)``; ``order[0]`` has the lowest score.

    Raises:
        ValueError: ``scores`` is not one-dimensional, has non-finite entries
            (their positions named), or ``rtol`` is negative or not finite.
    """
    v = np.asarray(scores, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"order_by_score: scores must be one-dimensional (d,), got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"order_by_score: scores must be finite; non-finite at positions "
                         f"{np.flatnonzero(~np.isfinite(v)).tolist()}")
    if not (np.isfinite(rtol) and rtol >= 0):
        raise ValueError(f"order_by_score: rtol must be a finite number >= 0, got {rtol!r}")
    if v.size == 0:
        return np.zeros(0, dtype=np.int64)
    by_value = np.argsort(v, kind="stable")
    tol = float(rtol) * float(np.max(np.abs(v)))
    # a new group starts where the gap to the previous sorted score exceeds the tolerance
    group_of_sorted = np.concatenate(([0], np.cumsum(np.diff(v[by_value]) > tol)))
    group = np.empty(v.size, dtype=np.int64)
    group[by_value] = group_of_sorted
    return np.lexsort((np.arange(v.size), group)).astype(np.int64)


def regress_on_predecessors(X: np.ndarray, order: Sequence[int], criterion: str = "bic") -> np.ndarray:
    """Weighted adjacency from sparse regression of each node on its predecessors.

    Args:
        X: (n × d) data.
        order: a permutation of ``range(d)``; ``order[0]`` has no parents.
        criterion: ``"bic"`` or ``"aic"`` for :class:`sklearn.linear_model.LassoLarsIC`.

    Returns:
        W: (d × d) float, ``W[i, j] != 0`` iff i → j.

    Raises:
        ValueError: ``order`` is not a permutation of ``range(d)``; scikit-learn's
            own ValueError when n is too small for the information criterion.
    """
    from sklearn.linear_model import LassoLarsIC, LinearRegression

    n, d = X.shape
    order = [int(j) for j in order]
    if sorted(order) != list(range(d)):
        raise ValueError(f"order must be a permutation of range({d}), got {order}")
    W = np.zeros((d, d))
    for k in range(1, d):
        covariates, target = order[:k], order[k]
        Z, y = X[:, covariates], X[:, target]
        weight = np.abs(LinearRegression().fit(Z, y).coef_)
        lasso = LassoLarsIC(criterion=criterion).fit(Z * weight, y)
        W[covariates, target] = lasso.coef_ * weight
    return W
