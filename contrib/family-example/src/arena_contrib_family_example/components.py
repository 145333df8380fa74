"""The family's own SCM component: a Bernoulli root, contributed through ``arena_components``.

The core ships a basic set of components (gaussian, uniform, laplace and
lognormal roots; linear, polynomial, neural and saturation mechanisms;
gaussian, uniform, laplace and student_t noise); the App. A.1 catalogue
(with its ``bernoulli`` root) belongs to ``arena-family-synthetic``. A family
that needs one more component writes the class here and yields one
:class:`~causalarena.records.ComponentInfo` for it from the plugin module
(:mod:`.plugin`): the SCM compiler then finds it by its spec ``kind``. The
name carries the family's prefix so it never collides with another
distribution's ``bernoulli``.
"""

from __future__ import annotations

import math

import numpy as np

from causalarena.scm import RootDistribution


class TextbookBernoulli(RootDistribution):
    """Bernoulli(p) on {0, 1}: mean p, variance p(1 − p); ``p`` in (0, 1)."""

    kind = "textbook_bernoulli"
    parameters = ("p",)
    discrete = True

    def validate(self) -> None:
        self._require("p")
        p = self._params["p"]
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 0.0 < p < 1.0:
            raise ValueError(f"{self.kind}: parameter 'p' must be in (0, 1), got {p!r}")

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n,) floats in {0.0, 1.0}: one uniform draw per row, 1 where it is below ``p``."""
        return (rng.random(n) < self.p).astype(float)

    @classmethod
    def draw(cls, rng: np.random.Generator) -> dict:
        return {"p": float(rng.uniform(0.15, 0.85))}
