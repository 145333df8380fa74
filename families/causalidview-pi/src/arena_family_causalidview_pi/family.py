"""The partial-identification companion SCM of CausalIDView (App. C.5) and its oracle identified sets (App. B.5).

The paper's displayed equations were lost in extraction; the SCM below is
written from its stated structure (App. C.5, Algorithm 2's prose) and every
choice of ours is in :data:`SETTINGS` and the package README (which derives
each formula). One world ``w`` (suppressed below):

* roots: X ~ N(0, I₅₀), U ∈ {−1, +1} with P = ½ (latent), I ~ Bernoulli(½);
* treatment (shared-threshold logistic): T = 1{L < η(X) + α_U U + α_I I},
  η(x) = α₀ + α_X xᵀv_T, L ~ Logistic(0, 1) shared by both instrument values,
  so T(1) ≥ T(0) for every unit (α_I > 0: no defiers, monotone IV);
* binary potential outcomes with a shared uniform V_Y ~ U(0, 1):
  Y(t) = 1{V_Y < p_t(X, U)},
  p_t(x, u) = ½ + A_b s_b(x, u) + A_τ (t − ½) s_τ(x),
  s_b(x, u) = tanh(β_b xᵀv_μ + κ u) (the outcome's hidden confounding),
  s_τ(x) = tanh((q(a, b) − m_q)/sd_q + o), a = xᵀv_a, b = xᵀv_b, q one of five
  effect families; A_b + A_τ/2 ≤ 0.45 gives p_t ∈ [0.05, 0.95] unclipped;
* target: τ₀(x) = E[Y(1) − Y(0) | X = x] = E_U[p₁ − p₀] = A_τ s_τ(x).

Y(t) ⊥ T | X, U because V_Y ⊥ (L, I), so the cell probabilities of every
view follow from the SCM by summing over U (and I):
P(T=t, Y=y | x, z) = ½ Σ_u e_t(x, u, z) P(Y(t)=y | x, u), e₁ = σ(η + α_U u + α_I z).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from arena_task_effect.effect import EffectDataset, EffectInstance, EffectOracle
from causalarena.family import Family
from causalarena.protocol import cell_seed

FAMILY = "causalidview_pi"
#: generator version: part of every fingerprint (bump when the SCM changes)
GENERATOR = "causalidview_pi-scm-1"
#: the five effect families of s_τ (App. C.4's list, reused by C.5), 8 worlds each
EFFECT_FAMILIES = ("linear", "quadratic", "threshold", "fourier", "mlp")
N_WORLDS = 40
#: sensitivity levels of the MSM views (App. C.5)
GAMMAS = (1.0, 1.25, 1.5, 2.0, 3.0, 5.0)


def _gamma_name(g: float) -> str:
    return f"pi_msm_{g:g}"


#: the views (the instance's splits), App. B.5 / C.5
VIEWS = ("pi_manski", "pi_iv") + tuple(_gamma_name(g) for g in GAMMAS)

#: every numerical setting in one place ("paper" where App. C.4/C.5 states it, else ours)
SETTINGS: Dict[str, Any] = dict(
    p=50,                      # paper: Gaussian covariates in R^50
    n_context=1024,            # paper (N = 1,124 units: 1,024 context, 100 queries)
    n_query=100,               # paper
    active_T=14, active_mu=14,  # paper C.4: v_T and v_mu use 14 active coordinates
    active_tau=10,             # paper C.4: the CATE directions v_a, v_b use 10
    alpha0=(-1.3, -0.7),       # ours: treatment intercept ~ U (centres P(T=1) near ½ given α_I)
    alpha_X=(0.6, 1.0),        # ours: covariate strength of the treatment index ~ U
    alpha_I=(1.5, 2.5),        # ours: instrument strength ~ U (complier share ≈ 0.3–0.45)
    gamma_cal=1.9,             # ours: α_U solves max Γ(x) = 1.9 on the development units (< the paper's 2)
    n_dev=4096,                # ours: development units per world (their own seed)
    beta_b=(0.5, 1.0),         # ours: covariate weight of s_b ~ U
    kappa=(0.6, 1.2),          # ours: hidden-confounder weight of s_b ~ U
    A_tau=(0.3, 0.5),          # ours: effect amplitude ~ U
    A_b_low=0.15,              # ours: A_b ~ U(0.15, 0.45 − A_τ/2)  (paper: A_b + A_τ/2 ≤ 0.45)
    tau_offset=(-0.5, 0.5),    # ours: offset o inside tanh of s_τ ~ U
    mlp_hidden=8,              # ours: hidden tanh units of the shallow-MLP effect family
)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=float)))


def _sparse_unit(rng: np.random.Generator, p: int, k: int) -> np.ndarray:
    v = np.zeros(p)
    idx = rng.choice(p, size=k, replace=False)
    w = rng.standard_normal(k)
    v[idx] = w / np.linalg.norm(w)
    return v


def world_ids(effect_families: Sequence[str] = EFFECT_FAMILIES) -> List[str]:
    """The 40 world ids ``pi-wKK-<family>`` (family of world k = EFFECT_FAMILIES[k mod 5]), filtered."""
    return [f"pi-w{k:02d}-{EFFECT_FAMILIES[k % 5]}" for k in range(N_WORLDS) if EFFECT_FAMILIES[k % 5] in effect_families]


def _parse_id(scm_id: str) -> int:
    try:
        prefix, w, fam = scm_id.split("-", 2)
        k = int(w[1:])
        ok = prefix == "pi" and w.startswith("w") and 0 <= k < N_WORLDS and fam == EFFECT_FAMILIES[k % 5]
    except (ValueError, IndexError):
        ok = False
    if not ok:
        raise KeyError(f"family {FAMILY!r} has no world {scm_id!r} (ids look like {world_ids()[0]!r} … "
                       f"{world_ids()[-1]!r})")
    return k


# ---------------------------------------------------------------------------
# Oracle identified sets, computed here from the SCM's true cell probabilities
# (the bounds plugin has its own implementation; a test there checks agreement)
# ---------------------------------------------------------------------------

def manski_set(cells: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Worst-case (Manski 1990/2003) bounds on τ(x) for a binary outcome (App. B.5.1).

    Args:
        cells: (q × 4) P(T=t, Y=y | x) in the order (t, y) = (0,0), (0,1), (1,0), (1,1).

    Returns:
        (lower, upper), each (q,): E[Y(1)|x] ∈ [P₁₁, P₁₁ + P(T=0|x)],
        E[Y(0)|x] ∈ [P₀₁, P₀₁ + P(T=1|x)], τ ∈ [L₁ − U₀, U₁ − L₀] (width 1).
    """
    p00, p01, p10, p11 = (cells[:, k] for k in range(4))
    l1, u1 = p11, p11 + p00 + p01
    l0, u0 = p01, p01 + p10 + p11
    return l1 - u0, u1 - l0


def msm_set(cells: np.ndarray, gamma: float) -> Tuple[np.ndarray, np.ndarray]:
    """Sharp marginal-sensitivity-model bounds on τ(x) at level Γ for a binary outcome (App. B.5.3).

    Tan's (2006) MSM: odds(e(x,u)) / odds(e(x)) ∈ [1/Γ, Γ]; the weight W = 1/e(x,U) then lies in
    [a, b], a = 1 + (1/e − 1)/Γ, b = 1 + (1/e − 1)Γ, with E[W | T=1, x] = 1/e (Dorn & Guo 2022).
    E[Y(1)|x] = e p₁ w₁ with w₁ = E[W | T=1, Y=1, x], w₀ = E[W | T=1, Y=0, x] ∈ [a, b] and
    p₁ w₁ + (1 − p₁) w₀ = 1/e, so E[Y(1)|x] ∈ [max(e p₁ a, 1 − e(1−p₁) b), min(e p₁ b, 1 − e(1−p₁) a)];
    the same for Y(0) with 1 − e, p₀ (README derivation).

    Args:
        cells: (q × 4) P(T, Y | x) as in :func:`manski_set`, with 0 < e < 1.
        gamma: Γ ≥ 1.

    Returns:
        (lower, upper), each (q,); at Γ = 1 both equal E[Y|T=1,x] − E[Y|T=0,x].
    """
    p00, p01, p10, p11 = (cells[:, k] for k in range(4))
    e = p10 + p11

    def arm(joint_y1: np.ndarray, joint_y0: np.ndarray, prop: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        r = 1.0 / prop - 1.0
        a, b = 1.0 + r / gamma, 1.0 + r * gamma
        lo = np.maximum(joint_y1 * a, 1.0 - joint_y0 * b)
        hi = np.minimum(joint_y1 * b, 1.0 - joint_y0 * a)
        return lo, hi

    l1, u1 = arm(p11, p10, e)
    l0, u0 = arm(p01, p00, 1.0 - e)
    return l1 - u0, u1 - l0


#: response types of the monotone IV model: (compliance, Y(0), Y(1)); compliance n = never, c = complier, a = always
IV_TYPES = tuple((c, y0, y1) for c in "nca" for y0 in (0, 1) for y1 in (0, 1))


def _treatment(c: str, z: int) -> int:
    return {"n": 0, "a": 1, "c": z}[c]


def iv_set(cells_z0: np.ndarray, cells_z1: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Monotone-IV bounds on τ(x): the Balke & Pearl (1997) response-type LP without defiers (App. B.5.2).

    Variables: q ≥ 0 over the 12 types (never-taker, complier, always-taker) × (Y(0), Y(1)) ∈ {0,1}²;
    constraints: for z ∈ {0, 1} and (t, y), Σ_{types with T(z)=t, Y(t)=y} q = P(T=t, Y=y | x, I=z)
    (these imply Σ q = 1); objective min / max Σ q (Y(1) − Y(0)). Solved by
    ``scipy.optimize.linprog`` (HiGHS) per query.

    Args:
        cells_z0, cells_z1: (q × 4) P(T, Y | x, I=z), order as in :func:`manski_set`; they must be
            compatible with the monotone IV model (true SCM cells are).

    Returns:
        (lower, upper), each (q,).

    Raises:
        ValueError: the LP is infeasible at a query (cells violate the IV model), naming the query.
    """
    from scipy.optimize import linprog

    A = np.zeros((8, len(IV_TYPES)))
    for j, (c, y0, y1) in enumerate(IV_TYPES):
        for z in (0, 1):
            t = _treatment(c, z)
            y = y1 if t else y0
            A[4 * z + 2 * t + y, j] = 1.0
    obj = np.array([y1 - y0 for _, y0, y1 in IV_TYPES], dtype=float)
    q = cells_z0.shape[0]
    lower, upper = np.empty(q), np.empty(q)
    for i in range(q):
        b = np.concatenate([cells_z0[i], cells_z1[i]])
        for sign, out in ((1.0, lower), (-1.0, upper)):
            res = linprog(sign * obj, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
            if res.status != 0:
                raise ValueError(f"iv_set: the monotone-IV LP failed at query {i}: {res.message}")
            out[i] = sign * res.fun
    return lower, upper


# ---------------------------------------------------------------------------
# Worlds
# ---------------------------------------------------------------------------

class PIWorld(EffectInstance):
    """One companion world: eight views (:data:`VIEWS`) of the same units, with SCM oracle sets.

    Attributes:
        scm_id: ``"pi-wKK-<effect family>"``.
        splits: :data:`VIEWS`.
        n_replicates: replicates (default 1; each replicate redraws the units, not the world).
        factors: ``effect_family``, ``world`` (k).
    """

    family = FAMILY

    def __init__(self, scm_id: str, n_replicates: int = 1) -> None:
        self.k = _parse_id(scm_id)
        self.scm_id = scm_id
        self.splits = VIEWS
        self.n_replicates = int(n_replicates)
        self.factors = {"effect_family": EFFECT_FAMILIES[self.k % 5], "world": self.k}
        self._params: Optional[Dict[str, Any]] = None

    # -- world parameters --------------------------------------------------
    @property
    def params(self) -> Dict[str, Any]:
        """The world's parameters, drawn once from ``cell_seed(family, id, "world", 0)``'s first
        child seed and calibrated on development units (``cell_seed(family, id, "development", 0)``)."""
        if self._params is None:
            self._params = self._draw_params()
        return self._params

    def _draw_params(self) -> Dict[str, Any]:
        from scipy.optimize import brentq

        S = SETTINGS
        p = S["p"]
        rng = np.random.default_rng(np.random.SeedSequence(cell_seed(FAMILY, self.scm_id, "world", 0)).spawn(3)[0])
        fam = self.factors["effect_family"]
        par: Dict[str, Any] = dict(effect_family=fam)
        par["v_T"] = _sparse_unit(rng, p, S["active_T"])
        par["v_mu"] = _sparse_unit(rng, p, S["active_mu"])
        par["v_a"] = _sparse_unit(rng, p, S["active_tau"])
        par["v_b"] = _sparse_unit(rng, p, S["active_tau"])
        par["alpha0"] = float(rng.uniform(*S["alpha0"]))
        par["alpha_X"] = float(rng.uniform(*S["alpha_X"]))
        par["alpha_I"] = float(rng.uniform(*S["alpha_I"]))
        par["beta_b"] = float(rng.uniform(*S["beta_b"]))
        par["kappa"] = float(rng.uniform(*S["kappa"]))
        par["A_tau"] = float(rng.uniform(*S["A_tau"]))
        par["A_b"] = float(rng.uniform(S["A_b_low"], 0.45 - par["A_tau"] / 2))
        par["tau_offset"] = float(rng.uniform(*S["tau_offset"]))
        if fam == "linear":
            d = rng.standard_normal(2)
            par["surface"] = dict(w=(d / np.linalg.norm(d)).tolist())
        elif fam == "quadratic":
            par["surface"] = dict(c=float(rng.uniform(-1, 1)))
        elif fam == "threshold":
            par["surface"] = dict(ta=float(rng.uniform(-0.5, 0.5)), tb=float(rng.uniform(-0.5, 0.5)))
        elif fam == "fourier":
            par["surface"] = dict(w=rng.uniform(1.0, 2.5, size=2).tolist(), phi=rng.uniform(0, 2 * np.pi, 2).tolist())
        else:
            h = S["mlp_hidden"]
            par["surface"] = dict(W=rng.standard_normal((h, 2)).tolist(), c=(0.5 * rng.standard_normal(h)).tolist(),
                                  w=(rng.standard_normal(h) / np.sqrt(h)).tolist())
        # calibration on development units of their own seed (App. C.5: "separate development seeds")
        dev = np.random.default_rng(cell_seed(FAMILY, self.scm_id, "development", 0))
        Xd = dev.standard_normal((S["n_dev"], p))
        qd = _surface(fam, par["surface"], Xd @ par["v_a"], Xd @ par["v_b"])
        par["q_mean"], par["q_sd"] = float(qd.mean()), float(qd.std())
        eta_d = par["alpha0"] + par["alpha_X"] * (Xd @ par["v_T"])

        def excess(alpha_u: float) -> float:
            return float(msm_level(eta_d, alpha_u, par["alpha_I"]).max() - S["gamma_cal"])

        par["alpha_U"] = float(brentq(excess, 1e-6, 6.0, xtol=1e-12))
        return par

    def fingerprint(self) -> str:
        """16 hex digits of SHA-256 over the generator version, the settings and the world's parameters."""
        par = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.params.items()}
        text = json.dumps(dict(generator=GENERATOR, id=self.scm_id, settings=SETTINGS, params=par), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # -- structural quantities (vectorised over units) -----------------------
    def eta(self, X: np.ndarray) -> np.ndarray:
        """(N,) treatment index η(x) = α₀ + α_X xᵀv_T."""
        par = self.params
        return par["alpha0"] + par["alpha_X"] * (X @ par["v_T"])

    def propensity(self, X: np.ndarray, u: float, z: int) -> np.ndarray:
        """(N,) complete propensity P(T=1 | x, U=u, I=z) = σ(η(x) + α_U u + α_I z) (logistic L)."""
        par = self.params
        return _sigmoid(self.eta(X) + par["alpha_U"] * u + par["alpha_I"] * z)

    def s_tau(self, X: np.ndarray) -> np.ndarray:
        """(N,) s_τ(x) = tanh((q(a,b) − m_q)/sd_q + o) ∈ (−1, 1)."""
        par = self.params
        q = _surface(par["effect_family"], par["surface"], X @ par["v_a"], X @ par["v_b"])
        return np.tanh((q - par["q_mean"]) / par["q_sd"] + par["tau_offset"])

    def outcome_prob(self, X: np.ndarray, u: float, t: int) -> np.ndarray:
        """(N,) p_t(x, u) = ½ + A_b tanh(β_b xᵀv_μ + κ u) + A_τ (t − ½) s_τ(x) ∈ [0.05, 0.95]."""
        par = self.params
        s_b = np.tanh(par["beta_b"] * (X @ par["v_mu"]) + par["kappa"] * u)
        return 0.5 + par["A_b"] * s_b + par["A_tau"] * (t - 0.5) * self.s_tau(X)

    def tau(self, X: np.ndarray) -> np.ndarray:
        """(N,) target CATE τ₀(x) = A_τ s_τ(x) (outcome probability units)."""
        return self.params["A_tau"] * self.s_tau(X)

    def cells(self, X: np.ndarray, z: Optional[int] = None) -> np.ndarray:
        """(N × 4) true P(T=t, Y=y | x) (``z=None``, marginal over I) or P(T=t, Y=y | x, I=z),
        order (0,0), (0,1), (1,0), (1,1): ½ Σ_u P(T=t|x,u,z) p_t(x,u)^y (1 − p_t)^(1−y), using Y(t) ⊥ T | X, U."""
        if z is None:
            return 0.5 * (self.cells(X, 0) + self.cells(X, 1))
        out = np.zeros((X.shape[0], 4))
        for u in (-1.0, 1.0):
            e1 = self.propensity(X, u, z)
            p0, p1 = self.outcome_prob(X, u, 0), self.outcome_prob(X, u, 1)
            out += 0.5 * np.column_stack([(1 - e1) * (1 - p0), (1 - e1) * p0, e1 * (1 - p1), e1 * p1])
        return out

    def gamma_level(self, X: np.ndarray) -> np.ndarray:
        """(N,) the smallest Γ for which the MSM holds at x: max_u max(OR_u, 1/OR_u), with OR_u the odds
        ratio of e(x,u) = ½ Σ_z P(T=1|x,u,z) against e(x) = ½ Σ_u e(x,u)."""
        par = self.params
        return msm_level(self.eta(X), par["alpha_U"], par["alpha_I"])

    # -- units ---------------------------------------------------------------
    def units(self, replicate: int, n: Optional[int] = None) -> Dict[str, Any]:
        """Every generated quantity of one replicate: queries (q = 100) and context (n, default 1,024).

        Query and context units come from two child streams of
        ``cell_seed(family, id, "world", replicate)``, so the queries (and the oracle) do not
        change with ``n``. Returns a dict of arrays over all N = q + n units (queries first): ``ids``,
        ``X`` (N × 50), ``U``, ``I``, ``T``, ``Y0``, ``Y1``, ``Y`` (N,), ``is_query`` (N,), ``seed``.

        Raises:
            ValueError: ``replicate`` out of range or ``n`` not an integer ≥ 2.
        """
        if not (isinstance(replicate, (int, np.integer)) and 0 <= replicate < self.n_replicates):
            raise ValueError(f"replicate must be in 0..{self.n_replicates - 1}, got {replicate!r}")
        n_ctx = SETTINGS["n_context"] if n is None else n
        if not (isinstance(n_ctx, (int, np.integer)) and n_ctx >= 2):
            raise ValueError(f"n (context units) must be an integer >= 2, got {n!r}")
        seed = cell_seed(FAMILY, self.scm_id, "world", replicate)
        streams = np.random.SeedSequence(seed).spawn(3)[1:]
        parts = []
        for stream, size in zip(streams, (SETTINGS["n_query"], int(n_ctx))):
            rng = np.random.default_rng(stream)
            X = rng.standard_normal((size, SETTINGS["p"]))
            U = rng.choice(np.array([-1.0, 1.0]), size=size)
            Z = (rng.uniform(size=size) < 0.5).astype(np.int8)  # the instrument I
            L = rng.logistic(size=size)
            V = rng.uniform(size=size)
            parts.append((X, U, Z, L, V))
        X, U, Z, L, V = (np.concatenate(c) for c in zip(*parts))
        par = self.params
        T = (L < self.eta(X) + par["alpha_U"] * U + par["alpha_I"] * Z).astype(np.int8)
        pu = {t: np.where(U > 0, self.outcome_prob(X, 1.0, t), self.outcome_prob(X, -1.0, t)) for t in (0, 1)}
        Y0, Y1 = (V < pu[0]).astype(float), (V < pu[1]).astype(float)
        q = SETTINGS["n_query"]
        return dict(ids=np.arange(X.shape[0], dtype=np.int64), X=X, U=U, I=Z, T=T, Y0=Y0, Y1=Y1,
                    Y=np.where(T == 1, Y1, Y0), is_query=np.arange(X.shape[0]) < q, seed=seed,
                    p0=pu[0], p1=pu[1])

    # -- views ---------------------------------------------------------------
    @staticmethod
    def view_options(split: str) -> Dict[str, Any]:
        """``assumption`` and ``gamma`` of a view.

        Raises:
            ValueError: an unknown view (lists the views).
        """
        if split not in VIEWS:
            raise ValueError(f"unknown view {split!r} of family {FAMILY!r}; views: {', '.join(VIEWS)}")
        if split == "pi_manski":
            return dict(assumption="manski", gamma=None)
        if split == "pi_iv":
            return dict(assumption="iv", gamma=None)
        return dict(assumption="msm", gamma=float(split[len("pi_msm_"):]))

    def dataset(self, split: str, replicate: int, standardise: bool = True, protocol: str = "default",
                n: Optional[int] = None) -> EffectDataset:
        """The view ``split`` (X, T, Y; ``pi_iv`` adds the instrument I) of one replicate.

        ``standardise`` z-scores X with the context mean and population sd (applied to the queries
        too); T, Y and I stay 0/1 (bounds live on the probability scale). No oracle quantity, U or
        potential outcome is in the dataset.

        Raises:
            ValueError: unknown view, replicate or protocol, or a bad ``n``.
        """
        opts = self.view_options(split)
        if protocol != "default":
            raise ValueError(f"family {FAMILY!r} has only protocol 'default', got {protocol!r}")
        u = self.units(replicate, n)
        qm, cm = u["is_query"], ~u["is_query"]
        X = u["X"]
        if standardise:
            mean, sd = X[cm].mean(axis=0), X[cm].std(axis=0)
            X = (X - mean) / np.where(sd > 0, sd, 1.0)
        aux, auxq = {}, {}
        if split == "pi_iv":
            aux["instrument"] = u["I"][cm].astype(float)[:, None]
            auxq["instrument"] = u["I"][qm].astype(float)[:, None]
        return EffectDataset(
            X=X[cm], T=u["T"][cm], Y=u["Y"][cm], X_query=X[qm], query_ids=u["ids"][qm], unit_ids=u["ids"][cm],
            auxiliary=aux, auxiliary_query=auxq, view=split, outcome="binary", target="bounds",
            columns=dict(covariates=[f"x{j:02d}" for j in range(SETTINGS["p"])],
                         **({"instrument": ["I"]} if aux else {})),
            metadata=dict(family=FAMILY, scm_id=self.scm_id, split=split, replicate=int(replicate), seed=u["seed"],
                          factors=dict(self.factors), standardised=bool(standardise)),
            **opts)

    def oracle(self, split: str, replicate: int, n: Optional[int] = None) -> EffectOracle:
        """τ₀ at the queries and the population identified set of the view's assumption, from the SCM's
        true cell probabilities (:meth:`cells`; not from data). Independent of ``n``.

        Raises:
            ValueError: unknown view or replicate.
        """
        opts = self.view_options(split)
        u = self.units(replicate, None)
        Xq = u["X"][u["is_query"]]
        if opts["assumption"] == "manski":
            lower, upper = manski_set(self.cells(Xq))
        elif opts["assumption"] == "iv":
            lower, upper = iv_set(self.cells(Xq, 0), self.cells(Xq, 1))
        else:
            lower, upper = msm_set(self.cells(Xq), opts["gamma"])
        return EffectOracle(query_ids=u["ids"][u["is_query"]], tau=self.tau(Xq), lower=lower, upper=upper)


def msm_level(eta: np.ndarray, alpha_u: float, alpha_i: float) -> np.ndarray:
    """(N,) the MSM level Γ(x) of the companion's treatment model at treatment indices η (App. C.5 calibration).

    e(x,u) = ½ [σ(η + α_U u) + σ(η + α_U u + α_I)] (I marginalised), e(x) = ½ Σ_u e(x,u);
    Γ(x) = max_u max(OR_u, 1/OR_u), OR_u = [e(x,u)/(1 − e(x,u))] / [e(x)/(1 − e(x))].
    """
    eu = {u: 0.5 * (_sigmoid(eta + alpha_u * u) + _sigmoid(eta + alpha_u * u + alpha_i)) for u in (-1.0, 1.0)}
    e = 0.5 * (eu[-1.0] + eu[1.0])
    odds = e / (1 - e)
    ors = np.stack([(eu[u] / (1 - eu[u])) / odds for u in (-1.0, 1.0)])
    return np.maximum(ors, 1 / ors).max(axis=0)


def _surface(fam: str, s: Dict[str, Any], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The uncalibrated effect surface q(a, b) of one effect family (App. C.4's five families; forms ours)."""
    if fam == "linear":
        return s["w"][0] * a + s["w"][1] * b
    if fam == "quadratic":
        return a * b + 0.5 * s["c"] * (a ** 2 - b ** 2)
    if fam == "threshold":
        return (a > s["ta"]).astype(float) + 0.5 * (b > s["tb"]).astype(float) - 0.75 * (a > s["ta"]) * (b > s["tb"])
    if fam == "fourier":
        return np.sin(s["w"][0] * a + s["phi"][0]) + 0.5 * np.cos(s["w"][1] * b + s["phi"][1])
    W, c, w = np.asarray(s["W"]), np.asarray(s["c"]), np.asarray(s["w"])
    return np.tanh(np.column_stack([a, b]) @ W.T + c) @ w


class CausalIDViewPI(Family):
    """The ``causalidview_pi`` family: 40 companion worlds (8 per effect family).

    Options (``arena run --family-option causalidview_pi.effect_families=linear,mlp``):
        effect_families: subset of :data:`EFFECT_FAMILIES` (comma string or list); default all.
        n_replicates: replicates per world (default 1).

    Raises:
        ValueError: an unknown option or effect family, or n_replicates < 1.
    """

    name = FAMILY

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        unknown = sorted(set(options) - {"effect_families", "n_replicates"})
        if unknown:
            raise ValueError(f"family {FAMILY!r}: unknown option(s) {unknown}; known: effect_families, n_replicates")
        fams = options.get("effect_families", EFFECT_FAMILIES)
        if isinstance(fams, str):
            fams = [f.strip() for f in fams.split(",") if f.strip()]
        bad = sorted(set(fams) - set(EFFECT_FAMILIES))
        if bad:
            raise ValueError(f"family {FAMILY!r}: option effect_families has unknown value(s) {bad}; "
                             f"expected some of {', '.join(EFFECT_FAMILIES)}")
        self.effect_families = tuple(f for f in EFFECT_FAMILIES if f in fams)
        self.replicates = int(options.get("n_replicates", 1))
        if self.replicates < 1:
            raise ValueError(f"family {FAMILY!r}: option n_replicates must be >= 1, got {self.replicates}")

    def ids(self) -> List[str]:
        return world_ids(self.effect_families)

    def instances(self) -> List[PIWorld]:
        return [PIWorld(i, self.replicates) for i in self.ids()]

    def instance(self, scm_id: str) -> PIWorld:
        return PIWorld(scm_id, self.replicates)

    def select(self, scm_ids: Sequence[str]) -> List[PIWorld]:
        out = []
        for i in scm_ids:
            try:
                out.append(PIWorld(i, self.replicates))
            except KeyError:
                continue
        return out

    def listing(self) -> list:
        from causalarena.family import InstanceSummary

        return [InstanceSummary(scm_id=i, d=SETTINGS["p"], splits=VIEWS, n_replicates=self.replicates)
                for i in self.ids()]

    def expected_counts(self) -> Dict[str, Dict[str, int]]:
        return {"effect_family": {f: N_WORLDS // 5 for f in self.effect_families}}
