"""The ``tuebingen`` family: the Tübingen cause–effect pairs as a bivariate orientation track.

Source: the CauseEffectPairs benchmark (CEP) of Mooij, Peters, Janzing, Zscheischler & Schölkopf,
"Distinguishing cause from effect using observational data: methods and benchmarks", JMLR 17(32):
1–102, 2016, **as shipped by cdt 0.6.0** (``cdt/data/resources/Tuebingen_pairs.csv`` and
``Tuebingen_targets.csv``). The files are located through ``importlib.metadata``; ``cdt`` is never
imported (its import pulls torch and more).

cdt's copy holds 99 bivariate pairs, renumbered ``pair1`` … ``pair99``: CEP pairs 0001–0104 without
the multivariate 0052–0055 and 0071 (:func:`cep_number` maps the numbers back). cdt stores every pair
cause-first (column ``A`` causes ``B``; target 1 for all 99) and ships no weights (CEP's
``pairmeta.txt`` is not in the wheel), so by default every pair weighs 1; the family option
``pairmeta=PATH`` reads CEP's own file for the official weights.

Each pair is one instance with d = 2, columns ``x`` and ``y`` and the true direction as its adjacency.
Because cdt lists every cause first, the column order is re-drawn: a fixed, balanced half of the pairs
(:func:`flipped_pairs`) is stored effect-first, so a method that always answers "column 1 → column 2"
scores 0.5, not 1 (a benchmark whose columns are cause-first rewards a column-order bias).

The track's metric is :func:`orientation_accuracy` (registered through ``arena_metrics``), aggregated
over pairs with the weights by :func:`weighted_accuracy` (Mooij et al. 2016's weighted accuracy; the
paper's text was not available offline, so its section and equation numbers are not quoted here).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from causalarena.family import Family

from .family import RealTable, cdt_files
from .loader import TableFormatError, _read_text

FAMILY = "tuebingen"
PAIRS_FILE = "cdt/data/resources/Tuebingen_pairs.csv"
TARGETS_FILE = "cdt/data/resources/Tuebingen_targets.csv"
CITATION = ("Mooij, J. M., Peters, J., Janzing, D., Zscheischler, J., & Schölkopf, B. (2016). Distinguishing "
            "cause from effect using observational data: methods and benchmarks. Journal of Machine Learning "
            "Research, 17(32), 1-102.")
#: seed of the fixed, balanced choice of pairs stored effect-first (:func:`flipped_pairs`)
ORDER_SEED = 2016
#: variable names of every pair (the CEP descriptions are not shipped by cdt; names must not leak the order)
COLUMNS = ("x", "y")
#: CEP pairs missing from cdt 0.6.0's copy, with the reason (the README lists them)
NOT_SHIPPED: Tuple[Tuple[str, str], ...] = tuple(
    [(f"pair{k:04d}", "multivariate (a cause or effect of several columns); not in cdt's file")
     for k in (52, 53, 54, 55, 71, 105)]
    + [(f"pair{k:04d}", "bivariate, added to CEP after the version cdt 0.6.0 copied (its file stops at 0104)")
       for k in (106, 107, 108)])
#: the score of an answer without a decision (empty graph, an edge both ways): a fair coin's (Mooij et al. 2016)
NO_DECISION = 0.5


def cep_number(cdt_number: int) -> int:
    """The CEP pair number of cdt's ``pair<k>`` (cdt renumbered after dropping the multivariate pairs).

    cdt 0.6.0 keeps CEP 0001–0104 minus the multivariate 0052–0055 and 0071, in order, as 1–99: k ≤ 51
    is CEP k, 52 ≤ k ≤ 66 is CEP k + 4, 67 ≤ k ≤ 99 is CEP k + 5. Derived from the file and checked
    against CEP's ``pairmeta.txt``: the groups of pairs sharing a column and a sample size in cdt's file
    (e.g. cdt 52–59, n = 192, one cause column) are exactly the CEP groups of equal weight (0056–0063,
    weight 1/12).

    Raises:
        ValueError: ``cdt_number`` outside 1..99.
    """
    k = int(cdt_number)
    if not 1 <= k <= 99:
        raise ValueError(f"cdt 0.6.0 numbers its Tübingen pairs 1..99, got {cdt_number!r}")
    return k if k <= 51 else k + 4 if k <= 66 else k + 5


def _floats(cell: str, where: str) -> np.ndarray:
    try:
        values = np.array([float(v) for v in cell.split()], dtype=np.float64)
    except ValueError as exc:
        raise TableFormatError(f"{where}: not a list of numbers ({exc})") from None
    if not values.size:
        raise TableFormatError(f"{where}: no values")
    if not np.isfinite(values).all():
        raise TableFormatError(f"{where}: a missing or infinite value (NaN/inf) at position "
                               f"{int(np.flatnonzero(~np.isfinite(values))[0]) + 1}")
    return values


def read_pairs(path: Union[str, Path]) -> List[Tuple[str, np.ndarray, np.ndarray]]:
    """Read cdt's ``Tuebingen_pairs.csv``: ``SampleID,A,B``, each cell a space-separated column.

    The csv module is not used: the longest cells exceed its default field limit (131,072 characters)
    and raising that limit is process-wide state; the cells hold numbers and spaces only.

    Returns:
        ``[(cdt id, A, B)]`` in file order, ``A`` and ``B`` float64 vectors of the same length n.

    Raises:
        FileNotFoundError: the file does not exist.
        TableFormatError: the header is not ``SampleID,A,B``, a line has another number of fields, a
            cell is not a list of finite numbers, ``A`` and ``B`` differ in length, or an id repeats
            (each names the file and the line).
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"Tübingen pairs file not found: {p}")
    lines = _read_text(p).splitlines()
    if not lines or [h.strip() for h in lines[0].split(",")] != ["SampleID", "A", "B"]:
        raise TableFormatError(f"{p}: line 1 must be the header 'SampleID,A,B', got {lines[:1]!r}")
    out: List[Tuple[str, np.ndarray, np.ndarray]] = []
    seen: Dict[str, int] = {}
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != 3:
            raise TableFormatError(f"{p}: line {no} has {len(fields)} fields, the header has 3")
        sid = fields[0].strip()
        if sid in seen:
            raise TableFormatError(f"{p}: line {no}: pair {sid!r} repeats line {seen[sid]}")
        seen[sid] = no
        a = _floats(fields[1], f"{p}: line {no} ({sid}) column A")
        b = _floats(fields[2], f"{p}: line {no} ({sid}) column B")
        if a.size != b.size:
            raise TableFormatError(f"{p}: line {no} ({sid}): A has {a.size} values, B has {b.size}")
        out.append((sid, a, b))
    return out


def read_targets(path: Union[str, Path]) -> Dict[str, float]:
    """Read cdt's ``Tuebingen_targets.csv``: ``SampleID,Target`` with 1 = A → B and −1 = B → A.

    Raises:
        FileNotFoundError: the file does not exist.
        TableFormatError: wrong header, wrong field count, a non-number or a repeated id (line named).
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"Tübingen targets file not found: {p}")
    lines = _read_text(p).splitlines()
    if not lines or [h.strip() for h in lines[0].split(",")] != ["SampleID", "Target"]:
        raise TableFormatError(f"{p}: line 1 must be the header 'SampleID,Target', got {lines[:1]!r}")
    out: Dict[str, float] = {}
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 2:
            raise TableFormatError(f"{p}: line {no} has {len(fields)} fields, the header has 2")
        if fields[0] in out:
            raise TableFormatError(f"{p}: line {no}: pair {fields[0]!r} repeats")
        try:
            out[fields[0]] = float(fields[1])
        except ValueError:
            raise TableFormatError(f"{p}: line {no}: target {fields[1]!r} is not a number") from None
    return out


def read_pairmeta(path: Union[str, Path]) -> Dict[int, Tuple[bool, float]]:
    """Read CEP's ``pairmeta.txt``: ``pair cause_first cause_last effect_first effect_last weight``.

    Returns:
        ``{CEP pair number: (bivariate, weight)}``; bivariate means one cause column and one effect column.

    Raises:
        FileNotFoundError: the file does not exist.
        TableFormatError: a line without 6 numbers, a negative or non-finite weight, a repeated pair.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"pairmeta file not found: {p}")
    out: Dict[int, Tuple[bool, float]] = {}
    for no, line in enumerate(_read_text(p).splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise TableFormatError(f"{p}: line {no} has {len(parts)} fields; pairmeta.txt lines are "
                                   "'pair cause_first cause_last effect_first effect_last weight'")
        try:
            num, c1, c2, e1, e2 = (int(v) for v in parts[:5])
            weight = float(parts[5])
        except ValueError:
            raise TableFormatError(f"{p}: line {no}: not numbers: {line.strip()!r}") from None
        if not math.isfinite(weight) or weight < 0:
            raise TableFormatError(f"{p}: line {no}: weight {parts[5]!r} is not a finite number >= 0")
        if num in out:
            raise TableFormatError(f"{p}: line {no}: pair {num:04d} repeats")
        out[num] = (c1 == c2 and e1 == e2, weight)
    return out


def flipped_pairs(ids: Iterable[str]) -> frozenset:
    """The pairs stored effect-first: a fixed, balanced half of ``ids`` (``len // 2`` of them).

    Drawn once with :data:`ORDER_SEED` over the sorted ids, so an instance's column order does not
    depend on which pairs a run selects. Balanced (not a coin per pair) so that "always column 1 →
    column 2" scores exactly (n − ⌊n/2⌋)/n with equal weights: 50/99 on cdt's 99 pairs.
    """
    ordered = sorted(set(ids))
    rng = np.random.default_rng(ORDER_SEED)
    return frozenset(ordered[i] for i in rng.choice(len(ordered), len(ordered) // 2, replace=False))


def build_pairs(pairs_path: Union[str, Path], targets_path: Union[str, Path], source: str,
                pairmeta: Optional[Union[str, Path]] = None) -> Tuple[List[RealTable], List[Tuple[str, str]]]:
    """The kept pairs as instances, and the pairs of the file left out with the reason.

    A pair is left out when its target is not ±1 (no direction: unknown or confounded truth), or,
    with ``pairmeta``, when CEP lists it as multivariate or with weight 0.

    Args:
        pairs_path, targets_path: cdt's two files (:func:`read_pairs`, :func:`read_targets`).
        source: recorded in each instance's metadata (``"cdt 0.6.0 Tuebingen_pairs"``).
        pairmeta: optional path of CEP's ``pairmeta.txt`` for the official weights (default: weight 1).

    Returns:
        ``(instances, left_out)``: instances in CEP order (ids ``pair0001`` …), ``left_out`` as
        ``[(CEP id, reason)]``.

    Raises:
        TableFormatError: a malformed file (see the readers); an id that is not ``pair<k>``; a pair of
            the pairs file without a target; a kept pair absent from ``pairmeta``.
    """
    rows = read_pairs(pairs_path)
    targets = read_targets(targets_path)
    meta = read_pairmeta(pairmeta) if pairmeta is not None else None
    entries = []
    for sid, a, b in rows:
        if not sid.startswith("pair") or not sid[4:].isdigit():
            raise TableFormatError(f"{pairs_path}: pair id {sid!r} is not 'pair<k>'")
        if sid not in targets:
            raise TableFormatError(f"{targets_path}: no target for {sid!r} of {pairs_path}")
        entries.append((f"pair{cep_number(int(sid[4:])):04d}", sid, a, b, targets[sid]))
    flipped = flipped_pairs(e[0] for e in entries)
    kept: List[RealTable] = []
    left_out: List[Tuple[str, str]] = []
    for cep_id, sid, a, b, target in entries:
        if target not in (1.0, -1.0):
            left_out.append((cep_id, f"cdt target {target:g} gives no direction (1 = A → B, -1 = B → A)"))
            continue
        weight = 1.0
        if meta is not None:
            num = int(cep_id[4:])
            if num not in meta:
                raise TableFormatError(f"{pairmeta}: no line for pair {num:04d} (cdt's {sid})")
            bivariate, weight = meta[num]
            if not bivariate:
                left_out.append((cep_id, "multivariate in pairmeta.txt"))
                continue
            if weight == 0:
                left_out.append((cep_id, "weight 0 in pairmeta.txt"))
                continue
        cause, effect = (a, b) if target == 1.0 else (b, a)
        if cep_id in flipped:  # stored effect-first: x = effect, y = cause, truth y → x
            X, A = np.column_stack([effect, cause]), np.array([[0, 0], [1, 0]], dtype=np.int8)
        else:
            X, A = np.column_stack([cause, effect]), np.array([[0, 1], [0, 0]], dtype=np.int8)
        kept.append(RealTable(
            family=FAMILY, scm_id=cep_id, columns=list(COLUMNS), X_raw=X, adjacency=A, source=source,
            factors={"source": source, "cdt_id": sid, "cep_pair": int(cep_id[4:]), "weight": float(weight),
                     "d": 2, "n": int(X.shape[0])}))
    kept.sort(key=lambda inst: inst.scm_id)
    return kept, left_out


@functools.lru_cache(maxsize=4)
def _shipped(pairmeta: Optional[str]) -> Tuple[Tuple[RealTable, ...], Tuple[Tuple[str, str], ...]]:
    """The shipped pairs, read once per process (and per ``pairmeta`` path)."""
    (pairs, targets), version = cdt_files((PAIRS_FILE, TARGETS_FILE), "the 'tuebingen' family")
    kept, left = build_pairs(pairs, targets, f"cdt {version} Tuebingen_pairs", pairmeta=pairmeta)
    return tuple(kept), tuple(left)


def shipped_pairs(pairmeta: Optional[str] = None) -> Tuple[List[RealTable], List[Tuple[str, str]]]:
    """``(instances, left_out)`` of cdt's files (:func:`build_pairs`); cached.

    Raises:
        ModuleNotFoundError: cdt is not installed; FileNotFoundError: it does not ship the files.
    """
    kept, left = _shipped(None if pairmeta is None else str(pairmeta))
    return list(kept), list(left)


class TuebingenFamily(Family):
    """The Tübingen cause–effect pairs (CEP via cdt 0.6.0): one d = 2 instance per pair, obs only.

    Options (``arena run --family-option tuebingen.<option>=...``):
        pairs: comma list (or list) of CEP ids to keep, e.g. ``pair0001,pair0047`` (default: all 99).
        pairmeta: path of CEP's ``pairmeta.txt``; its weights replace the default weight 1.

    Raises (from :meth:`instances`):
        ValueError: an unknown option, or a ``pairs`` id that is not a kept pair (named, with the reason
            when it was left out).
    """

    name = FAMILY
    OPTIONS = ("pairs", "pairmeta")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"tuebingen family: unknown option(s) {unknown}; known: {list(self.OPTIONS)}")
        super().__init__(**options)

    def left_out(self) -> List[Tuple[str, str]]:
        """``[(CEP id, reason)]`` of the pairs in cdt's file that are not instances."""
        return shipped_pairs(self.options.get("pairmeta"))[1]

    def instances(self) -> List[RealTable]:
        """The kept pairs (all, or those named by ``pairs``), in CEP order."""
        kept, left = shipped_pairs(self.options.get("pairmeta"))
        wanted = self.options.get("pairs")
        if not wanted:
            return kept
        names = [w.strip() for w in (wanted.split(",") if isinstance(wanted, str) else wanted) if str(w).strip()]
        by_id = {inst.scm_id: inst for inst in kept}
        why = dict(left, **dict(NOT_SHIPPED))
        for name in names:
            if name not in by_id:
                reason = f" (left out: {why[name]})" if name in why else ""
                raise ValueError(f"tuebingen family option pairs: {name!r} is not a kept pair{reason}; ids are "
                                 f"pair0001 … pair0104 as in CEP")
        return [by_id[n] for n in dict.fromkeys(names)]


# --------------------------------------------------------------------------- the metric


def orientation_accuracy(true_adjacency: Any, adjacency: Any, edge_scores: Any = None) -> Optional[float]:
    """Orientation accuracy of one cause–effect pair: 1, 0, or 0.5 for no decision.

    Mooij et al. (2016) score each pair by whether the decided direction is the true one (the summand of
    their weighted accuracy); a method that does not decide is scored as a fair coin, 0.5 — the "no
    decision counts as 0.5" convention (the alternative, leaving the pair out, would let a method pick
    the pairs it is scored on).

    * the true directed edge, exactly: 1.0;
    * the reversed edge: 0.0;
    * no decision — an empty graph, or an edge both ways (an undirected CPDAG edge or a bidirected
      answer, both encoded ``A[0,1] = A[1,0] = 1``): 0.5.

    Note: in ``arena run`` a CPDAG / PAG answer is oriented at random with the cell seed before any
    metric sees it (App. B.2, :func:`causalarena.scoring.default_scorer`), so an undirected edge there
    arrives as one direction and scores 0 or 1 — a seeded coin, 0.5 in expectation; the empty graph
    scores 0.5 exactly.

    Args:
        true_adjacency: (2 × 2) 0/1 truth with exactly one directed edge, row = parent.
        adjacency: (2 × 2) 0/1 answer, row = parent.
        edge_scores: ignored.

    Returns:
        The score, or None when undefined: the truth is not a 2 × 2 graph with one directed edge (the
        metric is registered for every discovery run; it has a value only on pair instances).

    Raises:
        ValueError: the answer is not a 2 × 2 0/1 matrix while the truth is a pair, or has a self-loop.
    """
    T = np.asarray(true_adjacency)
    if T.shape != (2, 2) or int((T != 0).sum()) != 1 or T[0, 0] or T[1, 1]:
        return None
    A = np.asarray(adjacency)
    if A.shape != (2, 2):
        raise ValueError(f"orientation_accuracy: the answer has shape {A.shape}, the pair's truth is 2 × 2")
    if not np.isin(A, (0, 1)).all():
        raise ValueError(f"orientation_accuracy: the answer has values {sorted(set(np.unique(A).tolist()))}, "
                         "expected 0/1")
    if A[0, 0] or A[1, 1]:
        raise ValueError("orientation_accuracy: the answer has a self-loop")
    T, A = T != 0, A != 0
    if A[0, 1] == A[1, 0]:  # no edge, or an edge both ways: no decision
        return NO_DECISION
    return 1.0 if (A == T).all() else 0.0


def weighted_accuracy(scores: Sequence[float], weights: Optional[Sequence[float]] = None) -> float:
    """Weighted accuracy over pairs, Σ wᵢ·sᵢ / Σ wᵢ (Mooij et al. 2016, their weighted accuracy).

    Args:
        scores: per-pair :func:`orientation_accuracy` values (1, 0, 0.5).
        weights: per-pair weights (default: 1 each, cdt ships no weights).

    Raises:
        ValueError: empty input, lengths differ, a NaN score, a negative weight, or all weights 0.
    """
    s = np.asarray(scores, dtype=np.float64)
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=np.float64)
    if s.size == 0:
        raise ValueError("weighted_accuracy: no pairs")
    if s.shape != w.shape:
        raise ValueError(f"weighted_accuracy: {s.size} scores but {w.size} weights")
    if not np.isfinite(s).all():
        raise ValueError("weighted_accuracy: a score is NaN or infinite (a run without the metric)")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() == 0:
        raise ValueError("weighted_accuracy: weights must be finite, >= 0 and not all 0")
    return float((w * s).sum() / w.sum())


__all__: Sequence[str] = ("TuebingenFamily", "orientation_accuracy", "weighted_accuracy", "cep_number",
                          "read_pairs", "read_targets", "read_pairmeta", "build_pairs", "shipped_pairs",
                          "flipped_pairs", "NOT_SHIPPED", "COLUMNS", "CITATION", "FAMILY")
