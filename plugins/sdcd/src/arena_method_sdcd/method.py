"""SDCD from the ``sdcd`` package (Nazaret et al., ICML 2024), wrapped as a CausalArena method.

Defaults (CausalArena paper, App. B.4): "Uses the two-stage wrapper with the
default stage-1/stage-2 schedule and model threshold 0.1" — the package's
``sdcd.models._sdcd._DEFAULT_STAGE1_KWARGS`` / ``_DEFAULT_STAGE2_KWARGS``
(2000 epochs each, learning rates 2e-3 / 1e-3, batch 256, stage-1 mask
threshold 0.2, stage-2 threshold 0.1) and ``_DEFAULT_MODEL_KWARGS`` (one
hidden layer of 10 units), variance flavour ``"nn"``, 20 % of the rows held
out for validation / early stopping (``SDCD.train``'s ``val_fraction``).
``n_epochs_stage1`` / ``n_epochs_stage2`` are exposed so that tests and
budget-limited runs can shorten training; every other setting is the
package's. The paper's "high-dimensional budget reductions" are not
specified there and are not applied here.

Interventions (:func:`perturbation_labels`, :func:`intervention_frame`): the
package's documented input is a DataFrame of the d variables plus a last
column ``"perturbation_label"``, turned into a training set by
``sdcd.utils.create_intervention_dataset``. The label of a row is built from
``dataset.intervention_mask`` (n × d bool): ``"obs"`` when nothing was
intervened, the variable's column name when one was, and the names joined by
``","`` when several were (the package splits labels on ``","`` and maps each
name to its column index, so a multi-target row leaves *all* its targets out
of that row's likelihood, exactly as the mask says). The resulting regime
mask is ``1 - intervention_mask``; the tests check that round trip.

Output: the package's ``get_adjacency_matrix()`` thresholds the learned
weight norms at ``threshold`` and adds edges strongest first, skipping any
that would close a cycle (``SDCD.adjacency_dag_at_threshold``), so the result
is a DAG. Entry ``[i, j]`` is the L2 norm of the first-layer weights from
input i into the network that predicts variable j
(``DispatcherLayer.forward``: ``einsum("ni, ioh -> noh")``): i → j, row =
parent, the arena's convention, no transpose (a known-answer test fails on a
transposed reading, case I7). ``edge_scores_`` = ``native_`` = the
unthresholded norms (diagonal 0).

Seeding: ``SDCD.__init__`` and ``SDCD.train`` both call
``set_random_seed_all(0)``, which would make every fit use seed 0 whatever
the dataset; ``fit`` replaces that call (inside the two sdcd modules, for the
duration of the fit) by one that seeds ``random``, ``numpy`` and ``torch``
with ``random_state`` or ``dataset.metadata["seed"]``. The caller's global
RNG states and torch's thread count are restored afterwards. wandb is never
initialised (``log_wandb=False``; ``WANDB_MODE=disabled`` is set before sdcd
imports it), so nothing touches the network. The package's progress prints
are captured into ``train_log_`` instead of stdout.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
from typing import Any, Iterator, List, Optional, Sequence
from unittest import mock

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError

#: the package's label of observational rows and the name of its label column
OBS_LABEL = "obs"
LABEL_COLUMN = "perturbation_label"


def sdcd_column_names(columns: Sequence[Any]) -> List[str]:
    """Column names safe for sdcd's label parsing.

    The dataset's names, as strings, unless one of them would be misread by
    ``create_intervention_dataset`` (contains ``","``, is empty, equals
    ``"obs"`` or ``"perturbation_label"``, or is repeated); then positional
    names ``"0" … "d-1"`` for all columns.
    """
    names = [str(c) for c in columns]
    unsafe = (len(set(names)) != len(names)
              or any(not s or "," in s or s in (OBS_LABEL, LABEL_COLUMN) for s in names))
    return [str(j) for j in range(len(names))] if unsafe else names


def perturbation_labels(intervention_mask: np.ndarray, columns: Sequence[str]) -> List[str]:
    """sdcd ``perturbation_label`` of every row.

    Args:
        intervention_mask: (n × d) bool, True where the row's variable was set by an intervention.
        columns: d names (already safe, see :func:`sdcd_column_names`).

    Returns:
        n strings: ``"obs"`` (no target), the target's name (one target), or
        the targets' names in column order joined by ``","`` (several targets).

    Raises:
        ValueError: the mask is not (n × d) with d = ``len(columns)``.
    """
    mask = np.asarray(intervention_mask, dtype=bool)
    if mask.ndim != 2 or mask.shape[1] != len(columns):
        raise ValueError(f"intervention_mask has shape {mask.shape}, expected (n × {len(columns)})")
    names = np.asarray(list(columns), dtype=object)
    return [",".join(names[row]) if row.any() else OBS_LABEL for row in mask]


def intervention_frame(X: np.ndarray, intervention_mask: np.ndarray, columns: Sequence[str]) -> Any:
    """The pandas DataFrame ``sdcd.utils.create_intervention_dataset`` expects.

    Args:
        X: (n × d) data.
        intervention_mask: (n × d) bool.
        columns: d safe names.

    Returns:
        DataFrame with the d columns of ``X`` (float64 copy) and a last column
        ``"perturbation_label"`` from :func:`perturbation_labels`.

    Raises:
        ValueError: shapes do not match.
    """
    import pandas as pd

    X = np.array(X, dtype=float, copy=True)
    if X.ndim != 2 or X.shape != np.shape(intervention_mask):
        raise ValueError(f"intervention_mask has shape {np.shape(intervention_mask)}, X has {X.shape}")
    frame = pd.DataFrame(X, columns=list(columns))
    frame[LABEL_COLUMN] = perturbation_labels(intervention_mask, columns)
    return frame


@contextlib.contextmanager
def _seeded_sdcd(seed: int, n_threads: int) -> Iterator[Any]:
    """Import sdcd with wandb disabled; make its seeding use ``seed``; restore global state on exit.

    Yields the ``sdcd.models`` module.
    """
    os.environ["WANDB_MODE"] = "disabled"  # before sdcd imports wandb: never logs in, never networks
    os.environ.setdefault("WANDB_SILENT", "true")
    try:
        import sdcd.models
        import sdcd.models._sdcd as sdcd_core
        import sdcd.models.base._base_model as sdcd_base
        import torch
    except ImportError as exc:  # the plugin's own (old-stack) environment is missing
        raise MethodEnvironmentError(
            f"sdcd is not importable here ({exc}); it needs its own environment: "
            "arena sandbox build sdcd, then arena run --isolation auto") from exc

    def set_random_seed_all(_ignored: int = 0) -> None:
        random.seed(seed)
        np.random.seed(seed % 2 ** 32)
        torch.manual_seed(seed)

    py_state, np_state, threads = random.getstate(), np.random.get_state(), torch.get_num_threads()
    try:
        torch.set_num_threads(max(1, int(n_threads)))
        with torch.random.fork_rng(devices=[]), \
                mock.patch.object(sdcd_core, "set_random_seed_all", set_random_seed_all), \
                mock.patch.object(sdcd_base, "set_random_seed_all", set_random_seed_all):
            yield sdcd.models
    finally:
        torch.set_num_threads(threads)
        random.setstate(py_state)
        np.random.set_state(np_state)


class SDCD(Method):
    """SDCD (Nazaret et al. 2024) on an (n × d) table, using its intervention mask.

    Parameters:
        threshold: weight-norm threshold of the final DAG (App. B.4: 0.1; ``_DEFAULT_STAGE2_KWARGS``).
        n_epochs_stage1, n_epochs_stage2: training epochs of the two stages (package defaults 2000 each;
            both stages stop early on the validation loss).
        model_variance_flavor: ``"nn"`` (package default), ``"unit"`` or ``"parameter"``.
        val_fraction: share of rows held out for early stopping (package default 0.2).
        n_threads: torch intra-op threads during ``fit`` (restored afterwards).
        random_state: seed of torch (initialisation, validation split, batches); ``None`` =
            ``dataset.metadata["seed"]`` (0 when absent).

    After ``fit``: ``adjacency_`` (d × d int8 DAG, row = parent), ``edge_scores_`` (d × d float
    weight norms, row = parent), ``native_`` (the same array), ``columns_`` (the names given to
    sdcd), ``train_log_`` (the package's progress output).
    """

    output_kind = "dag"

    def __init__(self, threshold: float = 0.1, n_epochs_stage1: int = 2000, n_epochs_stage2: int = 2000,
                 model_variance_flavor: str = "nn", val_fraction: float = 0.2, n_threads: int = 1,
                 random_state: Optional[int] = None) -> None:
        self.threshold = threshold
        self.n_epochs_stage1 = n_epochs_stage1
        self.n_epochs_stage2 = n_epochs_stage2
        self.model_variance_flavor = model_variance_flavor
        self.val_fraction = val_fraction
        self.n_threads = n_threads
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import torch and sdcd (wandb disabled) once per worker: load time, not the first fit (§5.5)."""
        os.environ["WANDB_MODE"] = "disabled"
        try:
            import sdcd.models  # noqa: F401
            import torch  # noqa: F401
        except ImportError as exc:
            raise MethodEnvironmentError(f"sdcd is not importable here ({exc}); it needs its own environment: "
                                         "arena sandbox build plugins/sdcd") from exc

    def fit(self, dataset: Dataset) -> "SDCD":
        """Train SDCD's two stages on ``dataset.X`` (n × d) with ``dataset.intervention_mask``.

        Raises:
            ValueError: non-finite entries in ``X``; mask of the wrong shape.
            MethodEnvironmentError: sdcd (or torch) is not importable in this environment.
            Library errors propagate unchanged.
        """
        X = np.asarray(dataset.X, dtype=float)
        if not np.isfinite(X).all():
            bad = [dataset.columns[j] for j in np.flatnonzero(~np.isfinite(X).all(axis=0))]
            raise ValueError(f"sdcd needs finite data; non-finite values in column(s) {bad}")
        columns = sdcd_column_names(dataset.columns)
        frame = intervention_frame(X, dataset.intervention_mask, columns)
        seed = self.random_state if self.random_state is not None else dataset.metadata.get("seed")
        seed = int(seed or 0) % 2 ** 63
        log = io.StringIO()
        with _seeded_sdcd(seed, self.n_threads) as models, contextlib.redirect_stdout(log):
            from sdcd.models._sdcd import _DEFAULT_STAGE1_KWARGS, _DEFAULT_STAGE2_KWARGS
            from sdcd.utils import create_intervention_dataset

            train_set = create_intervention_dataset(frame, perturbation_colname=LABEL_COLUMN)
            model = models.SDCD(model_variance_flavor=self.model_variance_flavor)
            model.train(
                train_set, val_fraction=float(self.val_fraction), log_wandb=False, verbose=False,
                stage1_kwargs=dict(_DEFAULT_STAGE1_KWARGS, n_epochs=int(self.n_epochs_stage1)),
                stage2_kwargs=dict(_DEFAULT_STAGE2_KWARGS, n_epochs=int(self.n_epochs_stage2),
                                   threshold=float(self.threshold)),
            )
            weights = np.array(model.get_adjacency_matrix(threshold=False), dtype=float)
            dag = model.get_adjacency_matrix(threshold=True)
        np.fill_diagonal(weights, 0.0)  # stage 2 masks self-loops; make it explicit
        self.adjacency_ = np.asarray(dag != 0, dtype=np.int8)
        self.edge_scores_ = weights
        self.native_ = weights
        self.columns_ = columns
        self.train_log_ = log.getvalue()
        return self
