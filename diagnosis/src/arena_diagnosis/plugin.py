"""arena-diagnosis's plugin: the diagnosis report (``arena_reports``), its analyses (``arena_analyses``)
and its options of ``arena report`` (``arena_addoption``).

Every analysis of the page is registered here like a third party's would be;
``arena report --list-analyses`` lists the installed ones (this distribution's
and any other's) with their distribution and help.
"""

from __future__ import annotations

import argparse
from typing import Any, Iterator, List, Optional

from causalarena.hookspecs import hookimpl
from causalarena.records import AnalysisInfo, ReportInfo

_S = "arena_diagnosis.sections"


@hookimpl
def arena_reports():
    """The diagnosis section: every registered analysis, the figures and index.html."""
    return [ReportInfo(name="diagnosis", factory="arena_diagnosis.report:write_diagnosis",
                       help="slice scores, win rates, interactions, curves, frontier, exposure, "
                            "figures and index.html (paper §5-6)", order=100,
                       check="arena_diagnosis.report:check_options")]


@hookimpl
def arena_analyses() -> Iterator[AnalysisInfo]:
    """The paper's §5–6 analyses (and the effect section, CausalIDView App. E), in page order."""
    yield AnalysisInfo(name="slices", factory=f"{_S}:slices", order=10, section="Slice explorer",
                       tables=("slices",), help="Eq. 6 slice scores by every graph-level factor (§3.2)")
    yield AnalysisInfo(name="edges", factory=f"{_S}:edges", order=20, section="Slice explorer",
                       tables=("edge_slices_mechanism", "edge_slices_noise"),
                       help="edge-level precision / recall / F1 by the child's mechanism or noise (§6.1)")
    yield AnalysisInfo(name="winrates", factory=f"{_S}:winrates", order=30, section="Figures",
                       tables=("win_rates_obs", "win_rates_by_family_obs", "win_rates_obs_int",
                               "win_rates_by_family_obs_int"),
                       figures=("win_rate_matrix_obs", "win_rate_bars_obs"),
                       help="pairwise win rates and win rate by family (Fig. 1, 19)")
    yield AnalysisInfo(name="interactions", factory=f"{_S}:interactions", order=40, section="Figures",
                       tables=("interactions",), figures=("interactions_<factor>",),
                       help="double-centred interaction scores with unit counts and a bootstrap interval "
                            "(Eq. 7; Fig. 10, 12, 13)")
    yield AnalysisInfo(name="curves", factory=f"{_S}:curves", order=50, section="Figures",
                       tables=("d_curve", "n_curve"), figures=("d_curve", "n_curve"),
                       help="F1 against d (Fig. 11) and n (Fig. 6a)")
    yield AnalysisInfo(name="protocols", factory=f"{_S}:protocols", order=60, section="Tables",
                       tables=("protocols",), figures=("protocol_bars",),
                       help="intervention-protocol sensitivity (Table 3, Fig. 6b)")
    yield AnalysisInfo(name="domains", factory=f"{_S}:domains", order=70, section="Tables",
                       tables=("domain_shift_semantic", "domain_shift_formula"),
                       figures=("domain_shift_semantic", "domain_shift_formula"),
                       help="domain shift of the semantic and formula families (Fig. 17)")
    yield AnalysisInfo(name="real", factory=f"{_S}:real", order=80, section="Tables",
                       tables=("real_data", "real_pairs"), figures=("real_data", "real_tables"),
                       help="every family of kind 'real': F1 / SHD per table against the synthetic mean, one "
                            "strip per table, weighted orientation accuracy of pair tracks (Fig. 5)")
    yield AnalysisInfo(name="runtime", factory="arena_diagnosis.runtime:runtime", order=85, section="Tables",
                       tables=("runtime",), help="load vs per-graph time T(k) = T_fixed + k·T_graph "
                                                 "(§5.5, Tables 4-5): runtime.csv")
    yield AnalysisInfo(name="frontier", factory=f"{_S}:frontier", order=90, section="Tables",
                       tables=("frontier",), figures=("pareto_frontier",),
                       help="accuracy-cost frontier (Fig. 9)")
    yield AnalysisInfo(name="exposure", factory=f"{_S}:exposure", order=100, section="Tables",
                       tables=("exposure_coverage", "exposure_axes", "exposure_summary", "exposure_skipped"),
                       figures=("prior_coverage", "id_ood"),
                       help="pretraining exposure of methods with a declared prior (§6.2 Eq. 8-10; Fig. 14, 15)")
    yield AnalysisInfo(name="sortability", factory="arena_diagnosis.sortability:sortability", order=110,
                       section="Tables", tables=("sortability",),
                       help="varsortability and R²-sortability per family and split (Reisach et al. 2021, "
                            "2023): sortability.csv, sortability.md")
    yield AnalysisInfo(name="effect", factory="arena_diagnosis.effect_section:effect", order=200, task="effect",
                       section="Effect estimation",
                       tables=("effect_status", "effect_view_method", "effect_stay_move", "effect_hc_degradation",
                               "effect_bounds", "effect_real", "effect_context"),
                       figures=("effect_view_method", "effect_stay_move", "effect_hc_degradation", "effect_bounds"),
                       help="effect estimation: sPEHE² by view, Stay / Move, bd → hc, bounds, real data, "
                            "context length (CausalIDView)")


def _comma_list(text: str) -> Optional[List[str]]:
    """``"a, b,,c"`` → ``["a", "b", "c"]``; only commas → ``[]`` (the report's check names the empty list)."""
    return [v.strip() for v in text.split(",") if v.strip()]


class _ListAnalyses(argparse.Action):
    """``--list-analyses``: print the installed analyses (name, task, distribution, page section, help), exit 0."""

    def __init__(self, option_strings: Any, dest: str, registry: Any = None, **kwargs: Any) -> None:
        self.registry = registry
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        from .context import analysis_rows, installed_analyses

        rows = analysis_rows(installed_analyses(self.registry))
        width = max(len(r["name"]) for r in rows)
        dist = max(len(r["distribution"]) for r in rows)
        sec = max(len("section"), *(len(r["section"]) for r in rows))
        print(f"{'analysis':<{width}}  {'task':<9}  {'distribution':<{dist}}  {'section':<{sec}}  help")
        for r in rows:
            print(f"{r['name']:<{width}}  {r['task']:<9}  {r['distribution']:<{dist}}  {r['section']:<{sec}}  {r['help']}")
        parser.exit(0)


@hookimpl
def arena_addoption(command: str, parser: argparse.ArgumentParser, registry: Any) -> None:
    """The diagnosis options of ``arena report`` (the core declares none of them)."""
    if command != "report":
        return
    group = parser.add_argument_group("arena-diagnosis (report extension)")
    group.add_argument("--analyses", type=_comma_list, metavar="A,B",
                       help="comma list of analyses to run (default: all; --list-analyses lists them)")
    group.add_argument("--list-analyses", action=_ListAnalyses, registry=registry,
                       help="list the installed analyses with their distribution and help, and exit")
    group.add_argument("--factors", type=_comma_list, metavar="F,G",
                       help="comma list of factors to slice by (default: the analyses' own)")
    group.add_argument("--reference", type=_comma_list, metavar="M1,M2",
                       help="comma list of reference methods, e.g. pc,ges (default: the graphical-search "
                            "methods installed)")
    group.add_argument("--runtime", action="store_true",
                       help="only the runtime analysis: fit load vs per-graph time T(k) = T_fixed + k*T_graph "
                            "per method and d (paper 5.5, Table 5), print it and write runtime.csv")
