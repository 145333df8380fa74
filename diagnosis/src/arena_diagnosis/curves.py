"""Curves and sensitivity tables (paper §5.2, §5.3, §6.1, §6.3).

* :func:`d_curve` — F1 against the number of variables d (Fig. 11);
* :func:`n_curve` — F1 against the sample size n, sample-size suite (Fig. 6a);
* :func:`protocol_table` — F1 / SHD per intervention protocol, ΔF1 against
  default and the F1 SD across protocols (Table 3, Fig. 6b);
* :func:`domain_shift` — self-centred F1 per semantic / formula domain (Fig. 17);
* :func:`real_data` — F1 / SHD per real table, with the method's synthetic average (Fig. 5);
* :func:`pair_track` — weighted orientation accuracy of a cause–effect pairs family (Mooij et al. 2016).

Every score is a mean over units of replicate means (:func:`unit_scores`).
"""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence

import numpy as np
import pandas as pd

from .slices import _loads, _sd_agg, check_runs, main_mask, unit_scores

__all__ = ["D_CURVE_COLUMNS", "N_CURVE_COLUMNS", "PROTOCOL_COLUMNS", "DOMAIN_COLUMNS", "REAL_COLUMNS",
           "PAIR_COLUMNS", "PAIR_METRIC", "d_curve", "n_curve", "protocol_table", "domain_shift", "real_data",
           "pair_track", "pair_families", "real_missing", "MISSING_COLUMNS"]

D_CURVE_COLUMNS = ["method", "d", "score", "sd", "units"]
N_CURVE_COLUMNS = ["method", "n", "score", "sd", "units"]
PROTOCOL_COLUMNS = ["method", "protocol", "f1", "shd", "delta_f1", "f1_sd"]
DOMAIN_COLUMNS = ["method", "domain", "f1", "shift", "domain_sd"]
REAL_COLUMNS = ["method", "split", "family", "table", "f1", "shd", "synthetic_f1", "synthetic_shd"]
PAIR_COLUMNS = ["method", "split", "family", "pairs", "accuracy", "accuracy_unweighted", "undecided"]
MISSING_COLUMNS = ["method", "split", "family", "table", "status"]
#: the per-run metric of a cause–effect pairs track (registered by arena-family-real; None off the track)
PAIR_METRIC = "orientation_accuracy"


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


def pair_families(runs: pd.DataFrame, families: Iterable[str]) -> list:
    """The families of ``families`` that are cause–effect pair tracks: every ``ok`` run has :data:`PAIR_METRIC`.

    The metric is defined only on a d = 2 truth with one edge, so a family all of whose runs carry it is
    a bivariate orientation track (e.g. ``tuebingen``); it is scored by :func:`pair_track`, not per table.
    """
    if PAIR_METRIC not in runs.columns:
        return []
    ok = runs[runs["status"].astype(str) == "ok"]
    out = []
    for fam in families:
        vals = ok.loc[ok["family"].astype(str) == str(fam), PAIR_METRIC]
        if len(vals) and vals.notna().all():
            out.append(str(fam))
    return out


def real_data(runs: pd.DataFrame, family: str = "real", families: Optional[Sequence[str]] = None,
              synthetic: Sequence[str] = ("synthetic",)) -> pd.DataFrame:
    """F1 / SHD per (method, split, real table) next to the method's synthetic average (Fig. 5, App. C.4).

    A table is one instance (``scm_id``) of a real family; its score is the replicate mean (a fixed
    table has one replicate; a bnlearn network sampled through its fitted parameters has several). The
    reference is the method's mean F1 / SHD over the units of the ``synthetic`` families on the same
    split (§5.2: "the synthetic ranking does not carry over"); NaN where the store has none.
    Cause–effect pair tracks (:func:`pair_families`) are left to :func:`pair_track`.

    Args:
        runs: runs table.
        family: the real family when ``families`` is not given (the old single-family form).
        families: the real families (the report passes every installed family of kind ``"real"``).
        synthetic: the families whose mean is the reference.

    Returns:
        Columns :data:`REAL_COLUMNS`, sorted by method, split, family, table.

    Raises:
        ValueError: missing columns.
    """
    check_runs(runs, ["f1", "shd"])
    fams = [str(f) for f in (families if families is not None else (family,))]
    fams = [f for f in fams if f not in set(pair_families(runs, fams))]
    units = unit_scores(runs, ["f1", "shd"])
    real = units[units["family"].astype(str).isin(fams)]
    if not len(real):
        return pd.DataFrame(columns=REAL_COLUMNS)
    syn = units[units["family"].astype(str).isin([str(f) for f in synthetic])]
    ref = (syn.groupby(["method", "split"])[["f1", "shd"]].mean()
           .rename(columns={"f1": "synthetic_f1", "shd": "synthetic_shd"}))
    out = real.rename(columns={"scm_id": "table"}).merge(ref, how="left", left_on=["method", "split"],
                                                         right_index=True)
    out = out.sort_values(["method", "split", "family", "table"], kind="stable")
    return out[REAL_COLUMNS].reset_index(drop=True)


def real_missing(runs: pd.DataFrame, families: Iterable[str]) -> pd.DataFrame:
    """The (method, split, real table) cells with runs but no score: every run failed (not ``unsupported``).

    What a strip cannot show as a point (a timeout on a large network), so it shows the status instead.

    Returns:
        Columns :data:`MISSING_COLUMNS`; ``status`` the failure statuses, comma-joined and sorted
        (``"timeout"``), sorted by method, split, family, table.

    Raises:
        ValueError: missing columns.
    """
    check_runs(runs, [])
    rows = runs[main_mask(runs, status_ok=False) & runs["family"].astype(str).isin([str(f) for f in families])]
    if not len(rows):
        return pd.DataFrame(columns=MISSING_COLUMNS)
    out = []
    for (method, split, fam, sid), g in rows.groupby(["method", "split", "family", "scm_id"], sort=True):
        statuses = set(g["status"].astype(str))
        if "ok" in statuses or statuses <= {"unsupported"}:
            continue
        out.append({"method": method, "split": split, "family": fam, "table": sid,
                    "status": ",".join(sorted(statuses - {"unsupported"}))})
    return pd.DataFrame(out, columns=MISSING_COLUMNS)


def pair_track(runs: pd.DataFrame, families: Iterable[str]) -> pd.DataFrame:
    """Weighted orientation accuracy per (method, split, pairs family): Σ wᵢ·sᵢ / Σ wᵢ over pairs.

    sᵢ is the pair's :data:`PAIR_METRIC` (replicate mean: 1 right, 0 reversed, 0.5 no decision) and wᵢ
    its ``weight`` factor (1 when the family records none; cdt's copy of CEP ships no weights) —
    Mooij et al. (2016)'s weighted accuracy. ``undecided`` counts the pairs scored exactly 0.5.

    Returns:
        Columns :data:`PAIR_COLUMNS` (``pairs`` scored, ``accuracy`` weighted, ``accuracy_unweighted``),
        sorted by family, split, method; empty when no family is a pair track.

    Raises:
        ValueError: missing columns, or a negative or non-finite ``weight`` factor (named with its pair).
    """
    fams = pair_families(runs, families)
    if not fams:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    units = unit_scores(runs, [PAIR_METRIC])
    units = units[units["family"].astype(str).isin(fams)].dropna(subset=[PAIR_METRIC])
    if not len(units):
        return pd.DataFrame(columns=PAIR_COLUMNS)
    weight = (units["factors"].map(lambda t: _loads(t).get("weight", 1.0)) if "factors" in units.columns
              else pd.Series(1.0, index=units.index))
    weight = pd.to_numeric(weight, errors="coerce")
    bad = units.loc[~np.isfinite(weight) | (weight < 0), "scm_id"]
    if len(bad):
        raise ValueError(f"pair_track: pair {bad.iloc[0]!r} has a weight factor that is not a finite number >= 0")
    units = units.assign(_w=weight.astype(float), _ws=weight.astype(float) * units[PAIR_METRIC])
    rows = []
    for (fam, split, method), g in units.groupby(["family", "split", "method"], sort=True):
        total = float(g["_w"].sum())
        rows.append({"method": method, "split": split, "family": fam, "pairs": int(len(g)),
                     "accuracy": float(g["_ws"].sum()) / total if total > 0 else float("nan"),
                     "accuracy_unweighted": float(g[PAIR_METRIC].mean()),
                     "undecided": int((g[PAIR_METRIC] == 0.5).sum())})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)
