"""CDFM (``cdfm-base``) wrapped as a CausalArena method.

What runs is the package's own code: ``cdfm.load_checkpoint`` (a folder with
``config.json`` + ``model.safetensors``, or a Hugging Face hub id through its
``snapshot_download``) and ``cdfm.CDFM.predict`` — z-scoring
(``cdfm.preprocessing.preprocess``), one forward pass, ``sigmoid`` of the
edge logits, and the threshold ``cdfm.utils.suggest_threshold`` computes from
the checkpoint's ``calibration_config`` when ``threshold=None`` (App. B.4:
"the released CDFM checkpoint model.safetensors and its official output
logic"). The probabilities (diagonal 0) are the edge scores (AUROC/AP).

Two additions, both because the arena needs them and the package does not
do them:

* The package loads weights with ``strict=False`` and only logs missing or
  unexpected keys; :func:`check_checkpoint_keys` compares the file's keys
  with the architecture of its ``config.json`` and raises on any mismatch.
* ``probabilities > T`` can contain cycles (both directions of a pair);
  the arena's output is a DAG, so the package's own
  ``cdfm.utils.remove_cycles`` (drop the least probable edge of each cycle)
  is applied. ``thresholded_`` keeps the graph before it.

The model is loaded once per worker: :meth:`CDFMMethod.preload` fills a
module cache keyed by the checkpoint's path (or hub id), so its load is the
worker's ``load_seconds`` and each fit is one forward pass (paper §5.5,
T_fixed vs T_graph).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError

#: the released checkpoint's hub id (https://huggingface.co/DMIRLAB/CDFM)
RELEASED_HUB_ID = "DMIRLAB/CDFM"

_HERE = os.path.dirname(os.path.abspath(__file__))
#: the small checkpoint this plugin trains and ships (train_small.py); the default
SMALL_CHECKPOINT = os.path.join(_HERE, "checkpoints", "small")

#: loaded ``cdfm.CDFM`` wrappers, keyed by ``("path", abspath)`` or ``("hub", id)``: read-only, one per worker
_CACHE: Dict[Tuple[str, str], Any] = {}


def _download_hint(hub: str) -> str:
    return (f"on a connected machine run `hf download {hub} config.json model.safetensors --local-dir CDFM` "
            f"(or python -c \"import huggingface_hub as h; h.snapshot_download('{hub}', "
            f"allow_patterns=['config.json', 'model.safetensors'], local_dir='CDFM')\"), copy the folder here "
            f"and pass it as the option checkpoint=PATH")


def check_checkpoint_keys(model: Any, checkpoint_dir: str) -> None:
    """Fail unless ``model.safetensors`` in ``checkpoint_dir`` has exactly the model's parameter names and shapes.

    ``cdfm.load_checkpoint`` loads with ``strict=False``: a checkpoint of
    another architecture (or a config.json that does not belong to the
    weights) would leave freshly initialised layers and only log a warning.

    Args:
        model: the ``torch.nn.Module`` built from the folder's config.json.
        checkpoint_dir: the folder holding ``model.safetensors``.

    Raises:
        ValueError: names the folder, the missing and unexpected keys (first
            five of each) and any shape mismatches.
    """
    from safetensors import safe_open

    path = os.path.join(checkpoint_dir, "model.safetensors")
    with safe_open(path, framework="pt") as fh:
        saved = {k: tuple(fh.get_slice(k).get_shape()) for k in fh.keys()}
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    missing = sorted(set(expected) - set(saved))
    unexpected = sorted(set(saved) - set(expected))
    shapes = sorted(k for k in set(saved) & set(expected) if saved[k] != expected[k])
    if missing or unexpected or shapes:
        parts: List[str] = []
        if missing:
            parts.append(f"{len(missing)} missing key(s) {missing[:5]}")
        if unexpected:
            parts.append(f"{len(unexpected)} unexpected key(s) {unexpected[:5]}")
        if shapes:
            parts.append(f"{len(shapes)} shape mismatch(es) "
                         f"{[(k, saved[k], expected[k]) for k in shapes[:5]]} (saved, config.json)")
        raise ValueError(f"CDFM checkpoint {checkpoint_dir!r} does not match the architecture of its "
                         f"config.json: " + "; ".join(parts))


def load_model(checkpoint: Optional[str] = None, hub: Optional[str] = None) -> Any:
    """The package's ``cdfm.CDFM`` wrapper for a checkpoint, loaded once per process (module cache).

    Args:
        checkpoint: folder with ``config.json`` + ``model.safetensors``;
            default (both None): the shipped small checkpoint.
        hub: a Hugging Face hub id (e.g. ``"DMIRLAB/CDFM"``), downloaded by the
            package's own ``load_checkpoint``.

    Returns:
        a loaded ``cdfm.CDFM`` (its ``predict`` is the package's output logic).

    Raises:
        ValueError: both options given; a checkpoint whose keys do not match
            its config.json (:func:`check_checkpoint_keys`).
        FileNotFoundError: ``checkpoint`` is not a folder with both files (from the package).
        MethodEnvironmentError: the hub download fails (no network, unknown
            id): the runner records ``env_error``; the message says what to
            download on a connected machine and that ``checkpoint=PATH`` takes it.
    """
    if checkpoint is not None and hub is not None:
        raise ValueError("CDFM: give checkpoint=PATH or hub=ID, not both")
    key = ("hub", hub) if hub is not None else ("path", os.path.abspath(checkpoint or SMALL_CHECKPOINT))
    if key in _CACHE:
        return _CACHE[key]
    import cdfm

    if hub is not None:
        if os.path.exists(hub) or "/" not in hub or hub.startswith((".", "/", "\\")):
            raise ValueError(f"CDFM: hub={hub!r} is not a hub id (owner/name); a folder goes in checkpoint=PATH")
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HfHubHTTPError

        wrapper = cdfm.CDFM(checkpoint=hub, device="cpu")
        try:
            wrapper.info  # noqa: B018 - the package's lazy load: load_checkpoint(hub) -> snapshot_download
            # the folder the package just used (now in the local cache; no network needed)
            folder = snapshot_download(repo_id=hub, allow_patterns=["config.json", "model.safetensors", "*.md"],
                                       local_files_only=True)
        except (OSError, HfHubHTTPError) as exc:  # LocalEntryNotFoundError is an OSError
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise MethodEnvironmentError(
                f"CDFM hub checkpoint {hub!r} could not be downloaded here ({type(exc).__name__}: {first}); "
                f"{_download_hint(hub)}") from exc
    else:
        folder = key[1]
        wrapper = cdfm.CDFM(checkpoint=folder, device="cpu")
        wrapper.info  # noqa: B018 - the package's lazy load: cdfm.load_checkpoint(folder)
    # the package has no public accessor for its module; _model is what its predict() runs
    check_checkpoint_keys(wrapper._model, folder)  # noqa: SLF001
    _CACHE[key] = wrapper
    return wrapper


def calibrated_threshold(probs: np.ndarray, calibration: Dict[str, Any]) -> float:
    """The package's graph-adaptive threshold ``T = sigmoid(w0 + sum w_i f_i)`` of a (d × d) probability matrix.

    Delegates to ``cdfm.utils.suggest_threshold`` (features from the
    off-diagonal probabilities: mean, std, percentiles, log d, gaps, knee).

    Args:
        probs: (d × d) edge probabilities (diagonal ignored).
        calibration: ``{"coefficients": [w0, w1 …], "feature_names": [...]}``
            (the checkpoint's ``calibration_config``).

    Returns:
        the threshold in (0, 1).
    """
    from cdfm.utils import suggest_threshold

    return suggest_threshold(np.asarray(probs, dtype=float), weights=np.asarray(calibration["coefficients"]),
                             features=list(calibration["feature_names"]))


def decide_edges(probs: np.ndarray, threshold: float) -> Tuple[np.ndarray, np.ndarray]:
    """The package's rule ``probs > threshold`` (diagonal 0), then its ``remove_cycles`` for a DAG.

    Args:
        probs: (d × d) edge probabilities, row = parent.
        threshold: in [0, 1]; strict: an edge at exactly ``threshold`` is absent.

    Returns:
        ``(thresholded, dag)``, both (d × d) int8: the graph of the rule, and
        that graph with the least probable edge of each cycle removed.
    """
    from cdfm.utils import remove_cycles

    probs = np.asarray(probs, dtype=float)
    thresholded = (probs > threshold).astype(np.int8)
    np.fill_diagonal(thresholded, 0)
    return thresholded, remove_cycles(probs, adjacency=thresholded).astype(np.int8)


class CDFMMethod(Method):
    """CDFM, zero-shot from observational data (Qiao et al. 2026; paper App. B.4).

    Parameters:
        checkpoint: folder with ``config.json`` + ``model.safetensors``
            (a released checkpoint downloaded elsewhere, or your own); default:
            the small checkpoint shipped in this package (see README).
        hub: Hugging Face hub id, downloaded by the package (``"DMIRLAB/CDFM"``);
            without network: ``env_error``.
        threshold: probability threshold in [0, 1]; ``None`` (default): the
            package's calibrated threshold from the checkpoint's
            ``calibration_config`` (the package raises ValueError when it has none).

    After ``fit``: ``adjacency_`` (d × d) 0/1 DAG, row = parent;
    ``edge_scores_`` (d × d) edge probabilities, diagonal 0; ``native_`` (d × d)
    edge logits; ``threshold_`` the threshold used; ``thresholded_`` (d × d) the
    graph ``probabilities > threshold_`` before cycle removal.
    """

    #: the parameters of the most recent construction; the worker builds ``cls(**params)`` and then
    #: calls ``cls.preload()`` with no arguments, so preload loads the checkpoint those name
    _last_options: Tuple[Optional[str], Optional[str]] = (None, None)

    def __init__(self, checkpoint: Optional[str] = None, hub: Optional[str] = None,
                 threshold: Optional[float] = None) -> None:
        self.checkpoint = checkpoint
        self.hub = hub
        self.threshold = threshold
        type(self)._last_options = (checkpoint, hub)

    @classmethod
    def preload(cls, checkpoint: Optional[str] = None, hub: Optional[str] = None) -> None:
        """Import torch/cdfm and load the checkpoint into the module cache (the worker's load time, §5.5).

        Without arguments: the checkpoint of the most recent construction
        (the worker constructs the estimator right before it calls preload).

        Raises:
            MethodEnvironmentError: the hub download fails (every cell ``env_error``).
            ValueError, FileNotFoundError: a bad checkpoint (see :func:`load_model`).
        """
        if checkpoint is None and hub is None:
            checkpoint, hub = cls._last_options
        load_model(checkpoint, hub)

    def fit(self, dataset: Dataset) -> "CDFMMethod":
        """One forward pass of CDFM on ``dataset.X`` (n × d); the intervention mask is not used.

        Raises:
            ValueError: threshold outside [0, 1]; n < 2 or d < 2 (from the
                package); ``threshold=None`` with a checkpoint without
                ``calibration_config`` (from the package).
            MethodEnvironmentError: see :func:`load_model`.
        """
        if self.threshold is not None and not 0.0 <= float(self.threshold) <= 1.0:
            raise ValueError(f"CDFM threshold must be in [0, 1] or None, got {self.threshold!r}")
        model = load_model(self.checkpoint, self.hub)
        result = model.predict(np.asarray(dataset.X, dtype=np.float64), threshold=self.threshold)
        probs = np.array(result.probabilities, dtype=float)
        np.fill_diagonal(probs, 0.0)
        # the package's predict already thresholded (result.adjacency); decide_edges applies the same
        # rule to the same numbers (a test checks they agree) and adds the cycle removal
        thresholded, self.adjacency_ = decide_edges(probs, result.threshold)
        self.edge_scores_ = probs
        self.native_ = np.asarray(result.logits, dtype=float)
        self.threshold_ = float(result.threshold)
        self.thresholded_ = thresholded
        return self
