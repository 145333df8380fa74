"""Accuracy–cost frontier (paper §5.5, Fig. 9; Tables 2, 4, 5).

x = comparable per-graph seconds: a method's T_graph (the slope of
T(k) = T_fixed + k·T_graph, :func:`causalarena.report.runtime_table`) averaged
over the d it was fitted at, where it has one; otherwise its mean end-to-end
``wall_seconds`` over its ok main-benchmark runs (Table 5's two kinds of
entry). y = the leaderboard's Avg F1 (Table 2's Avg column).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd

from .slices import check_runs, main_rows

__all__ = ["FRONTIER_COLUMNS", "average_f1", "pareto_mask", "frontier"]

FRONTIER_COLUMNS = ["method", "f1", "seconds", "time_source", "pareto"]


def average_f1(runs: pd.DataFrame) -> pd.Series:
    """The leaderboard's Avg F1 per method on the main benchmark (Table 2's Avg column).

    :func:`causalarena.report.leaderboard_numeric` on the main-benchmark rows
    (every status, so a cell with only failures drops out exactly as in the
    printed leaderboard): the unweighted mean of the method's available
    family × split cell means.

    Returns:
        Series indexed by method label (NaN when no cell has an F1).
    """
    from causalarena.report import AVG, leaderboard_numeric

    rows = main_rows(runs, status_ok=False)
    if not len(rows):
        return pd.Series(dtype=float, name="f1")
    if "f1" not in rows.columns:
        rows = rows.assign(f1=math.nan)
    board = leaderboard_numeric(rows, metrics=("f1",))
    avg = board[board["column"] == AVG].set_index("method")["f1_mean"]
    return avg.rename("f1").astype(float)


def pareto_mask(f1: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Pareto set for higher-is-better ``f1`` and lower-is-better ``seconds``.

    A point is on the frontier unless another point is at least as good on
    both and strictly better on one (weak dominance). Identical points
    therefore stay on the frontier together; a point with NaN in either
    coordinate is never on it and dominates nothing.

    Returns:
        Bool array, one entry per point.
    """
    f1 = np.asarray(f1, dtype=float)
    seconds = np.asarray(seconds, dtype=float)
    ok = ~(np.isnan(f1) | np.isnan(seconds))
    fa, sa = f1[:, None], seconds[:, None]
    fb, sb = f1[None, :], seconds[None, :]
    dominated_by = (fb >= fa) & (sb <= sa) & ((fb > fa) | (sb < sa)) & ok[None, :]
    return ok & ~dominated_by.any(axis=1)


#: fits below this R^2 (and negative T_graph) are not used as per-graph times (the core flags them too)
MIN_R2 = 0.9


def frontier(runs: pd.DataFrame, runtime: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """Avg F1 against per-graph seconds per method, with the Pareto set (Fig. 9).

    Args:
        runs: runs table.
        runtime: :func:`causalarena.report.runtime_table` output (columns
            ``method, d, t_graph_s``, ``r2``) or None. A method with at least one
            sound fit (``t_graph_s > 0`` and ``r2`` ≥ :data:`MIN_R2`) gets
            ``seconds`` = the unweighted mean over those d (Table 5 †) and ``time_source = "T_graph"``;
            otherwise the mean ``wall_seconds`` of its ok main-benchmark runs,
            ``"end_to_end"``. Runtime rows are matched on the method label,
            else on the method's base name (the label before `` [``).

    Returns:
        Columns ``method, f1, seconds, time_source, pareto`` (pareto as in
        :func:`pareto_mask`), sorted by seconds. Empty with those columns
        when there are no runs.

    Raises:
        ValueError: missing columns; ``runtime`` without ``method`` / ``t_graph_s``.
    """
    check_runs(runs)
    f1 = average_f1(runs)
    if not len(f1):
        return pd.DataFrame(columns=FRONTIER_COLUMNS)
    ok = main_rows(runs)
    wall = (ok.groupby("method")["wall_seconds"].mean() if "wall_seconds" in ok.columns and len(ok)
            else pd.Series(dtype=float))
    t_graph = pd.Series(dtype=float)
    if runtime is not None and len(runtime):
        need = [c for c in ("method", "t_graph_s") if c not in runtime.columns]
        if need:
            raise ValueError(f"runtime is missing column(s) {need}; pass causalarena.report.runtime_table output")
        tg = runtime["t_graph_s"].astype(float)
        # only sound fits: a negative per-graph time or a poor fit (R^2 < 0.9, e.g. d mixing graphs of
        # different families) says nothing about per-graph cost; the method falls back to end-to-end time
        sound = np.isfinite(tg) & (tg > 0)
        if "r2" in runtime.columns:
            sound &= runtime["r2"].astype(float).fillna(0.0) >= MIN_R2
        fitted = runtime[sound]
        t_graph = fitted.groupby("method")["t_graph_s"].mean()
    rows = []
    for method, score in f1.items():
        base = str(method).split(" [", 1)[0]
        t = t_graph.get(method, t_graph.get(base, math.nan))
        if t == t:
            rows.append((method, float(score), float(t), "T_graph"))
        else:
            rows.append((method, float(score), float(wall.get(method, math.nan)), "end_to_end"))
    out = pd.DataFrame(rows, columns=FRONTIER_COLUMNS[:-1])
    out["pareto"] = pareto_mask(out["f1"].to_numpy(), out["seconds"].to_numpy())
    out = out.sort_values(["seconds", "method"], kind="stable", na_position="last")
    return out.reset_index(drop=True)
