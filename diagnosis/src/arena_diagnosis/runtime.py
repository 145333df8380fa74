"""Load vs per-graph time (paper §5.5, Tables 4 and 5): the ``runtime`` analysis of arena-diagnosis.

:func:`runtime_table` fits T(k) = T_fixed + k·T_graph to the workers'
nested-k cumulative times; the analysis :func:`runtime` writes it as
``runtime.csv`` at the top of the results folder (the file ``arena report
--runtime`` wrote when this lived in the core; same name and columns), shows
it on the page and, with ``arena report --runtime``, prints the fit and the
ranking. Moved from ``causalarena.report`` (issue 22).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import numpy as np
import pandas as pd

from causalarena.records import Status
from causalarena.report import MISSING, config_labels

from .slices import discovery_rows

__all__ = ["RUNTIME_COLUMNS", "RUNTIME_FAILURE_MODES", "RUNTIME_R2_FLAG", "runtime_points", "runtime_table",
           "runtime_ranking", "print_runtime", "write_runtime", "shared_runtime_table", "runtime"]

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
    runs = discovery_rows(runs)  # T_graph is per graph: effect runs have no graph size d
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


def shared_runtime_table(run: Any) -> Optional[pd.DataFrame]:
    """:func:`runtime_table` of the report's discovery runs, fitted once per report; None without worker timing."""
    def fit() -> Optional[pd.DataFrame]:
        try:
            return runtime_table(run.runs)
        except ValueError:
            return None  # an old store (no worker columns): end-to-end times only
    return run.cached("runtime", fit)


def runtime(run: Any) -> None:
    """The analysis: ``runtime.csv`` (same name and columns as before), a page table, the console tables on ``--runtime``."""
    try:
        table = runtime_table(run.runs)
    except ValueError as exc:
        run.skip("runtime", str(exc))
        return
    run.cached("runtime", lambda: table)
    if run.options.get("runtime"):
        print_runtime(table, console=run.console)
    if not len(table):
        run.skip("runtime", "no ok runs with worker timing: nothing to fit")
        return
    run.file("runtime.csv", write_runtime(table, run.results))
    run.table("Load and per-graph time T(k) = T_fixed + k·T_graph (§5.5)", table)
