"""Analyses and report options are plugins (issue 22): a test plugin adds an analysis and an option of
``arena report`` without touching the core or arena-diagnosis, and sees both in the report.

The store is test_write_diagnosis's (known scores): pc is perfect everywhere (F1 1), ges finds every
edge of the two "er" SCMs and none of the two "tree" SCMs (F1 1, 1, 0, 0 → mean 0.5), "foundation" is
perfect on "er" and finds one of two edges on "tree" (F1 1, 1, 2/3, 2/3 → mean 5/6).
"""

from __future__ import annotations

import pandas as pd
import pytest
from test_write_diagnosis import _store

from causalarena.cli import main
from causalarena.hookspecs import hookimpl
from causalarena.plugins import temporary_plugins
from causalarena.records import AnalysisInfo

DIST = "arena-test-analyses"


def toy_f1(run) -> None:
    """The toy analysis: mean F1 per method over ok discovery runs, times ``--toy-scale``."""
    ok = run.runs[run.runs["status"] == "ok"]
    scale = float(run.options["toy_scale"])
    table = ok.groupby("method", as_index=False)["f1"].mean().assign(scaled=lambda t: t["f1"] * scale)
    run.csv("toy_mean_f1", table, title="Toy: mean F1 × scale")
    run.notes["Toy: mean F1 × scale"] = f"scale {scale:g} (arena report --toy-scale)"


class _ToyAnalyses:
    __distribution__ = DIST

    @hookimpl
    def arena_analyses(self):
        yield AnalysisInfo(name="toy_f1", factory=f"{__name__}:toy_f1", help="mean F1 per method, scaled",
                           order=5, tables=("toy_mean_f1",), section="Tables")

    @hookimpl
    def arena_addoption(self, command, parser):
        if command == "report":
            parser.add_argument("--toy-scale", default="1", help="multiply the toy analysis's F1 by this")


@pytest.fixture()
def results(tmp_path):
    folder = tmp_path / "R"
    folder.mkdir()
    _store(folder / "arena.sqlite")
    return folder


def test_a_plugin_analysis_and_option_run_in_arena_report_and_appear_on_the_page(results, capsys):
    with temporary_plugins(_ToyAnalyses()):
        assert main(["report", "--results", str(results), "--toy-scale", "2"]) == 0
    table = pd.read_csv(results / "tables" / "toy_mean_f1.csv").set_index("method")
    assert table["scaled"].to_dict() == pytest.approx({"pc": 2.0, "ges": 1.0, "foundation": 5 / 3})
    page = (results / "index.html").read_text(encoding="utf-8")
    assert "Toy: mean F1 × scale" in page and "scale 2 (arena report --toy-scale)" in page
    # the built-in analyses ran too (the toy one is one more, not a replacement)
    assert (results / "tables" / "slices.csv").exists() and (results / "sortability.csv").exists()
    capsys.readouterr()
    # --analyses picks it like a built-in: only it (and the page) is written, the rest is removed and said
    with temporary_plugins(_ToyAnalyses()):
        assert main(["report", "--results", str(results), "--analyses", "toy_f1"]) == 0
    assert not (results / "tables" / "slices.csv").exists()
    assert pd.read_csv(results / "tables" / "toy_mean_f1.csv")["scaled"].max() == pytest.approx(1.0)


def test_list_analyses_names_every_installed_analysis_with_its_distribution(capsys):
    with temporary_plugins(_ToyAnalyses()):
        with pytest.raises(SystemExit) as exit_:
            main(["report", "--list-analyses"])  # no --results needed: it lists and exits
    assert exit_.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["analysis", "task", "distribution", "section", "help"]
    starts = [lines[0].index(h) for h in ("analysis", "task", "distribution", "section", "help")]
    cut = list(zip(starts, starts[1:] + [None]))
    rows = {r[0]: r for r in ([ln[a:b].strip() for a, b in cut] for ln in lines[1:])}
    assert lines[1].split()[0] == "toy_f1"  # order 5: before slices (10)
    assert rows["toy_f1"] == ["toy_f1", "discovery", DIST, "Tables", "mean F1 per method, scaled"]
    assert rows["slices"][1:4] == ["discovery", "arena-diagnosis", "Slice explorer"]
    assert rows["effect"][1:4] == ["effect", "arena-diagnosis", "Effect estimation"]
    assert set(rows) == {"toy_f1", "slices", "edges", "winrates", "interactions", "curves", "protocols", "domains",
                         "real", "runtime", "frontier", "exposure", "sortability", "effect"}


def test_an_unknown_analysis_names_the_installed_ones_including_a_plugins(results, capsys):
    with temporary_plugins(_ToyAnalyses()):
        assert main(["report", "--results", str(results), "--analyses", "toy_f2"]) == 2
    err = capsys.readouterr().err
    assert "--analyses: unknown toy_f2; choose from toy_f1, slices, edges" in err


def broken(run) -> None:
    raise RuntimeError("the toy slicer broke")


class _Broken:
    __distribution__ = DIST

    @hookimpl
    def arena_analyses(self):
        yield AnalysisInfo(name="broken", factory=f"{__name__}:broken", order=1)
        yield AnalysisInfo(name="missing", factory="no_such_module_anywhere:f", order=2)


def test_a_failing_or_unimportable_analysis_is_one_left_out_line_not_a_lost_report(results, capsys):
    with temporary_plugins(_Broken()):
        assert main(["report", "--results", str(results)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"broken ({DIST}): error: RuntimeError: the toy slicer broke" in out
    assert f"missing ({DIST}): error: ModuleNotFoundError: No module named 'no_such_module_anywhere'" in out
    page = (results / "index.html").read_text(encoding="utf-8")
    assert "the toy slicer broke" in page and (results / "tables" / "slices.csv").exists()


def test_an_analysis_name_taken_by_arena_diagnosis_names_both_distributions():
    from causalarena.plugins import DuplicatePluginError, get_registry

    class _Clash:
        __distribution__ = DIST

        @hookimpl
        def arena_analyses(self):
            yield AnalysisInfo(name="slices", factory=f"{__name__}:toy_f1")

    with pytest.raises(DuplicatePluginError, match=r"analysis name 'slices' is provided by both arena-diagnosis "
                                                   rf"\S+ and {DIST} 0"):
        get_registry(strict=False, extra_plugins=[_Clash()])
