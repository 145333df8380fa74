"""Descriptor of CDFM (entry point ``causalarena: cdfm``).

Cheap by contract: imports only the core's records and hook marker (torch
and cdfm load in the method's ``preload``).
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo, PretrainingPrior

CITATION = (
    "Qiao, J., Cai, R., Li, Z., Chen, W., Hua, P., Xu, B., Chen, Z., Hao, Z., & Cui, P. (2026). "
    "CDFM: Towards a General-Purpose Causal Discovery Foundation Model. arXiv:2607.11508."
)

#: the prior of the default (shipped, small) checkpoint: exactly the support of
#: ``train_small.linear_gaussian`` (kept equal to ``checkpoints/small/prior.json`` by a test)
SMALL_CHECKPOINT_PRIOR = PretrainingPrior(
    axes={"graph": ("er",), "mechanism": ("linear",), "noise": ("gaussian",), "root": ("gaussian",)},
    d_range=(5, 12),
    n_range=(50, 200),
    source="arena-method-cdfm train_small.py (linear_gaussian generator; README 'Small checkpoint')",
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the CDFM descriptor (App. B.4: checkpoint + official output logic; obs only, DAG, probabilities as scores).

    The declared prior is the default checkpoint's (the small one shipped
    here). A run with ``checkpoint=`` a released CDFM checkpoint has the
    released model's prior instead (README, "Priors"), which this static
    record cannot follow.
    """
    yield MethodInfo(
        name="cdfm",
        factory="arena_method_cdfm.method:CDFMMethod",
        output_kind="dag",
        supports_interventions=False,
        params={"checkpoint": None, "hub": None, "threshold": None},
        citation=CITATION,
        description="CDFM (cdfm-base): pretrained amortized discovery, calibrated threshold; "
                    "default = small shipped checkpoint, checkpoint=PATH for the released one",
        requirements=("cdfm-base==0.1.0",),
        prior=SMALL_CHECKPOINT_PRIOR,
    )
