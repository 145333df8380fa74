"""Descriptors of NOTEARS and NOTEARS-MLP (entry point ``causalarena: notears``).

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo

GCASTLE = (
    "Zhang, K., Zhu, S., Kalander, M., Ng, I., Ye, J., Chen, Z., & Pan, L. (2021). gCastle: A Python "
    "Toolbox for Causal Discovery. arXiv:2111.15155."
)
CITATION_NOTEARS = (
    "Zheng, X., Aragam, B., Ravikumar, P., & Xing, E. P. (2018). DAGs with NO TEARS: Continuous "
    "Optimization for Structure Learning. NeurIPS 2018; " + GCASTLE
)
CITATION_NOTEARS_MLP = (
    "Zheng, X., Dan, C., Aragam, B., Ravikumar, P., & Xing, E. P. (2020). Learning Sparse Nonparametric "
    "DAGs. AISTATS 2020; " + GCASTLE
)
REQUIREMENTS = ("gcastle==1.0.4", "torch>=2.1")


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the ``notears`` and ``notears_mlp`` descriptors (App. B.4 defaults, threshold 0.3)."""
    yield MethodInfo(
        name="notears",
        factory="arena_method_notears.method:NOTEARS",
        output_kind="dag",
        supports_interventions=False,
        params={"lambda1": 0.1, "loss_type": "l2", "w_threshold": 0.3, "max_iter": 100,
                "h_tol": 1e-8, "rho_max": 1e16},
        citation=CITATION_NOTEARS,
        description="NOTEARS linear (gcastle 1.0.4): l2 loss, lambda1 0.1, weight threshold 0.3",
        requirements=REQUIREMENTS,
    )
    yield MethodInfo(
        name="notears_mlp",
        factory="arena_method_notears.method:NOTEARSMLP",
        output_kind="dag",
        supports_interventions=False,
        params={"lambda1": 0.01, "lambda2": 0.01, "hidden_layers": (10, 1), "max_iter": 100,
                "w_threshold": 0.3, "h_tol": 1e-8, "rho_max": 1e16, "bias": True, "random_state": None},
        citation=CITATION_NOTEARS_MLP,
        description="NOTEARS-MLP (gcastle 1.0.4 NotearsNonlinear): 10 hidden units, lambda1 = lambda2 = 0.01, "
                    "100 iterations, weight threshold 0.3",
        requirements=REQUIREMENTS,
    )
