"""PC from causal-learn, wrapped as a CausalArena method.

Defaults (CausalArena App. B.4): "stable PC with Fisher-z CI tests and
alpha = 0.05"; the remaining arguments are causal-learn's defaults
(``uc_rule=0``, ``uc_priority=2``). The output is causal-learn's CPDAG,
converted by :func:`causallearn_to_adjacency`. Errors of the library
(``ValueError: Data correlation matrix is singular``, ``math domain error``)
propagate unchanged: the runner records them as a status (cases I1, I3).
"""

from __future__ import annotations

import numpy as np

from causalarena.conventions import causallearn_to_adjacency  # noqa: F401 (re-exported)
from causalarena.data import Dataset
from causalarena.method import Method


class PC(Method):
    """PC (Spirtes et al. 2000), order-independent ("stable") skeleton (Colombo & Maathuis 2014).

    Parameters (passed to ``causallearn.search.ConstraintBased.PC.pc``):
        alpha: significance level of the CI tests.
        indep_test: causal-learn test name (``"fisherz"``).
        stable: stable skeleton discovery.
        uc_rule, uc_priority: causal-learn's unshielded-collider rules.

    After ``fit``: ``adjacency_`` (d × d) CPDAG in our convention,
    ``native_`` causal-learn's endpoint matrix.
    """

    output_kind = "cpdag"

    def __init__(self, alpha: float = 0.05, indep_test: str = "fisherz", stable: bool = True,
                 uc_rule: int = 0, uc_priority: int = 2) -> None:
        self.alpha = alpha
        self.indep_test = indep_test
        self.stable = stable
        self.uc_rule = uc_rule
        self.uc_priority = uc_priority

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

    def fit(self, dataset: Dataset) -> "PC":
        """Run PC on ``dataset.X`` (n × d); the intervention mask is ignored.

        Raises:
            ValueError: from causal-learn, e.g. a singular correlation matrix;
                never caught here.
        """
        from causallearn.search.ConstraintBased.PC import pc

        X = np.array(dataset.X, dtype=float)  # causal-learn gets its own copy
        cg = pc(X, alpha=self.alpha, indep_test=self.indep_test, stable=self.stable,
                uc_rule=self.uc_rule, uc_priority=self.uc_priority,
                show_progress=False, verbose=False)
        self.native_ = np.asarray(cg.G.graph, dtype=np.int64)
        self.adjacency_ = causallearn_to_adjacency(self.native_)
        return self
