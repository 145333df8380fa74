"""The network (numpy inference) and its checkpoint format.

Architecture (one message-passing round over the complete graph of
candidate edges, permutation-equivariant in the variables):

    e_ij   = MLP_edge(standardised features f_ij)                  (H)
    out_i  = mean_{k≠i} e_ik,   in_i = mean_{k≠i} e_ki              (H each)
    logit_ij = MLP_head([e_ij, e_ji, out_i, in_i, out_j, in_j])    (6H → H → H → 1)

MLPs are ReLU. Training (torch) is in :mod:`.train`; inference here is plain
numpy, so running the model needs neither torch nor a GPU.

Checkpoint folder: ``model.safetensors`` (float32 tensors ``edge.{k}.weight``
/ ``.bias``, ``head.{k}.weight`` / ``.bias`` in torch's (out × in) layout, and
``feature_mean`` / ``feature_std``), ``config.json`` (architecture, feature
version, threshold, training settings, the prior's digest and the sha256 of
the weights file) and ``prior.yaml`` (the training prior,
:mod:`arena_family_synthetic.prior`).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Dict, List, Tuple

import numpy as np

from .features import FEATURE_VERSION, N_FEATURES

WEIGHTS = "model.safetensors"
CONFIG = "config.json"
PRIOR = "prior.yaml"


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class AmortizedModel:
    """A loaded checkpoint: ``probabilities(features)`` (numpy).

    Attributes:
        config: the checkpoint's ``config.json``.
        tensors: name → float32 array, as saved.
        threshold: the decision threshold on edge probabilities (from the config).
    """

    def __init__(self, config: Dict[str, Any], tensors: Dict[str, np.ndarray]) -> None:
        self.config = config
        self.tensors = tensors
        self.threshold = float(config["threshold"])
        self.edge = self._layers("edge", int(config["edge_layers"]))
        self.head = self._layers("head", int(config["head_layers"]))
        self.mean = tensors["feature_mean"].astype(np.float32)
        self.std = tensors["feature_std"].astype(np.float32)

    def _layers(self, prefix: str, count: int) -> List[Tuple[np.ndarray, np.ndarray]]:
        return [(self.tensors[f"{prefix}.{k}.weight"], self.tensors[f"{prefix}.{k}.bias"]) for k in range(count)]

    @staticmethod
    def _mlp(x: np.ndarray, layers: List[Tuple[np.ndarray, np.ndarray]], relu_last: bool) -> np.ndarray:
        for k, (w, b) in enumerate(layers):
            x = x @ w.T + b
            if k < len(layers) - 1 or relu_last:
                x = np.maximum(x, 0.0)
        return x

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Edge logits (d × d, diagonal −inf) from :func:`.features.pair_features` (d × d × F).

        Raises:
            ValueError: features of another width than the checkpoint's.
        """
        d = features.shape[0]
        if features.ndim != 3 or features.shape[1] != d or features.shape[2] != self.mean.size:
            raise ValueError(f"features of shape {features.shape}; the checkpoint expects d x d x {self.mean.size}")
        f = (features.astype(np.float32) - self.mean) / self.std
        e = self._mlp(f, self.edge, relu_last=True)  # d × d × H
        off = ~np.eye(d, dtype=bool)
        e = e * off[:, :, None]
        denom = max(d - 1, 1)
        out = e.sum(axis=1) / denom  # d × H: mean over the candidate children of i
        inn = e.sum(axis=0) / denom  # d × H: mean over the candidate parents of j
        h = np.concatenate([e, e.transpose(1, 0, 2),
                            np.broadcast_to(out[:, None, :], e.shape), np.broadcast_to(inn[:, None, :], e.shape),
                            np.broadcast_to(out[None, :, :], e.shape), np.broadcast_to(inn[None, :, :], e.shape)],
                           axis=2)
        logit = self._mlp(h, self.head, relu_last=False)[:, :, 0].astype(np.float64)
        logit[~off] = -np.inf
        return logit

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Edge probabilities σ(logit), d × d, diagonal 0."""
        with np.errstate(over="ignore"):
            return 1.0 / (1.0 + np.exp(-self.logits(features)))


def load_checkpoint(folder: str) -> AmortizedModel:
    """Read a checkpoint folder (module docstring) and check it.

    Raises:
        FileNotFoundError: the folder or one of its files is missing (named).
        ValueError: the weights' sha256 differs from ``config.json``'s, the
            feature version or width differs from this package's, or a tensor
            is missing or of the wrong shape (named).
    """
    from safetensors.numpy import load_file

    for name in (CONFIG, WEIGHTS):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"amortized checkpoint {folder!r}: no {name} (expected {CONFIG}, {WEIGHTS}, {PRIOR})")
    with open(os.path.join(folder, CONFIG), encoding="utf-8") as fh:
        config = json.load(fh)
    weights = os.path.join(folder, WEIGHTS)
    digest = sha256_file(weights)
    if config.get("weights_sha256") not in (None, digest):
        raise ValueError(f"{weights}: sha256 {digest} differs from config.json's weights_sha256 "
                         f"{config['weights_sha256']} (a modified or mismatched file)")
    if int(config.get("feature_version", -1)) != FEATURE_VERSION or int(config.get("n_features", -1)) != N_FEATURES:
        raise ValueError(f"{folder}: trained on feature version {config.get('feature_version')} with "
                         f"{config.get('n_features')} features; this package computes version {FEATURE_VERSION} "
                         f"with {N_FEATURES}")
    tensors = load_file(weights)
    hidden = int(config["hidden"])
    want = {"feature_mean": (N_FEATURES,), "feature_std": (N_FEATURES,)}
    widths = [N_FEATURES] + [hidden] * int(config["edge_layers"])
    for k in range(int(config["edge_layers"])):
        want[f"edge.{k}.weight"], want[f"edge.{k}.bias"] = (widths[k + 1], widths[k]), (widths[k + 1],)
    head = [6 * hidden] + [hidden] * (int(config["head_layers"]) - 1) + [1]
    for k in range(int(config["head_layers"])):
        want[f"head.{k}.weight"], want[f"head.{k}.bias"] = (head[k + 1], head[k]), (head[k + 1],)
    missing = sorted(set(want) - set(tensors))
    extra = sorted(set(tensors) - set(want))
    wrong = sorted(k for k in set(want) & set(tensors) if tuple(tensors[k].shape) != want[k])
    if missing or extra or wrong:
        raise ValueError(f"{weights}: tensors do not match config.json's architecture: missing {missing}, "
                         f"unexpected {extra}, wrong shape {[(k, tensors[k].shape, want[k]) for k in wrong]}")
    return AmortizedModel(config, tensors)


def acyclic_decision(probs: np.ndarray, threshold: float) -> np.ndarray:
    """The DAG of edges with probability > threshold, added greedily from the most probable.

    An edge that would close a directed cycle (its reverse included) is
    skipped, so the result is acyclic; ties break by (row, column) order.

    Returns:
        int8 adjacency (d × d), row = parent.
    """
    import networkx as nx

    d = probs.shape[0]
    cand = [(float(probs[i, j]), i, j) for i in range(d) for j in range(d) if i != j and probs[i, j] > threshold]
    cand.sort(key=lambda t: (-t[0], t[1], t[2]))
    g = nx.DiGraph()
    g.add_nodes_from(range(d))
    adj = np.zeros((d, d), dtype=np.int8)
    for _, i, j in cand:
        if nx.has_path(g, j, i):  # i → j would close a cycle
            continue
        g.add_edge(i, j)
        adj[i, j] = 1
    return adj
