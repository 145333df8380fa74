"""The P-learner for proximal CATE estimation with binary proxies (Sverdrup & Cui 2023; CausalIDView App. E.2.2
"Proximal", Algorithm 5).

No library implements the P-learner (econml, DoWhy and causalml have no
proximal estimator; the authors' code is not a package), so the bridges, the
score and the cross-fitting layout are own code; every supervised model is a
backbone of :mod:`arena_effect_backbones`.

Notation: Z = treatment proxy (``treatment_proxy``), W = outcome proxy
(``outcome_proxy``), both binary; U latent. Identification (App. B.4; Miao et
al. 2018, Cui et al. 2023): Y(t) ⊥ T | U, X; Y ⊥ Z | T, U, X; W ⊥ (T, Z) | U, X;
bridges exist and completeness holds. Then

* the outcome bridge h_t(w, x) solves, for z ∈ {0, 1},
  E[Y | Z=z, T=t, x] = Σ_w h_t(w, x) P(W=w | Z=z, T=t, x)                         (OB)
  and E[Y(t) | x] = E[h_t(W, x) | x];
* the treatment bridge q_t(z, x) solves, for w ∈ {0, 1},
  Σ_z q_t(z, x) P(Z=z | W=w, T=t, x) = 1 / P(T=t | W=w, x)                        (TB)
* the proximal doubly-robust pseudo-outcome (the uncentred influence function
  of E[Y(1) − Y(0)], Cui et al. 2023, Thm. 3.1) is
  Γ = h_1(W, X) − h_0(W, X) + (2T − 1) q_T(Z, X) (Y − h_T(W, X)),                (Γ)
  with E[Γ | X=x] = τ(x) when either bridge is correct.

With binary proxies (OB) and (TB) are 2 × 2 linear systems A h = b per unit and
arm, solved with ridge λ = 0.01 (App. E.2.2): h = (AᵀA + λI)⁻¹ Aᵀ b
(:func:`ridge_two_point`). Derivations in the README.

Cross-fitting (App. E.2.2: "all nuisance quantities entering Γ are out of
fold"): K folds; on the training folds fit Ê[Y | X, Z, T] (regressor),
P̂(W=1 | X, Z, T), P̂(T=1 | X, W) and P̂(Z=1 | X, W, T) (classifiers); on the
held-out fold evaluate them at both proxy and treatment values, solve the
bridges and form Γ_i. Finally a backbone regressor (``final=True``) of Γ on X
over the whole context gives τ̂ at the queries (query input: X only).
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from arena_effect_backbones import binary_column
from arena_task_effect.effect import EffectDataset, EffectMethod

#: ridge of the two-point bridge equations (App. E.2.2)
RIDGE = 0.01


def ridge_two_point(A: np.ndarray, b: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Batched ridge solutions h = (AᵀA + λI)⁻¹ Aᵀ b of 2 × 2 systems (App. E.2.2, bridge equations).

    Args:
        A: (m × 2 × 2) design, one system per row (rows: equations, columns: unknowns).
        b: (m × 2) right-hand sides.
        ridge: λ ≥ 0 (0.01 in the paper; λ = 0 is the exact inverse for a non-singular A).

    Returns:
        (m × 2) solutions.

    Raises:
        ValueError: shapes not (m × 2 × 2) and (m × 2), or λ < 0.
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    if A.ndim != 3 or A.shape[1:] != (2, 2) or b.shape != A.shape[:2]:
        raise ValueError(f"ridge_two_point needs A (m × 2 × 2) and b (m × 2), got {A.shape} and {b.shape}")
    if not ridge >= 0:
        raise ValueError(f"ridge must be >= 0, got {ridge}")
    At = np.swapaxes(A, 1, 2)
    return np.linalg.solve(At @ A + ridge * np.eye(2), (At @ b[:, :, None]))[:, :, 0]


def two_point_system(p1_given_row: Dict[int, np.ndarray], rhs: Dict[int, np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """Assemble A (m × 2 × 2), b (m × 2) of a binary-proxy bridge equation.

    Row r ∈ {0, 1} is the conditioning proxy value (z in (OB), w in (TB)); column s ∈ {0, 1}
    the bridge's argument (w in (OB), z in (TB)): A[:, r, s] = P(S=s | R=r, …), so
    A[:, r] = (1 − p_r, p_r) with p_r = P(S=1 | R=r, …); b[:, r] = ``rhs[r]``.
    """
    A = np.stack([np.stack([1.0 - p1_given_row[r], p1_given_row[r]], axis=1) for r in (0, 1)], axis=1)
    b = np.stack([rhs[0], rhs[1]], axis=1)
    return A, b


def pseudo_outcome(h: Dict[int, np.ndarray], q: Dict[int, np.ndarray], W: np.ndarray, Z: np.ndarray,
                   T: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Γ_i of (Γ): h_1(W_i) − h_0(W_i) + (2T_i − 1) q_{T_i}(Z_i) (Y_i − h_{T_i}(W_i)) (Cui et al. 2023).

    Args:
        h: t → (n × 2) outcome-bridge values h_t(w, X_i) for w = 0, 1 (outcome units).
        q: t → (n × 2) treatment-bridge values q_t(z, X_i) for z = 0, 1 (inverse-probability units).
        W, Z, T: (n,) 0/1 proxies and treatment; Y: (n,) outcome.

    Returns:
        (n,) pseudo-outcomes (outcome units).
    """
    rows = np.arange(len(Y))
    w, z, t = W.astype(int), Z.astype(int), T.astype(int)
    h1, h0 = h[1][rows, w], h[0][rows, w]
    h_fact = np.where(t == 1, h1, h0)
    q_fact = np.where(t == 1, q[1][rows, z], q[0][rows, z])
    return h1 - h0 + (2.0 * t - 1.0) * q_fact * (Y - h_fact)


class PLearner(EffectMethod):
    """P-learner (Sverdrup & Cui 2023) with binary proxies and ridge two-point bridges (CausalIDView App. E.2.2).

    Parameters:
        backbone: ``"extratrees"``, ``"mlp"`` or ``"xgboost"`` (:mod:`arena_effect_backbones`), used for
            every nuisance model and the final regression of Γ on X.
        folds: K of the nuisance cross-fitting (default 5).
        ridge: λ of the two-point bridge equations (0.01, App. E.2.2).
        propensity_clip: P̂(T=t | W, X) is clipped to [c, 1 − c] before 1/P̂ enters (TB) (0.01; a
            guard of this implementation, not stated in the paper).
        seed: random state of every model and of the fold split.

    After ``fit``: ``cate_`` (q,) τ̂ at ``dataset.X_query``; ``pseudo_outcome_`` (n,) Γ;
    ``outcome_bridge_`` t → (n × 2) and ``treatment_bridge_`` t → (n × 2), out of fold.
    """

    def __init__(self, backbone: str = "extratrees", folds: int = 5, ridge: float = RIDGE,
                 propensity_clip: float = 0.01, seed: int = 0) -> None:
        self.backbone = backbone
        self.folds = folds
        self.ridge = ridge
        self.propensity_clip = propensity_clip
        self.seed = seed

    @classmethod
    def preload(cls, backbone: str = "extratrees") -> None:
        """Import the backbone's library once per worker."""
        from arena_effect_backbones import make_classifier, make_regressor

        make_regressor(backbone)
        make_classifier(backbone)

    def _bridges(self, train: np.ndarray, test: np.ndarray, X: np.ndarray, Z: np.ndarray, W: np.ndarray,
                 T: np.ndarray, Y: np.ndarray, ybar: float) -> Tuple[Dict[int, np.ndarray], Dict[int, np.ndarray]]:
        """Fit the four nuisances on ``train``; the bridges of both arms at ``test`` (out of fold)."""
        from arena_effect_backbones import make_classifier, make_regressor

        bb, seed, c = self.backbone, int(self.seed), float(self.propensity_clip)
        Xtr, Xte = X[train], X[test]
        m = len(test)

        def col(value: float) -> np.ndarray:
            return np.full((m, 1), float(value))

        def proba(model: Any, *cols: np.ndarray) -> np.ndarray:
            return np.asarray(model.predict_proba(np.hstack((Xte,) + cols))[:, 1], dtype=float)

        outcome = make_regressor(bb, seed).fit(np.column_stack([Xtr, Z[train], T[train]]), Y[train])
        w_model = make_classifier(bb, seed).fit(np.column_stack([Xtr, Z[train], T[train]]), W[train])
        t_model = make_classifier(bb, seed).fit(np.column_stack([Xtr, W[train]]), T[train])
        z_model = make_classifier(bb, seed).fit(np.column_stack([Xtr, W[train], T[train]]), Z[train])
        h: Dict[int, np.ndarray] = {}
        q: Dict[int, np.ndarray] = {}
        e1 = {w: np.clip(proba(t_model, col(w)), c, 1.0 - c) for w in (0, 1)}  # P(T=1 | W=w, x)
        for t in (0, 1):
            # (OB): rows z, unknowns h_t(w); centred outcome, ȳ added back (rows of A sum to 1)
            mu = {z: np.asarray(outcome.predict(np.hstack([Xte, col(z), col(t)])), dtype=float) - ybar
                  for z in (0, 1)}
            pw = {z: proba(w_model, col(z), col(t)) for z in (0, 1)}
            h[t] = ridge_two_point(*two_point_system(pw, mu), self.ridge) + ybar
            # (TB): rows w, unknowns q_t(z); right-hand side 1 / P(T=t | W=w, x)
            pz = {w: proba(z_model, col(w), col(t)) for w in (0, 1)}
            inv = {w: 1.0 / (e1[w] if t == 1 else 1.0 - e1[w]) for w in (0, 1)}
            q[t] = ridge_two_point(*two_point_system(pz, inv), self.ridge)
        return h, q

    def fit(self, dataset: EffectDataset) -> "PLearner":
        """Estimate τ(x) at ``dataset.X_query`` from the context (X, Z, W, T, Y).

        Raises:
            ValueError: a proxy role absent or not one binary column with both values, an unknown
                backbone, ``folds`` outside [2, n], or a treatment arm too small for the folds.
        """
        from sklearn.model_selection import StratifiedKFold

        from arena_effect_backbones import make_regressor

        Z = binary_column(dataset, "treatment_proxy", who="P-learner")
        W = binary_column(dataset, "outcome_proxy", who="P-learner")
        X, T, Y = dataset.X, dataset.T.astype(float), dataset.Y
        n = len(Y)
        make_regressor(self.backbone)  # unknown backbone: ValueError before any fit
        if not 2 <= int(self.folds) <= n:
            raise ValueError(f"folds must be between 2 and n = {n}, got {self.folds}")
        if np.bincount(dataset.T, minlength=2).min() < int(self.folds):
            raise ValueError(f"each treatment arm needs >= folds = {self.folds} units (T counts "
                             f"{np.bincount(dataset.T, minlength=2).tolist()})")
        ybar = float(Y.mean())
        h = {t: np.empty((n, 2)) for t in (0, 1)}
        q = {t: np.empty((n, 2)) for t in (0, 1)}
        # stratified by T so every training fold has both arms for the classifiers
        splitter = StratifiedKFold(int(self.folds), shuffle=True, random_state=int(self.seed))
        for train, test in splitter.split(X, dataset.T):
            h_fold, q_fold = self._bridges(train, test, X, Z, W, T, Y, ybar)
            for t in (0, 1):
                h[t][test], q[t][test] = h_fold[t], q_fold[t]
        self.outcome_bridge_, self.treatment_bridge_ = h, q
        self.pseudo_outcome_ = pseudo_outcome(h, q, W, Z, T, Y)
        final = make_regressor(self.backbone, int(self.seed), final=True).fit(X, self.pseudo_outcome_)
        self.cate_ = np.asarray(final.predict(dataset.X_query), dtype=float)
        return self
