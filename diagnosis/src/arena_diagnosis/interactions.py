"""Double-centred interaction scores (paper §6.1, Eq. 7; Fig. 10, 12, 13).

I_{m,c} = F_{m,c} − F̄_{m,·} − F̄_{·,c} + F̄_{·,·}: a method's slice score with
its own overall strength and the category's overall difficulty removed.

Every cell carries the number of units it rests on (``units``: the (SCM,
split) units with a score in that method × category cell; in the demo
2–4 per cell) and a percentile bootstrap interval (``ci_low``, ``ci_high``):
the SCMs are resampled with replacement (one draw shared by every method, so
the methods stay paired on the same SCMs), F is recomputed as the unit-weighted
cell means of the draw, double-centred, and the (α/2, 1−α/2) percentiles of
each cell over the draws are reported (Efron & Tibshirani 1993, §13.3).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import numpy as np
import pandas as pd

from .slices import (
    EDGE_FACTORS,
    _factor_units,
    _sort_levels,
    edge_slice_scores,
    edge_unit_scores,
    slice_scores,
    unit_levels,
)

__all__ = ["INTERACTION_COLUMNS", "double_centre", "interaction_scores"]

INTERACTION_COLUMNS = ["factor", "level", "method", "score", "interaction", "units", "ci_low", "ci_high"]
#: bootstrap draws and seed of the interval (percentile bootstrap over SCMs)
BOOTSTRAP_DRAWS = 200
BOOTSTRAP_SEED = 0


def double_centre(table: pd.DataFrame, tol: float = 1e-12, max_iter: int = 10_000) -> pd.DataFrame:
    """Eq. 7 on a method × category table F (NaN = missing cell).

    On a complete table this is exactly I = F − row means − column means +
    grand mean, so every row and every column of I sums to zero.

    Missing cells: I is the residual of the additive model F_{m,c} ≈ μ + a_m
    + b_c fitted by least squares to the available cells (alternating row and
    column centring until both are centred within ``tol``). Its defining
    property survives: each row and each column of I sums to zero **over its
    available cells**; missing cells stay NaN. (Plain margins over available
    cells would leave a method's missing category tilting its row.) On a
    complete table the first sweep already gives Eq. 7.

    Args:
        table: methods × categories, float.
        tol: convergence tolerance on the largest row / column mean.
        max_iter: sweep limit (a disconnected design converges too, per block).

    Returns:
        Same shape, index and columns as ``table``.
    """
    f = table.to_numpy(dtype=float)
    if f.size == 0:
        return table.astype(float)
    mask = ~np.isnan(f)
    r = np.where(mask, f, 0.0)
    for _ in range(max_iter):
        counts = mask.sum(axis=1, keepdims=True)
        r = r - np.where(mask, r.sum(axis=1, keepdims=True) / np.maximum(counts, 1), 0.0)
        counts = mask.sum(axis=0, keepdims=True)
        r = r - np.where(mask, r.sum(axis=0, keepdims=True) / np.maximum(counts, 1), 0.0)
        row_means = np.abs(r.sum(axis=1)) / np.maximum(mask.sum(axis=1), 1)
        if row_means.max(initial=0.0) < tol:
            break
    return pd.DataFrame(np.where(mask, r, np.nan), index=table.index, columns=table.columns)


def interaction_scores(runs: pd.DataFrame, factor: str, metric: str = "f1", split: Optional[str] = "obs",
                       predictions: Optional[pd.DataFrame] = None, truths: Optional[Mapping[str, Any]] = None,
                       family: Optional[str] = None, n_boot: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED,
                       alpha: float = 0.05) -> pd.DataFrame:
    """Interaction scores I_{m,c} of Eq. 7 for one factor on one split.

    F_{m,c} is the slice score: graph-level (:func:`slice_scores`: the mean
    over units carrying c) or, for ``mechanism`` / ``noise`` with
    ``predictions`` and ``truths`` given, edge-level (:func:`edge_slice_scores`:
    the macro mean over units of the F1 on edges into c-children, §6.1;
    ``metric`` then one of precision, recall, f1). Double-centring and its
    treatment of missing cells: :func:`double_centre`.

    Args:
        runs: runs table.
        factor: any factor (``graph``, ``mechanism``, ``noise``, ``root_dependency`` …).
        metric: metric column.
        split: the split analysed (§6.1: ``"obs"``; None: all splits pooled per unit).
        predictions, truths: for the edge-level variant.
        family: keep one family (None: all; graph-level synthetic factors exist only there).
        n_boot: bootstrap draws of the interval (0: no interval, NaN).
        seed: seed of the draws (``numpy.random.default_rng``): the same inputs give the same interval.
        alpha: the interval is the (alpha/2, 1 - alpha/2) percentile range.

    Returns:
        Columns ``factor, level, method, score, interaction, units, ci_low,
        ci_high`` (one row per available method × category cell; ``units``
        int, the interval in F1 units, NaN with one SCM in the table), sorted
        by level then method.
        Empty with those columns when nothing qualifies (edge-level:
        ``attrs["reason"]`` says why).

    Raises:
        ValueError: unknown factor (listing the available ones); an
            edge-level metric other than precision / recall / f1; n_boot < 0
            or alpha outside (0, 1).
    """
    if n_boot < 0 or not 0 < alpha < 1:
        raise ValueError(f"interaction_scores: n_boot must be >= 0 and alpha in (0, 1), got {n_boot}, {alpha}")
    edge = factor in EDGE_FACTORS and predictions is not None
    if edge:
        if metric not in ("precision", "recall", "f1"):
            raise ValueError(f"edge-level interaction metric must be precision, recall or f1, got {metric!r}")
        if truths is None:
            raise ValueError("edge-level interaction scores need truths with the predictions")
        if family is not None:
            runs = runs[runs["family"] == family]
        scores = edge_slice_scores(runs, predictions, truths, factor, split=split)
        scores = scores.rename(columns={metric: "score"})
    else:
        scores = slice_scores(runs, factor, metric=metric, split=split, family=family)
    if not len(scores):
        out = pd.DataFrame(columns=INTERACTION_COLUMNS)
        out.attrs.update(scores.attrs)
        return out
    if split is None:
        # several splits: one cell per (method, level), the unit-weighted mean of the split rows
        w = scores.assign(_w=scores["score"] * scores["units"])
        g = w.groupby(["level", "method"], sort=False)
        scores = (g["_w"].sum() / g["units"].sum()).rename("score").reset_index()
    table = scores.pivot_table(index="method", columns="level", values="score", aggfunc="first")
    inter = double_centre(table)
    long = pd.DataFrame({"score": table.stack(), "interaction": inter.stack()}).dropna(subset=["score"])
    long = long.reset_index()
    long.insert(0, "factor", factor)
    per = _unit_rows(runs, factor, metric, split, predictions if edge else None, truths, family)
    counts = per.groupby(["method", "level"]).size().rename("units")
    long = long.join(counts, on=["method", "level"])
    long["units"] = long["units"].fillna(0)
    low, high = _bootstrap(per, table, n_boot, seed, alpha)
    long["ci_low"] = [low.loc[m, lv] for m, lv in zip(long["method"], long["level"])]
    long["ci_high"] = [high.loc[m, lv] for m, lv in zip(long["method"], long["level"])]
    return _sort_levels(long, extra=("method",))[INTERACTION_COLUMNS]


def _unit_rows(runs: pd.DataFrame, factor: str, metric: str, split: Optional[str],
               predictions: Optional[pd.DataFrame], truths: Optional[Mapping[str, Any]],
               family: Optional[str]) -> pd.DataFrame:
    """One row per (unit, category) with a score: columns method, level, scm (the SCM's id), value."""
    if predictions is not None:
        per = edge_unit_scores(runs[runs["family"] == family] if family is not None else runs, predictions,
                               truths or {}, factor)
    else:
        units = _factor_units(runs, factor, [metric])
        if family is not None:
            units = units[units["family"] == family]
        per = unit_levels(units, factor)
    if split is not None:
        per = per[per["split"] == split]
    per = per.dropna(subset=[metric])
    return pd.DataFrame({"method": per["method"].astype(str).to_numpy(), "level": per["level"].to_numpy(),
                         "scm": (per["family"].astype(str) + "/" + per["scm_id"].astype(str)).to_numpy(),
                         "value": per[metric].astype(float).to_numpy()})


def _bootstrap(per: pd.DataFrame, table: pd.DataFrame, n_boot: int, seed: int,
               alpha: float) -> "tuple[pd.DataFrame, pd.DataFrame]":
    """Percentile interval of each cell's interaction over ``n_boot`` SCM resamples (NaN: no interval)."""
    nan = pd.DataFrame(np.nan, index=table.index, columns=table.columns)
    scms = pd.unique(per["scm"])
    if n_boot == 0 or len(scms) < 2 or not len(per):
        return nan, nan.copy()
    rows = pd.Index(table.index).get_indexer(per["method"])
    cols = pd.Index(table.columns).get_indexer(per["level"])
    keep = (rows >= 0) & (cols >= 0)
    cell = rows[keep] * table.shape[1] + cols[keep]
    scm = pd.Index(scms).get_indexer(per["scm"][keep])
    value = per["value"].to_numpy()[keep]
    size = table.shape[0] * table.shape[1]
    rng = np.random.default_rng(seed)
    draws = np.full((n_boot, *table.shape), np.nan)
    for b in range(n_boot):
        w = np.bincount(rng.integers(0, len(scms), len(scms)), minlength=len(scms)).astype(float)[scm]
        den = np.bincount(cell, weights=w, minlength=size)
        num = np.bincount(cell, weights=w * value, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(den > 0, num / den, np.nan).reshape(table.shape)
        draws[b] = double_centre(pd.DataFrame(f), max_iter=200).to_numpy()
    with np.errstate(invalid="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a cell absent from every draw: NaN
            lo = np.nanpercentile(draws, 100 * alpha / 2, axis=0)
            hi = np.nanpercentile(draws, 100 * (1 - alpha / 2), axis=0)
    return (pd.DataFrame(lo, index=table.index, columns=table.columns),
            pd.DataFrame(hi, index=table.index, columns=table.columns))
