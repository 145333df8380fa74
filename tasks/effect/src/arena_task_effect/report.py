"""The effect task's report section: the effect table (sPEHE², CausalIDView App. E.1) per method × view.

Written by :meth:`arena_task_effect.task.EffectTask.write_report` (``effect.csv`` and a section of
``leaderboard.md``) and printed by ``arena run`` / ``arena report`` through the core's report
(:func:`causalarena.report.print_report`), which calls each task present in the runs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pandas as pd

from causalarena.records import FAILURE_STATUSES, Status
from causalarena.report import (
    MISSING,
    WARN,
    failure_table,
    prepare_runs,
    print_failures,
    print_method_table,
    task_runs,
    to_markdown,
)

#: the effect table's status-count columns, named by the statuses they count
OK, UNSUPPORTED = Status.OK.value, Status.UNSUPPORTED.value
#: the metrics of the effect table (:mod:`arena_task_effect.effect`), shown when present
EFFECT_COLUMNS = ("spehe2", "mean_effect_error", "centred_cate_error", "bound_rmse", "containment")


def _original_variant(runs: pd.DataFrame) -> pd.Series:
    """True for runs on an unperturbed instance: a family marks the perturbed copies it offers for
    paired analyses (CausalIDView's Stay / Move worlds) with the factor ``variant`` ≠ ``original``."""
    def variant(text: Any) -> str:
        try:
            return str(json.loads(text).get("variant", "original")) if isinstance(text, str) else "original"
        except ValueError:
            return "original"

    if "factors" not in runs.columns:
        return pd.Series(True, index=runs.index)
    return runs["factors"].map(variant) == "original"


def effect_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The effect-estimation table: one row per method × family × view (split).

    Over the original instances (not a Stay / Move copy, see
    :func:`_original_variant`) at the default context size (no ``--n``), one
    row per dataset for a family whose instances carry the factor ``dataset``
    (``family`` is then ``"effect_real:ihdp"``):
    ``instances`` with an ``ok`` run, the mean and sample SD (ddof 1, NaN for one instance) over instances of
    ``spehe2`` (each instance's replicate mean first, as the leaderboard does),
    the means of its two parts ``mean_effect_error`` + ``centred_cate_error``
    (they sum to ``spehe2_mean``), ``bound_rmse`` and ``containment`` for bounds
    views, and the status counts ``ok``, ``unsupported`` and ``failures``.

    Raises:
        ValueError: missing columns or unknown statuses (as :func:`failure_table`).
    """
    runs = task_runs(runs, "effect")
    # the main table: original instances at the default context size; filtered before _prepare so a
    # context-length (--n) run of the same cell never stands in for the default one
    runs = runs[_original_variant(runs)]
    if "n_override" in runs.columns:
        runs = runs[runs["n_override"].isna()]
    runs = prepare_runs(runs, [])
    if "factors" in runs.columns:  # a family of several datasets (effect_real): one row per dataset, never pooled
        dataset = runs["factors"].map(lambda t: json.loads(t).get("dataset") if isinstance(t, str) else None)
        runs = runs.assign(family=[f if d is None else f"{f}:{d}" for f, d in zip(runs["family"], dataset)])
    cols = ["method", "family", "split", "instances", "spehe2_mean", "spehe2_sd", "mean_effect_error_mean",
            "centred_cate_error_mean", "bound_rmse_mean", "containment_mean", OK, UNSUPPORTED, "failures"]
    if not len(runs):
        return pd.DataFrame(columns=cols)
    status = runs["status"].astype(str)
    rows = []
    for (method, family, split), g in runs.groupby(["method", "family", "split"], sort=True):
        st = status.loc[g.index]
        ok = g[st == Status.OK.value]
        per = ok.groupby("scm_id")[[m for m in EFFECT_COLUMNS if m in ok.columns]].mean()
        row: Dict[str, Any] = {"method": method, "family": family, "split": split, "instances": int(len(per)),
                               OK: int((st == OK).sum()), UNSUPPORTED: int((st == UNSUPPORTED).sum()),
                               "failures": int(st.isin(FAILURE_STATUSES).sum())}
        for m in EFFECT_COLUMNS:
            values = per[m].dropna() if m in per.columns else pd.Series(dtype=float)
            row[f"{m}_mean"] = float(values.mean()) if len(values) else math.nan
            if m == "spehe2":  # the sample SD over instances, as the discovery leaderboard's cells (NaN for one)
                row["spehe2_sd"] = float(values.std(ddof=1)) if len(values) > 1 else math.nan
        rows.append(row)
    return pd.DataFrame(rows)[cols]


def _effect_cell(row: pd.Series) -> str:
    if row[OK] == 0:
        return MISSING + (f" {WARN}{row['failures']}" if row["failures"] else "")
    if row["spehe2_mean"] == row["spehe2_mean"]:
        sd = MISSING if row["spehe2_sd"] != row["spehe2_sd"] else f"{row['spehe2_sd']:.3f}"
        text = f"{row['spehe2_mean']:.3f} ({sd})"
    else:
        text = f"{row['bound_rmse_mean']:.3f}" if row["bound_rmse_mean"] == row["bound_rmse_mean"] else MISSING
    return text + (f" {WARN}{row['failures']}" if row["failures"] else "")


def effect_leaderboard(runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`effect_table` as strings, methods × ``family/view``: ``"sPEHE² mean (sd)"`` for a
    point view, the bound-endpoint RMSE for a bounds view, ``–`` unsupported, ``⚠k`` failures."""
    table = effect_table(runs)
    if not len(table):
        return pd.DataFrame()
    table["column"] = table["family"] + "/" + table["split"]
    out = table.assign(text=table.apply(_effect_cell, axis=1)).pivot(index="method", columns="column",
                                                                       values="text")
    out.columns.name = None
    return out.fillna(MISSING)


def write_effect_report(runs: pd.DataFrame, outdir: Any) -> Tuple[Dict[str, Path], List[str]]:
    """``effect.csv`` (:func:`effect_table`) in ``outdir`` and the Markdown lines of the effect section.

    Returns:
        ``({"effect.csv": path}, lines)``; ``({}, [])`` without effect runs.
    """
    effect = task_runs(runs, "effect")
    if not len(effect):
        return {}, []
    path = Path(outdir) / "effect.csv"
    effect_table(effect).to_csv(path, index=False)
    lines = ["# Effect estimation (sPEHE², CausalIDView App. E.1)", "",
             "Cells: mean (sd) over instances of sPEHE² at the query units (bounds views: the "
             "bound-endpoint RMSE), on the original worlds at the default context size; – = unsupported "
             "view or no ok run; ⚠k = k failed runs. effect.csv has the decomposition into mean-effect "
             "and centred-CATE error. The status counts below cover every effect run, Stay / Move "
             "variants and `--n` runs included.", "",
             to_markdown(effect_leaderboard(effect)), "", "## Effect run status counts", "",
             to_markdown(failure_table(effect), index=False)]
    return {"effect.csv": path}, lines


def print_effect(effect: pd.DataFrame, console: Any) -> None:
    """The effect table (:func:`effect_leaderboard`) and its failures as rich tables."""
    table = effect_leaderboard(effect)
    if len(table):
        print_method_table(table, console, "Effect estimation: sPEHE² mean (sd) over worlds at the queries "
                                            "(bounds views: endpoint RMSE); – unsupported")
    print_failures(effect, console, "Failed effect runs (status counts)")
