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

from causalarena.data import Dataset
from causalarena.method import Method


def causallearn_to_adjacency(graph: np.ndarray) -> np.ndarray:
    """Convert a causal-learn ``GeneralGraph.graph`` endpoint matrix to our adjacency.

    causal-learn encodes i → j as ``graph[j, i] = 1, graph[i, j] = -1`` and
    i — j as ``graph[i, j] = graph[j, i] = -1`` (``ges`` docstring: "Record['G'].graph[j,i]=1
    and Record['G'].graph[i,j]=-1 indicates i --> j"). A bidirected pair (both 1)
    is returned as undirected.

    Args:
        graph: (d × d) integer endpoint matrix.

    Returns:
        (d × d) int8, ``A[i, j] = 1`` for i → j; both entries 1 for i — j.

    Raises:
        ValueError: not square, or endpoint values outside {−1, 0, 1}.
    """
    # Duplicated in arena-method-pc on purpose: each distribution installs alone.
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
