"""SCM components that scenario cards compile to (contributed by :mod:`arena_cards.plugin` through
``arena_components``; the SCM compiler imports this module when a spec names one).

- ``card_root`` (root distribution): the card root distributions of FORMAT.md
  ("Root distributions"), drawn in the variable's declared unit.
- ``card_expression`` (mechanism): an expression of the restricted language
  (:mod:`arena_cards.expressions`) over the node's parents, optionally
  evaluated in SI base units (formula cards: inputs converted by an affine map
  ``a·x + b``, the result converted back to the output's unit).
- ``card_channel`` (noise): the card noise kinds plus the post-processing a
  card declares: cut points (``threshold`` / ``ordinal``), instrument
  ``resolution`` and a declared boundary ``clip``. It always consumes two
  uniform exogenous columns and transforms them by inverse CDFs, so every kind
  — including Poisson, Bernoulli and binomial draws whose parameter is the
  mechanism's value — works with the exogenous-first sampler: intervened and
  observational propagations of a row share the same draw.

Unlike the synthetic family, card SCMs are never standardised by
:func:`causalarena.scm.calibrate_outputs`: their values are in real units.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np
from scipy import special, stats

from causalarena.scm import Mechanism, Noise, RootDistribution

from .expressions import Expression

#: card root distributions: name → required parameters
ROOT_PARAMETERS: Dict[str, tuple] = {
    "normal": ("mean", "sd"), "truncated_normal": ("mean", "sd", "low", "high"), "lognormal": ("median", "sigma"),
    "uniform": ("low", "high"), "beta": ("a", "b"), "gamma": ("shape", "scale"), "exponential": ("scale",),
    "triangular": ("low", "mode", "high"), "student_t": ("df", "loc", "scale"), "bernoulli": ("p",),
    "binomial": ("trials", "p"), "poisson": ("rate",), "categorical": ("probs",), "discrete_uniform": ("low", "high"),
}
#: optional root parameters
ROOT_OPTIONAL: Dict[str, tuple] = {"beta": ("low", "high")}
DISCRETE_ROOTS = frozenset({"bernoulli", "binomial", "poisson", "categorical", "discrete_uniform"})

#: card noise kinds: name → required parameters
NOISE_PARAMETERS: Dict[str, tuple] = {
    "none": (), "normal": ("scale",), "laplace": ("scale",), "student_t": ("df", "scale"),
    "uniform": ("half_width",), "lognormal": ("sigma",),
    "mixture_normal": ("scale", "outlier_prob", "outlier_scale"),
    "poisson": (), "bernoulli": (), "binomial": ("trials",),
}
#: noise kinds whose input is a parameter (rate, probability), not a value to perturb
PARAMETER_NOISES = frozenset({"poisson", "bernoulli", "binomial"})

_EPS = 1e-15


def _num(comp: Any, name: str, positive: bool = False) -> float:
    v = comp._params.get(name)
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(float(v)):
        raise ValueError(f"{comp.kind}: parameter {name!r} must be a finite number, got {v!r}")
    if positive and not float(v) > 0:
        raise ValueError(f"{comp.kind}: parameter {name!r} must be > 0, got {v!r}")
    return float(v)


def poisson_ppf(u: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """Exact Poisson inverse CDF: the smallest k ≥ 0 with P(K ≤ k; rate) ≥ u (float array).

    Same definition as ``scipy.stats.poisson.ppf`` (and equal to it, tested),
    ~10× faster for n = 1000: scipy's generic ``ppf`` inverts with
    ``pdtrik`` per element; here a Cornish–Fisher start
    ``rate + √rate·z + (z² − 1)/6`` is corrected by a few vectorised steps of
    the CDF ``scipy.special.pdtr``.
    """
    u = np.asarray(u, dtype=float)
    rate = np.broadcast_to(np.maximum(np.asarray(rate, dtype=float), 0.0), u.shape)
    z = special.ndtri(u)
    k = np.maximum(np.floor(rate + np.sqrt(rate) * z + (z * z - 1.0) / 6.0), 0.0)
    k = np.where(np.isfinite(k), k, 0.0)
    for _ in range(200):  # step down while the CDF one below still reaches u
        down = (k > 0) & (special.pdtr(k - 1.0, rate) >= u)
        if not down.any():
            break
        k = k - down
    for _ in range(200):  # step up while the CDF is below u
        up = special.pdtr(k, rate) < u
        if not up.any():
            break
        k = k + up
    return k


class CardRoot(RootDistribution):
    """A card root distribution (FORMAT.md "Root distributions"), in the variable's unit.

    ``distribution`` names it; the other parameters are that distribution's.
    Discrete kinds return integer-valued floats (categorical: codes 0 … K−1).
    """

    kind = "card_root"
    parameters = ("distribution", "mean", "sd", "low", "high", "median", "sigma", "a", "b", "shape", "scale",
                  "mode", "df", "loc", "p", "trials", "rate", "probs")

    def validate(self) -> None:
        dist = self._params.get("distribution")
        if dist not in ROOT_PARAMETERS:
            raise ValueError(f"card_root: unknown distribution {dist!r}; known: {sorted(ROOT_PARAMETERS)}")
        allowed = set(ROOT_PARAMETERS[dist]) | set(ROOT_OPTIONAL.get(dist, ())) | {"distribution"}
        extra = sorted(set(self._params) - allowed)
        if extra:
            raise ValueError(f"card_root {dist}: parameter(s) {extra} do not apply; it takes {list(ROOT_PARAMETERS[dist])}")
        missing = [k for k in ROOT_PARAMETERS[dist] if k not in self._params]
        if missing:
            raise ValueError(f"card_root {dist}: missing parameter(s) {missing}")
        self.discrete = dist in DISCRETE_ROOTS
        if dist == "categorical":
            probs = np.asarray(self._params["probs"], dtype=float)
            if probs.ndim != 1 or probs.size < 2 or np.any(~np.isfinite(probs)) or np.any(probs < 0) \
                    or abs(probs.sum() - 1.0) > 1e-6:
                raise ValueError(f"card_root categorical: probs must be >= 2 non-negative numbers summing to 1, "
                                 f"got {self._params['probs']!r}")
            return
        for k in ROOT_PARAMETERS[dist] + ROOT_OPTIONAL.get(dist, ()):
            if k in self._params:
                _num(self, k, positive=k in ("sd", "sigma", "a", "b", "shape", "scale", "df", "median", "rate"))
        if dist == "bernoulli" and not 0 <= float(self._params["p"]) <= 1:
            raise ValueError(f"card_root bernoulli: p must be in [0, 1], got {self._params['p']!r}")
        if dist == "binomial":
            t, p = float(self._params["trials"]), float(self._params["p"])
            if t < 1 or t != int(t) or not 0 <= p <= 1:
                raise ValueError("card_root binomial: trials must be a positive integer and p in [0, 1]")
        lo, hi = self._params.get("low"), self._params.get("high")
        if lo is not None and hi is not None and not float(lo) < float(hi):
            raise ValueError(f"card_root {dist}: low ({lo}) must be < high ({hi})")
        if dist == "triangular" and not float(lo) <= float(self._params["mode"]) <= float(hi):
            raise ValueError("card_root triangular: need low <= mode <= high")

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        p = self._params
        dist = p["distribution"]
        if dist == "normal":
            return rng.normal(p["mean"], p["sd"], n)
        if dist == "truncated_normal":
            a, b = (p["low"] - p["mean"]) / p["sd"], (p["high"] - p["mean"]) / p["sd"]
            u = np.clip(rng.random(n), _EPS, 1 - _EPS)
            return np.clip(stats.truncnorm.ppf(u, a, b, loc=p["mean"], scale=p["sd"]), p["low"], p["high"])
        if dist == "lognormal":
            return p["median"] * np.exp(p["sigma"] * rng.standard_normal(n))
        if dist == "uniform":
            return rng.uniform(p["low"], p["high"], n)
        if dist == "beta":
            lo, hi = p.get("low", 0.0), p.get("high", 1.0)
            return lo + (hi - lo) * rng.beta(p["a"], p["b"], n)
        if dist == "gamma":
            return rng.gamma(p["shape"], p["scale"], n)
        if dist == "exponential":
            return rng.exponential(p["scale"], n)
        if dist == "triangular":
            if p["low"] == p["mode"] == p["high"]:
                return np.full(n, float(p["low"]))
            return rng.triangular(p["low"], p["mode"], p["high"], n)
        if dist == "student_t":
            return p["loc"] + p["scale"] * rng.standard_t(p["df"], n)
        if dist == "bernoulli":
            return (rng.random(n) < p["p"]).astype(float)
        if dist == "binomial":
            return rng.binomial(int(p["trials"]), p["p"], n).astype(float)
        if dist == "poisson":
            return rng.poisson(p["rate"], n).astype(float)
        if dist == "categorical":
            probs = np.asarray(p["probs"], dtype=float)
            return rng.choice(probs.size, size=n, p=probs / probs.sum()).astype(float)
        if dist == "discrete_uniform":
            return rng.integers(int(p["low"]), int(p["high"]) + 1, n).astype(float)
        raise ValueError(f"card_root: unknown distribution {dist!r}")  # pragma: no cover - validated


class CardExpression(Mechanism):
    """A restricted-language expression over the node's parents (FORMAT.md "Expression language").

    Parameters:
        expression: the text (parsed by :class:`~arena_cards.expressions.Expression`).
        inputs: parent names in the order of the parent columns (n × k).
        constants: name → number (already in SI base units for formula cards).
        si_inputs: optional, per input ``[a, b]``: SI value = a·x + b.
        si_output: optional ``[a, b]``: the result (SI) is returned as (r − b) / a.
        equation: optional equation id (formula cards; recorded for residual checks).
    """

    kind = "card_expression"
    tag = "expression"
    parameters = ("expression", "inputs", "constants", "si_inputs", "si_output", "equation")

    def validate(self) -> None:
        self._require("expression", "inputs")
        inputs = self._params["inputs"]
        if not isinstance(inputs, (list, tuple)) or not all(isinstance(i, str) for i in inputs):
            raise ValueError("card_expression: 'inputs' must be a list of parent names")
        constants = self._params.get("constants") or {}
        if not isinstance(constants, dict):
            raise ValueError("card_expression: 'constants' must be an object")
        self._expr = Expression.cached(self._params["expression"], list(inputs),
                                       {k: float(v) for k, v in constants.items()})
        unused = self._expr.unused()
        if unused:
            raise ValueError(f"card_expression: parent(s) {unused} are not used by {self._params['expression']!r}")
        si_in = self._params.get("si_inputs")
        self._si_in = None if si_in is None else [(float(a), float(b)) for a, b in si_in]
        if self._si_in is not None and len(self._si_in) != len(inputs):
            raise ValueError("card_expression: 'si_inputs' needs one [a, b] per input")
        si_out = self._params.get("si_output")
        self._si_out = None if si_out is None else (float(si_out[0]), float(si_out[1]))

    def n_inputs(self) -> Optional[int]:
        return len(self._params["inputs"])

    def env(self, parents: np.ndarray) -> Dict[str, np.ndarray]:
        """Name → (n,) column, converted to SI when the mechanism is a formula."""
        names = self._params["inputs"]
        if self._si_in is None:
            return {name: parents[:, i] for i, name in enumerate(names)}
        return {name: a * parents[:, i] + b for i, (name, (a, b)) in enumerate(zip(names, self._si_in))}

    def evaluate(self, parents: np.ndarray, hazards=None) -> np.ndarray:
        """(n,) value of the expression on (n × k) parents; ``hazards`` records numeric hazards."""
        out = self._expr(self.env(parents), hazards)
        out = np.broadcast_to(np.asarray(out, dtype=float), (parents.shape[0],)).copy()
        if self._si_out is not None:
            a, b = self._si_out
            out = (out - b) / a
        return out

    def __call__(self, parents: np.ndarray) -> np.ndarray:
        return self.evaluate(parents)


class CardChannel(Noise):
    """A card's noise kind plus its cut, resolution and boundary clip (FORMAT.md "Noise").

    Consumes two uniform exogenous columns (n × 2): ``u0`` drives the noise
    through its inverse CDF, ``u1`` the outlier switch of ``mixture_normal``.

    Parameters:
        family: ``none`` | ``normal`` | ``laplace`` | ``student_t`` | ``uniform`` |
            ``lognormal`` | ``mixture_normal`` | ``poisson`` | ``bernoulli`` | ``binomial``.
        scale, df, half_width, sigma, outlier_prob, outlier_scale, trials: the
            family's parameters (in the variable's unit).
        cut: increasing cut points; the value becomes the number of cut points
            below it (0 … K), mapped through ``cut_values`` when given.
        resolution: round to a multiple of it.
        clip: ``[lo, hi]`` (either may be None) — a declared boundary.
    """

    kind = "card_channel"
    width = 2
    parameters = ("family", "scale", "df", "half_width", "sigma", "outlier_prob", "outlier_scale", "trials",
                  "cut", "cut_values", "resolution", "clip")

    def validate(self) -> None:
        fam = self._params.get("family", "none")
        if fam not in NOISE_PARAMETERS:
            raise ValueError(f"card_channel: unknown noise family {fam!r}; known: {sorted(NOISE_PARAMETERS)}")
        post = {"family", "cut", "cut_values", "resolution", "clip", "extra_scale"}
        extra = sorted(set(self._params) - set(NOISE_PARAMETERS[fam]) - post)
        if extra:
            raise ValueError(f"card_channel {fam}: parameter(s) {extra} do not apply; it takes {list(NOISE_PARAMETERS[fam])}")
        for k in NOISE_PARAMETERS[fam]:
            _num(self, k, positive=k != "outlier_prob")
        if fam == "mixture_normal" and not 0 < float(self._params["outlier_prob"]) < 1:
            raise ValueError("card_channel mixture_normal: outlier_prob must be in (0, 1)")
        if fam == "binomial" and float(self._params["trials"]) != int(self._params["trials"]):
            raise ValueError("card_channel binomial: trials must be an integer")
        self.family = fam
        cut = self._params.get("cut")
        self._cut = None if cut is None else np.asarray(cut, dtype=float)
        if self._cut is not None and (self._cut.ndim != 1 or self._cut.size < 1 or np.any(np.diff(self._cut) <= 0)):
            raise ValueError(f"card_channel: cut points must be a strictly increasing list, got {cut!r}")
        values = self._params.get("cut_values")
        self._cut_values = None if values is None else np.asarray(values, dtype=float)
        if self._cut_values is not None and (self._cut is None or self._cut_values.size != self._cut.size + 1):
            raise ValueError("card_channel: cut_values needs one value per interval (len(cut) + 1)")
        res = self._params.get("resolution")
        if res is not None:
            _num(self, "resolution", positive=True)
        clip = self._params.get("clip")
        self._clip = None if clip is None else (None if clip[0] is None else float(clip[0]),
                                                None if clip[1] is None else float(clip[1]))

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.random((n, 2))

    def perturb(self, signal: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """The noise family alone (before cut, resolution and clip)."""
        p = self._params
        fam = self.family
        u0 = np.clip(eps[:, 0], _EPS, 1 - _EPS)
        if fam == "none":
            return signal
        if fam == "normal":
            return signal + p["scale"] * special.ndtri(u0)
        if fam == "laplace":
            c = u0 - 0.5
            return signal - p["scale"] * np.sign(c) * np.log1p(-2 * np.abs(c))
        if fam == "student_t":
            return signal + p["scale"] * stats.t.ppf(u0, p["df"])
        if fam == "uniform":
            return signal + p["half_width"] * (2 * u0 - 1)
        if fam == "lognormal":
            s = p["sigma"]
            return signal * np.exp(s * special.ndtri(u0) - 0.5 * s * s)
        if fam == "mixture_normal":
            scale = np.where(eps[:, 1] < p["outlier_prob"], p["outlier_scale"], p["scale"])
            return signal + scale * special.ndtri(u0)
        # a non-finite rate or probability stays NaN, so the finite gate reports it (never a silent 0)
        bad = ~np.isfinite(signal)
        if fam == "poisson":
            k = poisson_ppf(u0, np.where(bad, 0.0, np.clip(signal, 0.0, None)))
            return np.where(bad, np.nan, k)
        if fam == "bernoulli":
            return np.where(bad, np.nan, (eps[:, 0] < np.clip(signal, 0.0, 1.0)).astype(float))
        if fam == "binomial":
            k = stats.binom.ppf(u0, int(p["trials"]), np.clip(np.where(bad, 0.0, signal), 0.0, 1.0))
            return np.where(bad, np.nan, k)
        raise ValueError(f"card_channel: unknown family {fam!r}")  # pragma: no cover - validated

    def apply(self, signal: np.ndarray, eps: np.ndarray, parents: np.ndarray) -> np.ndarray:
        v = self.perturb(np.asarray(signal, dtype=float), eps)
        if self._cut is not None:
            # number of cut points strictly below v: a value exactly at a cut point is below it
            codes = np.searchsorted(self._cut, v, side="left")
            codes = np.where(np.isnan(v), 0, codes)
            v = np.where(np.isnan(v), np.nan,
                         codes.astype(float) if self._cut_values is None else self._cut_values[codes])
        res = self._params.get("resolution")
        if res is not None:
            v = np.round(v / res) * res
        if self._clip is not None:
            v = np.clip(v, self._clip[0], self._clip[1])
        return v

    def boundaries(self) -> List[float]:
        return [] if self._clip is None else [b for b in self._clip if b is not None]
