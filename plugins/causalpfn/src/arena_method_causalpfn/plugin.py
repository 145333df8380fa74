"""Descriptors of CausalPFN (entry point ``causalarena: causalpfn``): ``causalpfn`` and ``causalpfn_aux``.

Cheap by contract: imports only the core's records and the hook marker (not
torch, not causalpfn). Both methods are CausalIDView App. E.2.1 input
configurations of the same released model:

* ``causalpfn`` — context and query features are the covariates X;
* ``causalpfn_aux`` — X plus the view's auxiliary variables as ordinary
  covariates, without role annotations; the mediator of the ``fd`` view is
  omitted from context and query ("mediator-free transfer").

Both run on the five point views and never on a bounds view (the core marks a
view ``unsupported`` only by ``views``, so the five are listed). These are
transfer evaluations of a model trained under strong ignorability, not
identification claims (README.md).
"""

from __future__ import annotations

import os
from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

#: the package's default checkpoint: a Hugging Face hub repository (causalpfn.CATEEstimator(model_path=...))
HUB_ID = "vdblm/causalpfn"
#: a local ``.pt`` (``{model_state_dict, model_config}``) or a hub id for every run (``arena run`` has no
#: per-method options); the descriptor copies it into the run's parameters, so the config hash names it
CHECKPOINT_ENV = "CAUSALARENA_CAUSALPFN_CHECKPOINT"
#: the point views of the causalidview family (real datasets use "bd", IHDP also "hc"); never a bounds view
POINT_VIEWS = ("bd", "fd", "iv", "px", "hc")

CITATION = (
    "Balazadeh, V., Kamkari, H., Thomas, V., Li, B., Ma, J., Cresswell, J. C. & Krishnan, R. G. (2025). "
    "CausalPFN: Amortized Causal Effect Estimation via In-Context Learning. NeurIPS 38, arXiv:2506.07918; "
    "causalpfn (Python package) 0.1.5, https://github.com/vdblm/CausalPFN. Input configurations: CausalIDView "
    "App. E.2.1."
)


def default_checkpoint() -> str:
    """``$CAUSALARENA_CAUSALPFN_CHECKPOINT`` (a local path made absolute; a hub id ``org/repo`` kept as is),
    else the package's hub id :data:`HUB_ID`.

    A value is a hub id when it is not an existing path, not absolute and has
    exactly one ``/`` (causalpfn's own ``is_hf_model_path`` rule, without the
    absolute-path case that rule would misread).
    """
    env = os.environ.get(CHECKPOINT_ENV, "").strip()
    if not env:
        return HUB_ID
    if os.path.exists(env) or os.path.isabs(env) or env.count("/") != 1:
        return os.path.abspath(os.path.expanduser(env))
    return env


def _info(name: str, inputs: str, description: str) -> MethodInfo:
    return MethodInfo(
        name=name,
        factory="arena_method_causalpfn.method:CausalPFN",
        task="effect",
        output_kind="effect",
        views=POINT_VIEWS,
        params={"checkpoint": default_checkpoint(), "inputs": inputs, "device": "cpu", "seed": None,
                "max_context_length": 4096, "max_query_length": 4096, "num_neighbours": 1024, "cache_dir": ""},
        citation=CITATION,
        description=description,
        requirements=("causalpfn==0.1.5", "torch"),
    )


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield ``causalpfn`` (X-only) and ``causalpfn_aux`` (X + auxiliaries, mediator dropped), task ``effect``.

    ``checkpoint`` is :func:`default_checkpoint`: a hub id is downloaded by the
    package's own code, which fails without network (status ``env_error``
    naming the file to download and ``checkpoint`` / ``$CAUSALARENA_CAUSALPFN_CHECKPOINT``).
    """
    yield _info("causalpfn", "x",
                "CausalPFN (causalpfn 0.1.5 CATEEstimator, released checkpoint, no fine-tuning): context and query "
                "features are X only (App. E.2.1); a transfer evaluation on every point view")
    yield _info("causalpfn_aux", "x_aux",
                "CausalPFN with the view's auxiliaries appended to X as ordinary covariates, no role annotations; "
                "fd: mediator omitted from context and query (mediator-free transfer, App. E.2.1)")
