"""The amortized model as a CausalArena method.

One fit = the statistics of :mod:`.features` (milliseconds) and one numpy
forward pass of :class:`.model.AmortizedModel`; the edge probabilities are
the edge scores (AUROC/AP) and the graph is :func:`.model.acyclic_decision`
at the checkpoint's threshold (chosen on validation SCMs by the training
command) or the ``threshold`` option. The intervention mask is an input
(the interventional statistics), so the method runs on obs and obs+int.

The checkpoint is loaded once per worker (:meth:`AmortizedMethod.preload`,
the worker's ``load_seconds``; paper §5.5).
"""

from __future__ import annotations

import os
from typing import Dict, Optional

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError

_HERE = os.path.dirname(os.path.abspath(__file__))
#: the checkpoint shipped in this package (trained by ``arena amortized-train`` on ``priors/er_sf_d10_20.yaml``)
DEFAULT_CHECKPOINT = os.path.join(_HERE, "checkpoints", "default")

#: ``arena run`` has no per-method options: a checkpoint folder for every run of the method comes from here
CHECKPOINT_ENV = "CAUSALARENA_AMORTIZED_CHECKPOINT"

_CACHE: Dict[str, object] = {}


def load_model(checkpoint: Optional[str] = None):
    """The :class:`.model.AmortizedModel` of a checkpoint folder, cached per absolute path (one per worker).

    Raises:
        MethodEnvironmentError: the folder, a file of it or its content is
            wrong (a setup fault: every cell ``env_error``); the message names
            the folder and where it came from (option or environment variable).
    """
    from .model import load_checkpoint

    env = os.environ.get(CHECKPOINT_ENV)
    if env and (not checkpoint or os.path.abspath(checkpoint) == os.path.abspath(env)):
        source = f"${CHECKPOINT_ENV}"  # the descriptor copies it into the run's parameters
    else:
        source = f"checkpoint={checkpoint}" if checkpoint else "the shipped default"
    path = os.path.abspath(checkpoint or os.environ.get(CHECKPOINT_ENV) or DEFAULT_CHECKPOINT)
    if path not in _CACHE:
        try:
            _CACHE[path] = load_checkpoint(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable checkpoint is the setup's fault, not the fit's
            raise MethodEnvironmentError(f"{exc} (checkpoint from {source}; a checkpoint folder holds "
                                         f"config.json, model.safetensors and prior.yaml, as written by "
                                         f"arena amortized-train)") from exc
    return _CACHE[path]


class AmortizedMethod(Method):
    """Amortized structure learner trained on the arena's own generator (issue 14; paper §3.4, §6.2).

    Parameters:
        checkpoint: checkpoint folder (``config.json``, ``model.safetensors``,
            ``prior.yaml``); default: ``$CAUSALARENA_AMORTIZED_CHECKPOINT``, else
            the one shipped in this package.
        threshold: probability threshold in (0, 1); default None = the checkpoint's.

    After ``fit``: ``adjacency_`` (d × d) int8 DAG, row = parent;
    ``edge_scores_`` (d × d) edge probabilities, diagonal 0; ``threshold_``.
    """

    def __init__(self, checkpoint: Optional[str] = None, threshold: Optional[float] = None) -> None:
        self.checkpoint = checkpoint
        self.threshold = threshold

    @classmethod
    def preload(cls, checkpoint: Optional[str] = None) -> None:
        """Load the checkpoint into the module cache (the worker's load time, §5.5).

        The worker passes the run's ``checkpoint`` parameter (core ≥ 0.6.1).
        """
        load_model(checkpoint)

    def fit(self, dataset: Dataset) -> "AmortizedMethod":
        """Score every ordered pair of ``dataset.X`` (n × d) and keep the acyclic thresholded graph.

        Raises:
            ValueError: threshold outside (0, 1); d < 2 or n < 5 (from the features).
            MethodEnvironmentError: the checkpoint cannot be loaded (see :func:`load_model`).
        """
        from .features import pair_features
        from .model import acyclic_decision

        if self.threshold is not None and not 0.0 < float(self.threshold) < 1.0:
            raise ValueError(f"amortized: threshold must be in (0, 1) or None, got {self.threshold!r}")
        model = load_model(self.checkpoint)
        mask = dataset.intervention_mask if dataset.has_interventions else None
        with np.errstate(all="ignore"):
            feats = pair_features(np.asarray(dataset.X, dtype=np.float64), mask)
        probs = model.probabilities(feats)
        self.threshold_ = float(self.threshold if self.threshold is not None else model.threshold)
        self.edge_scores_ = probs
        self.adjacency_ = acyclic_decision(probs, self.threshold_)
        return self
