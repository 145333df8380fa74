"""Descriptors of the cdt methods (entry point ``causalarena: cdt``).

Cheap by contract: imports only the core's records and hook marker (no cdt, no torch).
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

CDT_CITATION = (
    "Kalainathan, D., Goudet, O. & Dutta, R. (2020). Causal Discovery Toolbox: uncovering causal "
    "relationships in Python. JMLR 21(37), 1-5; cdt 0.6.0, https://github.com/FenTechSolutions/CausalDiscoveryToolbox."
)

SAM_CITATION = (
    "Kalainathan, D., Goudet, O., Guyon, I., Lopez-Paz, D. & Sebag, M. (2022). Structural Agnostic "
    "Modeling: adversarial learning of causal graphs. JMLR 23(219), 1-62. " + CDT_CITATION
)

GES_CITATION = (
    "Chickering, D. M. (2002). Optimal structure identification with greedy search. JMLR 3, 507-554; "
    "Kalisch, M., Mächler, M., Colombo, D., Maathuis, M. H. & Bühlmann, P. (2012). Causal inference "
    "using graphical models with the R package pcalg. J. Stat. Softw. 47(11). " + CDT_CITATION
)

#: SAM defaults: cdt 0.6.0's ``SAM.__init__`` (App. B.4 has no SAM entry), plus the arena's
#: threshold / seed. Keep in sync with ``arena_method_cdt.method.SAM.__init__``.
SAM_DEFAULTS = {
    "lr": 0.01, "dlr": 0.001, "lambda1": 10.0, "lambda2": 0.001, "nh": 20, "dnh": 200,
    "train_epochs": 3000, "test_epochs": 1000, "batch_size": -1, "losstype": "fgan",
    "dagloss": True, "dagstart": 0.5, "dagpenalization": 0.0, "dagpenalization_increase": 0.01,
    "functional_complexity": "l2_norm", "hlayers": 2, "dhlayers": 2,
    "sampling_type": "sigmoidproba", "linear": False, "nruns": 8,
    "threshold": 0.5, "random_state": None,
}


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the descriptors of ``sam`` (torch) and ``cdt_ges`` (R: pcalg)."""
    yield MethodInfo(
        name="sam",
        factory="arena_method_cdt.method:SAM",
        output_kind="dag",
        params=dict(SAM_DEFAULTS),
        citation=SAM_CITATION,
        description="SAM (cdt 0.6.0): adversarially trained generators with structural gates; averaged "
                    "gate probabilities thresholded at 0.5 into a DAG (greedy, strongest edges first). Slow",
        requirements=("cdt==0.6.0", "torch>=2.1"),
    )
    yield MethodInfo(
        name="cdt_ges",
        factory="arena_method_cdt.r_methods:CdtGES",
        output_kind="cpdag",
        requires_full_rank=True,  # Gaussian l0-penalised likelihood score
        params={"score": "obs", "r_timeout": 60.0},
        citation=GES_CITATION,
        description="GES from the R package pcalg through cdt (GaussL0penObsScore = BIC); needs Rscript "
                    "and pcalg, otherwise env_error",
        requirements=("cdt==0.6.0",),
    )
