"""Leaderboard and failure reports in the layout of the paper's Table 2 (§5.1).

Input is a runs table (one row per family instance × split × replicate ×
method), a :class:`pandas.DataFrame` with the columns :data:`RUN_COLUMNS` plus
one float column per metric (NaN when missing).

Aggregation (paper §5.1: "for each SCM ... we first average F1 and SHD
separately over repeated runs, yielding one score per metric per unit"; Table
2 caption):

1. keep runs with ``status == "ok"``; average each metric over replicates per
   (method, family, split, scm_id) — one score per SCM, NaN values skipped;
2. a cell (method × family × split) is the mean and the sample standard
   deviation (ddof = 1; undefined with one SCM) of those SCM scores;
3. a cell is "–" when it has no runs or every run is ``unsupported``
   (App. B.1: a method without intervention support is *missing* on obs+int,
   not failed);
4. every other non-ok status (failed, timeout, oom, invalid_input,
   invalid_output, env_error: :data:`FAILURE_STATUSES`, from
   :mod:`causalarena.records`) is a failure: counted per cell and shown as ``⚠k``
   together with ``(ok/total ok)``, the means being over successes only
   (case I10);
5. "Avg" carries the method's total failure count (a cell where every run
   failed drops out of the mean, so its failures must stay visible there);
   its value is the unweighted mean of the method's available cell means, and
   its standard deviation is the mean of those cells' standard deviations —
   the convention that reproduces the paper's Table 2 (e.g. PC: F1 cells
   0.31, 0.33, 0.22 → 0.29; sds 0.12, 0.15, 0.16 → 0.14).

Load vs per-graph time (§5.5, Tables 4 and 5): :func:`runtime_table` fits
T(k) = T_fixed + k·T_graph to the workers' nested-k cumulative times.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from .records import DISCOVERY, FAILURE_STATUSES, STATUSES, Status

__all__ = [
    "RUN_COLUMNS",
    "STATUSES",
    "FAILURE_STATUSES",
    "leaderboard",
    "leaderboard_numeric",
    "config_labels",
    "failure_table",
    "to_markdown",
    "write_report",
    "ReportWarning",
    "print_report",
    "runtime_points",
    "runtime_table",
    "runtime_ranking",
    "print_runtime",
    "write_runtime",
]

RUN_COLUMNS = ("family", "scm_id", "split", "replicate", "method", "status",
               "wall_seconds", "fit_seconds", "error")
# STATUSES and FAILURE_STATUSES are causalarena.records' (re-exported: `arena run --retry` reads them here)

SPLIT_LABELS = {"obs": "obs", "obs_int": "obs+int"}
FAMILY_ORDER = ("synthetic", "semantic", "formula", "real")
MISSING = "–"
WARN = "⚠"
AVG = "Avg"

# number of decimals per metric (Table 2: F1 two, SHD one)
_DECIMALS = {"shd": 1, "sid": 1, "n_edges": 1, "wall_seconds": 1, "fit_seconds": 1}


def prepare_runs(runs: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Validate ``runs`` and return the copy the aggregations read.

    * A metric column may be absent only when no run succeeded (a grid where
      every run failed or is unsupported still gets its table, all "–");
      with successful runs an absent metric is an error (a typo).
    * When one method appears under several run configurations
      (raw vs standardised inputs, another protocol, other parameters), each configuration becomes its own row,
      labelled ``"pc [raw]"``, ``"pc [protocol=fixed]"`` … — results of different
      configurations are never pooled into one cell.
    * The same cell stored under two data fingerprints (its table or graph
      changed between runs) counts once: the latest ``finished_at`` stands.
    """
    _check_runs(runs, metrics)
    runs = runs.copy()
    for m in metrics:
        if m not in runs.columns:
            runs[m] = math.nan
    if len(runs):
        runs["method"] = config_labels(runs)
        if "finished_at" in runs.columns:
            # the same cell under the same configuration stored twice (its table or
            # graph changed in between): the latest result stands
            key = ["method", "family", "scm_id", "split", "replicate"]
            runs = (runs.sort_values("finished_at", kind="stable", na_position="first")
                    .drop_duplicates(key, keep="last").sort_index())
    return runs


#: run-configuration columns that separate leaderboard rows (``n`` is the
#: dataset's row count, which legitimately differs between families; ``scoring``
#: is the CPDAG scoring policy of CPDAG/PAG methods, issue 12)
CONFIG_COLUMNS = ("standardise", "protocol", "params", "n_override", "scoring")

#: the scoring policy of a CPDAG/PAG run stored before the ``scoring`` column existed
LEGACY_SCORING = "orientation=linear_extension, cpdag_repair=strict"


def _scoring_parts(runs: pd.DataFrame) -> pd.DataFrame:
    """The ``scoring`` column split into one column per policy (``orientation``, ``cpdag_repair``).

    ``"orientation=mec, cpdag_repair=undirect_cycles"`` gives two columns; a
    CPDAG/PAG run without a policy (stored before it existed) gets
    :data:`LEGACY_SCORING`; a DAG run has none (empty strings).
    """
    kinds = runs["output_kind"] if "output_kind" in runs.columns else pd.Series(None, index=runs.index)

    def parts(value: Any, kind: Any) -> Dict[str, str]:
        if not isinstance(value, str) or not value:
            value = LEGACY_SCORING if kind in ("cpdag", "pag") else ""
        return dict(p.split("=", 1) for p in value.split(", ") if "=" in p)

    # parsed once per distinct (scoring, kind) pair: a store holds a handful of them, not one per run
    pairs = list(zip(runs["scoring"], kinds))
    parsed = {pair: parts(*pair) for pair in dict.fromkeys(pairs)}
    keys = list(dict.fromkeys(k for r in parsed.values() for k in r))
    table = {pair: [r.get(k, "") for k in keys] for pair, r in parsed.items()}
    return pd.DataFrame([table[pair] for pair in pairs], index=runs.index, columns=keys, dtype=object)


def config_labels(runs: pd.DataFrame) -> pd.Series:
    """Method labels that separate run configurations (see :func:`_prepare`); one per row of ``runs``.

    The CPDAG scoring policy is labelled per part that differs between the
    runs of one method: ``"pc [orientation=linear_extension]"`` beside
    ``"pc [orientation=mec]"``, ``"ges [cpdag_repair=strict]"`` …
    """
    labels = runs["method"].astype(str).copy()
    cols = [c for c in CONFIG_COLUMNS if c in runs.columns]
    if not cols:
        return labels
    fmts = {"standardise": lambda v: "std" if v else "raw", "protocol": lambda v: f"protocol={v}",
            "params": lambda v: f"params={v}", "n_override": lambda v: f"n={int(v)}"}
    scoring = _scoring_parts(runs) if "scoring" in cols else None
    for _, group in runs.groupby("method", sort=False):
        varying = [c for c in cols if c != "scoring" and group[c].astype(str).nunique() > 1]
        texts = [group[c].map(lambda v, c=c: fmts[c](v) if v is not None and v == v
                              else ("n=default" if c == "n_override" else f"{c}=?")) for c in varying]
        if scoring is not None:
            part = scoring.loc[group.index]
            texts += [part[k].map(lambda v, k=k: f"{k}={v}" if v else f"{k}=none")
                      for k in part.columns if part[k].nunique() > 1]
        for text in texts:
            labels[group.index] = [f"{lab[:-1]}, {t}]" if lab.endswith("]") else f"{lab} [{t}]"
                                   for lab, t in zip(labels[group.index], text)]
    return labels


def _check_runs(runs: pd.DataFrame, metrics: Sequence[str]) -> None:
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}")
    needed = ("family", "scm_id", "split", "replicate", "method", "status")
    missing = [c for c in needed if c not in runs.columns]
    if missing:
        raise ValueError(f"runs is missing column(s) {missing}; has {list(runs.columns)}")
    missing_metrics = [m for m in metrics if m not in runs.columns]
    if missing_metrics and (runs["status"].astype(str) == Status.OK.value).any():
        raise ValueError(f"runs has no metric column(s) {missing_metrics}")
    unknown = sorted(set(runs["status"].astype(str)) - set(STATUSES))
    if unknown:
        rows = runs.index[runs["status"].astype(str).isin(unknown)].tolist()[:5]
        raise ValueError(f"runs has unknown status value(s) {unknown} (rows {rows}); "
                         f"expected one of {STATUSES}")


def _ordered(values: Iterable[Any], preferred: Sequence[str]) -> List[Any]:
    seen = list(dict.fromkeys(values))
    head = [v for v in preferred if v in seen]
    return head + sorted((v for v in seen if v not in preferred), key=str)


def _columns(runs: pd.DataFrame) -> List[Tuple[str, str]]:
    families = _ordered(runs["family"], FAMILY_ORDER)
    splits = _ordered(runs["split"], tuple(SPLIT_LABELS))
    present = set(zip(runs["family"], runs["split"]))
    return [(f, s) for f in families for s in splits if (f, s) in present]


def _label(family: str, split: str) -> str:
    return f"{family} / {SPLIT_LABELS.get(split, split)}"


def _cell_stats(cell: pd.DataFrame, metrics: Sequence[str]) -> Dict[str, Any]:
    status = cell["status"].astype(str)
    n_ok = int((status == Status.OK.value).sum())
    n_unsupported = int((status == Status.UNSUPPORTED.value).sum())
    n_failed = int(status.isin(FAILURE_STATUSES).sum())
    out: Dict[str, Any] = {"n_runs": int(len(cell)), "n_ok": n_ok, "n_failed": n_failed,
                           "n_unsupported": n_unsupported}
    ok = cell[status == Status.OK.value]
    per_scm = ok.groupby("scm_id", sort=True)[list(metrics)].mean() if n_ok else None
    out["n_scm"] = 0 if per_scm is None else int(len(per_scm))
    for m in metrics:
        col = per_scm[m].dropna() if per_scm is not None else pd.Series(dtype=float)
        out[f"{m}_mean"] = float(col.mean()) if len(col) else math.nan
        out[f"{m}_sd"] = float(col.std(ddof=1)) if len(col) > 1 else math.nan
    return out


def leaderboard_numeric(runs: pd.DataFrame, metrics: Sequence[str] = ("f1", "shd")) -> pd.DataFrame:
    """Numeric leaderboard: one row per (method, family, split) plus one "Avg" row per method.

    Args:
        runs: runs table (see module docstring).
        metrics: metric columns to aggregate.

    Returns:
        Tidy DataFrame with columns ``method, family, split, column, n_runs,
        n_ok, n_failed, n_unsupported, n_scm`` and ``<metric>_mean``,
        ``<metric>_sd`` for each metric (NaN when undefined). Avg rows have
        ``family = split = column = "Avg"``, counts summed over the method's
        cells, ``<metric>_mean`` = unweighted mean of available cell means and
        ``<metric>_sd`` = mean of the available cell sds (Table 2 caption).
        Every (method, column) pair present in ``runs`` gets a row, including
        cells without runs for that method (counts 0).

    Raises:
        ValueError: missing columns, unknown metric columns or unknown status
            values (named).
    """
    metrics = list(metrics)
    runs = prepare_runs(runs, metrics)
    methods = list(dict.fromkeys(runs["method"]))
    columns = _columns(runs)
    groups = {key: g for key, g in runs.groupby(["method", "family", "split"], sort=False)}
    rows = []
    for method in methods:
        cell_rows = []
        for family, split in columns:
            cell = groups.get((method, family, split), runs.iloc[0:0])
            row = {"method": method, "family": family, "split": split,
                   "column": _label(family, split)}
            row.update(_cell_stats(cell, metrics))
            cell_rows.append(row)
        avg: Dict[str, Any] = {"method": method, "family": AVG, "split": AVG, "column": AVG}
        for key in ("n_runs", "n_ok", "n_failed", "n_unsupported", "n_scm"):
            avg[key] = int(sum(r[key] for r in cell_rows))
        for m in metrics:
            means = [r[f"{m}_mean"] for r in cell_rows if not math.isnan(r[f"{m}_mean"])]
            sds = [r[f"{m}_sd"] for r in cell_rows if not math.isnan(r[f"{m}_sd"])]
            avg[f"{m}_mean"] = float(np.mean(means)) if means else math.nan
            avg[f"{m}_sd"] = float(np.mean(sds)) if sds else math.nan
        rows.extend(cell_rows)
        rows.append(avg)
    counts = ["n_runs", "n_ok", "n_failed", "n_unsupported", "n_scm"]
    stats = [f"{m}_{k}" for m in metrics for k in ("mean", "sd")]
    out = pd.DataFrame(rows, columns=["method", "family", "split", "column"] + counts + stats)
    for c in counts:
        out[c] = out[c].astype("int64")
    for c in stats:
        out[c] = out[c].astype("float64")
    return out


def _fmt(value: float, metric: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.{_DECIMALS.get(metric, 2)}f}"


def _cell_text(row: pd.Series, metrics: Sequence[str]) -> str:
    parts = [f"{_fmt(row[f'{m}_mean'], m)} ({_fmt(row[f'{m}_sd'], m)})" for m in metrics]
    has_score = any(not math.isnan(row[f"{m}_mean"]) for m in metrics)
    if row["n_failed"] == 0:
        if row["n_ok"] == 0 or not has_score:
            return MISSING  # no runs, or every run unsupported (Avg: no available cell)
        return " / ".join(parts)
    attempted = row["n_ok"] + row["n_failed"]
    counts = f"{WARN}{row['n_failed']} ({row['n_ok']}/{attempted} ok)"
    return (" / ".join(parts) + " " + counts) if has_score else f"{MISSING} {counts}"


def leaderboard(runs: pd.DataFrame, metrics: Sequence[str] = ("f1", "shd")) -> pd.DataFrame:
    """Leaderboard in the paper's Table 2 layout, as display strings.

    Rows are methods (in order of first appearance in ``runs``); columns are
    family × split (``"synthetic / obs"``, ``"synthetic / obs+int"``, …, in
    the order synthetic, semantic, formula, real, then others) plus ``"Avg"``.
    A cell reads ``"0.41 (0.08) / 12.3 (3.1)"`` — mean (sd) of each metric,
    joined by " / " — with ``" ⚠2 (13/15 ok)"`` appended when 2 runs failed
    (means are over the 13 successes), ``"–"`` when there are no runs or all
    are unsupported, and ``"– ⚠k (0/k ok)"`` when every attempt failed. An
    undefined sd (one SCM) is printed as "–". See the module docstring for
    the aggregation and :func:`leaderboard_numeric` for the numbers.

    Raises:
        ValueError: as :func:`leaderboard_numeric`.
    """
    numeric = leaderboard_numeric(runs, metrics)
    labels = list(dict.fromkeys(numeric["column"]))
    table = pd.DataFrame(index=pd.Index(list(dict.fromkeys(numeric["method"])), name="method"),
                         columns=labels, dtype=object)
    for _, row in numeric.iterrows():
        table.loc[row["method"], row["column"]] = _cell_text(row, metrics)
    return table


def failure_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Counts of every status per method × family × split.

    Returns:
        DataFrame with columns ``method, family, split`` and one int column
        per status in :data:`STATUSES` order (zeros included), plus ``total``
        and ``example_error``: the error text of one failed run of the group
        (``failed``, ``timeout``, ``oom``, ``invalid_*``; "" when none), so the
        file says why without opening ``runs.parquet``.

    Raises:
        ValueError: missing columns or unknown statuses.
    """
    runs = prepare_runs(runs, [])
    keys = ["method", "family", "split"]
    counts = (runs.assign(status=runs["status"].astype(str))
              .groupby(keys + ["status"], sort=False).size()
              .unstack("status", fill_value=0)
              .reindex(columns=list(STATUSES), fill_value=0))
    counts.columns.name = None
    counts = counts.astype("int64")
    counts["total"] = counts.sum(axis=1)
    out = counts.reset_index()
    failed = runs[runs["status"].astype(str).isin(FAILURE_STATUSES)]
    if "error" in failed.columns and len(failed):
        first = failed.groupby(keys, sort=False)["error"].first().rename("example_error").reset_index()
        out = out.merge(first, on=keys, how="left")
        out["example_error"] = out["example_error"].fillna("").astype(str).str.slice(0, 300)
    else:
        out["example_error"] = ""
    return out


#: a family whose mean varsortability is outside [LOW, HIGH] is flagged: sorting
#: by marginal variance alone (sortnregress) would find its causal order
#: (Reisach et al. 2021)
VARSORTABILITY_FLAG = (0.1, 0.9)
#: factor tags the written report also slices sortability by (when runs carry them)
SORTABILITY_SLICES = ("graph", "d", "difficulty_level", "root_dependency")


def sortability_table(runs: pd.DataFrame, slice_by: Optional[str] = None) -> pd.DataFrame:
    """Distribution of varsortability and R²-sortability per family × split (and slice).

    One value per dataset (cell ``family, scm_id, split, replicate``), read
    from the runs (the runner stores both for the raw table each method saw).

    Args:
        runs: runs table with ``varsortability`` / ``r2_sortability`` columns.
        slice_by: a factor tag (``"graph"``, ``"d"``, ``"difficulty"`` …) read
            from the ``factors`` JSON column; None → family × split only.

    Returns:
        One row per group: ``family, split, [slice], datasets``, mean, sd, 10th,
        50th and 90th percentile of varsortability, mean R²-sortability, and
        ``flag`` (``"varsortability > 0.9"`` / ``"< 0.1"`` or ``""``) on the
        family's mean (Reisach et al. 2021: above 0.9 sorting by variance
        finds the order; below 0.1 it is reversed).
    """
    cols = ["family", "split"] + ([slice_by] if slice_by else []) + [
        "datasets", "varsortability_mean", "varsortability_sd", "varsortability_p10", "varsortability_p50",
        "varsortability_p90", "r2_sortability_mean", "flag"]
    if runs is None or len(runs) == 0 or "varsortability" not in runs.columns:
        return pd.DataFrame(columns=cols)
    # one value per table: a suite's n and protocol make different tables of the same cell
    table_key = ["family", "scm_id", "split", "replicate"] + [c for c in ("protocol", "n") if c in runs.columns]
    data = runs.dropna(subset=["varsortability"]).drop_duplicates(table_key)
    if slice_by:
        import json as _json

        data = data.assign(**{slice_by: [(_json.loads(f) if isinstance(f, str) and f else {}).get(slice_by)
                                         for f in data.get("factors", pd.Series([None] * len(data), dtype=object))]})
        data = data.dropna(subset=[slice_by])
    keys = ["family", "split"] + ([slice_by] if slice_by else [])
    out = []
    low, high = VARSORTABILITY_FLAG
    for key, g in data.groupby(keys, sort=True):
        v = g["varsortability"].astype(float)
        mean = float(v.mean())
        flag = f"varsortability > {high}" if mean > high else (f"varsortability < {low}" if mean < low else "")
        r2 = g["r2_sortability"].astype(float) if "r2_sortability" in g else pd.Series(dtype=float)
        out.append([*((key,) if isinstance(key, str) else key), len(g), mean,
                    float(v.std(ddof=1)) if len(v) > 1 else math.nan,
                    *np.percentile(v, [10, 50, 90]).tolist(),
                    float(r2.mean()) if len(r2.dropna()) else math.nan, flag])
    return pd.DataFrame(out, columns=cols)


def to_markdown(df: pd.DataFrame, index: bool = True) -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown table.

    Written here (a dozen lines) instead of ``DataFrame.to_markdown``, which
    needs the optional ``tabulate`` dependency. ``|`` in cells is escaped,
    NaN/None print as "–".
    """
    def text(value: Any) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return MISSING
        return str(value).replace("|", "\\|").replace("\n", " ")

    header = ([df.index.name or ""] if index else []) + [text(c) for c in df.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for idx, row in df.iterrows():
        cells = ([text(idx)] if index else []) + [text(v) for v in row.tolist()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# tasks: discovery runs feed the leaderboard above; another task's runs its own section
# ---------------------------------------------------------------------------


def task_runs(runs: pd.DataFrame, task: str) -> pd.DataFrame:
    """The runs of one task (``"discovery"``, or a task a distribution registers); rows stored
    before tasks existed (no ``task`` column, or NULL) are discovery runs."""
    if "task" not in runs.columns:
        return runs if task == DISCOVERY else runs.iloc[0:0]
    return runs[runs["task"].fillna(DISCOVERY).astype(str) == task]


def _other_tasks(runs: pd.DataFrame, tasks: Optional[Mapping[str, Any]]) -> List[Tuple[str, Any, pd.DataFrame]]:
    """``(name, Task object or None, runs)`` of every task but discovery with runs in ``runs``.

    ``tasks`` maps a name to its :class:`causalarena.tasks.Task` (default: the installed ones,
    :func:`causalarena.plugins.default_registry`); a task that is not installed gets ``None``
    (its runs are counted in ``failures.csv`` but get no section of their own).
    """
    if "task" not in runs.columns:
        return []
    names = sorted(set(runs["task"].fillna(DISCOVERY).astype(str)) - {DISCOVERY})
    out = []
    for name in names:
        if tasks is not None:
            obj = tasks.get(name)
        else:
            from .plugins import default_registry

            registry = default_registry()
            obj = registry.task(name) if name in registry.tasks else None
        out.append((name, obj, task_runs(runs, name)))
    return out


def write_report(runs: pd.DataFrame, outdir: Any, metrics: Sequence[str] = ("f1", "shd"),
                 tasks: Optional[Mapping[str, Any]] = None) -> Dict[str, Path]:
    """Write the report files into ``outdir`` (created if needed).

    Files: ``leaderboard.csv`` and ``leaderboard.parquet`` (the numeric
    leaderboard, :func:`leaderboard_numeric`), ``runs.parquet`` (the input
    runs), ``failures.csv`` (:func:`failure_table` per task, with a ``task`` column) and ``leaderboard.md``
    (the Table 2 layout strings and the failure table in Markdown). The runs of another task
    get its own files and section (:meth:`causalarena.tasks.Task.write_report`; ``tasks``: name →
    Task, default the installed ones).

    Also ``sortability.csv`` (:func:`sortability_table`).

    Returns:
        file name → path, for the six files above; a Parquet file pandas
        cannot write because pyarrow is missing or cannot be imported (pyarrow
        ≥ 26 refuses numpy 1.x at import, though its metadata does not say so)
        is left out with a :class:`ReportWarning` — the CSV and Markdown files,
        and the store, hold the same content.

    Raises:
        ValueError: as :func:`leaderboard_numeric`.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    all_runs, others = runs, _other_tasks(runs, tasks)
    runs = task_runs(runs, DISCOVERY)
    numeric = leaderboard_numeric(runs, metrics)
    table = leaderboard(runs, metrics)
    failures = failure_table(runs)
    # failures.csv counts the runs of every task (a task column says whose); leaderboard.md keeps one
    # status table per task, each under its own leaderboard
    every_failure = pd.concat([failures.assign(task=DISCOVERY),
                               *(failure_table(r).assign(task=name) for name, _, r in others)], ignore_index=True)
    paths = {name: outdir / name for name in ("leaderboard.csv", "leaderboard.parquet",
                                              "runs.parquet", "failures.csv", "sortability.csv", "leaderboard.md")}
    sortab = sortability_table(runs)
    sortab.to_csv(paths["sortability.csv"], index=False)
    slices = {key: sortability_table(runs, slice_by=key) for key in SORTABILITY_SLICES}
    slices = {key: t for key, t in slices.items() if len(t)}
    numeric.to_csv(paths["leaderboard.csv"], index=False)
    for name, frame in (("leaderboard.parquet", numeric), ("runs.parquet", all_runs)):
        if not _write_parquet(frame, paths[name]):
            del paths[name]
    every_failure[["task", *failures.columns]].to_csv(paths["failures.csv"], index=False)
    title = " / ".join(m.upper() if len(m) <= 4 else m for m in metrics)
    md: List[str] = [] if not len(runs) and others else [f"# Leaderboard ({title})", "",
          "Cells: mean (sd) over SCM-level means of replicates; – = unsupported (the method does not "
          "consume interventions), no runs, or the metric is undefined (an sd over one SCM; SID "
          "against a cyclic published graph); "
          f"{WARN}k = k failed runs (means over successes; on Avg, all the method's failures, including "
          "cells left out because every run failed). Avg = unweighted mean of available "
          "cell means (sd: mean of cell sds).", "",
          to_markdown(table), "## Run status counts" + (" (discovery runs)" if others else ""), "",
          to_markdown(failures, index=False)]  # a folder of another task only: no empty discovery table
    if len(sortab):
        md += ["", "## Sortability of the data (raw tables, Reisach et al. 2021 / 2023)", "",
               "Varsortability near 1 means sorting variables by marginal variance recovers the causal "
               "order (a benchmark artefact); 0.5 is chance. Flagged: family mean above "
               f"{VARSORTABILITY_FLAG[1]} or below {VARSORTABILITY_FLAG[0]}.", "",
               to_markdown(sortab.round(3), index=False)]
        for key, t in slices.items():
            md += ["", f"### By {key}", "", to_markdown(t.round(3), index=False)]
    for _, task, task_rows in others:
        if task is not None and hasattr(task, "write_report"):
            files, lines = task.write_report(task_rows, outdir)
            paths.update(files)
            md += [*([""] if md else []), *lines]
    paths["leaderboard.md"].write_text("\n".join(md), encoding="utf-8")
    return paths


class ReportWarning(UserWarning):
    """A report file could not be written; the others were (see :func:`write_report`)."""


def _write_parquet(frame: pd.DataFrame, path: Path) -> bool:
    """Write ``frame`` to ``path`` as Parquet; False (and a ReportWarning) if pyarrow cannot load."""
    try:
        frame.to_parquet(path, index=False)
    except ImportError as exc:
        warnings.warn(ReportWarning(
            f"{path.name} not written: pandas cannot use pyarrow here ({str(exc).splitlines()[0]}); "
            "the CSV and Markdown files hold the same content — with numpy 1.x install pyarrow<26"),
            stacklevel=3)
        return False
    return True


def print_report(runs: pd.DataFrame, console: Optional[Any] = None, metrics: Sequence[str] = ("f1", "shd"),
                 tasks: Optional[Mapping[str, Any]] = None) -> None:
    """Print the leaderboard (and failures, if any) as rich tables.

    Args:
        runs: runs table.
        console: a :class:`rich.console.Console` (default: a new one on stdout).
        metrics: metric columns shown in each cell.
        tasks: task name → :class:`causalarena.tasks.Task` for the runs of other tasks, printed
            first by their task (default: the installed tasks).

    Raises:
        ValueError: as :func:`leaderboard_numeric`.
    """
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    others = _other_tasks(runs, tasks)
    runs = task_runs(runs, DISCOVERY)
    for _, task, task_rows in others:
        if task is not None and hasattr(task, "print_report"):
            task.print_report(task_rows, console)
    if others and not len(runs):
        return
    table = leaderboard(runs, metrics)
    title = " / ".join(m.upper() if len(m) <= 4 else m for m in metrics)
    print_method_table(table, console, f"Leaderboard ({title}): mean (sd) over SCMs")
    print_failures(runs, console, "Failed runs (status counts)")
    sortab = sortability_table(runs)
    if len(sortab):
        stable = Table(title="Sortability of the raw data (varsortability: 0.5 chance, 1 = variance gives the order)")
        for col in ("family", "split", "datasets", "varsortability mean (p10–p90)", "R²-sortability", "flag"):
            stable.add_column(col)
        for _, row in sortab.iterrows():
            stable.add_row(str(row["family"]), str(row["split"]), str(row["datasets"]),
                           f"{row['varsortability_mean']:.2f} ({row['varsortability_p10']:.2f}–"
                           f"{row['varsortability_p90']:.2f})",
                           "–" if row["r2_sortability_mean"] != row["r2_sortability_mean"]
                           else f"{row['r2_sortability_mean']:.2f}",
                           f"[red]{row['flag']}[/red]" if row["flag"] else "")
        console.print(stable)


def print_method_table(table: pd.DataFrame, console: Any, title: str) -> None:
    """A method-indexed frame of formatted cells as a rich table (method column bold, cells right-aligned)."""
    from rich.markup import escape
    from rich.table import Table

    rich_table = Table(title=title)
    rich_table.add_column("method", style="bold")
    for col in table.columns:
        rich_table.add_column(str(col), justify="right")
    for method, row in table.iterrows():
        # escape: labels such as "pc [raw]" would otherwise be read as rich markup and vanish
        rich_table.add_row(escape(str(method)), *[escape(str(v)) for v in row.tolist()])
    console.print(rich_table)


def print_failures(runs: pd.DataFrame, console: Any, title: str) -> None:
    """The (method, family, split) rows of :func:`failure_table` with a failure, as a rich table."""
    from rich.markup import escape
    from rich.table import Table

    failures = failure_table(runs)
    failed = failures[failures[list(FAILURE_STATUSES)].sum(axis=1) > 0]
    if len(failed):
        columns = ["method", "family", "split", *FAILURE_STATUSES]
        ftable = Table(title=title)
        for col in columns:
            ftable.add_column(col)
        for _, row in failed.iterrows():
            ftable.add_row(*[escape(str(row[c])) for c in columns])
        console.print(ftable)


# ---------------------------------------------------------------------------
# load vs per-graph time (§5.5, Tables 4 and 5)
# ---------------------------------------------------------------------------

#: columns a store needs for the runtime fit (added in the runner with issue 5)
RUNTIME_COLUMNS = ("worker_id", "worker_seq", "start_seconds", "load_seconds", "wall_seconds", "d")
#: a fit with R² below this is flagged (the paper's fits all have R² > 0.97)
RUNTIME_R2_FLAG = 0.9
RUNTIME_FAILURE_MODES = ("skip", "prefix")
_OLD_STORE = ("this results folder has no worker_id/worker_seq columns (stored by causal-arena < 0.4); "
              "rerun to measure runtime")


def runtime_points(runs: pd.DataFrame, failures: str = "skip") -> pd.DataFrame:
    """The nested-k cumulative times T(k) of every worker (paper §5.5).

    A worker process starts once (``start_seconds``: spawn → ``hello``), loads
    the method once (``load_seconds``) and then fits cells in ``worker_seq``
    order. For each (method, d) and each worker,

        T(k) = start_seconds + load_seconds + Σ_{i ≤ k} wall_seconds_i,   k = 1 … K_w,

    over that worker's ok cells of dimension d in ``worker_seq`` order, so
    the first k graphs are a subset of the first k + 1 (nested k).

    * ``start_seconds`` is part of the fixed cost. The paper's T_fixed is "the
      load" a wrapper pays "before it scores a graph"; there the interpreter,
      imports and model load are one process, here they are split between
      ``start_seconds`` (interpreter + harness import) and ``load_seconds``
      (the plugin import and model construction). Both are paid once per
      worker, so both belong to T_fixed; the per-graph slope is unaffected.
    * ``wall_seconds`` (the runner's time of the fit request: data transfer,
      the fit, the answer) is the per-graph cost, as the paper times the
      wrapper end to end; ``fit_seconds`` alone would omit the overhead.
    * A worker that fits cells of several d: each d uses the worker's cells of
      that d only (its other cells are left out of the sum). This assumes a
      fit's time does not depend on what the worker fitted before, which is
      the assumption of the linear model itself.
    * Only ok cells are graphs. ``failures="skip"`` (default): a non-ok cell
      of a worker (failed, invalid_output …; a timeout or OOM ends the worker)
      is left out — neither counted as a graph nor added to T — and counted
      in ``n_excluded`` of :func:`runtime_table`. ``failures="prefix"``: each
      worker is cut at its first non-ok cell (or at a missing ``worker_seq``,
      e.g. a cell rerun later by ``--retry``) over its whole sequence, the
      conservative reading in which every T(k) is a run of k clean fits.
    * Rows without ``worker_id`` (cells that never reached a worker:
      unsupported, invalid_input, load failures; or rows of an older store
      mixed with new ones) and workers without a start or load time are
      left out.

    Args:
        runs: runs table (:meth:`causalarena.store.Store.runs_frame`) with
            ``method, status`` and :data:`RUNTIME_COLUMNS`.
        failures: ``"skip"`` or ``"prefix"`` (see above).

    Returns:
        One row per point, sorted by method, d, worker, k: ``method`` (the
        configuration label, as in the leaderboard), ``d`` (int),
        ``worker_id``, ``k`` (1 … K_w), ``worker_seq`` (of the k-th graph),
        ``start_s``, ``load_s``, ``wall_s`` (the k-th graph's wall time) and
        ``t_cum_s`` = T(k); all times in seconds.

    Raises:
        ValueError: ``runs`` lacks the worker columns, or no ok row has a
            ``worker_id`` (a store written before the runner recorded them);
            an unknown ``failures`` mode.
    """
    return _runtime_points(runs, failures)[0]


def _runtime_points(runs: pd.DataFrame, failures: str) -> Tuple[pd.DataFrame, Dict[Tuple[str, int], Dict[str, int]]]:
    if failures not in RUNTIME_FAILURE_MODES:
        raise ValueError(f"failures must be one of {RUNTIME_FAILURE_MODES}, got {failures!r}")
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}")
    missing = [c for c in ("method", "status") + RUNTIME_COLUMNS if c not in runs.columns]
    if missing:
        raise ValueError(f"{_OLD_STORE} (missing column(s) {missing})")
    runs = task_runs(runs, "discovery")  # T_graph is per graph: effect runs have no graph size d
    status = runs["status"].astype(str)
    ok_with_worker = (status == Status.OK.value) & runs["worker_id"].notna()
    if len(runs) and (status == Status.OK.value).any() and not ok_with_worker.any():
        raise ValueError(f"{_OLD_STORE} (every ok row has worker_id NULL)")
    data = runs.assign(method=config_labels(runs) if len(runs) else runs["method"], status=status)
    counts: Dict[Tuple[str, int], Dict[str, int]] = {}

    def count(key: Tuple[str, int], what: str, n: int = 1) -> None:
        counts.setdefault(key, {"n_excluded": 0, "n_no_worker": 0, "n_no_timing": 0})[what] += n

    # ok rows that never reached a worker: say so in their (method, d)
    orphan = data[(data["status"] == Status.OK.value) & data["worker_id"].isna() & data["d"].notna()]
    for (method, d), g in orphan.groupby(["method", "d"], sort=False):
        count((method, int(d)), "n_no_worker", len(g))
    data = data[data["worker_id"].notna() & data["worker_seq"].notna()].copy()
    data["worker_seq"] = data["worker_seq"].astype("int64")
    data = data.sort_values(["worker_id", "worker_seq"], kind="stable")
    if failures == "prefix":
        keep = []
        for _, g in data.groupby("worker_id", sort=False):
            seq = g["worker_seq"].to_numpy()
            clean = (g["status"].to_numpy() == Status.OK.value) & (seq == np.arange(1, len(g) + 1))
            cut = int(np.argmin(clean)) if not clean.all() else len(g)
            keep.append(pd.Series(np.arange(len(g)) < cut, index=g.index))
        mask = pd.concat(keep) if keep else pd.Series(dtype=bool)
        dropped = data[~mask.reindex(data.index, fill_value=False)]
        data = data[mask.reindex(data.index, fill_value=False)]
    else:
        dropped = data[data["status"] != Status.OK.value]
        data = data[data["status"] == Status.OK.value]
    for (method, d), g in dropped[dropped["d"].notna()].groupby(["method", "d"], sort=False):
        count((method, int(d)), "n_excluded", len(g))
    data = data[data["d"].notna() & data["wall_seconds"].notna()]
    rows = []
    for (method, d, worker), g in data.groupby(["method", "d", "worker_id"], sort=True):
        start = g["start_seconds"].iloc[0]
        load = g["load_seconds"].iloc[0]
        if pd.isna(start) or pd.isna(load):
            count((method, int(d)), "n_no_timing", len(g))
            continue
        walls = g["wall_seconds"].astype(float).to_numpy()
        cum = float(start) + float(load) + np.cumsum(walls)
        for k, (seq, wall, t) in enumerate(zip(g["worker_seq"], walls, cum), start=1):
            rows.append((method, int(d), str(worker), k, int(seq), float(start), float(load), float(wall), float(t)))
    cols = ["method", "d", "worker_id", "k", "worker_seq", "start_s", "load_s", "wall_s", "t_cum_s"]
    points = pd.DataFrame(rows, columns=cols)
    for c in ("d", "k", "worker_seq"):
        points[c] = points[c].astype("int64")
    return points, counts


def runtime_table(runs: pd.DataFrame, failures: str = "skip") -> pd.DataFrame:
    """Load vs per-graph time per (method, d): the fit of the paper's §5.5 (Tables 4, 5).

    Fits T(k) = T_fixed + k · T_graph by ordinary least squares
    (:func:`scipy.stats.linregress`) over all the points (k, T(k)) of all
    workers of a (method, d) (:func:`runtime_points`, which documents T(k),
    why ``start_seconds`` belongs to T_fixed, and the ``failures`` modes).
    T_fixed is the one-time cost (start + load + any constant per-run
    overhead), T_graph the extra seconds for one more graph once the model
    is in memory: the number Table 5 ranks (there averaged over d).

    Workers with different loads are pooled into one intercept, as the
    points of one nested run are in the paper; with unbalanced workers this
    can tilt the slope (a low R² or a negative T_graph is flagged).

    Args:
        runs: runs table (:meth:`causalarena.store.Store.runs_frame`).
        failures: ``"skip"`` (default) or ``"prefix"``, see :func:`runtime_points`.

    Returns:
        One row per (method, d) that has at least one point, sorted by d then
        T_graph, with columns

        * ``method``, ``d`` (int);
        * ``n_workers``, ``k_max`` (largest k of a worker = K), ``n_points``
          (all (k, T(k)) points fitted);
        * ``t_fixed_s``, ``t_graph_s`` (seconds; NaN when K < 2: with one
          graph per worker the two cannot be separated), ``r2`` (NaN when
          K < 2 or T(k) is constant);
        * ``start_s``, ``load_s``: the mean measured start and load seconds of
          the workers (the parts of T_fixed the runner measured directly);
        * ``rank``: the per-graph rank among the methods at that d (1 =
          lowest T_graph; NaN for an undefined T_graph);
        * ``n_excluded`` (non-ok cells left out of the workers' sequences),
          ``n_no_worker`` (ok cells without ``worker_id``), ``n_no_timing``
          (ok cells of workers without start/load time);
        * ``flag``: ``"R² < 0.9"``, ``"T_graph < 0"``, ``"T_fixed < 0: …"``, ``"K < 2: …"`` and the
          left-out counts, joined by "; " ("" when clean).

    Raises:
        ValueError: as :func:`runtime_points` — notably a store that predates
            the worker columns: "this results folder has no
            worker_id/worker_seq columns (stored by causal-arena < 0.4);
            rerun to measure runtime".
    """
    from scipy import stats

    points, counts = _runtime_points(runs, failures)
    rows = []
    for (method, d), g in points.groupby(["method", "d"], sort=True):
        per_worker = g.groupby("worker_id", sort=False)
        k_max = int(g["k"].max())
        flags = []
        t_fixed = t_graph = r2 = math.nan
        if k_max < 2:
            flags.append("K < 2: one graph per worker, T_fixed and T_graph not separable, R² undefined")
        else:
            y = g["t_cum_s"].to_numpy(dtype=float)
            fit = stats.linregress(g["k"].to_numpy(dtype=float), y)
            t_fixed, t_graph = float(fit.intercept), float(fit.slope)
            if np.ptp(y) > 0:
                r2 = float(fit.rvalue) ** 2
            else:
                flags.append("T(k) constant: R² undefined")
            if r2 < RUNTIME_R2_FLAG:
                flags.append(f"R² < {RUNTIME_R2_FLAG}")
            if t_graph < 0:
                flags.append("T_graph < 0")
            if t_fixed < 0:  # per-graph cost varies so much across graphs that the line has no meaning at k=0
                flags.append("T_fixed < 0: per-graph times vary across graphs; read T_graph only")
        c = counts.get((method, int(d)), {})
        for key, text in (("n_excluded", "non-ok cell(s) left out"),
                          ("n_no_worker", "ok cell(s) without worker_id left out"),
                          ("n_no_timing", "ok cell(s) of workers without start/load time left out")):
            if c.get(key):
                flags.append(f"{c[key]} {text}")
        rows.append({"method": method, "d": int(d), "n_workers": int(per_worker.ngroups), "k_max": k_max,
                     "n_points": int(len(g)), "t_fixed_s": t_fixed, "t_graph_s": t_graph, "r2": r2,
                     "start_s": float(per_worker["start_s"].first().mean()),
                     "load_s": float(per_worker["load_s"].first().mean()),
                     "n_excluded": int(c.get("n_excluded", 0)), "n_no_worker": int(c.get("n_no_worker", 0)),
                     "n_no_timing": int(c.get("n_no_timing", 0)), "flag": "; ".join(flags)})
    cols = ["method", "d", "n_workers", "k_max", "n_points", "t_fixed_s", "t_graph_s", "r2", "start_s",
            "load_s", "rank", "n_excluded", "n_no_worker", "n_no_timing", "flag"]
    out = pd.DataFrame(rows, columns=[c for c in cols if c != "rank"])
    out["rank"] = (out.groupby("d")["t_graph_s"].rank(method="min") if len(out)
                   else pd.Series(dtype=float))
    out = out.sort_values(["d", "t_graph_s", "method"], kind="stable", na_position="last")
    return out[cols].reset_index(drop=True)


def runtime_ranking(table: pd.DataFrame, d: Optional[int] = None) -> pd.DataFrame:
    """The per-graph ranking of the paper's Table 5, from :func:`runtime_table`.

    Methods are ordered by T_graph at one dimension ``d`` (default: the
    largest d in ``table``), with T_fixed beside it; methods without a fit at
    that d come last. ``t_graph_mean_s`` is the paper's † number: the
    unweighted mean of the method's per-d T_graph over ``d_values`` (only
    comparable between methods with the same ``d_values``).

    Returns:
        Columns ``rank`` (1 = cheapest per graph; NaN without a T_graph at
        ``d``), ``method``, ``d``, ``t_graph_s``, ``t_fixed_s``, ``r2``,
        ``t_graph_mean_s``, ``d_values`` (comma list); times in seconds.
        Empty (same columns) when ``table`` is empty.
    """
    cols = ["rank", "method", "d", "t_graph_s", "t_fixed_s", "r2", "t_graph_mean_s", "d_values"]
    if len(table) == 0:
        return pd.DataFrame(columns=cols)
    d = int(table["d"].max()) if d is None else int(d)
    rows = []
    for method, g in table.groupby("method", sort=False):
        at = g[g["d"] == d]
        fitted = g.dropna(subset=["t_graph_s"])
        rows.append({"method": method, "d": d,
                     "t_graph_s": float(at["t_graph_s"].iloc[0]) if len(at) else math.nan,
                     "t_fixed_s": float(at["t_fixed_s"].iloc[0]) if len(at) else math.nan,
                     "r2": float(at["r2"].iloc[0]) if len(at) else math.nan,
                     "t_graph_mean_s": float(fitted["t_graph_s"].mean()) if len(fitted) else math.nan,
                     "d_values": ",".join(str(v) for v in sorted(fitted["d"].astype(int)))})
    out = pd.DataFrame(rows)
    out = out.sort_values(["t_graph_s", "t_graph_mean_s", "method"], kind="stable", na_position="last")
    out["rank"] = out["t_graph_s"].rank(method="min")
    return out[cols].reset_index(drop=True)


def _sec(value: float) -> str:
    if value is None or value != value:
        return MISSING
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.3f}" if value == 0 or abs(value) >= 0.01 else f"{value:.3g}"


def print_runtime(table: pd.DataFrame, console: Optional[Any] = None) -> None:
    """Print :func:`runtime_table` and :func:`runtime_ranking` as rich tables.

    The fit table has one row per (method, d); an undefined R² prints "–"
    with the reason in the last column, and R² < 0.9 is shown in red.
    """
    from rich.console import Console, JustifyMethod
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    if len(table) == 0:
        console.print("no ok runs with worker timing: nothing to fit")
        return
    fit = Table(title="Load vs per-graph time: T(k) = T_fixed + k·T_graph (seconds; §5.5, Table 4)")
    columns: Tuple[Tuple[str, JustifyMethod], ...] = (
        ("method", "left"), ("d", "right"), ("workers", "right"), ("K", "right"),
        ("T_fixed", "right"), ("T_graph", "right"), ("R²", "right"),
        ("start", "right"), ("load", "right"), ("note", "left"))
    for col, just in columns:
        fit.add_column(col, justify=just, style="bold" if col == "method" else None)
    for _, row in table.iterrows():
        r2 = MISSING if row["r2"] != row["r2"] else f"{row['r2']:.4f}"
        if row["r2"] == row["r2"] and row["r2"] < RUNTIME_R2_FLAG:
            r2 = f"[red]{r2}[/red]"
        fit.add_row(escape(str(row["method"])), str(row["d"]), str(row["n_workers"]), str(row["k_max"]),
                    _sec(row["t_fixed_s"]), _sec(row["t_graph_s"]), r2, _sec(row["start_s"]),
                    _sec(row["load_s"]), f"[yellow]{escape(row['flag'])}[/yellow]" if row["flag"] else "")
    console.print(fit)
    ranking = runtime_ranking(table)
    d = int(ranking["d"].iloc[0])
    rank = Table(title=f"Per-graph ranking at d = {d} (Table 5; T_fixed amortizes at large k)")
    for col in ("rank", "method", "T_graph", "T_fixed", "mean T_graph over d", "d values"):
        rank.add_column(col, justify="left" if col in ("method", "d values") else "right",
                        style="bold" if col == "method" else None)
    for _, row in ranking.iterrows():
        rank.add_row(MISSING if row["rank"] != row["rank"] else str(int(row["rank"])),
                     escape(str(row["method"])), _sec(row["t_graph_s"]), _sec(row["t_fixed_s"]),
                     _sec(row["t_graph_mean_s"]), row["d_values"] or MISSING)
    console.print(rank)


def write_runtime(table: pd.DataFrame, outdir: Any) -> Path:
    """Write :func:`runtime_table` as ``runtime.csv`` into ``outdir`` (created if needed); returns the path."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / "runtime.csv"
    table.to_csv(path, index=False)
    return path
