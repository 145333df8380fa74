"""Order-based DAG estimation shared by the ordering baselines.

Reisach, Seiler & Weichwald (2021), "Beware of the Simulated DAG", Sec. 4:
given a causal order, regress each variable on its predecessors with an
adaptive Lasso (``LassoLarsIC``, BIC) and keep the nonzero coefficients.
``sortnregress`` (variance order) and ``randomregress`` (random order) differ
only in the order, so they share this step.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


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
