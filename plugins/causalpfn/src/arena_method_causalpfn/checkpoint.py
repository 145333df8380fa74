"""Small CausalPFN checkpoints of the package's own architecture, for tests and smoke runs.

A released CausalPFN checkpoint (``causalpfn_v0.pt`` on the hub) is a
``torch.save``d dict::

    {"model_state_dict": InContextModel.state_dict(),   # keys "model.…" + the bin buffers
     "model_config": {"model_type": "tabdpt",
                      "model": {"emsize", "nhead", "nhid_factor", "nlayers",
                                "max_num_features", "max_num_classes", "nbins"},
                      "training": {"dropout"}, "sigma": …}}

which ``causalpfn.CATEEstimator.load_model`` reads with ``torch.load`` and
``InContextModel.load`` (→ ``load_pretrained_tabdpt_model`` →
``TabDPTLongContextModel.load``, a strict ``load_state_dict``).
:func:`save_tiny_checkpoint` writes a randomly initialised network of that
architecture in that format. Its estimates mean nothing (an untrained
network); it exists so the real loading and prediction code runs here.

``zero_head=True`` zeroes the output layer, which gives a known answer: the
logits are 0, the predictive distribution over the bins is uniform, its mean
is the centre of the symmetric bin range [−10, 10], i.e. 0 in standardised
units, so ``InContextModel.predict_cepo`` returns μ̂_t = 0 · s_t + m_t = m_t,
the context mean of Y in arm t, and ``estimate_cate`` returns
τ̂(x) = Ȳ₁ − Ȳ₀ at every query (when every context unit is a neighbour:
each arm has at most ``min(num_neighbours, max_context_length // 2)`` units).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Dict, Optional

#: a 1-layer, width-16 model (2 heads, feed-forward 32, 32 output bins): 5,120 weights, loads in milliseconds.
#: ``max_num_features`` = 100: features are zero-padded up to it (one column is the treatment), SVD-reduced beyond.
TINY_MODEL_CONFIG: Dict[str, Any] = {
    "model_type": "tabdpt",
    "model": {"emsize": 16, "nhead": 2, "nhid_factor": 2, "nlayers": 1, "max_num_features": 100,
              "max_num_classes": 10, "nbins": 32},
    "training": {"dropout": 0.0},
    "sigma": 0.5,
}


def tiny_config(**model: Any) -> Dict[str, Any]:
    """A copy of :data:`TINY_MODEL_CONFIG` with ``model`` entries replaced (e.g. ``max_num_features=8``)."""
    cfg = copy.deepcopy(TINY_MODEL_CONFIG)
    unknown = sorted(set(model) - set(cfg["model"]))
    if unknown:
        raise ValueError(f"tiny_config: unknown model entries {unknown}; known: {sorted(cfg['model'])}")
    cfg["model"].update(model)
    return cfg


def save_tiny_checkpoint(path: str, seed: int = 0, config: Optional[Dict[str, Any]] = None,
                         zero_head: bool = False) -> Path:
    """Initialise a small CausalPFN network with ``torch.manual_seed(seed)`` and save it as a release-format ``.pt``.

    The network is ``causalpfn.models.InContextModel`` around
    ``causalpfn.models.TabDPTLongContextModel``, built from ``config`` with the
    same mapping as ``TabDPTLongContextModel.load`` (nhid = emsize ×
    nhid_factor, n_out = max_num_classes, num_features = max_num_features); the
    package's strict ``load_state_dict`` on loading checks that mapping.

    Args:
        path: the ``.pt`` file to write (parents are created).
        seed: torch seed of the initial weights (same seed → same bytes of weights).
        config: a model config (default :data:`TINY_MODEL_CONFIG`; see :func:`tiny_config`).
        zero_head: zero the last layer of the output head (the known-answer model of the module doc).

    Returns:
        The written file (pass it as ``checkpoint=``).

    Raises:
        causalarena.method.MethodEnvironmentError: causalpfn / torch not importable.
        ValueError: ``max_num_classes`` <= 2 (the package's loader asserts > 2).
    """
    from .method import _import_causalpfn

    _import_causalpfn()
    import torch
    from causalpfn.models import InContextModel, TabDPTLongContextModel

    cfg = copy.deepcopy(TINY_MODEL_CONFIG if config is None else config)
    m = cfg["model"]
    if int(m["max_num_classes"]) <= 2:
        raise ValueError(f"save_tiny_checkpoint: model.max_num_classes must be > 2, got {m['max_num_classes']}")
    torch.manual_seed(int(seed))
    net = TabDPTLongContextModel(dropout=float(cfg["training"]["dropout"]), n_out=int(m["max_num_classes"]),
                                 nhead=int(m["nhead"]), nhid=int(m["emsize"]) * int(m["nhid_factor"]),
                                 ninp=int(m["emsize"]), nlayers=int(m["nlayers"]),
                                 num_features=int(m["max_num_features"]), nbins=int(m["nbins"]))
    if zero_head:
        with torch.no_grad():
            net.head[-1].weight.zero_()  # the head's last Linear has no bias: logits are exactly 0
    model = InContextModel(model=net, model_config=cfg, sigma=float(cfg.get("sigma", 0.5)))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model_state_dict": model.state_dict(), "model_config": cfg}, out)
    return out
