"""Descriptor of DAGMA (entry point ``causalarena: dagma``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Bello, K., Aragam, B., & Ravikumar, P. (2022). DAGMA: Learning DAGs via M-matrices and a "
    "Log-Determinant Acyclicity Characterization. NeurIPS 2022."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the DAGMA descriptor (linear, l2 loss, library defaults, threshold 0.3; App. B.4)."""
    yield MethodInfo(
        name="dagma",
        factory="arena_method_dagma.method:DAGMA",
        output_kind="dag",
        supports_interventions=False,
        params={
            "loss_type": "l2", "lambda1": 0.03, "w_threshold": 0.3, "T": 5, "mu_init": 1.0,
            "mu_factor": 0.1, "s": (1.0, 0.9, 0.8, 0.7, 0.6), "warm_iter": 30000,
            "max_iter": 60000, "lr": 0.0003,
        },
        citation=CITATION,
        description="DAGMA linear (dagma): log-det acyclicity, l2 loss, lambda1 0.03, weight threshold 0.3",
        requirements=("dagma>=1.1",),
    )
