"""Train the amortized model on the arena's own generator restricted to a prior.

``arena amortized-train --prior PRIOR.yaml --out DIR [--seed S] [--n-train N] ...``
(or ``python -m arena_method_amortized.train ...``) reproduces a checkpoint bit
for bit from its seed, prior and settings (all in its ``config.json``):

1. SCMs ``0 … N−1`` of namespace ``train`` and ``0 … V−1`` of ``val``
   (:func:`arena_family_synthetic.prior.draw_training_spec`: the synthetic
   family's own steps, catalogues cut down to the prior; SCM i is sampled in
   the prior's splits in turn, replicate 0 of the protocol, App. B.1), their
   statistics (:mod:`.features`) computed in ``--jobs`` processes, one BLAS
   thread each, results in index order;
2. feature standardisation from the training pairs;
3. Adam on the edge-wise binary cross-entropy, torch on one thread with
   deterministic algorithms, batches shuffled by ``--seed``;
4. the threshold maximising the mean F1 of :func:`.model.acyclic_decision`
   on the validation SCMs (grid 0.05 … 0.95), computed with the numpy
   inference that the method runs.

Only this module imports torch (``pip install arena-method-amortized[train]``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .features import FEATURE_VERSION, N_FEATURES, pair_features
from .model import CONFIG, PRIOR, WEIGHTS, acyclic_decision, load_checkpoint, sha256_file

DEFAULTS = {"n_train": 4000, "n_val": 200, "epochs": 40, "batch": 32, "hidden": 64, "edge_layers": 2,
            "head_layers": 3, "lr": 2e-3, "weight_decay": 1e-4, "seed": 0}

_PRIOR: Any = None


def _init_worker(prior_map: Dict[str, Any]) -> None:
    global _PRIOR
    from threadpoolctl import threadpool_limits

    from arena_family_synthetic.prior import prior_from_mapping

    threadpool_limits(1)  # one BLAS thread: the statistics are bit-identical whatever the machine's core count
    _PRIOR = prior_from_mapping(prior_map)


def example(prior: Any, index: int, namespace: str) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(features d × d × F float32, true adjacency d × d int8) of SCM ``index``; None when generation failed."""
    from arena_family_synthetic.prior import draw_training_spec, training_split
    from causalarena.protocol import make_dataset

    try:
        spec = draw_training_spec(prior, index, namespace)
    except RuntimeError:
        return None  # the generator's audits rejected every draw: deterministic, so skipped the same way each time
    split = training_split(prior, index)
    ds = make_dataset(spec, f"amortized-{namespace}", split, 0)
    mask = np.asarray(ds.intervention_mask, dtype=bool) if ds.intervention_mask is not None else None
    with np.errstate(all="ignore"):
        feats = pair_features(ds.X, mask)
    return feats, np.asarray(ds.true_adjacency, dtype=np.int8)


def _one(job: Tuple[int, str]):
    return example(_PRIOR, job[0], job[1])


def generate(prior: Any, count: int, namespace: str, jobs: int) -> List[Tuple[np.ndarray, np.ndarray]]:
    """Examples ``0 … count−1`` of ``namespace`` in index order (failed draws left out)."""
    work = [(i, namespace) for i in range(count)]
    if jobs <= 1:
        _init_worker(prior.to_mapping())
        out = [_one(w) for w in work]
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(jobs, initializer=_init_worker, initargs=(prior.to_mapping(),)) as pool:
            out = list(pool.imap(_one, work, chunksize=8))
    return [o for o in out if o is not None]


def _pad(batch: Sequence[Tuple[np.ndarray, np.ndarray]], dmax: int):
    import torch

    b = len(batch)
    f = np.zeros((b, dmax, dmax, N_FEATURES), dtype=np.float32)
    a = np.zeros((b, dmax, dmax), dtype=np.float32)
    valid = np.zeros((b, dmax, dmax), dtype=np.float32)
    sizes = np.zeros(b, dtype=np.float32)
    for k, (feats, adj) in enumerate(batch):
        d = feats.shape[0]
        f[k, :d, :d] = feats
        a[k, :d, :d] = adj
        valid[k, :d, :d] = 1.0 - np.eye(d, dtype=np.float32)
        sizes[k] = d
    return torch.from_numpy(f), torch.from_numpy(a), torch.from_numpy(valid), torch.from_numpy(sizes)


def build_net(hidden: int, edge_layers: int, head_layers: int):
    """The torch twin of :class:`.model.AmortizedModel` (same layers, same names)."""
    import torch
    from torch import nn

    def mlp(widths: Sequence[int]) -> nn.ModuleList:
        return nn.ModuleList(nn.Linear(widths[k], widths[k + 1]) for k in range(len(widths) - 1))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.edge = mlp([N_FEATURES] + [hidden] * edge_layers)  # ReLU after every layer (forward)
            self.head = mlp([6 * hidden] + [hidden] * (head_layers - 1) + [1])  # ReLU between layers

        def forward(self, f, valid, sizes):
            e = f
            for layer in self.edge:
                e = torch.relu(layer(e))
            e = e * valid[..., None]
            denom = (sizes - 1.0).clamp(min=1.0)[:, None, None]
            out = e.sum(dim=2) / denom  # B × D × H
            inn = e.sum(dim=1) / denom
            d = f.shape[1]
            h = torch.cat([e, e.transpose(1, 2), out[:, :, None, :].expand(-1, -1, d, -1),
                           inn[:, :, None, :].expand(-1, -1, d, -1), out[:, None, :, :].expand(-1, d, -1, -1),
                           inn[:, None, :, :].expand(-1, d, -1, -1)], dim=3)
            for k, layer in enumerate(self.head):
                h = layer(h)
                if k < len(self.head) - 1:
                    h = torch.relu(h)
            return h[..., 0]

    return Net()


def _f1(true: np.ndarray, pred: np.ndarray) -> float:
    tp = float((true * pred).sum())
    p, t = float(pred.sum()), float(true.sum())
    return 0.0 if tp == 0 else 2 * tp / (p + t)


def train(prior_path: str, out: str, settings: Optional[Dict[str, Any]] = None, jobs: int = 2,
          log=print) -> Dict[str, Any]:
    """Train and write a checkpoint folder (module docstring); returns its ``config.json`` content.

    Raises:
        FileNotFoundError, ValueError: a bad prior file (named by
            :func:`arena_family_synthetic.prior.load_prior`).
        ImportError: torch is not installed (``[train]`` extra).
    """
    import torch
    import yaml
    from sklearn.metrics import roc_auc_score

    from arena_family_synthetic.prior import load_prior

    s = {**DEFAULTS, **(settings or {})}
    prior = load_prior(prior_path)
    t0 = time.perf_counter()
    train_set = generate(prior, int(s["n_train"]), "train", jobs)
    val_set = generate(prior, int(s["n_val"]), "val", jobs)
    t_data = time.perf_counter() - t0
    log(f"data: {len(train_set)} training and {len(val_set)} validation SCMs in {t_data:.0f} s")

    pairs = np.concatenate([f[~np.eye(f.shape[0], dtype=bool)] for f, _ in train_set]).astype(np.float64)
    mean = pairs.mean(axis=0).astype(np.float32)
    std = pairs.std(axis=0).astype(np.float32)
    std[std < 1e-6] = 1.0
    del pairs

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(int(s["seed"]))
    net = build_net(int(s["hidden"]), int(s["edge_layers"]), int(s["head_layers"]))
    opt = torch.optim.Adam(net.parameters(), lr=float(s["lr"]), weight_decay=float(s["weight_decay"]))
    epochs, batch = int(s["epochs"]), int(s["batch"])
    steps = epochs * ((len(train_set) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=float(s["lr"]), total_steps=steps)
    dmax = max(f.shape[0] for f, _ in train_set)
    tm, ts = torch.from_numpy(mean), torch.from_numpy(std)
    order_rng = np.random.default_rng(int(s["seed"]))
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")
    t1 = time.perf_counter()
    for epoch in range(epochs):
        perm = order_rng.permutation(len(train_set))
        total, count = 0.0, 0.0
        for start in range(0, len(perm), batch):
            f, a, valid, sizes = _pad([train_set[k] for k in perm[start:start + batch]], dmax)
            f = (f - tm) / ts * valid[..., None]
            logit = net(f, valid, sizes)
            loss = (loss_fn(logit, a) * valid).sum() / valid.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * float(valid.sum())
            count += float(valid.sum())
        if epoch % 10 == 9 or epoch == epochs - 1:
            log(f"epoch {epoch + 1}/{epochs}: training loss {total / count:.4f} ({time.perf_counter() - t1:.0f} s)")
    t_fit = time.perf_counter() - t1

    os.makedirs(out, exist_ok=True)
    tensors = {"feature_mean": mean, "feature_std": std}
    for prefix in ("edge", "head"):
        for k, layer in enumerate(getattr(net, prefix)):
            tensors[f"{prefix}.{k}.weight"] = layer.weight.detach().numpy().astype(np.float32).copy()
            tensors[f"{prefix}.{k}.bias"] = layer.bias.detach().numpy().astype(np.float32).copy()
    from safetensors.numpy import save_file

    weights = os.path.join(out, WEIGHTS)
    save_file(tensors, weights)
    os.chmod(weights, 0o644)  # safetensors writes 0600; a checkpoint is meant to be shared and shipped
    config: Dict[str, Any] = {
        "model": "arena-amortized", "feature_version": FEATURE_VERSION, "n_features": N_FEATURES,
        "hidden": int(s["hidden"]), "edge_layers": int(s["edge_layers"]), "head_layers": int(s["head_layers"]),
        "training": {k: s[k] for k in ("n_train", "n_val", "epochs", "batch", "lr", "weight_decay", "seed")},
        "n_train_scms": len(train_set), "n_val_scms": len(val_set), "prior_digest": prior.digest(),
        "threshold": 0.5, "weights_sha256": sha256_file(weights),
    }
    with open(os.path.join(out, PRIOR), "w", encoding="utf-8") as fh:
        yaml.safe_dump(prior.to_mapping(), fh, sort_keys=True)
    _write_config(out, config)

    # the threshold, chosen with the numpy inference the method runs
    model = load_checkpoint(out)
    probs = [model.probabilities(f) for f, _ in val_set]
    grid = np.round(np.arange(0.05, 0.951, 0.05), 2)
    f1s = [float(np.mean([_f1(a, acyclic_decision(p, t)) for p, (_, a) in zip(probs, val_set)])) for t in grid]
    best = float(grid[int(np.argmax(f1s))])
    y = np.concatenate([a[~np.eye(a.shape[0], dtype=bool)] for _, a in val_set])
    sc = np.concatenate([p[~np.eye(p.shape[0], dtype=bool)] for p in probs])
    config["threshold"] = best
    config["validation"] = {"auroc": round(float(roc_auc_score(y, sc)), 4), "f1": round(max(f1s), 4)}
    _write_config(out, config)
    log(f"validation: AUROC {config['validation']['auroc']:.3f}, F1 {max(f1s):.3f} at threshold {best}; "
        f"training {t_fit:.0f} s, total {time.perf_counter() - t0:.0f} s; {out}")
    return config


def _write_config(out: str, config: Dict[str, Any]) -> None:
    with open(os.path.join(out, CONFIG), "w", encoding="utf-8") as fh:
        json.dump(config, fh, indent=2, sort_keys=True)
        fh.write("\n")


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena amortized-train``."""
    parser.add_argument("--prior", required=True, help="prior YAML (arena_family_synthetic.prior)")
    parser.add_argument("--out", required=True, help="checkpoint folder to write")
    parser.add_argument("--from-checkpoint", metavar="DIR",
                        help="take every training setting from DIR/config.json (reproduce that checkpoint)")
    for key, value in DEFAULTS.items():
        parser.add_argument(f"--{key.replace('_', '-')}", type=type(value), default=None,
                            help=f"default {value}")
    parser.add_argument("--jobs", type=int, default=2, help="processes generating data (default 2)")


def _settings(args: argparse.Namespace) -> Dict[str, Any]:
    """Training settings: ``--from-checkpoint``'s, then the options given.

    Raises:
        ValueError: an unreadable ``--from-checkpoint``, a setting below 1
            (counts, epochs, batch, layers, hidden) or a negative rate; named.
    """
    settings: Dict[str, Any] = {}
    if args.from_checkpoint:
        path = os.path.join(args.from_checkpoint, CONFIG)
        try:
            with open(path, encoding="utf-8") as fh:
                cfg = json.load(fh)
            settings.update(cfg["training"])
            settings.update({k: cfg[k] for k in ("hidden", "edge_layers", "head_layers")})
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"--from-checkpoint {args.from_checkpoint}: cannot read the training settings in "
                             f"{path} ({type(exc).__name__}: {exc})") from exc
    for key in DEFAULTS:
        value = getattr(args, key, None)
        if value is not None:
            settings[key] = value
    merged = {**DEFAULTS, **settings}
    for key in ("n_train", "n_val", "epochs", "batch", "hidden", "edge_layers", "head_layers"):
        if int(merged[key]) < 1:
            raise ValueError(f"--{key.replace('_', '-')} must be at least 1, got {merged[key]}")
    for key in ("lr", "weight_decay"):
        if float(merged[key]) < 0 or (key == "lr" and float(merged[key]) == 0):
            raise ValueError(f"--{key.replace('_', '-')} must be positive, got {merged[key]}")
    return settings


def run(args: argparse.Namespace) -> int:
    """``arena amortized-train``: exit 0, or 2 on a bad prior, option or output folder (message on stderr)."""
    try:
        settings = _settings(args)
        if not os.path.isfile(args.prior):
            raise ValueError(f"--prior {args.prior}: no such file" + (" (it is a folder)"
                                                                        if os.path.isdir(args.prior) else ""))
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            raise ValueError(f"--out {args.out}: exists and is not a folder")
        if os.path.isfile(os.path.join(args.out, WEIGHTS)):
            print(f"arena amortized-train: replacing the checkpoint in {args.out}", file=sys.stderr)
        train(args.prior, args.out, settings, jobs=max(1, int(args.jobs)))
    except (OSError, ValueError) as exc:
        print(f"arena amortized-train: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena_method_amortized.train", description=__doc__.split("\n")[0])
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
