"""Sortability of the benchmark's data (Reisach et al. 2021 / 2023): the ``sortability`` analysis.

:func:`sortability_table` summarises the varsortability and R²-sortability
the runner stores per dataset; the analysis :func:`sortability` writes
``sortability.csv`` at the top of the results folder (the file the core's
``write_report`` wrote before issue 22; same name and columns),
``sortability.md`` (the section ``leaderboard.md`` carried: the table and one
table per slice of :data:`SORTABILITY_SLICES`), the page table and the console
table. Moved from ``causalarena.report``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import pandas as pd

from causalarena.report import to_markdown

__all__ = ["VARSORTABILITY_FLAG", "SORTABILITY_SLICES", "sortability_table", "sortability"]

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



def _print(table: pd.DataFrame, console: Any) -> None:
    from rich.table import Table

    stable = Table(title="Sortability of the raw data (varsortability: 0.5 chance, 1 = variance gives the order)")
    for col in ("family", "split", "datasets", "varsortability mean (p10–p90)", "R²-sortability", "flag"):
        stable.add_column(col)
    for _, row in table.iterrows():
        stable.add_row(str(row["family"]), str(row["split"]), str(row["datasets"]),
                       f"{row['varsortability_mean']:.2f} ({row['varsortability_p10']:.2f}–"
                       f"{row['varsortability_p90']:.2f})",
                       "–" if row["r2_sortability_mean"] != row["r2_sortability_mean"]
                       else f"{row['r2_sortability_mean']:.2f}",
                       f"[red]{row['flag']}[/red]" if row["flag"] else "")
    console.print(stable)


def sortability(run: Any) -> None:
    """The analysis: ``sortability.csv`` + ``sortability.md`` at the results folder's top, the page and console tables."""
    table = sortability_table(run.runs)
    path = run.results / "sortability.csv"
    run.results.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    run.file("sortability.csv", path)
    if not len(table):  # runs stored without sortability: the empty table, as the core wrote it
        return
    md = ["## Sortability of the data (raw tables, Reisach et al. 2021 / 2023)", "",
          "Varsortability near 1 means sorting variables by marginal variance recovers the causal "
          "order (a benchmark artefact); 0.5 is chance. Flagged: family mean above "
          f"{VARSORTABILITY_FLAG[1]} or below {VARSORTABILITY_FLAG[0]}.", "",
          to_markdown(table.round(3), index=False)]
    for key in SORTABILITY_SLICES:
        t = sortability_table(run.runs, slice_by=key)
        if len(t):
            md += ["", f"### By {key}", "", to_markdown(t.round(3), index=False)]
    (run.results / "sortability.md").write_text("\n".join(md), encoding="utf-8")
    run.file("sortability.md", run.results / "sortability.md")
    if getattr(run.console, "width", None) is not None:  # a rich console (a test's stand-in prints lines)
        _print(table, run.console)
    run.table("Sortability (varsortability, R²-sortability)", table)
