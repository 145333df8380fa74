"""Train the small CDFM checkpoint shipped with this plugin (``checkpoints/small``).

``cdfm-base`` ships inference code only. This module is the project's own,
minimal pretraining loop for the package's architecture
(:class:`cdfm.model.cdfm_model.CDFM`): binary cross-entropy between the edge
logits ``forward(X[B, N, D, 2], n_vec, d_vec)`` and the true adjacency (off
the diagonal), Adam, on data from :func:`linear_gaussian` — a numpy-only
linear-Gaussian SCM generator. Its prior is therefore known exactly
(:data:`SMALL_PRIOR`, written beside the checkpoint as ``prior.json``; paper
§6.2: a pretrained score must be read against the model's pretraining prior).

After training, the package's graph-adaptive threshold
(:func:`cdfm.utils.suggest_threshold`, ``T = sigmoid(w0 + sum w_i f_i)``) is
fitted by least squares of ``logit(T*)`` on the package's own features, where
``T*`` is the F1-optimal threshold of each calibration graph; the
coefficients go into ``config.json`` as ``calibration_config`` so that
``threshold=None`` works as it does for the released checkpoint.

Reproduce the shipped checkpoint (about 4 CPU-minutes on two cores)::

    python -m arena_method_cdfm.train_small --out plugins/cdfm/src/arena_method_cdfm/checkpoints/small

Seeded (numpy ``default_rng(seed)``, ``torch.manual_seed(seed)``); torch's CPU
kernels are not guaranteed bit-identical across machines/thread counts, so a
retrained checkpoint matches the shipped one in behaviour, not necessarily
byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Dict, List, Sequence, Tuple

import numpy as np

#: the architecture of the small checkpoint: the keys ``cdfm.load_checkpoint`` reads from config.json
SMALL_CONFIG: Dict[str, object] = {
    "embed_dim": 32, "p_dim": 16, "nhead": 4, "dim_feedforward": 64, "num_inds": 16,
    "dropout": 0.0, "num_of_experts": 0, "num_layers": 2, "num_blocks_of_embedding": 1,
}

#: the training generator's support, in the arena's factor vocabulary
#: (families/synthetic: graph "er", mechanism "linear", noise "gaussian", root "gaussian")
SMALL_PRIOR: Dict[str, object] = {
    "axes": {"graph": ["er"], "mechanism": ["linear"], "noise": ["gaussian"], "root": ["gaussian"]},
    "d_range": [5, 12],
    "n_range": [50, 200],
    "source": "arena-method-cdfm train_small.py (linear_gaussian generator; README 'Small checkpoint')",
}

#: the package's threshold features the small checkpoint's calibration uses (a subset of its ten)
CALIBRATION_FEATURES: Tuple[str, ...] = ("mean", "std", "p90", "logD", "knee_T")


def linear_gaussian(rng: np.random.Generator, d: int, n: int) -> Tuple[np.ndarray, np.ndarray]:
    """One linear-Gaussian SCM on an Erdős–Rényi DAG and ``n`` samples from it.

    Graph: a random causal order, each forward pair an edge with probability
    ``2 / (d - 1)`` (expected ``d`` edges). Weights ``|w| ~ U[0.5, 1.5]`` with a
    random sign (the arena's linear rule, App. A.1, without the 0.8/sqrt(k)
    factor). Roots ``N(0, 1)``; each child ``x_j = sum_i w_ij x_i + e_j``,
    ``e_j ~ N(0, s_j^2)``, ``s_j ~ U[0.5, 1]``. Columns are z-scored (the
    package standardises at inference too), so marginal variance carries no
    order information.

    Args:
        rng: numpy generator (the only source of randomness).
        d: number of variables (>= 2).
        n: number of samples (>= 2).

    Returns:
        ``(X, A)``: X (n × d) float32 standardised data; A (d × d) int8, A[i, j] = 1 iff i → j.

    Raises:
        ValueError: d < 2 or n < 2.
    """
    if d < 2 or n < 2:
        raise ValueError(f"linear_gaussian needs d >= 2 and n >= 2, got d={d}, n={n}")
    order = rng.permutation(d)
    upper = np.triu(rng.random((d, d)) < 2.0 / (d - 1), k=1)
    A = np.zeros((d, d), dtype=np.int8)
    A[np.ix_(order, order)] = upper  # position k in the order is variable order[k]
    W = A * rng.uniform(0.5, 1.5, size=(d, d)) * rng.choice([-1.0, 1.0], size=(d, d))
    X = np.zeros((n, d))
    scales = rng.uniform(0.5, 1.0, size=d)
    for j in order:
        parents = np.flatnonzero(A[:, j])
        e = rng.standard_normal(n)
        X[:, j] = e if parents.size == 0 else X[:, parents] @ W[parents, j] + scales[j] * e
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    return X.astype(np.float32), A


def build_model(config: Dict[str, object]):
    """The package's model built exactly as ``cdfm.load_checkpoint`` builds it from ``config``."""
    from cdfm.model.cdfm_model import CDFM as CDFMModel

    return CDFMModel(
        embed_dim=config.get("embed_dim", 128), p_dim=config.get("p_dim", 64), nhead=config.get("nhead", 8),
        dim_feedforward=config.get("dim_feedforward", 512), num_inds=config.get("num_inds", 128),
        dropout=config.get("dropout", 0.0), num_of_experts=config.get("num_of_experts", 0),
        num_layers=config.get("num_layers", 4), num_blocks_of_embedding=config.get("num_blocks_of_embedding", 3),
    )


def _batch(rng: np.random.Generator, batch: int, d_range: Sequence[int], n_range: Sequence[int]):
    """A batch of ``batch`` SCM draws sharing one (d, n): tensors X (B, n, d, 2), n_vec, d_vec, A (B, d, d)."""
    import torch

    d = int(rng.integers(d_range[0], d_range[1] + 1))
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    Xs, As = zip(*(linear_gaussian(rng, d, n) for _ in range(batch)))
    X = np.zeros((batch, n, d, 2), dtype=np.float32)
    X[..., 0] = np.stack(Xs)  # channel 1 (missing mask) stays 0: complete data
    return (torch.from_numpy(X), torch.full((batch,), n), torch.full((batch,), d),
            torch.from_numpy(np.stack(As).astype(np.float32)))


def threshold_features(probs: np.ndarray, features: Sequence[str]) -> np.ndarray:
    """The package's own threshold features of one (d × d) probability matrix.

    ``cdfm.utils.suggest_threshold`` computes them internally and returns
    ``sigmoid(w0 + sum w_i f_i)``; with ``w0 = 0`` and a single unit weight it
    returns ``sigmoid(f_i)``, so ``logit`` of that is exactly the package's
    ``f_i`` (no re-implementation that could drift from the package).
    """
    from cdfm.utils import suggest_threshold

    out = []
    for name in features:
        t = suggest_threshold(probs, weights=np.array([0.0, 1.0]), features=[name])
        out.append(float(np.log(t) - np.log1p(-t)))
    return np.array(out)


def best_threshold(probs: np.ndarray, A: np.ndarray) -> float:
    """The threshold (midpoint between sorted off-diagonal probabilities) of the highest edge F1 on ``A``."""
    off = ~np.eye(A.shape[0], dtype=bool)
    p, y = probs[off], A[off].astype(bool)
    ps = np.sort(np.unique(p))[::-1]
    cands = np.r_[(ps[:-1] + ps[1:]) / 2.0, ps[-1] / 2.0] if ps.size > 1 else ps / 2.0
    best, best_f1 = float(cands[0]), -1.0
    for t in cands:
        pred = p > t
        tp = int((pred & y).sum())
        f1 = 2 * tp / max(int(pred.sum()) + int(y.sum()), 1)
        if f1 > best_f1:
            best, best_f1 = float(t), f1
    return best


def fit_calibration(model, rng: np.random.Generator, n_graphs: int, d_range, n_range) -> Dict[str, object]:
    """Least-squares fit of ``logit(T*) ~ w0 + sum w_i f_i`` over ``n_graphs`` fresh calibration graphs.

    Returns the ``calibration_config`` entry of config.json (``type``,
    ``coefficients`` = [intercept, w_1 …], ``feature_names``).
    """
    import torch

    rows, targets = [], []
    with torch.no_grad():
        for _ in range(n_graphs):
            X, n_vec, d_vec, A = _batch(rng, 1, d_range, n_range)
            logits = model(X, n_vec, d_vec)[0][0].numpy().astype(np.float64)
            probs = 1.0 / (1.0 + np.exp(-np.clip(logits, -50.0, 50.0)))
            np.fill_diagonal(probs, 0.0)
            t = np.clip(best_threshold(probs, A[0].numpy()), 1e-4, 1 - 1e-4)
            rows.append(threshold_features(probs, CALIBRATION_FEATURES))
            targets.append(np.log(t) - np.log1p(-t))
    F = np.c_[np.ones(len(rows)), np.array(rows)]
    coef = np.linalg.lstsq(F.T @ F + 1e-3 * np.eye(F.shape[1]), F.T @ np.array(targets), rcond=None)[0]
    return {"type": "linear", "coefficients": [float(c) for c in coef], "feature_names": list(CALIBRATION_FEATURES)}


def train(out_dir: str, steps: int = 400, batch: int = 8, lr: float = 1e-3, seed: int = 0,
          n_calibration: int = 200) -> Dict[str, object]:
    """Train the small checkpoint and write ``config.json``, ``model.safetensors``, ``prior.json``, ``training.json``.

    Args:
        out_dir: folder to write (created).
        steps: Adam steps (one batch of ``batch`` SCMs each, one (d, n) per batch).
        batch, lr, seed: see the module docstring.
        n_calibration: calibration graphs for the threshold fit.

    Returns:
        the training log (also ``training.json``): seed, steps, seconds, final mean loss.
    """
    import safetensors.torch
    import torch

    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    d_range, n_range = SMALL_PRIOR["d_range"], SMALL_PRIOR["n_range"]
    model = build_model(SMALL_CONFIG)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    t0 = time.perf_counter()
    losses: List[float] = []
    model.train()
    for step in range(steps):
        X, n_vec, d_vec, A = _batch(rng, batch, d_range, n_range)
        logits, _ = model(X, n_vec, d_vec)
        off = ~torch.eye(A.shape[-1], dtype=torch.bool).expand_as(A)  # the diagonal is fixed at -1e9
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits[off], A[off])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        if step % 50 == 0:
            print(f"step {step}: loss {np.mean(losses[-50:]):.4f} ({time.perf_counter() - t0:.0f} s)", flush=True)
    model.eval()
    calibration = fit_calibration(model, np.random.default_rng(seed + 1), n_calibration, d_range, n_range)
    os.makedirs(out_dir, exist_ok=True)
    config = dict(SMALL_CONFIG, calibration_config=calibration)
    with open(os.path.join(out_dir, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
    state = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}
    safetensors.torch.save_file(state, os.path.join(out_dir, "model.safetensors"))
    os.chmod(os.path.join(out_dir, "model.safetensors"), 0o644)  # safetensors writes 0600; package data is shared
    with open(os.path.join(out_dir, "prior.json"), "w") as fh:
        json.dump(SMALL_PRIOR, fh, indent=2)
    log = {"seed": seed, "steps": steps, "batch": batch, "lr": lr, "n_calibration": n_calibration,
           "train_seconds": round(time.perf_counter() - t0, 1), "final_loss": float(np.mean(losses[-50:])),
           "parameters": int(sum(p.numel() for p in model.parameters()))}
    with open(os.path.join(out_dir, "training.json"), "w") as fh:
        json.dump(log, fh, indent=2)
    return log


def main(argv=None) -> int:
    """Command line: ``python -m arena_method_cdfm.train_small --out DIR [--steps N] [--seed S]``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    print(json.dumps(train(a.out, steps=a.steps, batch=a.batch, seed=a.seed)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
