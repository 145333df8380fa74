"""Figures (issue 13 item 8): every figure is written as a non-blank PNG and a parseable SVG,
shows the numbers it should (SVG text is kept as <text>), and an empty frame writes nothing."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
import viz_fixtures as fx
from matplotlib import image as mpimg
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from arena_diagnosis import figures as F

LONG = "NOTEARS-MLP (very long method name)"


def _svg_texts(path) -> list:
    """All <text> strings of an SVG (parses it: a malformed SVG fails here)."""
    root = ET.parse(path).getroot()
    return ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text")]


def _check_written(paths, stems):
    """Each stem has a PNG (> 8 KB, 150 dpi-sized, not one colour) and an SVG that parses."""
    assert [p.name for p in paths] == [f"{s}.{ext}" for s in stems for ext in ("png", "svg")]
    for p in paths:
        assert p.exists() and p.stat().st_size > 8_000, p
        if p.suffix == ".png":
            img = mpimg.imread(p)
            assert img.shape[0] > 300 and img.shape[1] > 300, img.shape
            # not a single colour: the pixels differ, and a good share of them are not white
            flat = img[..., :3].reshape(-1, 3)
            assert np.ptp(flat, axis=0).max() > 0.5
            assert (flat.min(axis=1) < 0.9).mean() > 0.02
        else:
            assert _svg_texts(p), f"{p} has no text"


@pytest.fixture
def out(tmp_path):
    return tmp_path / "figures"


def test_precision_recall_f1_shd(out):
    paths = F.precision_recall_f1_shd(fx.leaderboard_cells(), out)
    _check_written(paths, ["precision_recall_f1_shd"])
    texts = _svg_texts(paths[1])
    # one column per family, every method in the legend once (long name unabridged), iso-F1 labels
    for fam in fx.FAMILIES:
        assert f"{fam}: precision vs recall" in texts and f"{fam}: F1 vs SHD" in texts
    for m in fx.METHODS:
        assert texts.count(m) == 1
    assert {"F1=0.2", "F1=0.4", "F1=0.6", "F1=0.8", "obs (filled)", "obs+int (open)"} <= set(texts)


def test_precision_recall_accepts_leaderboard_numeric_spelling_and_drops_avg(out):
    cells = fx.leaderboard_cells().rename(columns={m: f"{m}_mean" for m in ("precision", "recall", "f1", "shd")})
    avg = cells.groupby("method", as_index=False).mean(numeric_only=True).assign(family="Avg", split="Avg")
    paths = F.precision_recall_f1_shd(pd.concat([cells, avg]), out, stem="pr")
    _check_written(paths, ["pr"])
    assert not any(t.startswith("Avg") for t in _svg_texts(paths[1]))


def test_win_rate_matrix_prints_each_value(out):
    pairwise, _, units = fx.win_rates()
    paths = F.win_rate_matrix(pairwise, out, units=units)
    _check_written(paths, ["win_rate_matrix"])
    texts = _svg_texts(paths[1])
    # pairwise[a, b] = 0.5 + (s_a - s_b) / 2 with s = .9 .7 .5 .3 .1: 0.60 on the 4 first off-diagonal
    # cells, 0.90 once (pc over avici), 0.10 once; the diagonal is blank (20 values for 5 methods)
    assert texts.count("0.60") == 4 and texts.count("0.90") == 1 and texts.count("0.10") == 1
    assert sum(bool(re.fullmatch(r"0\.\d\d", t)) for t in texts) == 20
    assert any("shared units per pair: 40-40" in t for t in texts)
    assert texts.count(LONG) == 2  # row and column label


def test_win_rate_bars_stars_best_and_second_per_family(out):
    _, by_family, _ = fx.win_rates()
    paths = F.win_rate_bars(by_family, out)
    _check_written(paths, ["win_rate_bars"])
    texts = _svg_texts(paths[1])
    assert texts.count("\u2605") == 4 and texts.count("\u2606") == 4  # one best, one second per family
    tick_labels = [t for t in texts if t in fx.METHODS]
    assert tick_labels == list(by_family.index)  # ordered by mean, as given
    assert "Pairwise win rate per family (obs)" in texts
    # the obs+int figure names its own split (it said "obs" before)
    texts = _svg_texts(F.win_rate_bars(by_family, out, stem="win_rate_bars_obs_int", split="obs_int")[1])
    assert "Pairwise win rate per family (obs_int)" in texts and "Pairwise win rate per family (obs)" not in texts


def test_interaction_heatmaps_one_per_factor(out):
    inter = fx.interaction_scores()
    paths = F.interaction_heatmaps(inter, out)
    _check_written(paths, ["interaction_graph", "interaction_mechanism"])
    texts = _svg_texts(paths[3])
    # mechanism: a = (i-2)/10, b = (j-1.5)/4 -> pc/linear = (-0.2)(-0.375) = 0.07500000000000001 -> "+0.08",
    # avici/linear "-0.08"; pc/rff (-0.2)(0.125) = "-0.03"; the DirectLiNGAM row (a = 0) prints "0.00", no sign
    assert texts.count("0.00") == 4 and "-0.00" not in texts
    assert texts.count("+0.08") == 2 and texts.count("-0.08") == 2 and texts.count("-0.03") == 2
    assert {"linear", "polynomial", "rff", "mlp"} <= set(texts)


def test_curves(out):
    d_paths = F.d_curve(fx.d_curve(), out)
    n_paths = F.n_curve(fx.n_curve(), out)
    _check_written(d_paths, ["d_curve"])
    _check_written(n_paths, ["n_curve"])
    d_texts = _svg_texts(d_paths[1])
    assert {"5", "10", "20", "50"} <= set(d_texts) and "number of variables d" in d_texts
    # legend ordered by F1 at the largest d: pc .6, ges .3, then the three clipped at 0.05 (stable)
    legend = [t for t in d_texts if t in fx.METHODS]
    assert legend[:2] == ["pc", "ges"]
    n_texts = _svg_texts(n_paths[1])
    assert {"100", "1000", "10000"} <= set(n_texts)


def test_protocol_bars_sd_by_hand(out):
    paths = F.protocol_bars(fx.protocol_table(), out)
    _check_written(paths, ["protocol_delta_f1"])
    texts = _svg_texts(paths[1])
    # pc: F1 .60 .60 .62 .50 over protocols -> sample SD sqrt(.0088 / 3) = 0.0542
    assert "SD 0.054" in [t.strip() for t in texts]
    assert "default" not in texts  # default is the reference, not a bar
    assert {"fixed_setpoint", "soft_shift", "few_targets"} <= set(texts)


def test_domain_heatmap_with_sd_bars(out):
    shift = fx.domain_shift()
    paths = F.domain_heatmap(shift, out, family="semantic")
    _check_written(paths, ["domain_shift"])
    texts = [t.strip() for t in _svg_texts(paths[1])]
    for sd in shift.groupby("method")["domain_sd"].first():
        assert f"{sd:.3f}" in texts
    assert "cybersecurity and IT operations" in texts
    assert any("(semantic)" in t for t in texts)


def test_real_data_strip(out):
    paths = F.real_data_strip(fx.real_data(), out)
    _check_written(paths, ["real_data"])
    texts = _svg_texts(paths[1])
    assert "real data, obs (5 tables)" in texts and "real data, obs+int (2 tables)" in texts
    assert {"sachs", "asia", "alarm", "child", "insurance", "method mean"} <= set(texts)


def test_pareto_frontier(out):
    paths = F.pareto_frontier(fx.frontier(), out)
    _check_written(paths, ["pareto_frontier"])
    texts = _svg_texts(paths[1])
    assert set(fx.METHODS) <= set(texts)
    assert "per-graph time (seconds, log scale)" in texts and "Pareto set" in texts


def test_prior_coverage_labels(out):
    paths = F.prior_coverage_bars(fx.exposure_coverage(), out)
    _check_written(paths, ["prior_coverage"])
    texts = _svg_texts(paths[1])
    assert {"2/5", "3/8", "1/6", "1/7", "3/5", "4/8", "2/6", "2/7", "1/8"} <= set(texts)
    assert [t for t in texts if t in ("avici", "cauScale", "sea")] == ["avici", "cauScale", "sea"]  # alphabetical


def test_id_ood_bars_r_ood_by_hand(out):
    paths = F.id_ood_bars(fx.exposure_axes(), out)
    _check_written(paths, ["id_ood"])
    texts = _svg_texts(paths[1])
    # avici / root: f_ood = .35 + .03 = .38, ref .33 -> R = .05 / .33 = +15 %; cauScale / graph: .29 -> -12 %
    assert "+15%" in texts and "-12%" in texts
    assert {"graph", "mechanism", "noise", "root"} <= set(texts)


def test_coincident_markers_become_rings(out):
    """GES and GIES on obs data give one graph: the first drawn marker is larger, so both show."""
    points = [("ges", "obs", 0.5, 0.6), ("gies", "obs", 0.5 + 1e-4, 0.6), ("pc", "obs", 0.2, 0.3),
              ("gies", "obs_int", 0.5, 0.6), ("sortnregress", "obs", 0.5, 0.6)]
    assert F._ring_sizes(points) == [13.5, 10.0, 6.5, 6.5, 6.5]
    assert F._ring_sizes([]) == []
    # the demo's GES and GIES on obs: recall 0.5588 / 0.5551, precision 0.3656 / 0.3636 overlap on the axis
    demo = [("ges", "obs", 0.5588, 0.3656), ("gies", "obs", 0.5551, 0.3636), ("gies", "obs_int", 0.6912, 0.4643),
            ("pc", "obs", 0.4755, 0.3808)]
    assert F._ring_sizes(demo) == [10.0, 6.5, 6.5, 6.5]
    cells = fx.leaderboard_cells()
    ges = cells[cells["method"] == "ges"]
    twin = ges.assign(method="gies")  # the same means: before, gies' markers hid ges' entirely
    _check_written(F.precision_recall_f1_shd(pd.concat([cells, twin], ignore_index=True), out, "twin"), ["twin"])


def test_id_ood_bars_wrap_many_axes_into_rows(out):
    """Nine axes (the synthetic grid's): rows of at most ID_OOD_COLUMNS panels, not a 3000 × 367 px strip."""
    from PIL import Image

    base = fx.exposure_axes()
    names = ["graph", "mechanism", "noise", "root", "d", "density", "n", "weights", "root_dependency"]
    axes = pd.concat([base[base["axis"] == "graph"].assign(axis=a) for a in names], ignore_index=True)
    paths = F.id_ood_bars(axes, out, "io9")
    width, height = Image.open(paths[0]).size
    assert 1.2 < width / height < 3.0, (width, height)  # 4 + 4 + 1 panels: three rows
    texts = _svg_texts(paths[1])
    assert set(names) <= set(texts)
    assert texts.count("avici") == 3  # the method labels on each row's first panel


ALL = [
    (F.precision_recall_f1_shd, ["method", "family", "split", "precision", "recall", "f1", "shd"]),
    (F.interaction_heatmaps, ["factor", "level", "method", "score", "interaction"]),
    (F.d_curve, ["method", "d", "score", "sd", "units"]),
    (F.n_curve, ["method", "n", "score", "sd", "units"]),
    (F.protocol_bars, ["method", "protocol", "f1", "shd", "delta_f1", "f1_sd"]),
    (F.domain_heatmap, ["method", "domain", "f1", "shift", "domain_sd"]),
    (F.real_data_strip, ["method", "split", "table", "f1", "shd"]),
    (F.pareto_frontier, ["method", "f1", "seconds", "time_source", "pareto"]),
    (F.prior_coverage_bars, ["method", "axis", "covered", "total", "ratio"]),
    (F.id_ood_bars, ["method", "axis", "f_id", "f_ood", "ref_id", "ref_ood", "r_id", "r_ood", "gap"]),
    (F.win_rate_matrix, []),
    (F.win_rate_bars, []),
]


@pytest.mark.parametrize("func,columns", ALL, ids=[f.__name__ for f, _ in ALL])
def test_empty_frame_writes_nothing(func, columns, out):
    assert func(pd.DataFrame(columns=columns), out, "empty") == []
    assert not out.exists() or not any(out.iterdir())


def test_missing_column_is_named():
    frame = fx.d_curve().drop(columns=["score"])
    with pytest.raises(ValueError, match=r"d_curve: .*'score'"):
        F.d_curve(frame, "/nonexistent-never-written", "x")
    with pytest.raises(ValueError, match="interaction"):
        F.interaction_heatmaps(fx.interaction_scores().drop(columns=["interaction"]), "/nonexistent", "x")


def test_win_rate_matrix_rejects_mismatched_axes():
    pairwise, _, _ = fx.win_rates()
    with pytest.raises(ValueError, match="same methods"):
        F.win_rate_matrix(pairwise.iloc[:, :3], "/nonexistent", "x")


def test_degenerate_inputs_still_draw(out):
    """One method / one level / all-NaN cells / a single frontier point: a figure, no crash."""
    cells = fx.leaderboard_cells()
    _check_written(F.precision_recall_f1_shd(cells[(cells["family"] == "synthetic") & (cells["method"] == "pc")],
                                             out, "pr1"), ["pr1"])
    inter = fx.interaction_scores()
    nan_inter = inter[inter["factor"] == "graph"].assign(interaction=np.nan)
    _check_written(F.interaction_heatmaps(nan_inter, out, "nan"), ["nan_graph"])
    _check_written(F.pareto_frontier(fx.frontier().iloc[:1], out, "p1"), ["p1"])
    pairwise, _, _ = fx.win_rates()
    _check_written(F.win_rate_matrix(pairwise.iloc[:2, :2], out, "w2"), ["w2"])
    no_ood = fx.exposure_axes().assign(f_ood=np.nan, r_ood=np.nan)
    paths = F.id_ood_bars(no_ood, out, "io")
    _check_written(paths, ["io"])
    assert _svg_texts(paths[1]).count("no OOD slice") == 12  # 3 methods x 4 axes


def test_undeclared_axis_is_said_not_drawn(out):
    cov = fx.exposure_coverage()
    undeclared = (cov["method"] == "sea") & (cov["axis"] == "noise")
    cov.loc[undeclared, ["covered", "ratio"]] = np.nan
    texts = _svg_texts(F.prior_coverage_bars(cov, out)[1])
    assert "noise: not declared" in texts and texts.count("1/6") == 1  # only avici's 1/6 left
    axes = fx.exposure_axes()
    axes.loc[(axes["method"] == "sea") & (axes["axis"] == "noise"), axes.columns[2:]] = np.nan
    texts = _svg_texts(F.id_ood_bars(axes, out)[1])
    assert texts.count("axis not declared") == 1 and "no OOD slice" not in texts


# --------------------------------------------------------------------------- readability


def _svg_fill_of_marker(svg_path, colours) -> set:
    """The method colours (lower-case hex) used as fills in an SVG."""
    text = open(svg_path, encoding="utf-8").read().lower()
    return {c for c in colours if f"fill: {c.lower()}" in text}


def test_method_styles_keyed_on_the_sorted_set():
    # case-insensitive sorted order: avici, DirectLiNGAM, ges, NOTEARS..., pc -> palette slots 0..4
    st = F.method_styles(["pc", "ges", "pc", "DirectLiNGAM", LONG, "avici", np.nan])
    assert list(st) == ["avici", "DirectLiNGAM", "ges", LONG, "pc"]
    assert [s["color"] for s in st.values()] == list(F.PALETTE[:5])
    assert st["pc"] == {"color": F.PALETTE[4], "marker": "D", "linestyle": "-"}
    assert F.method_styles(reversed(fx.METHODS)) == F.method_styles(fx.METHODS)  # order does not matter
    # beyond nine methods the colours repeat with the next line style and another marker
    many = F.method_styles([f"m{i:02d}" for i in range(10)])
    assert many["m09"]["color"] == many["m00"]["color"] and many["m09"]["linestyle"] == "--"
    assert (many["m09"]["marker"], many["m00"]["marker"]) == ("*", "o")
    # no two of 90 methods share colour and marker
    ninety = F.method_styles([f"m{i:02d}" for i in range(90)])
    assert len({(s["color"], s["marker"]) for s in ninety.values()}) == 90


def test_neighbouring_methods_get_different_hues():
    """Issue 22: ges / gies coincided and randomregress / sortnregress shared a hue (Tol muted: olive next to
    green, wine next to rose). Each pair now differs in hue by more than 60 degrees, and in marker."""
    import colorsys

    st = F.method_styles(["amortized", "dagma", "direct_lingam", "ges", "gies", "pc", "randomregress",
                          "sortnregress"])

    def hue(c):
        r, g, b = (int(c[i:i + 2], 16) / 255 for i in (1, 3, 5))
        h, _, s = colorsys.rgb_to_hls(r, g, b)
        return h * 360, s

    names = list(st)
    for a, b in zip(names, names[1:]):  # every neighbour pair, ges / gies and randomregress / sortnregress included
        assert st[a]["marker"] != st[b]["marker"]
        (ha, sa), (hb, sb) = hue(st[a]["color"]), hue(st[b]["color"])
        grey = sa < 0.1 or sb < 0.1  # black against a colour is distinguishable by lightness
        assert grey or min(abs(ha - hb), 360 - abs(ha - hb)) > 60, (a, b, st[a], st[b])


def test_same_method_same_colour_across_figures_with_styles(out):
    """pc is in both frames, with different companions; with the report's styles it has one colour."""
    styles = F.method_styles(fx.METHODS)  # pc -> PALETTE[4] (5th of the sorted set)
    cells = fx.leaderboard_cells()
    pr_frame = cells[cells["method"].isin(["pc", "ges"])]        # alone: pc would be 2nd -> "#88CCEE"
    fr_frame = fx.frontier()[fx.frontier()["method"].isin(["pc", "avici", "DirectLiNGAM"])]  # pc 3rd
    pr = F.precision_recall_f1_shd(pr_frame, out, "pr", styles=styles)
    par = F.pareto_frontier(fr_frame, out, "par", styles=styles)
    pc, ges = styles["pc"]["color"], styles["ges"]["color"]
    assert pc == F.PALETTE[4] and ges == F.PALETTE[2]
    assert _svg_fill_of_marker(pr[1], F.PALETTE) == {pc, ges}
    assert _svg_fill_of_marker(par[1], F.PALETTE) == {pc, styles["avici"]["color"], styles["DirectLiNGAM"]["color"]}
    # without styles each figure keys on its own subset: pc changes colour (the bug this fixes)
    own = F.pareto_frontier(fr_frame, out, "own")
    assert F.method_styles(fr_frame["method"])["pc"]["color"] == F.PALETTE[2]
    assert F.PALETTE[2] in _svg_fill_of_marker(own[1], F.PALETTE)
    # a styles mapping missing a method of the frame is an error naming it
    with pytest.raises(ValueError, match=r"pareto_frontier: styles has no entry for method\(s\) \['pc'\]"):
        F.pareto_frontier(fr_frame, out, "x", styles=F.method_styles(["avici", "DirectLiNGAM"]))


def _boxes(fig, artists):
    """Display-pixel boxes; of an annotation, the text's own box (Annotation's would add its leader line)."""
    renderer = fig.canvas.get_renderer()
    return [Text.get_window_extent(a, renderer) if isinstance(a, Text) else a.get_window_extent(renderer)
            for a in artists]


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_pareto_labels_of_near_identical_points_do_not_overlap(out):
    # the demo's case: sortnregress over randomregress at ~0.09-0.1 s, F1 0.273-0.274
    front = pd.DataFrame({"method": ["randomregress", "sortnregress", "pc", "gies"],
                          "f1": [0.2729, 0.2744, 0.501, 0.518], "seconds": [0.0895, 0.0990, 0.222, 4.87],
                          "time_source": "T_graph", "pareto": True})
    fig = F._pareto_figure(front, None)
    fig.canvas.draw()
    labels = [t for t in fig.axes[0].texts if t.get_text() in set(front["method"])]
    assert sorted(t.get_text() for t in labels) == sorted(front["method"])
    boxes = _boxes(fig, labels)
    assert not any(_overlap(boxes[i], boxes[j]) for i in range(4) for j in range(i + 1, 4))
    # the two that collided were moved apart and got a leader line; the lone ones kept their (7, 5) pt offset
    moved = {t.get_text() for t in labels if t.arrow_patch is not None}
    assert moved and moved <= {"randomregress", "sortnregress"}
    assert [t.xyann for t in labels if t.get_text() == "gies"] == [(7, 5)]
    # the written files work the same way
    _check_written(F.pareto_frontier(front, out, "near"), ["near"])


def test_separate_labels_two_identical_points():
    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ts = [ax.annotate(name, (0.5, 0.5), xytext=(5, 5), textcoords="offset points") for name in ("alpha", "alpha2")]
    renderer = fig.canvas.get_renderer()
    a, b = _boxes(fig, ts)
    assert _overlap(a, b)  # same anchor, same offset: on top of each other
    assert F.separate_labels(ts, renderer, pad_px=2.0) >= 1
    a, b = _boxes(fig, ts)
    assert not _overlap(a, b)
    # moved symmetrically and vertically only, one pass: each by half the overlap + 2 px -> a 4 px gap
    assert ts[0].xyann[0] == ts[1].xyann[0] == 5
    assert ts[0].xyann[1] + ts[1].xyann[1] == pytest.approx(10)
    assert min(abs(a.y0 - b.y1), abs(b.y0 - a.y1)) == pytest.approx(4.0, abs=0.01)
    with pytest.raises(ValueError, match="separate_labels"):
        F.separate_labels([ax.text(0, 0, "plain")], renderer)


@pytest.mark.parametrize("n_fam", [1, 4])
def test_precision_recall_legend_clear_of_suptitle(n_fam):
    cells = fx.leaderboard_cells()
    cells = cells[cells["family"].isin(fx.FAMILIES[:n_fam])]
    fig = F._pr_figure(cells, None, None)
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    legend, title = fig.legends[0], fig._suptitle
    lb, tb = _boxes(fig, [legend, title])
    assert not _overlap(lb, tb)
    # and the legend is inside the figure, clear of every axes
    fb = fig.bbox
    assert lb.x0 >= fb.x0 and lb.x1 <= fb.x1 + 1 and lb.y0 >= fb.y0 and lb.y1 <= fb.y1 + 1
    assert not any(_overlap(lb, ax.get_window_extent()) for ax in fig.axes)
    assert len(fig.axes) == 2 * n_fam


def test_interaction_heatmap_with_many_levels_is_transposed(out):
    """16 levels, 5 methods: levels become rows, so the PNG is taller than wide instead of a long strip."""
    levels = [f"level_{k:02d}" for k in range(16)]
    rows = [{"factor": "noise", "level": lv, "method": m, "score": 0.5, "interaction": (i - 2) * (j - 7.5) / 100}
            for i, m in enumerate(fx.METHODS) for j, lv in enumerate(levels)]
    paths = F.interaction_heatmaps(pd.DataFrame(rows), out)
    _check_written(paths, ["interaction_noise"])
    h, w = mpimg.imread(paths[0]).shape[:2]
    assert w < 1.5 * h  # untransposed: 17.5 x 3.5 in (0.75 in per level column), a 5:1 strip
    texts = _svg_texts(paths[1])
    assert set(levels) <= set(texts) and "noise" in texts and "method" in texts
    # pc (i = 0), level_00 (j = 0): (-2)(-7.5)/100 = +0.15; the DirectLiNGAM column (i = 2) is 16 zeros,
    # plus the colour bar's "0.00" tick (range +/-0.15, ticks every 0.05)
    assert "+0.15" in texts and texts.count("0.00") == 17
    # 4 levels (the fixture's mechanism): not transposed, wider than tall
    few = F.interaction_heatmaps(fx.interaction_scores(), out, "few")
    h, w = mpimg.imread(few[2]).shape[:2]
    assert w > h


def test_precision_recall_wraps_families_two_a_row(out):
    """Issue 22: four families side by side made a 2,400 px strip; at most PANEL_COLUMNS stand in a row."""
    cells = fx.leaderboard_cells()
    fams = list(dict.fromkeys(cells["family"][cells["family"] != "Avg"]))
    many = pd.concat([cells] + [cells[cells["family"] == fams[0]].assign(family=f"extra{i}") for i in range(3)],
                     ignore_index=True)
    n = len(fams) + 3
    fig = F._pr_figure(many, None, None)
    rows = -(-n // F.PANEL_COLUMNS)
    assert tuple(fig.get_size_inches()) == pytest.approx((3.4 * F.PANEL_COLUMNS + 2.6, 6.6 * rows))
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert len(visible) == 2 * n  # a PR and an F1-SHD panel per family; an odd count leaves one slot hidden
    paths = F.precision_recall_f1_shd(many, out, "wrapped")
    from PIL import Image

    assert Image.open(paths[0]).size[0] <= 1500  # 150 dpi: 10 in
