"""GIES from the ``gies`` package (Gamella & Kolotuhina), wrapped as a CausalArena method.

Defaults (CausalArena paper, App. B.4): "Uses the interventional score with
the BIC-style penalty left at the wrapper default", i.e. the package's
``fit_bic``: the l0-penalised Gaussian log-likelihood of the interventional
setting with ``lmbda = log(N) / 2`` (N = all rows), all three phases
(forward, backward, turning), iterated. ``GaussIntL0Pen`` + ``gies.fit`` with
``lmbda=None`` is exactly what ``gies.fit_bic`` runs; the plugin builds the
score itself only so that ``lmbda`` can be set.

Environments: GIES (Hauser & Bühlmann 2012, Sec. 2) takes a family of
intervention targets with one data set per target. The rows are split by
their ``intervention_mask`` pattern (see :func:`split_environments`); the
all-False pattern is the observational environment with targets ``[]``, so an
obs-only table gives one environment and GIES reduces to GES.

Output: ``gies`` returns the I-essential graph as a (d × d) matrix with
``A[i, j] != 0`` for i → j and both entries nonzero for i — j (docstring of
``gies.fit_bic``; checked on a v-structure and on chains in the tests). That
is the arena's convention already (row = parent, undirected = both
directions), so the conversion is ``adjacency_ = (native_ != 0)``: no
transpose. Library errors propagate unchanged (the runner records them):
``ValueError("The family of targets is not conservative")`` when a variable is
intervened in every row, ``numpy.linalg.LinAlgError`` on a singular
covariance.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method


def split_environments(X: np.ndarray, intervention_mask: np.ndarray
                       ) -> Tuple[List[np.ndarray], List[List[int]], np.ndarray]:
    """Split rows into GIES environments, one per distinct intervention-mask row.

    Args:
        X: (n × d) data.
        intervention_mask: (n × d) bool, True where the entry was set by an
            intervention. A row with several True entries (multi-target
            intervention) belongs to the environment whose targets are all of
            them together, not to one environment per target.

    Returns:
        ``data``: list of (n_e × d) float arrays, one per environment;
        ``targets``: list of sorted column-index lists (``[]`` = observational);
        ``environment``: (n,) int, the environment index of every row.
        Environments are in lexicographic order of the mask pattern
        (``numpy.unique``), so the observational one, if present, is first.

    Raises:
        ValueError: shapes do not match or the mask is not 2-D.
    """
    X = np.asarray(X, dtype=float)
    mask = np.asarray(intervention_mask, dtype=bool)
    if mask.ndim != 2 or mask.shape != X.shape:
        raise ValueError(f"intervention_mask has shape {mask.shape}, expected X's shape {X.shape}")
    patterns, environment = np.unique(mask, axis=0, return_inverse=True)
    environment = np.asarray(environment).reshape(-1)  # numpy 2.0.0 returned (n, 1)
    order = np.argsort(environment, kind="stable")
    bounds = np.cumsum(np.bincount(environment, minlength=len(patterns)))[:-1]
    data = [np.ascontiguousarray(block) for block in np.split(X[order], bounds)]
    targets = [np.flatnonzero(p).tolist() for p in patterns]
    return data, targets, environment


class GIES(Method):
    """Greedy interventional equivalence search (Hauser & Bühlmann 2012).

    Parameters (passed to ``gies.scores.gauss_int_l0_pen.GaussIntL0Pen`` and ``gies.fit``):
        lmbda: l0 penalty per parameter; ``None`` = BIC, ``log(N) / 2`` with N the number of rows.
        phases: GIES phases in order (``"forward"``, ``"backward"``, ``"turning"``).
        iterate: repeat the phases while the score improves.

    After ``fit``: ``adjacency_`` (d × d) I-essential graph in the arena's CPDAG
    encoding (row = parent, undirected edge = both entries); ``native_`` the
    package's matrix; ``targets_`` the intervention targets of each
    environment (column indices); ``score_`` the total score of the estimate.
    """

    output_kind = "cpdag"

    def __init__(self, lmbda: Optional[float] = None,
                 phases: Sequence[str] = ("forward", "backward", "turning"),
                 iterate: bool = True) -> None:
        self.lmbda = lmbda
        self.phases = phases
        self.iterate = iterate

    @classmethod
    def preload(cls) -> None:
        """Import gies once per worker (load time, not the first fit; paper §5.5)."""
        import gies  # noqa: F401
        from gies.scores.gauss_int_l0_pen import GaussIntL0Pen  # noqa: F401

    def fit(self, dataset: Dataset) -> "GIES":
        """Run GIES on ``dataset.X`` (n × d) with environments from ``dataset.intervention_mask``.

        Raises:
            ValueError: from ``gies`` when the target family is not conservative
                (a variable intervened in every row) or a phase name is unknown.
            numpy.linalg.LinAlgError: singular covariance sub-matrix. Neither is caught here.
        """
        import gies
        from gies.scores.gauss_int_l0_pen import GaussIntL0Pen

        data, targets, _ = split_environments(dataset.X, dataset.intervention_mask)
        score = GaussIntL0Pen(data, targets, lmbda=self.lmbda)
        native, total = gies.fit(score, None, list(self.phases), self.iterate)
        self.native_ = np.asarray(native, dtype=float)
        self.adjacency_ = gies_to_adjacency(self.native_)
        self.targets_ = targets
        self.score_ = float(total)
        return self


def gies_to_adjacency(native: np.ndarray) -> np.ndarray:
    """Convert a ``gies`` I-essential graph to the arena's CPDAG adjacency.

    ``gies`` encodes i → j as ``native[i, j] != 0, native[j, i] == 0`` and
    i — j as both entries nonzero: the arena's convention, so the rule is
    ``A = (native != 0)`` (no transpose).

    Args:
        native: (d × d) numeric matrix returned by ``gies.fit`` / ``gies.fit_bic``.

    Returns:
        (d × d) int8 0/1 adjacency, row = parent.

    Raises:
        ValueError: not square, or non-finite entries.
    """
    G = np.asarray(native, dtype=float)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"gies graph must be square (d × d), got shape {G.shape}")
    if not np.isfinite(G).all():
        raise ValueError("gies graph has non-finite entries")
    return (G != 0).astype(np.int8)
