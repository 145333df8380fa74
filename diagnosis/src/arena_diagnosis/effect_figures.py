"""Figures of the effect-estimation report (CausalIDView Fig. 2, 3, 6), PNG (150 dpi) and SVG.

Same conventions as :mod:`arena_diagnosis.figures`: each function takes one
table of :mod:`arena_diagnosis.effect`, an output folder and a stem, writes
``<stem>.png`` and ``<stem>.svg`` and returns their paths; an empty table
writes nothing (``[]``); a missing column is a ``ValueError`` naming the
figure and the column. Methods are coloured by
:func:`arena_diagnosis.figures.method_styles` (pass one mapping for the whole
report as ``styles=``); what is not a method (the two parts of sPEHE², the
views' markers) uses the non-method palette or grey.

=============================  ============================  ============
function                       input table                   paper
=============================  ============================  ============
:func:`view_method_bars`       :func:`~.effect.view_method`  Fig. 2
:func:`stay_move_map`          ``stay_move`` summary         Fig. 3
:func:`hc_degradation_plot`    ``hc_degradation``            Fig. 6a, b
:func:`bounds_gamma`           ``bounds_table``              Fig. 6d, e
=============================  ============================  ============
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .effect import view_order
from .figures import CATEGORY_PALETTE, PathLike, Styles, _patch, _require, _save, _styles_for, _unique

__all__ = ["VIEW_MARKERS", "bounds_gamma", "hc_degradation_plot", "stay_move_map", "view_method_bars"]

#: one marker per view (Fig. 3): the view is the marker, the method the colour
VIEW_MARKERS = {"bd": "o", "fd": "s", "iv": "^", "px": "D", "hc": "v"}
_EXTRA_MARKERS = ("P", "X", "<", ">", "*")
_MEAN_COLOUR, _CENTRED_COLOUR = CATEGORY_PALETTE[0], CATEGORY_PALETTE[3]  # blue, yellow (Tol bright)


def _view_markers(views) -> dict:
    extra = iter(_EXTRA_MARKERS * 4)
    return {v: VIEW_MARKERS.get(v) or next(extra) for v in views}


def _log_spread(values: np.ndarray, factor: float = 30.0) -> bool:
    """Log axis when every value is positive and the largest is ``factor`` times the smallest or more."""
    v = values[np.isfinite(values)]
    return bool(v.size and (v > 0).all() and v.max() / v.min() >= factor)


#: a bar whose total exceeds this multiple of its panel's median sPEHE² is drawn off scale (hatched, value named)
OFF_SCALE = 20.0


def view_method_bars(table: pd.DataFrame, out_dir: PathLike, stem: str = "effect_view_method") -> List[Path]:
    """sPEHE² per method in each view, split into its two parts (paper Fig. 2).

    One panel per view (paper order, up to three per row); per method a
    horizontal stacked bar: the mean-effect error (mean τ̂ − mean τ)² then
    the centred-CATE error, their sum the mean sPEHE² over worlds; the thin
    whisker is ± 1 SD of sPEHE² over worlds. Methods sorted best (lowest) on
    top; each panel has its own x scale (views differ by orders of magnitude),
    ending near the largest total within :data:`OFF_SCALE` × the panel's
    median: a larger (exploded) estimate is drawn to the edge, hatched, with its value.

    Args:
        table: :func:`arena_diagnosis.effect.view_method` output.
        out_dir, stem: where to write.

    Returns:
        [png, svg], or [] for an empty table.

    Raises:
        ValueError: a required column is missing.
    """
    if table is None or len(table) == 0:
        return []
    name = "view_method_bars"
    _require(table, ["view", "method", "spehe2", "spehe2_sd", "mean_effect_error", "centred_cate_error"], name)
    views = view_order(table["view"])
    ncols = min(3, len(views))
    nrows = -(-len(views) // ncols)
    per = max(table.groupby("view")["method"].nunique().max(), 1)
    longest = max(len(str(m)) for m in table["method"])
    fig = Figure(figsize=(3.3 * ncols + 0.07 * longest + 1.0, nrows * (0.9 + 0.32 * per) + 0.9), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, view in enumerate(views):
        ax = axes[k // ncols, k % ncols]
        sub = table[table["view"] == view].sort_values("spehe2", ascending=False, kind="stable")
        y = np.arange(len(sub))
        mean_part = sub["mean_effect_error"].to_numpy(dtype=float)
        centred = sub["centred_cate_error"].to_numpy(dtype=float)
        total = sub["spehe2"].to_numpy(dtype=float)
        sd = np.nan_to_num(sub["spehe2_sd"].to_numpy(dtype=float))
        # an estimator that blew up (an unfloored ratio, exploding weights: 1e9 and more) would squash the
        # others to nothing: the axis ends at the largest total within OFF_SCALE × the panel's median, and
        # a bar beyond it is drawn to the edge, hatched, with its value and an arrow
        finite = total[np.isfinite(total)]
        median = float(np.median(finite)) if len(finite) else 0.0
        cap = OFF_SCALE * median if median > 0 else np.inf
        inside = finite[finite <= cap]
        top = float(np.nanmax((total + sd)[total <= cap])) if len(inside) else (float(np.nanmax(finite))
                                                                               if len(finite) else 1.0)
        limit = 1.18 * top if top > 0 else 1.0
        off = ~(total <= limit)
        scale = np.where(off, limit / np.where(total > 0, total, 1.0), 1.0)
        ax.barh(y, mean_part * scale, color=_MEAN_COLOUR, edgecolor="white", linewidth=0.5, height=0.7)
        ax.barh(y, centred * scale, left=mean_part * scale, color=_CENTRED_COLOUR, edgecolor="white", linewidth=0.5,
                height=0.7, hatch=None)
        if off.any():
            ax.barh(y[off], np.full(int(off.sum()), limit), fill=False, hatch="///", edgecolor="0.35", linewidth=0,
                    height=0.7)
        keep = ~off
        ax.errorbar(total[keep], y[keep], xerr=[np.zeros(int(keep.sum())), sd[keep]], fmt="none", ecolor="0.25",
                    elinewidth=0.8, capsize=2)
        for yi, t, o in zip(y, total, off):
            if o:
                ax.annotate(f"{t:.2g} → off scale", (limit, yi), xytext=(-3, 0), textcoords="offset points",
                            fontsize=7, va="center", ha="right", color="0.1",
                            bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
            else:
                ax.annotate(f"{t:.3g}", (t, yi), xytext=(3, 4), textcoords="offset points", fontsize=7,
                            va="bottom", color="0.2")
        ax.set_xlim(0, limit)
        ax.set_yticks(y)
        ax.set_yticklabels([str(m) for m in sub["method"]], fontsize=8)
        ax.set_title(f"view {view}", fontsize=10)
        ax.set_xlabel("mean sPEHE² over worlds")
        ax.grid(axis="x", alpha=0.3)
    for k in range(len(views), nrows * ncols):
        axes[k // ncols, k % ncols].set_visible(False)
    fig.legend(handles=[_patch(_MEAN_COLOUR, "mean-effect error"), _patch(_CENTRED_COLOUR, "centred-CATE error"),
                        Line2D([], [], color="0.25", linewidth=0.8, label="+1 SD of sPEHE² over worlds")],
               loc="outside lower center", ncols=3, fontsize=8)
    fig.suptitle("sPEHE² by view and method, split into mean-effect and centred-CATE error (lower is better)",
                 fontsize=10)
    return _save(fig, out_dir, stem)


def stay_move_map(summary: pd.DataFrame, out_dir: PathLike, stem: str = "effect_stay_move",
                  styles: Optional[Styles] = None) -> List[Path]:
    """Stay error (x) against Move tracking error (y) per method and view (paper Fig. 3).

    One point per (method, view) with both errors: the colour is the method
    (``styles``), the marker the view. Near the origin is the good corner:
    invariant when the target stays, tracking it when it moves. An axis is
    logarithmic when its positive values span 30× or more.

    Args:
        summary: the summary of :func:`arena_diagnosis.effect.stay_move`.
        out_dir, stem: where to write.
        styles: method → style from :func:`arena_diagnosis.figures.method_styles`.

    Returns:
        [png, svg], or [] when no (method, view) has both errors.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    if summary is None or len(summary) == 0:
        return []
    name = "stay_move_map"
    _require(summary, ["method", "view", "stay_error", "move_tracking_error"], name)
    df = summary.dropna(subset=["stay_error", "move_tracking_error"])
    if df.empty:
        return []
    df = df.assign(method=df["method"].astype(str))
    styles = _styles_for(_unique(df["method"]), styles, name)
    methods = [m for m in styles if m in set(df["method"])]
    views = view_order(df["view"])
    markers = _view_markers(views)
    fig = Figure(figsize=(7.6, 5.0), layout="constrained")
    ax = fig.subplots()
    for r in df.itertuples(index=False):
        ax.scatter([r.stay_error], [r.move_tracking_error], marker=markers[r.view], s=70,
                   color=styles[r.method]["color"], edgecolors="black", linewidths=0.5, zorder=3)
    x, y = df["stay_error"].to_numpy(dtype=float), df["move_tracking_error"].to_numpy(dtype=float)
    for axis, values, setter in (("x", x, ax.set_xscale), ("y", y, ax.set_yscale)):
        if _log_spread(values):
            setter("log")
        else:
            (ax.set_xlim if axis == "x" else ax.set_ylim)(_linear_limits(values))
    ax.set_xlabel("Stay error: mean (τ̂ Stay − τ̂)² (target unchanged; 0 = invariant)")
    ax.set_ylabel("Move tracking error: mean (Δτ̂ − Δτ)²")
    ax.set_title("Response map: invariance under Stay vs tracking under Move (lower-left is better)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    handles = [Line2D([], [], color=styles[m]["color"], marker="s", linestyle="none", markersize=8, label=m)
               for m in methods]
    handles += [Line2D([], [], color="0.45", marker=markers[v], linestyle="none", markersize=7, label=f"view {v}")
                for v in views]
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, title="method / view")
    return _save(fig, out_dir, stem)


def _linear_limits(values: np.ndarray) -> tuple:
    """Linear limits from 0 to 10 % above the largest value (1 when all are 0)."""
    top = float(np.nanmax(values)) if np.isfinite(values).any() else 1.0
    return (0.0, 1.1 * top if top > 0 else 1.0)


def hc_degradation_plot(table: pd.DataFrame, out_dir: PathLike, stem: str = "effect_hc_degradation",
                        styles: Optional[Styles] = None) -> List[Path]:
    """sPEHE² with the confounder observed (bd, circle) and hidden (hc, triangle), per method (paper Fig. 6a, b).

    One panel per source (the synthetic family, each real dataset); a line
    joins a method's two means; the ratio hc / bd is printed at the right.
    The x axis is logarithmic when the values span 30× or more.

    Args:
        table: :func:`arena_diagnosis.effect.hc_degradation` output.
        out_dir, stem: where to write.
        styles: method → style (:func:`arena_diagnosis.figures.method_styles`).

    Returns:
        [png, svg], or [] for an empty table.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    if table is None or len(table) == 0:
        return []
    name = "hc_degradation_plot"
    _require(table, ["source", "method", "bd", "hc", "ratio"], name)
    df = table.assign(method=table["method"].astype(str))
    styles = _styles_for(_unique(df["method"]), styles, name)
    sources = _unique(df["source"])
    per = int(df.groupby("source")["method"].nunique().max())
    fig = Figure(figsize=(4.6 * len(sources) + 1.2, 1.3 + 0.38 * per), layout="constrained")
    axes = fig.subplots(1, len(sources), squeeze=False)[0]
    for ax, source in zip(axes, sources):
        sub = df[df["source"] == source].sort_values("ratio", ascending=True, kind="stable")
        y = np.arange(len(sub))
        for yi, r in zip(y, sub.itertuples(index=False)):
            colour = styles[r.method]["color"]
            ax.plot([r.bd, r.hc], [yi, yi], color=colour, linewidth=1.4, zorder=1)
            ax.scatter([r.bd], [yi], marker="o", s=55, color=colour, edgecolors="black", linewidths=0.5, zorder=2)
            ax.scatter([r.hc], [yi], marker="^", s=65, color=colour, edgecolors="black", linewidths=0.5, zorder=2)
            ax.annotate(f"×{r.ratio:.2g}", (1.0, yi), xycoords=("axes fraction", "data"), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=8, color="0.25")
        values = np.concatenate([sub["bd"].to_numpy(dtype=float), sub["hc"].to_numpy(dtype=float)])
        if _log_spread(values):
            ax.set_xscale("log")
        else:
            ax.set_xlim(_linear_limits(values))
        ax.set_yticks(y)
        ax.set_yticklabels(list(sub["method"]), fontsize=8)
        ax.set_ylim(-0.6, len(sub) - 0.4)
        ax.set_title(str(source), fontsize=10)
        ax.set_xlabel("mean sPEHE² (paired worlds / replicates)")
        ax.grid(axis="x", alpha=0.3, which="both")
    fig.legend(handles=[Line2D([], [], color="0.4", marker="o", linestyle="none", label="bd (confounder observed)"),
                        Line2D([], [], color="0.4", marker="^", linestyle="none", label="hc (confounder hidden)")],
               loc="outside lower center", ncols=2, fontsize=8)
    fig.suptitle("Hiding the confounder: bd → hc (right: ratio hc / bd)", fontsize=10)
    return _save(fig, out_dir, stem)


def bounds_gamma(table: pd.DataFrame, out_dir: PathLike, stem: str = "effect_bounds_gamma",
                 styles: Optional[Styles] = None) -> List[Path]:
    """Endpoint RMSE (left) and target-CATE containment (right) against the sensitivity level Γ (Fig. 6d, e).

    The marginal-sensitivity (``msm``) rows of the bounds table, one line
    per method; Γ = 1 is no unobserved confounding allowed.

    Args:
        table: :func:`arena_diagnosis.effect.bounds_table` output.
        out_dir, stem: where to write.
        styles: method → style (:func:`arena_diagnosis.figures.method_styles`).

    Returns:
        [png, svg], or [] without msm rows.

    Raises:
        ValueError: a required column is missing; ``styles`` lacks a method.
    """
    if table is None or len(table) == 0:
        return []
    name = "bounds_gamma"
    _require(table, ["method", "assumption", "gamma", "bound_rmse", "containment"], name)
    df = table[(table["assumption"] == "msm") & table["gamma"].notna()]
    if df.empty:
        return []
    df = df.assign(method=df["method"].astype(str))
    styles = _styles_for(_unique(df["method"]), styles, name)
    methods = [m for m in styles if m in set(df["method"])]
    fig = Figure(figsize=(9.6, 3.9), layout="constrained")
    ax_rmse, ax_cont = fig.subplots(1, 2)
    for m in methods:
        sub = df[df["method"] == m].sort_values("gamma")
        st = styles[m]
        for ax, col in ((ax_rmse, "bound_rmse"), (ax_cont, "containment")):
            ok = sub[col].notna()
            ax.plot(sub.loc[ok, "gamma"], sub.loc[ok, col], color=st["color"], marker=st["marker"],
                    linestyle=st["linestyle"], linewidth=1.5, markersize=5, label=m)
    gammas = sorted(df["gamma"].astype(float).unique())
    for ax in (ax_rmse, ax_cont):
        ax.set_xticks(gammas)
        ax.set_xticklabels([f"{g:g}" for g in gammas])
        ax.set_xlabel("sensitivity level Γ")
        ax.grid(alpha=0.3)
    ax_rmse.set_ylim(bottom=0)
    ax_rmse.set_ylabel("endpoint RMSE (lower is better)")
    ax_rmse.set_title("Bound endpoints vs the oracle identified set", fontsize=10)
    ax_cont.set_ylim(-0.02, 1.02)
    ax_cont.set_ylabel("share of queries with τ in [L̂, Û]")
    ax_cont.set_title("Target-CATE containment", fontsize=10)
    ax_cont.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, title="method")
    return _save(fig, out_dir, stem)
