"""Descriptor of ForestDRIV (entry point ``causalarena: driv``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CITATION = (
    "Syrgkanis, V., Lei, V., Oprescu, M., Hei, M., Battocchi, K., & Lewis, G. (2019). Machine Learning "
    "Estimation of Heterogeneous Treatment Effects with Instruments. NeurIPS 2019."
)


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the ForestDRIV descriptor (task ``effect``, view ``iv``)."""
    yield MethodInfo(
        name="forest_driv",
        factory="arena_method_driv.method:ForestDRIVMethod",
        task="effect",
        views=("iv",),
        output_kind="effect",
        # econml defaults except n_jobs=1 (a shared 2-core worker; the fit does not depend on it)
        params={"n_estimators": 1000, "min_samples_leaf": 5, "cv": 2, "n_jobs": 1,
                "nuisance_model": "auto"},
        citation=CITATION,
        description="ForestDRIV (econml): doubly robust IV pseudo-outcome, generalised random forest final model; "
                    "binary instrument, effect modifiers X",
        requirements=("econml>=0.17",),
    )
