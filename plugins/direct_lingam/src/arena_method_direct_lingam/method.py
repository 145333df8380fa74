"""DirectLiNGAM from the ``lingam`` package, wrapped as a CausalArena method.

Defaults (CausalArena App. B.4: "the standard DirectLiNGAM wrapper and reports
the returned directed graph"): ``lingam.DirectLiNGAM(measure="pwling")``, no
prior knowledge. ``random_state`` defaults to ``dataset.metadata["seed"]``.

Convention: lingam's ``adjacency_matrix_`` B is the SEM coefficient matrix,
``x = B x + e``, so ``B[i, j] != 0`` means j → i (row = child). Ours is
row = parent, hence ``adjacency_ = (B.T != 0)`` and ``edge_scores_ = |B.T|``.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method


def lingam_to_adjacency(B: np.ndarray) -> np.ndarray:
    """lingam's B (``B[i, j] != 0`` ⇔ j → i) to our 0/1 adjacency (row = parent), (d × d) int8.

    Raises:
        ValueError: B is not square or has non-finite entries.
    """
    B = np.asarray(B, dtype=float)
    if B.ndim != 2 or B.shape[0] != B.shape[1]:
        raise ValueError(f"lingam adjacency_matrix_ must be square (d × d), got shape {B.shape}")
    if not np.isfinite(B).all():
        raise ValueError("lingam adjacency_matrix_ has non-finite entries (duplicate or constant column? case I5)")
    return (B.T != 0).astype(np.int8)


class DirectLiNGAM(Method):
    """DirectLiNGAM (Shimizu et al. 2011).

    Parameters:
        measure: lingam's independence measure (``"pwling"`` default, or ``"kernel"``).
        random_state: seed passed to lingam; ``None`` uses ``dataset.metadata["seed"]``.

    After ``fit``: ``adjacency_`` (d × d) DAG, ``edge_scores_ = |B.T|``,
    ``native_`` = B (lingam's convention), ``causal_order_``.
    """

    output_kind = "dag"

    def __init__(self, measure: str = "pwling", random_state: Optional[int] = None) -> None:
        self.measure = measure
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import lingam once per worker (load time, not the first fit; paper §5.5)."""
        import lingam  # noqa: F401

    def fit(self, dataset: Dataset) -> "DirectLiNGAM":
        """Run DirectLiNGAM on ``dataset.X`` (n × d); the intervention mask is ignored.

        Raises:
            ValueError: lingam's own errors (e.g. n < d), and non-finite B (named).
        """
        import lingam

        seed = self.random_state if self.random_state is not None else dataset.metadata.get("seed")
        model = lingam.DirectLiNGAM(random_state=seed, measure=self.measure)
        model.fit(np.array(dataset.X, dtype=float))
        B = np.asarray(model.adjacency_matrix_, dtype=float)
        self.adjacency_ = lingam_to_adjacency(B)
        self.edge_scores_ = np.abs(B.T)
        self.native_ = B
        self.causal_order_ = list(model.causal_order_)
        return self
