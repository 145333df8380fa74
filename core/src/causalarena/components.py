"""Built-in plugin: the core's basic set of SCM components.

Registered through ``arena_components`` like any third-party component (the
core lists this module in :data:`causalarena.plugins.DEFAULT_PLUGINS`, with
distribution ``causal-arena``). The set issue 2 named, enough for the core's
own tests and for a plain SCM spec:

* root distributions ``gaussian``, ``uniform``, ``laplace``, ``lognormal``;
* mechanisms ``linear``, ``polynomial``, ``neural``, ``saturation``;
* additive noises ``gaussian``, ``uniform``, ``laplace``, ``student_t``.

The rest of the App. A.1 catalogue (gamma and zipf roots, trees, periodic and
rational mechanisms, heteroskedastic and censored noise, root-dependency modes,
difficulty stressors …) ships with ``arena-family-synthetic``. ``draw``
samples parameters from the ranges of the CausalArena paper, App. A.1.

A component of another distribution is one small class of the matching base
in :mod:`causalarena.scm` and one :class:`~causalarena.records.ComponentInfo`
record yielded by its ``arena_components()``; the helpers below
(:func:`draw_uniform`, :func:`signed_weights`, :func:`check_finite`,
:class:`ScaleNoise`, :class:`WeightedMechanism`) are public for them.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, List, Optional

import numpy as np

from .hookspecs import hookimpl
from .records import ComponentInfo
from .scm import Mechanism, Noise, RootDistribution

# ---------------------------------------------------------------------------
# parameter helpers (shared with the App. A.1 catalogue of arena-family-synthetic)
# ---------------------------------------------------------------------------


def draw_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    """One U[lo, hi] draw as a Python float (the paper's parameter ranges)."""
    return float(rng.uniform(lo, hi))


def signed_weights(k: int, rng: np.random.Generator, scale: float) -> List[float]:
    """Weights |w| ~ U[0.5, 1.5] with random sign, times ``scale``."""
    w = rng.uniform(0.5, 1.5, size=k) * rng.choice([-1.0, 1.0], size=k)
    return (w * scale).tolist()


def check_finite(comp: Any, *names: str) -> None:
    """Raise ValueError unless each named parameter of ``comp`` is a finite real number (not a bool)."""
    for n in names:
        v = comp._params.get(n)
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v):
            raise ValueError(f"{comp.kind}: parameter {n!r} must be a finite number, got {v!r}")


# ---------------------------------------------------------------------------
# root distributions (App. A.1 "Root distributions")
# ---------------------------------------------------------------------------


class LocScaleRoot(RootDistribution):
    """A root with a finite ``loc`` and a positive ``scale`` (the Gaussian and Laplace roots)."""

    parameters = ("loc", "scale")
    loc: float
    scale: float

    def validate(self) -> None:
        self._require("loc", "scale")
        check_finite(self, "loc")
        self._positive("scale")


class GaussianRoot(LocScaleRoot):
    """N(loc, scale²). App. A.1: loc ~ N(0, 1), scale ∈ [0.5, 2.0]."""

    kind = "gaussian"

    def sample(self, n, rng):
        return rng.normal(self.loc, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"loc": float(rng.normal(0.0, 1.0)), "scale": draw_uniform(rng, 0.5, 2.0)}


class UniformRoot(RootDistribution):
    """U(low, high). App. A.1: low ∈ [−2, 0], high ∈ [0.5, 3.0]."""

    kind = "uniform"
    parameters = ("low", "high")
    low: float
    high: float

    def validate(self) -> None:
        self._require("low", "high")
        check_finite(self, "low", "high")
        if not float(self.low) < float(self.high):
            raise ValueError(f"uniform: low ({self.low}) must be < high ({self.high})")

    def sample(self, n, rng):
        return rng.uniform(self.low, self.high, size=n)

    @classmethod
    def draw(cls, rng):
        return {"low": draw_uniform(rng, -2.0, 0.0), "high": draw_uniform(rng, 0.5, 3.0)}


class LaplaceRoot(LocScaleRoot):
    """Laplace(loc, scale); variance 2·scale².

    Not one of the 14 App. A.1 root families; kept registered for existing
    specs (draw: loc 0, scale ∈ [0.4, 1.0]).
    """

    kind = "laplace"

    def sample(self, n, rng):
        return rng.laplace(self.loc, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"loc": 0.0, "scale": draw_uniform(rng, 0.4, 1.0)}


class LognormalRoot(RootDistribution):
    """exp(N(mean, sigma²)); the result has mean exp(mean + sigma²/2).

    App. A.1: log mean ``mean`` ∈ [−0.3, 0.7], log sd ``sigma`` ∈ [0.25, 0.9].
    """

    kind = "lognormal"
    parameters = ("mean", "sigma")
    mean: float
    sigma: float

    def validate(self) -> None:
        self._require("mean", "sigma")
        check_finite(self, "mean")
        self._positive("sigma")

    def sample(self, n, rng):
        return rng.lognormal(self.mean, self.sigma, size=n)

    @classmethod
    def draw(cls, rng):
        return {"mean": draw_uniform(rng, -0.3, 0.7), "sigma": draw_uniform(rng, 0.25, 0.9)}


# ---------------------------------------------------------------------------
# structural noise (App. A.1 "Structural noise")
#
# ``draw(rng, k=None)``: ``k`` is the node's number of parents; only
# ``rff_heteroskedastic`` needs it, the others accept and ignore it so a
# generator can pass it uniformly.
# ---------------------------------------------------------------------------


class ScaleNoise(Noise):
    """Noise with a single positive ``scale`` drawn from [lo, hi]."""

    parameters = ("scale",)
    scale: float
    scale_range = (0.05, 0.45)

    def validate(self) -> None:
        self._require(*self.parameters)
        self._positive("scale")

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"scale": draw_uniform(rng, *cls.scale_range)}


class GaussianNoise(ScaleNoise):
    """Additive N(0, scale²); App. A.1 scale ∈ [0.05, 0.45]."""

    kind = "gaussian"

    def sample(self, n, rng):
        return rng.normal(0.0, self.scale, size=n)


class UniformNoise(ScaleNoise):
    """Additive U(−scale, scale) (variance scale²/3); App. A.1 scale ∈ [0.05, 0.45]."""

    kind = "uniform"

    def sample(self, n, rng):
        return rng.uniform(-self.scale, self.scale, size=n)


class LaplaceNoise(ScaleNoise):
    """Additive Laplace(0, scale) (variance 2·scale²); App. A.1 scale ∈ [0.03, 0.35]."""

    kind = "laplace"
    scale_range = (0.03, 0.35)

    def sample(self, n, rng):
        return rng.laplace(0.0, self.scale, size=n)


class StudentTNoise(Noise):
    """Additive scale·t(df) (variance scale²·df/(df − 2)); App. A.1 df ∈ [2.5, 8], scale ∈ [0.03, 0.30]."""

    kind = "student_t"
    parameters = ("df", "scale")
    df: float
    scale: float

    def validate(self) -> None:
        self._require("df", "scale")
        self._positive("df", "scale")

    def sample(self, n, rng):
        return self.scale * rng.standard_t(self.df, size=n)

    @classmethod
    def draw(cls, rng, k: Optional[int] = None):
        return {"df": draw_uniform(rng, 2.5, 8.0), "scale": draw_uniform(rng, 0.03, 0.30)}


# -- mechanisms (App. A.1 "Mechanisms") ---------------------------------------


class WeightedMechanism(Mechanism):
    """Common validation: ``weights`` has one entry per parent."""

    bias: float

    def validate(self) -> None:
        self._require("weights", "bias")
        w = np.asarray(self._params["weights"], dtype=float)
        if w.ndim != 1 or not np.all(np.isfinite(w)):
            raise ValueError(f"{self.kind}: 'weights' must be a finite 1-D list")
        self.weights = w


class LinearAdditive(WeightedMechanism):
    """f(x) = Σ_j w_j x_j + b.

    App. A.1: weights scaled by 0.8/√k, bias ∈ [−0.5, 0.5].
    """

    kind = "linear"
    parameters = ("weights", "bias")

    def __call__(self, parents):
        return parents @ self.weights + self.bias

    @classmethod
    def draw(cls, k, rng):
        return {"weights": signed_weights(k, rng, 0.8 / math.sqrt(k)), "bias": draw_uniform(rng, -0.5, 0.5)}


class PolynomialAdditive(WeightedMechanism):
    """f(x) = Σ_j (w_j x_j + q_j x_j² + c_j x_j³) + b.

    App. A.1: powers 2–4 … quadratic coefficients ∈ [−0.5, 0.5], cubic
    ∈ [−0.15, 0.15]; linear weights scaled by 0.8/√k.
    """

    kind = "polynomial"
    parameters = ("weights", "quadratic", "cubic", "bias")

    def validate(self) -> None:
        super().validate()
        self._require("quadratic", "cubic")
        self.quadratic = np.asarray(self._params["quadratic"], dtype=float)
        self.cubic = np.asarray(self._params["cubic"], dtype=float)
        if self.quadratic.shape != self.weights.shape or self.cubic.shape != self.weights.shape:
            raise ValueError("polynomial: 'quadratic' and 'cubic' need one entry per parent")

    def __call__(self, parents):
        return parents @ self.weights + (parents**2) @ self.quadratic + (parents**3) @ self.cubic + self.bias

    @classmethod
    def draw(cls, k, rng):
        return {
            "weights": signed_weights(k, rng, 0.8 / math.sqrt(k)),
            "quadratic": rng.uniform(-0.5, 0.5, size=k).tolist(),
            "cubic": rng.uniform(-0.15, 0.15, size=k).tolist(),
            "bias": draw_uniform(rng, -0.5, 0.5),
        }


class RandomNeural(Mechanism):
    """One-hidden-layer network f(x) = w₂ᵀ tanh(W₁ᵀ x + b₁) + b₂.

    App. A.1: 3–8 hidden units. ``hidden_weights`` is (k × h).
    """

    kind = "neural"
    parameters = ("hidden_weights", "hidden_bias", "output_weights", "bias")
    bias: float

    def validate(self) -> None:
        self._require("hidden_weights", "hidden_bias", "output_weights", "bias")
        self.hidden_weights = np.asarray(self._params["hidden_weights"], dtype=float)
        self.hidden_bias = np.asarray(self._params["hidden_bias"], dtype=float)
        self.output_weights = np.asarray(self._params["output_weights"], dtype=float)
        h = self.hidden_bias.shape[0]
        if self.hidden_weights.ndim != 2 or self.hidden_weights.shape[1] != h or self.output_weights.shape != (h,):
            raise ValueError("neural: hidden_weights must be (k × h), hidden_bias and output_weights (h,)")

    def n_inputs(self):
        return int(self.hidden_weights.shape[0])

    def __call__(self, parents):
        return np.tanh(parents @ self.hidden_weights + self.hidden_bias) @ self.output_weights + self.bias

    @classmethod
    def draw(cls, k, rng):
        h = int(rng.integers(3, 9))
        return {
            "hidden_weights": rng.normal(0.0, 1.0 / math.sqrt(k), size=(k, h)).tolist(),
            "hidden_bias": rng.uniform(-0.5, 0.5, size=h).tolist(),
            "output_weights": signed_weights(h, rng, 1.2 / math.sqrt(h)),
            "bias": draw_uniform(rng, -0.5, 0.5),
        }


class Saturation(WeightedMechanism):
    """f(x) = scale · tanh((Σ_j w_j x_j + b) / scale).

    Slope 1 near 0, saturating at ±scale. App. A.1: response scales
    ∈ [0.8, 2.5]; weights scaled by 0.8/√k.
    """

    kind = "saturation"
    parameters = ("weights", "bias", "scale")
    scale: float

    def validate(self) -> None:
        super().validate()
        self._require("scale")
        self._positive("scale")

    def __call__(self, parents):
        return self.scale * np.tanh((parents @ self.weights + self.bias) / self.scale)

    @classmethod
    def draw(cls, k, rng):
        return {
            "weights": signed_weights(k, rng, 1.6 / math.sqrt(k)),
            "bias": draw_uniform(rng, -0.5, 0.5),
            "scale": draw_uniform(rng, 0.8, 2.5),
        }


# ---------------------------------------------------------------------------
# the plugin hook
# ---------------------------------------------------------------------------

#: (record kind, class) of the basic set, in the order ``arena plugins`` lists them
BASIC_SET = (
    ("root_distribution", GaussianRoot), ("root_distribution", UniformRoot),
    ("root_distribution", LaplaceRoot), ("root_distribution", LognormalRoot),
    ("mechanism", LinearAdditive), ("mechanism", PolynomialAdditive), ("mechanism", RandomNeural),
    ("mechanism", Saturation),
    ("noise", GaussianNoise), ("noise", UniformNoise), ("noise", LaplaceNoise), ("noise", StudentTNoise),
)


@hookimpl
def arena_components() -> Iterator[ComponentInfo]:
    """The basic set: one :class:`ComponentInfo` per class of :data:`BASIC_SET`."""
    for kind, cls in BASIC_SET:
        yield ComponentInfo(kind=kind, name=cls.kind, factory=f"{__name__}:{cls.__name__}",
                            description=(cls.__doc__ or "").strip().splitlines()[0])
