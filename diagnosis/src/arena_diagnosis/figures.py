"""Figures of the diagnosis layer (paper §5-6), written as PNG (150 dpi) and SVG.

Every public function takes one of the long-format frames of the issue 13
contract (the outputs of :mod:`arena_diagnosis.analyses`), an output folder and
a file stem, writes ``<out_dir>/<stem>.png`` and ``<out_dir>/<stem>.svg`` (or
one pair per factor / family where the docstring says so) and returns the list
of written paths. An empty frame writes nothing and returns ``[]`` so a report
never crashes on an analysis without data; a frame missing a documented column
raises ``ValueError`` naming the figure and the column.

Figures are drawn on bare :class:`matplotlib.figure.Figure` objects (no
pyplot state, so no backend is switched globally and nothing leaks between
calls); PNGs go through Agg. Colours: Paul Tol's colour-blind-safe "muted"
qualitative palette for methods (line styles / markers repeat it beyond nine
methods), his "bright" palette for everything that is not a method (families,
protocols, tables, factor axes) so a bar colour is never mistaken for a
method, ``RdBu_r`` (diverging, centred) for signed quantities.

Method colours are one mapping for the whole report: :func:`method_styles`
keys colour, marker and line style on the *sorted* set of method names, and
every figure drawing methods (:func:`precision_recall_f1_shd`, :func:`d_curve`,
:func:`n_curve`, :func:`pareto_frontier`) takes it as ``styles=``. Build it
once from all methods of the report and pass it to each figure; without it a
figure computes it from its own frame (the same as long as the frames hold the
same methods).

================================  =============================  ============
function                          input frame                    paper
================================  =============================  ============
:func:`precision_recall_f1_shd`   per method x family x split    Fig. 4
:func:`win_rate_matrix`           ``WinRates.pairwise``          Fig. 19
:func:`win_rate_bars`             ``WinRates.by_family``         Fig. 1
:func:`interaction_heatmaps`      ``interaction_scores``         Fig. 10, 12
:func:`d_curve`                   ``d_curve``                    Fig. 11
:func:`n_curve`                   ``n_curve``                    Fig. 6a
:func:`protocol_bars`             ``protocol_table``             Fig. 6b
:func:`domain_heatmap`            ``domain_shift``               Fig. 17
:func:`real_data_strip`           ``real_data``                  Fig. 5 right
:func:`real_table_strips`         ``real_data``, ``pair_track``  Fig. 5, per table
:func:`pareto_frontier`           ``frontier``                   Fig. 9
:func:`prior_coverage_bars`       ``Exposure.coverage``          Fig. 14
:func:`id_ood_bars`               ``Exposure.axes``              Fig. 15 top
================================  =============================  ============
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd
from matplotlib import colors as mcolors
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import Bbox

__all__ = [
    "CATEGORY_PALETTE",
    "PALETTE",
    "d_curve",
    "domain_heatmap",
    "id_ood_bars",
    "interaction_heatmaps",
    "method_styles",
    "n_curve",
    "pareto_frontier",
    "precision_recall_f1_shd",
    "prior_coverage_bars",
    "protocol_bars",
    "real_data_strip",
    "real_table_strips",
    "table_labels",
    "separate_labels",
    "win_rate_bars",
    "win_rate_matrix",
]

PathLike = Union[str, Path]

#: method colours: Okabe & Ito's colour-blind-safe set (2008) with dark grey for its black and without its
#: yellow (too light on white), plus Tol's olive and wine, ordered so that any two neighbours in sorted order
#: (ges / gies, randomregress / sortnregress) differ in hue by more than 60 degrees (or one is grey)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#4D4D4D", "#D55E00", "#56B4E9", "#999933", "#882255")
#: Paul Tol's "bright" scheme, for categories that are not methods (families, protocols, tables, axes)
CATEGORY_PALETTE = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
_LINESTYLES = ("-", "--", "-.", ":")
#: ten markers against nine colours: (colour, marker) pairs repeat only after 90 methods
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "*")
#: teal / pink of the paper's ID / OOD bars (Fig. 15), both in Tol's palette
_ID_COLOUR, _OOD_COLOUR, _REF_COLOUR = "#44AA99", "#CC6677", "#222222"
_DPI = 150
#: an interaction heatmap with more levels than this is drawn with levels as rows
MAX_LEVEL_COLUMNS = 12
#: the same with a unit count and interval in each cell (wider cells)
MAX_NOTED_LEVEL_COLUMNS = 6
#: families side by side in the precision-recall figure (Fig. 4); more wrap into rows
PANEL_COLUMNS = 2
_SPLIT_LABEL = {"obs": "obs", "obs_int": "obs+int"}


# --------------------------------------------------------------------------- helpers


def _require(frame: pd.DataFrame, columns: Iterable[str], figure: str) -> None:
    """Raise ValueError naming ``figure`` and the first missing column."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{figure}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{figure}: input frame lacks column(s) {missing}; has {list(frame.columns)}")


def _safe_stem(text: str) -> str:
    """A file-name-safe version of ``text`` (factor / family names go into stems)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_") or "x"


def _save(fig: Figure, out_dir: PathLike, stem: str) -> List[Path]:
    """Write ``fig`` as ``stem.png`` (150 dpi) and ``stem.svg`` in ``out_dir``; return both paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png", out / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=_DPI, bbox_inches="tight", facecolor="white")
    # text stays <text> in the SVG (searchable, selectable, smaller) instead of glyph paths
    with rc_context({"svg.fonttype": "none"}):
        fig.savefig(paths[1], bbox_inches="tight", facecolor="white")
    return paths


Styles = Mapping[str, Mapping[str, str]]


def method_styles(methods: Iterable) -> Dict[str, Dict[str, str]]:
    """One colour, marker and line style per method, keyed on the sorted set of names.

    Pass the result as ``styles=`` to every method figure so a method looks
    the same in all of them, whichever subset of methods each frame holds.
    The mapping depends only on the set of names (order and repeats in
    ``methods`` do not matter; NaN is dropped): the i-th name in sorted order
    (case-insensitive, ties by the exact name) gets ``PALETTE[i % 9]``, ``_MARKERS[i % 10]`` and, beyond nine
    methods, the next line style: no two of the first 90 methods share colour and marker, so markers alone
    (scatter plots) and colours alone (lines) both tell neighbours apart.

    Args:
        methods: method names (any iterable; values are compared as ``str``).

    Returns:
        {method: {"color": hex colour, "marker": matplotlib marker,
        "linestyle": matplotlib line style}}, in sorted order.
    """
    # case-insensitive ("avici" next to "AVICI-v2", not after every capitalised name), ties by the exact name
    names = sorted({str(m) for m in pd.Series(list(methods), dtype=object).dropna()}, key=lambda m: (m.lower(), m))
    return {m: {"color": PALETTE[i % len(PALETTE)],
                "marker": _MARKERS[i % len(_MARKERS)],
                "linestyle": _LINESTYLES[(i // len(PALETTE)) % len(_LINESTYLES)]}
            for i, m in enumerate(names)}


def _styles_for(methods: Iterable, styles: Optional[Styles], figure: str) -> Styles:
    """``styles`` checked to cover ``methods`` (ValueError naming the missing ones), or computed from them."""
    if styles is None:
        return method_styles(methods)
    missing = sorted({str(m) for m in methods} - {str(k) for k in styles})
    if missing:
        raise ValueError(f"{figure}: styles has no entry for method(s) {missing}; build it with "
                         "method_styles(<all methods of the report>)")
    return styles


def _category_colours(values: Sequence) -> Dict:
    """Non-method categories (tables, families ...) -> colour and marker, in the given order."""
    return {v: {"color": CATEGORY_PALETTE[i % len(CATEGORY_PALETTE)], "marker": _MARKERS[i % len(_MARKERS)]}
            for i, v in enumerate(values)}


def _unique(values: Iterable) -> List:
    """Unique values in order of first appearance (NaN dropped)."""
    return list(pd.Series(list(values)).dropna().drop_duplicates())


def _heatmap(ax, values: np.ndarray, rows: Sequence[str], cols: Sequence[str], *, cmap: str, norm,
             fmt: str = "{:+.2f}", fontsize: float = 8.0, notes: Optional[np.ndarray] = None):
    """Annotated heatmap on ``ax``: one cell per value, the value printed in it (blank for NaN).

    ``notes`` (same shape, str): a second, smaller line under each value (a unit count, an interval).
    """
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=norm, aspect="auto")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([str(c) for c in cols], rotation=35, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(r) for r in rows])
    ax.set_xticks(np.arange(-0.5, len(cols)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.0)
    ax.tick_params(which="minor", length=0)
    cm = im.cmap
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            if not np.isfinite(v):
                continue
            r, g, b, _ = cm(norm(v))
            # dark text on light cells, white on dark ones (relative luminance)
            colour = "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"
            text = fmt.format(0.0 if abs(v) < 0.005 else v).replace("+0.00", "0.00")
            note = str(notes[i, j]) if notes is not None and notes[i, j] else ""
            ax.text(j, i - (0.17 if note else 0.0), text, ha="center", va="center", fontsize=fontsize, color=colour)
            if note:
                ax.text(j, i + 0.2, note, ha="center", va="center", fontsize=fontsize - 1.5, color=colour,
                        linespacing=1.0)
    return im


def _symmetric_norm(values: np.ndarray, centre: float = 0.0) -> mcolors.Normalize:
    """A colour norm centred on ``centre`` with equal reach either side (so 0 is white in RdBu)."""
    finite = values[np.isfinite(values)]
    reach = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    reach = reach if reach > 0 else 1.0
    return mcolors.Normalize(vmin=centre - reach, vmax=centre + reach)


def _patch(colour: str, label: str) -> Patch:
    """A filled legend patch."""
    return Patch(facecolor=colour, label=label)


def _label_inches(labels: Iterable, fontsize: float = 10.0) -> float:
    """Rough width in inches of the longest tick label (about 0.55 em per character)."""
    longest = max((len(str(x)) for x in labels), default=0)
    return 0.55 * fontsize / 72.0 * longest


def _figsize_for_heatmap(n_rows: int, n_cols: int, extra_w: float = 2.5) -> tuple:
    return (min(3.0 + extra_w + 0.75 * n_cols, 24.0), min(1.6 + 0.38 * n_rows, 30.0))


# --------------------------------------------------------------------------- Fig. 4


def _metric_col(frame: pd.DataFrame, metric: str, figure: str) -> str:
    """The column holding ``metric`` ("f1" or the leaderboard_numeric spelling "f1_mean")."""
    for name in (metric, f"{metric}_mean"):
        if name in frame.columns:
            return name
    raise ValueError(f"{figure}: input frame lacks column {metric!r} (or {metric + '_mean'!r}); "
                     f"has {list(frame.columns)}")


def _f1_iso_curves(ax, levels=(0.2, 0.4, 0.6, 0.8)) -> None:
    """Gray constant-F1 curves on a precision (y) vs recall (x) panel: P = F R / (2R - F)."""
    for f in levels:
        r = np.linspace(f / 2 + 1e-3, 1.0, 200)
        p = f * r / (2 * r - f)
        keep = (p <= 1.0) & (p >= 0)
        ax.plot(r[keep], p[keep], color="0.75", linewidth=0.8, zorder=0)
        # label where the curve meets the right edge (R = 1 at P = F / (2 - F)): these heights are far
        # apart, unlike the top-edge crossings (R = 0.11, 0.25 for F1 = 0.2, 0.4), whose labels collide
        ax.annotate(f"F1={f:.1f}", (1.0, f / (2 - f)), fontsize=6.5, color="0.45",
                    xytext=(-2, 3), textcoords="offset points", va="bottom", ha="right")


def precision_recall_f1_shd(cells: pd.DataFrame, out_dir: PathLike, stem: str = "precision_recall_f1_shd",
                            families: Optional[Sequence[str]] = None,
                            styles: Optional[Styles] = None) -> List[Path]:
    """Precision-recall (top row) and F1-SHD (bottom row), one column per family (paper Fig. 4).

    Each method has its own colour and marker (:func:`method_styles`); filled
    markers are obs-only, open ones obs+int, and a thin line joins a method's
    two points when both exist; gray curves on the PR panels are constant F1.
    At most :data:`PANEL_COLUMNS` families stand side by side; more wrap into
    further rows, so the figure stays readable in the page.

    Args:
        cells: one row per (method, family, split) with columns method, family,
            split ("obs" | "obs_int") and precision, recall, f1, shd — or their
            ``<metric>_mean`` spelling from ``causalarena.report.leaderboard_numeric``
            (rows with family "Avg" are dropped). Means over units; SHD in edges.
        out_dir: folder to write into (created).
        stem: file stem.
        families: column order (default: order of first appearance).
        styles: method -> style from :func:`method_styles` (default: computed
            from this frame's methods).

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    fig = _pr_figure(cells, families, styles)
    return [] if fig is None else _save(fig, out_dir, stem)


def _ring_sizes(points: Sequence[Tuple[str, str, float, float]], base: float = 6.5,
                step: float = 3.5) -> List[float]:
    """Marker sizes (points) for ``(method, split, x, y)`` drawn in this order: markers of one split
    at the same place (GES and GIES on observational data give one graph) grow by ``step`` for
    each later one, so the first drawn is the largest and each shows as a ring around the next,
    instead of the last one hiding the others. "The same place": within 1.5 % of the larger of each
    axis' span and the magnitude of its largest value (about a marker's width on a 4-inch axis: GES and GIES
    at recall 0.559 and 0.555 overlap; one point, or equal points, still get a tolerance)."""
    if not points:
        return []
    xs = np.array([p[2] for p in points])
    ys = np.array([p[3] for p in points])
    tol_x = 0.015 * max(float(np.ptp(xs)), abs(float(xs.max())), 1e-12)
    tol_y = 0.015 * max(float(np.ptp(ys)), abs(float(ys.max())), 1e-12)
    sizes = []
    for i, (_, split, x, y) in enumerate(points):
        later = sum(1 for (_, s2, x2, y2) in points[i + 1:]
                    if s2 == split and abs(x2 - x) <= tol_x and abs(y2 - y) <= tol_y)
        sizes.append(base + step * later)
    return sizes


def _pr_figure(cells: pd.DataFrame, families: Optional[Sequence[str]], styles: Optional[Styles]) -> Optional[Figure]:
    """The Fig. 4 figure (None for no data); see :func:`precision_recall_f1_shd`."""
    name = "precision_recall_f1_shd"
    if cells is None or len(cells) == 0:
        return None
    _require(cells, ["method", "family", "split"], name)
    cols = {m: _metric_col(cells, m, name) for m in ("precision", "recall", "f1", "shd")}
    df = cells[cells["family"].astype(str) != "Avg"]
    df = df[df["split"].isin(["obs", "obs_int"])]
    if df.empty:
        return None
    fams = list(families) if families is not None else _unique(df["family"])
    fams = [f for f in fams if f in set(df["family"])]
    styles = _styles_for(_unique(df["method"]), styles, name)
    methods = [m for m in styles if m in set(df["method"].astype(str))]  # legend in the styles' (sorted) order
    df = df.assign(method=df["method"].astype(str))
    # at most PANEL_COLUMNS families side by side, the others wrap below (a PR panel above its F1-SHD panel):
    # four families in one row made a 2,400 px strip whose text the page shrank below reading size
    ncols = min(len(fams), PANEL_COLUMNS)
    nrows = -(-len(fams) // ncols)
    fig = Figure(figsize=(3.4 * ncols + 2.6, 6.6 * nrows), layout="constrained")
    axes = fig.subplots(2 * nrows, ncols, squeeze=False)
    for k in range(len(fams), nrows * ncols):  # an odd family count: the last row's empty slot
        axes[2 * (k // ncols), k % ncols].set_visible(False)
        axes[2 * (k // ncols) + 1, k % ncols].set_visible(False)
    for j, fam in enumerate(fams):
        sub = df[df["family"] == fam]
        ax_pr, ax_fs = axes[2 * (j // ncols), j % ncols], axes[2 * (j // ncols) + 1, j % ncols]
        _f1_iso_curves(ax_pr)
        for ax, xk, yk in ((ax_pr, "recall", "precision"), (ax_fs, "shd", "f1")):
            drawn = []  # (method, split, x, y) in drawing order
            for m in methods:
                rows = sub[sub["method"] == m].set_index("split")
                pts = [(s, rows.loc[s, cols[xk]], rows.loc[s, cols[yk]]) for s in ("obs", "obs_int")
                       if s in rows.index and np.isfinite(rows.loc[s, cols[xk]]) and np.isfinite(rows.loc[s, cols[yk]])]
                if len(pts) == 2:
                    ax.plot([pts[0][1], pts[1][1]], [pts[0][2], pts[1][2]], color=styles[m]["color"],
                            linewidth=1.0, alpha=0.8)
                drawn += [(m, s, float(x), float(y)) for s, x, y in pts]
            for (m, s, x, y), size in zip(drawn, _ring_sizes(drawn)):
                # the method's own marker and colour; obs filled, obs+int open (white face, coloured edge)
                ax.plot([x], [y], marker=styles[m]["marker"], color=styles[m]["color"], markersize=size,
                        markerfacecolor=styles[m]["color"] if s == "obs" else "white",
                        markeredgecolor="black" if s == "obs" else styles[m]["color"],
                        markeredgewidth=0.5 if s == "obs" else 1.6, linestyle="none")
        ax_pr.set_xlim(0, 1.02)
        ax_pr.set_ylim(0, 1.02)
        ax_pr.set_title(f"{fam}: precision vs recall", fontsize=10)
        ax_pr.set_xlabel("recall (directed edges)")
        ax_pr.set_ylabel("precision (directed edges)")
        ax_fs.set_title(f"{fam}: F1 vs SHD", fontsize=10)
        ax_fs.set_xlabel("SHD (edges; lower is better)")
        ax_fs.set_ylabel("F1 (higher is better)")
        f1_top = pd.to_numeric(sub[cols["f1"]], errors="coerce").max()
        # 8 % headroom: the best method's marker is not cut by the top spine
        ax_fs.set_ylim(0, 1.08 * f1_top if np.isfinite(f1_top) and f1_top > 0 else 1.0)
        for ax in (ax_pr, ax_fs):
            ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=styles[m]["color"], marker=styles[m]["marker"], linestyle="none", markersize=8,
                      markeredgecolor="black", markeredgewidth=0.5, label=m) for m in methods]
    handles += [Line2D([], [], color="0.3", marker="o", linestyle="none", label="obs (filled)"),
                Line2D([], [], color="0.3", marker="o", markerfacecolor="white", markeredgewidth=1.6,
                       linestyle="none", label="obs+int (open)"),
                Line2D([], [], color="0.75", label="constant F1")]
    # right margin, vertically centred: "upper" would put the legend's top at the suptitle's height, and a
    # one-family figure is so narrow that the centred suptitle then runs into it
    fig.legend(handles=handles, loc="outside right center", fontsize=8, title="method / split")
    title = "Precision-recall and F1-SHD on the main benchmark (means over units)"
    fig.suptitle(title if len(fams) > 1 else title.replace(" on the main", "\non the main"))
    return fig


# --------------------------------------------------------------------------- Fig. 19, Fig. 1


def win_rate_matrix(pairwise: pd.DataFrame, out_dir: PathLike, stem: str = "win_rate_matrix",
                    units: Optional[pd.DataFrame] = None) -> List[Path]:
    """Pairwise win-rate matrix, row method over column method (paper Fig. 19).

    Red cells: the row method wins more often; blue: less often; white = 0.5.
    Values are printed in the cells (the diagonal is blank).

    Args:
        pairwise: ``WinRates.pairwise`` — index method, columns method, values in
            [0, 1] (pooled F1 + SHD win fraction), NaN on the diagonal. The row
            order is kept (the analysis orders by mean family-wise win rate).
        out_dir, stem: where to write.
        units: optional ``WinRates.units``; when given, the title states the
            range of shared units per pair.

    Returns:
        [png, svg], or [] for an empty matrix.

    Raises:
        ValueError: not a square matrix with the same methods on rows and columns.
    """
    if pairwise is None or pairwise.size == 0:
        return []
    if not isinstance(pairwise, pd.DataFrame):
        raise ValueError(f"win_rate_matrix: expected a DataFrame, got {type(pairwise).__name__}")
    if set(pairwise.index) != set(pairwise.columns):
        raise ValueError(f"win_rate_matrix: rows {list(pairwise.index)} and columns {list(pairwise.columns)} "
                         "must name the same methods")
    order = list(pairwise.index)
    values = pairwise.loc[order, order].to_numpy(dtype=float)
    n = len(order)
    label = _label_inches(order)
    fig = Figure(figsize=(min(3.2 + label + 0.62 * n, 30), min(1.6 + label + 0.5 * n, 30)), layout="constrained")
    ax = fig.subplots()
    norm = mcolors.Normalize(vmin=0.0, vmax=1.0)
    ax.set_facecolor("0.85")  # the blank diagonal must not read as a white 0.5 cell
    im = _heatmap(ax, values, order, order, cmap="RdBu_r", norm=norm, fmt="{:.2f}",
                  fontsize=8 if n <= 14 else 6)
    ax.set_xticklabels(order, rotation=90, ha="center", rotation_mode="default")
    ax.set_xlabel("column method (opponent)")
    ax.set_ylabel("row method")
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label("row's win rate (0-1)")
    title = "Pairwise win rate (F1 and SHD pooled, ties 0.5)"
    if units is not None and isinstance(units, pd.DataFrame) and units.size:
        u = units.to_numpy(dtype=float)
        u = u[np.isfinite(u) & ~np.eye(*u.shape, dtype=bool)] if u.shape[0] == u.shape[1] else u[np.isfinite(u)]
        if u.size:
            title += f"\nshared units per pair: {int(u.min())}-{int(u.max())}"
    ax.set_title(title, fontsize=10)
    return _save(fig, out_dir, stem)


def win_rate_bars(by_family: pd.DataFrame, out_dir: PathLike, stem: str = "win_rate_bars",
                  split: str = "obs") -> List[Path]:
    """Family-wise pooled win rate per method, grouped bars (paper Fig. 1).

    Methods left to right in the frame's row order (the analysis sorts by the
    "mean" column, descending); one bar per family; a star marks the best and
    an open star the second best method within each family. A dashed line at
    0.5 is the coin-flip rate.

    Args:
        by_family: ``WinRates.by_family`` — index method, one column per family
            plus "mean", values in [0, 1].
        out_dir, stem: where to write.
        split: the split the win rates are of (``obs`` or ``obs_int``), named in the title.

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: the frame has no family column besides "mean".
    """
    if by_family is None or by_family.size == 0:
        return []
    fams = [c for c in by_family.columns if c != "mean"]
    if not fams:
        raise ValueError(f"win_rate_bars: by_family needs one column per family besides 'mean'; "
                         f"has {list(by_family.columns)}")
    methods = [str(m) for m in by_family.index]
    vals = by_family[fams].to_numpy(dtype=float)
    n_m, n_f = vals.shape
    width = 0.8 / n_f
    fig = Figure(figsize=(max(6.0, 1.0 + 0.55 * n_m * max(1, n_f) / 2), 4.6), layout="constrained")
    ax = fig.subplots()
    x = np.arange(n_m)
    for k, fam in enumerate(fams):
        xs = x - 0.4 + width * (k + 0.5)
        ax.bar(xs, np.nan_to_num(vals[:, k]), width=width * 0.95, color=CATEGORY_PALETTE[k % len(CATEGORY_PALETTE)],
               label=str(fam),
               edgecolor="white", linewidth=0.4)
        col = vals[:, k]
        ranked = [i for i in np.argsort(-np.nan_to_num(col, nan=-1.0)) if np.isfinite(col[i])]
        for rank, i in enumerate(ranked[:2]):
            ax.text(xs[i], col[i] + 0.015, "\u2605" if rank == 0 else "\u2606", ha="center", va="bottom",
                    fontsize=9, color="black")
    ax.axhline(0.5, color="0.4", linestyle="--", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(methods, rotation=35, ha="right", rotation_mode="anchor")
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("pooled pairwise win rate (0-1)")
    ax.set_xlabel("method (ordered by mean family-wise win rate)")
    # two lines: one line ran under the legend placed outside the axes at the upper right
    ax.set_title(f"Pairwise win rate per family ({split})\n\u2605 best, \u2606 second best method per family",
                 fontsize=10)
    # beside the bars, as in the other figures (below the x label it read as part of the axis)
    fig.legend(title="family", loc="outside right upper", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out_dir, stem)


# --------------------------------------------------------------------------- Fig. 10, 12, 13


def interaction_heatmaps(inter: pd.DataFrame, out_dir: PathLike, stem: str = "interaction") -> List[Path]:
    """Double-centred interaction heatmap (Eq. 7), one figure per factor (paper Fig. 10, 12).

    Rows are methods, columns the factor's levels; the cell is the interaction
    (F1 units), diverging colour map centred at 0 (red: the method does better
    on that level than its own mean and the level's mean predict), value printed.
    With ``units`` (and ``ci_low`` / ``ci_high``) in ``inter`` each cell also
    prints ``[lo, hi] n=k``: the bootstrap interval and the units the cell rests
    on (:func:`arena_diagnosis.interactions.interaction_scores`).
    A factor with more than :data:`MAX_LEVEL_COLUMNS` levels
    (:data:`MAX_NOTED_LEVEL_COLUMNS` with the counts; and more levels
    than methods) is drawn transposed — levels as rows, methods as columns —
    so 20+ levels make a tall, readable figure instead of a strip too wide
    for any screen.

    Args:
        inter: ``interaction_scores`` output — columns factor, level, method,
            score, interaction. Several factors in one frame give one figure each.
        out_dir: folder to write into.
        stem: file stem; each factor writes ``<stem>_<factor>.png/.svg``.

    Returns:
        the written paths (two per factor), or [] for an empty frame.

    Raises:
        ValueError: a required column is missing.
    """
    if inter is None or len(inter) == 0:
        return []
    _require(inter, ["factor", "level", "method", "interaction"], "interaction_heatmaps")
    paths: List[Path] = []
    for factor in _unique(inter["factor"]):
        sub = inter[inter["factor"] == factor]
        table = sub.pivot_table(index="method", columns="level", values="interaction", aggfunc="mean", sort=False,
                                dropna=False)
        table = table.reindex(index=_unique(sub["method"]), columns=_unique(sub["level"]))  # NaN cells stay blank
        limit = MAX_NOTED_LEVEL_COLUMNS if "units" in sub.columns else MAX_LEVEL_COLUMNS
        transpose = table.shape[1] > limit and table.shape[1] > table.shape[0]
        if transpose:
            table = table.T
        values = table.to_numpy(dtype=float)
        notes = _interaction_notes(sub, table, transpose)
        h, w = values.shape
        size = _figsize_for_heatmap(h, w) if notes is None else \
            (min(3.0 + 2.5 + 1.15 * w, 24.0), min(1.8 + 0.62 * h, 36.0))  # room for the n and interval lines
        fig = Figure(figsize=size, layout="constrained")
        ax = fig.subplots()
        im = _heatmap(ax, values, [str(r) for r in table.index], [str(c) for c in table.columns], cmap="RdBu_r",
                      norm=_symmetric_norm(values), notes=notes)
        cb = fig.colorbar(im, ax=ax, shrink=0.85 if not transpose else 0.5)
        cb.set_label("interaction (F1, double-centred)")
        ax.set_xlabel("method" if transpose else str(factor))
        ax.set_ylabel(str(factor) if transpose else "method")
        title = f"Method x {factor} interaction (Eq. 7)"
        if notes is not None:
            title += "\ncell: interaction, [95% bootstrap interval over SCMs] n = units"
        ax.set_title(title, fontsize=10)
        paths += _save(fig, out_dir, f"{stem}_{_safe_stem(factor)}")
    return paths


def _interaction_notes(sub: pd.DataFrame, table: pd.DataFrame, transpose: bool) -> Optional[np.ndarray]:
    """Per cell ``"[lo, hi] n=k"`` (the bootstrap interval and unit count) in ``table``'s layout; None without units."""
    if "units" not in sub.columns:
        return None
    has_ci = {"ci_low", "ci_high"} <= set(sub.columns)
    text = {}
    for r in sub.itertuples(index=False):
        n = f"n={int(r.units)}"
        lo, hi = (float(r.ci_low), float(r.ci_high)) if has_ci else (math.nan, math.nan)
        interval = f"[{lo:+.2f}, {hi:+.2f}] " if np.isfinite(lo) and np.isfinite(hi) else ""
        key = (str(r.level), str(r.method)) if transpose else (str(r.method), str(r.level))
        text[key] = (interval + n).replace("+0.00", "0.00").replace("-0.00", "0.00")
    return np.array([[text.get((str(i), str(c)), "") for c in table.columns] for i in table.index], dtype=object)


# --------------------------------------------------------------------------- Fig. 11, 6a


def _curve(frame: pd.DataFrame, xcol: str, out_dir: PathLike, stem: str, *, name: str, title: str,
           xlabel: str, ylabel: str, logx: bool, styles: Optional[Styles] = None) -> List[Path]:
    if frame is None or len(frame) == 0:
        return []
    _require(frame, ["method", xcol, "score"], name)
    df = frame.dropna(subset=[xcol, "score"])
    if df.empty:
        return []
    df = df.assign(method=df["method"].astype(str))
    # legend ordered by the score at the largest x (as the paper's right-hand column)
    last = df.sort_values(xcol).groupby("method", sort=False).tail(1).sort_values("score", ascending=False)
    methods = list(last["method"])
    styles = _styles_for(methods, styles, name)
    fig = Figure(figsize=(7.8, 4.6), layout="constrained")
    ax = fig.subplots()
    for m in methods:
        sub = df[df["method"] == m].sort_values(xcol)
        st = styles[m]
        x, y = sub[xcol].to_numpy(dtype=float), sub["score"].to_numpy(dtype=float)
        ax.plot(x, y, color=st["color"], linestyle=st["linestyle"], marker=st["marker"], markersize=5,
                linewidth=1.6, label=str(m))
        if "sd" in sub.columns and len(methods) <= 6:  # more bands than that only hide the lines
            sd = sub["sd"].to_numpy(dtype=float)
            ok = np.isfinite(sd)
            if ok.any():
                ax.fill_between(x[ok], (y - sd)[ok], (y + sd)[ok], color=st["color"], alpha=0.08, linewidth=0)
    if logx:
        ax.set_xscale("log")
    xs = sorted(df[xcol].astype(float).unique())
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{v:g}" for v in xs])
    if logx:
        ax.minorticks_off()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8,
              title="method (by final F1)")
    return _save(fig, out_dir, stem)


def d_curve(curve: pd.DataFrame, out_dir: PathLike, stem: str = "d_curve",
            styles: Optional[Styles] = None) -> List[Path]:
    """Mean obs-only F1 against the number of variables d (paper Fig. 11).

    One line per method (shaded band: +/- 1 SD over units, drawn for at most
    six methods), legend ordered by the F1 at the largest d.

    Args:
        curve: ``d_curve`` output — columns method, d, score, sd, units.
        out_dir, stem: where to write.
        styles: method -> style from :func:`method_styles` (default: computed
            from this frame's methods).

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    return _curve(curve, "d", out_dir, stem, name="d_curve", title="F1 vs number of variables d (obs-only)",
                  xlabel="number of variables d", ylabel="mean F1 over units", logx=False, styles=styles)


def n_curve(curve: pd.DataFrame, out_dir: PathLike, stem: str = "n_curve",
            styles: Optional[Styles] = None) -> List[Path]:
    """Mean F1 against the sample size n from the sample-size suite (paper Fig. 6a); log x axis.

    Args:
        curve: ``n_curve`` output — columns method, n, score, sd, units.
        out_dir, stem: where to write.
        styles: method -> style from :func:`method_styles` (default: computed
            from this frame's methods).

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    return _curve(curve, "n", out_dir, stem, name="n_curve", title="F1 vs sample size n (sample-size suite)",
                  xlabel="sample size n (rows, log scale)", ylabel="mean F1 over units", logx=True, styles=styles)


# --------------------------------------------------------------------------- Fig. 6b


def protocol_bars(table: pd.DataFrame, out_dir: PathLike, stem: str = "protocol_delta_f1") -> List[Path]:
    """F1 change against the default protocol per method and protocol (paper Fig. 6b).

    Horizontal grouped bars (one group per method, one bar per non-default
    protocol); negative values are drops. The method's F1 SD across protocols
    is printed at the right of its group.

    Args:
        table: ``protocol_table`` output — columns method, protocol, f1, shd,
            delta_f1, f1_sd.
        out_dir, stem: where to write.

    Returns:
        [png, svg], or [] when the frame is empty or holds only the default protocol.

    Raises:
        ValueError: a required column is missing.
    """
    if table is None or len(table) == 0:
        return []
    _require(table, ["method", "protocol", "delta_f1"], "protocol_bars")
    df = table[table["protocol"] != "default"].dropna(subset=["delta_f1"])
    if df.empty:
        return []
    methods = _unique(df["method"])
    protos = _unique(df["protocol"])
    n_m, n_p = len(methods), len(protos)
    h = 0.8 / n_p
    fig = Figure(figsize=(9.0, 1.4 + 0.22 * n_m * n_p + 0.25 * n_m), layout="constrained")
    ax = fig.subplots()
    y = np.arange(n_m)
    for k, p in enumerate(protos):
        vals = [df[(df["method"] == m) & (df["protocol"] == p)]["delta_f1"].mean() for m in methods]
        ax.barh(y - 0.4 + h * (k + 0.5), np.nan_to_num(vals), height=h * 0.92,
                color=CATEGORY_PALETTE[k % len(CATEGORY_PALETTE)],
                label=str(p))
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(methods)
    ax.invert_yaxis()
    if "f1_sd" in df.columns:
        xmax = ax.get_xlim()[1]
        for i, m in enumerate(methods):
            sd = df[df["method"] == m]["f1_sd"].iloc[0]
            if np.isfinite(sd):
                ax.text(xmax, i, f" SD {sd:.3f}", va="center", ha="left", fontsize=7.5, color="0.3", clip_on=False)
    ax.set_xlabel("\u0394F1 vs default protocol (F1 units; negative = drop)")
    ax.set_title("Intervention-protocol sensitivity", fontsize=10)
    ax.legend(title="protocol", loc="center left", bbox_to_anchor=(1.12, 0.5), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out_dir, stem)


# --------------------------------------------------------------------------- Fig. 17


def domain_heatmap(shift: pd.DataFrame, out_dir: PathLike, stem: str = "domain_shift",
                   family: Optional[str] = None) -> List[Path]:
    """Self-centred domain F1 shift heatmap with each method's SD across domains as side bars (Fig. 17).

    Args:
        shift: ``domain_shift`` output — columns method, domain, f1, shift, domain_sd
            (shift = the method's F1 on the domain minus its own family mean).
        out_dir, stem: where to write.
        family: named in the title (e.g. "semantic").

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing.
    """
    if shift is None or len(shift) == 0:
        return []
    _require(shift, ["method", "domain", "shift", "domain_sd"], "domain_heatmap")
    methods, domains = _unique(shift["method"]), _unique(shift["domain"])
    table = shift.pivot_table(index="method", columns="domain", values="shift", aggfunc="mean", sort=False,
                              dropna=False)
    table = table.reindex(index=methods, columns=domains)
    sds = shift.groupby("method", sort=False)["domain_sd"].first().reindex(methods).to_numpy(dtype=float)
    values = table.to_numpy(dtype=float)
    w, h = _figsize_for_heatmap(len(methods), len(domains), extra_w=4.0)
    fig = Figure(figsize=(w, h + 0.8), layout="constrained")
    ax, ax_sd = fig.subplots(1, 2, sharey=True, width_ratios=[max(len(domains), 1), 2.2])
    im = _heatmap(ax, values, methods, domains, cmap="RdBu_r", norm=_symmetric_norm(values))
    ax.set_xlabel("domain")
    ax.set_ylabel("method")
    ax_sd.barh(np.arange(len(methods)), np.nan_to_num(sds), color="0.55", height=0.6)
    for i, v in enumerate(sds):
        if np.isfinite(v):
            ax_sd.text(v, i, f" {v:.3f}", va="center", fontsize=7.5)
    ax_sd.set_xlabel("SD across domains (F1)")
    ax_sd.set_xlim(0, (np.nanmax(sds) if np.isfinite(sds).any() else 1.0) * 1.45 or 1.0)
    ax_sd.tick_params(axis="y", left=False)
    ax_sd.grid(axis="x", alpha=0.3)
    cb = fig.colorbar(im, ax=[ax, ax_sd], shrink=0.8, location="right")
    cb.set_label("F1 shift vs own family mean")
    fam = f" ({family})" if family else ""
    fig.suptitle(f"Domain specialisation{fam}: self-centred F1 shift, obs-only", fontsize=11)
    return _save(fig, out_dir, stem)


# --------------------------------------------------------------------------- Fig. 5 right


def real_data_strip(real: pd.DataFrame, out_dir: PathLike, stem: str = "real_data") -> List[Path]:
    """Per-table real-data F1, one marker per scored table, a tick at the method mean (Fig. 5 right).

    One panel per split (obs, obs+int); methods on the y axis ordered by mean
    F1; markers jittered vertically (deterministically) so tables do not hide.

    Args:
        real: ``real_data`` output — columns method, split, table, f1, shd.
        out_dir, stem: where to write.

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing.
    """
    if real is None or len(real) == 0:
        return []
    _require(real, ["method", "split", "table", "f1"], "real_data_strip")
    df = real.dropna(subset=["f1"])
    if df.empty:
        return []
    df = df.assign(table=table_labels(df))
    splits = [s for s in ("obs", "obs_int") if s in set(df["split"])] + \
        [s for s in _unique(df["split"]) if s not in ("obs", "obs_int")]
    tables = _unique(df["table"])
    tstyle = _category_colours(tables)
    n_methods = df["method"].nunique()
    fig = Figure(figsize=(4.2 * len(splits) + 1.0 + _label_inches(df["method"].unique()), 1.4 + 0.42 * n_methods),
                 layout="constrained")
    axes = fig.subplots(1, len(splits), squeeze=False, sharey=True)[0]
    rng = np.random.default_rng(0)  # fixed jitter: same picture every run
    # one method order for every panel (mean over all scored tables) so rows line up across splits
    order = list(df.groupby("method", sort=False)["f1"].mean().sort_values(ascending=False).index)
    for ax, s in zip(axes, splits):
        sub = df[df["split"] == s]
        for i, m in enumerate(order):
            pts = sub[sub["method"] == m]
            if pts.empty:
                continue
            jitter = rng.uniform(-0.22, 0.22, len(pts))
            for (t, f), dy in zip(zip(pts["table"], pts["f1"]), jitter):
                ax.plot([f], [i + dy], marker=tstyle[t]["marker"], color=tstyle[t]["color"], markersize=5.5,
                        alpha=0.85, linestyle="none", markeredgecolor="black", markeredgewidth=0.3)
            mean = float(pts["f1"].mean())
            ax.plot([mean, mean], [i - 0.35, i + 0.35], color="black", linewidth=2.2)
        ax.set_yticks(range(len(order)))
        ax.set_yticklabels(order)
        ax.set_ylim(len(order) - 0.5, -0.5)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("F1 per table (tick = method mean)")
        ax.set_title(f"real data, {_SPLIT_LABEL.get(s, s)} ({sub['table'].nunique()} tables)", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], marker=tstyle[t]["marker"], color=tstyle[t]["color"], linestyle="none",
                      markeredgecolor="black", markeredgewidth=0.3, label=str(t)) for t in tables]
    handles.append(Line2D([], [], color="black", linewidth=2.2, label="method mean"))
    fig.legend(handles=handles, loc="outside right upper", fontsize=7.5, title="table")
    fig.suptitle("Real-data check: F1 per published-graph table", fontsize=11)
    return _save(fig, out_dir, stem)


def table_labels(real: pd.DataFrame) -> pd.Series:
    """A label per row's table: its name, or ``family/name`` when two families have a table of that name.

    (bnlearn ships a network called ``sachs``, the ``real`` family a table of that name.)
    """
    if "family" not in real.columns:
        return real["table"].astype(str)
    fams = real.groupby(real["table"].astype(str))["family"].nunique()
    shared = set(fams[fams > 1].index)
    return pd.Series([f"{f}/{t}" if str(t) in shared else str(t) for f, t in zip(real["family"], real["table"])],
                     index=real.index, dtype=object)


#: panels per row of :func:`real_table_strips`; at most :data:`MAX_TABLE_STRIPS` tables are drawn
TABLE_STRIP_COLUMNS = 3
MAX_TABLE_STRIPS = 24
_SPLIT_MARKER = {"obs": "o", "obs_int": "^"}


def real_table_strips(real: pd.DataFrame, out_dir: PathLike, pairs: Optional[pd.DataFrame] = None,
                      stem: str = "real_tables", styles: Optional[Styles] = None,
                      missing: Optional[pd.DataFrame] = None) -> List[Path]:
    """One strip per real table: each method's F1 on it next to its synthetic average (Fig. 5, §5.2).

    Each panel is one table (titled ``family: table``): methods on the y axis
    (the same order in every panel: mean real F1, best first), one marker per split (circle obs,
    triangle obs+int, the method's colour) and a grey bar at the method's synthetic mean F1 on that
    split (``synthetic_f1``; absent when the store has no synthetic runs). A cause–effect pairs track
    (``pairs``, :func:`arena_diagnosis.curves.pair_track`) gets one panel of its own: the weighted
    orientation accuracy per method, a dashed line at 0.5 (a coin). SHD is in the table, not the
    strip: it grows with the table's d, so a synthetic mean SHD is no reference for one table.

    Args:
        real: ``real_data`` output (columns method, split, family, table, f1, synthetic_f1).
        out_dir, stem: where to write.
        pairs: ``pair_track`` output (method, split, family, pairs, accuracy) or None.
        styles: shared method styles (:func:`method_styles`), or None.
        missing: ``real_missing`` output (method, split, family, table, status): a grey cross at 0 and
            the status (``timeout``) where a method has runs on a table but no score.

    Returns:
        [png, svg], or [] when there is nothing to draw.

    Raises:
        ValueError: a required column is missing, or ``styles`` lacks a method.
    """
    frames = []
    if real is not None and len(real):
        _require(real, ["method", "split", "table", "f1"], "real_table_strips")
        df = real.dropna(subset=["f1"])
        df = df.assign(label=[f"{f}: {t}" for f, t in zip(df["family"], df["table"])] if "family" in df.columns
                       else df["table"].astype(str), value=df["f1"],
                       ref=df["synthetic_f1"] if "synthetic_f1" in df.columns else np.nan, kind="f1")
        frames.append(df[["method", "split", "label", "value", "ref", "kind"]])
    if pairs is not None and len(pairs):
        _require(pairs, ["method", "split", "family", "pairs", "accuracy"], "real_table_strips")
        p = pairs.dropna(subset=["accuracy"])
        n = p.groupby("family")["pairs"].max()
        p = p.assign(label=[f"{f} ({int(n[f])} pairs)" for f in p["family"]], value=p["accuracy"], ref=np.nan,
                     kind="accuracy")
        frames.append(p[["method", "split", "label", "value", "ref", "kind"]])
    if missing is not None and len(missing):
        _require(missing, ["method", "split", "family", "table", "status"], "real_table_strips")
        frames.append(missing.assign(label=[f"{f}: {t}" for f, t in zip(missing["family"], missing["table"])],
                                     value=np.nan, ref=np.nan, kind=missing["status"].astype(str))[
            ["method", "split", "label", "value", "ref", "kind"]])
    frames = [f for f in frames if len(f)]
    if not frames:
        return []
    df = pd.concat(frames, ignore_index=True)
    labels = _unique(df["label"])[:MAX_TABLE_STRIPS]
    df = df[df["label"].isin(labels)]
    st = _styles_for(df["method"].unique(), styles, "real_table_strips")
    order = list(df[df["kind"] == "f1"].groupby("method")["value"].mean().sort_values(ascending=False).index)
    order += sorted(set(df["method"]) - set(order))
    ncols = min(TABLE_STRIP_COLUMNS, len(labels))
    nrows = math.ceil(len(labels) / ncols)
    fig = Figure(figsize=(3.3 * ncols + _label_inches(order), (0.9 + 0.3 * len(order)) * nrows + 0.6),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True).ravel()
    splits = [sp for sp in ("obs", "obs_int") if sp in set(df["split"])] + \
        [sp for sp in _unique(df["split"]) if sp not in ("obs", "obs_int")]
    offset = {sp: (k - (len(splits) - 1) / 2) * 0.22 for k, sp in enumerate(splits)}
    for ax, label in zip(axes, labels):
        sub = df[df["label"] == label]
        accuracy = (sub["kind"] == "accuracy").any()
        for i, m in enumerate(order):
            for sp in splits:
                pts = sub[(sub["method"] == m) & (sub["split"] == sp)]
                if pts.empty:
                    continue
                y = i + offset[sp]
                kind = str(pts["kind"].iloc[0])
                if kind not in ("f1", "accuracy"):  # runs but no score: the status instead of a point
                    ax.plot([0.0], [y], marker="x", color="0.45", markersize=6, linestyle="none")
                    ax.annotate(kind, (0.0, y), xytext=(5, 0), textcoords="offset points", va="center",
                                fontsize=7, color="0.35")
                    continue
                ref = float(pts["ref"].iloc[0])
                if np.isfinite(ref):
                    ax.plot([ref, ref], [y - 0.11, y + 0.11], color="0.55", linewidth=2.4, solid_capstyle="butt")
                ax.plot([float(pts["value"].iloc[0])], [y], marker=_SPLIT_MARKER.get(sp, "s"), linestyle="none",
                        color=st[m]["color"], markersize=6.5, markeredgecolor="black", markeredgewidth=0.4)
        if accuracy:
            ax.axvline(0.5, color="0.35", linestyle="--", linewidth=1.0)
        ax.set_xlim(-0.03, 1.03)
        ax.set_title(label, fontsize=9.5)
        ax.set_xlabel("weighted orientation accuracy" if accuracy else "F1", fontsize=8.5)
        ax.grid(axis="x", alpha=0.3)
        ax.set_yticks(range(len(order)))
        ax.set_yticklabels(order)
        ax.set_ylim(len(order) - 0.5, -0.5)
    for ax in axes[len(labels):]:
        ax.set_visible(False)
    handles = [Line2D([], [], marker=_SPLIT_MARKER.get(sp, "s"), color="0.4", linestyle="none",
                      markeredgecolor="black", markeredgewidth=0.4, label=f"{_SPLIT_LABEL.get(sp, sp)}")
               for sp in splits]
    if df["ref"].notna().any():
        handles.append(Line2D([], [], color="0.55", linewidth=2.4, label="synthetic mean F1 (same split)"))
    if (df["kind"] == "accuracy").any():
        handles.append(Line2D([], [], color="0.35", linestyle="--", label="coin (0.5)"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8)
    fig.suptitle("Real-data check per table: F1 against the method's synthetic mean (Fig. 5)", fontsize=11)
    return _save(fig, out_dir, stem)


# --------------------------------------------------------------------------- Fig. 9


def separate_labels(texts: Sequence, renderer, *, obstacles: Sequence = (), pad_px: float = 2.0,
                    max_iter: int = 300) -> int:
    """Nudge text labels vertically (in display coordinates) until no two bounding boxes intersect.

    Each pass measures every label with ``get_window_extent(renderer)`` and,
    for each intersecting pair, moves the lower label down and the upper one up
    by half the vertical overlap plus ``pad_px``; a label on a fixed obstacle
    (e.g. another method's marker) moves away from it by the whole overlap plus
    ``pad_px``. Passes repeat until nothing intersects or ``max_iter`` passes ran. Only annotations placed with an
    offset (``textcoords="offset points"``) are moved, through ``xyann``, so
    the anchor point stays put. Vertical moves only: the labels are short
    horizontal text, so a vertical move is the smallest that separates them.

    Args:
        texts: matplotlib ``Annotation`` objects of one figure.
        renderer: that figure's renderer (``FigureCanvasAgg(fig).get_renderer()``).
        obstacles: fixed ``matplotlib.transforms.Bbox`` es in display pixels
            that labels must leave free (markers).
        pad_px: gap left between separated boxes, pixels.
        max_iter: bound on the passes (a crowd of labels may need many).

    Returns:
        the number of passes that moved something (0: nothing overlapped).

    Raises:
        ValueError: a label is not an annotation with an offset in points.
    """
    for t in texts:
        if not hasattr(t, "xyann") or t.anncoords != "offset points":
            raise ValueError(f"separate_labels: {t!r} is not an annotation with textcoords='offset points'")
    to_pt = 72.0 / texts[0].figure.dpi if texts else 1.0

    def hit(a, b) -> bool:
        return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1

    moved = 0
    for _ in range(max_iter):
        boxes = [t.get_window_extent(renderer) for t in texts]
        shift = np.zeros(len(texts))
        for i, a in enumerate(boxes):
            for o in obstacles:
                if hit(a, o):
                    overlap = min(a.y1, o.y1) - max(a.y0, o.y0)
                    shift[i] += (overlap + pad_px) * (1 if (a.y0 + a.y1) >= (o.y0 + o.y1) else -1)
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                a, b = boxes[i], boxes[j]
                if not hit(a, b):
                    continue
                # the box whose centre is lower goes down (ties: the later label), the other up
                lo, hi = (i, j) if (a.y0 + a.y1) < (b.y0 + b.y1) else (j, i)
                overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
                step = overlap / 2.0 + pad_px
                shift[lo] -= step
                shift[hi] += step
        if not shift.any():
            break
        moved += 1
        for t, dy in zip(texts, shift):
            if dy:
                x, y = t.xyann
                t.xyann = (x, y + dy * to_pt)
    return moved


def pareto_frontier(front: pd.DataFrame, out_dir: PathLike, stem: str = "pareto_frontier",
                    styles: Optional[Styles] = None) -> List[Path]:
    """Accuracy-cost frontier: Avg F1 against per-graph time on a log axis (paper Fig. 9).

    Diamonds use T_graph (load-free per-graph time of the runtime fit),
    circles mean end-to-end time. Pareto-optimal methods (no other method has
    higher-or-equal F1 at lower-or-equal time) are ringed and joined by a
    dashed line; an arrow points to the optimal corner (higher F1, lower time).

    Method labels that would overlap (methods with near-equal time and F1)
    are pulled apart by :func:`separate_labels`, with a thin leader line to
    their point when moved.

    Args:
        front: ``frontier`` output — columns method, f1, seconds (> 0),
            time_source ("T_graph" | "end_to_end"), pareto (bool).
        out_dir, stem: where to write.
        styles: method -> style from :func:`method_styles` (default: computed
            from this frame's methods).

    Returns:
        [png, svg], or [] when no row has a finite F1 and positive time.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    fig = _pareto_figure(front, styles)
    return [] if fig is None else _save(fig, out_dir, stem)


def _pareto_figure(front: pd.DataFrame, styles: Optional[Styles]) -> Optional[Figure]:
    """The Fig. 9 figure with its labels separated (None for no data); see :func:`pareto_frontier`."""
    if front is None or len(front) == 0:
        return None
    _require(front, ["method", "f1", "seconds", "time_source", "pareto"], "pareto_frontier")
    df = front[np.isfinite(front["f1"].astype(float)) & (front["seconds"].astype(float) > 0)]
    if df.empty:
        return None
    df = df.assign(method=df["method"].astype(str))
    styles = _styles_for(_unique(df["method"]), styles, "pareto_frontier")
    fig = Figure(figsize=(7.8, 5.0), layout="constrained")
    ax = fig.subplots()
    par = df[df["pareto"].astype(bool)].sort_values("seconds")
    if len(par) >= 1:
        ax.plot(par["seconds"], par["f1"], linestyle="--", color="0.35", linewidth=1.2, zorder=1,
                label="Pareto frontier")
        ax.scatter(par["seconds"], par["f1"], s=260, facecolors="none", edgecolors="0.2", linewidths=1.2, zorder=2)
    labels = []
    for _, r in df.iterrows():
        marker = "D" if r["time_source"] == "T_graph" else "o"
        ax.scatter([r["seconds"]], [r["f1"]], marker=marker, s=70, color=styles[r["method"]]["color"],
                   edgecolors="black", linewidths=0.5, zorder=3)
        labels.append(ax.annotate(r["method"], (r["seconds"], r["f1"]), xytext=(7, 5),
                                  textcoords="offset points", fontsize=8, zorder=4))
    ax.set_xscale("log")
    lo, hi = float(df["seconds"].min()), float(df["seconds"].max())
    ax.set_xlim(lo / 2.5, hi * 4)
    f_hi = float(df["f1"].max())
    # headroom above the best point so the corner marker never sits on a method's label
    ax.set_ylim(max(0.0, float(df["f1"].min()) - 0.08), f_hi + 0.16)
    ax.text(0.01, 0.99, "\u2196 optimal: higher F1, lower time", transform=ax.transAxes, ha="left", va="top",
            fontsize=8, style="italic", color="0.3")
    ax.set_xlabel("per-graph time (seconds, log scale)")
    ax.set_ylabel("Avg F1 (leaderboard Avg column)")
    ax.set_title("Accuracy-cost frontier", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    handles = [Line2D([], [], marker="D", color="0.4", linestyle="none", label="T_graph (runtime fit)"),
               Line2D([], [], marker="o", color="0.4", linestyle="none", label="mean end-to-end time"),
               Line2D([], [], linestyle="--", color="0.35", marker="o", markerfacecolor="none", markersize=11,
                      label="Pareto set")]
    ax.legend(handles=handles, loc="lower right", fontsize=8)
    # lay out first (constrained layout moves the axes), then separate the labels in that final geometry and
    # freeze it: a layout pass at save time would move the anchors again
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    half = 6.0 * fig.dpi / 72.0  # a marker's half width (s = 70 pt^2 -> about 8.4 pt across), pixels
    points = ax.transData.transform(df[["seconds", "f1"]].to_numpy(dtype=float))
    markers = [Bbox.from_extents(x - half, y - half, x + half, y + half) for x, y in points]
    separate_labels(labels, renderer, obstacles=markers)
    fig.set_layout_engine("none")
    for t in labels:
        if abs(t.xyann[1] - 5) > 4:  # moved off its point: redrawn with a leader line saying whose label it is
            ax.annotate(t.get_text(), t.xy, xytext=t.xyann, textcoords="offset points", fontsize=8, zorder=4,
                        arrowprops={"arrowstyle": "-", "color": "0.55", "linewidth": 0.6, "shrinkA": 1,
                                    "shrinkB": 5})
            t.remove()
    return fig


# --------------------------------------------------------------------------- Fig. 14, 15


_AXIS_ORDER = ("graph", "mechanism", "noise", "root")


def _axes_in(frame: pd.DataFrame) -> List[str]:
    present = _unique(frame["axis"])
    return [a for a in _AXIS_ORDER if a in present] + [a for a in present if a not in _AXIS_ORDER]


def prior_coverage_bars(coverage: pd.DataFrame, out_dir: PathLike, stem: str = "prior_coverage") -> List[Path]:
    """Documented pretraining-prior coverage per method and factor axis (paper Fig. 14).

    Horizontal grouped bars of covered / total (ratio in [0, 1]), one group
    per method (alphabetical, as the paper's table), one bar per axis, each
    labelled "covered/total"; an axis the prior does not declare (NaN ratio)
    is written "not declared" instead of a bar.

    Args:
        coverage: ``Exposure.coverage`` — columns method, axis, covered, total, ratio.
        out_dir, stem: where to write.

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing.
    """
    if coverage is None or len(coverage) == 0:
        return []
    _require(coverage, ["method", "axis", "covered", "total", "ratio"], "prior_coverage_bars")
    methods = sorted(_unique(coverage["method"]), key=str)
    axes_ = _axes_in(coverage)
    n_m, n_a = len(methods), len(axes_)
    h = 0.8 / n_a
    fig = Figure(figsize=(7.5, 1.3 + 0.3 * n_m * n_a + 0.2 * n_m), layout="constrained")
    ax = fig.subplots()
    y = np.arange(n_m)
    for k, a in enumerate(axes_):
        ys = y - 0.4 + h * (k + 0.5)
        for i, m in enumerate(methods):
            row = coverage[(coverage["method"] == m) & (coverage["axis"] == a)]
            if row.empty:
                continue
            r = row.iloc[0]
            ratio = float(r["ratio"])
            if not np.isfinite(ratio):  # the prior says nothing about this axis (not the same as 0 covered)
                ax.text(0.01, ys[i], f"{a}: not declared", va="center", fontsize=7, color="0.35", style="italic")
                continue
            ax.barh(ys[i], ratio, height=h * 0.92, color=CATEGORY_PALETTE[k % len(CATEGORY_PALETTE)], label=str(a))
            ax.text(ratio + 0.01, ys[i], f"{int(r['covered'])}/{int(r['total'])}", va="center", fontsize=7.5)
    # one legend entry per axis (bars above may carry duplicates)
    hs, ls = ax.get_legend_handles_labels()
    seen: Dict[str, object] = {}
    for hh, ll in zip(hs, ls):
        seen.setdefault(ll, hh)
    ax.legend(list(seen.values()), list(seen.keys()), title="factor axis", loc="center left",
              bbox_to_anchor=(1.01, 0.5), fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(methods)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("coverage: documented training categories / arena categories (ratio)")
    ax.set_title("Pretraining-prior coverage per factor axis", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out_dir, stem)


#: panels per row of :func:`id_ood_bars`
ID_OOD_COLUMNS = 4


def id_ood_bars(axes_frame: pd.DataFrame, out_dir: PathLike, stem: str = "id_ood") -> List[Path]:
    """ID vs OOD F1 per method, one panel per factor axis, with reference ticks (paper Fig. 15 top row).

    Teal bars: F1 on the categories inside the method's documented prior (ID);
    pink: outside it (OOD). The dark tick on each bar is the reference group's
    mean F1 on the same slice (a bar reaching past its tick beats the
    reference); the number at the right of each OOD bar is R^OOD (Eq. 8) in
    percent of the reference F1.

    Args:
        axes_frame: ``Exposure.axes`` — columns method, axis, f_id, f_ood,
            ref_id, ref_ood, r_id, r_ood, gap (F1 in [0, 1]; r_* as fractions).
        out_dir, stem: where to write.

    Returns:
        [png, svg], or [] for an empty frame.

    Raises:
        ValueError: a required column is missing.
    """
    if axes_frame is None or len(axes_frame) == 0:
        return []
    _require(axes_frame, ["method", "axis", "f_id", "f_ood", "ref_id", "ref_ood", "r_ood"], "id_ood_bars")
    methods = sorted(_unique(axes_frame["method"]), key=str)
    axes_ = _axes_in(axes_frame)
    n_m = len(methods)
    # at most ID_OOD_COLUMNS panels a row: nine axes in one row made a 3000 × 367 px strip
    ncols = min(ID_OOD_COLUMNS, len(axes_))
    nrows = -(-len(axes_) // ncols)
    fig = Figure(figsize=(3.1 * ncols + 0.6 + _label_inches(methods), 0.9 + nrows * (0.9 + 0.75 * n_m)),
                 layout="constrained")
    top = np.nanmax(axes_frame[["f_id", "f_ood", "ref_id", "ref_ood"]].to_numpy(dtype=float))
    xmax = min(1.05, (top if np.isfinite(top) else 1.0) + 0.2)
    grid = fig.subplots(nrows, ncols, sharey=True, squeeze=False)
    for ax in grid.ravel()[len(axes_):]:
        ax.set_visible(False)
    panels = grid.ravel()[:len(axes_)]
    y = np.arange(n_m)
    hgt = 0.38
    for ax, a in zip(panels, axes_):
        sub = axes_frame[axes_frame["axis"] == a].set_index("method")
        for i, m in enumerate(methods):
            if m not in sub.index:
                continue
            r = sub.loc[m]
            for off, f, ref, colour in ((-hgt / 2, r["f_id"], r["ref_id"], _ID_COLOUR),
                                        (hgt / 2, r["f_ood"], r["ref_ood"], _OOD_COLOUR)):
                f, ref = float(f), float(ref)
                if np.isfinite(f):
                    ax.barh(i + off, f, height=hgt * 0.95, color=colour)
                if np.isfinite(ref):
                    ax.plot([ref, ref], [i + off - hgt / 2, i + off + hgt / 2], color=_REF_COLOUR, linewidth=2.0)
            r_ood = float(r["r_ood"])
            f_ood = float(r["f_ood"])
            if not np.isfinite(f_ood):
                # all NaN: the prior does not declare this axis; else every category is ID (no held-out slice)
                what = "axis not declared" if not np.isfinite(float(r["f_id"])) else "no OOD slice"
                ax.text(0.01, i + hgt / 2, what, va="center", fontsize=7, color="0.35", style="italic")
            if np.isfinite(r_ood) and np.isfinite(f_ood):
                ax.text(max(f_ood, float(r["ref_ood"]) if np.isfinite(float(r["ref_ood"])) else 0) + 0.02,
                        i + hgt / 2, f"{100 * r_ood:+.0f}%".replace("-0%", "+0%"), va="center", fontsize=7.5)
        ax.set_xlim(0, xmax)
        ax.set_xlabel("F1 on slice")
        ax.set_title(f"{a}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    for row in grid:  # shared y: the labels on each row's first panel
        row[0].set_yticks(y)
        row[0].set_yticklabels(methods)
    panels[0].set_ylim(n_m - 0.5, -0.5)
    handles = [_patch(_ID_COLOUR, "ID (inside documented prior)"), _patch(_OOD_COLOUR, "OOD (held out)"),
               Line2D([], [], color=_REF_COLOUR, linewidth=2.0, label="reference mean (same slice)"),
               Line2D([], [], linestyle="none", marker="$\\%$", color="0.2", label="$R^{\\mathrm{OOD}}$ (Eq. 8): % above (+) / below (−) the reference")]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=8)
    fig.suptitle("Pretraining exposure: ID vs OOD F1 per factor axis (obs-only)", fontsize=11)
    return _save(fig, out_dir, stem)
