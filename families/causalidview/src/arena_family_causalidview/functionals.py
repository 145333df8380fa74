"""Analytic identification functionals and the App. D audit: the family's certificate.

Each function reconstructs the CATE at covariates ``x`` (q × p) from the
SCM's *observable-distribution* quantities (propensities, Bayes posteriors of
U, conditional outcome means, proxy probabilities, the mediator density),
never from the stored target τ₀; the stored target is used only to compare
(CausalIDView App. D.2, "Analytic functional consistency"). Derivations of
why each one equals τ₀ are in the package README.

Shared population quantities (derived from :mod:`.scm`; u ∈ (−1, +1), P(U = u | x) = ½, P(I = i | x) = ½):

* e(x, u, i) = P(T = 1 | x, u, i) = σ(η(x, u, i));
* π_t(x, u) = P(T = t | x, u) = ½ Σ_i e^t (1 − e)^{1−t}  (marginal back-door propensity);
* m_t(x, u) = E[Y | T = t, X = x, U = u] = E[Y(t) | x, u] = μ(x) + γ_U(x) u + β(x)(m₀ + δt)
  (Y(t) ⊥ T | X, U because L ⊥ (ε_M, ε_Y)).
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence

import numpy as np

from .scm import U_VALUES, VARIANTS, Mechanisms, World

#: the paper's tolerance for every functional and the potential-outcome identity (App. D.1–D.2)
TOLERANCE = 1e-10
#: Gauss–Hermite nodes of the front-door mediator integral (exact for polynomial integrands of degree < 2·40)
GH_NODES = 40


def treatment_given_u(mech: Mechanisms, x: np.ndarray) -> np.ndarray:
    """(q × 2t × 2u) π_t(x, u) = P(T = t | x, u) = ½ Σ_i P(T = t | x, u, i) (I marginalised, P(I = 1) = ½)."""
    p1 = mech.propensity(x).mean(axis=2)  # (q, 2u)
    return np.stack([1.0 - p1, p1], axis=1)


def outcome_mean(mech: Mechanisms, x: np.ndarray, variant: str = "original") -> np.ndarray:
    """(q × 2t × 2u) m_t(x, u) = E[Y | T = t, x, u] = μ(x) + γ_U(x) u + β(x)(m₀ + δ t) (App. C.3, §6 RQ2)."""
    s = mech.settings
    mu, gam, beta = mech.mu(x), mech.gamma_U(x, variant), mech.beta(x, variant)
    t = np.array([0.0, 1.0])
    return (mu[:, None, None] + gam[:, None, None] * U_VALUES[None, None, :]
            + beta[:, None, None] * (s.m_0 + s.delta * t)[None, :, None])


def posterior_u_given_t(mech: Mechanisms, x: np.ndarray) -> np.ndarray:
    """(q × 2t × 2u) P(U = u | T = t, x) ∝ ½ π_t(x, u) by Bayes (U ⊥ X, P(U = u) = ½)."""
    joint = 0.5 * treatment_given_u(mech, x)
    return joint / joint.sum(axis=2, keepdims=True)


def backdoor(mech: Mechanisms, x: np.ndarray, variant: str = "original") -> np.ndarray:
    """(q,) back-door functional (App. B.1): Σ_u P(u | x) [m₁(x, u) − m₀(x, u)], P(u | x) = ½."""
    m = outcome_mean(mech, x, variant)
    return 0.5 * (m[:, 1, :] - m[:, 0, :]).sum(axis=1)


def frontdoor(mech: Mechanisms, x: np.ndarray, variant: str = "original", nodes: int = GH_NODES) -> np.ndarray:
    """(q,) conditional front-door functional (App. B.2), by Gauss–Hermite quadrature over m:

    τ_FD(x) = ∫ [p(m | T=1, x) − p(m | T=0, x)] Σ_t' P(t' | x) E[Y | m, t', x] dm, with

    * p(m | t, x) = N(m; m₀ + δt, σ_M²) (the mediator density);
    * P(t' | x) = Σ_u ½ π_t'(x, u);
    * E[Y | m, t', x] = μ(x) + γ_U(x) E[U | t', x] + β(x) m, because M ⊥ U | (T, X)
      (M depends on T and ε_M only), so E[U | m, t', x] = E[U | t', x] = Σ_u u P(u | t', x) (Bayes).

    ∫ N(m; c, σ²) g(m) dm = Σ_k w_k g(c + σ z_k) / √(2π) with (z_k, w_k) = ``hermegauss(nodes)``.
    """
    s = mech.settings
    mu, gam, beta = mech.mu(x), mech.gamma_U(x, variant), mech.beta(x, variant)
    p_t = 0.5 * treatment_given_u(mech, x).sum(axis=2)  # (q, 2t)
    e_u = posterior_u_given_t(mech, x) @ U_VALUES  # (q, 2t): E[U | t', x]
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2.0 * np.pi)

    def inner(m: np.ndarray) -> np.ndarray:  # (q, k) → Σ_t' P(t'|x) E[Y | m, t', x]
        ey = mu[:, None, None] + gam[:, None, None] * e_u[:, None, :] + beta[:, None, None] * m[:, :, None]
        return (ey * p_t[:, None, :]).sum(axis=2)

    ones = np.ones((x.shape[0], 1))
    out = []
    for t in (0.0, 1.0):
        m_nodes = ones * (s.m_0 + s.delta * t + s.sigma_M * z)[None, :]
        out.append(inner(m_nodes) @ w)
    return out[1] - out[0]


def wald(mech: Mechanisms, x: np.ndarray, variant: str = "original") -> np.ndarray:
    """(q,) conditional Wald ratio (App. B.3): [E[Y | I=1, x] − E[Y | I=0, x]] / [E[T | I=1, x] − E[T | I=0, x]], with

    E[T | I=i, x] = Σ_u ½ e(x, u, i), E[Y | I=i, x] = Σ_u ½ Σ_t P(T=t | x, u, i) m_t(x, u)
    (I ⊥ (U, X) and Y(t) ⊥ (T, I) | X, U: exclusion and exogeneity).
    """
    e = mech.propensity(x)  # (q, 2u, 2i)
    m = outcome_mean(mech, x, variant)  # (q, 2t, 2u)
    ey = 0.5 * ((1.0 - e) * m[:, 0, :, None] + e * m[:, 1, :, None]).sum(axis=1)  # (q, 2i)
    et = 0.5 * e.sum(axis=1)  # (q, 2i)
    return (ey[:, 1] - ey[:, 0]) / (et[:, 1] - et[:, 0])


def first_stage(mech: Mechanisms, x: np.ndarray) -> np.ndarray:
    """(q,) instrument strength E[T | I=1, x] − E[T | I=0, x] (App. B.3 relevance)."""
    e = mech.propensity(x)
    return 0.5 * (e[:, :, 1] - e[:, :, 0]).sum(axis=1)


def bridge_system(mech: Mechanisms, x: np.ndarray, variant: str = "original"):
    """The proximal outcome-bridge system at each x (App. B.4), for t ∈ {0, 1}:

    A_t[z, w] = P(W_p = w | Z_p = z, T = t, x) = Σ_u P(u | z, t, x) P(w | u, x),
    b_t[z] = E[Y | Z_p = z, T = t, x] = Σ_u P(u | z, t, x) m_t(x, u)   (Y ⊥ Z_p | T, U, X),
    P(u | z, t, x) ∝ ½ P(z | u, x) π_t(x, u)   (Bayes; Z_p ⊥ T | U, X).

    Returns:
        (A, b): (q × 2t × 2z × 2w) and (q × 2t × 2z).
    """
    pz1, pw1 = mech.proxy_z(x), mech.proxy_w(x)  # (q, 2u)
    pz = np.stack([1.0 - pz1, pz1], axis=1)  # (q, 2z, 2u)
    pw = np.stack([1.0 - pw1, pw1], axis=1)  # (q, 2w, 2u)
    pt = treatment_given_u(mech, x)  # (q, 2t, 2u)
    joint = 0.5 * pz[:, None, :, :] * pt[:, :, None, :]  # (q, 2t, 2z, 2u)
    post = joint / joint.sum(axis=3, keepdims=True)
    A = np.einsum("qtzu,qwu->qtzw", post, pw)
    m = outcome_mean(mech, x, variant)  # (q, 2t, 2u)
    b = np.einsum("qtzu,qtu->qtz", post, m)
    return A, b


def proximal(mech: Mechanisms, x: np.ndarray, variant: str = "original") -> np.ndarray:
    """(q,) proximal functional (App. B.4): solve A_t h_t = b_t (:func:`bridge_system`) for the bridge
    h_t(w), w ∈ {0, 1}, then τ_PX(x) = E[h₁(W_p) − h₀(W_p) | x] = Σ_w P(w | x)(h₁(w) − h₀(w)),
    P(w | x) = Σ_u ½ P(w | u, x)."""
    A, b = bridge_system(mech, x, variant)
    h = np.linalg.solve(A, b[..., None])[..., 0]  # (q, 2t, 2w)
    pw1 = 0.5 * mech.proxy_w(x).sum(axis=1)
    pw = np.stack([1.0 - pw1, pw1], axis=1)  # (q, 2w)
    return ((h[:, 1, :] - h[:, 0, :]) * pw).sum(axis=1)


def naive_contrast(mech: Mechanisms, x: np.ndarray, variant: str = "original") -> np.ndarray:
    """(q,) the (X-only) observational contrast E[Y | T=1, x] − E[Y | T=0, x], E[Y | t, x] = Σ_u P(u | t, x) m_t(x, u).

    Equals τ(x) + γ_U(x)(E[U | T=1, x] − E[U | T=0, x]): biased unless U is adjusted for (§4.1.1).
    """
    m = outcome_mean(mech, x, variant)
    ey = (posterior_u_given_t(mech, x) * m).sum(axis=2)  # (q, 2t)
    return ey[:, 1] - ey[:, 0]


#: the four point-identification functionals, by view
FUNCTIONALS = {"bd": backdoor, "fd": frontdoor, "iv": wald, "px": proximal}


def diagnostics(world: World, variant: str = "original") -> Dict[str, float]:
    """Numerical construction diagnostics of one world (App. D.2, Table 6 analogues).

    Returns:
        ``propensity_min``/``_max``: complete P(T=1 | X, U, I) at every unit under both i (2N values);
        ``bd_propensity_min``/``_max``: P(T=1 | X, U) at every unit;
        ``first_stage_min``/``_mean``: E[T | I=1, x] − E[T | I=0, x] over the units;
        ``naive_bias_rms``: RMS over the queries of the naive contrast minus the target;
        ``bridge_cond_max``: the largest 2-norm condition number of A_t over queries and t;
        ``fd_shift_sd``: δ/σ_M; ``fd_overlap``: overlap 2Φ(−δ/2σ_M) of p(m | 0) and p(m | 1);
        ``treated_share``: mean T over all units.
    """
    from math import erf, sqrt

    mech, x, xq = world.mech, world.X, world.X[world.query_ids]
    rows, u_idx = np.arange(world.N), (world.U > 0).astype(np.int64)
    e = mech.propensity(x)[rows, u_idx, :]
    e_bd = treatment_given_u(mech, x)[rows, 1, u_idx]
    fs = first_stage(mech, x)
    bias = naive_contrast(mech, xq, variant) - mech.tau(xq, variant)
    A, _ = bridge_system(mech, xq, variant)
    s = mech.settings
    ratio = s.delta / s.sigma_M
    return {"propensity_min": float(e.min()), "propensity_max": float(e.max()),
            "bd_propensity_min": float(e_bd.min()), "bd_propensity_max": float(e_bd.max()),
            "first_stage_min": float(fs.min()), "first_stage_mean": float(fs.mean()),
            "naive_bias_rms": float(np.sqrt(np.mean(bias ** 2))),
            "bridge_cond_max": float(np.linalg.cond(A.reshape(-1, 2, 2)).max()),
            "fd_shift_sd": float(ratio), "fd_overlap": float(2.0 * 0.5 * (1.0 + erf(-ratio / 2.0 / sqrt(2.0)))),
            "treated_share": float(world.T.mean())}


def audit(world: World, variants: Sequence[str] = VARIANTS, x: Optional[np.ndarray] = None) -> Dict[str, float]:
    """The App. D.1–D.2 certificate of one world: maximum absolute errors, each to be ≤ :data:`TOLERANCE`.

    Args:
        world: a generated :class:`~.scm.World`.
        variants: the outcome variants checked.
        x: (q × p) where the functionals are evaluated (default: the world's query units).

    Returns:
        ``potential_outcomes``: max over units and variants of |Y(1) − Y(0) − τ(X)| (App. D.1);
        ``bd``, ``fd``, ``iv``, ``px``: max over x and variants of |functional − stored target| (App. D.2);
        ``stay``: max |τ^S − τ₀|; ``move``: max |τ^M − 2τ₀| (App. D.1, stored targets);
        ``nonfinite``: the number of non-finite reconstructed values (0 expected).
    """
    xq = world.X[world.query_ids] if x is None else np.asarray(x, dtype=np.float64)
    out = {"potential_outcomes": 0.0, "bd": 0.0, "fd": 0.0, "iv": 0.0, "px": 0.0, "stay": 0.0, "move": 0.0,
           "nonfinite": 0.0}
    tau0_units = world.outcomes("original")["tau"]
    for variant in variants:
        po = world.outcomes(variant)
        out["potential_outcomes"] = max(out["potential_outcomes"],
                                        float(np.max(np.abs(po["Y1"] - po["Y0"] - po["tau"]))))
        target = world.mech.tau(xq, variant)
        for view, fn in FUNCTIONALS.items():
            value = fn(world.mech, xq, variant)
            out["nonfinite"] += float((~np.isfinite(value)).sum())
            out[view] = max(out[view], float(np.max(np.abs(value - target))))
        if variant == "stay":
            out["stay"] = float(np.max(np.abs(po["tau"] - tau0_units)))
        if variant == "move":
            out["move"] = float(np.max(np.abs(po["tau"] - 2.0 * tau0_units)))
    return out
