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

from causalarena.data import Dataset
from causalarena.method import Method


def causallearn_to_adjacency(graph: np.ndarray) -> np.ndarray:
    """Convert a causal-learn ``GeneralGraph.graph`` endpoint matrix to our adjacency.

    causal-learn encodes i → j as ``graph[j, i] = 1, graph[i, j] = -1``
    (an arrowhead at j, a tail at i) and i — j as ``graph[i, j] = graph[j, i] = -1``
    (causal-learn's ``GeneralGraph`` docstring and the ``pc``/``ges`` return values).
    A bidirected pair ``graph[i, j] = graph[j, i] = 1`` (conflicting v-structures)
    leaves the orientation unknown and is returned as undirected.

    Args:
        graph: (d × d) integer endpoint matrix.

    Returns:
        (d × d) int8, ``A[i, j] = 1`` for i → j; ``A[i, j] = A[j, i] = 1`` for an
        undirected (or bidirected) pair.

    Raises:
        ValueError: not square, or an endpoint value outside {−1, 0, 1}
            (PAG circle endpoints, value 2, are not a CPDAG).
    """
    G = np.asarray(graph)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"causal-learn graph must be square (d × d), got shape {G.shape}")
    if not np.isin(G, (-1, 0, 1)).all():
        raise ValueError(f"causal-learn graph has endpoint values {sorted(set(np.unique(G).tolist()) - {-1, 0, 1})}"
                         " outside {-1, 0, 1}: not a CPDAG")
    directed = (G == -1) & (G.T == 1)
    undirected = (G == -1) & (G.T == -1)
    bidirected = (G == 1) & (G.T == 1)
    return (directed | undirected | bidirected).astype(np.int8)


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
