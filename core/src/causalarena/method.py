"""Base class of discovery methods, in scikit-learn's estimator style.

``__init__`` stores parameters (no work, no validation), ``fit`` does the
work and leaves learned state in attributes ending in ``_``::

    class PC(Method):
        def __init__(self, alpha=0.05):
            self.alpha = alpha

        def fit(self, dataset):
            from causallearn.search.ConstraintBased.PC import pc  # heavy import here
            ...
            self.adjacency_ = cpdag       # (d × d), row = parent
            return self

The worker imports the class once and builds a fresh estimator for every
dataset (scikit-learn's ``clone``), so nothing a method keeps between fits
can leak into the next dataset; expensive read-only resources (a pretrained
checkpoint) belong in a module-level cache so they load once per worker.
:meth:`prediction` packages the learned state.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar, Dict, Optional

import numpy as np

from .data import Dataset, Prediction


class MethodEnvironmentError(RuntimeError):
    """The method's runtime environment lacks something it needs.

    Raise it from ``__init__`` or ``fit`` when a preflight check finds a
    missing dependency (an R installation, an R package, a native library, a
    checkpoint). The worker reports the run as status ``env_error`` (not
    ``failed``) with this message, so a report separates "the method is broken"
    from "this machine cannot run it". Name what is missing and how to get it::

        raise MethodEnvironmentError("R package 'pcalg' is not installed (Rscript -e ...)")
    """


class Method:
    """A causal discovery method.

    Class attributes:
        output_kind: ``None`` (default): the kind the method's descriptor
            declares (:attr:`causalarena.records.MethodInfo.output_kind`, the one
            place a plugin states it; the worker passes it to :meth:`prediction`).
            Set ``"dag"``, ``"cpdag"`` or ``"pag"`` only for a class used without
            a descriptor; the conformance kit checks that both agree.

    After ``fit``:
        adjacency_: (d × d) array, row = parent (see :class:`Prediction`).
        edge_scores_: optional (d × d) float confidence of i → j.
        native_: optional native output.
    """

    output_kind: ClassVar[Optional[str]] = None

    @classmethod
    def preload(cls) -> None:
        """Import the method's heavy libraries once per worker, before the first fit.

        The worker calls it inside ``load`` (timed as ``load_seconds``), so a
        library's import cost is the method's one-time load and not part of
        its first fit — the split of the CausalArena paper's §5.5 (T_fixed vs
        T_graph). The default does nothing; override it with the imports
        ``fit`` does (keep them inside ``fit`` too, so the class works alone).
        A :class:`MethodEnvironmentError` raised here makes every cell of the
        method ``env_error``.

        A subclass may declare keyword parameters named like its constructor's
        (``preload(cls, checkpoint=None)``): the worker passes the run's values
        of those (all of them to ``**kwargs``), so a pretrained method loads the
        checkpoint its parameters name once per worker.
        """

    def get_params(self) -> Dict[str, Any]:
        """Constructor parameters and their current values (provenance)."""
        sig = inspect.signature(type(self).__init__)
        return {
            name: getattr(self, name)
            for name, p in sig.parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and hasattr(self, name)
        }

    def fit(self, dataset: Dataset) -> "Method":  # pragma: no cover - abstract
        """Learn a graph from ``dataset`` (n × d) and return ``self``."""
        raise NotImplementedError

    def prediction(self, kind: Optional[str] = None) -> Prediction:
        """The learned graph as a :class:`Prediction`.

        Args:
            kind: the descriptor's output kind, used when the class sets none
                (default ``"dag"`` when neither does).

        Raises:
            RuntimeError: ``fit`` has not been called.
        """
        if not hasattr(self, "adjacency_"):
            raise RuntimeError(f"{type(self).__name__}.fit() has not been called")
        scores: Optional[np.ndarray] = getattr(self, "edge_scores_", None)
        return Prediction(
            adjacency=np.asarray(self.adjacency_, dtype=float),
            kind=self.output_kind or kind or "dag",
            edge_scores=None if scores is None else np.asarray(scores, dtype=float),
            native=getattr(self, "native_", None),
        )
