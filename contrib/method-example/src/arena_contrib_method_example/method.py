"""R²-sortnregress: order by R² on all other variables, regress on predecessors.

Reisach, Tami, Seiler, Lachapelle & Weichwald (NeurIPS 2023), "A Scale-Invariant
Sorting Criterion to Find a Causal Order in Additive Noise Models", and the
reference code ``r2_sort_regress`` (package CausalDisco):

1. for each variable j, R²_j = the coefficient of determination of regressing
   X_j on all other variables (least squares with intercept). Unlike the
   marginal variance (sortnregress), R² does not change when a column is
   rescaled, so standardising the data does not remove this order;
2. order the variables by increasing R²; ties — R² within ``1e-9 · max R²`` of
   each other (:func:`causalarena.ordering.order_by_score`, the tie rule of
   sortnregress), e.g. the two ends of a single edge — keep the column order;
3. for the k-th variable in that order, ordinary least squares on its k − 1
   predecessors gives adaptive weights ``w = |beta|``; ``LassoLarsIC`` (BIC) on
   the predecessors scaled by ``w`` gives ``W[i, j] = coef_i · w_i``;
4. nonzero ``W[i, j]`` is the edge i → j (row = parent). Parents precede
   children in a total order, so the output is a DAG.
"""

from __future__ import annotations

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method
from causalarena.ordering import TIE_RTOL, order_by_score


def r2_scores(X: np.ndarray) -> np.ndarray:
    """(d,) R² of each column regressed (with intercept) on all the others, in [0, 1]."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    Z = X - X.mean(axis=0)
    r2 = np.zeros(d)
    for j in range(d):
        others = np.delete(Z, j, axis=1)
        y = Z[:, j]
        tss = float(y @ y)
        if d == 1 or tss == 0.0:
            continue
        coef, *_ = np.linalg.lstsq(others, y, rcond=None)
        resid = y - others @ coef
        r2[j] = 1.0 - float(resid @ resid) / tss
    return np.clip(np.round(r2, 12), 0.0, 1.0)


class R2SortNRegress(Method):
    """R²-sortnregress (Reisach et al. 2023): a DAG from the R² order and an adaptive Lasso.

    Parameters:
        criterion: information criterion of ``LassoLarsIC`` (``"bic"``, the paper's choice, or ``"aic"``).
        tie_rtol: relative tolerance under which two R² are tied and keep the column order
            (default :data:`causalarena.ordering.TIE_RTOL` = 1e-9).

    After ``fit``: ``adjacency_`` (d × d) 0/1 DAG, ``edge_scores_ = |W|``,
    ``r2_`` the R² scores, ``order_`` the R² order, ``native_`` the weighted matrix W.
    """

    output_kind = "dag"

    def __init__(self, criterion: str = "bic", tie_rtol: float = TIE_RTOL) -> None:
        self.criterion = criterion
        self.tie_rtol = tie_rtol

    def fit(self, dataset: Dataset) -> "R2SortNRegress":
        """Fit on ``dataset.X`` (n × d); the intervention mask and any truth are ignored.

        Raises:
            ValueError: non-finite entries in ``X`` (columns named); scikit-learn's ValueError
                when n is too small for the information criterion.
        """
        from sklearn.linear_model import LassoLarsIC, LinearRegression

        X = np.asarray(dataset.X, dtype=float)
        bad = ~np.isfinite(X).all(axis=0)
        if bad.any():
            raise ValueError(f"r2sortnregress needs finite data; non-finite values in columns "
                             f"{[dataset.columns[j] for j in np.flatnonzero(bad)]}")
        d = X.shape[1]
        self.r2_ = r2_scores(X)
        self.order_ = order_by_score(self.r2_, self.tie_rtol)
        W = np.zeros((d, d))
        for k in range(1, d):
            covariates, target = self.order_[:k], self.order_[k]
            Z, y = X[:, covariates], X[:, target]
            weight = np.abs(LinearRegression().fit(Z, y).coef_)
            lasso = LassoLarsIC(criterion=self.criterion).fit(Z * weight, y)
            W[covariates, target] = lasso.coef_ * weight
        self.native_ = W
        self.edge_scores_ = np.abs(W)
        self.adjacency_ = (W != 0).astype(np.int8)
        return self
