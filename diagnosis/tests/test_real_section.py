"""The real-data section over every family of kind 'real' (issue 24 item 6; paper §5.2 Fig. 5, App. C.4).

Known answers from the hand-written store of :mod:`real_fixtures`: the section is keyed on the declared
``FamilyInfo.kind`` (a family named in no list, ``chambers``, is in; ``semantic`` is out), each table's
F1 / SHD stands next to the method's synthetic mean on the same split, and the pairs family is scored
by its weighted orientation accuracy.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import real_fixtures as rf
from matplotlib import image as mpimg

from arena_diagnosis import analyses as A
from arena_diagnosis import figures as F
from arena_diagnosis.context import AnalysisRun
from arena_diagnosis.report import write_diagnosis
from arena_diagnosis.sections import family_kinds


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    ctx, console = rf.context(tmp_path_factory.mktemp("real"))
    return ctx, write_diagnosis(ctx), console


def test_real_data_table_covers_every_real_family_with_the_synthetic_mean(written):
    ctx, _, _ = written
    rd = pd.read_csv(ctx.results / "tables" / "real_data.csv")
    assert list(rd.columns) == A.REAL_COLUMNS
    got = rd.values.tolist()
    assert len(got) == len(rf.EXPECTED_REAL)
    for g, e in zip(got, rf.EXPECTED_REAL):
        assert g[:4] == e[:4] and g[4:] == pytest.approx(e[4:])
    # the semantic card (kind 'semantic') and the pairs track (scored by accuracy, not per table) are not rows
    assert set(rd["family"]) == {"real", "chambers", "bnlearn"}


def test_pairs_track_weighted_accuracy(written):
    ctx, _, _ = written
    pt = pd.read_csv(ctx.results / "tables" / "real_pairs.csv")
    assert list(pt.columns) == A.PAIR_COLUMNS
    got = pt.values.tolist()
    for g, e in zip(got, rf.EXPECTED_PAIRS):
        assert g[:4] == e[:4] and g[4:] == pytest.approx(e[4:])
    assert len(got) == 2


def test_a_table_without_a_score_shows_the_status(written):
    ctx, _, _ = written
    missing = pd.read_csv(ctx.results / "tables" / "real_missing.csv")
    assert list(missing.columns) == A.MISSING_COLUMNS and missing.values.tolist() == rf.EXPECTED_MISSING
    assert ">timeout<" in (ctx.results / "figures" / "real_tables.svg").read_text()


def test_one_strip_per_table_and_the_pairs_panel(written):
    ctx, _, _ = written
    svg = (ctx.results / "figures" / "real_tables.svg").read_text()
    for title in ("bnlearn: ecoli70", "bnlearn: sachs", "chambers: lt", "real: sachs",
                  "tuebingen (4 pairs)", "synthetic mean F1 (same split)", "coin (0.5)",
                  "weighted orientation accuracy"):
        assert title in svg, title
    png = mpimg.imread(ctx.results / "figures" / "real_tables.png")
    assert png.shape[0] > 300 and png.shape[1] > 900
    # not blank: a good share of the pixels are not white
    assert (png[..., :3].mean(axis=2) < 0.95).mean() > 0.03


def test_page_tables_and_figures(written):
    ctx, written_files, _ = written
    html = (ctx.results / "index.html").read_text()
    assert "Real data: F1 / SHD per table against the synthetic mean (Fig. 5)" in html
    assert "Cause–effect pairs: weighted orientation accuracy" in html
    assert "figures/real_tables.png" in html and "figures/real_data.png" in html
    # the wide table's cells: pc on ecoli70 obs is F1 0.70 / SHD 12.0; the synthetic obs mean 0.50 / 5.0
    assert "0.70 / 12.0" in html and "0.50 / 5.0" in html


def test_no_registry_falls_back_to_the_conventional_names(tmp_path):
    ctx, _ = rf.context(tmp_path)
    run = AnalysisRun(SimpleNamespace(results=ctx.results, console=ctx.console, registry=None), ctx.runs, ctx.runs)
    assert family_kinds(run) == {"real": "real", "synthetic": "synthetic"}
    run2 = AnalysisRun(ctx, ctx.runs, ctx.runs)
    assert family_kinds(run2) == rf.KINDS


def test_pair_families_need_the_metric_on_every_run():
    runs = pd.DataFrame({"family": ["t", "t", "u"], "status": ["ok", "ok", "ok"],
                         "orientation_accuracy": [1.0, np.nan, 0.5]})
    assert A.pair_families(runs, ["t", "u", "v"]) == ["u"]
    assert A.pair_families(runs.drop(columns="orientation_accuracy"), ["u"]) == []


def test_real_data_of_an_empty_frame_has_the_contract_columns():
    empty = A.real_data(pd.DataFrame(columns=["family", "scm_id", "split", "replicate", "method", "status",
                                              "f1", "shd"]))
    assert list(empty.columns) == A.REAL_COLUMNS and empty.empty


def test_real_table_strips_rejects_a_frame_without_f1(tmp_path):
    with pytest.raises(ValueError, match=r"real_table_strips: input frame lacks column\(s\) \['f1'\]"):
        F.real_table_strips(pd.DataFrame({"method": ["a"], "split": ["obs"], "table": ["t"]}), tmp_path)
    assert F.real_table_strips(pd.DataFrame(columns=A.REAL_COLUMNS), tmp_path) == []


def test_table_labels_name_the_family_only_on_a_clash():
    df = pd.DataFrame({"family": ["real", "bnlearn", "bnlearn"], "table": ["sachs", "sachs", "ecoli70"]})
    assert F.table_labels(df).tolist() == ["real/sachs", "bnlearn/sachs", "ecoli70"]
