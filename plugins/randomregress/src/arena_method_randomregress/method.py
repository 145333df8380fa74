"""randomregress: a seeded random order, then sparse regression on predecessors.

The control of Reisach et al. (2021, Sec. 4: "randomregress" uses a random
ordering and otherwise matches sortnregress) and the "RandomRegress" control
of CausalArena (App. B.4: "a fixed-seed random-order regression baseline. It
outputs a directed graph from nonzero regression support").

1. ``order = numpy.random.default_rng(seed).permutation(d)`` with
   ``seed = random_state`` if given, else ``dataset.metadata["seed"]``;
2. for the k-th variable of the order: OLS on its predecessors gives adaptive
   weights ``w = |beta_OLS|``; ``LassoLarsIC(criterion="bic")`` on the
   predecessors scaled by ``w`` gives ``W[i, j] = coef_i * w_i``
   (reference code ``randomregress`` in github.com/Scriddie/Varsortability);
3. nonzero ``W[i, j]`` is the edge i → j (row = parent): a DAG by construction.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method
from causalarena.ordering import regress_on_predecessors


def random_order(d: int, seed: int) -> np.ndarray:
    """The permutation of ``range(d)`` used for ``seed``: ``default_rng(seed).permutation(d)``."""
    return np.random.default_rng(seed).permutation(d)


class RandomRegress(Method):
    """RandomRegress: a DAG from a seeded random order and adaptive Lasso.

    Parameters:
        criterion: information criterion of ``LassoLarsIC`` (``"bic"``).
        random_state: seed of the order; ``None`` (default) uses
            ``dataset.metadata["seed"]``, the cell seed, so the control is
            fixed per cell and identical across re-runs.

    After ``fit``: ``adjacency_`` (d × d) 0/1 DAG, ``edge_scores_ = |W|``,
    ``order_`` the random order, ``native_`` the weighted matrix W.
    """

    output_kind = "dag"

    def __init__(self, criterion: str = "bic", random_state: Optional[int] = None) -> None:
        self.criterion = criterion
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import scikit-learn once per worker (load time, not the first fit; paper §5.5)."""
        from sklearn.linear_model import LassoLarsIC, LinearRegression  # noqa: F401

    def fit(self, dataset: Dataset) -> "RandomRegress":
        """Fit on ``dataset.X`` (n × d); the intervention mask is ignored.

        Raises:
            ValueError: no ``random_state`` and no ``metadata["seed"]``; non-finite
                entries in ``X`` (named by column); scikit-learn's ValueError when
                n is too small.
        """
        seed = self.random_state
        if seed is None:
            seed = dataset.metadata.get("seed")
            if seed is None:
                raise ValueError("randomregress needs dataset.metadata['seed'] (or random_state=...)")
        X = np.asarray(dataset.X, dtype=float)
        bad = ~np.isfinite(X).all(axis=0)
        if bad.any():
            names = [dataset.columns[j] for j in np.flatnonzero(bad)]
            raise ValueError(f"randomregress needs finite data; non-finite values in columns {names}")
        self.order_ = random_order(X.shape[1], int(seed))
        W = regress_on_predecessors(X, self.order_, self.criterion)
        self.native_ = W
        self.edge_scores_ = np.abs(W)
        self.adjacency_ = (W != 0).astype(np.int8)
        return self
