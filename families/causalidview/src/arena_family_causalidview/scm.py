"""The CausalIDView world generator (CausalIDView §4.1.1, App. C.1–C.4).

One *world* is one structural causal model and one complete realization of
``N = n_context + n_query`` units (1,024 + 100 by default, App. D.1). All of
its observational views are projections of that realization; nothing is
resampled per view. The paper's displayed equations were lost in extraction;
the equations below are derived from its stated structure (Fig. 1, App. B,
C.1–C.4, §6 RQ2) and written up with their derivations in the package README.

Structural equations, for unit i (s_v = xᵀv for a unit direction v, so s_v ~ N(0, 1)):

* roots: X ~ N(0, I_p), U ∈ {−1, +1} with P = ½, I ~ Bernoulli(½), independent (App. C.1);
* treatment, shared threshold (App. B.3.4): T^I(i) = 1{L < η(X, U, i)},
  η = α₀ + α_X s_T + α_U U + α_I i, L ~ Logistic(0, 1) one draw per unit,
  T = T^I(I); hence P(T = 1 | X, U, I) = σ(η) and T^I(1) ≥ T^I(0);
* proxies of U (App. B.4.2): Z_p = 1{V_Z < σ(κ₀ + κ_X s_Z + κ_U U)},
  W_p = 1{V_W < σ(ω₀ + ω_X s_W + ω_U U)}, V_Z, V_W ~ U(0, 1) independent;
* mediator, complete mediation (App. B.2): M(t) = m₀ + δ t + σ_M ε_M, ε_M ~ N(0, 1) shared by t;
* outcome (§6 RQ2): Y(t) = μ(X) + γ_U(X) U + β(X) M(t) + σ_Y ε_Y, with
  μ(x) = A_μ (s_μ + ½ sin 2s_μ), γ_U(x) = γ₀ (1 + ½ tanh s_γ), β(x) = τ₀(x)/δ;
  so Y(1) − Y(0) = β(X) (M(1) − M(0)) = β(X) δ = τ₀(X) at every unit;
* observed: T, M = M(T), Y = Y(T);
* target (App. C.4): τ₀(x) = τ̄ + s_τ (q_w(x) − m_q)/sd_q, q_w one of five
  effect surfaces of (a, b) = (xᵀv_a, xᵀv_b) (:func:`effect_surface`),
  m_q, sd_q the mean and sd of q_w on a calibration sample of X;
* variants (§6 RQ2, App. D.1): *stay* γ_U → −γ_U (τ unchanged), *move* β → 2β (τ → 2τ₀).

The numerical constants are :data:`SETTINGS` (the paper's Table 4 values were
lost in extraction: every value there is ours).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional, Tuple

import numpy as np

from causalarena.protocol import cell_seed

#: bump on any change to what a seed generates (part of every instance fingerprint)
GENERATOR_VERSION = "causalidview-scm/1"
FAMILY_NAME = "causalidview"
#: the five effect-surface families of App. C.4; world k uses EFFECT_FAMILIES[k mod 5]
EFFECT_FAMILIES = ("linear", "quadratic", "threshold", "fourier", "mlp")
#: the outcome variants of §6 RQ2: the production world, Stay (γ_U → −γ_U), Move (β → 2β)
VARIANTS = ("original", "stay", "move")
#: U's two values, in the order of every (…, 2) "u" axis in this package
U_VALUES = np.array([-1.0, 1.0])


@dataclasses.dataclass(frozen=True)
class Settings:
    """The fixed numerical configuration of every world (the role of the paper's Table 4).

    Table 4's numbers were lost in extraction; the sparsity counts are the
    paper's (App. C.4), every other value is ours, chosen so that propensities
    stay in [0.02, 0.98], the instrument is relevant, the proximal bridge
    system is well conditioned and the naive contrast is visibly biased
    (figures in the README). Symbols as in the module docstring.
    """

    p: int = 50  #: covariates (App. C.1)
    n_calibration: int = 20_000  #: calibration draws of X for m_q, sd_q (ours)
    k_effect: int = 10  #: active coordinates of v_a, v_b (App. C.4)
    k_mu: int = 14  #: of v_μ (App. C.4)
    k_T: int = 14  #: of v_T (App. C.4)
    k_proxy: int = 8  #: of v_Z, v_W (App. C.4)
    k_gamma: int = 10  #: of v_γ (App. C.4)
    tau_bar: float = 1.0  #: τ̄, the mean effect
    s_tau: float = 0.5  #: s_τ, the heterogeneity sd of τ₀
    alpha_0: float = -0.75  #: α₀ = −α_I/2: the treatment index is centred over I
    alpha_X: float = 0.4  #: α_X
    alpha_U: float = 1.0  #: α_U, hidden-confounding strength on T
    alpha_I: float = 1.5  #: α_I, instrument strength
    kappa_0: float = 0.0  #: κ₀ (Z_p)
    kappa_X: float = 0.5  #: κ_X (Z_p)
    kappa_U: float = 1.5  #: κ_U (Z_p): how informative Z_p is about U
    omega_0: float = 0.0  #: ω₀ (W_p)
    omega_X: float = 0.5  #: ω_X (W_p)
    omega_U: float = 1.5  #: ω_U (W_p)
    m_0: float = 0.0  #: m₀, mediator intercept
    delta: float = 1.0  #: δ, mediator shift of the treatment (fixed across worlds, App. D.2)
    sigma_M: float = 1.0  #: σ_M, mediator noise sd (fixed across worlds, App. D.2)
    mu_amp: float = 1.0  #: A_μ, amplitude of the baseline μ(x)
    gamma_0: float = 1.0  #: γ₀, confounding strength on Y
    sigma_Y: float = 0.5  #: σ_Y, outcome noise sd
    mlp_hidden: int = 8  #: hidden tanh units of the MLP effect surface

    def as_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)


SETTINGS = Settings()


def sigmoid(z: Any) -> np.ndarray:
    """σ(z) = 1/(1 + e^{−z}), written as ½(1 + tanh(z/2)) (no overflow for large |z|)."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64)))


def sparse_direction(rng: np.random.Generator, p: int, k: int) -> np.ndarray:
    """A sparse unit vector in R^p (App. C.4): k coordinates without replacement, N(0, 1) entries, unit norm.

    Returns:
        (p,) float64 with ‖v‖₂ = 1, so xᵀv ~ N(0, 1) for x ~ N(0, I_p).

    Raises:
        ValueError: k not in 1 … p.
    """
    if not 1 <= k <= p:
        raise ValueError(f"sparse_direction: k = {k} active coordinates must be in 1 … p = {p}")
    v = np.zeros(p)
    idx = rng.choice(p, size=k, replace=False)
    vals = rng.standard_normal(k)
    v[idx] = vals / np.linalg.norm(vals)
    return v


def draw_effect_coefficients(family: str, rng: np.random.Generator, settings: Settings) -> Dict[str, np.ndarray]:
    """The random coefficients of one effect surface (ours; App. C.4 names the families only).

    * linear: w ~ N(0, I₂);
    * quadratic: c₀ ∈ {−1, +1} uniform, c₁, c₂ ~ U(−½, ½);
    * threshold: θ_a, θ_b ~ U(−½, ½), sign s_b ∈ {−1, +1};
    * fourier: ω_a, ω_b ~ U(1, 3), φ_a, φ_b ~ U(0, 2π);
    * mlp: W ~ N(0, 1) (H × 2), bias c ~ N(0, 1) (H,), output v ~ N(0, 1/H) (H,), H = ``mlp_hidden``.

    Raises:
        ValueError: unknown family.
    """
    if family == "linear":
        return {"w": rng.standard_normal(2)}
    if family == "quadratic":
        return {"c": np.array([rng.choice([-1.0, 1.0]), *rng.uniform(-0.5, 0.5, size=2)])}
    if family == "threshold":
        return {"theta": rng.uniform(-0.5, 0.5, size=2), "sign": np.array([rng.choice([-1.0, 1.0])])}
    if family == "fourier":
        return {"omega": rng.uniform(1.0, 3.0, size=2), "phi": rng.uniform(0.0, 2 * np.pi, size=2)}
    if family == "mlp":
        h = settings.mlp_hidden
        return {"W": rng.standard_normal((h, 2)), "bias": rng.standard_normal(h),
                "out": rng.standard_normal(h) / np.sqrt(h)}
    raise ValueError(f"effect family {family!r} not in {EFFECT_FAMILIES}")


def effect_surface(family: str, coef: Dict[str, np.ndarray], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The uncalibrated effect surface q_w(a, b) of App. C.4 (exact forms are ours).

    Args:
        family: one of :data:`EFFECT_FAMILIES`.
        coef: :func:`draw_effect_coefficients` of that family.
        a, b: (n,) the CATE scores xᵀv_a, xᵀv_b.

    Returns:
        (n,) float64:

        * linear: w₀ a + w₁ b;
        * quadratic (interaction): c₀ ab + c₁ a² + c₂ b²;
        * threshold (piecewise): 1{a > θ_a}(1 + ½(a − θ_a)) + ½ s_b 1{b > θ_b};
        * fourier (nonstationary): sin(ω_a a + φ_a) + ½ sin(ω_b b (1 + ½ tanh a) + φ_b)
          (b's frequency drifts with a);
        * mlp: Σ_h v_h tanh(W_h0 a + W_h1 b + c_h) (a random shallow tanh network).

    Raises:
        ValueError: unknown family.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if family == "linear":
        w = coef["w"]
        return w[0] * a + w[1] * b
    if family == "quadratic":
        c = coef["c"]
        return c[0] * a * b + c[1] * a * a + c[2] * b * b
    if family == "threshold":
        th, s = coef["theta"], coef["sign"][0]
        up = a > th[0]
        return np.where(up, 1.0 + 0.5 * (a - th[0]), 0.0) + 0.5 * s * (b > th[1])
    if family == "fourier":
        om, ph = coef["omega"], coef["phi"]
        return np.sin(om[0] * a + ph[0]) + 0.5 * np.sin(om[1] * b * (1.0 + 0.5 * np.tanh(a)) + ph[1])
    if family == "mlp":
        hidden = np.tanh(np.outer(a, coef["W"][:, 0]) + np.outer(b, coef["W"][:, 1]) + coef["bias"])
        return hidden @ coef["out"]
    raise ValueError(f"effect family {family!r} not in {EFFECT_FAMILIES}")


def _variant_signs(variant: str) -> Tuple[float, float]:
    """(sign of γ_U, scale of β) of a variant (§6 RQ2). Raises ValueError for an unknown variant."""
    if variant == "original":
        return 1.0, 1.0
    if variant == "stay":
        return -1.0, 1.0
    if variant == "move":
        return 1.0, 2.0
    raise ValueError(f"variant {variant!r} not in {VARIANTS}")


@dataclasses.dataclass(frozen=True)
class Mechanisms:
    """The world-level mechanisms of one SCM (directions, effect surface, calibration).

    Every method takes covariates ``x`` (n × p) and returns (n,) arrays, or
    (n × 2) over u ∈ (−1, +1) (:data:`U_VALUES`), or (n × 2 × 2) over (u, i).
    """

    effect_family: str
    settings: Settings
    v_a: np.ndarray
    v_b: np.ndarray
    v_mu: np.ndarray
    v_T: np.ndarray
    v_Z: np.ndarray
    v_W: np.ndarray
    v_gamma: np.ndarray
    coef: Dict[str, np.ndarray]
    m_q: float
    sd_q: float

    def q(self, x: np.ndarray) -> np.ndarray:
        """(n,) uncalibrated surface q_w(x) = effect_surface(xᵀv_a, xᵀv_b)."""
        return effect_surface(self.effect_family, self.coef, x @ self.v_a, x @ self.v_b)

    def tau0(self, x: np.ndarray) -> np.ndarray:
        """(n,) target CATE τ₀(x) = τ̄ + s_τ (q_w(x) − m_q)/sd_q (App. C.4; outcome units)."""
        s = self.settings
        return s.tau_bar + s.s_tau * (self.q(x) - self.m_q) / self.sd_q

    def tau(self, x: np.ndarray, variant: str = "original") -> np.ndarray:
        """(n,) the variant's target: τ₀ (original, stay) or 2τ₀ (move), §6 RQ2."""
        return _variant_signs(variant)[1] * self.tau0(x)

    def mu(self, x: np.ndarray) -> np.ndarray:
        """(n,) baseline μ(x) = A_μ (s_μ + ½ sin 2s_μ), s_μ = xᵀv_μ (ours)."""
        s = x @ self.v_mu
        return self.settings.mu_amp * (s + 0.5 * np.sin(2.0 * s))

    def gamma_U(self, x: np.ndarray, variant: str = "original") -> np.ndarray:
        """(n,) confounder loading γ_U(x) = γ₀ (1 + ½ tanh xᵀv_γ), negated for *stay* (§6 RQ2)."""
        return _variant_signs(variant)[0] * self.settings.gamma_0 * (1.0 + 0.5 * np.tanh(x @ self.v_gamma))

    def beta(self, x: np.ndarray, variant: str = "original") -> np.ndarray:
        """(n,) mediator–outcome response β(x) = τ₀(x)/δ, doubled for *move* (§6 RQ2)."""
        return _variant_signs(variant)[1] * self.tau0(x) / self.settings.delta

    def treatment_index(self, x: np.ndarray) -> np.ndarray:
        """(n × 2 × 2) η(x, u, i) = α₀ + α_X xᵀv_T + α_U u + α_I i over u ∈ (−1, +1), i ∈ (0, 1)."""
        s = self.settings
        base = s.alpha_0 + s.alpha_X * (x @ self.v_T)
        return base[:, None, None] + s.alpha_U * U_VALUES[None, :, None] + s.alpha_I * np.array([0.0, 1.0])[None, None, :]

    def propensity(self, x: np.ndarray) -> np.ndarray:
        """(n × 2 × 2) complete propensity P(T = 1 | x, u, i) = σ(η(x, u, i)) (shared-threshold logistic)."""
        return sigmoid(self.treatment_index(x))

    def proxy_z(self, x: np.ndarray) -> np.ndarray:
        """(n × 2) P(Z_p = 1 | x, u) = σ(κ₀ + κ_X xᵀv_Z + κ_U u)."""
        s = self.settings
        return sigmoid((s.kappa_0 + s.kappa_X * (x @ self.v_Z))[:, None] + s.kappa_U * U_VALUES[None, :])

    def proxy_w(self, x: np.ndarray) -> np.ndarray:
        """(n × 2) P(W_p = 1 | x, u) = σ(ω₀ + ω_X xᵀv_W + ω_U u)."""
        s = self.settings
        return sigmoid((s.omega_0 + s.omega_X * (x @ self.v_W))[:, None] + s.omega_U * U_VALUES[None, :])


def draw_mechanisms(effect_family: str, rng_params: np.random.Generator, rng_calibration: np.random.Generator,
                    settings: Settings = SETTINGS) -> Mechanisms:
    """Sample and calibrate one world's mechanisms (App. C.2 step 1, C.4).

    Directions are drawn in the fixed order v_a, v_b, v_μ, v_T, v_Z, v_W, v_γ,
    then the effect coefficients, all from ``rng_params``; m_q and sd_q
    (population sd) come from ``settings.n_calibration`` draws of X ~ N(0, I_p)
    from ``rng_calibration``.

    Raises:
        ValueError: unknown effect family, or a degenerate surface (sd_q ≤ 1e-8).
    """
    p = settings.p
    dirs = [sparse_direction(rng_params, p, k) for k in (settings.k_effect, settings.k_effect, settings.k_mu,
                                                         settings.k_T, settings.k_proxy, settings.k_proxy,
                                                         settings.k_gamma)]
    coef = draw_effect_coefficients(effect_family, rng_params, settings)
    x_cal = rng_calibration.standard_normal((settings.n_calibration, p))
    q_cal = effect_surface(effect_family, coef, x_cal @ dirs[0], x_cal @ dirs[1])
    m_q, sd_q = float(q_cal.mean()), float(q_cal.std())
    if not sd_q > 1e-8:
        raise ValueError(f"effect surface {effect_family!r} is degenerate on the calibration sample (sd {sd_q:g})")
    return Mechanisms(effect_family, settings, *dirs, coef=coef, m_q=m_q, sd_q=sd_q)


@dataclasses.dataclass(frozen=True)
class World:
    """One complete realization: every unit's roots, noises, treatment, auxiliaries, potential mediators.

    Unit arrays are (N,) over unit ids 0 … N−1 (X is N × p). Potential outcomes
    depend on the variant and come from :meth:`outcomes`; the rest is shared by
    the three variants and the five views.

    Attributes:
        world_id: the base id (``"w00-linear"``); index: world index k; effect_family.
        replicate, seed: the realization's replicate and its
            ``cell_seed("causalidview", world_id, "world", replicate)``.
        mech: the :class:`Mechanisms`.
        X, U (±1), I (0/1), L (logistic threshold), V_Z, V_W (uniform), eps_M, eps_Y (N(0, 1)).
        T_I0, T_I1: T^I(0), T^I(1) (principal strata); T = T^I(I) (int8).
        Zp, Wp: 0/1 proxies; M0, M1: M(0), M(1); M = M(T).
        context_ids: (n_context,) unit ids of the context, in split-permutation order.
        query_ids: (n_query,) unit ids of the queries, in split-permutation order.
    """

    world_id: str
    index: int
    effect_family: str
    replicate: int
    seed: int
    mech: Mechanisms
    X: np.ndarray
    U: np.ndarray
    I: np.ndarray  # noqa: E741 - the paper's symbol
    L: np.ndarray
    V_Z: np.ndarray
    V_W: np.ndarray
    eps_M: np.ndarray
    eps_Y: np.ndarray
    T_I0: np.ndarray
    T_I1: np.ndarray
    T: np.ndarray
    Zp: np.ndarray
    Wp: np.ndarray
    M0: np.ndarray
    M1: np.ndarray
    M: np.ndarray
    context_ids: np.ndarray
    query_ids: np.ndarray

    @property
    def N(self) -> int:
        return int(self.X.shape[0])

    def outcomes(self, variant: str = "original") -> Dict[str, np.ndarray]:
        """Potential and factual outcomes of a variant, (N,) each: ``Y0``, ``Y1``, ``Y`` = Y(T), ``tau``.

        Y(t) = μ(X) + s_γ γ_U(X) U + c_β β(X) M(t) + σ_Y ε_Y with (s_γ, c_β) = (1, 1),
        (−1, 1), (1, 2) for original, stay, move (§6 RQ2); the same units, X, U,
        I, T, M and noises in every variant. ``tau`` is the stored target
        τ₀(X) (2τ₀(X) for move).

        Raises:
            ValueError: unknown variant.
        """
        mech, x = self.mech, self.X
        mu, gam, beta = mech.mu(x), mech.gamma_U(x, variant), mech.beta(x, variant)
        base = mu + gam * self.U + self.mech.settings.sigma_Y * self.eps_Y
        y0, y1 = base + beta * self.M0, base + beta * self.M1
        return {"Y0": y0, "Y1": y1, "Y": np.where(self.T == 1, y1, y0), "tau": mech.tau(x, variant)}

    def master(self, variant: str = "original") -> Dict[str, np.ndarray]:
        """The master observational table (every observed variable at every unit, no potential outcome):
        ``unit_ids``, ``X``, ``T``, ``Y``, ``U``, ``M``, ``I``, ``Zp``, ``Wp`` and the 0/1 ``is_query``."""
        is_query = np.zeros(self.N, dtype=np.int8)
        is_query[self.query_ids] = 1
        return {"unit_ids": np.arange(self.N, dtype=np.int64), "X": self.X, "T": self.T,
                "Y": self.outcomes(variant)["Y"], "U": self.U, "M": self.M, "I": self.I.astype(np.float64),
                "Zp": self.Zp.astype(np.float64), "Wp": self.Wp.astype(np.float64), "is_query": is_query}


def world_seed(world_id: str, replicate: int) -> int:
    """``cell_seed("causalidview", world_id, "world", replicate)``: the one seed of a realization,
    shared by its five views and three variants."""
    return cell_seed(FAMILY_NAME, world_id, "world", int(replicate))


def generate_world(world_id: str, index: int, effect_family: str, replicate: int = 0, n_context: int = 1024,
                   n_query: int = 100, settings: Settings = SETTINGS) -> World:
    """Generate one world (App. C.2, Algorithm 1): mechanisms, calibration, units, context/query split.

    Randomness: ``SeedSequence(world_seed(world_id, r)).spawn(4)`` gives the
    child streams (parameters, calibration, units, split). The parameter and
    calibration streams are those of replicate 0, so the replicates of a world
    are fresh realizations of one SCM (replicate 0 is the paper's world); the
    unit and split streams are the replicate's own.

    Args:
        world_id: base id (``"w00-linear"``), part of the seed.
        index: world index k; effect_family: one of :data:`EFFECT_FAMILIES`.
        replicate: realization index (≥ 0).
        n_context, n_query: context and query units (N = their sum).

    Raises:
        ValueError: a non-positive size, a negative replicate or an unknown effect family.
    """
    if n_context < 2 or n_query < 1:
        raise ValueError(f"generate_world: n_context must be >= 2 and n_query >= 1, got {n_context}, {n_query}")
    if replicate < 0:
        raise ValueError(f"generate_world: replicate must be >= 0, got {replicate}")
    seed = world_seed(world_id, replicate)
    scm_streams = np.random.SeedSequence(world_seed(world_id, 0)).spawn(4)
    own_streams = np.random.SeedSequence(seed).spawn(4)
    rng_params, rng_cal = (np.random.default_rng(s) for s in scm_streams[:2])
    rng_units, rng_split = (np.random.default_rng(s) for s in own_streams[2:])
    mech = draw_mechanisms(effect_family, rng_params, rng_cal, settings)
    s = settings
    n = n_context + n_query
    # unit draws, in this fixed order (the units stream)
    X = rng_units.standard_normal((n, s.p))
    U = U_VALUES[rng_units.integers(0, 2, size=n)]
    I = rng_units.integers(0, 2, size=n).astype(np.int8)  # noqa: E741
    L = rng_units.logistic(0.0, 1.0, size=n)
    V_Z = rng_units.uniform(size=n)
    V_W = rng_units.uniform(size=n)
    eps_M = rng_units.standard_normal(n)
    eps_Y = rng_units.standard_normal(n)
    eta = mech.treatment_index(X)  # (n, 2u, 2i)
    u_idx = (U > 0).astype(np.int64)
    rows = np.arange(n)
    T_I0 = (L < eta[rows, u_idx, 0]).astype(np.int8)
    T_I1 = (L < eta[rows, u_idx, 1]).astype(np.int8)
    T = np.where(I == 1, T_I1, T_I0).astype(np.int8)
    Zp = (V_Z < mech.proxy_z(X)[rows, u_idx]).astype(np.int8)
    Wp = (V_W < mech.proxy_w(X)[rows, u_idx]).astype(np.int8)
    M0 = s.m_0 + s.sigma_M * eps_M
    M1 = s.m_0 + s.delta + s.sigma_M * eps_M
    M = np.where(T == 1, M1, M0)
    perm = rng_split.permutation(n)
    return World(world_id=world_id, index=int(index), effect_family=effect_family, replicate=int(replicate),
                 seed=seed, mech=mech, X=X, U=U, I=I, L=L, V_Z=V_Z, V_W=V_W, eps_M=eps_M, eps_Y=eps_Y,
                 T_I0=T_I0, T_I1=T_I1, T=T, Zp=Zp, Wp=Wp, M0=M0, M1=M1, M=M,
                 context_ids=perm[:n_context].astype(np.int64), query_ids=perm[n_context:].astype(np.int64))


def effect_family_of(index: int) -> str:
    """The effect family of world k: EFFECT_FAMILIES[k mod 5] (40 worlds → 8 per family, App. C.4)."""
    return EFFECT_FAMILIES[int(index) % len(EFFECT_FAMILIES)]


def world_id_of(index: int) -> str:
    """The base id of world k: ``"w{k:02d}-{family}"``."""
    return f"w{int(index):02d}-{effect_family_of(index)}"


def optional_int(name: str, value: Any, minimum: int = 0) -> Optional[int]:
    """An integer option from a CLI string or a number (None stays None).

    Raises:
        ValueError: not an integer, or below ``minimum``; the message names the option.
    """
    if value is None or value == "":
        return None
    try:
        out = int(str(value).strip())
    except ValueError:
        raise ValueError(f"causalidview option {name}={value!r} is not an integer") from None
    if out < minimum:
        raise ValueError(f"causalidview option {name}={out} must be >= {minimum}")
    return out
