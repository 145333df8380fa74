"""The mechanism catalogue of App. A.1 ("Mechanisms").

The paper scores 16 mechanism tags. Four kinds are the core's basic set
(:mod:`causalarena.components`: ``linear``, ``polynomial``, ``neural``,
``saturation``); this module holds the other thirteen kinds, twelve tags (``product`` and
``random_function_product`` are both scored as ``multiplicative``):

=======================  ====================  ==========================================
kind                     tag                   f(x), x the (n × k) parent matrix
=======================  ====================  ==========================================
product                  multiplicative        Π_j (w_j x_j + b_j)
random_function_product  multiplicative        s · Π_j tanh(a_j x_j + c_j)
interaction              interaction           w·x + Σ_p v_p x_{i_p} x_{j_p} + b
rational                 rational              (w·x + b) / (offset + |u·x|)
exp_log                  exp_log               exp(clip(w·x + b, −3, 3)), log1p|·|, signed log
periodic                 periodic              Σ_j a_j sin(ω_j x_j + φ_j) + b
piecewise                piecewise             hinge with a jump at a cutoff of w·x
regime_switching         regime_switching      sigmoid-gated blend of two linear regimes
rff                      rff                   random Fourier features (GP, RBF kernel)
activation               activation            act(w·x + b), 15 activations
tree                     tree                  depth-D axis-aligned regression tree
discretisation           discretisation        bins of w·x or nearest-centroid clusters
aggregation              aggregation           max or temperature log-sum-exp of w_j x_j
=======================  ====================  ==========================================

Every kind validates its parameters (``ValueError`` naming the parameter;
per-parent lists must all have one entry per parent, and
:meth:`~causalarena.scm.Mechanism.n_inputs` reports that count so a spec
whose mechanism was drawn for another parent count is rejected), evaluates
vectorised over rows, works for k = 1 … 8 parents (and more), and stays
finite for inputs of order ±10. Output level and scale are arbitrary: the
sampler standardises every mechanism output (``out_loc``/``out_scale``, see
:func:`~causalarena.scm.calibrate_outputs`).

``draw(k, rng)`` samples the ranges quoted from App. A.1 in each class. Where
the paper gives no range (for example the weights of most kinds), linear
weights follow the linear-additive rule: |w| ~ U[0.5, 1.5] with a random sign,
times 0.8/√k; biases ~ U[−0.5, 0.5].
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy import special, stats

from causalarena.components import draw_uniform as _u
from causalarena.components import signed_weights as _signed_weights
from causalarena.scm import Mechanism, component_class

#: the 16 mechanism tags of App. A.1 (sorted); ``product`` and
#: ``random_function_product`` share the tag ``multiplicative``
MECHANISM_TAGS: Tuple[str, ...] = (
    "activation", "aggregation", "discretisation", "exp_log", "interaction", "linear", "multiplicative", "neural",
    "periodic", "piecewise", "polynomial", "rational", "regime_switching", "rff", "saturation", "tree",
)


#: the mechanism kinds of the grid (the core's four and this module's thirteen): the kinds
#: :func:`kinds_for_tag` chooses from, so an installed third-party mechanism never changes
#: what a configuration id generates
GRID_MECHANISMS: Tuple[str, ...] = (
    "activation", "aggregation", "discretisation", "exp_log", "interaction", "linear", "neural", "periodic",
    "piecewise", "polynomial", "product", "random_function_product", "rational", "regime_switching", "rff",
    "saturation", "tree",
)


@functools.lru_cache(maxsize=None)
def kinds_for_tag(tag: str) -> Tuple[str, ...]:
    """Mechanism kinds of the grid (:data:`GRID_MECHANISMS`) scored under factor tag ``tag`` (sorted).

    ``kinds_for_tag("multiplicative") == ("product", "random_function_product")``.

    Raises:
        ValueError: no grid kind carries ``tag`` (names the known tags).
        causalarena.plugins.UnknownComponentError: a grid kind is not installed.
    """
    tags = {kind: component_class("mechanism", kind).factor_tag() for kind in GRID_MECHANISMS}
    kinds = tuple(sorted(kind for kind, t in tags.items() if t == tag))
    if not kinds:
        known = sorted(set(tags.values()))
        raise ValueError(f"unknown mechanism tag {tag!r}; known tags: {known}")
    return kinds


def _linear_weights(k: int, rng: np.random.Generator) -> List[float]:
    """The linear-additive weight rule of App. A.1: |w| ~ U[0.5, 1.5], random sign, times 0.8/√k."""
    return _signed_weights(k, rng, 0.8 / math.sqrt(k))


class _CatalogueMechanism(Mechanism):
    """Shared parameter checks.

    ``per_parent`` names 1-D lists with one entry per parent (their common
    length is :meth:`n_inputs`); ``scalars`` names required finite numbers.
    Subclasses add their own checks in :meth:`check`.
    """

    per_parent: ClassVar[Tuple[str, ...]] = ()
    scalars: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, **params: Any) -> None:
        # a ragged or non-numeric list would fail inside Component.__init__ without naming the parameter
        allowed = self.accepted_parameters()
        for key, value in params.items():
            if key in allowed and isinstance(value, list):
                try:
                    np.asarray(value, dtype=float)
                except (TypeError, ValueError):
                    raise ValueError(f"{self.kind}: parameter {key!r} must be a rectangular list of numbers, "
                                     f"got {value!r}") from None
        super().__init__(**params)

    def validate(self) -> None:
        self._require(*self.per_parent, *self.scalars)
        for name in self.scalars:
            setattr(self, name, self._scalar(name))
        self._k: Optional[int] = None
        first = ""
        for name in self.per_parent:
            v = self._vector(name)
            if self._k is None:
                self._k, first = v.shape[0], name
            elif v.shape[0] != self._k:
                raise ValueError(f"{self.kind}: parameter {name!r} has {v.shape[0]} entries but {first!r} has "
                                 f"{self._k} (both need one entry per parent)")
            setattr(self, name, v)
        self.check()

    def check(self) -> None:
        """Kind-specific checks (raise ValueError naming the parameter)."""

    def n_inputs(self) -> Optional[int]:
        return self._k

    # -- helpers ---------------------------------------------------------

    def _scalar(self, name: str) -> float:
        v = self._params[name]
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise ValueError(f"{self.kind}: parameter {name!r} must be a finite number, got {v!r}")
        return float(v)

    def _vector(self, name: str, length: Optional[int] = None, min_length: int = 1) -> np.ndarray:
        v = np.asarray(self._params[name], dtype=float)
        if v.ndim != 1 or v.shape[0] < min_length or not np.all(np.isfinite(v)):
            raise ValueError(f"{self.kind}: parameter {name!r} must be a list of at least {min_length} finite "
                             f"number(s), got {self._params[name]!r}")
        if length is not None and v.shape[0] != length:
            raise ValueError(f"{self.kind}: parameter {name!r} needs {length} entries, got {v.shape[0]}")
        return v

    def _matrix(self, name: str) -> np.ndarray:
        m = np.asarray(self._params[name], dtype=float)
        if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 1 or not np.all(np.isfinite(m)):
            raise ValueError(f"{self.kind}: parameter {name!r} must be a non-empty 2-D list of finite numbers")
        return m

    def _indices(self, name: str, values: np.ndarray, upper: int) -> np.ndarray:
        if not np.all(values == np.round(values)) or values.min() < 0 or values.max() >= upper:
            raise ValueError(f"{self.kind}: parameter {name!r} must hold integer indices in [0, {upper}), "
                             f"got {self._params[name]!r}")
        return values.astype(np.intp)

    def _choice(self, name: str, choices: Sequence[str]) -> str:
        self._require(name)
        v = self._params[name]
        if not isinstance(v, str) or v not in choices:
            raise ValueError(f"{self.kind}: parameter {name!r} must be one of {list(choices)}, got {v!r}")
        return v

    def _only_when(self, name: str, needed: bool, condition: str) -> None:
        """``name`` is required when ``needed`` and rejected otherwise."""
        if needed and name not in self._params:
            raise ValueError(f"{self.kind}: parameter {name!r} is required when {condition}")
        if not needed and name in self._params:
            raise ValueError(f"{self.kind}: parameter {name!r} is only accepted when {condition}")

    def _positive_scalar(self, name: str, minimum: float = 0.0) -> float:
        v = self._scalar(name)
        if not v > minimum:
            raise ValueError(f"{self.kind}: parameter {name!r} must be > {minimum}, got {v!r}")
        return v


# -- multiplicative (one tag, two kinds) ---------------------------------------


class Product(_CatalogueMechanism):
    """Multiplicative parent product f(x) = Π_j (w_j x_j + b_j).

    App. A.1 "Multiplicative parent product": parent effects are multiplied
    after weight scaling by 0.8/√k and bias sampling in [−0.4, 0.4]. The bias
    is per factor (``biases``, one per parent): a single bias added after the
    product would be removed by output standardisation, while per-factor
    biases give the product its lower-order (main-effect) terms.

    The output is heavy-tailed for many parents (a product of k independent
    standard normals has kurtosis 3^k); its scale, (0.8/√k)^k-ish, is removed
    by output standardisation.

    Parameters: ``weights`` (k), ``biases`` (k). Scored under tag
    ``multiplicative``.
    """

    kind = "product"
    tag = "multiplicative"
    parameters = ("weights", "biases")
    per_parent = ("weights", "biases")

    def __call__(self, parents):
        return np.prod(parents * self.weights + self.biases, axis=1)

    @classmethod
    def draw(cls, k, rng):
        return {"weights": _linear_weights(k, rng), "biases": rng.uniform(-0.4, 0.4, size=k).tolist()}


class RandomFunctionProduct(_CatalogueMechanism):
    """Random-function product f(x) = s · Π_j tanh(a_j x_j + c_j).

    App. A.1 "Random-function product": transformed parent responses are
    multiplied and rescaled with output scale s ∈ [0.4, 1.6]. Each parent's
    response is a random bounded sigmoid-shaped function (slope |a_j| ~
    U[0.5, 1.5] with random sign, shift c_j ~ U[−1, 1]; the paper gives no
    range for these), so the product is bounded by s for any input.

    Parameters: ``slopes`` (k), ``shifts`` (k), ``output_scale``. Scored
    under tag ``multiplicative``.
    """

    kind = "random_function_product"
    tag = "multiplicative"
    parameters = ("slopes", "shifts", "output_scale")
    per_parent = ("slopes", "shifts")
    scalars = ("output_scale",)

    def __call__(self, parents):
        return self.output_scale * np.prod(np.tanh(parents * self.slopes + self.shifts), axis=1)

    @classmethod
    def draw(cls, k, rng):
        return {
            "slopes": _signed_weights(k, rng, 1.0),
            "shifts": rng.uniform(-1.0, 1.0, size=k).tolist(),
            "output_scale": _u(rng, 0.4, 1.6),
        }


# -- additive interaction -------------------------------------------------------


class Interaction(_CatalogueMechanism):
    """Additive interaction f(x) = Σ_j w_j x_j + Σ_p v_p x_{i_p} x_{j_p} + b.

    App. A.1 "Additive interaction": up to three parent pairs are sampled,
    with interaction weights scaled by 0.5/√#pairs (|v| ~ U[0.5, 1.5], random
    sign, times 0.5/√#pairs); the linear part follows the linear-additive
    rule (0.8/√k, bias ∈ [−0.5, 0.5]).

    ``pairs`` is an (m × 2) list of parent indices (0-based, columns of the
    parent matrix), ``interaction_weights`` has m entries. A pair may repeat
    an index (i, i): with one parent there is no pair of distinct parents, so
    ``draw(1, …)`` uses the self-interaction (0, 0), i.e. the only
    second-order term x_1² — the mechanism stays second order instead of
    collapsing to the linear kind.

    Parameters: ``weights`` (k), ``bias``, ``pairs`` (m × 2), ``interaction_weights`` (m), m ≥ 1.
    """

    kind = "interaction"
    parameters = ("weights", "bias", "pairs", "interaction_weights")
    per_parent = ("weights",)
    scalars = ("bias",)

    def check(self) -> None:
        self._require("pairs", "interaction_weights")
        pairs = np.asarray(self._params["pairs"], dtype=float)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.shape[0] < 1:
            raise ValueError(f"interaction: parameter 'pairs' must be a non-empty list of [i, j] index pairs, "
                             f"got {self._params['pairs']!r}")
        self.pairs = self._indices("pairs", pairs, self._k)
        self.interaction_weights = self._vector("interaction_weights", length=pairs.shape[0])

    def __call__(self, parents):
        products = parents[:, self.pairs[:, 0]] * parents[:, self.pairs[:, 1]]
        return parents @ self.weights + products @ self.interaction_weights + self.bias

    @classmethod
    def draw(cls, k, rng):
        if k == 1:
            pairs = [[0, 0]]
        else:
            candidates = [[i, j] for i in range(k) for j in range(i + 1, k)]
            m = int(rng.integers(1, min(3, len(candidates)) + 1))
            pairs = [candidates[int(c)] for c in rng.choice(len(candidates), size=m, replace=False)]
        m = len(pairs)
        return {
            "weights": _linear_weights(k, rng),
            "bias": _u(rng, -0.5, 0.5),
            "pairs": pairs,
            "interaction_weights": _signed_weights(m, rng, 0.5 / math.sqrt(m)),
        }


# -- rational / ratio -------------------------------------------------------------


class Rational(_CatalogueMechanism):
    """Denominator-safe ratio f(x) = (w·x + b) / (offset + |u·x|).

    App. A.1 "Rational/ratio": denominator-safe ratio transforms avoid
    near-zero denominators through bounded offsets and clipping. Here the
    denominator is clipped from below by construction: |denominator| ≥
    ``offset`` ≥ 0.1 (:attr:`MIN_OFFSET`, enforced), and ``draw`` takes
    offset ~ U[0.5, 1.5], so |f| ≤ |w·x + b| / 0.5. Numerator and
    denominator weights follow the linear-additive rule (0.8/√k).

    Parameters: ``weights`` (k), ``bias``, ``denominator_weights`` (k), ``offset``.
    """

    kind = "rational"
    parameters = ("weights", "bias", "denominator_weights", "offset")
    per_parent = ("weights", "denominator_weights")
    scalars = ("bias", "offset")
    MIN_OFFSET: ClassVar[float] = 0.1

    def check(self) -> None:
        if self.offset < self.MIN_OFFSET:
            raise ValueError(f"rational: parameter 'offset' must be >= {self.MIN_OFFSET} (keeps the denominator "
                             f"away from zero), got {self.offset!r}")

    def __call__(self, parents):
        return (parents @ self.weights + self.bias) / (self.offset + np.abs(parents @ self.denominator_weights))

    @classmethod
    def draw(cls, k, rng):
        return {
            "weights": _linear_weights(k, rng),
            "bias": _u(rng, -0.5, 0.5),
            "denominator_weights": _linear_weights(k, rng),
            "offset": _u(rng, 0.5, 1.5),
        }


# -- exponential / log ------------------------------------------------------------


class ExpLog(_CatalogueMechanism):
    """Exponential or logarithmic response of the linear index u = w·x + b.

    App. A.1 "Exponential/log": exponential inputs are clipped to [−3, 3]
    and paired with log or signed-log style transforms where needed.
    ``transform`` picks the response:

    * ``"exp"``: exp(clip(u, −3, 3)) (values in [e⁻³, e³]);
    * ``"log"``: log(1 + |u|) (log of a positive argument, for any sign of u);
    * ``"signed_log"``: sign(u) · log(1 + |u|).

    ``draw`` picks the transform uniformly; weights follow the linear-additive
    rule (0.8/√k), bias ∈ [−0.5, 0.5].

    Parameters: ``weights`` (k), ``bias``, ``transform``.
    """

    kind = "exp_log"
    parameters = ("weights", "bias", "transform")
    per_parent = ("weights",)
    scalars = ("bias",)
    TRANSFORMS: ClassVar[Tuple[str, ...]] = ("exp", "log", "signed_log")
    CLIP: ClassVar[float] = 3.0

    def check(self) -> None:
        self._choice("transform", self.TRANSFORMS)

    def __call__(self, parents):
        u = parents @ self.weights + self.bias
        if self.transform == "exp":
            return np.exp(np.clip(u, -self.CLIP, self.CLIP))
        if self.transform == "log":
            return np.log1p(np.abs(u))
        return np.sign(u) * np.log1p(np.abs(u))

    @classmethod
    def draw(cls, k, rng):
        return {
            "weights": _linear_weights(k, rng),
            "bias": _u(rng, -0.5, 0.5),
            "transform": str(rng.choice(cls.TRANSFORMS)),
        }


# -- periodic -----------------------------------------------------------------------


class Periodic(_CatalogueMechanism):
    """Additive periodic response f(x) = Σ_j a_j sin(ω_j x_j + φ_j) + b.

    App. A.1 "Trigonometric/periodic": periodic parent transforms use
    sine/cosine-style responses with randomized frequency and phase. A cosine
    is the sine with phase φ + π/2, so the phase φ_j ~ U[0, 2π) covers both.
    The paper gives no ranges: ``draw`` takes frequencies ω_j ~ U[0.5, 2.0]
    (¼ to 1 period per unit of a standardised parent), amplitudes by the
    linear-additive rule (0.8/√k), bias ∈ [−0.5, 0.5].

    Parameters: ``amplitudes`` (k), ``frequencies`` (k, > 0), ``phases`` (k, radians), ``bias``.
    """

    kind = "periodic"
    parameters = ("amplitudes", "frequencies", "phases", "bias")
    per_parent = ("amplitudes", "frequencies", "phases")
    scalars = ("bias",)

    def check(self) -> None:
        if not np.all(self.frequencies > 0):
            raise ValueError(f"periodic: parameter 'frequencies' must be > 0, got {self._params['frequencies']!r}")

    def __call__(self, parents):
        return np.sin(parents * self.frequencies + self.phases) @ self.amplitudes + self.bias

    @classmethod
    def draw(cls, k, rng):
        return {
            "amplitudes": _linear_weights(k, rng),
            "frequencies": rng.uniform(0.5, 2.0, size=k).tolist(),
            "phases": rng.uniform(0.0, 2 * math.pi, size=k).tolist(),
            "bias": _u(rng, -0.5, 0.5),
        }


# -- piecewise / threshold ------------------------------------------------------------


class Piecewise(_CatalogueMechanism):
    """Threshold response of u = w·x: two linear pieces and a jump at the cutoff c.

    f(x) = low_slope · (u − c)             if u < c,
    f(x) = high_slope · (u − c) + offset   if u ≥ c.

    App. A.1 "Piecewise/threshold": cutoffs in [−0.6, 0.6], low slopes in
    [0.2, 1.0], high slopes in [1.0, 2.5], offsets (the jump at the cutoff)
    in [−1.5, 1.5]. Weights follow the linear-additive rule (0.8/√k).

    Parameters: ``weights`` (k), ``cutoff``, ``low_slope``, ``high_slope``, ``offset``.
    """

    kind = "piecewise"
    parameters = ("weights", "cutoff", "low_slope", "high_slope", "offset")
    per_parent = ("weights",)
    scalars = ("cutoff", "low_slope", "high_slope", "offset")

    def __call__(self, parents):
        z = parents @ self.weights - self.cutoff
        return np.where(z < 0, self.low_slope * z, self.high_slope * z + self.offset)

    @classmethod
    def draw(cls, k, rng):
        return {
            "weights": _linear_weights(k, rng),
            "cutoff": _u(rng, -0.6, 0.6),
            "low_slope": _u(rng, 0.2, 1.0),
            "high_slope": _u(rng, 1.0, 2.5),
            "offset": _u(rng, -1.5, 1.5),
        }


# -- mixture / regime switching ----------------------------------------------------------


class RegimeSwitching(_CatalogueMechanism):
    """Two linear regimes blended by a sigmoid gate.

    g(x) = σ(gate_scale · (v·x − cutoff)),
    f(x) = (1 − g) · w·x + g · alt_scale · w'·x + b.

    App. A.1 "Mixture/regime switching": gates use scales in [1, 4], cutoffs
    in [−0.5, 0.5], and alternate response scales in [0.5, 1.8]. The three
    weight vectors (regime ``weights`` w, ``alt_weights`` w', ``gate_weights``
    v) follow the linear-additive rule (0.8/√k), bias ∈ [−0.5, 0.5].

    Parameters: ``weights``, ``alt_weights``, ``gate_weights`` (k each),
    ``gate_scale`` (> 0), ``cutoff``, ``alt_scale``, ``bias``.
    """

    kind = "regime_switching"
    parameters = ("weights", "alt_weights", "gate_weights", "gate_scale", "cutoff", "alt_scale", "bias")
    per_parent = ("weights", "alt_weights", "gate_weights")
    scalars = ("gate_scale", "cutoff", "alt_scale", "bias")

    def check(self) -> None:
        self._positive_scalar("gate_scale")

    def __call__(self, parents):
        gate = special.expit(self.gate_scale * (parents @ self.gate_weights - self.cutoff))
        return (1.0 - gate) * (parents @ self.weights) + gate * self.alt_scale * (parents @ self.alt_weights) + self.bias

    @classmethod
    def draw(cls, k, rng):
        return {
            "weights": _linear_weights(k, rng),
            "alt_weights": _linear_weights(k, rng),
            "gate_weights": _linear_weights(k, rng),
            "gate_scale": _u(rng, 1.0, 4.0),
            "cutoff": _u(rng, -0.5, 0.5),
            "alt_scale": _u(rng, 0.5, 1.8),
            "bias": _u(rng, -0.5, 0.5),
        }


# -- random Fourier features ----------------------------------------------------------------

#: rows per block of the random-Fourier-feature evaluation (memory only: results do not depend on it)
RFF_BLOCK_ROWS = 256


def rff_features_sum(parents: Any, frequencies: np.ndarray, phases: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_i weights_i · cos(Σ_j x_j · frequencies[j, i] + phases_i) per row, in float32 (the RFF numeric policy).

    Args:
        parents: (n × k) inputs x (cast to float32).
        frequencies: (k × m) float32, already divided by the length scale.
        phases, weights: (m,) float32.

    Returns:
        (n,) float64 (the float32 sums, widened).

    Numeric policy (generator ``synthetic@2``): everything in float32 — the
    cosines are the cost of this family's generation, and numpy's float32
    cosine is several times faster than float64 — with element-wise numpy
    operations only, never a BLAS product: the arguments are built as
    phases + x_1·ω_1 + … + x_k·ω_k in that order (one multiply and one add per
    parent, each correctly rounded), and each row's sum over the m features
    is numpy's pairwise sum of that row alone. So a row's value depends only
    on its own inputs — not on n, on the other rows, on the row's position in
    a batch (the intervention audit re-propagates subsets of rows) or on the
    BLAS thread count — and regenerates bit for bit. Rows are processed in
    blocks of :data:`RFF_BLOCK_ROWS` to bound the (rows × m) buffers; the block
    size does not change any value. Relative error against float64 ≈ 1e-6
    (an input above float32's range, ~3.4e38, becomes inf and the output NaN,
    which the audits reject as non-finite).
    """
    x = np.asarray(parents, dtype=np.float32)
    if x.ndim == 1:
        x = x[:, None]
    n, k = x.shape
    m = phases.shape[0]
    out = np.empty(n)
    b = min(n, RFF_BLOCK_ROWS)
    z_buf = np.empty((b, m), dtype=np.float32)
    t_buf = np.empty((b, m), dtype=np.float32)
    for start in range(0, n, RFF_BLOCK_ROWS):
        stop = min(n, start + RFF_BLOCK_ROWS)
        z, t = z_buf[: stop - start], t_buf[: stop - start]
        z[...] = phases
        for j in range(k):
            np.multiply(x[start:stop, j:j + 1], frequencies[j], out=t)
            z += t
        np.cos(z, out=z)
        z *= weights
        out[start:stop] = z.sum(axis=1)
    return out


class RandomFourierFeatures(_CatalogueMechanism):
    """Random-Fourier-feature function (a GP draw with an RBF kernel, Rahimi & Recht 2007).

    f(x) = output_scale · √(2/m) · Σ_i a_i cos(x·ω_i / length_scale + φ_i)

    with ω_i ~ N(0, I_k), φ_i ~ U[0, 2π), a_i ~ N(0, 1): as m grows, f tends to
    a GP with kernel output_scale² · exp(−‖x − x'‖² / (2 length_scale²)).

    App. A.1 "RFF/GP-style": 64–256 features, length scales in [0.25, 3.0],
    output scales in [0.4, 2.5]. The features are stored in the spec
    (``frequencies`` is (k × m): up to 8 × 256 numbers for k = 8).

    Numeric policy: the features are evaluated in float32, element-wise, in
    row blocks of :data:`RFF_BLOCK_ROWS` (:func:`rff_features_sum`): a row's
    value depends only on that row, never on the batch size, the other rows or
    the BLAS thread count; the scales (ω / length_scale and output_scale ·
    √(2/m) · a) are computed in float64 and rounded to float32 once.

    Parameters: ``frequencies`` (k × m), ``phases`` (m), ``amplitudes`` (m),
    ``length_scale`` (> 0), ``output_scale``.
    """

    kind = "rff"
    parameters = ("frequencies", "phases", "amplitudes", "length_scale", "output_scale")
    scalars = ("length_scale", "output_scale")

    def check(self) -> None:
        self._require("frequencies", "phases", "amplitudes")
        self._positive_scalar("length_scale")
        self.frequencies = self._matrix("frequencies")
        self._k, m = self.frequencies.shape
        self.phases = self._vector("phases", length=m)
        self.amplitudes = self._vector("amplitudes", length=m)
        self._scaled_frequencies = (self.frequencies / self.length_scale).astype(np.float32)
        self._weights = ((self.output_scale * math.sqrt(2.0 / m)) * self.amplitudes).astype(np.float32)
        self._phases32 = self.phases.astype(np.float32)

    def __call__(self, parents):
        # n × m float32 cosines, row blocks (the numeric policy: rff_features_sum)
        return rff_features_sum(parents, self._scaled_frequencies, self._phases32, self._weights)

    @classmethod
    def draw(cls, k, rng):
        m = int(rng.integers(64, 257))
        return {
            "frequencies": rng.standard_normal((k, m)).tolist(),
            "phases": rng.uniform(0.0, 2 * math.pi, size=m).tolist(),
            "amplitudes": rng.standard_normal(m).tolist(),
            "length_scale": _u(rng, 0.25, 3.0),
            "output_scale": _u(rng, 0.4, 2.5),
        }


# -- activation additive ---------------------------------------------------------------------

#: negative-side slope of leaky_relu (the PyTorch / TensorFlow default)
LEAKY_RELU_SLOPE = 0.01
#: SELU constants (Klambauer et al. 2017), as in torch.nn.SELU
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _rank01(u: np.ndarray) -> np.ndarray:
    """Empirical ranks of u scaled to [0, 1] (ties averaged); a single row gets 0.5."""
    n = u.shape[0]
    if n <= 1:
        return np.full(n, 0.5)
    return (stats.rankdata(u) - 1.0) / (n - 1.0)


_ACTIVATIONS = {
    "relu": lambda u, p: np.maximum(u, 0.0),
    "leaky_relu": lambda u, p: np.where(u > 0, u, LEAKY_RELU_SLOPE * u),
    "softplus": lambda u, p: np.logaddexp(0.0, u),
    "sigmoid": lambda u, p: special.expit(u),
    "abs": lambda u, p: np.abs(u),
    "sign": lambda u, p: np.sign(u),
    "step": lambda u, p: (u > 0).astype(float),
    "hard_tanh": lambda u, p: np.clip(u, -1.0, 1.0),
    "relu6": lambda u, p: np.clip(u, 0.0, 6.0),
    "elu": lambda u, p: np.where(u > 0, u, np.expm1(np.minimum(u, 0.0))),
    "selu": lambda u, p: SELU_SCALE * np.where(u > 0, u, SELU_ALPHA * np.expm1(np.minimum(u, 0.0))),
    "silu": lambda u, p: u * special.expit(u),
    "modulo": lambda u, p: np.mod(u, p.period),
    "round": lambda u, p: p.rounding_step * np.round(u / p.rounding_step),
    "rank": lambda u, p: _rank01(u),
}


class Activation(_CatalogueMechanism):
    """An activation of the additive index: f(x) = act(w·x + b).

    App. A.1 "Activation additive": activation families include ReLU,
    leaky-ReLU, softplus, sigmoid, absolute value, sign, step, hard-tanh,
    ReLU6, ELU, SELU, SiLU, modulo, round and rank transforms; modulo periods
    are in [0.75, 3.0] and rounding steps in [0.2, 1.0]. With u = w·x + b:

    * ``relu`` max(u, 0); ``leaky_relu`` u if u > 0 else 0.01·u; ``softplus``
      log(1 + eᵘ); ``sigmoid`` 1/(1 + e⁻ᵘ); ``abs`` |u|; ``sign`` sign(u)
      (0 at 0); ``step`` 1[u > 0]; ``hard_tanh`` clip(u, −1, 1); ``relu6``
      clip(u, 0, 6); ``elu`` u if u > 0 else eᵘ − 1; ``selu`` λ·(u if u > 0
      else α(eᵘ − 1)) with the SELU constants; ``silu`` u·sigmoid(u);
    * ``modulo`` u mod ``period`` (in [0, period)); ``round``
      ``rounding_step`` · round(u / rounding_step) (ties to even, numpy);
    * ``rank``: the rank of u scaled to [0, 1]. With ``reference`` (a
      sorted grid of quantiles of u, set by :meth:`calibrate` on the pilot
      sample) it is the piecewise-linear CDF of that reference — a fixed
      function, so rows stay independent given their parents and
      interventions change only descendants. Without it, the empirical rank
      among the rows evaluated together (**sample-dependent**; generators
      always calibrate).

    ``period`` is required for (and only accepted with) ``modulo``,
    ``rounding_step`` likewise for ``round``. ``draw`` picks the activation
    uniformly; weights follow the linear-additive rule (0.8/√k), bias
    ∈ [−0.5, 0.5].

    Parameters: ``weights`` (k), ``bias``, ``activation``, [``period``], [``rounding_step``].
    """

    kind = "activation"
    parameters = ("weights", "bias", "activation", "period", "rounding_step", "reference")
    per_parent = ("weights",)
    scalars = ("bias",)
    ACTIVATIONS: ClassVar[Tuple[str, ...]] = tuple(_ACTIVATIONS)
    #: quantiles kept in ``reference`` for the rank activation
    RANK_REFERENCE_SIZE: ClassVar[int] = 101

    def calibrate(self, parents: np.ndarray) -> Dict[str, Any]:
        """Rank activation: store the pilot's quantile grid of u (a fixed CDF from then on)."""
        if self.activation != "rank":
            return {}
        u = parents @ self.weights + self.bias
        return {"reference": np.quantile(u, np.linspace(0.0, 1.0, self.RANK_REFERENCE_SIZE)).tolist()}

    def check(self) -> None:
        act = self._choice("activation", self.ACTIVATIONS)
        self._only_when("period", act == "modulo", "activation is 'modulo'")
        self._only_when("rounding_step", act == "round", "activation is 'round'")
        if act == "modulo":
            self.period = self._positive_scalar("period")
        if act == "round":
            self.rounding_step = self._positive_scalar("rounding_step")
        if "reference" in self._params and act != "rank":
            raise ValueError(f"{self.kind}: parameter 'reference' is only accepted when activation is 'rank'")
        if "reference" in self._params:
            ref = np.asarray(self._params["reference"], dtype=float)
            if ref.ndim != 1 or ref.size < 2 or not np.all(np.isfinite(ref)) or np.any(np.diff(ref) < 0):
                raise ValueError(f"{self.kind}: 'reference' must be a sorted finite list of ≥ 2 quantiles")
            self.reference = ref

    def __call__(self, parents):
        u = parents @ self.weights + self.bias
        if self.activation == "rank" and getattr(self, "reference", None) is not None:
            ref = self.reference
            return np.interp(u, ref, np.linspace(0.0, 1.0, ref.size))
        return _ACTIVATIONS[self.activation](u, self)

    @classmethod
    def draw(cls, k, rng):
        act = str(rng.choice(cls.ACTIVATIONS))
        params: Dict[str, Any] = {"weights": _linear_weights(k, rng), "bias": _u(rng, -0.5, 0.5), "activation": act}
        if act == "modulo":
            params["period"] = _u(rng, 0.75, 3.0)
        elif act == "round":
            params["rounding_step"] = _u(rng, 0.2, 1.0)
        return params


# -- tree ----------------------------------------------------------------------------------


class RegressionTree(_CatalogueMechanism):
    """A complete binary regression tree of depth D with axis-aligned splits.

    Stored flat in heap order: internal node i (0 ≤ i < 2^D − 1) splits on
    parent column ``features[i]`` at ``thresholds[i]`` — rows with
    x ≤ threshold go to child 2i + 1, the others to 2i + 2 (the scikit-learn
    convention) — and the 2^D leaves carry ``leaves`` (leaf ℓ is node
    2^D − 1 + ℓ). Evaluation walks all rows one level at a time (D
    vectorised steps).

    App. A.1 "Tree-based": shallow trees of depth 2–4 with thresholds in
    [−0.8, 0.8]. ``draw`` raises the drawn depth to the smallest depth whose
    2^D − 1 splits can use every parent (so no graph parent is inert; for
    k ≤ 15 this stays within depth 4) and places every parent on at least
    one split; leaf values ~ N(0, 1) (the paper gives no range).

    Parameters: ``n_parents`` (k, the number of parent columns), ``features``
    (2^D − 1 integer indices in [0, k)), ``thresholds`` (2^D − 1), ``leaves`` (2^D).
    """

    kind = "tree"
    parameters = ("n_parents", "features", "thresholds", "leaves")

    def check(self) -> None:
        self._require("n_parents", "features", "thresholds", "leaves")
        k = self._params["n_parents"]
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"tree: parameter 'n_parents' must be an integer >= 1, got {k!r}")
        self._k = int(k)
        self.thresholds = self._vector("thresholds")
        splits = self.thresholds.shape[0]
        depth = int(round(math.log2(splits + 1)))
        if 2**depth - 1 != splits:
            raise ValueError(f"tree: parameter 'thresholds' needs 2^D − 1 entries (1, 3, 7, 15, …), got {splits}")
        self.depth = depth
        self.features = self._indices("features", self._vector("features", length=splits), self._k)
        self.leaves = self._vector("leaves", length=2**depth)

    def __call__(self, parents):
        n = parents.shape[0]
        rows = np.arange(n)
        node = np.zeros(n, dtype=np.intp)
        for _ in range(self.depth):
            right = parents[rows, self.features[node]] > self.thresholds[node]
            node = 2 * node + 1 + right
        return self.leaves[node - (2**self.depth - 1)]

    @classmethod
    def draw(cls, k, rng):
        depth = max(int(rng.integers(2, 5)), min(4, math.ceil(math.log2(k + 1))))
        splits = 2**depth - 1
        if k <= splits:
            features = rng.permutation(np.concatenate([np.arange(k), rng.integers(0, k, size=splits - k)]))
        else:
            features = rng.choice(k, size=splits, replace=False)
        return {
            "n_parents": k,
            "features": [int(f) for f in features],
            "thresholds": rng.uniform(-0.8, 0.8, size=splits).tolist(),
            "leaves": rng.standard_normal(2**depth).tolist(),
        }


# -- discretisation / assignment ---------------------------------------------------------------


class Discretisation(_CatalogueMechanism):
    """A discretised response: each row is assigned to one of B bins or clusters, which sets its value.

    * ``mode = "bins"``: u = w·x is cut at the increasing ``edges``
      (B − 1 of them); bin b holds edges[b−1] ≤ u < edges[b]; f = levels[b].
    * ``mode = "clusters"``: the row is assigned to the nearest of the B
      ``centroids`` (Euclidean, in parent space; ties to the lower index);
      f = levels[c].

    App. A.1 "Discretization/assignment": 3–7 bins or clusters. ``draw``
    picks the mode uniformly and B ∈ {3, …, 7}; the paper gives no further
    ranges: weights follow the linear-additive rule (0.8/√k), edges are
    sorted U[−1, 1] draws, centroids ~ N(0, I_k), levels ~ N(0, 1) (not
    sorted: the assignment need not be monotone).

    Parameters: ``mode``, ``levels`` (B ≥ 2); bins: ``weights`` (k),
    ``edges`` (B − 1, strictly increasing); clusters: ``centroids`` (B × k).
    """

    kind = "discretisation"
    parameters = ("mode", "levels", "weights", "edges", "centroids")
    MODES: ClassVar[Tuple[str, ...]] = ("bins", "clusters")

    def check(self) -> None:
        mode = self._choice("mode", self.MODES)
        self._require("levels")
        self.levels = self._vector("levels", min_length=2)
        b = self.levels.shape[0]
        for name in ("weights", "edges"):
            self._only_when(name, mode == "bins", "mode is 'bins'")
        self._only_when("centroids", mode == "clusters", "mode is 'clusters'")
        if mode == "bins":
            self.weights = self._vector("weights")
            self._k = self.weights.shape[0]
            self.edges = self._vector("edges")
            if self.edges.shape[0] != b - 1:
                raise ValueError(f"discretisation: parameter 'edges' has {self.edges.shape[0]} entries but 'levels' "
                                 f"has {b} (B levels need B − 1 edges)")
            if not np.all(np.diff(self.edges) > 0):
                raise ValueError(f"discretisation: parameter 'edges' must be strictly increasing, "
                                 f"got {self._params['edges']!r}")
        else:
            self.centroids = self._matrix("centroids")
            if self.centroids.shape[0] != b:
                raise ValueError(f"discretisation: parameter 'centroids' has {self.centroids.shape[0]} rows but "
                                 f"'levels' has {b} entries (one level per cluster)")
            self._k = self.centroids.shape[1]

    def __call__(self, parents):
        if self.mode == "bins":
            index = np.searchsorted(self.edges, parents @ self.weights, side="right")
        else:
            # ‖x − c‖² = ‖x‖² − 2 x·c + ‖c‖²; ‖x‖² is the same for every cluster
            index = np.argmin((self.centroids**2).sum(axis=1) - 2.0 * parents @ self.centroids.T, axis=1)
        return self.levels[index]

    @classmethod
    def draw(cls, k, rng):
        b = int(rng.integers(3, 8))
        mode = str(rng.choice(cls.MODES))
        params: Dict[str, Any] = {"mode": mode}
        if mode == "bins":
            params["weights"] = _linear_weights(k, rng)
            params["edges"] = np.sort(rng.uniform(-1.0, 1.0, size=b - 1)).tolist()
        else:
            params["centroids"] = rng.standard_normal((b, k)).tolist()
        params["levels"] = rng.standard_normal(b).tolist()
        return params


# -- aggregation --------------------------------------------------------------------------------


class Aggregation(_CatalogueMechanism):
    """Max or log-sum-exp aggregation of the weighted parents and a constant reference b.

    * ``op = "max"``: f(x) = max(w_1 x_1, …, w_k x_k, b);
    * ``op = "logsumexp"``: f(x) = T · log(Σ_j exp(w_j x_j / T) + exp(b / T)),
      a smooth maximum (→ max as T → 0), computed stably with
      :func:`scipy.special.logsumexp`.

    The bias enters as one more, constant, input of the aggregation, so one
    parent gives a hinge max(w x, b) (or its softplus-like smoothing) rather
    than a linear map.

    App. A.1 "Aggregation nonlinearities": max or log-sum-exp aggregation
    uses temperatures T ∈ [0.3, 1.5] (``temperature``, log-sum-exp only).
    Weights |w| ~ U[0.5, 1.5] with random sign, not scaled by 1/√k (a
    maximum does not add up parent variances); bias ∈ [−0.5, 0.5].

    Parameters: ``weights`` (k), ``bias``, ``op``, [``temperature``] (> 0, logsumexp only).
    """

    kind = "aggregation"
    parameters = ("weights", "bias", "op", "temperature")
    per_parent = ("weights",)
    scalars = ("bias",)
    OPS: ClassVar[Tuple[str, ...]] = ("max", "logsumexp")

    def check(self) -> None:
        op = self._choice("op", self.OPS)
        self._only_when("temperature", op == "logsumexp", "op is 'logsumexp'")
        if op == "logsumexp":
            self.temperature = self._positive_scalar("temperature")

    def __call__(self, parents):
        terms = np.concatenate([parents * self.weights, np.full((parents.shape[0], 1), self.bias)], axis=1)
        if self.op == "max":
            return terms.max(axis=1)
        return self.temperature * special.logsumexp(terms / self.temperature, axis=1)

    @classmethod
    def draw(cls, k, rng):
        op = str(rng.choice(cls.OPS))
        params: Dict[str, Any] = {"weights": _signed_weights(k, rng, 1.0), "bias": _u(rng, -0.5, 0.5), "op": op}
        if op == "logsumexp":
            params["temperature"] = _u(rng, 0.3, 1.5)
        return params
