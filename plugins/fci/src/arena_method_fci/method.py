"""FCI from causal-learn, wrapped as a CausalArena method.

Defaults: Fisher-z CI tests with alpha = 0.05 — the paper's App. B.4 gives no
FCI settings, so these are PC's (App. B.4 "Fisher-z CI tests and alpha =
0.05") — and causal-learn's unlimited ``depth`` and ``max_path_length``.
The output is causal-learn's PAG, kept in ``native_`` and converted by
:func:`causalarena.conventions.causallearn_pag_to_adjacency` (the rule is in
its docstring and the README). Library errors propagate unchanged: the runner
records them as a status.
"""

from __future__ import annotations

import numpy as np

from causalarena.conventions import causallearn_pag_to_adjacency
from causalarena.data import Dataset
from causalarena.method import Method


class FCI(Method):
    """FCI (Spirtes, Meek & Richardson 1995) with Zhang's (2008) complete orientation rules.

    Parameters (passed to ``causallearn.search.ConstraintBased.FCI.fci``):
        alpha: significance level of the CI tests.
        indep_test: causal-learn test name (``"fisherz"``).
        depth: maximum conditioning-set size (−1: unlimited).
        max_path_length: maximum length of discriminating paths (−1: unlimited).

    After ``fit``: ``adjacency_`` (d × d) in our convention (i → j is
    ``A[i, j] = 1``; undirected pairs have both entries), ``native_`` the PAG
    endpoint matrix (−1 tail, 1 arrowhead, 2 circle; ``native_[i, j]`` is the
    mark at i).
    """

    output_kind = "pag"

    def __init__(self, alpha: float = 0.05, indep_test: str = "fisherz", depth: int = -1,
                 max_path_length: int = -1) -> None:
        self.alpha = alpha
        self.indep_test = indep_test
        self.depth = depth
        self.max_path_length = max_path_length

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

    def fit(self, dataset: Dataset) -> "FCI":
        """Run FCI on ``dataset.X`` (n × d); the intervention mask is ignored.

        Raises:
            ValueError: from causal-learn (e.g. a singular correlation matrix);
                never caught here.
        """
        from causallearn.search.ConstraintBased.FCI import fci

        X = np.array(dataset.X, dtype=float)  # causal-learn gets its own copy
        graph, _edges = fci(X, independence_test_method=self.indep_test, alpha=self.alpha, depth=self.depth,
                            max_path_length=self.max_path_length, verbose=False, show_progress=False)
        self.native_ = np.asarray(graph.graph, dtype=np.int64)
        self.adjacency_ = causallearn_pag_to_adjacency(self.native_)
        return self
