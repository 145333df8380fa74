"""Difficulty stressors, App. A.1 "Difficulty variants".

The paper lists eight stressors (:data:`STRESSOR_NAMES`):

- Signal and noise stressors, applied by the generator to the structural
  equations themselves, so they need no class here:
  ``weak_signal`` multiplies structural mechanism strength by 0.45 — the
  generator calls :func:`causalarena.scm.calibrate_outputs` with
  ``strength={node: WEAK_SIGNAL_STRENGTH}`` so each mechanism output is
  calibrated to standard deviation 0.45 instead of 1; ``high_noise`` adds
  extra Gaussian structural noise of scale 0.35 after the node's own noise —
  the generator sets the noise parameter ``extra_scale=HIGH_NOISE_SCALE``
  (every noise accepts it; see :class:`causalarena.scm.Noise`).
- Observation stressors (``stage = "observation"``): ``feature_warping``,
  ``outliers``, ``missingness``, ``feature_corruption``. They transform the
  sampled (n × d) table after the structural values are fixed
  (:meth:`SCM.observe`, called by the protocol with its own generator), so
  the ground truth and the structural values do not change. The per-entry
  randomness comes from the ``rng`` passed to ``apply``: the same cell gives
  the same table. The entry-level stressors (outliers, missingness,
  corruption) leave intervened entries (``intervention_mask`` True) as they
  are, so the shipped intervention values stay those the mask records.
- Intervention stressors (``stage = "intervention"``), read by
  :meth:`SCM.propagate` on intervened rows: ``soft`` and
  ``intervention_shift``.

Every stressor has a ``draw(d, names, rng)`` classmethod returning its
parameters, including the columns it touches, so the choice is stored in the
spec. Parameters the paper does not give (outlier jump scale, imputation
jitter, intervention-shift amounts) are our choices and say so.
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Sequence

import numpy as np

from causalarena.scm import Stressor

#: the eight stressors of App. A.1 "Difficulty variants", in the paper's order
STRESSOR_NAMES = ("weak_signal", "high_noise", "feature_warping", "outliers", "missingness", "feature_corruption",
                  "intervention_shift", "soft")
#: the two stressors that act on the structural equations (no class, no spec stressor)
EQUATION_STRESSORS = ("weak_signal", "high_noise")
#: weak-signal stressor: mechanism output sd (calibrate_outputs ``strength``), App. A.1
WEAK_SIGNAL_STRENGTH = 0.45
#: high-noise stressor: extra Gaussian noise scale (noise ``extra_scale``), App. A.1
HIGH_NOISE_SCALE = 0.35

#: feature warping, App. A.1: share of columns and the three transforms
WARP_FRACTION = 0.55
WARP_TRANSFORMS = ("signed_log", "tanh", "signed_sqrt")
#: entry fractions, App. A.1: outliers 2.5 %, missingness 5 %, corruption 3 %
OUTLIER_FRACTION = 0.025
MISSING_FRACTION = 0.05
CORRUPTION_FRACTION = 0.03
#: outlier jump scale range in column standard deviations (our choice; the paper says "heavy-tailed jumps")
OUTLIER_SCALE = (3.0, 5.0)
#: Pareto tail index of the outlier jump magnitudes (finite variance, heavy tail)
OUTLIER_TAIL = 3.0
#: imputation jitter in column standard deviations (our choice; the paper says "small jitter")
MISSING_JITTER = 0.05
#: soft interventions, App. A.1: softness 0.45
SOFTNESS = 0.45
#: intervention shift (our choices; the paper gives no range): share of columns, |shift| range in data
#: units (structural columns are calibrated to unit scale), scale factors as the parameter shift of App. A.2
SHIFT_COLUMN_FRACTION = 0.25
SHIFT_RANGE = (0.25, 0.75)
SHIFT_SCALE_RANGES = ((0.6, 0.85), (1.15, 1.6))


def _choose_columns(d: int, names: Sequence[str], rng: np.random.Generator, fraction: float) -> List[str]:
    """``max(1, round(fraction · d))`` distinct columns, in table order."""
    names = list(names)
    if len(names) != d or d < 1:
        raise ValueError(f"draw: expected {d} ≥ 1 column names, got {len(names)}")
    k = min(d, max(1, int(round(fraction * d))))
    return [names[i] for i in np.sort(rng.choice(d, size=k, replace=False))]


class _ColumnStressor(Stressor):
    """A stressor with a ``columns`` parameter (a list of node names).

    :class:`causalarena.scm.Component` turns numeric-looking list parameters
    into float arrays (which would turn column names such as ``"1"`` into
    numbers); the name lists (:attr:`text_lists`) are kept as tuples of str
    instead, while :meth:`params` returns them as given (JSON-ready).
    """

    text_lists: ClassVar[tuple] = ("columns",)

    def __init__(self, **params: Any) -> None:
        super().__init__(**{k: tuple(v) if k in self.text_lists and isinstance(v, (list, tuple)) else v
                            for k, v in params.items()})
        self._params = dict(params)

    def _check_columns(self) -> None:
        self._require("columns")
        cols = self.columns
        if not isinstance(cols, tuple) or not cols or not all(isinstance(c, str) and c for c in cols):
            raise ValueError(f"{self.kind}: 'columns' must be a non-empty list of column names, got {cols!r}")
        if len(set(cols)) != len(cols):
            raise ValueError(f"{self.kind}: 'columns' has duplicates: {list(cols)}")

    def _fraction(self, name: str) -> None:
        self._require(name)
        v = self._params[name]
        if not isinstance(v, (int, float)) or not 0.0 < float(v) < 1.0:
            raise ValueError(f"{self.kind}: parameter {name!r} must be in (0, 1), got {v!r}")

    def column_indices(self, names: Sequence[str]) -> np.ndarray:
        """Indices of ``columns`` in ``names``.

        Raises:
            ValueError: a column is not among ``names``.
        """
        index = {name: i for i, name in enumerate(names)}
        missing = [c for c in self.columns if c not in index]
        if missing:
            raise ValueError(f"{self.kind}: columns {missing} are not variables of this table")
        return np.array([index[c] for c in self.columns], dtype=np.int64)


def _moments(block: np.ndarray):
    """Column mean and population sd of an (n × c) block; sd 1 where it is 0."""
    mean = block.mean(axis=0)
    sd = block.std(axis=0)
    return mean, np.where(sd > 0, sd, 1.0)


# -- observation stage --------------------------------------------------------


class FeatureWarping(_ColumnStressor):
    """Monotone warping of about 55 % of the columns, App. A.1 "Observation stressors".

    Each selected column ``x`` is standardised with the table's own moments,
    ``z = (x − μ) / σ``, transformed and mapped back, ``μ + σ · w(z)``, with
    ``w`` one of ``signed_log`` (sign(z)·log(1 + |z|)), ``tanh`` or
    ``signed_sqrt`` (sign(z)·√|z|). Working on z makes the warp equally
    strong for every column, whatever its location and units; the mapping
    back keeps the column's centre and units. Constant columns are left as
    they are.

    Params:
        columns: names of the warped columns.
        transforms: one of :data:`WARP_TRANSFORMS` per column.
    """

    kind = "feature_warping"
    parameters = ("columns", "transforms")
    text_lists = ("columns", "transforms")
    _functions = {
        "signed_log": lambda z: np.sign(z) * np.log1p(np.abs(z)),
        "tanh": np.tanh,
        "signed_sqrt": lambda z: np.sign(z) * np.sqrt(np.abs(z)),
    }

    def validate(self) -> None:
        self._check_columns()
        self._require("transforms")
        tr = self.transforms
        if not isinstance(tr, tuple) or len(tr) != len(self.columns):
            raise ValueError(f"{self.kind}: 'transforms' needs one entry per column ({len(self.columns)}), "
                             f"got {tr!r}")
        unknown = sorted({t for t in tr if t not in WARP_TRANSFORMS}, key=str)
        if unknown:
            raise ValueError(f"{self.kind}: unknown transform(s) {unknown} in 'transforms'; "
                             f"expected {list(WARP_TRANSFORMS)}")

    def apply(self, x, intervention_mask, rng, names):
        """Warp the selected columns of ``x`` (n × d) in place and return it (no randomness)."""
        idx = self.column_indices(names)
        for j, t in zip(idx, self.transforms):
            col = x[:, j]
            mu, sd = col.mean(), col.std()
            if sd > 0:
                x[:, j] = mu + sd * self._functions[t]((col - mu) / sd)
        return x

    @classmethod
    def draw(cls, d: int, names: Sequence[str], rng: np.random.Generator) -> Dict[str, Any]:
        """``round(0.55 · d)`` columns (at least one), each with a uniformly chosen transform."""
        cols = _choose_columns(d, names, rng, WARP_FRACTION)
        return {"columns": cols, "transforms": [WARP_TRANSFORMS[i] for i in rng.integers(0, 3, size=len(cols))]}


def _hit(x: np.ndarray, intervention_mask: np.ndarray, idx: np.ndarray, fraction: float,
         rng: np.random.Generator) -> np.ndarray:
    """(n × c) bool: each non-intervened entry of the columns ``idx`` hit with probability ``fraction``."""
    hit = rng.random((x.shape[0], idx.size)) < fraction
    if intervention_mask is not None:
        hit &= ~np.asarray(intervention_mask, dtype=bool)[:, idx]
    return hit


class Outliers(_ColumnStressor):
    """Outlier contamination of about 2.5 % of the entries, App. A.1 "Observation stressors".

    Each non-intervened entry of ``columns`` is hit independently with
    probability ``fraction`` and gets a jump ``± scale · σ_j · P`` with
    random sign, σ_j the column's standard deviation in the table and P
    Pareto-distributed (minimum 1, tail index :data:`OUTLIER_TAIL` = 3), so
    every jump is at least ``scale`` standard deviations and the tail is
    heavy.

    Params:
        columns: names of the columns that can be hit (draw: all).
        fraction: hit probability per entry, in (0, 1) (draw: 0.025).
        scale: minimum jump in column standard deviations, > 0 (draw: U[3, 5], our choice).
    """

    kind = "outliers"
    parameters = ("columns", "fraction", "scale")

    def validate(self) -> None:
        self._check_columns()
        self._fraction("fraction")
        self._positive("scale")

    def apply(self, x, intervention_mask, rng, names):
        idx = self.column_indices(names)
        block = x[:, idx]
        _, sd = _moments(block)
        hit = _hit(x, intervention_mask, idx, float(self.fraction), rng)
        r, c = np.nonzero(hit)
        sign = np.where(rng.random(r.size) < 0.5, -1.0, 1.0)
        block[r, c] += sign * float(self.scale) * sd[c] * (1.0 + rng.pareto(OUTLIER_TAIL, size=r.size))
        x[:, idx] = block
        return x

    @classmethod
    def draw(cls, d: int, names: Sequence[str], rng: np.random.Generator) -> Dict[str, Any]:
        return {"columns": _choose_columns(d, names, rng, 1.0), "fraction": OUTLIER_FRACTION,
                "scale": float(rng.uniform(*OUTLIER_SCALE))}


class Missingness(_ColumnStressor):
    """Missingness with mean imputation, about 5 % of the entries, App. A.1 "Observation stressors".

    Each non-intervened entry of ``columns`` is lost independently with
    probability ``fraction`` and replaced by the mean of the column's kept
    entries plus Gaussian jitter of standard deviation ``jitter · σ_j``
    (σ_j: sd of the kept entries). The table has no NaN afterwards.

    Params:
        columns: names of the columns that can lose entries (draw: all).
        fraction: loss probability per entry, in (0, 1) (draw: 0.05).
        jitter: imputation jitter in column standard deviations, > 0 (draw: 0.05, our choice).
    """

    kind = "missingness"
    parameters = ("columns", "fraction", "jitter")

    def validate(self) -> None:
        self._check_columns()
        self._fraction("fraction")
        self._positive("jitter")

    def apply(self, x, intervention_mask, rng, names):
        idx = self.column_indices(names)
        block = x[:, idx]
        hit = _hit(x, intervention_mask, idx, float(self.fraction), rng)
        kept = np.where(hit, np.nan, block)
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(kept, axis=0)
            sd = np.nanstd(kept, axis=0)
        mean = np.where(np.isfinite(mean), mean, block.mean(axis=0))  # a column lost entirely
        sd = np.where(np.isfinite(sd), sd, 0.0)
        r, c = np.nonzero(hit)
        block[r, c] = mean[c] + float(self.jitter) * sd[c] * rng.standard_normal(r.size)
        x[:, idx] = block
        return x

    @classmethod
    def draw(cls, d: int, names: Sequence[str], rng: np.random.Generator) -> Dict[str, Any]:
        return {"columns": _choose_columns(d, names, rng, 1.0), "fraction": MISSING_FRACTION,
                "jitter": MISSING_JITTER}


class FeatureCorruption(_ColumnStressor):
    """Feature corruption: about 3 % of the entries permuted within their column, App. A.1.

    Each non-intervened entry of ``columns`` is selected independently with
    probability ``fraction``; within each column the selected entries, taken
    in random order, pass their values one step round a cycle, so every
    selected entry receives another row's value (a column with a single
    selected entry keeps it). Column multisets are unchanged.

    Params:
        columns: names of the columns that can be corrupted (draw: all).
        fraction: selection probability per entry, in (0, 1) (draw: 0.03).
    """

    kind = "feature_corruption"
    parameters = ("columns", "fraction")

    def validate(self) -> None:
        self._check_columns()
        self._fraction("fraction")

    def apply(self, x, intervention_mask, rng, names):
        idx = self.column_indices(names)
        block = x[:, idx]
        hit = _hit(x, intervention_mask, idx, float(self.fraction), rng)
        r, c = np.nonzero(hit)
        order = np.lexsort((rng.random(r.size), c))  # by column, random within column
        r, c = r[order], c[order]
        _, starts, counts = np.unique(c, return_index=True, return_counts=True)
        pos = np.arange(r.size)
        start = np.repeat(starts, counts)
        src = start + (pos - start + 1) % np.repeat(counts, counts)
        block[r, c] = block[r[src], c]
        x[:, idx] = block
        return x

    @classmethod
    def draw(cls, d: int, names: Sequence[str], rng: np.random.Generator) -> Dict[str, Any]:
        return {"columns": _choose_columns(d, names, rng, 1.0), "fraction": CORRUPTION_FRACTION}


# -- intervention stage -------------------------------------------------------


class SoftIntervention(Stressor):
    """Soft interventions, App. A.1 "Intervention stressors" (softness 0.45).

    On every hard-do entry :meth:`SCM.propagate` writes
    ``softness · structural + (1 − softness) · intervened``, the structural
    value being the node's own equation at the row's (possibly intervened)
    parents; descendants are computed from the blended value.

    Params:
        softness: in [0, 1) (default and draw: 0.45); 1 would cancel the intervention.
    """

    kind = "soft"
    stage = "intervention"
    effect = "soften"
    parameters = ("softness",)

    def validate(self) -> None:
        if "softness" not in self._params:
            self.softness = SOFTNESS
        v = self.softness
        if not isinstance(v, (int, float)) or not 0.0 <= float(v) < 1.0:
            raise ValueError(f"soft: parameter 'softness' must be in [0, 1), got {v!r}")

    @classmethod
    def draw(cls, d: int, names: Sequence[str], rng: np.random.Generator) -> Dict[str, Any]:
        return {"softness": SOFTNESS}


class InterventionShift(_ColumnStressor):
    """Interventional distribution shift, App. A.1 "Intervention stressors".

    On every intervened row (any mask entry True), :meth:`SCM.propagate`
    replaces column ``columns[i]`` by ``value · scale[i] + shift[i]`` after its
    own intervention and before its descendants are computed.

    Params:
        columns: names of the shifted columns.
        shift: additive shift per column (data units), finite.
        scale: multiplicative factor per column, finite and > 0.

    Draw (our choices; the paper gives no range): ``round(0.25 · d)``
    columns (at least one), |shift| ~ U[0.25, 0.75] with random sign, scale
    from [0.6, 0.85] or [1.15, 1.6] (each side with probability ½), the
    factor range of the parameter shift of App. A.2.
    """

    kind = "intervention_shift"
    stage = "intervention"
    effect = "shift"
    parameters = ("columns", "shift", "scale")

    def validate(self) -> None:
        self._check_columns()
        self._require("shift", "scale")
        for name in ("shift", "scale"):
            v = np.asarray(self._params[name], dtype=float).reshape(-1) if np.ndim(self._params[name]) == 1 else None
            if v is None or v.size != len(self.columns) or not np.all(np.isfinite(v)):
                raise ValueError(f"{self.kind}: '{name}' must be a finite list with one entry per column "
                                 f"({len(self.columns)}), got {self._params[name]!r}")
            setattr(self, name, v)
        if not np.all(self.scale > 0):
            raise ValueError(f"{self.kind}: 'scale' entries must be > 0, got {self.scale.tolist()}")

    @classmethod
    def draw(cls, d: int, names: Sequence[str], rng: np.random.Generator) -> Dict[str, Any]:
        cols = _choose_columns(d, names, rng, SHIFT_COLUMN_FRACTION)
        k = len(cols)
        shift = np.where(rng.random(k) < 0.5, -1.0, 1.0) * rng.uniform(*SHIFT_RANGE, size=k)
        (a_lo, a_hi), (b_lo, b_hi) = SHIFT_SCALE_RANGES
        u = rng.random(k)
        scale = np.where(rng.random(k) < 0.5, b_lo + (b_hi - b_lo) * u, a_lo + (a_hi - a_lo) * u)
        return {"columns": cols, "shift": shift.tolist(), "scale": scale.tolist()}
