"""AVICI checkpoint folders: the layout ``avici.load_pretrained`` accepts, and small ones made here.

A released checkpoint (e.g. ``scm-v0``) is a folder with ``kwargs.json`` and
``checkpoint_0300000.pkl`` (a pickled ``avici.backbone.ModelState``).
``avici.load_pretrained(checkpoint_dir=D)`` asserts that ``kwargs.json`` is in
the **parent** of ``D`` while ``avici.utils.load.load_checkpoint(D)`` reads it
from ``D`` itself, so a usable layout carries it in both places::

    ROOT/kwargs.json
    ROOT/scm-v0/kwargs.json
    ROOT/scm-v0/checkpoint_0300000.pkl      → checkpoint=ROOT/scm-v0

:func:`check_layout` says what is missing; :func:`save_tiny_checkpoint`
writes a small randomly initialised model in that format with avici's own
saving code (``CheckpointingUpdater``), for the known-answer tests.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional

KWARGS = "kwargs.json"  # avici.definitions.CHECKPOINT_KWARGS

#: a small BaseModel (2 layers of dim 16; 2 heads of 8): a few thousand parameters, compiles in seconds.
#: logit bias 1 and temperature e^1 put the untrained edge probabilities on both sides of 0.5 (seed 0).
TINY_MODEL_KWARGS: Dict[str, Any] = {"layers": 2, "dim": 16, "key_size": 8, "num_heads": 2,
                                     "widening_factor": 2, "dropout": 0.0, "out_dim": 16,
                                     "logit_bias_init": 1.0, "cosine_temp_init": 1.0}


def check_layout(checkpoint_dir: str) -> List[str]:
    """What a checkpoint folder lacks for ``avici.load_pretrained(checkpoint_dir=...)``; [] when complete.

    Each entry names the missing path (the ``.pkl``, ``kwargs.json`` in the
    folder, ``kwargs.json`` in its parent) or says the folder does not exist.
    """
    d = Path(checkpoint_dir)
    if not d.is_dir():
        return [f"{d} is not a folder"]
    out = []
    if not any(".pkl" in p.name for p in d.iterdir()):
        out.append(f"{d}/checkpoint_*.pkl (the model state)")
    if not (d / KWARGS).is_file():
        out.append(f"{d / KWARGS} (read by avici.utils.load.load_checkpoint)")
    if not (d.parent / KWARGS).is_file():
        out.append(f"{d.parent / KWARGS} (asserted by avici.load_pretrained: kwargs.json in the PARENT too)")
    return out


def save_tiny_checkpoint(root: str, name: str = "tiny", *, n: int = 32, d: int = 5, seed: int = 0,
                         model_kwargs: Optional[Dict[str, Any]] = None) -> Path:
    """Initialise a small AVICI model and save it as ``root/name`` in the released layout.

    The parameters come from ``InferenceModel.net.init`` (haiku) on an
    ``(n, d, 2)`` zero input with ``jax.random.PRNGKey(seed)``; the state is a
    ``ModelState`` written by ``avici.backbone.CheckpointingUpdater`` (its
    ``kwargs.json`` and ``checkpoint_0000000.pkl``), and ``kwargs.json`` is
    copied to ``root`` (see the module doc). Parameters do not depend on
    ``n`` or ``d`` (attention over both axes), so the model runs on any shape.

    Returns:
        The checkpoint folder (pass it as ``checkpoint=``).

    Raises:
        causalarena.method.MethodEnvironmentError: avici is not importable here.
    """
    from .method import _import_avici

    _import_avici()  # pyarrow.plasma stub first (method._stub_plasma)
    import jax
    import jax.numpy as jnp
    from avici.backbone import CheckpointingUpdater, ModelState
    from avici.model import BaseModel, InferenceModel

    kwargs = dict(TINY_MODEL_KWARGS if model_kwargs is None else model_kwargs)
    inference_kwargs = {"train_p_obs_only": 0.0, "acyclicity": None, "mask_diag": True}
    model = InferenceModel(**inference_kwargs, model_class=BaseModel, model_kwargs=dict(kwargs))
    rng, init_rng = jax.random.split(jax.random.PRNGKey(seed))
    params = model.net.init(init_rng, jnp.zeros((n, d, 2)), True)
    state = ModelState(step=0, rng=rng, opt_state=None, params=params, dual=jnp.array(0.0),
                       dual_penalty_polyak=jnp.array(0.0), ave_params=params)

    class _Inner:  # CheckpointingUpdater wraps a trainer; only `distributed` and `init` are used
        distributed = False

        def init(self, rng_, data_):
            return state

    folder = Path(root) / name
    saver = CheckpointingUpdater(_Inner(), str(folder), save_kwargs={
        "inference_model_kwargs": inference_kwargs, "neural_net_kwargs": kwargs})
    saver.checkpoint(saver.init(rng, None), 0)
    shutil.copy(folder / KWARGS, Path(root) / KWARGS)
    return folder


def read_kwargs(checkpoint_dir: str) -> Dict[str, Any]:
    """The checkpoint's ``kwargs.json`` (model configuration)."""
    with open(Path(checkpoint_dir) / KWARGS) as fh:
        return json.load(fh)
