"""Pairwise win rates (paper §5.1, Fig. 1 and Fig. 19).

Fig. 1 caption: for each SCM or real dataset, F1 and SHD are first averaged
over replicates (one score per metric per unit); every method pair is then
compared on F1 and on SHD independently (higher F1 wins, lower SHD wins, ties
count 0.5), and the win fraction is pooled over both metric-wise comparisons.
A comparison exists only on a unit where both methods have that metric.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import attrs
import numpy as np
import pandas as pd

from .slices import unit_scores

__all__ = ["WinRates", "win_rates"]


@attrs.frozen
class WinRates:
    """Win-rate tables (Fig. 1, 19). Methods appear in the order of ``by_family["mean"]`` (descending).

    Attributes:
        pairwise: index method (row), columns method (column); value = pooled
            win rate of the row over the column over all units of all families
            (wins + 0.5·ties over comparisons, both metrics), NaN on the
            diagonal and where the two never share a unit.
        by_family: index method, one column per family (the method's pooled
            win rate against every other method on that family's units) and
            ``"mean"`` (unweighted mean over the families where it is defined).
        units: like ``pairwise``; number of units both methods scored (on F1 or SHD); 0 on the diagonal.
        pairwise_by_family: family → a ``pairwise`` table on that family's units.
    """

    pairwise: pd.DataFrame
    by_family: pd.DataFrame
    units: pd.DataFrame
    pairwise_by_family: Dict[str, pd.DataFrame] = attrs.field(factory=dict)


def _pair_counts(scores: np.ndarray, higher_better: bool, chunk: int = 2048) -> Tuple[np.ndarray, np.ndarray]:
    """(wins, comparisons), each M x M, from a U x M score array (NaN = not scored).

    wins[a, b] = Σ_u [a beats b on u] + 0.5 [tie on u], over the units u both
    scored; comparisons[a, b] = number of those units. Chunked over units so
    memory stays U_chunk x M x M.
    """
    m = scores.shape[1]
    wins, comps = np.zeros((m, m)), np.zeros((m, m))
    for start in range(0, scores.shape[0], chunk):
        block = scores[start:start + chunk]
        valid = ~np.isnan(block)
        both = valid[:, :, None] & valid[:, None, :]
        a, b = block[:, :, None], block[:, None, :]
        beats = (a > b) if higher_better else (a < b)  # False wherever a NaN is involved
        wins += (beats & both).sum(axis=0) + 0.5 * ((a == b) & both).sum(axis=0)
        comps += both.sum(axis=0)
    return wins, comps


def _family_counts(units: pd.DataFrame, methods: List[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(wins, comparisons, shared units) on one family's units, pooled over F1 and SHD."""
    m = len(methods)
    wins, comps = np.zeros((m, m)), np.zeros((m, m))
    # (scm_id, method) is unique within one family and split: the unit key
    table = units.pivot(index="scm_id", columns="method", values=["f1", "shd"])
    scored = np.zeros((len(table), m), dtype=bool)
    for metric, higher in (("f1", True), ("shd", False)):
        arr = table[metric].reindex(columns=methods).to_numpy(dtype=float)
        w, c = _pair_counts(arr, higher)
        wins += w
        comps += c
        scored |= ~np.isnan(arr)
    shared = scored.T.astype(float) @ scored.astype(float)
    return wins, comps, shared


def _rate(wins: np.ndarray, comps: np.ndarray, methods: List[str]) -> pd.DataFrame:
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(comps > 0, wins / np.where(comps > 0, comps, 1), np.nan)
    np.fill_diagonal(rate, np.nan)
    return pd.DataFrame(rate, index=pd.Index(methods, name="method"), columns=pd.Index(methods, name="method"))


def win_rates(runs: pd.DataFrame, split: str = "obs", families: Sequence[str] = ()) -> WinRates:
    """Pairwise win rates on one split, per family and overall (Fig. 1, 19).

    Per unit (method, family, scm_id) of the main benchmark: replicate-mean F1
    and SHD. For a pair (a, b) and a unit both scored on a metric: a wins on
    F1 when F1_a > F1_b, on SHD when SHD_a < SHD_b, a tie counts 0.5 to each.
    The rate of a over b is (wins + 0.5·ties) / comparisons, pooled over the
    two metrics (and, for ``pairwise``, over every family's units). A method's
    family rate pools its comparisons against all other methods on that
    family. Methods are ordered by the mean of their family rates
    (descending; ties by name).

    Args:
        runs: runs table (needs columns ``f1`` and ``shd``).
        split: the split compared (Fig. 1: ``"obs"``).
        families: keep only these families (empty: all, in the leaderboard's family order).

    Returns:
        :class:`WinRates`; every table empty (no rows, no columns) when no unit qualifies.

    Raises:
        ValueError: missing columns (named).
    """
    from causalarena.report import FAMILY_ORDER

    units = unit_scores(runs, ("f1", "shd"))
    units = units[units["split"] == split]
    if families:
        units = units[units["family"].isin(list(families))]
    units = units[units[["f1", "shd"]].notna().any(axis=1)]
    if not len(units):
        empty = pd.DataFrame(index=pd.Index([], name="method"), columns=pd.Index([], name="method"), dtype=float)
        return WinRates(pairwise=empty, by_family=pd.DataFrame(index=pd.Index([], name="method"),
                                                               columns=["mean"], dtype=float),
                        units=empty.copy(), pairwise_by_family={})
    methods = sorted(units["method"].unique())
    present = list(dict.fromkeys(units["family"]))
    fams = [f for f in FAMILY_ORDER if f in present] + sorted(f for f in present if f not in FAMILY_ORDER)
    m = len(methods)
    all_w, all_c, all_u = np.zeros((m, m)), np.zeros((m, m)), np.zeros((m, m))
    per_family: Dict[str, pd.DataFrame] = {}
    fam_rates: Dict[str, pd.Series] = {}
    for fam in fams:
        w, c, u = _family_counts(units[units["family"] == fam], methods)
        all_w += w
        all_c += c
        all_u += u
        per_family[fam] = _rate(w, c, methods)
        off = ~np.eye(m, dtype=bool)
        tot_w, tot_c = (w * off).sum(axis=1), (c * off).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            fam_rates[fam] = pd.Series(np.where(tot_c > 0, tot_w / np.where(tot_c > 0, tot_c, 1), np.nan),
                                       index=methods)
    by_family = pd.DataFrame(fam_rates, index=pd.Index(methods, name="method"))
    by_family["mean"] = by_family[fams].mean(axis=1, skipna=True)
    order = (by_family.assign(_name=by_family.index)
             .sort_values(["mean", "_name"], ascending=[False, True], na_position="last").index.tolist())
    by_family = by_family.loc[order]
    pairwise = _rate(all_w, all_c, methods).loc[order, order]
    np.fill_diagonal(all_u, 0)
    shared = pd.DataFrame(all_u.astype("int64"), index=pd.Index(methods, name="method"),
                          columns=pd.Index(methods, name="method")).loc[order, order]
    per_family = {f: t.loc[order, order] for f, t in per_family.items()}
    return WinRates(pairwise=pairwise, by_family=by_family, units=shared, pairwise_by_family=per_family)
