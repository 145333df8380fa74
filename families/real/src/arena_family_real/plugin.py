"""Entry point ``causalarena: real``: registers the ``real`` and ``tuebingen`` families and the
``orientation_accuracy`` metric of the Tübingen pairs track.

Builds only the descriptors; nothing is read until a family is loaded.
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import FamilyInfo, MetricInfo

CITATION = (
    "Sachs, K., Perez, O., Pe'er, D., Lauffenburger, D. A., & Nolan, G. P. (2005). "
    "Causal protein-signaling networks derived from multiparameter single-cell data. "
    "Science, 308(5721), 523-529."
)

TUEBINGEN_CITATION = (
    "Mooij, J. M., Peters, J., Janzing, D., Zscheischler, J., & Schoelkopf, B. (2016). Distinguishing cause "
    "from effect using observational data: methods and benchmarks. JMLR, 17(32), 1-102."
)


@hookimpl
def arena_families() -> Iterator[FamilyInfo]:
    """Yield the ``real`` family (Sachs via cdt 0.6.0, plus user CSV tables) and ``tuebingen`` (CEP pairs)."""
    yield FamilyInfo(
        name="real",
        kind="real",
        factory="arena_family_real.family:RealFamily",
        description="public tables with published graphs (Sachs flow cytometry from cdt) "
                    "and user CSV + edge-list tables; obs-only, one replicate",
        citation=CITATION,
    )
    # one distribution for both: the same cdt wheel, reader and fixed-table protocol (README, "tuebingen")
    yield FamilyInfo(
        name="tuebingen",
        kind="real",
        factory="arena_family_real.tuebingen:TuebingenFamily",
        description="Tübingen cause-effect pairs (CEP, cdt 0.6.0 copy): 99 bivariate pairs, one d = 2 "
                    "instance each, the true direction as the graph; obs-only; scored by orientation_accuracy",
        citation=TUEBINGEN_CITATION,
    )


@hookimpl
def arena_metrics() -> Iterator[MetricInfo]:
    """Yield ``orientation_accuracy`` (defined on d = 2 truths with one edge; None elsewhere)."""
    yield MetricInfo(
        name="orientation_accuracy",
        factory="arena_family_real.tuebingen:orientation_accuracy",
        higher_is_better=True,
        description="cause-effect pairs: 1 for the true direction, 0 reversed, 0.5 no decision "
                    "(Mooij et al. 2016); None unless the truth is one edge on d = 2",
    )
