"""Descriptor of SDCD (entry point ``causalarena: sdcd``).

Cheap by contract: imports only the core's records and hook marker (not torch, not sdcd).
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Nazaret, A., Hong, J., Azizi, E. & Blei, D. (2024). Stable Differentiable Causal Discovery. "
    "ICML 2024, PMLR 235; sdcd (Python package) 0.1.4, https://github.com/azizilab/sdcd."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the SDCD descriptor (interventional; two-stage training; DAG thresholded at 0.1)."""
    yield MethodInfo(
        name="sdcd",
        factory="arena_method_sdcd.method:SDCD",
        output_kind="dag",
        supports_interventions=True,
        params={"threshold": 0.1, "n_epochs_stage1": 2000, "n_epochs_stage2": 2000,
                "model_variance_flavor": "nn", "val_fraction": 0.2, "n_threads": 1, "random_state": None},
        citation=CITATION,
        description="SDCD (sdcd 0.1.4): two-stage differentiable DAG learning with the spectral acyclicity "
                    "penalty; uses intervention masks; threshold 0.1 (old stack: runs in its own sandbox)",
        requirements=("sdcd==0.1.4", "torch>=2.1"),
    )
