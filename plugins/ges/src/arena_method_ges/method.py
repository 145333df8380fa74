"""GES from causal-learn, wrapped as a CausalArena method.

Defaults: causal-learn's ``ges(X, score_func="local_score_BIC", maxP=None)``
(the CausalArena paper lists no GES setting; its GIES uses "the BIC-style
penalty left at the wrapper default", App. B.4). The output is causal-learn's
CPDAG (``Record["G"]``), converted by :func:`causallearn_to_adjacency`.
Library errors propagate unchanged (the runner records them, case I12).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from causalarena.conventions import causallearn_to_adjacency  # noqa: F401 (re-exported)
from causalarena.data import Dataset
from causalarena.method import Method


class GES(Method):
    """Greedy equivalence search (Chickering 2002).

    Parameters (passed to ``causallearn.search.ScoreBased.GES.ges``):
        score_func: causal-learn score name (``"local_score_BIC"``).
        maxP: maximum number of parents (``None`` = unbounded).

    After ``fit``: ``adjacency_`` (d × d) CPDAG in our convention,
    ``native_`` causal-learn's endpoint matrix.
    """

    output_kind = "cpdag"

    def __init__(self, score_func: str = "local_score_BIC", maxP: Optional[int] = None) -> None:
        self.score_func = score_func
        self.maxP = maxP

    @classmethod
    def preload(cls) -> None:
        """Import causal-learn and run one tiny fit, once per worker (load time; paper §5.5).

        causal-learn imports about 2,000 modules lazily on its first call (3 s
        measured); without the warm-up that one-time cost lands in the first
        graph's fit time.
        """
        rng = np.random.default_rng(0)
        x = rng.normal(size=(60, 1))
        X = np.hstack([x, x + rng.normal(size=(60, 1)), rng.normal(size=(60, 1))])
        cls().fit(Dataset(X=X, columns=["a", "b", "c"], metadata={"seed": 0}))

    def fit(self, dataset: Dataset) -> "GES":
        """Run GES on ``dataset.X`` (n × d); the intervention mask is ignored.

        Raises:
            Exceptions of causal-learn (e.g. TypeError on degenerate input), never caught here.
        """
        from causallearn.search.ScoreBased.GES import ges

        X = np.array(dataset.X, dtype=float)
        record = ges(X, score_func=self.score_func, maxP=self.maxP)
        self.native_ = np.asarray(record["G"].graph, dtype=np.int64)
        self.adjacency_ = causallearn_to_adjacency(self.native_)
        return self
