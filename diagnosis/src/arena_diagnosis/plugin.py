"""arena-diagnosis's plugin: registers the diagnosis report with ``arena report`` (hook ``arena_reports``)."""

from causalarena.hookspecs import hookimpl
from causalarena.records import ReportInfo


@hookimpl
def arena_reports():
    """The diagnosis section: slices, win rates, interactions, curves, frontier, exposure, figures, index.html."""
    return [ReportInfo(name="diagnosis", factory="arena_diagnosis.report:write_diagnosis",
                       help="slice scores, win rates, interactions, curves, frontier, exposure, "
                            "figures and index.html (paper §5-6)", order=100,
                       check="arena_diagnosis.report:check_options")]
