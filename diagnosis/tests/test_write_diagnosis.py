"""write_diagnosis on a real store (issue 13 items 7 and 10): what it writes, what it leaves out and why.

The store is written through ``Store.record`` (runs with predictions and the
SCMs' truths) by hand, so every score is known: pc is perfect everywhere, ges
finds every edge of the "er" graphs and none of the "tree" graphs, and
"foundation" (a method declaring a pretraining prior that covers "er" only) is
perfect on "er" and half right on "tree".
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from arena_diagnosis.report import write_diagnosis
from causalarena.data import Prediction
from causalarena.predictions import FILL_COMMAND, Truth
from causalarena.records import PretrainingPrior, ReportContext
from causalarena.runs import RunRecord
from causalarena.store import Store

CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)  # X0 -> X1 -> X2
TAGS = ({"root": "gaussian"}, {"mechanism": "linear", "noise": "gaussian"}, {"mechanism": "rff", "noise": "laplace"})


class _Console:
    def __init__(self):
        self.lines = []

    def print(self, text="", **_):
        self.lines.append(str(text))


def _estimate(method: str, graph: str) -> np.ndarray:
    if method == "pc" or (method == "ges" and graph == "er") or (method == "foundation" and graph == "er"):
        return CHAIN.copy()
    if method == "foundation":  # one of two edges: precision 1, recall 1/2, F1 2/3
        return np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool)
    return np.zeros((3, 3), dtype=bool)  # ges on trees: nothing, F1 0


def _f1(est: np.ndarray) -> float:
    tp = int((est & CHAIN).sum())
    return 0.0 if tp == 0 else 2 * tp / (int(est.sum()) + int(CHAIN.sum()))


def _store(path: Path, with_predictions: bool = True) -> None:
    truth = Truth(CHAIN, ("X0", "X1", "X2"), TAGS)
    with Store(str(path)) as store:
        for method in ("pc", "ges", "foundation"):
            for k, graph in enumerate(("er", "er", "tree", "tree")):
                est = _estimate(method, graph)
                factors = {"graph": graph, "d": 3, "difficulty_level": "clean", "root_dependency": "independent",
                           "mechanisms": ["linear", "rff"], "noises": ["gaussian", "laplace"], "roots": ["gaussian"]}
                row = RunRecord(family="synthetic", scm_id=f"{graph}-{k}", split="obs", replicate=0, method=method,
                                config_hash="0" * 16, status="ok", wall_seconds=1.0 + k, fit_seconds=1.0, n=100, d=3,
                                seed=k, standardise=True, protocol="default", output_kind="dag", factors=factors,
                                metrics={"f1": _f1(est), "shd": float((est != CHAIN).sum())})
                store.record(row, prediction=Prediction(adjacency=est.astype(np.int8), kind="dag")
                             if with_predictions else None, truth=truth if with_predictions else None)


def _context(tmp_path: Path, with_predictions: bool = True, options=None):
    results = tmp_path / "R"
    results.mkdir()
    path = results / "arena.sqlite"
    _store(path, with_predictions)
    with Store(str(path), readonly=True) as store:
        runs = store.runs_frame()

    def read(name, *args):
        with Store(str(path), readonly=True) as s:
            return getattr(s, name)(*args)

    prior = PretrainingPrior(axes={"graph": ("er",)}, source="a test's own model card")
    registry = SimpleNamespace(methods={"pc": SimpleNamespace(prior=None), "ges": SimpleNamespace(prior=None),
                                        "foundation": SimpleNamespace(prior=prior)})
    console = _Console()
    return ReportContext(results=results, store_path=path, runs=runs, registry=registry, console=console,
                         options=options or {}, reader=read), console


def test_writes_page_tables_and_figures(tmp_path):
    ctx, _ = _context(tmp_path)
    written = write_diagnosis(ctx)
    res = ctx.results
    assert written["html"] == res / "index.html" and (res / "index.html").is_file()
    for stem in ("win_rate_matrix_obs", "interaction_graph", "d_curve", "pareto_frontier", "prior_coverage",
                 "id_ood"):
        assert (res / "figures" / f"{stem}.png").is_file() and (res / "figures" / f"{stem}.svg").is_file(), stem
    # graph slice (Eq. 6): ges is 1.0 on er and 0.0 on tree, two units each
    sl = pd.read_csv(res / "tables" / "slices.csv")
    ges = sl[(sl["factor"] == "graph") & (sl["method"] == "ges")].set_index("level")
    assert ges.loc["er", "score"] == 1.0 and ges.loc["tree", "score"] == 0.0
    assert list(ges["units"]) == [2, 2]
    # edge-level (§6.1): the rff child X2 has one true edge X1 -> X2; foundation finds it on er only
    edges = pd.read_csv(res / "tables" / "edge_slices_mechanism.csv")
    f = edges[(edges["method"] == "foundation") & (edges["level"] == "rff")].iloc[0]
    assert f["recall"] == pytest.approx(0.5) and f["units"] == 4


def test_exposure_for_the_method_that_declares_a_prior(tmp_path):
    ctx, _ = _context(tmp_path)
    write_diagnosis(ctx)
    res = ctx.results
    summary = pd.read_csv(res / "tables" / "exposure_summary.csv")
    assert list(summary["method"]) == ["foundation"]
    axes = pd.read_csv(res / "tables" / "exposure_axes.csv").set_index(["method", "axis"])
    g = axes.loc[("foundation", "graph")]
    # ID = er: foundation 1.0 vs reference (pc, ges) mean 1.0; OOD = tree: 2/3 vs (1 + 0)/2 = 0.5
    assert g["f_id"] == pytest.approx(1.0) and g["ref_id"] == pytest.approx(1.0)
    assert g["f_ood"] == pytest.approx(2 / 3) and g["ref_ood"] == pytest.approx(0.5)
    assert g["r_ood"] == pytest.approx((2 / 3 - 0.5) / 0.5)  # Eq. 8: +33 %
    assert g["gap"] == pytest.approx(0.0 - 1 / 3)
    skipped = pd.read_csv(res / "tables" / "exposure_skipped.csv")
    assert set(skipped["method"]) == {"pc", "ges"}
    assert set(skipped["reason"]) == {"declares no pretraining prior"}


def test_a_store_without_predictions_names_the_command_that_fills_them(tmp_path):
    ctx, console = _context(tmp_path, with_predictions=False)
    write_diagnosis(ctx)
    assert not (ctx.results / "tables" / "edge_slices_mechanism.csv").exists()
    fill = FILL_COMMAND.format(results=ctx.results)
    assert any("12 ok runs were stored before predictions were kept" in line and fill in line
               for line in console.lines), console.lines
    html = (ctx.results / "index.html").read_text(encoding="utf-8")
    assert "Left out" in html and "--retry ok" in html


def test_unknown_analysis_is_named(tmp_path):
    ctx, _ = _context(tmp_path, options={"analyses": ["slices", "pareto"]})
    with pytest.raises(ValueError, match="unknown pareto; choose from slices, edges"):
        write_diagnosis(ctx)


def test_check_options_names_the_bad_value(tmp_path):
    from arena_diagnosis.report import check_options

    ctx, _ = _context(tmp_path)
    check_options({"analyses": ["slices"], "factors": ["graph", "d"], "reference": ["pc"]}, ctx.runs)  # all fine
    with pytest.raises(ValueError, match=r"--factors: bogus not in these runs; standard factors here: graph, d"):
        check_options({"factors": ["graph", "bogus"]}, ctx.runs)
    with pytest.raises(ValueError, match=r"--reference: notears not in these runs; methods: foundation, ges, pc"):
        check_options({"reference": ["notears"]}, ctx.runs)
    with pytest.raises(ValueError, match="--analyses: empty list"):
        check_options({"analyses": [" "]}, ctx.runs)


def test_a_narrower_report_removes_the_files_of_the_wider_one_and_only_those(tmp_path):
    ctx, _ = _context(tmp_path)
    write_diagnosis(ctx)
    mine = ctx.results / "figures" / "my_own_plot.png"
    mine.write_bytes(b"not the report's")
    assert (ctx.results / "figures" / "d_curve.png").exists()
    narrow = ReportContext(results=ctx.results, store_path=ctx.store_path, runs=ctx.runs, registry=ctx.registry,
                           console=_Console(), options={"analyses": ["slices"]}, reader=ctx.reader)
    write_diagnosis(narrow)
    left = sorted(p.name for p in (ctx.results / "figures").iterdir())
    assert left == ["my_own_plot.png"]  # (no precision / recall in these runs: no Fig. 4 either)
    assert sorted(p.name for p in (ctx.results / "tables").iterdir()) == ["leaderboard_cells.csv", "slices.csv"]


def test_a_narrower_report_says_what_it_removed(tmp_path):
    """Issue 21: the removal is one console line (count per subfolder, the listing file), never silent."""
    ctx, _ = _context(tmp_path)
    res = ctx.results
    wide = write_diagnosis(ctx)
    wide_files = {p.resolve().relative_to(res.resolve()).as_posix() for p in wide.values()}
    console = _Console()
    narrow = ReportContext(results=res, store_path=ctx.store_path, runs=ctx.runs, registry=ctx.registry,
                           console=console, options={"analyses": ["slices"]}, reader=ctx.reader)
    kept = {p.resolve().relative_to(res.resolve()).as_posix() for p in write_diagnosis(narrow).values()}
    assert kept == {"tables/leaderboard_cells.csv", "tables/slices.csv", "index.html"}
    gone = wide_files - kept
    in_tables = sum(f.startswith("tables/") for f in gone)
    in_figures = sum(f.startswith("figures/") for f in gone)
    # with the exposure tables and figures, and sortability.csv at the folder's top (the sortability analysis's)
    assert (len(gone), in_tables, in_figures) == (32, 11, 20)
    assert gone - {f for f in gone if "/" in f} == {"sortability.csv"}
    # the listing names exactly the removed files, none of which is left
    listing = (res / ".arena-diagnosis-removed").read_text(encoding="utf-8").splitlines()
    assert sorted(listing) == sorted(gone)
    assert not [f for f in listing if (res / f).exists()]
    lines = [ln for ln in console.lines if "removed" in ln]
    assert len(lines) == 1
    assert (f"diagnosis: removed 32 files of the previous report that this one did not write again "
            f"(11 in {res / 'tables'}/, 20 in {res / 'figures'}/, 1 in {res}); listed in {res / '.arena-diagnosis-removed'}; "
            f"`arena report --results {res}` without --analyses writes the full report again") in lines[0]
    # the same narrow report again removes nothing: no line, and the old listing (of another report) is gone
    again = _Console()
    write_diagnosis(ReportContext(results=res, store_path=ctx.store_path, runs=ctx.runs, registry=ctx.registry,
                                  console=again, options={"analyses": ["slices"]}, reader=ctx.reader))
    assert [ln for ln in again.lines if "removed" in ln] == []
    assert not (res / ".arena-diagnosis-removed").exists()


def test_arena_report_prints_the_removal_before_what_it_wrote(tmp_path, capsys):
    """The same through the CLI: `arena report --analyses slices` after a full report names what it removed."""
    from causalarena.cli import main

    results = tmp_path / "R"
    results.mkdir()
    _store(results / "arena.sqlite")
    assert main(["report", "--results", str(results)]) == 0
    figures = sorted(p.name for p in (results / "figures").iterdir())
    assert len(figures) == 16
    capsys.readouterr()
    assert main(["report", "--results", str(results), "--analyses", "slices"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines at the terminal's width
    assert "diagnosis: removed 25 files of the previous report" in out
    assert f"16 in {results / 'figures'}/" in out
    removed = (results / ".arena-diagnosis-removed").read_text(encoding="utf-8").splitlines()
    assert sorted(f for f in removed if f.startswith("figures/")) == [f"figures/{n}" for n in figures]
    assert out.index("diagnosis: removed") < out.index("diagnosis: wrote 2 files")


def test_interactions_on_the_store_carry_units_and_the_bootstrap_interval(tmp_path):
    """Known answer: by graph, F = pc (1, 1), ges (1, 0), foundation (1, 2/3) on er / tree, two SCMs per cell;
    I(ges, er) = 1 - 1/2 - 1 + 7/9 = 5/18. Every SCM of one graph type scores alike, so a resample holding both
    types gives exactly 5/18; one holding only "er" SCMs (probability 1/16) gives 0 there: the 95 % interval is
    [0, 5/18]."""
    ctx, _ = _context(tmp_path)
    write_diagnosis(ctx)
    inter = pd.read_csv(ctx.results / "tables" / "interactions.csv")
    g = inter[inter["factor"] == "graph"].set_index(["method", "level"])
    assert g.loc[("ges", "er"), "interaction"] == pytest.approx(5 / 18)
    assert g.loc[("ges", "tree"), "interaction"] == pytest.approx(-5 / 18)
    assert set(g["units"]) == {2}
    assert g.loc[("ges", "er"), "ci_high"] == pytest.approx(5 / 18)
    assert g.loc[("ges", "er"), "ci_low"] == pytest.approx(0.0, abs=1e-12)
    assert g.loc[("ges", "tree"), "ci_low"] == pytest.approx(-5 / 18)
    page = (ctx.results / "index.html").read_text(encoding="utf-8")
    assert "Interaction scores (Eq. 7) with units and 95% bootstrap interval" in page
