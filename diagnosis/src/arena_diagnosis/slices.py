"""Unit scores and slice scores: the paper's Eq. 6, graph- and edge-level (§3.2, §5.1, §6.1).

A **unit** is one (method, family, scm_id, split): the replicate mean of each
metric over its ``ok`` runs (paper §5.1: "for each SCM ... we first average F1
and SHD separately over repeated runs, yielding one score per metric per
unit"). Every analysis of this package starts from :func:`unit_scores`.

**Main benchmark rows** (:func:`main_rows`): discovery runs (``task`` None,
NaN or ``"discovery"``: the effect-estimation runs of :mod:`arena_diagnosis.effect`
share the store and never enter a discovery analysis), ``status == "ok"``, protocol
``"default"``, no suite, standardised inputs, the split's default n
(``n_override`` None). A missing optional column (older stores) or a missing
value (None / NaN) in ``protocol`` / ``standardise`` counts as the default.
A method run under several configurations (other ``params`` or CPDAG scoring
policies) gets one label per configuration, exactly as the leaderboard does
(``"pc [params=…]"``, :func:`causalarena.report.leaderboard_numeric`), so
configurations are never pooled; the same cell stored twice counts once (the
latest ``finished_at`` stands).

**Factors** (:func:`unit_levels`): a factor name is resolved, in order, as

1. an alias: ``"difficulty"`` → ``difficulty_level``, ``"mechanism"`` →
   ``mechanisms``, ``"noise"`` → ``noises``, ``"root"`` → ``roots``,
   ``"graph_family"`` → ``graph``, ``"standardisation"`` → ``standardise``,
   ``"stressors"`` → the factors' ``difficulty`` list, ``"table"`` →
   ``scm_id``;
2. a run column (``family``, ``split``, ``d``, ``n``, ``protocol``,
   ``standardise``, ``scm_id``, ``suite``, ``output_kind``, …);
3. any key of the runs' ``factors`` JSON (``graph``, ``root_dependency``,
   ``domain`` of the semantic / formula cards, ``mechanisms`` …).

A list-valued factor puts the unit in every category present in it; a None
value puts it in none. Levels are strings. Slicing by ``protocol``, ``n`` or
``standardise`` lifts the main-benchmark filter on that one dimension (the
factor would otherwise have a single level) and adds it to the unit key.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from itertools import chain
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

__all__ = [
    "UNIT_KEY",
    "MAIN_FILTERS",
    "SLICE_COLUMNS",
    "EDGE_SLICE_COLUMNS",
    "EDGE_FACTORS",
    "main_rows",
    "discovery_mask",
    "discovery_rows",
    "unit_scores",
    "unit_levels",
    "available_factors",
    "slice_scores",
    "edge_slice_scores",
    "edge_unit_scores",
    "NO_PREDICTIONS",
]

#: the columns that identify a unit (paper §5.1)
UNIT_KEY = ("method", "family", "scm_id", "split")
#: run columns of the main-benchmark filter and the value a main row has there
MAIN_FILTERS = ("protocol", "suite", "standardise", "n_override")
SLICE_COLUMNS = ["factor", "level", "method", "split", "score", "sd", "units"]
EDGE_SLICE_COLUMNS = ["factor", "level", "method", "split", "precision", "recall", "f1", "units"]
#: edge-level factors: the child node's tag key in ``Truth.node_tags`` (§6.1)
EDGE_FACTORS = ("mechanism", "noise")

_REQUIRED = ("family", "scm_id", "split", "replicate", "method", "status")
_ALIASES = {"difficulty": "difficulty_level", "mechanism": "mechanisms", "noise": "noises", "root": "roots",
            "graph_family": "graph", "standardisation": "standardise", "table": "scm_id"}
#: factors JSON keys reachable under another name (their own name is taken by an alias)
_FACTOR_KEY_ALIASES = {"stressors": "difficulty"}
#: run columns a unit carries (first value of its runs) and may be sliced by
_UNIT_COLUMNS = ("d", "n", "protocol", "standardise", "suite", "n_override", "output_kind", "factors")
#: factors whose slice lifts the main filter of the same dimension
_RELAX = {"protocol": ("protocol", "suite"), "n": ("n_override", "suite"), "standardise": ("standardise",)}
#: runs columns that are per-run measurements, never factors
_NOT_FACTORS = {"replicate", "method", "config_hash", "status", "wall_seconds", "fit_seconds", "load_seconds",
                "peak_rss_mb", "error", "flags", "params", "seed", "python", "method_version", "started_at",
                "finished_at", "start_seconds", "worker_id", "worker_seq", "isolation", "scoring", "factors",
                "varsortability", "r2_sortability",
                # the metric columns of runs_frame: scores, not factors
                "f1", "shd", "precision", "recall", "sid", "nshd", "auroc", "ap", "fdr", "n_edges"}


def check_runs(runs: Any, metrics: Sequence[str] = ()) -> None:
    """Raise unless ``runs`` is a DataFrame with the unit columns and the ``metrics`` asked for.

    Raises:
        TypeError: ``runs`` is not a DataFrame.
        ValueError: a required column or metric column is missing (named, with the columns present).
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}")
    missing = [c for c in _REQUIRED if c not in runs.columns]
    if missing:
        raise ValueError(f"runs is missing column(s) {missing}; has {list(runs.columns)}")
    missing = [m for m in metrics if m not in runs.columns]
    if missing:
        raise ValueError(f"runs has no metric column(s) {missing}; metric columns need a run column of that name "
                         f"(has {list(runs.columns)})")


def _is_missing(s: pd.Series) -> pd.Series:
    """True where a value is None / NaN (object columns mix both)."""
    return s.isna()


def discovery_mask(runs: pd.DataFrame) -> pd.Series:
    """True for the discovery runs: ``task`` None / NaN (stored before the effect task) or ``"discovery"``.

    A store without the ``task`` column holds discovery runs only (all True).
    """
    if "task" not in runs.columns:
        return pd.Series(True, index=runs.index)
    task = runs["task"]
    return _is_missing(task) | (task.astype(str) == "discovery")


def discovery_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """The discovery runs of ``runs`` (:func:`discovery_mask`), every status and configuration."""
    return runs[discovery_mask(runs)]


def main_mask(runs: pd.DataFrame, relax: Iterable[str] = (), status_ok: bool = True,
              task: Optional[str] = "discovery") -> pd.Series:
    """Boolean mask of the main-benchmark rows (see the module docstring).

    Args:
        runs: runs table.
        relax: filters of :data:`MAIN_FILTERS` not applied.
        status_ok: also require ``status == "ok"``.
        task: ``"discovery"`` (default: :func:`discovery_mask`), ``"effect"``
            (``task == "effect"``, :mod:`arena_diagnosis.effect`) or None (both).
    """
    relax = set(relax)
    unknown = relax - set(MAIN_FILTERS)
    if unknown:
        raise ValueError(f"relax names unknown main filter(s) {sorted(unknown)}; known: {list(MAIN_FILTERS)}")
    mask = pd.Series(True, index=runs.index)
    if task == "discovery":
        mask &= discovery_mask(runs)
    elif task is not None:
        mask &= (runs["task"].astype(str) == str(task)) if "task" in runs.columns else False
    if status_ok:
        mask &= runs["status"].astype(str) == "ok"
    if "protocol" in runs.columns and "protocol" not in relax:
        p = runs["protocol"]
        mask &= _is_missing(p) | (p.astype(str) == "default")
    if "suite" in runs.columns and "suite" not in relax:
        s = runs["suite"]
        mask &= _is_missing(s) | (s.astype(str) == "")
    if "standardise" in runs.columns and "standardise" not in relax:
        s = runs["standardise"]
        # None (stored before the column existed) is the runner's default, standardised
        mask &= s.astype(object).where(~_is_missing(s), True).astype(bool)
    if "n_override" in runs.columns and "n_override" not in relax:
        mask &= _is_missing(runs["n_override"])
    return mask


def _labelled(runs: pd.DataFrame, apart: Iterable[str] = ()) -> pd.DataFrame:
    """``runs`` with leaderboard configuration labels and one row per cell (latest finished_at).

    ``apart``: columns kept apart by the caller (a unit-key column, a lifted
    filter), so they do not go into the label.
    """
    from causalarena.report import config_labels

    runs = runs.copy()
    if not len(runs):
        return runs
    # the leaderboard's own labelling, so a unit's method is the leaderboard row it feeds
    apart = [c for c in apart if c in runs.columns]
    runs["method"] = config_labels(runs.drop(columns=apart) if apart else runs)
    if "finished_at" in runs.columns:
        key = ["method", "family", "scm_id", "split", "replicate"]
        key += [c for c in ("protocol", "n_override", "standardise") if c in runs.columns]
        runs = (runs.sort_values("finished_at", kind="stable", na_position="first")
                .drop_duplicates(key, keep="last").sort_index())
    return runs


def main_rows(runs: pd.DataFrame, relax: Iterable[str] = (), status_ok: bool = True) -> pd.DataFrame:
    """The main-benchmark rows of ``runs``, configuration-labelled and deduplicated (module docstring).

    Args:
        runs: runs table (:meth:`causalarena.store.Store.runs_frame`).
        relax: main filters not applied (of :data:`MAIN_FILTERS`).
        status_ok: keep only ``ok`` runs (False keeps every status, for the leaderboard's failure counts).

    Returns:
        A copy of the selected rows; ``method`` holds the configuration label.

    Raises:
        ValueError: a required column is missing.
    """
    check_runs(runs)
    return _labelled(runs[main_mask(runs, relax, status_ok)], apart=relax)


@lru_cache(maxsize=None)
def _loads(text: Any) -> Dict[str, Any]:
    # one json.loads per distinct factors string: an SCM's runs share one string
    if not isinstance(text, str) or not text:
        return {}
    out = json.loads(text)
    return out if isinstance(out, dict) else {}


def unit_scores(runs: pd.DataFrame, metrics: Sequence[str] = ("f1", "shd"), main_only: bool = True,
                by: Sequence[str] = (), relax: Iterable[str] = ()) -> pd.DataFrame:
    """Replicate-mean metrics per unit (method, family, scm_id, split) (paper §5.1).

    Args:
        runs: runs table, one row per run.
        metrics: metric columns averaged over replicates (NaN skipped).
        main_only: keep only main-benchmark rows (:func:`main_rows`); False
            keeps every ``ok`` row (then pass ``by`` to keep, e.g., protocols apart).
        by: extra run columns added to the unit key (``"protocol"``, ``"n"`` …).
        relax: main filters lifted (of :data:`MAIN_FILTERS`; ignored when not ``main_only``).

    Returns:
        One row per unit with columns ``method, family, scm_id, split``, then
        ``by``, one float column per metric (replicate mean; NaN when every
        replicate lacks it), ``replicates`` (ok runs averaged) and the unit's
        ``d, n, protocol, standardise, suite, n_override, output_kind,
        factors`` (first run's value; ``factors`` is the JSON string) where
        ``runs`` has them. Empty (same columns) when nothing qualifies.

    Raises:
        ValueError: a required, ``by`` or metric column is missing (named).
    """
    metrics = list(metrics)
    check_runs(runs, metrics)
    missing = [c for c in by if c not in runs.columns]
    if missing:
        raise ValueError(f"unit key column(s) {missing} are not run columns; has {list(runs.columns)}")
    if main_only:
        rows = _labelled(runs[main_mask(runs, relax)], apart=(*relax, *by))
    else:
        rows = _labelled(runs[(runs["status"].astype(str) == "ok") & discovery_mask(runs)], apart=by)
    key = list(UNIT_KEY) + [c for c in by if c not in UNIT_KEY]
    carried = [c for c in _UNIT_COLUMNS if c in runs.columns and c not in key]
    cols = key + metrics + ["replicates"] + carried
    if not len(rows):
        return pd.DataFrame({c: pd.Series(dtype=float if c in metrics else object) for c in cols})
    grouped = rows.groupby(key, sort=False, dropna=False)
    out = grouped[metrics].mean() if metrics else grouped.size().to_frame("_n")[[]]
    out["replicates"] = grouped.size()
    if carried:
        out = out.join(grouped[carried].first())
    out = out.reset_index()
    for m in metrics:
        out[m] = out[m].astype("float64")
    return out[cols]


def _resolve(units: pd.DataFrame, factor: str) -> Tuple[str, str]:
    """(source, key): source "column" or "factors"; raise naming the available factors."""
    if not isinstance(factor, str) or not factor:
        raise ValueError(f"factor must be a non-empty string, got {factor!r}")
    if factor in _FACTOR_KEY_ALIASES:
        return "factors", _FACTOR_KEY_ALIASES[factor]
    name = _ALIASES.get(factor, factor)
    if name in units.columns and name not in _NOT_FACTORS:
        return "column", name
    keys = _factor_keys(units)
    if name in keys:
        return "factors", name
    raise ValueError(f"unknown factor {factor!r}: the runs hold {available_factors(units)}")


def _factor_keys(units: pd.DataFrame) -> List[str]:
    if "factors" not in units.columns:
        return []
    seen: Dict[str, None] = {}
    for text in pd.unique(units["factors"].dropna()):
        seen.update(dict.fromkeys(_loads(text)))
    return list(seen)


def available_factors(units: pd.DataFrame) -> List[str]:
    """Factor names a slice accepts on these units (or runs): run columns, factors keys, aliases; sorted."""
    cols = [c for c in units.columns if c not in _NOT_FACTORS and c not in _REQUIRED[3:]
            and not str(c).startswith("metric_") and c not in ("replicates", "_n")]
    keys = _factor_keys(units)
    present = set(cols) | set(keys)
    aliases = [a for a, k in _ALIASES.items() if k in present]
    aliases += [a for a, k in _FACTOR_KEY_ALIASES.items() if k in keys]
    return sorted(set(cols) | set(keys) | set(aliases))


def _levels_of(value: Any) -> List[str]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, (list, tuple, set)):
        return [str(v) for v in dict.fromkeys(value) if v is not None]
    if isinstance(value, (bool, np.bool_)):
        return [str(bool(value))]
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return [str(int(value))]  # n and d come back as floats from a column with NaN
    return [str(value)]


def unit_levels(units: pd.DataFrame, factor: str) -> pd.DataFrame:
    """Long (unit row, level) table: each unit once per category of ``factor`` it carries.

    Args:
        units: :func:`unit_scores` output (any frame with a ``factors`` column works).
        factor: factor name (module docstring).

    Returns:
        ``units`` rows repeated once per level, index reset, with a str column
        ``level`` (a unit without the factor is absent).

    Raises:
        ValueError: unknown factor, listing the available ones.
    """
    source, key = _resolve(units, factor)
    if not len(units):
        return units.assign(level=pd.Series(dtype=object))
    if source == "column":
        values = units[key]
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        per_unique = [_levels_of(v) for v in uniques]
    else:
        codes, uniques = pd.factorize(units["factors"], use_na_sentinel=True)
        per_unique = [_levels_of(_loads(t).get(key)) for t in uniques]
    per_unique.append([])  # code -1 (missing) -> no level
    lens = np.array([len(x) for x in per_unique])[codes]
    table = np.empty(len(per_unique), dtype=object)
    table[:] = per_unique
    flat = list(chain.from_iterable(table[codes]))
    out = units.iloc[np.repeat(np.arange(len(units)), lens)].reset_index(drop=True)
    out["level"] = pd.Series(flat, dtype=object)
    return out


def level_order(levels: Iterable[str]) -> List[str]:
    """Numeric levels in numeric order, others alphabetically (numbers first)."""
    def key(v: str) -> Tuple[int, float, str]:
        try:
            return (0, float(v), v)
        except ValueError:
            return (1, 0.0, v)
    return sorted(dict.fromkeys(levels), key=key)


def _relax_for(factor: str) -> Tuple[str, ...]:
    return _RELAX.get(_ALIASES.get(factor, factor), ())


def _factor_units(runs: pd.DataFrame, factor: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Units for slicing by ``factor``: a run-column factor joins the unit key, its main filter lifted.

    Raises:
        ValueError: unknown factor (checked on ``runs``, so also on an empty slice).
    """
    source, key = _resolve(runs, factor)
    by = (key,) if source == "column" and key not in UNIT_KEY else ()
    return unit_scores(runs, metrics, by=by, relax=_relax_for(factor))


def slice_scores(runs: pd.DataFrame, factor: str, metric: str = "f1", split: Optional[str] = None,
                 family: Optional[str] = None) -> pd.DataFrame:
    """Slice scores Score_c(M) of Eq. 6 for every category c of one graph-level factor.

    Score_c = mean over the units carrying c of the unit's replicate-mean
    ``metric`` (a unit with a list-valued factor counts in every category
    present; NaN unit scores skipped).

    Args:
        runs: runs table.
        factor: any factor (module docstring): ``graph``, ``d``, ``difficulty``,
            ``root_dependency``, ``domain``, ``protocol``, ``n``, ``split``,
            ``standardise``, ``mechanism`` (graph-level list) …
        metric: metric column.
        split: keep one split (None: every split, one row per split).
        family: keep one family (None: all).

    Returns:
        Columns ``factor, level, method, split, score, sd, units``: level str,
        score the mean, sd the sample SD over units (ddof 1; NaN with one
        unit), units the number of units with a score. Rows sorted by level
        (numeric order where numeric), split, method. Empty with those columns
        when nothing qualifies.

    Raises:
        ValueError: unknown factor (listing the available ones), missing columns.
    """
    check_runs(runs, [metric])
    units = _factor_units(runs, factor, [metric])
    if split is not None:
        units = units[units["split"] == split]
    if family is not None:
        units = units[units["family"] == family]
    long = unit_levels(units, factor).dropna(subset=[metric])
    if not len(long):
        return pd.DataFrame(columns=SLICE_COLUMNS)
    g = long.groupby(["level", "method", "split"], sort=False)[metric]
    out = g.agg(score="mean", sd=_sd_agg, units="count").reset_index()
    out.insert(0, "factor", factor)
    return _sort_levels(out)[SLICE_COLUMNS]


def _sd_agg(x: pd.Series) -> float:
    return float(x.std(ddof=1)) if x.count() > 1 else math.nan


def _sort_levels(out: pd.DataFrame, extra: Sequence[str] = ("split", "method")) -> pd.DataFrame:
    order = {lv: i for i, lv in enumerate(level_order(out["level"]))}
    out = out.assign(_o=out["level"].map(order))
    out = out.sort_values(["_o", *extra], kind="stable").drop(columns="_o")
    out["units"] = out["units"].astype("int64")
    return out.reset_index(drop=True)


# ---------------------------------------------------------------------------
# edge level (§6.1)
# ---------------------------------------------------------------------------

_PRED_KEY = ("family", "scm_id", "split", "replicate", "method", "config_hash")


NO_PREDICTIONS = ("the results folder stores no predicted graphs for these runs (stored before predictions "
                  "were kept); rerun the methods (`arena run … --retry`) to store them, then "
                  "`arena rescore --results DIR` recomputes metrics from them")


def _child_tags(truth: Any, key: str, truth_id: str) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """(columns, category codes, categories) of the child nodes tagged ``key`` in one truth."""
    tags = getattr(truth, "node_tags", None)
    adj = np.asarray(truth.adjacency)
    d = adj.shape[0] if adj.ndim == 2 else -1
    if adj.ndim != 2 or adj.shape[0] != adj.shape[1]:
        raise ValueError(f"truth {truth_id!r}: adjacency must be d x d, got shape {adj.shape}")
    if tags is None or len(tags) != d:
        raise ValueError(f"truth {truth_id!r}: node_tags must hold one dict per column ({d}), "
                         f"got {None if tags is None else len(tags)}")
    cols: List[int] = []
    cats: List[str] = []
    for j, t in enumerate(tags):
        for level in _levels_of((t or {}).get(key)):
            cols.append(j)
            cats.append(level)
    uniq = list(dict.fromkeys(cats))
    codes = np.array([uniq.index(c) for c in cats], dtype=np.int64)
    return np.array(cols, dtype=np.int64), codes, uniq


#: the last few edge-level unit tables: the report asks for the same (runs, predictions, factor) from the
#: edge slices and the edge-level interactions, and one pass over 100,000 predictions costs seconds
_EDGE_CACHE: Dict[Tuple[Any, ...], Tuple[Any, ...]] = {}
_EDGE_CACHE_SIZE = 4


def edge_unit_scores(runs: pd.DataFrame, predictions: Optional[pd.DataFrame], truths: Mapping[str, Any],
                     factor: str) -> pd.DataFrame:
    """Edge-level precision / recall / F1 per (unit, category); memoised on its inputs (see :func:`_edge_unit_scores`).

    The cache key is the identity of ``predictions`` and ``truths`` (held by
    the cache, so an identity is never reused while cached), ``factor`` and a
    hash of ``runs`` (its key columns, status and metrics), so a changed runs
    table is recomputed; callers get a copy.
    """
    if predictions is None or not isinstance(runs, pd.DataFrame):
        return _edge_unit_scores(runs, predictions, truths, factor)
    cols = [c for c in (*UNIT_KEY, "replicate", "config_hash", "status", "protocol", "suite", "standardise",
                        "n_override", "finished_at") if c in runs.columns]
    digest = int(pd.util.hash_pandas_object(runs[cols].astype(str), index=True).sum()) if len(runs) else 0
    key = (id(predictions), id(truths), factor, len(runs), digest)
    hit = _EDGE_CACHE.get(key)
    if hit is not None:
        return hit[0].copy()
    out = _edge_unit_scores(runs, predictions, truths, factor)
    if len(_EDGE_CACHE) >= _EDGE_CACHE_SIZE:
        _EDGE_CACHE.pop(next(iter(_EDGE_CACHE)))
    _EDGE_CACHE[key] = (out, predictions, truths)
    return out.copy()


def _edge_unit_scores(runs: pd.DataFrame, predictions: Optional[pd.DataFrame], truths: Mapping[str, Any],
                      factor: str) -> pd.DataFrame:
    """Edge-level precision / recall / F1 per (unit, category) of a child-node factor (§6.1).

    For a prediction Â of a run with truth A (``A[i, j]`` = edge i → j) and
    a category c of ``factor`` (``"mechanism"`` or ``"noise"``), the
    candidate edges are all i → j whose **child** j carries c
    (``truth.node_tags[j][factor] == c``):

    * TP_c = #{(i, j): Â[i, j] and A[i, j], j a c-child};
    * pred_c = #{(i, j): Â[i, j], j a c-child}; true_c = #{(i, j): A[i, j], j a c-child};
    * precision = TP_c / pred_c (0 when pred_c = 0), recall = TP_c / true_c
      (0 when true_c = 0), F1 = 2·TP_c / (pred_c + true_c) (= 2PR / (P + R);
      0 when pred_c + true_c = 0) — the zero-division convention of
      :mod:`causalarena.metrics` (case M2), so the edge-level numbers pooled
      over every category tag equal the graph-level ones on the tagged children.

    Per unit (method, family, scm_id, split) the three are averaged over
    replicates. Only predictions of main-benchmark ``ok`` runs count (matched
    to ``runs`` on family, scm_id, split, replicate, method, config_hash).

    Args:
        runs: runs table.
        predictions: one row per stored prediction (columns family, scm_id,
            split, replicate, method, config_hash, adjacency, truth_id; the
            adjacency d x d bool after orientation).
        truths: truth_id → Truth (``adjacency`` d x d bool, ``node_tags`` one dict per column).
        factor: ``"mechanism"`` or ``"noise"``.

    Returns:
        Columns ``method, family, scm_id, split, level, precision, recall, f1,
        replicates``. Empty when there are no matching predictions; its
        ``attrs["reason"]`` then says why (:data:`NO_PREDICTIONS` when the
        store holds none).

    Raises:
        ValueError: factor not edge-level; a prediction's truth_id missing from
            ``truths``; shapes of prediction and truth differ; missing columns.
    """
    if factor not in EDGE_FACTORS:
        raise ValueError(f"edge-level factor must be one of {list(EDGE_FACTORS)} (the child node's tag), "
                         f"got {factor!r}")
    check_runs(runs)
    cols = ["method", "family", "scm_id", "split", "level", "precision", "recall", "f1", "replicates"]
    empty = pd.DataFrame(columns=cols)
    if predictions is None or not len(predictions):
        empty.attrs["reason"] = NO_PREDICTIONS
        return empty
    need = [c for c in (*_PRED_KEY[:5], "adjacency", "truth_id") if c not in predictions.columns]
    if need:
        raise ValueError(f"predictions is missing column(s) {need}; has {list(predictions.columns)}")
    main = main_rows(runs)
    key = [c for c in _PRED_KEY if c in predictions.columns and c in main.columns]
    # runs' method is the configuration label; the predictions carry the raw name
    raw = runs.loc[main.index, "method"].rename("_raw")
    main = main.assign(_raw=raw)
    left = main[[c if c != "method" else "_raw" for c in key] + ["method"]].rename(columns={"_raw": "_m"})
    pk = predictions[key + ["adjacency", "truth_id"]].rename(columns={"method": "_m"})
    joined = pk.merge(left, on=[c if c != "method" else "_m" for c in key], how="inner")
    if not len(joined):
        empty.attrs["reason"] = "no stored prediction belongs to a main-benchmark ok run"
        return empty
    cache: Dict[str, Tuple[np.ndarray, np.ndarray, List[str], np.ndarray]] = {}
    out_idx: List[np.ndarray] = []
    out_cat: List[str] = []
    out_counts: List[np.ndarray] = []
    for row, (adj_hat, tid) in enumerate(zip(joined["adjacency"], joined["truth_id"])):
        if tid not in cache:
            if tid not in truths:
                raise ValueError(f"prediction row {row} ({joined['method'].iloc[row]}, "
                                 f"{joined['scm_id'].iloc[row]}) names truth {tid!r}, which is not in truths")
            t = truths[tid]
            c_cols, c_codes, c_uniq = _child_tags(t, factor, tid)
            cache[tid] = (c_cols, c_codes, c_uniq, np.asarray(t.adjacency, dtype=bool))
        c_cols, c_codes, c_uniq, a_true = cache[tid]
        if not len(c_uniq):
            continue
        a_hat = np.asarray(adj_hat, dtype=bool)
        if a_hat.shape != a_true.shape:
            raise ValueError(f"prediction row {row} ({joined['method'].iloc[row]}, {joined['scm_id'].iloc[row]}): "
                             f"adjacency shape {a_hat.shape} differs from truth {tid!r} {a_true.shape}")
        # per-child column sums, then summed per category: one pass per prediction
        tp = (a_hat & a_true).sum(axis=0)[c_cols]
        pr = a_hat.sum(axis=0)[c_cols]
        tr = a_true.sum(axis=0)[c_cols]
        k = len(c_uniq)
        counts = np.stack([np.bincount(c_codes, weights=w, minlength=k) for w in (tp, pr, tr)], axis=1)
        out_idx.append(np.full(k, row))
        out_cat.extend(c_uniq)
        out_counts.append(counts)
    if not out_idx:
        empty.attrs["reason"] = f"no truth of these predictions tags a child node with {factor!r}"
        return empty
    idx = np.concatenate(out_idx)
    counts = np.concatenate(out_counts)
    tp, pr, tr = counts[:, 0], counts[:, 1], counts[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(pr > 0, tp / np.where(pr > 0, pr, 1), 0.0)
        rec = np.where(tr > 0, tp / np.where(tr > 0, tr, 1), 0.0)
        f1 = np.where(pr + tr > 0, 2 * tp / np.where(pr + tr > 0, pr + tr, 1), 0.0)
    per = joined.iloc[idx][["method", "family", "scm_id", "split"]].reset_index(drop=True)
    per["level"] = out_cat
    per["precision"], per["recall"], per["f1"] = prec, rec, f1
    g = per.groupby(["method", "family", "scm_id", "split", "level"], sort=False)
    out = g[["precision", "recall", "f1"]].mean()
    out["replicates"] = g.size()
    return out.reset_index()[cols]


def edge_slice_scores(runs: pd.DataFrame, predictions: Optional[pd.DataFrame], truths: Mapping[str, Any],
                      factor: str, split: Optional[str] = None) -> pd.DataFrame:
    """Edge-level slice scores for a child-node factor (§6.1; definitions in :func:`edge_unit_scores`).

    Per category c: the macro mean over units of each unit's replicate-mean
    precision, recall and F1 on the edges into c-children; a unit
    contributes to every category present among its children.

    Args:
        runs, predictions, truths, factor: as :func:`edge_unit_scores`.
        split: keep one split (None: every split).

    Returns:
        Columns ``factor, level, method, split, precision, recall, f1,
        units`` (units = number of units carrying the category), sorted by
        level, split, method. Empty with these columns when no prediction
        matches; ``attrs["reason"]`` then says why.

    Raises:
        ValueError: as :func:`edge_unit_scores`.
    """
    per = edge_unit_scores(runs, predictions, truths, factor)
    if split is not None:
        per = per[per["split"] == split]
    if not len(per):
        out = pd.DataFrame(columns=EDGE_SLICE_COLUMNS)
        out.attrs["reason"] = per.attrs.get("reason", f"no predictions on split {split!r}")
        return out
    g = per.groupby(["level", "method", "split"], sort=False)
    out = g[["precision", "recall", "f1"]].mean()
    out["units"] = g.size()
    out = out.reset_index()
    out.insert(0, "factor", factor)
    return _sort_levels(out)[EDGE_SLICE_COLUMNS]
