"""Root distributions, noise families and root-dependency samplers (App. A.1)."""

from __future__ import annotations

import numpy as np  # noqa: F401

from .scm import Noise, RootDistribution, _u, register_noise, register_root_distribution

# -- root distributions (App. A.1 "Root distributions") ---------------------


@register_root_distribution
class GaussianRoot(RootDistribution):
    """N(loc, scale²)."""

    kind = "gaussian"
    parameters = ("loc", "scale")

    def validate(self) -> None:
        self._require("loc", "scale")
        self._positive("scale")

    def sample(self, n, rng):
        return rng.normal(self.loc, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"loc": _u(rng, -0.5, 0.5), "scale": _u(rng, 0.5, 1.5)}


@register_root_distribution
class UniformRoot(RootDistribution):
    """U(low, high)."""

    kind = "uniform"
    parameters = ("low", "high")

    def validate(self) -> None:
        self._require("low", "high")
        if not float(self.low) < float(self.high):
            raise ValueError(f"uniform: low ({self.low}) must be < high ({self.high})")

    def sample(self, n, rng):
        return rng.uniform(self.low, self.high, size=n)

    @classmethod
    def draw(cls, rng):
        half = _u(rng, 1.0, 2.0)
        return {"low": -half, "high": half}


@register_root_distribution
class LaplaceRoot(RootDistribution):
    """Laplace(loc, scale); variance 2·scale²."""

    kind = "laplace"
    parameters = ("loc", "scale")

    def validate(self) -> None:
        self._require("loc", "scale")
        self._positive("scale")

    def sample(self, n, rng):
        return rng.laplace(self.loc, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"loc": 0.0, "scale": _u(rng, 0.4, 1.0)}


@register_root_distribution
class LognormalRoot(RootDistribution):
    """exp(N(mean, sigma²)); mean of the result exp(mean + sigma²/2)."""

    kind = "lognormal"
    parameters = ("mean", "sigma")

    def validate(self) -> None:
        self._require("mean", "sigma")
        self._positive("sigma")

    def sample(self, n, rng):
        return rng.lognormal(self.mean, self.sigma, size=n)

    @classmethod
    def draw(cls, rng):
        return {"mean": 0.0, "sigma": _u(rng, 0.25, 0.75)}


# -- additive noise (App. A.1 "Noise") ---------------------------------------


@register_noise
class GaussianNoise(Noise):
    """N(0, scale²); App. A.1 scale ∈ [0.05, 0.45]."""

    kind = "gaussian"
    parameters = ("scale",)

    def validate(self) -> None:
        self._require("scale")
        self._positive("scale")

    def sample(self, n, rng):
        return rng.normal(0.0, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"scale": _u(rng, 0.05, 0.45)}


@register_noise
class UniformNoise(Noise):
    """U(−scale, scale) (variance scale²/3); App. A.1 scale ∈ [0.05, 0.45]."""

    kind = "uniform"
    parameters = ("scale",)

    def validate(self) -> None:
        self._require("scale")
        self._positive("scale")

    def sample(self, n, rng):
        return rng.uniform(-self.scale, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"scale": _u(rng, 0.05, 0.45)}


@register_noise
class LaplaceNoise(Noise):
    """Laplace(0, scale) (variance 2·scale²); App. A.1 scale ∈ [0.03, 0.35]."""

    kind = "laplace"
    parameters = ("scale",)

    def validate(self) -> None:
        self._require("scale")
        self._positive("scale")

    def sample(self, n, rng):
        return rng.laplace(0.0, self.scale, size=n)

    @classmethod
    def draw(cls, rng):
        return {"scale": _u(rng, 0.03, 0.35)}


@register_noise
class StudentTNoise(Noise):
    """scale · t(df); App. A.1 df ∈ [2.5, 8], scale ∈ [0.03, 0.30]."""

    kind = "student_t"
    parameters = ("df", "scale")

    def validate(self) -> None:
        self._require("df", "scale")
        self._positive("df", "scale")

    def sample(self, n, rng):
        return self.scale * rng.standard_t(self.df, size=n)

    @classmethod
    def draw(cls, rng):
        return {"df": _u(rng, 2.5, 8.0), "scale": _u(rng, 0.03, 0.30)}


