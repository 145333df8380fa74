"""CausalPFN as an arena effect method: the causalpfn package's ``CATEEstimator``, loaded by its own code.

``causalpfn.CATEEstimator(device, model_path=...)`` is the package's public
estimator. Its ``load_model`` turns a hub id (``org/repo``) into a local file
with ``download_from_hf_hub`` (``huggingface_hub.hf_hub_download`` of
``causalpfn_v0.pt``), then ``torch.load``s the ``.pt`` (a dict
``{model_state_dict, model_config}``) and builds the network with
``InContextModel.load`` (a TabDPT-style transformer). ``fit(X, t, y)`` loads the
model, trains a small gradient-boosting stratifier (used only to pick context
neighbours when the context is longer than ``max_context_length``) and keeps
the context; ``estimate_cate(X_query)`` returns μ̂₁(x) − μ̂₀(x), the difference
of the model's posterior-mean conditional expected potential outcomes (CEPO)
at t = 1 and t = 0 (README.md, "What the estimate is").

Costs (§5.5 of the arena paper): the estimator's ``fit`` calls ``load_model``
on every call, so this plugin subclasses the estimator (:func:`estimator_class`)
with a ``load_model`` that runs the package's own once per (file, device) and
then serves the loaded network from a module cache; :meth:`CausalPFN.preload`
fills that cache in the worker's timed ``load``.

A hub id on a machine without network is a ``MethodEnvironmentError``
(status ``env_error``) naming the file to download and the ``checkpoint``
parameter / ``$CAUSALARENA_CAUSALPFN_CHECKPOINT`` that take a local path.
huggingface_hub retries for ~25 s before it gives up; ``HF_HUB_OFFLINE=1``
makes the failure immediate (and still finds a file already in ``cache_dir``).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from arena_task_effect.effect import EffectDataset, EffectMethod
from causalarena.method import MethodEnvironmentError

from .plugin import CHECKPOINT_ENV, HUB_ID, POINT_VIEWS, default_checkpoint

#: the file the package downloads from a hub repository (causalpfn.causal_estimator.download_from_hf_hub)
HUB_FILE = "causalpfn_v0.pt"
#: input configurations (CausalIDView App. E.2.1): X only, or X + the view's auxiliaries (mediator dropped)
INPUTS = ("x", "x_aux")
#: roles never used as features: a mediator is post-treatment (conditioning on it blocks the total effect)
DROPPED_ROLES = ("mediator",)

#: (local .pt path, device) -> (InContextModel, max_feature_size, x_dim_transformer), one per worker process
_MODELS: Dict[Tuple[str, str], Tuple[Any, Optional[int], Any]] = {}
#: (checkpoint as given, cache_dir) -> the local .pt it resolved to (a hub id is downloaded once)
_RESOLVED: Dict[Tuple[str, str], str] = {}
_ESTIMATOR_CLASS: Any = None


def _import_causalpfn() -> Any:
    try:
        import causalpfn
        import causalpfn.causal_estimator  # noqa: F401 - torch, sklearn, huggingface_hub
    except ImportError as exc:
        raise MethodEnvironmentError(
            f"causalpfn is not importable here ({exc}); install the plugin with its dependencies: pip install "
            "-c constraints.txt plugins/causalpfn (causalpfn==0.1.5, torch==2.13.0)") from exc
    return causalpfn


def _download_hint(hub_id: str) -> str:
    return (f"On a connected machine run python -c \"from huggingface_hub import hf_hub_download; "
            f"print(hf_hub_download('{hub_id}', '{HUB_FILE}'))\", copy the printed {HUB_FILE} here and pass "
            f"checkpoint=/path/to/{HUB_FILE} (or set ${CHECKPOINT_ENV}=/path/to/{HUB_FILE})")


def resolve_checkpoint(checkpoint: str, cache_dir: str = "") -> str:
    """The local ``.pt`` file of ``checkpoint``: a path as is, a hub id downloaded by the package's own code.

    A value is local when it exists or is absolute; otherwise it must be a hub
    id by ``causalpfn.causal_estimator.is_hf_model_path`` (one ``/``), fetched by
    ``causalpfn.causal_estimator.download_from_hf_hub(hub_id, cache_dir)``
    (cached per process).

    Args:
        checkpoint: a ``.pt`` path or a hub id such as ``"vdblm/causalpfn"``.
        cache_dir: the download cache (the package's default ``~/.cache/causalpfn`` when empty).

    Raises:
        MethodEnvironmentError: the download fails (no network: the message names
            the repository, the file and how to pass a local copy), the path is
            not a file, or the value is neither a path nor a hub id.
    """
    key = (checkpoint, cache_dir)
    if key in _RESOLVED:
        return _RESOLVED[key]
    path = os.path.expanduser(checkpoint)
    if os.path.exists(path) or os.path.isabs(path):
        if not os.path.isfile(path):
            raise MethodEnvironmentError(
                f"causalpfn checkpoint={checkpoint!r} is not a file (expected a .pt holding "
                f"{{model_state_dict, model_config}}, e.g. the released {HUB_FILE}). " + _download_hint(HUB_ID))
        _RESOLVED[key] = os.path.abspath(path)
        return _RESOLVED[key]
    _import_causalpfn()
    from causalpfn.causal_estimator import download_from_hf_hub, is_hf_model_path

    if not is_hf_model_path(checkpoint):
        raise MethodEnvironmentError(
            f"causalpfn checkpoint={checkpoint!r} is neither an existing .pt file nor a Hugging Face hub id "
            f"(org/repo, e.g. {HUB_ID!r}). " + _download_hint(HUB_ID))
    folder = cache_dir or os.path.join(os.path.expanduser("~"), ".cache", "causalpfn")  # the package's default
    try:
        local = download_from_hf_hub(checkpoint, folder)
    except Exception as exc:  # noqa: BLE001 - no network, unknown repo, …: all are this machine's setup
        raise MethodEnvironmentError(
            f"causalpfn checkpoint={checkpoint!r} is a Hugging Face hub id: the package downloads {HUB_FILE} from "
            f"https://huggingface.co/{checkpoint}, which failed here ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}). " + _download_hint(checkpoint)) from exc
    _RESOLVED[key] = str(local)
    return _RESOLVED[key]


def estimator_class() -> Any:
    """``causalpfn.CATEEstimator`` with a cached ``load_model`` (built once, on first use: it imports torch).

    The subclass's ``load_model`` runs the package's own ``CATEEstimator.load_model``
    (``torch.load`` of ``{model_state_dict, model_config}``, ``InContextModel.load``,
    and the ``TruncatedSVD`` set-up for more features than the model takes) the
    first time a (file, device) is asked for, and afterwards reuses that
    network, the same ``max_feature_size`` and a fresh clone of the (unfitted)
    dimension reducer. Nothing else of the estimator is changed.

    Raises:
        MethodEnvironmentError: causalpfn or torch is not importable.
    """
    global _ESTIMATOR_CLASS
    if _ESTIMATOR_CLASS is None:
        causalpfn = _import_causalpfn()
        from sklearn.base import clone

        class CachedCATEEstimator(causalpfn.CATEEstimator):
            """``causalpfn.CATEEstimator`` whose network is loaded once per (file, device) per process."""

            def load_model(self) -> None:
                key = (str(self.model_path), str(self.device))
                if key not in _MODELS:
                    super().load_model()  # the package's loader: hub/local, torch.load, InContextModel.load
                    _MODELS[key] = (self.icl_model, self.max_feature_size, clone(self.x_dim_transformer))
                icl_model, max_feature_size, transformer = _MODELS[key]
                self.icl_model, self.max_feature_size = icl_model, max_feature_size
                self.x_dim_transformer = clone(transformer)

        _ESTIMATOR_CLASS = CachedCATEEstimator
    return _ESTIMATOR_CLASS


def load_model(checkpoint: str, device: str = "cpu", cache_dir: str = "") -> Tuple[Any, Optional[int], Any]:
    """Resolve ``checkpoint`` (:func:`resolve_checkpoint`) and load its network into the module cache.

    Returns:
        ``(InContextModel, max_feature_size, x_dim_transformer)`` as the
        package's ``load_model`` sets them (``max_feature_size`` = the model's
        ``max_num_features − 1``: one input column is the treatment).

    Raises:
        MethodEnvironmentError: as :func:`resolve_checkpoint`, or the file is not
            a loadable CausalPFN checkpoint (the message names the file and the
            expected ``{model_state_dict, model_config}`` layout).
    """
    local = resolve_checkpoint(checkpoint, cache_dir)
    key = (local, str(device))
    if key not in _MODELS:
        est = estimator_class()(device=device, model_path=local, cache_dir=cache_dir or None)
        try:
            est.load_model()
        except Exception as exc:  # noqa: BLE001 - an unreadable checkpoint is the setup's fault, not the fit's
            raise MethodEnvironmentError(
                f"causalpfn checkpoint {local!r} (from checkpoint={checkpoint!r}) could not be loaded by "
                f"causalpfn's CATEEstimator.load_model ({type(exc).__name__}: {exc}); expected a torch .pt "
                "holding {'model_state_dict': ..., 'model_config': {'model_type': 'tabdpt', 'model': {...}, "
                "'training': {...}}} such as the released " + HUB_FILE) from exc
    return _MODELS[key]


def feature_matrices(dataset: EffectDataset, inputs: str) -> Tuple[np.ndarray, np.ndarray, List[str], List[str]]:
    """The context and query feature matrices of an input configuration (CausalIDView App. E.2.1).

    * ``"x"``: ``(X, X_query)``, (n × p) and (q × p), columns ``columns["covariates"]``.
    * ``"x_aux"``: X with the view's auxiliary blocks appended in
      :data:`arena_task_effect.effect.EFFECT_ROLES` order (confounder, instrument,
      treatment_proxy, outcome_proxy), (n × (p + k)) and (q × (p + k)), columns
      the covariates then each role's names; the ``mediator`` is omitted from
      both (mediator-free transfer: conditioning on the factual, post-treatment
      M would make the model predict the direct effect, zero in a front-door
      world, instead of the total effect).

    Returns:
        ``(X_context, X_query, column_names, dropped_roles)``.

    Raises:
        ValueError: ``inputs`` is not in :data:`INPUTS`, or a role of the
            context is missing at the queries (``auxiliary_query[role]``).
    """
    if inputs not in INPUTS:
        raise ValueError(f"causalpfn: inputs must be one of {INPUTS}, got {inputs!r}")
    names = list(dataset.columns.get("covariates", []))
    if inputs == "x":
        return dataset.X, dataset.X_query, names, []
    dropped = [r for r in dataset.roles if r in DROPPED_ROLES]
    roles = [r for r in dataset.roles if r not in DROPPED_ROLES]
    missing = [r for r in roles if r not in dataset.auxiliary_query]
    if missing:
        raise ValueError(f"causalpfn_aux: EffectDataset.auxiliary_query lacks role(s) {missing} that the context "
                         f"carries (view {dataset.view!r}); the query features need them")
    for role in roles:
        names += list(dataset.columns[role])
    return dataset.features(roles), dataset.features(roles, query=True), names, dropped


class CausalPFN(EffectMethod):
    """CausalPFN's CATE at the query units (causalpfn 0.1.5 ``CATEEstimator``; CausalIDView App. E.2.1).

    Args:
        checkpoint: a local ``.pt`` (``{model_state_dict, model_config}``) or a
            Hugging Face hub id; empty: ``$CAUSALARENA_CAUSALPFN_CHECKPOINT``,
            else the package's ``"vdblm/causalpfn"`` (downloaded by the package,
            an ``env_error`` without network).
        inputs: ``"x"`` (X-only) or ``"x_aux"`` (X + the view's auxiliaries as
            ordinary covariates, mediator omitted): :func:`feature_matrices`.
        device: torch device (``"cpu"``; the torch of this project is CPU-only).
        seed: seeds ``numpy.random`` and torch before the fit (the package's
            only draws: ``TruncatedSVD``'s ARPACK start vector when p exceeds the
            model's width); None: drawn from ``numpy.random``, which the arena
            worker seeds with the cell seed.
        max_context_length, max_query_length, num_neighbours: the package's
            context-stratification options (they matter only when n > these).
        cache_dir: where a hub id is downloaded (empty: ``~/.cache/causalpfn``).

    After ``fit``: ``cate_`` (q,) float64 τ̂ at ``dataset.X_query`` (outcome
    units); ``features_`` the column names passed to the model;
    ``dropped_roles_``; ``checkpoint_file_`` the loaded ``.pt``; ``seed_``.

    Raises:
        ValueError: unknown ``inputs``, a non-positive length option (in the constructor).
        MethodEnvironmentError: the checkpoint cannot be found, downloaded or loaded.
    """

    def __init__(self, checkpoint: str = "", inputs: str = "x", device: str = "cpu", seed: Optional[int] = None,
                 max_context_length: int = 4096, max_query_length: int = 4096, num_neighbours: int = 1024,
                 cache_dir: str = "") -> None:
        self.checkpoint = checkpoint or default_checkpoint()  # recorded as resolved (get_params)
        self.inputs = inputs
        self.device = device
        self.seed = seed
        self.max_context_length = max_context_length
        self.max_query_length = max_query_length
        self.num_neighbours = num_neighbours
        self.cache_dir = cache_dir
        if inputs not in INPUTS:
            raise ValueError(f"causalpfn: inputs must be one of {INPUTS}, got {inputs!r}")
        for name in ("max_context_length", "max_query_length", "num_neighbours"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
                raise ValueError(f"causalpfn: {name} must be an integer >= 2, got {value!r}")

    @classmethod
    def preload(cls, checkpoint: Optional[str] = None, device: str = "cpu", cache_dir: str = "") -> None:
        """Import torch and causalpfn and load the checkpoint into the module cache (the worker's load time, §5.5).

        Raises:
            MethodEnvironmentError: as :func:`load_model`.
        """
        load_model(checkpoint or default_checkpoint(), device, cache_dir or "")

    def fit(self, dataset: EffectDataset) -> "CausalPFN":
        """τ̂(x) = μ̂₁(x) − μ̂₀(x) at ``dataset.X_query`` from the context ``(X, T, Y)`` (README.md).

        Raises:
            ValueError: a bounds target or a view outside the point views (the
                runner never sends them), an input configuration's missing query
                role (:func:`feature_matrices`).
            MethodEnvironmentError: as :func:`load_model`.
        """
        if dataset.target != "cate":
            raise ValueError(f"causalpfn estimates a CATE; EffectDataset.target is {dataset.target!r} "
                             f"(view {dataset.view!r}); its views are {POINT_VIEWS}")
        import torch

        X_c, X_q, names, dropped = feature_matrices(dataset, self.inputs)
        load_model(self.checkpoint, self.device, self.cache_dir)
        local = resolve_checkpoint(self.checkpoint, self.cache_dir)
        seed = int(np.random.randint(0, 2 ** 31 - 1)) if self.seed is None else int(self.seed)
        np.random.seed(seed % (2 ** 32))
        torch.manual_seed(seed)
        est = estimator_class()(device=self.device, model_path=local, cache_dir=self.cache_dir or None,
                                max_context_length=int(self.max_context_length),
                                max_query_length=int(self.max_query_length),
                                num_neighbours=int(self.num_neighbours))
        est.fit(np.ascontiguousarray(X_c, dtype=np.float64), dataset.T.astype(np.float64),
                np.ascontiguousarray(dataset.Y, dtype=np.float64))
        cate = np.asarray(est.estimate_cate(np.ascontiguousarray(X_q, dtype=np.float64)), dtype=np.float64)
        self.cate_ = cate.ravel()
        self.features_ = names
        self.dropped_roles_ = dropped
        self.checkpoint_file_ = local
        self.seed_ = seed
        return self
