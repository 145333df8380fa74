"""Pretraining-exposure OOD analysis (paper §6.2, Eq. 8–10, Fig. 14–16).

Data: the main-benchmark units of the synthetic family on the obs-only split
(scenario-level F1, replicate means). For a method m with a declared
pretraining prior and an axis a:

* categories: every category of the axis present in those units (axis →
  factors key: graph → ``graph``, mechanism → ``mechanisms``, noise →
  ``noises``, root → ``roots``; a scenario contributes to every category
  present in it); ``total`` = their number, ``covered`` = how many the prior
  lists (prior categories absent from the pool do not count, as in Fig. 14),
  ``ratio`` = covered / total;
* a category's score = the mean F1 over the method's scenarios carrying it;
  F^ID (F^OOD) = the macro mean of the method's category scores over the
  covered (not covered) categories it has scores on;
* the reference on the same slices: per category, the mean of the reference
  methods' category scores (those that have it), then the macro mean over the
  same categories; R = (F − ref) / ref for ID and OOD (Eq. 8), gap = R^ID − R^OOD;
* summary: ``coverage`` c, ``r_id``, ``r_ood``, ``gap`` = unweighted means over
  the four axes graph / mechanism / noise / root (over those where defined),
  δ = (1 + R̄^ID) / (1 + R̄^OOD) − 1 (Eq. 9), F = the leaderboard Avg F1
  (:func:`arena_diagnosis.frontier.average_f1`), F̂^OOD = F / (1 + cδ),
  F̂^ID = F(1 + δ) / (1 + cδ) (Eq. 10).

``d_range`` / ``n_range`` of a prior add the axes ``"d"`` / ``"n"``: their
categories are the observed d (n) values of the units, ID those inside the
inclusive range. They appear in ``coverage`` and ``axes`` but not in the
four-axis means (the paper's summary has four axes).

An axis without ID or OOD categories (or whose reference mean is zero or
missing) gives NaN there, with the reason in :attr:`Exposure.notes`. An axis
the prior leaves out is *not declared* (``causalarena.records.PretrainingPrior``:
not the same as "nothing"): its ``covered`` and ``ratio`` are NaN, its
``axes`` row all NaN, and the four-axis means skip it.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import attrs
import numpy as np
import pandas as pd

from .frontier import average_f1
from .slices import check_runs, discovery_rows, unit_levels, unit_scores

__all__ = ["AXES", "AXIS_KEYS", "DEFAULT_REFERENCE", "Exposure", "exposure"]

#: the four factor axes of §6.2 and their factors key
AXIS_KEYS = {"graph": "graph", "mechanism": "mechanisms", "noise": "noises", "root": "roots"}
AXES = tuple(AXIS_KEYS)
#: the graphical-search reference group (paper: CDIS, GIES, IGSP, PC; here the installed ones)
DEFAULT_REFERENCE = ("pc", "ges", "gies", "igsp", "fci")
NO_PRIOR = "declares no pretraining prior"

COVERAGE_COLUMNS = ["method", "axis", "covered", "total", "ratio"]
AXES_COLUMNS = ["method", "axis", "f_id", "f_ood", "ref_id", "ref_ood", "r_id", "r_ood", "gap"]
SUMMARY_COLUMNS = ["method", "coverage", "r_id", "r_ood", "gap", "delta", "f", "f_hat_id", "f_hat_ood"]
SKIPPED_COLUMNS = ["method", "reason"]
NOTES_COLUMNS = ["method", "axis", "reason"]


@attrs.frozen
class Exposure:
    """The §6.2 tables (module docstring has the definitions).

    Attributes:
        coverage: ``method, axis, covered, total, ratio`` (Fig. 14).
        axes: ``method, axis, f_id, f_ood, ref_id, ref_ood, r_id, r_ood, gap`` (Fig. 15 top / middle).
        summary: ``method, coverage, r_id, r_ood, gap, delta, f, f_hat_id, f_hat_ood`` (Fig. 15 bottom, 16).
        skipped: ``method, reason``: methods left out (no prior, no obs synthetic runs).
        notes: ``method, axis, reason``: why a value is NaN.
        reference: the reference methods used.
    """

    coverage: pd.DataFrame
    axes: pd.DataFrame
    summary: pd.DataFrame
    skipped: pd.DataFrame
    notes: pd.DataFrame
    reference: Tuple[str, ...] = ()


def _base(method: str) -> str:
    return str(method).split(" [", 1)[0]


def _in_range(level: str, rng: Tuple[int, int]) -> bool:
    return float(rng[0]) <= float(level) <= float(rng[1])


def _macro(scores: pd.Series, levels: Sequence[str]) -> float:
    vals = scores.reindex(list(levels)).dropna()
    return float(vals.mean()) if len(vals) else math.nan


def exposure(runs: pd.DataFrame, priors: Mapping[str, Any], reference: Optional[Sequence[str]] = None,
             family: str = "synthetic", split: str = "obs") -> Exposure:
    """Pretraining-exposure coverage, ID / OOD F1 and Eq. 8–10 per method (§6.2).

    Args:
        runs: runs table (needs ``f1``).
        priors: method name → its declared prior (``.axes`` axis → categories,
            ``.d_range``, ``.n_range``, ``.source``) or None. Keys match the
            runs' method (or its base name before `` [``). A method of the runs
            without a prior (absent key or None) is skipped with
            ``"declares no pretraining prior"``.
        reference: reference methods (default :data:`DEFAULT_REFERENCE`, those present).
        family, split: the units analysed (paper: synthetic, obs-only).

    Returns:
        :class:`Exposure`; empty tables (documented columns) when nothing qualifies.

    Raises:
        ValueError: missing columns; a prior whose axes name an unknown axis;
            an explicit ``reference`` none of whose methods appear in ``runs``.
    """
    check_runs(runs, ["f1"])
    if reference is not None:
        ref_names = tuple(reference)
        if not set(ref_names) & set(runs["method"].astype(str)):
            raise ValueError(f"reference methods {list(ref_names)} do not appear in the runs "
                             f"(methods: {sorted(runs['method'].astype(str).unique())})")
    else:
        ref_names = DEFAULT_REFERENCE
    units = unit_scores(runs, ["f1"])
    units = units[(units["family"] == family) & (units["split"] == split)].dropna(subset=["f1"])
    # raw names: the skip list is per declared method (discovery methods: effect runs are not this analysis's)
    methods = sorted(discovery_rows(runs)["method"].astype(str).unique())
    skipped: List[Tuple[str, str]] = []
    notes: List[Tuple[str, str, str]] = []
    analysed: List[Tuple[str, Any]] = []
    labels = sorted(units["method"].unique()) if len(units) else []
    for m in methods:
        prior = priors.get(m)
        if prior is None:
            skipped.append((m, NO_PRIOR))
            continue
        unknown = set(getattr(prior, "axes", {}) or {}) - set(AXES)
        if unknown:
            raise ValueError(f"method {m!r}: prior axes {sorted(unknown)} are not exposure axes {list(AXES)}")
        mine = [lab for lab in labels if _base(lab) == m]
        if not mine:
            skipped.append((m, f"no ok {split} runs on the {family} family"))
            continue
        analysed.extend((lab, prior) for lab in mine)
    empty = Exposure(coverage=pd.DataFrame(columns=COVERAGE_COLUMNS), axes=pd.DataFrame(columns=AXES_COLUMNS),
                     summary=pd.DataFrame(columns=SUMMARY_COLUMNS),
                     skipped=pd.DataFrame(skipped, columns=SKIPPED_COLUMNS),
                     notes=pd.DataFrame(columns=NOTES_COLUMNS), reference=())
    if not analysed:
        return empty
    refs = [lab for lab in labels if lab in ref_names or _base(lab) in ref_names]
    # category scores per (axis, method, level): one table per axis
    cat: Dict[str, pd.DataFrame] = {}
    for axis in (*AXES, "d", "n"):
        key = AXIS_KEYS.get(axis, axis)
        try:
            long = unit_levels(units, key)
        except ValueError:
            continue  # the pool has no such factor: no categories on this axis
        cat[axis] = long.groupby(["method", "level"])["f1"].mean().unstack("level")
    f_avg = average_f1(runs)
    cov_rows, axis_rows, sum_rows = [], [], []
    for lab, prior in analysed:
        axes_spec: List[Tuple[str, Optional[Any]]] = [(a, (getattr(prior, "axes", {}) or {}).get(a))
                                                      for a in AXES]
        if getattr(prior, "d_range", None) is not None:
            axes_spec.append(("d", tuple(prior.d_range)))
        if getattr(prior, "n_range", None) is not None:
            axes_spec.append(("n", tuple(prior.n_range)))
        per_axis: Dict[str, Dict[str, float]] = {}
        for axis, spec in axes_spec:
            table = cat.get(axis)
            levels = list(table.columns) if table is not None else []
            if spec is None:  # the prior leaves the axis out: not declared, which is not "nothing"
                cov_rows.append((lab, axis, math.nan, len(levels), math.nan))
                notes.append((lab, axis, "the prior does not declare this axis"))
                per_axis[axis] = {"r_id": math.nan, "r_ood": math.nan, "gap": math.nan, "ratio": math.nan}
                axis_rows.append((lab, axis, *([math.nan] * (len(AXES_COLUMNS) - 2))))
                continue
            if axis in ("d", "n"):
                id_levels = [lv for lv in levels if _in_range(lv, spec)]
            else:
                declared = {str(c) for c in spec}
                id_levels = [lv for lv in levels if lv in declared]
            ood_levels = [lv for lv in levels if lv not in id_levels]
            cov_rows.append((lab, axis, len(id_levels), len(levels),
                             len(id_levels) / len(levels) if levels else math.nan))
            if not levels:
                notes.append((lab, axis, f"the {family} {split} runs have no {axis} categories"))
            mine = table.loc[lab] if table is not None and lab in table.index else pd.Series(dtype=float)
            ref_cat = (table.reindex([r for r in refs if r in table.index]).mean(axis=0)
                       if table is not None and refs else pd.Series(dtype=float))
            vals = {"f_id": _macro(mine, id_levels), "f_ood": _macro(mine, ood_levels),
                    "ref_id": _macro(ref_cat, id_levels), "ref_ood": _macro(ref_cat, ood_levels)}
            for part, lv in (("id", id_levels), ("ood", ood_levels)):
                f, ref = vals[f"f_{part}"], vals[f"ref_{part}"]
                if levels and not lv:
                    notes.append((lab, axis, f"no {part.upper()} category: the prior covers "
                                             f"{'none' if part == 'id' else 'all'} of the {len(levels)}"))
                    r = math.nan
                elif not refs:
                    if levels:
                        notes.append((lab, axis, f"no reference method ({', '.join(ref_names)}) has "
                                                 f"{family} {split} runs"))
                    r = math.nan
                elif not (ref == ref) or ref == 0:
                    if lv:
                        notes.append((lab, axis, f"reference {part.upper()} mean is "
                                                 f"{'zero' if ref == 0 else 'missing'}: R undefined"))
                    r = math.nan
                else:
                    r = (f - ref) / ref
                vals[f"r_{part}"] = r
            vals["gap"] = vals["r_id"] - vals["r_ood"]
            per_axis[axis] = {**vals, "ratio": cov_rows[-1][-1]}
            axis_rows.append((lab, axis, *(vals[c] for c in AXES_COLUMNS[2:])))
        four = [per_axis[a] for a in AXES if a in per_axis]
        c = _nanmean([p["ratio"] for p in four])
        r_id, r_ood = _nanmean([p["r_id"] for p in four]), _nanmean([p["r_ood"] for p in four])
        gap = _nanmean([p["gap"] for p in four])
        delta = (1 + r_id) / (1 + r_ood) - 1 if r_ood == r_ood and r_ood != -1 else math.nan
        f = float(f_avg.get(lab, math.nan))
        denom = 1 + c * delta
        f_hat_ood = f / denom if denom == denom and denom != 0 else math.nan
        f_hat_id = f * (1 + delta) / denom if denom == denom and denom != 0 else math.nan
        sum_rows.append((lab, c, r_id, r_ood, gap, delta, f, f_hat_id, f_hat_ood))
    return Exposure(coverage=pd.DataFrame(cov_rows, columns=COVERAGE_COLUMNS),
                    axes=pd.DataFrame(axis_rows, columns=AXES_COLUMNS),
                    summary=pd.DataFrame(sum_rows, columns=SUMMARY_COLUMNS),
                    skipped=pd.DataFrame(skipped, columns=SKIPPED_COLUMNS),
                    notes=pd.DataFrame(notes, columns=NOTES_COLUMNS), reference=tuple(refs))


def _nanmean(values: Sequence[float]) -> float:
    arr = np.array([v for v in values if v == v], dtype=float)
    return float(arr.mean()) if len(arr) else math.nan
