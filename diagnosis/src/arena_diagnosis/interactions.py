"""Double-centred interaction scores (paper §6.1, Eq. 7; Fig. 10, 12, 13).

I_{m,c} = F_{m,c} − F̄_{m,·} − F̄_{·,c} + F̄_{·,·}: a method's slice score with
its own overall strength and the category's overall difficulty removed.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import numpy as np
import pandas as pd

from .slices import EDGE_FACTORS, _sort_levels, edge_slice_scores, slice_scores

__all__ = ["INTERACTION_COLUMNS", "double_centre", "interaction_scores"]

INTERACTION_COLUMNS = ["factor", "level", "method", "score", "interaction"]


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
                       family: Optional[str] = None) -> pd.DataFrame:
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

    Returns:
        Columns ``factor, level, method, score, interaction`` (one row per
        available method × category cell), sorted by level then method.
        Empty with those columns when nothing qualifies (edge-level:
        ``attrs["reason"]`` says why).

    Raises:
        ValueError: unknown factor (listing the available ones); an
            edge-level metric other than precision / recall / f1.
    """
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
    long["units"] = 0  # _sort_levels wants the column
    return _sort_levels(long, extra=("method",))[INTERACTION_COLUMNS]
