"""Curves and sensitivity tables (paper §5.2, §5.3, §6.1, §6.3).

* :func:`d_curve` — F1 against the number of variables d (Fig. 11);
* :func:`n_curve` — F1 against the sample size n, sample-size suite (Fig. 6a);
* :func:`protocol_table` — F1 / SHD per intervention protocol, ΔF1 against
  default and the F1 SD across protocols (Table 3, Fig. 6b);
* :func:`domain_shift` — self-centred F1 per semantic / formula domain (Fig. 17);
* :func:`real_data` — F1 / SHD per real table (Fig. 5 right).

Every score is a mean over units of replicate means (:func:`unit_scores`).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd

from .slices import _loads, _sd_agg, check_runs, unit_scores

__all__ = ["D_CURVE_COLUMNS", "N_CURVE_COLUMNS", "PROTOCOL_COLUMNS", "DOMAIN_COLUMNS", "REAL_COLUMNS",
           "d_curve", "n_curve", "protocol_table", "domain_shift", "real_data"]

D_CURVE_COLUMNS = ["method", "d", "score", "sd", "units"]
N_CURVE_COLUMNS = ["method", "n", "score", "sd", "units"]
PROTOCOL_COLUMNS = ["method", "protocol", "f1", "shd", "delta_f1", "f1_sd"]
DOMAIN_COLUMNS = ["method", "domain", "f1", "shift", "domain_sd"]
REAL_COLUMNS = ["method", "split", "table", "f1", "shd"]


def _curve(units: pd.DataFrame, x: str, metric: str, columns: list) -> pd.DataFrame:
    units = units.dropna(subset=[x, metric])
    if not len(units):
        return pd.DataFrame(columns=columns)
    units = units.assign(**{x: units[x].astype("int64")})
    g = units.groupby(["method", x], sort=True)[metric]
    out = g.agg(score="mean", sd=_sd_agg, units="count").reset_index()
    out["units"] = out["units"].astype("int64")
    return out[columns]


def d_curve(runs: pd.DataFrame, metric: str = "f1", split: str = "obs",
            family: Optional[str] = "synthetic") -> pd.DataFrame:
    """Mean ``metric`` per (method, d) on the main benchmark (Fig. 11).

    Args:
        runs: runs table (needs a ``d`` column).
        metric: metric column.
        split: split (Fig. 11: obs-only).
        family: the family whose d grid is plotted (Fig. 11: synthetic; None: every family pooled).

    Returns:
        Columns ``method, d, score, sd, units`` (sd over units, ddof 1), sorted by method, d.

    Raises:
        ValueError: missing columns (``d`` among them).
    """
    check_runs(runs, [metric])
    if "d" not in runs.columns:
        raise ValueError(f"runs has no 'd' column; has {list(runs.columns)}")
    units = unit_scores(runs, [metric], by=("d",))
    units = units[units["split"] == split]
    if family is not None:
        units = units[units["family"] == family]
    return _curve(units, "d", metric, D_CURVE_COLUMNS)


def n_curve(runs: pd.DataFrame, metric: str = "f1", suite: Optional[str] = "sample-size",
            split: str = "obs") -> pd.DataFrame:
    """Mean ``metric`` per (method, n) over the sample-size suite's runs (Fig. 6a).

    Rows: ``ok`` runs of ``suite`` (default protocol, standardised); x is the
    dataset's row count ``n`` (``n_override`` where ``n`` is missing). With
    ``suite=None`` every main-benchmark-like row with any ``n_override``
    (``arena run --n``) or none is used.

    Returns:
        Columns ``method, n, score, sd, units``, sorted by method, n.

    Raises:
        ValueError: missing columns (``n`` or ``n_override`` needed).
    """
    check_runs(runs, [metric])
    if "n" not in runs.columns and "n_override" not in runs.columns:
        raise ValueError(f"runs has neither 'n' nor 'n_override'; has {list(runs.columns)}")
    rows = runs
    if suite is not None:
        if "suite" not in runs.columns:
            return pd.DataFrame(columns=N_CURVE_COLUMNS)
        rows = runs[runs["suite"].astype(object).where(runs["suite"].notna(), "") == suite]
    rows = rows.assign(_n=rows["n"] if "n" in rows.columns else rows["n_override"])
    if "n_override" in rows.columns and "n" in rows.columns:
        rows["_n"] = rows["_n"].where(rows["_n"].notna(), rows["n_override"])
    units = unit_scores(rows, [metric], by=("_n",), relax=("suite", "n_override"))
    units = units[units["split"] == split].drop(columns=["n"], errors="ignore").rename(columns={"_n": "n"})
    return _curve(units, "n", metric, N_CURVE_COLUMNS)


def protocol_table(runs: pd.DataFrame, suite: Optional[str] = "intervention-protocols",
                   split: str = "obs_int") -> pd.DataFrame:
    """F1 / SHD per (method, intervention protocol) (Table 3, Fig. 6b).

    Rows: ``ok`` runs of ``suite`` on ``split`` (standardised, default n);
    with ``suite=None`` every such row outside any suite. Cells are means over
    units of replicate means. ``delta_f1`` = the protocol's F1 minus the
    method's ``default`` F1 (NaN without a default cell); ``f1_sd`` = the
    population SD (ddof 0) of the method's protocol F1s, repeated on each of
    its rows — the convention that reproduces Table 3 (CDIS: F1 0.397, 0.396,
    0.397, 0.382, 0.365, 0.355 → 0.017).

    Returns:
        Columns ``method, protocol, f1, shd, delta_f1, f1_sd``; per method
        ``default`` first, then the other protocols alphabetically.

    Raises:
        ValueError: missing columns (``protocol`` among them).
    """
    check_runs(runs, ["f1", "shd"])
    if "protocol" not in runs.columns:
        raise ValueError(f"runs has no 'protocol' column; has {list(runs.columns)}")
    if suite is not None:
        if "suite" not in runs.columns:
            return pd.DataFrame(columns=PROTOCOL_COLUMNS)
        rows = runs[runs["suite"].astype(object).where(runs["suite"].notna(), "") == suite]
    else:
        rows = runs
    rows = rows.assign(protocol=rows["protocol"].astype(object).where(rows["protocol"].notna(), "default"))
    units = unit_scores(rows, ["f1", "shd"], by=("protocol",), relax=("protocol", "suite"))
    units = units[units["split"] == split]
    if not len(units):
        return pd.DataFrame(columns=PROTOCOL_COLUMNS)
    out = units.groupby(["method", "protocol"], sort=False)[["f1", "shd"]].mean().reset_index()
    default = out[out["protocol"] == "default"].set_index("method")["f1"]
    out["delta_f1"] = out["f1"] - out["method"].map(default)
    out["f1_sd"] = out.groupby("method")["f1"].transform(lambda s: float(np.std(s.dropna(), ddof=0))
                                                        if s.notna().any() else math.nan)
    out["_o"] = (out["protocol"] != "default").astype(int)
    out = out.sort_values(["method", "_o", "protocol"], kind="stable").drop(columns="_o")
    return out[PROTOCOL_COLUMNS].reset_index(drop=True)


def domain_shift(runs: pd.DataFrame, family: str, split: str = "obs", key: str = "domain") -> pd.DataFrame:
    """Self-centred F1 per domain of a semantic or formula family (§6.3, Fig. 17).

    ``f1`` = the method's mean F1 over the family's units in that domain;
    ``shift`` = ``f1`` minus the method's own family average (the mean over
    all its units of the family on ``split``, the Table 2 cell);
    ``domain_sd`` = the population SD (ddof 0) of the method's shifts across
    its domains (Fig. 17 side bars; ddof 0 as for Table 3's F1 SD), repeated
    per row.

    Args:
        runs: runs table.
        family: ``"semantic"``, ``"formula"`` or any family whose factors carry ``key``.
        split: Fig. 17: obs-only.
        key: the factors key of the domain (the cards' ``domain``).

    Returns:
        Columns ``method, domain, f1, shift, domain_sd``, sorted by method, domain.

    Raises:
        ValueError: missing columns.
    """
    check_runs(runs, ["f1"])
    units = unit_scores(runs, ["f1"])
    units = units[(units["family"] == family) & (units["split"] == split)].dropna(subset=["f1"])
    if not len(units) or "factors" not in units.columns:
        return pd.DataFrame(columns=DOMAIN_COLUMNS)
    units = units.assign(domain=units["factors"].map(lambda t: _loads(t).get(key)))
    own = units.groupby("method")["f1"].mean()
    units = units.dropna(subset=["domain"]).assign(domain=lambda u: u["domain"].astype(str))
    if not len(units):
        return pd.DataFrame(columns=DOMAIN_COLUMNS)
    out = units.groupby(["method", "domain"], sort=True)["f1"].mean().reset_index()
    out["shift"] = out["f1"] - out["method"].map(own)
    out["domain_sd"] = out.groupby("method")["shift"].transform(lambda s: float(np.std(s, ddof=0)))
    return out[DOMAIN_COLUMNS].reset_index(drop=True)


def real_data(runs: pd.DataFrame, family: str = "real") -> pd.DataFrame:
    """F1 / SHD per (method, split, real table) (Fig. 5 right; a table is the real family's scm_id).

    Returns:
        Columns ``method, split, table, f1, shd`` (replicate means), sorted by method, split, table.

    Raises:
        ValueError: missing columns.
    """
    check_runs(runs, ["f1", "shd"])
    units = unit_scores(runs, ["f1", "shd"])
    units = units[units["family"] == family]
    if not len(units):
        return pd.DataFrame(columns=REAL_COLUMNS)
    out = units.rename(columns={"scm_id": "table"}).sort_values(["method", "split", "table"], kind="stable")
    return out[REAL_COLUMNS].reset_index(drop=True)
