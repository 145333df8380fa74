"""Effect-estimation analyses: the CausalIDView report (paper §6 RQ1–RQ3, App. F.1–F.2).

The store holds effect runs next to discovery runs (runs column ``task ==
"effect"``; :mod:`arena_task_effect.effect`). Every function here reads the runs
table (:meth:`causalarena.store.Store.runs_frame`) and, for the paired Stay /
Move errors, the estimates table (:func:`arena_task_effect.task.estimates_frame`)
and returns a long-format pandas table. Pure pandas / numpy; the metric
formulas are the core's (:func:`arena_task_effect.effect.stay_error`,
:func:`arena_task_effect.effect.move_tracking_error`), never re-implemented.

**Rows** (:func:`effect_rows`): ``task == "effect"``, ``status == "ok"`` and
the main-benchmark filter of :func:`arena_diagnosis.slices.main_mask`
(protocol default, no suite, standardised, the view's default context size,
``n_override`` None), a method run under several configurations labelled
apart exactly as the leaderboard does, the same cell stored twice counted
once (latest ``finished_at``). From the runs' ``factors`` JSON each row gets

* ``world`` — factor ``world`` (the SCM world a family's views and variants
  share), else the ``scm_id``;
* ``variant`` — factor ``variant`` (``"original"`` / ``"stay"`` / ``"move"``
  of family ``causalidview``), else ``"original"``;
* ``dataset`` — factor ``dataset`` (family ``effect_real``), else the ``scm_id``.

**Units and averages.** As in the paper's "mean ± SD across 40 SCM worlds"
(Fig. 2, Tables 7–8): a *unit* is one (method, family, view, world), its
value the mean of the metric over the unit's replicates (NaN skipped); a
table cell is the mean over worlds of the unit values, its SD the sample SD
over worlds (ddof 1; NaN with one world). Because sPEHE² splits exactly into
its two parts in every run (:func:`arena_task_effect.effect.spehe2`), and both
averages are linear, the cell means add up too:
``spehe2 = mean_effect_error + centred_cate_error`` (the SDs do not).
Real / semi-synthetic data (Table 1) average over runs: each replicate is
one realisation of the dataset.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from .slices import _labelled, _sd_agg, main_mask

__all__ = [
    "BOUND_METRICS", "BOUNDS_COLUMNS", "CONTEXT_COLUMNS", "DECOMPOSITION", "DEGRADATION_COLUMNS", "EFFECT_FAMILY",
    "PAIR_COLUMNS", "PI_FAMILY", "REAL_COLUMNS", "REAL_FAMILY", "STATUS_COLUMNS", "STAY_MOVE_COLUMNS",
    "VIEWS", "VIEW_COLUMNS",
    "bounds_table", "bounds_view", "context_table", "effect_mask", "effect_rows", "effect_status",
    "hc_degradation", "real_table", "stay_move", "view_method", "view_order",
]

#: the synthetic family whose views share one world, and its Stay / Move variants (§4, §6 RQ2)
EFFECT_FAMILY = "causalidview"
#: its partial-identification companion (views pi_manski, pi_iv, pi_msm_<Γ>; App. B.5)
PI_FAMILY = "causalidview_pi"
#: real and semi-synthetic tables (IHDP with a bd and an hc view, App. F.1; Table 1)
REAL_FAMILY = "effect_real"
#: the point-identification views in the paper's order, then the hidden-confounder view
VIEWS = ("bd", "fd", "iv", "px", "hc")
#: sPEHE² and its two exact parts (App. E.1.1)
DECOMPOSITION = ("spehe2", "mean_effect_error", "centred_cate_error")
#: the per-run metrics of a bounds target (App. E.1.2)
BOUND_METRICS = ("bound_rmse", "containment", "bound_width")
_ALL_METRICS = DECOMPOSITION + BOUND_METRICS
#: bound assumptions in report order
_ASSUMPTIONS = ("manski", "iv", "msm")

VIEW_COLUMNS = ["view", "method", "spehe2", "spehe2_sd", "mean_effect_error", "mean_effect_error_sd",
                "centred_cate_error", "centred_cate_error_sd", "worlds", "runs"]
PAIR_COLUMNS = ["method", "view", "world", "replicate", "variant", "error", "queries"]
STAY_MOVE_COLUMNS = ["method", "view", "stay_error", "stay_sd", "stay_worlds", "move_tracking_error", "move_sd",
                     "move_worlds"]
DEGRADATION_COLUMNS = ["source", "method", "bd", "hc", "difference", "ratio", "pairs"]
BOUNDS_COLUMNS = ["method", "view", "assumption", "gamma", "bound_rmse", "bound_rmse_sd", "containment",
                  "containment_sd", "bound_width", "worlds"]
REAL_COLUMNS = ["dataset", "view", "method", "spehe2", "spehe2_sd", "mean_effect_error", "centred_cate_error",
                "replicates"]
CONTEXT_COLUMNS = ["view", "method", "n_context", "spehe2", "spehe2_sd", "worlds"]
STATUS_COLUMNS = ["method", "runs", "ok", "missing (unsupported)", "failed", "failure statuses", "views ok",
                  "views unsupported"]


# --------------------------------------------------------------------------- rows


def effect_mask(runs: pd.DataFrame) -> pd.Series:
    """True for the effect runs (``task == "effect"``); all False for a store without the ``task`` column."""
    if "task" not in runs.columns:
        return pd.Series(False, index=runs.index)
    return runs["task"].astype(str) == "effect"


def _factor(text: Any, key: str) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value.get(key) if isinstance(value, dict) else None


def effect_rows(runs: pd.DataFrame, relax: Sequence[str] = (), status_ok: bool = True) -> pd.DataFrame:
    """The effect runs an analysis averages (module docstring), with ``world``, ``variant``, ``dataset``.

    Args:
        runs: runs table (:meth:`causalarena.store.Store.runs_frame`).
        relax: main filters not applied (``("n_override",)`` for the context-length table).
        status_ok: keep ``ok`` runs only.

    Returns:
        A copy of the selected rows: ``method`` is the configuration label,
        ``method_raw`` the stored name (the estimates table's key); every
        metric of :data:`DECOMPOSITION` and :data:`BOUND_METRICS` is a float
        column (NaN where the store has none).

    Raises:
        ValueError: ``runs`` lacks a run-key column (named).
    """
    missing = [c for c in ("family", "scm_id", "split", "replicate", "method", "status") if c not in runs.columns]
    if missing:
        raise ValueError(f"effect runs: the runs table lacks column(s) {missing}")
    rows = runs[main_mask(runs, relax=relax, status_ok=status_ok, task="effect")].copy()
    rows["method_raw"] = rows["method"].astype(str)
    rows = _labelled(rows, apart=relax)
    for m in _ALL_METRICS:
        rows[m] = rows[m].astype("float64") if m in rows.columns else np.nan
    factors = rows["factors"] if "factors" in rows.columns else pd.Series(None, index=rows.index, dtype=object)
    scm = rows["scm_id"].astype(str)
    world = factors.map(lambda t: _factor(t, "world"))
    rows["world"] = world.where(world.notna(), scm).astype(str)
    variant = factors.map(lambda t: _factor(t, "variant"))
    rows["variant"] = variant.where(variant.notna(), "original").astype(str)
    dataset = factors.map(lambda t: _factor(t, "dataset"))
    rows["dataset"] = dataset.where(dataset.notna(), scm).astype(str)
    return rows


def view_order(views: Sequence[str]) -> List[str]:
    """``bd, fd, iv, px, hc`` first (the paper's order), then the others (bounds views by Γ) alphabetically."""
    present = list(dict.fromkeys(str(v) for v in views))
    rest = sorted((v for v in present if v not in VIEWS), key=_bounds_sort_key)
    return [v for v in VIEWS if v in present] + rest


def _bounds_sort_key(view: str) -> Tuple[int, float, str]:
    parsed = bounds_view(view)
    if parsed is None:
        return (len(_ASSUMPTIONS), 0.0, view)
    assumption, gamma = parsed
    return (_ASSUMPTIONS.index(assumption), 0.0 if gamma is None else gamma, view)


def _units(rows: pd.DataFrame, metrics: Sequence[str], key: Sequence[str]) -> pd.DataFrame:
    """Replicate means per unit ``key`` (NaN skipped) and the number of runs averaged, ``runs``."""
    key = list(key)
    if not len(rows):
        return pd.DataFrame(columns=key + list(metrics) + ["runs"])
    g = rows.groupby(key, sort=False, dropna=False)
    out = g[list(metrics)].mean()
    out["runs"] = g.size()
    return out.reset_index()


def _over(units: pd.DataFrame, by: Sequence[str], metrics: Sequence[str], sd: Sequence[str] = (),
          count: str = "worlds", count_of: Optional[str] = None) -> pd.DataFrame:
    """Mean (and sample SD for ``sd``) over the units of each ``by`` group; ``count`` units with a value."""
    g = units.groupby(list(by), sort=False)
    out = g[list(metrics)].mean()
    for m in sd:
        out[f"{m}_sd"] = g[m].agg(_sd_agg)
    out[count] = g[count_of or metrics[0]].count().astype("int64")
    return out.reset_index()


def _sort_views(frame: pd.DataFrame, col: str = "view", then: Sequence[str] = ()) -> pd.DataFrame:
    order = {v: i for i, v in enumerate(view_order(frame[col]))}
    return (frame.assign(_o=frame[col].map(order)).sort_values(["_o", *then], kind="stable")
            .drop(columns="_o").reset_index(drop=True))


# --------------------------------------------------------------------------- RQ1: view x method (Fig. 2)


def view_method(runs: pd.DataFrame, family: str = EFFECT_FAMILY) -> pd.DataFrame:
    """sPEHE² per view and method with its decomposition, mean ± SD over worlds (paper Fig. 2, RQ1).

    The original variant of ``family`` at the default context size; a unit is
    (method, view, world), its value the replicate mean (module docstring).

    Args:
        runs: runs table.
        family: the synthetic effect family (default ``causalidview``).

    Returns:
        :data:`VIEW_COLUMNS`: ``spehe2``, ``mean_effect_error`` and
        ``centred_cate_error`` are means over worlds (the first is the sum of
        the other two), ``*_sd`` their sample SDs over worlds, ``worlds`` the
        worlds averaged, ``runs`` the runs behind them. Sorted by view (paper
        order) then ``spehe2`` ascending (best first). Empty with those columns
        when no such run holds sPEHE².

    Raises:
        ValueError: the runs table lacks a run-key column.
    """
    rows = effect_rows(runs)
    rows = rows[(rows["family"] == family) & (rows["variant"] == "original")].dropna(subset=["spehe2"])
    if not len(rows):
        return pd.DataFrame(columns=VIEW_COLUMNS)
    units = _units(rows, DECOMPOSITION, ("split", "method", "world"))
    out = _over(units, ("split", "method"), DECOMPOSITION, sd=DECOMPOSITION)
    out["runs"] = units.groupby(["split", "method"], sort=False)["runs"].sum().to_numpy()
    out = out.rename(columns={"split": "view"})
    return _sort_views(out, then=("spehe2", "method"))[VIEW_COLUMNS]


# --------------------------------------------------------------------------- RQ2: Stay / Move (Fig. 3)


def _aligned(ids_a: np.ndarray, ids_b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Indices into a and b of the query ids both hold, in a's order (views of one world share them)."""
    a, b = np.asarray(ids_a, dtype=np.int64), np.asarray(ids_b, dtype=np.int64)
    if a.shape == b.shape and np.array_equal(a, b):
        idx = np.arange(a.size)
        return idx, idx
    pos = {int(q): i for i, q in enumerate(b)}
    ia = np.array([i for i, q in enumerate(a) if int(q) in pos], dtype=np.int64)
    ib = np.array([pos[int(a[i])] for i in ia], dtype=np.int64)
    return ia, ib


def _with_estimates(rows: pd.DataFrame, estimates: pd.DataFrame) -> pd.DataFrame:
    need = ["family", "scm_id", "split", "replicate", "method", "config_hash", "query_ids", "cate", "tau"]
    missing = [c for c in need if c not in estimates.columns]
    if missing:
        raise ValueError(f"stay_move: the estimates table lacks column(s) {missing}")
    est = estimates[need].rename(columns={"method": "method_raw"})
    est = est[est["cate"].map(lambda v: v is not None and not (isinstance(v, float) and math.isnan(v)))]
    key = ["family", "scm_id", "split", "replicate", "method_raw", "config_hash"]
    return rows.merge(est, on=key, how="inner")


def stay_move(runs: pd.DataFrame, estimates: Optional[pd.DataFrame],
              family: str = EFFECT_FAMILY) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """Stay error and Move tracking error per method and view (paper §6 RQ2, Fig. 3).

    A run of the ``stay`` (or ``move``) variant is paired with the run of the
    ``original`` variant of the same method (configuration label), view, world
    and replicate; the two estimates are aligned by query id (the ids both
    hold). Per pair: Stay error (1/q) Σ (τ̂^S − τ̂)²
    (:func:`arena_task_effect.effect.stay_error`), Move tracking error
    (1/q) Σ ((τ̂^M − τ̂) − (τ^M − τ))² (:func:`arena_task_effect.effect.move_tracking_error`),
    τ the oracle at the queries stored with each run. Per (method, view,
    world) the mean over replicates, then the mean and SD over worlds.

    Args:
        runs: runs table.
        estimates: :func:`arena_task_effect.task.estimates_frame` (None or
            empty: no pairs).
        family: the family whose variants are paired.

    Returns:
        (pairs, summary): ``pairs`` one row per pair (:data:`PAIR_COLUMNS`;
        ``queries`` the aligned query count), ``summary`` one row per (method,
        view) with a pair (:data:`STAY_MOVE_COLUMNS`; NaN where a variant has
        no pair), sorted by view then method. Both empty (those columns)
        without pairs.

    Raises:
        ValueError: the runs or estimates table lacks a key column (named).
    """
    from arena_task_effect.effect import move_tracking_error, stay_error

    empty = (pd.DataFrame(columns=PAIR_COLUMNS), pd.DataFrame(columns=STAY_MOVE_COLUMNS))
    if estimates is None or not len(estimates):
        return empty
    rows = effect_rows(runs)
    rows = rows[rows["family"] == family]
    if not len(rows) or not set(rows["variant"]) & {"stay", "move"}:
        return empty
    rows = _with_estimates(rows, estimates)
    key = ["method", "split", "world", "replicate"]
    base = rows[rows["variant"] == "original"].drop_duplicates(key, keep="last").set_index(key)
    pairs: List[Dict[str, Any]] = []
    for variant in ("stay", "move"):
        other = rows[rows["variant"] == variant].drop_duplicates(key, keep="last")
        for r in other.itertuples(index=False):
            k = (r.method, r.split, r.world, r.replicate)
            if k not in base.index:
                continue
            o = base.loc[k]
            ia, ib = _aligned(o["query_ids"], r.query_ids)
            if not ia.size:
                continue
            if variant == "stay":
                err = stay_error(np.asarray(o["cate"])[ia], np.asarray(r.cate)[ib])
            else:
                err = move_tracking_error(np.asarray(o["cate"])[ia], np.asarray(r.cate)[ib],
                                          np.asarray(o["tau"])[ia], np.asarray(r.tau)[ib])
            pairs.append({"method": r.method, "view": r.split, "world": r.world, "replicate": int(r.replicate),
                          "variant": variant, "error": err, "queries": int(ia.size)})
    if not pairs:
        return empty
    pair_frame = pd.DataFrame(pairs, columns=PAIR_COLUMNS)
    per_world = pair_frame.groupby(["method", "view", "variant", "world"], sort=False)["error"].mean().reset_index()
    parts = []
    for variant, name, sd, count in (("stay", "stay_error", "stay_sd", "stay_worlds"),
                                     ("move", "move_tracking_error", "move_sd", "move_worlds")):
        sub = per_world[per_world["variant"] == variant]
        g = sub.groupby(["method", "view"], sort=False)["error"]
        parts.append(pd.DataFrame({name: g.mean(), sd: g.agg(_sd_agg), count: g.count().astype("int64")}))
    summary = parts[0].join(parts[1], how="outer").reset_index()
    for c in ("stay_worlds", "move_worlds"):
        summary[c] = summary[c].fillna(0).astype("int64")
    summary = _sort_views(summary, then=("method",))[STAY_MOVE_COLUMNS]
    pair_frame = _sort_views(pair_frame, then=("method", "variant", "world", "replicate"))
    return pair_frame, summary


# --------------------------------------------------------------------------- RQ3: bd -> hc (Fig. 6a, b)


def _pair_views(units: pd.DataFrame, key: Sequence[str], source: str) -> pd.DataFrame:
    wide = units.pivot_table(index=["method", *key], columns="split", values="spehe2", aggfunc="first")
    if not {"bd", "hc"} <= set(wide.columns):
        return pd.DataFrame(columns=DEGRADATION_COLUMNS)
    wide = wide[["bd", "hc"]].dropna()
    if not len(wide):
        return pd.DataFrame(columns=DEGRADATION_COLUMNS)
    g = wide.groupby(level="method", sort=False)
    out = g.mean()
    out["pairs"] = g.size().astype("int64")
    out = out.reset_index()
    out["difference"] = out["hc"] - out["bd"]
    out["ratio"] = np.where(out["bd"] > 0, out["hc"] / out["bd"].where(out["bd"] > 0, np.nan), np.nan)
    out.insert(0, "source", source)
    return out.sort_values("ratio", ascending=False, kind="stable")[DEGRADATION_COLUMNS]


def hc_degradation(runs: pd.DataFrame, family: str = EFFECT_FAMILY, real_family: str = REAL_FAMILY) -> pd.DataFrame:
    """sPEHE² with the confounder observed (bd) and hidden (hc), per method (paper §6 RQ3, Fig. 6a–b).

    Synthetic (``family``, original variant): units (method, view, world)
    as in :func:`view_method`; the worlds where the method has both a bd and
    an hc unit are its pairs. Real (``real_family``, every dataset with both
    views, e.g. IHDP / IHDP-HC): the pairs are runs of the same dataset,
    table and replicate (Full and Hidden share units and oracle, App. F.1).
    Per method: ``bd``, ``hc`` the means over its pairs, ``difference`` =
    hc − bd, ``ratio`` = hc / bd (ratio of the two means; NaN when bd is 0).

    Returns:
        :data:`DEGRADATION_COLUMNS`, ``source`` ``"causalidview"`` or
        ``"effect_real: <dataset>"``; per source sorted by ratio, largest
        first. Empty (those columns) when no method has a pair.
    """
    rows = effect_rows(runs)
    rows = rows[rows["variant"] == "original"].dropna(subset=["spehe2"])
    frames = []
    syn = rows[rows["family"] == family]
    if len(syn):
        frames.append(_pair_views(_units(syn, ["spehe2"], ("split", "method", "world")), ("world",), family))
    real = rows[rows["family"] == real_family]
    for dataset in sorted(set(real["dataset"])):
        sub = real[real["dataset"] == dataset]
        frames.append(_pair_views(sub, ("scm_id", "replicate"), f"{real_family}: {dataset}"))
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=DEGRADATION_COLUMNS)


# --------------------------------------------------------------------------- bounds (Fig. 6c-e)

_MSM = re.compile(r"^pi_msm_(?P<gamma>\d+(?:\.\d+)?)$")


def bounds_view(view: str) -> Optional[Tuple[str, Optional[float]]]:
    """(assumption, Γ) of a partial-identification view name, None for another view.

    ``"pi_manski"`` → ("manski", None), ``"pi_iv"`` → ("iv", None),
    ``"pi_msm_1.25"`` → ("msm", 1.25) (App. B.5).
    """
    view = str(view)
    if view == "pi_manski":
        return ("manski", None)
    if view == "pi_iv":
        return ("iv", None)
    m = _MSM.match(view)
    return ("msm", float(m.group("gamma"))) if m else None


def bounds_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Endpoint RMSE, target-CATE containment and width of estimated bounds, per method × assumption (App. F.1).

    Every effect run on a partial-identification view (:func:`bounds_view`;
    family ``causalidview_pi``) with a ``bound_rmse`` or ``containment``;
    units (method, view, world) are replicate means, cells means over worlds.

    Returns:
        :data:`BOUNDS_COLUMNS` (``gamma`` NaN for manski / iv), sorted by
        method, assumption (manski, iv, msm) and Γ. Empty (those columns)
        without such runs.
    """
    rows = effect_rows(runs)
    rows = rows[rows["variant"] == "original"]
    parsed = rows["split"].map(bounds_view)
    rows = rows[parsed.notna()]
    rows = rows[rows["bound_rmse"].notna() | rows["containment"].notna()]
    if not len(rows):
        return pd.DataFrame(columns=BOUNDS_COLUMNS)
    units = _units(rows, BOUND_METRICS, ("method", "split", "world"))
    out = _over(units, ("method", "split"), BOUND_METRICS, sd=("bound_rmse", "containment"),
                count_of="bound_rmse").rename(columns={"split": "view"})
    info = out["view"].map(bounds_view)
    out["assumption"] = info.map(lambda t: t[0])
    out["gamma"] = info.map(lambda t: np.nan if t[1] is None else t[1]).astype("float64")
    out["_a"] = out["assumption"].map(_ASSUMPTIONS.index)
    out = out.sort_values(["method", "_a", "gamma"], kind="stable", na_position="first")
    return out.reset_index(drop=True)[BOUNDS_COLUMNS]


# --------------------------------------------------------------------------- real data (Table 1)


def real_table(runs: pd.DataFrame, family: str = REAL_FAMILY) -> pd.DataFrame:
    """sPEHE² per dataset, view and method: mean ± SD over replicates (paper Table 1, RQ4).

    Each ``ok`` run of ``family`` at the default context size is one
    realisation (replicate) of its dataset (factor ``dataset``, else the
    table's ``scm_id``); the SD is the sample SD over them (ddof 1).

    Returns:
        :data:`REAL_COLUMNS`, sorted by dataset, view, then ``spehe2``
        ascending. Empty (those columns) without such runs.
    """
    rows = effect_rows(runs)
    rows = rows[rows["family"] == family].dropna(subset=["spehe2"])
    if not len(rows):
        return pd.DataFrame(columns=REAL_COLUMNS)
    out = _over(rows.rename(columns={"split": "view"}), ("dataset", "view", "method"), DECOMPOSITION,
                sd=("spehe2",), count="replicates")
    out = out.sort_values(["dataset", "spehe2", "method"], kind="stable")
    parts = [_sort_views(g, then=("spehe2", "method")) for _, g in out.groupby("dataset", sort=False)]
    return pd.concat(parts, ignore_index=True)[REAL_COLUMNS]


# --------------------------------------------------------------------------- context length (Table 8)


def context_table(runs: pd.DataFrame, family: str = EFFECT_FAMILY) -> pd.DataFrame:
    """sPEHE² per view, method and context length (paper App. F.2, Table 8).

    Only when the store holds runs with ``n_override`` (``arena run --n``):
    the original variant of ``family`` at every context length, the default
    runs counted at their own context size (the run's ``n``). Units (method,
    view, world, n_context), cells mean ± SD over worlds.

    Returns:
        :data:`CONTEXT_COLUMNS` (``n_context`` int), sorted by view, method,
        ``n_context`` descending (default first, like Table 8). Empty (those
        columns) when no run has an ``n_override``.
    """
    if "n_override" not in runs.columns or not (effect_mask(runs) & runs["n_override"].notna()).any():
        return pd.DataFrame(columns=CONTEXT_COLUMNS)
    rows = effect_rows(runs, relax=("n_override",))
    rows = rows[(rows["family"] == family) & (rows["variant"] == "original")].dropna(subset=["spehe2"])
    n_ctx = rows["n_override"].astype("float64")
    if "n" in rows.columns:
        n_ctx = n_ctx.fillna(rows["n"].astype("float64"))
    rows = rows.assign(n_context=n_ctx).dropna(subset=["n_context"])
    if not len(rows):
        return pd.DataFrame(columns=CONTEXT_COLUMNS)
    rows["n_context"] = rows["n_context"].astype("int64")
    units = _units(rows, ["spehe2"], ("split", "method", "n_context", "world"))
    out = _over(units, ("split", "method", "n_context"), ["spehe2"], sd=("spehe2",)).rename(columns={"split": "view"})
    order = {v: i for i, v in enumerate(view_order(out["view"]))}
    out = out.assign(_o=out["view"].map(order), _n=-out["n_context"])
    out = out.sort_values(["_o", "method", "_n"], kind="stable").drop(columns=["_o", "_n"])
    out["n_context"] = out["n_context"].astype("int64")
    return out.reset_index(drop=True)[CONTEXT_COLUMNS]


# --------------------------------------------------------------------------- statuses


def effect_status(runs: pd.DataFrame) -> pd.DataFrame:
    """Effect runs per method by status: ok, missing (``unsupported``: a view the method does not declare,
    never a failure), failed (every failure status) — every configuration, each cell once.

    Returns:
        :data:`STATUS_COLUMNS` (``failure statuses`` e.g. ``"failed 2, timeout 1"``,
        ``views ok`` / ``views unsupported`` the views, paper order), sorted by
        method. Empty (those columns) without effect runs.
    """
    from causalarena.records import FAILURE_STATUSES

    eff = runs[effect_mask(runs)]
    if not len(eff):
        return pd.DataFrame(columns=STATUS_COLUMNS)
    if "finished_at" in eff.columns:
        key = [c for c in ("family", "scm_id", "split", "replicate", "method", "config_hash") if c in eff.columns]
        eff = eff.sort_values("finished_at", kind="stable", na_position="first").drop_duplicates(key, keep="last")
    out = []
    for method, g in eff.groupby(eff["method"].astype(str), sort=True):
        status = g["status"].astype(str)
        fails = status[status.isin(FAILURE_STATUSES)].value_counts()
        out.append({"method": method, "runs": int(len(g)), "ok": int((status == "ok").sum()),
                    "missing (unsupported)": int((status == "unsupported").sum()), "failed": int(fails.sum()),
                    "failure statuses": ", ".join(f"{s} {int(c)}" for s, c in sorted(fails.items())),
                    "views ok": ", ".join(view_order(g.loc[status == "ok", "split"])),
                    "views unsupported": ", ".join(view_order(g.loc[status == "unsupported", "split"]))})
    return pd.DataFrame(out, columns=STATUS_COLUMNS)
