"""sortnregress: order by increasing marginal variance, regress on predecessors.

Algorithm (Reisach et al. 2021, Sec. 4 "sortnregress", and the reference code
``sortnregress`` in github.com/Scriddie/Varsortability):

1. order the variables by increasing marginal variance ``Var(X_j)``;
2. for the k-th variable in that order, fit ordinary least squares on its
   k − 1 predecessors to get adaptive weights ``w = |beta_OLS|``;
3. fit ``LassoLarsIC(criterion="bic")`` on the predecessors scaled by ``w``
   (an adaptive Lasso) and set ``W[i, j] = coef_i * w_i``;
4. nonzero ``W[i, j]`` is the edge i → j (row = parent).

The order is a total order and parents always precede children, so the
output is a DAG by construction. Ties: variances within a relative tolerance
(``|Var_i − Var_j| ≤ 1e-9 · max Var``, :data:`causalarena.ordering.TIE_RTOL`,
:func:`causalarena.ordering.order_by_score`) keep the column order. On
standardised data every variance is 1 up to floating-point noise (~1e-15), so
the order is the column order — not an order picked by rounding errors.
"""

from __future__ import annotations

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method
from causalarena.ordering import TIE_RTOL, order_by_score, regress_on_predecessors


class SortNRegress(Method):
    """sortnregress (Reisach et al. 2021): a DAG from variance order and adaptive Lasso.

    Parameters:
        criterion: information criterion of ``LassoLarsIC`` (``"bic"``, the paper's choice).
        tie_rtol: relative tolerance under which two variances are tied and keep the
            column order (default :data:`causalarena.ordering.TIE_RTOL` = 1e-9; 0 sorts
            by the exact floating-point variances).

    After ``fit``: ``adjacency_`` (d × d) 0/1 DAG, ``edge_scores_ = |W|``,
    ``variances_`` the (d,) marginal variances, ``order_`` the variance order,
    ``native_`` the weighted matrix W.
    """

    output_kind = "dag"

    def __init__(self, criterion: str = "bic", tie_rtol: float = TIE_RTOL) -> None:
        self.criterion = criterion
        self.tie_rtol = tie_rtol

    @classmethod
    def preload(cls) -> None:
        """Import scikit-learn once per worker (load time, not the first fit; paper §5.5)."""
        from sklearn.linear_model import LassoLarsIC, LinearRegression  # noqa: F401

    def fit(self, dataset: Dataset) -> "SortNRegress":
        """Fit on ``dataset.X`` (n × d); the intervention mask is ignored.

        Raises:
            ValueError: non-finite entries in ``X`` (named by column); scikit-learn's
                ValueError when n is too small.
        """
        X = _finite(dataset)
        self.variances_ = X.var(axis=0)
        # ties within tie_rtol (standardised data: 1 ± 1e-15) keep the column order
        self.order_ = order_by_score(self.variances_, self.tie_rtol)
        W = regress_on_predecessors(X, self.order_, self.criterion)
        self.native_ = W
        self.edge_scores_ = np.abs(W)
        self.adjacency_ = (W != 0).astype(np.int8)
        return self


def _finite(dataset: Dataset) -> np.ndarray:
    X = np.asarray(dataset.X, dtype=float)
    bad = ~np.isfinite(X).all(axis=0)
    if bad.any():
        names = [dataset.columns[j] for j in np.flatnonzero(bad)]
        raise ValueError(f"sortnregress needs finite data; non-finite values in columns {names}")
    return X
