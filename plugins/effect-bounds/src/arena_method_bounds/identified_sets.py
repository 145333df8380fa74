"""Identified sets of τ(x) = E[Y(1) − Y(0) | X = x] for a binary treatment and outcome, as functions of
cell probabilities (CausalIDView App. B.5; derivations in the package README).

Cells are (q × 4) arrays of P(T=t, Y=y | x) (or | x, I=z) in the order of the joint class label
k = 2t + y: (t, y) = (0,0), (0,1), (1,0), (1,1). Each row must be a probability vector.

* :func:`manski_bounds` — worst case (Manski 1990), closed form;
* :func:`iv_bounds` — monotone IV: the Balke & Pearl (1997) response-type LP without defiers,
  solved by ``scipy.optimize.linprog`` (HiGHS), after :func:`project_iv` for cells outside the
  model (the L2 projection onto the monotone-IV polytope);
* :func:`msm_bounds` — Tan's marginal sensitivity model at level Γ, the sharp closed form for a
  binary outcome (Dorn & Guo 2022's normalised-weight program solved by hand).
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

#: the joint class label's cell order
CELL_ORDER = ((0, 0), (0, 1), (1, 0), (1, 1))


def check_cells(name: str, cells: np.ndarray, tol: float = 1e-8) -> np.ndarray:
    """``cells`` as a (q × 4) float array of probability vectors.

    Raises:
        ValueError: wrong shape, negative or non-finite entries, or rows not summing to 1 (within ``tol``);
            the message names ``name``.
    """
    arr = np.asarray(cells, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(f"{name} must be (q × 4) cell probabilities P(T, Y | x), got shape {arr.shape}")
    if not np.isfinite(arr).all() or (arr < -tol).any():
        raise ValueError(f"{name} has negative or non-finite cell probabilities")
    dev = np.abs(arr.sum(axis=1) - 1.0)
    if (dev > tol).any():
        raise ValueError(f"{name}: rows must sum to 1 (row {int(dev.argmax())} sums to {arr.sum(axis=1)[dev.argmax()]})")
    return arr


def manski_bounds(cells: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Worst-case bounds for Y ∈ {0, 1} (Manski 1990; CausalIDView App. B.5.1).

    E[Y(t) | x] = P(T=t, Y=1 | x) + P(T=1−t | x)·E[Y(t) | T=1−t, x], and the unobserved mean lies in [0, 1]:
    E[Y(1)|x] ∈ [P₁₁, P₁₁ + P(T=0|x)], E[Y(0)|x] ∈ [P₀₁, P₀₁ + P(T=1|x)], so
    τ(x) ∈ [P₁₁ − P₀₁ − P(T=1|x), P₁₁ − P₀₁ + P(T=0|x)] (width exactly 1).

    Args:
        cells: (q × 4) P(T, Y | x).

    Returns:
        (lower, upper), each (q,).

    Raises:
        ValueError: bad cells (:func:`check_cells`).
    """
    c = check_cells("cells", cells)
    diff = c[:, 3] - c[:, 1]
    return diff - (c[:, 2] + c[:, 3]), diff + (c[:, 0] + c[:, 1])


def msm_bounds(cells: np.ndarray, gamma: float) -> Tuple[np.ndarray, np.ndarray]:
    """Sharp MSM bounds at level Γ for Y ∈ {0, 1} (Tan 2006; Dorn & Guo 2022; CausalIDView App. B.5.3).

    With e = P(T=1|x), p₁ = P(Y=1|T=1,x): the weights W = 1/e(x,U) range over [a, b],
    a = 1 + (1/e − 1)/Γ, b = 1 + (1/e − 1)Γ, and E[W | T=1, x] = 1/e; hence
    E[Y(1)|x] ∈ [max(e p₁ a, 1 − e(1−p₁) b), min(e p₁ b, 1 − e(1−p₁) a)], written here as
    [max(P₁₁ + p₁(1−e)/Γ, 1 − P₁₀ − (1−p₁)(1−e)Γ), min(P₁₁ + p₁(1−e)Γ, 1 − P₁₀ − (1−p₁)(1−e)/Γ)];
    the same for Y(0) with 1 − e and p₀ = P(Y=1|T=0,x); τ ∈ [L₁ − U₀, U₁ − L₀]. At Γ = 1: p₁ − p₀.

    Args:
        cells: (q × 4) P(T, Y | x) with 0 < P(T=1|x) < 1.
        gamma: Γ ≥ 1.

    Returns:
        (lower, upper), each (q,).

    Raises:
        ValueError: bad cells, an arm with zero probability, or Γ < 1.
    """
    c = check_cells("cells", cells)
    if not (np.isfinite(gamma) and gamma >= 1.0):
        raise ValueError(f"gamma must be a sensitivity level >= 1, got {gamma}")
    e = c[:, 2] + c[:, 3]
    if ((e <= 0) | (e >= 1)).any():
        raise ValueError("msm_bounds: P(T=1|x) must lie strictly in (0, 1) at every query (an empty arm)")

    def arm(p_y1: np.ndarray, p_y0: np.ndarray, prop: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        mean = p_y1 / prop  # P(Y=1 | T=t, x)
        other = 1.0 - prop
        lo = np.maximum(p_y1 + mean * other / gamma, 1.0 - p_y0 - (1.0 - mean) * other * gamma)
        hi = np.minimum(p_y1 + mean * other * gamma, 1.0 - p_y0 - (1.0 - mean) * other / gamma)
        return lo, hi

    l1, u1 = arm(c[:, 3], c[:, 2], e)
    l0, u0 = arm(c[:, 1], c[:, 0], 1.0 - e)
    return l1 - u0, u1 - l0


# -- monotone IV --------------------------------------------------------------

#: response types (Y(0), Y(1), compliance) with compliance "n" never-taker, "c" complier, "a" always-taker
#: (no defiers: monotonicity T(1) ≥ T(0))
TYPES = tuple((y0, y1, c) for y0 in (0, 1) for y1 in (0, 1) for c in "nca")


def _design() -> Tuple[np.ndarray, np.ndarray]:
    """(8 × 12) map from type probabilities to cells [P(t,y|z=0) (4), P(t,y|z=1) (4)], and the (12,) effect."""
    A = np.zeros((8, len(TYPES)))
    for j, (y0, y1, c) in enumerate(TYPES):
        for z in (0, 1):
            t = 0 if c == "n" else 1 if c == "a" else z
            A[4 * z + 2 * t + (y1 if t else y0), j] = 1.0
    return A, np.array([y1 - y0 for y0, y1, _ in TYPES], dtype=float)


def iv_violation(cells_z0: np.ndarray, cells_z1: np.ndarray) -> np.ndarray:
    """(q,) the largest violation of the monotone-IV model's testable inequalities (0 when compatible).

    Without defiers the treated cells can only grow and the untreated cells only shrink with z
    (Balke & Pearl 1997; Imbens & Rubin 1997): P(1,y|z=1) ≥ P(1,y|z=0) and P(0,y|z=0) ≥ P(0,y|z=1),
    y ∈ {0, 1}. Given probability rows these four are also sufficient (README).
    """
    c0, c1 = np.asarray(cells_z0, dtype=float), np.asarray(cells_z1, dtype=float)
    gaps = np.column_stack([c0[:, 2] - c1[:, 2], c0[:, 3] - c1[:, 3], c1[:, 0] - c0[:, 0], c1[:, 1] - c0[:, 1]])
    return np.maximum(gaps.max(axis=1), 0.0)


def project_iv(cells_z0: np.ndarray, cells_z1: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The L2 projection of cell vectors onto the monotone-IV polytope {A q : q in the 12-type simplex}.

    Per row: minimise ‖A q − p̂‖² over q ≥ 0, Σ q = 1 (a convex QP: ``scipy.optimize.minimize``,
    SLSQP; the projected cells A q are unique though q is not); the returned cells are A q of the
    solution with q clipped at 0 and renormalised, so they are exactly representable and the LP of
    :func:`iv_bounds` is feasible on them. Rows already compatible (violation ≤ 1e-12) are returned as is.

    Args:
        cells_z0, cells_z1: (q × 4) estimated P(T, Y | x, I=z).

    Returns:
        (cells_z0, cells_z1) projected, each (q × 4).

    Raises:
        RuntimeError: the QP solver does not converge at a row (names the row).
    """
    from scipy.optimize import minimize

    A, _ = _design()
    c0 = check_cells("cells_z0", cells_z0).copy()
    c1 = check_cells("cells_z1", cells_z1).copy()
    bad = np.flatnonzero(iv_violation(c0, c1) > 1e-12)
    m = A.shape[1]
    for i in bad:
        target = np.concatenate([c0[i], c1[i]])

        def loss(q: np.ndarray, target: np.ndarray = target) -> float:
            return float(np.sum((A @ q - target) ** 2))

        def grad(q: np.ndarray, target: np.ndarray = target) -> np.ndarray:
            return 2.0 * A.T @ (A @ q - target)

        res = minimize(loss, np.full(m, 1.0 / m), jac=grad, method="SLSQP", bounds=[(0.0, 1.0)] * m,
                       constraints=[{"type": "eq", "fun": lambda q: np.sum(q) - 1.0, "jac": lambda q: np.ones(m)}],
                       options={"ftol": 1e-15, "maxiter": 500})
        if not res.success:
            raise RuntimeError(f"project_iv: the projection QP failed at row {i}: {res.message}")
        q = np.clip(res.x, 0.0, None)
        p = A @ (q / q.sum())
        c0[i], c1[i] = p[:4], p[4:]
    return c0, c1


def iv_bounds(cells_z0: np.ndarray, cells_z1: np.ndarray, project: bool = True
              ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Monotone-IV bounds on τ(x) (Balke & Pearl 1997 with monotonicity; CausalIDView App. B.5.2).

    Per query: min and max of Σ_j q_j (Y₁ − Y₀)_j over type distributions q ≥ 0 with A q = the observed
    cells of both instrument arms (``scipy.optimize.linprog``, HiGHS). Closed form of the same LP
    (README): τ ∈ [P(1,1|z=1) − P(0,1|z=0) − P(T=1|z=0), P(1,1|z=1) − P(0,1|z=0) + P(T=0|z=1)],
    width 1 − (complier share).

    Args:
        cells_z0, cells_z1: (q × 4) P(T, Y | x, I=z).
        project: project incompatible rows first (:func:`project_iv`); if False they raise.

    Returns:
        (lower, upper, projected): (q,) each; ``projected`` is a bool mask of the projected rows.

    Raises:
        ValueError: bad cells, or (``project=False``) cells outside the monotone-IV model, or an LP failure.
    """
    from scipy.optimize import linprog

    c0 = check_cells("cells_z0", cells_z0)
    c1 = check_cells("cells_z1", cells_z1)
    if c0.shape != c1.shape:
        raise ValueError(f"cells_z0 and cells_z1 differ in shape: {c0.shape} vs {c1.shape}")
    projected = iv_violation(c0, c1) > 1e-12
    if projected.any():
        if not project:
            raise ValueError(f"cells violate the monotone-IV model at {int(projected.sum())} row(s) "
                             f"(first: {int(np.flatnonzero(projected)[0])}); pass project=True")
        c0, c1 = project_iv(c0, c1)
    A, effect = _design()
    q = c0.shape[0]
    lower, upper = np.empty(q), np.empty(q)
    for i in range(q):
        b = np.concatenate([c0[i], c1[i]])
        lo = linprog(effect, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
        hi = linprog(-effect, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
        if lo.status != 0 or hi.status != 0:
            raise ValueError(f"iv_bounds: the LP failed at row {i}: {lo.message if lo.status else hi.message}")
        lower[i], upper[i] = lo.fun, -hi.fun
    return lower, upper, projected
