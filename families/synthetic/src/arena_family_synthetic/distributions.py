"""Root distributions, structural noise families and root-dependency samplers.

The component catalogue of the CausalArena paper, App. A.1 ("Root
distributions", "Root dependency", "Structural noise"), beyond the core's
basic set (:mod:`causalarena.components`: gaussian, uniform, laplace and
lognormal roots; gaussian, uniform, laplace and student_t noise). Every class
is registered under its spec ``kind`` by this distribution's
``arena_components()`` (:mod:`.plugin`), takes its parameters as keyword
arguments (validated; unknown names are rejected) and draws them from the
paper's ranges with ``draw``. Values are
in the units of the node (the sampler standardises mechanism outputs before
noise is applied, so noise scales are relative to a unit-variance signal).

Exports:
    PAPER_ROOTS: the 14 root families of App. A.1 (``laplace``, in the core's
        basic set, is not a paper family).
    PAPER_NOISES: the 15 noise options of App. A.1, including ``"none"`` (a
        noiseless equation: ``noise = None`` in the spec, no class).
    ROOT_DEPENDENCY_MODES: ``"independent"`` (no ``root_dependency`` in the
        spec) and the three registered :class:`RootDependency` kinds.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional

import numpy as np
from scipy.special import expit, softmax

from causalarena.components import ScaleNoise as _ScaleNoise
from causalarena.components import check_finite as _finite
from causalarena.components import draw_uniform as _u
from causalarena.scm import Noise, RootDependency, RootDistribution

PAPER_ROOTS = (
    "uniform", "gaussian", "truncated_gaussian", "lognormal", "gamma", "scaled_beta", "exponential", "gumbel",
    "bernoulli", "poisson", "ordinal", "mixture_gaussian", "multinomial", "zipf",
)
PAPER_NOISES = (
    "gaussian", "uniform", "laplace", "student_t", "multiplicative_lognormal", "heteroskedastic",
    "rff_heteroskedastic", "target_r2", "mixture_outlier", "quantized", "censored", "beta", "exponential", "gumbel",
    "none",
)
ROOT_DEPENDENCY_MODES = ("independent", "common_factor", "random_covariance", "uniform_ball")


# ---------------------------------------------------------------------------
# validation helpers (``_finite`` is the core's :func:`causalarena.components.check_finite`)
# ---------------------------------------------------------------------------


def _in_open_unit(comp: Any, name: str) -> None:
    _finite(comp, name)
    v = float(comp._params[name])
    if not 0.0 < v < 1.0:
        raise ValueError(f"{comp.kind}: parameter {name!r} must be in (0, 1), got {v!r}")


def _integer(comp: Any, name: str, lo: int) -> int:
    v = comp._params.get(name)
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not float(v).is_integer() \
            or int(v) < lo:
        raise ValueError(f"{comp.kind}: parameter {name!r} must be an integer ≥ {lo}, got {v!r}")
    return int(v)


def _probabilities(comp: Any, name: str, min_len: int) -> np.ndarray:
    p = np.asarray(comp._params.get(name), dtype=float)
    if p.ndim != 1 or len(p) < min_len or not np.all(np.isfinite(p)) or np.any(p < 0) \
            or abs(float(p.sum()) - 1.0) > 1e-9:
        raise ValueError(f"{comp.kind}: parameter {name!r} must be a list of ≥ {min_len} probabilities summing "
                         f"to 1, got {comp._params.get(name)!r}")
    return p / p.sum()


# ---------------------------------------------------------------------------
# root distributions (App. A.1 "Root distributions")
# ---------------------------------------------------------------------------


class TruncatedGaussianRoot(RootDistribution):
    """N(loc, scale²) clipped to loc ± 2.5·scale (mass Φ(−2.5) ≈ 0.62 % on each clip point).

    App. A.1: loc ~ N(0, 0.8²), scale ∈ [0.4, 1.4], samples clipped (not
    resampled) to mean ± 2.5 standard deviations; ``boundaries()`` returns the
    two clip points (audited for boundary mass, App. A.2).
    """

    kind = "truncated_gaussian"
    parameters = ("loc", "scale")
    #: clip half-width in standard deviations (App. A.1)
    clip_sd: float = 2.5

    def validate(self) -> None:
        self._require("loc", "scale")
        _finite(self, "loc")
        self._positive("scale")

    def boundaries(self) -> List[float]:
        return [float(self.loc - self.clip_sd * self.scale), float(self.loc + self.clip_sd * self.scale)]

    def sample(self, n, rng):
        lo, hi = self.boundaries()
        return np.clip(rng.normal(self.loc, self.scale, size=n), lo, hi)

    @classmethod
    def draw(cls, rng):
        return {"loc": float(rng.normal(0.0, 0.8)), "scale": _u(rng, 0.4, 1.4)}


class GammaRoot(RootDistribution):
    """Gamma(concentration k, rate θ): mean k/θ, variance k/θ².

    App. A.1: concentration ∈ [1, 5], rate ∈ [0.5, 2].
    """

    kind = "gamma"
    parameters = ("concentration", "rate")

    def validate(self) -> None:
        self._require("concentration", "rate")
        self._positive("concentration", "rate")

    def sample(self, n, rng):
        return rng.gamma(self.concentration, 1.0 / self.rate, size=n)

    @classmethod
    def draw(cls, rng):
        return {"concentration": _u(rng, 1.0, 5.0), "rate": _u(rng, 0.5, 2.0)}


class ScaledBetaRoot(RootDistribution):
    """low + (high − low)·Beta(a, b).

    App. A.1: shapes a, b ∈ [0.8, 5], mapped to [low, high] with
    low ∈ [−1, 0] and high ∈ [0.8, 3.0].
    """

    kind = "scaled_beta"
    parameters = ("a", "b", "low", "high")

    def validate(self) -> None:
        self._require("a", "b", "low", "high")
        self._positive("a", "b")
        _finite(self, "low", "high")
        if not float(self.low) < float(self.high):
            raise ValueError(f"scaled_beta: low ({self.low}) must be < high ({self.high})")

    def sample(self, n, rng):
        return self.low + (self.high - self.low) * rng.beta(self.a, self.b, size=n)

    @classmethod
    def draw(cls, rng):
        return {"a": _u(rng, 0.8, 5.0), "b": _u(rng, 0.8, 5.0), "low": _u(rng, -1.0, 0.0), "high": _u(rng, 0.8, 3.0)}


class ExponentialRoot(RootDistribution):
    """Exponential(rate): support [0, ∞), mean 1/rate. App. A.1: rate ∈ [0.4, 2.5]."""

    kind = "exponential"
    parameters = ("rate",)

    def validate(self) -> None:
        self._require("rate")
        self._positive("rate")

    def sample(self, n, rng):
        return rng.exponential(1.0 / self.rate, size=n)

    @classmethod
    def draw(cls, rng):
        return {"rate": _u(rng, 0.4, 2.5)}


class GumbelRoot(RootDistribution):
    """Gumbel(loc, scale) (maximum type): mean loc + γ·scale, variance π²·scale²/6.

    App. A.1: loc ∈ [−1, 1], scale ∈ [0.3, 1.8].
    """

    kind = "gumbel"
    parameters = ("loc", "scale")

    def validate(self) -> None:
        self._require("loc", "scale")
        _finite(self, "loc")
        self._positive("scale")

    def sample(self, n, rng):
        return rng.gumbel(self.loc, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"loc": _u(rng, -1.0, 1.0), "scale": _u(rng, 0.3, 1.8)}


class BernoulliRoot(RootDistribution):
    """Bernoulli(p) on {0, 1}. App. A.1: p ∈ [0.15, 0.85]."""

    kind = "bernoulli"
    parameters = ("p",)
    discrete = True

    def validate(self) -> None:
        self._require("p")
        _in_open_unit(self, "p")

    def sample(self, n, rng):
        return (rng.random(n) < self.p).astype(float)

    @classmethod
    def draw(cls, rng):
        return {"p": _u(rng, 0.15, 0.85)}


class PoissonRoot(RootDistribution):
    """Poisson(rate) on {0, 1, …}: mean = variance = rate. App. A.1: rate ∈ [1, 12]."""

    kind = "poisson"
    parameters = ("rate",)
    discrete = True

    def validate(self) -> None:
        self._require("rate")
        self._positive("rate")

    def sample(self, n, rng):
        return rng.poisson(self.rate, size=n).astype(float)

    @classmethod
    def draw(cls, rng):
        return {"rate": _u(rng, 1.0, 12.0)}


class OrdinalRoot(RootDistribution):
    """Ordered levels 0, …, k−1 with probabilities ``probs`` (length k).

    App. A.1: k ∈ {3, …, 6}; probabilities are the softmax of k i.i.d.
    N(0, 1) logits (``draw`` stores the probabilities, not the logits).
    """

    kind = "ordinal"
    parameters = ("probs",)
    discrete = True

    def validate(self) -> None:
        self._require("probs")
        self.probs = _probabilities(self, "probs", 2)

    def sample(self, n, rng):
        return rng.choice(len(self.probs), size=n, p=self.probs).astype(float)

    @classmethod
    def draw(cls, rng):
        k = int(rng.integers(3, 7))
        return {"probs": softmax(rng.standard_normal(k)).tolist()}


class MixtureGaussianRoot(RootDistribution):
    """weight·N(loc1, scale1²) + (1 − weight)·N(loc2, scale2²).

    App. A.1: mixture probability ``weight`` ∈ [0.2, 0.8], means
    loc1 ∈ [−2, −0.2] and loc2 ∈ [0.2, 2], sds scale1, scale2 ∈ [0.3, 1.0].
    """

    kind = "mixture_gaussian"
    parameters = ("weight", "loc1", "scale1", "loc2", "scale2")

    def validate(self) -> None:
        self._require(*self.parameters)
        _in_open_unit(self, "weight")
        _finite(self, "loc1", "loc2")
        self._positive("scale1", "scale2")

    def sample(self, n, rng):
        first = rng.random(n) < self.weight
        z = rng.standard_normal(n)
        return np.where(first, self.loc1 + self.scale1 * z, self.loc2 + self.scale2 * z)

    @classmethod
    def draw(cls, rng):
        return {"weight": _u(rng, 0.2, 0.8), "loc1": _u(rng, -2.0, -0.2), "scale1": _u(rng, 0.3, 1.0),
                "loc2": _u(rng, 0.2, 2.0), "scale2": _u(rng, 0.3, 1.0)}


class MultinomialRoot(RootDistribution):
    """An unordered category index c ∈ {0, …, K−1}, standardised: (c − μ)/σ.

    μ = Σ_c c·p_c and σ² = Σ_c (c − μ)²·p_c are the *population* moments of
    the index under ``probs``, so the column has mean 0 and variance 1 in
    expectation whatever n; its support is the K values (c − μ)/σ.

    App. A.1: K ∈ {2, …, 10} unordered categories; logits ~ U[−1.5, 1.5],
    probabilities by softmax (``draw`` stores the probabilities); "the sampled
    category index is standardized".
    """

    kind = "multinomial"
    parameters = ("probs",)
    discrete = True

    def validate(self) -> None:
        self._require("probs")
        self.probs = _probabilities(self, "probs", 2)
        c = np.arange(len(self.probs))
        self.index_mean = float(c @ self.probs)
        self.index_sd = float(np.sqrt(((c - self.index_mean) ** 2) @ self.probs))
        if not self.index_sd > 0:
            raise ValueError(f"multinomial: parameter 'probs' puts all mass on one category: {list(self.probs)}")

    def sample(self, n, rng):
        return (rng.choice(len(self.probs), size=n, p=self.probs) - self.index_mean) / self.index_sd

    @classmethod
    def draw(cls, rng):
        k = int(rng.integers(2, 11))
        return {"probs": softmax(rng.uniform(-1.5, 1.5, size=k)).tolist()}


class ZipfRoot(RootDistribution):
    """min(V, cap) − μ with P(V = v) ∝ v^−alpha on v = 1, …, ``support``, cap = 10.

    μ is the population mean of min(V, 10) (so the column is centred exactly
    in expectation). App. A.1: support ∈ {8, …, 20}, alpha ∈ [2, 4], values
    capped at 10, centred.
    """

    kind = "zipf"
    parameters = ("support", "alpha")
    discrete = True
    #: values above this are set to it (App. A.1)
    cap: int = 10

    def validate(self) -> None:
        self._require("support", "alpha")
        self.support = _integer(self, "support", 2)
        self._positive("alpha")
        v = np.arange(1, self.support + 1, dtype=float)
        self.probs = v ** -float(self.alpha) / np.sum(v ** -float(self.alpha))
        self.values = np.minimum(v, self.cap)
        self.center = float(self.values @ self.probs)

    def sample(self, n, rng):
        return self.values[rng.choice(self.support, size=n, p=self.probs)] - self.center

    @classmethod
    def draw(cls, rng):
        return {"support": int(rng.integers(8, 21)), "alpha": _u(rng, 2.0, 4.0)}


# ---------------------------------------------------------------------------
# structural noise (App. A.1 "Structural noise"; gaussian, uniform, laplace and
# student_t are the core's, :mod:`causalarena.components`)
#
# ``draw(rng, k=None)``: ``k`` is the node's number of parents; only
# ``rff_heteroskedastic`` needs it, the others accept and ignore it so a
# generator can pass it uniformly.
# ---------------------------------------------------------------------------


class MultiplicativeLognormalNoise(Noise):
    """value = signal·exp(sigma·z), z ~ N(0, 1); the exogenous column holds sigma·z.

    E[log(value/signal)] = 0 (the multiplier is median-1, not mean-1).
    App. A.1 "Multiplicative lognormal": sigma ∈ [0.03, 0.25].
    """

    kind = "multiplicative_lognormal"
    parameters = ("sigma",)

    def validate(self) -> None:
        self._require("sigma")
        self._positive("sigma")

    def sample(self, n, rng):
        return rng.normal(0.0, self.sigma, size=n)

    def apply(self, signal, eps, parents):
        return signal * np.exp(eps[:, 0])

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"sigma": _u(rng, 0.03, 0.25)}


class HeteroskedasticNoise(Noise):
    """value = s + (base + slope·sigmoid(|s|))·z, z ~ N(0, 1), s = the (calibrated) signal.

    The conditional sd grows from base + slope/2 at s = 0 to base + slope as
    |s| → ∞. App. A.1: base ∈ [0.02, 0.15], slope ∈ [0.02, 0.20].
    """

    kind = "heteroskedastic"
    parameters = ("base", "slope")

    def validate(self) -> None:
        self._require("base", "slope")
        self._positive("base", "slope")

    def conditional_scale(self, signal: np.ndarray) -> np.ndarray:
        """(n,) noise sd given the signal (n,)."""
        return self.base + self.slope * expit(np.abs(signal))

    def sample(self, n, rng):
        return rng.standard_normal(n)

    def apply(self, signal, eps, parents):
        return signal + self.conditional_scale(signal) * eps[:, 0]

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"base": _u(rng, 0.02, 0.15), "slope": _u(rng, 0.02, 0.20)}


class RFFHeteroskedasticNoise(Noise):
    """value = s + softplus(g(parents))·z, z ~ N(0, 1), g a random-Fourier-feature function.

    g(x) = output_scale·√(2/D)·Σ_d coefficients_d·cos(frequencies_d·x / length_scale + phases_d)
    for x the node's k parent values (one row), D features: a draw from a
    GP with RBF kernel of length scale ``length_scale`` and variance
    output_scale² (Rahimi & Recht features). Parameters are explicit data:
    ``frequencies`` (D × k, N(0, 1)), ``phases`` (D, U[0, 2π]),
    ``coefficients`` (D, N(0, 1)).

    App. A.1 "RFF-heteroskedastic": D ∈ {64, …, 256}, length scale ∈
    [0.25, 3.0], output scale ∈ [0.3, 1.8]; softplus gives the per-row noise
    scale.

    Numeric policy (as the ``rff`` mechanism): g is evaluated in float32,
    element-wise, in row blocks of fixed size
    (:func:`arena_family_synthetic.mechanisms.rff_features_sum`), so a row's
    noise scale depends only on that row's parents — not on the batch size,
    the other rows or the BLAS thread count; softplus and the product with z
    are float64.

    Raises:
        ValueError: (``apply``) the parents matrix does not have k columns.
    """

    kind = "rff_heteroskedastic"
    parameters = ("frequencies", "phases", "coefficients", "length_scale", "output_scale")

    def validate(self) -> None:
        self._require(*self.parameters)
        self._positive("length_scale", "output_scale")
        w = np.asarray(self.frequencies, dtype=float)
        if w.ndim != 2 or w.shape[0] < 1 or w.shape[1] < 1 or not np.all(np.isfinite(w)):
            raise ValueError(f"{self.kind}: 'frequencies' must be a finite D × k list of lists")
        for name in ("phases", "coefficients"):
            v = np.asarray(getattr(self, name), dtype=float)
            if v.shape != (w.shape[0],) or not np.all(np.isfinite(v)):
                raise ValueError(f"{self.kind}: {name!r} must be a finite list of D = {w.shape[0]} numbers")
        self.frequencies = w
        # the float32 operands of the numeric policy: scales in float64, rounded once
        d = w.shape[0]
        self._rff32 = ((w.T / float(self.length_scale)).astype(np.float32),
                       np.asarray(self.phases, dtype=float).astype(np.float32),
                       (float(self.output_scale) * math.sqrt(2.0 / d)
                        * np.asarray(self.coefficients, dtype=float)).astype(np.float32))

    def n_inputs(self) -> int:
        """k, the number of parents the frequencies were drawn for."""
        return int(self.frequencies.shape[1])

    def latent(self, parents: np.ndarray) -> np.ndarray:
        """g(parents) (n,) from parents (n × k)."""
        parents = np.asarray(parents, dtype=float)
        if parents.ndim != 2 or parents.shape[1] != self.n_inputs():
            raise ValueError(f"{self.kind}: parameters are for {self.n_inputs()} parents, got parents of shape "
                             f"{parents.shape}")
        from .mechanisms import rff_features_sum

        return rff_features_sum(parents, *self._rff32)

    def conditional_scale(self, parents: np.ndarray) -> np.ndarray:
        """(n,) noise sd softplus(g(parents))."""
        return np.logaddexp(0.0, self.latent(parents))

    def sample(self, n, rng):
        return rng.standard_normal(n)

    def apply(self, signal, eps, parents):
        return signal + self.conditional_scale(parents) * eps[:, 0]

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        if k is None or int(k) < 1:
            raise ValueError(f"{cls.kind}: draw needs k, the node's number of parents (≥ 1), got {k!r}")
        d = int(rng.integers(64, 257))
        return {
            "frequencies": rng.standard_normal((d, int(k))).tolist(),
            "phases": rng.uniform(0.0, 2.0 * math.pi, size=d).tolist(),
            "coefficients": rng.standard_normal(d).tolist(),
            "length_scale": _u(rng, 0.25, 3.0),
            "output_scale": _u(rng, 0.3, 1.8),
        }


class TargetR2Noise(Noise):
    """Additive N(0, scale²) with scale chosen so that R² = var(s)/(var(s) + scale²) equals ``r2``.

    ``calibrate`` sets scale = √(var(s)·(1 − r2)/r2) from the pilot signal
    s (a constant pilot signal counts as variance 1). The exogenous column
    holds unit normals, multiplied by ``scale`` in ``apply``.
    App. A.1 "Target-R² Gaussian": r2 ∈ [0.1, 0.9].

    Raises:
        ValueError: ``apply`` before ``scale`` is set (calibrate first, e.g.
            with :func:`causalarena.scm.calibrate_outputs`).
    """

    kind = "target_r2"
    parameters = ("r2", "scale")

    def validate(self) -> None:
        self._require("r2")
        _in_open_unit(self, "r2")
        if "scale" in self._params:
            self._positive("scale")

    def sample(self, n, rng):
        return rng.standard_normal(n)

    def apply(self, signal, eps, parents):
        if "scale" not in self._params:
            raise ValueError(f"{self.kind}: 'scale' is not set; calibrate on a pilot sample first "
                             "(causalarena.scm.calibrate_outputs)")
        return signal + self.scale * eps[:, 0]

    def calibrate(self, signal, eps, parents):
        var = float(np.var(signal))
        if not (math.isfinite(var) and var > 1e-12):
            var = 1.0
        return {"scale": math.sqrt(var * (1.0 - self.r2) / self.r2)}

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"r2": _u(rng, 0.1, 0.9)}


class MixtureOutlierNoise(Noise):
    """Additive two-component mixture: N(0, outlier_scale²) with probability outlier_prob, else N(0, base_scale²).

    Variance (1 − p)·base_scale² + p·outlier_scale². One exogenous column
    (the mixture draw; indicator and both normals are drawn in ``sample``).
    App. A.1 "Mixture-outlier": base_scale ∈ [0.02, 0.15], outlier_prob ∈
    [0.01, 0.08], outlier_scale ∈ [0.8, 2.5].
    """

    kind = "mixture_outlier"
    parameters = ("base_scale", "outlier_prob", "outlier_scale")

    def validate(self) -> None:
        self._require(*self.parameters)
        self._positive("base_scale", "outlier_scale")
        _in_open_unit(self, "outlier_prob")

    def sample(self, n, rng):
        outlier = rng.random(n) < self.outlier_prob
        z = rng.standard_normal(n)
        return z * np.where(outlier, self.outlier_scale, self.base_scale)

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"base_scale": _u(rng, 0.02, 0.15), "outlier_prob": _u(rng, 0.01, 0.08),
                "outlier_scale": _u(rng, 0.8, 2.5)}


class QuantizedNoise(Noise):
    """value = step·round((s + ε)/step), ε ~ N(0, scale²): Gaussian-noisy values on a grid.

    App. A.1 "Quantized": step ∈ [0.05, 0.35]; the Gaussian scale is drawn
    from the Gaussian-noise range [0.05, 0.45].
    """

    kind = "quantized"
    parameters = ("scale", "step")

    def validate(self) -> None:
        self._require("scale", "step")
        self._positive("scale", "step")

    def sample(self, n, rng):
        return rng.normal(0.0, self.scale, size=n)

    def apply(self, signal, eps, parents):
        return self.step * np.round((signal + eps[:, 0]) / self.step)

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"scale": _u(rng, 0.05, 0.45), "step": _u(rng, 0.05, 0.35)}


class CensoredNoise(Noise):
    """value = clip(s + ε, low, high), ε ~ N(0, scale²).

    ``calibrate`` sets low/high to the 3rd and 97th percentiles of s + ε on
    the pilot sample (so ≈ 3 % of mass sits on each boundary);
    ``boundaries()`` returns them. App. A.1 "Censored"; scale from the
    Gaussian-noise range [0.05, 0.45].

    Raises:
        ValueError: low ≥ high; ``apply`` before low/high are set.
    """

    kind = "censored"
    parameters = ("scale", "low", "high")
    percentiles = (3.0, 97.0)

    def validate(self) -> None:
        self._require("scale")
        self._positive("scale")
        given = [p for p in ("low", "high") if p in self._params]
        if len(given) == 1:
            raise ValueError(f"{self.kind}: set both 'low' and 'high' (or neither, before calibration)")
        if given:
            _finite(self, "low", "high")
            if not float(self.low) < float(self.high):
                raise ValueError(f"{self.kind}: low ({self.low}) must be < high ({self.high})")

    def boundaries(self) -> List[float]:
        return [float(self.low), float(self.high)] if "low" in self._params else []

    def sample(self, n, rng):
        return rng.normal(0.0, self.scale, size=n)

    def apply(self, signal, eps, parents):
        if "low" not in self._params:
            raise ValueError(f"{self.kind}: 'low'/'high' are not set; calibrate on a pilot sample first "
                             "(causalarena.scm.calibrate_outputs)")
        return np.clip(signal + eps[:, 0], self.low, self.high)

    def calibrate(self, signal, eps, parents):
        low, high = np.percentile(signal + eps[:, 0], self.percentiles)
        if not high > low:  # degenerate pilot (e.g. constant signal and tiny noise): no effective censoring
            low, high = float(np.min(signal + eps[:, 0])) - 1.0, float(np.max(signal + eps[:, 0])) + 1.0
        return {"low": float(low), "high": float(high)}

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"scale": _u(rng, 0.05, 0.45)}


class BetaNoise(Noise):
    """Additive scale·(Beta(a, b) − a/(a + b)): centred, support [−scale·a/(a+b), scale·b/(a+b)].

    App. A.1 "Beta": shapes a, b ∈ [1, 10], scale ∈ [0.05, 0.45].
    """

    kind = "beta"
    parameters = ("a", "b", "scale")

    def validate(self) -> None:
        self._require(*self.parameters)
        self._positive(*self.parameters)

    def sample(self, n, rng):
        return self.scale * (rng.beta(self.a, self.b, size=n) - self.a / (self.a + self.b))

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"a": _u(rng, 1.0, 10.0), "b": _u(rng, 1.0, 10.0), "scale": _u(rng, 0.05, 0.45)}


class ExponentialNoise(Noise):
    """Additive scale·(E − 1/rate), E ~ Exponential(rate): centred, one-sided (support ≥ −scale/rate).

    Variance scale²/rate². App. A.1 "Exponential": rate ∈ [0.8, 4.0],
    scale ∈ [0.03, 0.35].
    """

    kind = "exponential"
    parameters = ("rate", "scale")

    def validate(self) -> None:
        self._require("rate", "scale")
        self._positive("rate", "scale")

    def sample(self, n, rng):
        return self.scale * (rng.exponential(1.0 / self.rate, size=n) - 1.0 / self.rate)

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"rate": _u(rng, 0.8, 4.0), "scale": _u(rng, 0.03, 0.35)}


class GumbelNoise(_ScaleNoise):
    """Additive Gumbel(−γ·scale, scale) (γ Euler's constant): centred, variance π²·scale²/6.

    App. A.1 "Gumbel": scale ∈ [0.03, 0.35].
    """

    kind = "gumbel"
    scale_range = (0.03, 0.35)

    def sample(self, n, rng):
        return rng.gumbel(-np.euler_gamma * self.scale, self.scale, size=n)


# ---------------------------------------------------------------------------
# root dependency (App. A.1 "Root dependency")
# ---------------------------------------------------------------------------


class _RootBlock(RootDependency):
    """Shared handling of ``nodes`` (root names, column order) and the block size r.

    ``nodes`` is kept as a tuple of strings (the base class would turn a list
    into a float array). Subclasses implement ``_size()`` (r implied by the
    other parameters) and ``sample``.
    """

    def __init__(self, **params: Any) -> None:
        nodes = params.get("nodes")
        if isinstance(nodes, (list, tuple)):
            params["nodes"] = tuple(nodes)
        super().__init__(**params)

    def validate(self) -> None:
        self._require("nodes")
        nodes = self._params["nodes"]
        if not isinstance(nodes, tuple) or len(nodes) < 2 or not all(isinstance(v, str) for v in nodes) \
                or len(set(nodes)) != len(nodes):
            raise ValueError(f"{self.kind}: 'nodes' must list at least two distinct root names, got {nodes!r}")
        self.nodes = nodes
        r = self._size()
        if r != len(nodes):
            raise ValueError(f"{self.kind}: parameters are for {r} roots but 'nodes' names {len(nodes)}")

    def _size(self) -> int:  # pragma: no cover
        raise NotImplementedError

    @property
    def r(self) -> int:
        return len(self.nodes)


class CommonFactorDependency(_RootBlock):
    """x_i = signs_i·(√rho·f + √(1 − rho)·e_i), f, e_i i.i.d. N(0, 1).

    Each column is N(0, 1) exactly (no further standardisation needed) and
    corr(x_i, x_j) = rho·signs_i·signs_j. App. A.1: rho ∈ [0.25, 0.75],
    random signs (±1 with probability 1/2).
    """

    kind = "common_factor"
    parameters = ("nodes", "rho", "signs")

    def validate(self) -> None:
        self._require("rho", "signs")
        _in_open_unit(self, "rho")
        s = np.asarray(self.signs, dtype=float)
        if s.ndim != 1 or not np.all(np.abs(s) == 1.0):
            raise ValueError(f"{self.kind}: 'signs' must be a list of ±1, got {self._params['signs']!r}")
        self.signs = s
        super().validate()

    def _size(self) -> int:
        return len(self.signs)

    def sample(self, n, rng):
        f = rng.standard_normal((n, 1))
        e = rng.standard_normal((n, self.r))
        return (math.sqrt(self.rho) * f + math.sqrt(1.0 - self.rho) * e) * self.signs

    @classmethod
    def draw(cls, r, rng):
        return {"rho": _u(rng, 0.25, 0.75), "signs": rng.choice([-1.0, 1.0], size=int(r)).tolist()}


class RandomCovarianceDependency(_RootBlock):
    """Gaussian N(0, Σ), Σ = L Lᵀ + 0.15·I, L = ``loadings`` (r × q); columns divided by √Σ_ii.

    Sampled as z L ᵀ + √0.15·e (z (n × q), e (n × r) standard normal), so the
    output is N(0, D^{-1/2} Σ D^{-1/2}) with D = diag Σ: population mean 0 and
    variance 1 per column. App. A.1: latent dimension q ∈ {1, …, r};
    ``draw`` takes L entries i.i.d. N(0, 1).
    """

    kind = "random_covariance"
    parameters = ("nodes", "loadings")
    #: isotropic term of the covariance (App. A.1)
    jitter: float = 0.15

    def validate(self) -> None:
        self._require("loadings")
        loadings = np.asarray(self.loadings, dtype=float)
        if loadings.ndim != 2 or loadings.shape[1] < 1 or not np.all(np.isfinite(loadings)):
            raise ValueError(f"{self.kind}: 'loadings' must be a finite r × q list of lists (q ≥ 1)")
        self.loadings = loadings
        super().validate()
        self.column_sd = np.sqrt(np.sum(loadings ** 2, axis=1) + self.jitter)

    def _size(self) -> int:
        return int(self.loadings.shape[0])

    def covariance(self) -> np.ndarray:
        """(r × r) Σ = L Lᵀ + 0.15·I before standardisation."""
        return self.loadings @ self.loadings.T + self.jitter * np.eye(self.r)

    def sample(self, n, rng):
        z = rng.standard_normal((n, self.loadings.shape[1]))
        e = rng.standard_normal((n, self.r))
        return (z @ self.loadings.T + math.sqrt(self.jitter) * e) / self.column_sd

    @classmethod
    def draw(cls, r, rng):
        q = int(rng.integers(1, int(r) + 1))
        return {"loadings": rng.standard_normal((int(r), q)).tolist()}


class UniformBallDependency(_RootBlock):
    """Uniform in the r-ball: center + scale·R·u, u uniform on the sphere, R = U^{1/r}; then standardised.

    The uniform unit r-ball has mean 0 and covariance I/(r + 2), so the
    population standardisation is x ↦ (x − center)/(scale/√(r + 2)), i.e. the
    returned block is √(r + 2)·R·u (columns mean 0, variance 1, uncorrelated
    but dependent). ``center`` and ``scale`` are stored as the paper draws
    them but cancel in this column standardisation. App. A.1: scale ∈
    [0.75, 2.0], center coordinates ∈ [−0.5, 0.5].
    """

    kind = "uniform_ball"
    parameters = ("nodes", "scale", "center")

    def validate(self) -> None:
        self._require("scale", "center")
        self._positive("scale")
        c = np.asarray(self.center, dtype=float)
        if c.ndim != 1 or not np.all(np.isfinite(c)):
            raise ValueError(f"{self.kind}: 'center' must be a finite list of r numbers")
        self.center = c
        super().validate()

    def _size(self) -> int:
        return len(self.center)

    def sample(self, n, rng):
        u = rng.standard_normal((n, self.r))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        radius = rng.random(n) ** (1.0 / self.r)
        x = self.center + self.scale * radius[:, None] * u
        return (x - self.center) / (self.scale / math.sqrt(self.r + 2.0))

    @classmethod
    def draw(cls, r, rng):
        return {"scale": _u(rng, 0.75, 2.0), "center": rng.uniform(-0.5, 0.5, size=int(r)).tolist()}
