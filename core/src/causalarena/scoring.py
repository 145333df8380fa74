"""How a discovery run is scored: the scorer protocol and the registry's default scorer (App. B.2)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from .conventions import CPDAG_ORIENTATIONS
from .data import Prediction

#: ``(true_adjacency, prediction, seed) -> (metrics, warnings)`` or ``(metrics, warnings, scored_adjacency)``:
#: the optional third item is the d × d DAG the metrics were computed on (after CPDAG orientation), which the
#: runner stores as the run's prediction. A scorer returning two items gets a DAG output's adjacency stored
#: as is, and no stored prediction for a CPDAG/PAG output (what it scored is unknown).
Scorer = Callable[[np.ndarray, Prediction, int], Tuple[Any, ...]]


def default_scorer(metrics: Mapping[str, Any], orientation: str = CPDAG_ORIENTATIONS[0]) -> Scorer:
    """Score with the registry's metrics (App. B.2).

    CPDAG and PAG predictions have their undirected edges oriented at random
    with the cell seed by ``orientation`` (:func:`causalarena.metrics.orient_cpdag`:
    ``"mec"``, a random member of the Markov equivalence class, or
    ``"linear_extension"``); the DAG is then scored by
    :func:`causalarena.metrics.compute_metrics`. Returns ``(metrics,
    warnings, dag)``, ``dag`` the scored (d × d) adjacency (:data:`Scorer`).
    """
    from .metrics import compute_metrics, orient_cpdag

    def score(truth: np.ndarray, prediction: Prediction, seed: int
              ) -> Tuple[Dict[str, Optional[float]], List[str], np.ndarray]:
        adjacency = np.asarray(prediction.adjacency)
        warnings: List[str] = []
        if prediction.kind in ("cpdag", "pag"):
            adjacency = orient_cpdag(adjacency, seed, rule=orientation, flags=warnings)
            if (np.asarray(prediction.adjacency) != adjacency).any():
                warnings.append("oriented_undirected_edges")
        values, w = compute_metrics(truth, adjacency, prediction.edge_scores, metrics)
        return values, warnings + list(w), adjacency

    return score
