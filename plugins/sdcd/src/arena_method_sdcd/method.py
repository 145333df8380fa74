"""SDCD from the ``sdcd`` package (Nazaret et al., ICML 2024), wrapped as a CausalArena method.

Defaults (CausalArena paper, App. B.4): "Uses the two-stage wrapper with the
default stage-1/stage-2 schedule and model threshold 0.1" — the package's
``_DEFAULT_STAGE1_KWARGS`` / ``_DEFAULT_STAGE2_KWARGS`` (2000 epochs each,
learning rates 2e-3 / 1e-3, batch 256, stage-1 mask threshold 0.2, stage-2
threshold 0.1) and model defaults (one hidden layer of 10 units, variance
flavour ``"nn"``). ``n_epochs_stage1`` / ``n_epochs_stage2`` are exposed so
tests and budget-limited runs can shorten training; every other setting is
the package's.

Interventions: SDCD's training set is a ``TensorDataset(X, mask, n_regimes)``
whose ``mask`` is 1 where a variable was **not** intervened in that row
(``sdcd.utils.train_utils._create_intervention_dataset_helper``, regime
format): the arena's ``intervention_mask`` (n × d bool, True = intervened)
maps to it as ``1 - intervention_mask`` (:func:`sdcd_training_tensors`), rows
with several targets included; intervened variables are left out of the
likelihood of that row, which is how SDCD uses interventions.

Output: ``get_adjacency_matrix()`` thresholds the learned weight norms at
0.1 and adds edges strongest first, skipping any that would close a cycle
(``SDCD.adjacency_dag_at_threshold``), so the result is a DAG. Its entry
``[i, j]`` is the norm of the first-layer weights from input i into the
network of variable j — i → j, row = parent, the arena's convention (checked
by the known-answer test). ``edge_scores_`` are the unthresholded norms,
``native_`` the same matrix.

Determinism: ``sdcd.utils.set_random_seed_all(seed)`` with ``random_state``
or the dataset's seed (the worker also seeds numpy); single-threaded
DataLoader (``NUM_WORKERS = 0``). wandb is never initialised
(``log_wandb=False``, ``WANDB_MODE=disabled``) so nothing touches the network.
"""

from __future__ import annotations

import os
from typing import Optional, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError


def sdcd_training_tensors(X: np.ndarray, intervention_mask: Optional[np.ndarray]) -> Tuple[np.ndarray, np.ndarray,
                                                                                             np.ndarray]:
    """The three arrays of SDCD's regime-format training set.

    Args:
        X: (n × d) float data.
        intervention_mask: (n × d) bool, True where the row's variable was
            intervened on; None for observational data.

    Returns:
        ``(X float32 (n × d), mask int64 (n × d) = 1 where NOT intervened,
        n_regimes int64 (n,) = number of intervened variables per row)``.

    Raises:
        ValueError: shapes differ, or a variable is intervened in every row
            (its mechanism would have no data).
    """
    X = np.asarray(X, dtype=np.float32)
    n, d = X.shape
    if intervention_mask is None:
        m = np.zeros((n, d), dtype=bool)
    else:
        m = np.asarray(intervention_mask, dtype=bool)
        if m.shape != (n, d):
            raise ValueError(f"intervention_mask has shape {m.shape}, X has {(n, d)}")
    always = np.flatnonzero(m.all(axis=0))
    if n and always.size:
        raise ValueError(f"variable(s) {always.tolist()} are intervened in every row: no data for their mechanism")
    keep = (~m).astype(np.int64)
    return X, keep, m.sum(axis=1).astype(np.int64)


class SDCD(Method):
    """SDCD (Nazaret et al. 2024) on an (n × d) table, using its intervention mask.

    Args:
        threshold: weight-norm threshold of the final DAG (App. B.4: 0.1).
        n_epochs_stage1, n_epochs_stage2: training epochs of the two stages
            (package defaults 2000 each).
        model_variance_flavor: ``"nn"`` (default), ``"unit"`` or ``"parameter"``.
        random_state: seed (default: the dataset's ``metadata["seed"]``).

    After ``fit``: ``adjacency_`` (d × d DAG, row = parent), ``edge_scores_``
    (d × d weight norms), ``native_`` (the same norms).
    """

    output_kind = "dag"

    def __init__(self, threshold: float = 0.1, n_epochs_stage1: int = 2000, n_epochs_stage2: int = 2000,
                 model_variance_flavor: str = "nn", random_state: Optional[int] = None):
        self.threshold = threshold
        self.n_epochs_stage1 = n_epochs_stage1
        self.n_epochs_stage2 = n_epochs_stage2
        self.model_variance_flavor = model_variance_flavor
        self.random_state = random_state

    def fit(self, dataset: Dataset) -> "SDCD":
        os.environ.setdefault("WANDB_MODE", "disabled")
        os.environ.setdefault("WANDB_SILENT", "true")
        try:
            import torch
            from sdcd.models import SDCD as _SDCD
            from sdcd.models._sdcd import _DEFAULT_STAGE1_KWARGS, _DEFAULT_STAGE2_KWARGS
            from sdcd.utils import set_random_seed_all
        except ImportError as exc:  # the plugin's environment lacks its stack
            raise MethodEnvironmentError(f"sdcd is not importable here ({exc}); build its environment: "
                                         "arena sandbox build plugins/sdcd") from exc
        X, keep, n_regimes = sdcd_training_tensors(dataset.X, dataset.intervention_mask)
        if not np.isfinite(X).all():
            bad = [dataset.columns[j] for j in np.flatnonzero(~np.isfinite(X).all(axis=0))]
            raise ValueError(f"non-finite values in column(s) {bad}")
        seed = self.random_state if self.random_state is not None else dataset.metadata.get("seed")
        set_random_seed_all(int(seed or 0) % (2 ** 32))
        train = torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(keep),
                                               torch.from_numpy(n_regimes))
        stage1 = dict(_DEFAULT_STAGE1_KWARGS, n_epochs=int(self.n_epochs_stage1))
        stage2 = dict(_DEFAULT_STAGE2_KWARGS, n_epochs=int(self.n_epochs_stage2), threshold=float(self.threshold))
        model = _SDCD(model_variance_flavor=self.model_variance_flavor)
        model.train(train, log_wandb=False, stage1_kwargs=stage1, stage2_kwargs=stage2, verbose=False,
                    device=torch.device("cpu"))
        weights = np.asarray(model.get_adjacency_matrix(threshold=False), dtype=float)
        self.adjacency_ = np.asarray(model.get_adjacency_matrix(), dtype=np.int8)
        self.edge_scores_ = weights
        self.native_ = weights
        return self
