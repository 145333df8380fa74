"""Descriptor of AVICI (entry point ``causalarena: avici``).

Cheap by contract: imports only the core's records, the hook marker and the
prior constant (not jax, not avici).
"""

from __future__ import annotations

import os
from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

from .prior import SCM_V0_PRIOR

CITATION = (
    "Lorch, L., Sussex, S., Rothfuss, J., Krause, A. & Schölkopf, B. (2022). Amortized Inference for Causal "
    "Structure Learning. NeurIPS 2022; avici (Python package) 1.0.7, https://github.com/larslorch/avici."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the AVICI descriptor (interventional; edge probabilities thresholded at 0.5, App. B.4).

    ``checkpoint`` is ``$CAUSALARENA_AVICI_CHECKPOINT`` (absolute) when set, so a
    run's parameters and config hash name the checkpoint it used.
    """
    env = os.environ.get("CAUSALARENA_AVICI_CHECKPOINT")
    yield MethodInfo(
        name="avici",
        factory="arena_method_avici.method:AVICI",
        output_kind="dag",
        supports_interventions=True,
        params={"checkpoint": os.path.abspath(env) if env else "", "download": "", "threshold": 0.5, "expects_counts": False,
                "pad_sizes": [10, 20, 30, 50, 100], "acyclic": True},
        citation=CITATION,
        description="AVICI (avici 1.0.7): a pretrained amortized structure learner; checkpoint=PATH (the "
                    "released scm-v0 downloaded elsewhere); edge probabilities as scores, threshold 0.5 "
                    "(cycle-closing edges dropped, least probable first); "
                    "uses intervention masks (old jax stack: runs in its own sandbox)",
        requirements=("avici==1.0.7", "jax==0.4.30"),
        prior=SCM_V0_PRIOR,
    )
