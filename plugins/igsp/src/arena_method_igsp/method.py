"""IGSP from ``graphical_model_learning`` (Squires, Uhler lab), wrapped as a CausalArena method.

IGSP (Wang, Solus, Yang & Uhler 2017, Alg. 1) searches over permutations: each
permutation gives a minimal I-MAP from conditional-independence (CI) tests on the
observational data, and the depth-first search moves along I-covered arcs
towards sparser DAGs with fewer I-contradicting arcs, the latter decided by
invariance tests between the observational and each interventional setting.

Library calls (``graphical_model_learning==0.1a8``, ``conditional_independence==0.1a6``)::

    ci_tester  = MemoizedCI_Tester(partial_correlation_test,
                                   partial_correlation_suffstat(X_obs), alpha=alpha)
    inv_tester = MemoizedInvarianceTester(gauss_invariance_test,
                                          gauss_invariance_suffstat(X_obs, [X_s for each setting s]),
                                          alpha=alpha_inv)
    dag = gml.igsp(settings, set(range(d)), ci_tester, inv_tester, depth=depth, nruns=nruns)

Defaults (CausalArena paper, App. B.4): "Gaussian CI-style tests with
alpha = alpha_inv = 1e-3, depth 4, and 5 runs by default. It reports a
directed graph directly." The CI test is Fisher's z on partial correlations,
the invariance test ``gauss_invariance_test`` (F-test on residual variances plus
a test of equal regression coefficients, Bonferroni-combined). Other options are
the library defaults (starting permutations from the minimum-degree order of a
thresholded partial-correlation graph, ``initial_undirected="threshold"``).

Settings: rows are split by their ``intervention_mask`` pattern
(:func:`split_settings`); the all-False pattern is the observational data, every
other distinct pattern one interventional setting whose targets are its True
columns (multi-target rows form one setting with all their targets). IGSP needs
observational rows: without any, fit raises ``ValueError``.

Randomness: ``igsp`` draws from Python's global ``random`` module (initial
permutation ties, ``random.shuffle`` of moves). ``fit`` seeds it with
``random_state`` or ``dataset.metadata["seed"]`` and restores the previous
global state afterwards, so two fits on the same data give the same DAG.

Output: a ``graphical_models.DAG`` whose ``arcs`` are ``(i, j)`` tuples for
i → j over the node labels ``0 … d−1`` (column indices of ``dataset.X``), so
``adjacency_[i, j] = 1`` for every arc: row = parent, no transpose.
"""

from __future__ import annotations

import random
import warnings
from typing import Any, List, Optional, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method


def split_settings(X: np.ndarray, intervention_mask: np.ndarray
                   ) -> Tuple[np.ndarray, List[np.ndarray], List[List[int]]]:
    """Split rows into the observational data and one IGSP setting per intervention pattern.

    Args:
        X: (n × d) data.
        intervention_mask: (n × d) bool, True where the entry was set by an intervention.

    Returns:
        ``obs``: (n_obs × d) rows whose mask row is all False;
        ``samples``: list of (n_s × d) arrays, one per distinct non-empty mask pattern;
        ``targets``: list of sorted column-index lists, aligned with ``samples``.
        Settings are in lexicographic order of the pattern (``numpy.unique``).

    Raises:
        ValueError: shapes do not match, or no observational row.
    """
    X = np.asarray(X, dtype=float)
    mask = np.asarray(intervention_mask, dtype=bool)
    if mask.ndim != 2 or mask.shape != X.shape:
        raise ValueError(f"intervention_mask has shape {mask.shape}, expected X's shape {X.shape}")
    observational = ~mask.any(axis=1)
    if not observational.any():
        raise ValueError("IGSP needs observational rows (all-False intervention_mask rows); found none")
    obs = np.ascontiguousarray(X[observational])
    samples: List[np.ndarray] = []
    targets: List[List[int]] = []
    if (~observational).any():
        patterns, inverse = np.unique(mask[~observational], axis=0, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)  # numpy 2.0.0 returned (n, 1)
        X_int = X[~observational]
        for k, pattern in enumerate(patterns):
            samples.append(np.ascontiguousarray(X_int[inverse == k]))
            targets.append(np.flatnonzero(pattern).tolist())
    return obs, samples, targets


def arcs_to_adjacency(arcs: Any, d: int) -> np.ndarray:
    """Convert IGSP's arcs ``{(i, j), …}`` (i → j, node labels 0 … d−1) to a (d × d) adjacency.

    Returns:
        (d × d) int8 0/1 matrix with ``A[i, j] = 1`` for every arc (row = parent).

    Raises:
        ValueError: an arc names a node outside ``0 … d−1`` or is a self-loop.
    """
    A = np.zeros((d, d), dtype=np.int8)
    for i, j in arcs:
        i, j = int(i), int(j)
        if not (0 <= i < d and 0 <= j < d) or i == j:
            raise ValueError(f"arc ({i}, {j}) is not an edge between two of the nodes 0 … {d - 1}")
        A[i, j] = 1
    return A


class IGSP(Method):
    """Interventional greedy sparsest permutation (Wang et al. 2017).

    Parameters:
        alpha: significance level of the partial-correlation (Fisher-z) CI test.
        alpha_inv: significance level of the Gaussian invariance test.
        depth: maximum depth of the depth-first search over I-covered arc reversals.
        nruns: number of restarts; the sparsest DAG (then fewest I-contradicting arcs) is kept.
        random_state: seed of the search; ``None`` = ``dataset.metadata["seed"]`` (0 if absent).

    After ``fit``: ``adjacency_`` (d × d) DAG, row = parent; ``native_`` the
    sorted arc list ``[(i, j), …]``; ``targets_`` the targets of each
    interventional setting (column indices); ``n_obs_`` the observational rows.
    """

    output_kind = "dag"

    def __init__(self, alpha: float = 1e-3, alpha_inv: float = 1e-3, depth: Optional[int] = 4,
                 nruns: int = 5, random_state: Optional[int] = None) -> None:
        self.alpha = alpha
        self.alpha_inv = alpha_inv
        self.depth = depth
        self.nruns = nruns
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import graphical_model_learning once per worker (load time, not the first fit; paper §5.5)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import conditional_independence  # noqa: F401
            import graphical_model_learning  # noqa: F401

    def fit(self, dataset: Dataset) -> "IGSP":
        """Run IGSP on ``dataset.X`` (n × d) with settings from ``dataset.intervention_mask``.

        Raises:
            ValueError: no observational rows (see :func:`split_settings`).
            Library errors (e.g. ``numpy.linalg.LinAlgError``) propagate unchanged.
        """
        with warnings.catch_warnings():
            # pgmpy (imported by graphical_models) emits FutureWarnings at import
            warnings.simplefilter("ignore")
            import graphical_model_learning as gml
            from conditional_independence import (
                MemoizedCI_Tester,
                MemoizedInvarianceTester,
                gauss_invariance_suffstat,
                gauss_invariance_test,
                partial_correlation_suffstat,
                partial_correlation_test,
            )

        obs, samples, targets = split_settings(dataset.X, dataset.intervention_mask)
        d = dataset.d
        seed = self.random_state if self.random_state is not None else dataset.metadata.get("seed", 0)
        settings = [{"interventions": t} for t in targets]

        state = random.getstate()
        random.seed(int(seed))
        try:
            # a setting with very few rows gives NaN covariances (numpy warns; the tests then
            # decide as the library decides); keep those warnings out of the logs
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ci_tester = MemoizedCI_Tester(partial_correlation_test, partial_correlation_suffstat(obs),
                                              alpha=self.alpha)
                inv_tester = MemoizedInvarianceTester(
                    gauss_invariance_test, gauss_invariance_suffstat(obs, samples), alpha=self.alpha_inv)
                dag = gml.igsp(settings, set(range(d)), ci_tester, inv_tester,
                               depth=self.depth, nruns=self.nruns)
        finally:
            random.setstate(state)

        arcs = sorted((int(i), int(j)) for i, j in dag.arcs)
        self.native_ = arcs
        self.adjacency_ = arcs_to_adjacency(arcs, d)
        self.targets_ = targets
        self.n_obs_ = int(obs.shape[0])
        return self
