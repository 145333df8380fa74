"""AVICI as an arena method: the avici package's pretrained model, loaded by its own loader.

``avici.load_pretrained(checkpoint_dir=...)`` builds an ``AVICIModel``; its
``__call__(x, interv)`` stacks the data and the intervention indicator into
the model's ``(n, d, 2)`` input, z-standardises the value channel and
returns the ``(d, d)`` edge probabilities (row = parent, diagonal 0). The
arena uses them as edge scores and thresholds them at 0.5 (the CausalArena
paper App. B.4; the package's ``return_probs=False`` rule is ``p > 0.5``).

Costs (paper §5.5): the model is loaded once per worker — the worker builds
the estimator and calls :meth:`AVICI.preload` inside its timed ``load``, which
loads the checkpoint into a module cache — and XLA compiles once per input
shape (~54 CPU-s for scm-v0 on this machine). So that a compile is paid once,
JAX's persistent compilation cache is enabled in the worker
(``$CAUSALARENA_JAX_CACHE_DIR``, default ``~/.cache/causalarena/jax``) and d is
padded up to the next of ``pad_sizes`` (default the synthetic family's d grid
10, 20, 30, 50, 100, so its graphs are never padded) with all-zero columns:
constant variables with no intervention, whose rows and columns of the
output are dropped. A padded call is not identical to the unpadded one
(attention over variables sees the extra ones); ``pad_sizes=[]`` turns it off.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError

from .checkpoint import check_layout

CACHE_ENV = "CAUSALARENA_JAX_CACHE_DIR"
#: the checkpoint folder used when ``checkpoint`` is not given (``arena run`` has no per-method options)
CHECKPOINT_ENV = "CAUSALARENA_AVICI_CHECKPOINT"
#: (checkpoint folder, expects_counts) → avici.AVICIModel, one per worker process
_MODELS: Dict[Tuple[str, bool], Any] = {}
_JAX_READY = False


def _stub_plasma() -> None:
    """Let ``import avici`` work with pyarrow >= 12 (the core's floor), which removed ``pyarrow.plasma``.

    ``avici/__init__`` imports ``avici.buffer`` (training's shared-memory
    replay buffer), which imports ``pyarrow.plasma``; inference never uses
    it. A stub module whose attributes raise a clear error stands in.
    """
    import sys
    import types

    try:
        import pyarrow.plasma  # noqa: F401
    except ImportError:
        stub = types.ModuleType("pyarrow.plasma")

        def _missing(name: str) -> Any:
            raise ImportError(f"pyarrow.plasma.{name}: removed in pyarrow 12; avici's training buffer needs "
                              "pyarrow 10 (inference in the arena does not)")

        stub.__getattr__ = _missing  # type: ignore[attr-defined]
        sys.modules["pyarrow.plasma"] = stub


def _import_avici() -> Any:
    try:
        _stub_plasma()
        import avici
    except ImportError as exc:
        raise MethodEnvironmentError(
            f"avici is not importable here ({exc}); it needs its own lean environment: "
            "arena sandbox build plugins/avici -c constraints.txt") from exc
    return avici


def enable_compilation_cache(path: Optional[str] = None) -> str:
    """Turn on JAX's persistent compilation cache (once per process); return its folder.

    Every compile is cached (minimum compile time and entry size 0), so a
    second worker with the same input shape skips the ~54 s compile.
    """
    global _JAX_READY
    import jax

    folder = path or os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "causalarena",
                                                                 "jax")
    if not _JAX_READY:
        os.makedirs(folder, exist_ok=True)
        jax.config.update("jax_compilation_cache_dir", folder)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        _JAX_READY = True
    return folder


def load_model(checkpoint: str, expects_counts: bool = False) -> Any:
    """The ``avici.AVICIModel`` of a checkpoint folder, loaded once per process by ``avici.load_pretrained``.

    Raises:
        MethodEnvironmentError: avici is not importable, or the folder lacks a
            file the loader needs (each missing path is named; ``kwargs.json``
            must be in the folder and in its parent).
    """
    key = (str(Path(checkpoint).resolve()), bool(expects_counts))
    if key not in _MODELS:
        avici = _import_avici()
        missing = check_layout(key[0])
        if missing:
            raise MethodEnvironmentError(f"avici checkpoint={checkpoint!r} is incomplete: missing "
                                         + "; ".join(missing))
        _MODELS[key] = avici.load_pretrained(checkpoint_dir=key[0], expects_counts=bool(expects_counts),
                                             verbose=False)
    return _MODELS[key]


def acyclic_threshold(probs: np.ndarray, threshold: float) -> Tuple[np.ndarray, int]:
    """The DAG of the edges ``p > threshold``, kept greedily by decreasing probability.

    AVICI's thresholded output is not guaranteed acyclic (its training only
    penalises cycles), and the arena scores a "dag" with a cycle as
    ``invalid_output`` (case I8). Edges are added from the most to the least
    probable; one that would close a directed cycle is dropped (so of a
    2-cycle the more probable direction stays). Ties keep row-major order.

    Args:
        probs: (d × d) edge probabilities, row = parent.
        threshold: edges are ``p > threshold``.

    Returns:
        ``(adjacency, dropped)``: the (d × d) 0/1 DAG and how many
        above-threshold edges were dropped.
    """
    import networkx as nx

    d = probs.shape[0]
    cand = [(i, j) for i in range(d) for j in range(d) if i != j and probs[i, j] > threshold]
    cand.sort(key=lambda e: -probs[e])  # stable: ties in row-major order
    g = nx.DiGraph()
    g.add_nodes_from(range(d))
    adj = np.zeros((d, d))
    dropped = 0
    for i, j in cand:
        if nx.has_path(g, j, i):
            dropped += 1
            continue
        g.add_edge(i, j)
        adj[i, j] = 1.0
    return adj, dropped


def padded_size(d: int, pad_sizes: Sequence[int]) -> int:
    """The smallest of ``pad_sizes`` that is >= d, else d itself (no padding above the largest)."""
    bigger = [int(s) for s in pad_sizes if int(s) >= d]
    return min(bigger) if bigger else d


class AVICI(Method):
    """AVICI's pretrained edge probabilities (paper App. B.4).

    Args:
        checkpoint: a checkpoint folder (``kwargs.json`` + ``checkpoint_*.pkl``,
            with ``kwargs.json`` also in its parent), e.g. the released
            ``scm-v0`` downloaded on a connected machine; empty: the folder in
            ``$CAUSALARENA_AVICI_CHECKPOINT`` (how ``arena run`` passes it).
        download: avici's own download name (``"scm-v0"``, ``"neurips-linear"``
            …); this machine cannot reach the hub, so it is an ``env_error``
            naming what to download and the ``checkpoint`` option.
        threshold: edges are ``p > threshold`` (0.5 as in the package).
        expects_counts: the checkpoint was trained on counts (``neurips-grn``):
            selects avici's count standardiser.
        pad_sizes: d is padded with zero columns up to the next of these (module doc).
        acyclic: drop the least probable above-threshold edges that close a
            cycle (:func:`acyclic_threshold`); False: exactly ``p > threshold``
            (a cyclic result is then ``invalid_output``).

    Raises:
        MethodEnvironmentError: ``download`` given, no checkpoint, avici not
            importable, an incomplete checkpoint folder.
        ValueError: both options given, a threshold outside (0, 1).
    """

    #: the parameters of the estimator the worker built last: preload loads that checkpoint
    _pending: Optional[Tuple[str, bool]] = None

    def __init__(self, checkpoint: str = "", download: str = "", threshold: float = 0.5,
                 expects_counts: bool = False, pad_sizes: Sequence[int] = (10, 20, 30, 50, 100),
                 acyclic: bool = True):
        if not checkpoint and not download:
            checkpoint = os.environ.get(CHECKPOINT_ENV, "")
        self.checkpoint = checkpoint  # the resolved folder, so get_params records what was loaded
        self.download = download
        self.threshold = threshold
        self.expects_counts = expects_counts
        self.pad_sizes = list(pad_sizes)
        self.acyclic = acyclic
        if checkpoint and download:
            raise ValueError("avici: give checkpoint=PATH or download=NAME, not both")
        if not 0.0 < float(threshold) < 1.0:
            raise ValueError(f"avici: threshold must be in (0, 1), got {threshold!r}")
        if download:
            raise MethodEnvironmentError(
                f"avici download={download!r} fetches the checkpoint from the Hugging Face hub (larslorch/avici, "
                f"folder {download}/: kwargs.json and checkpoint_0300000.pkl), which this machine cannot reach. "
                f"On a connected machine run python -c \"import avici; avici.load_pretrained(download='{download}', "
                "cache_path='DIR')\", copy the folder holding kwargs.json and the .pkl here, put kwargs.json in its "
                "parent too, and pass checkpoint=PATH_TO_THAT_FOLDER")
        if not checkpoint:
            raise MethodEnvironmentError(
                "avici needs checkpoint=PATH or $CAUSALARENA_AVICI_CHECKPOINT (a folder with kwargs.json and "
                "checkpoint_*.pkl, kwargs.json also in its parent), e.g. the released scm-v0 downloaded on a "
                "connected machine (plugins/avici/README.md)")
        AVICI._pending = (checkpoint, bool(expects_counts))

    @classmethod
    def preload(cls) -> None:
        """Import avici and jax, enable the compilation cache, and load the pending checkpoint (load time, §5.5)."""
        _import_avici()
        enable_compilation_cache()
        if cls._pending is not None:
            load_model(*cls._pending)

    def fit(self, dataset: Dataset) -> "AVICI":
        """Edge probabilities of ``dataset.X`` (n × d) with its intervention mask as AVICI's second channel.

        Sets ``edge_scores_`` (d × d probabilities, row = parent, diagonal 0),
        ``adjacency_`` = ``edge_scores_ > threshold`` (made acyclic unless
        ``acyclic=False``) and ``native_`` = ``edge_scores_ > threshold`` as is
        (the package's ``return_probs=False`` graph, possibly cyclic).

        Raises:
            ValueError: non-finite entries in ``X``.
            MethodEnvironmentError: as for the constructor.
        """
        X = np.asarray(dataset.X, dtype=float)
        if not np.isfinite(X).all():
            bad = [dataset.columns[j] for j in np.flatnonzero(~np.isfinite(X).all(axis=0))]
            raise ValueError(f"avici needs finite data; non-finite values in column(s) {bad}")
        enable_compilation_cache()
        model = load_model(self.checkpoint, self.expects_counts)
        n, d = X.shape
        mask = np.asarray(dataset.intervention_mask, dtype=float)
        size = padded_size(d, self.pad_sizes)
        if size > d:  # constant zero columns, never intervened on (see the module doc)
            X = np.hstack([X, np.zeros((n, size - d))])
            mask = np.hstack([mask, np.zeros((n, size - d))])
        probs = np.asarray(model(X, interv=mask), dtype=float)[:d, :d]
        self.edge_scores_ = probs
        raw = (probs > float(self.threshold)).astype(float)
        self.native_ = raw  # the package's own thresholded graph (return_probs=False), possibly cyclic
        self.adjacency_ = acyclic_threshold(probs, float(self.threshold))[0] if self.acyclic else raw
        return self
