"""Stein estimators of the score ∇ log p(x) and of its Jacobian (the Hessian of log p).

Own code, because no installable package provides them here (dodiscover, which
has them, is not on the registry) and they are a few lines of linear algebra.
Written from the equations of the papers, with the kernel conventions of the
papers' reference code (RBF kernel with the median heuristic, divided by the
bandwidth):

* Li & Turner (2018), "Gradient estimators for implicit models", Stein gradient
  estimator: with the Gram matrix ``K[i, k] = k(x_i, x_k)`` and
  ``⟨∇, K⟩[i, j] = Σ_k ∂k(x_i, x_k)/∂x_k^j``, the score at the samples is
  ``Ĝ = −(K + η_G I)⁻¹ ⟨∇, K⟩``  (n × d).
* Rolland et al. (2022), "Score matching enables causal discovery of nonlinear
  additive noise models", Eq. (8)–(9): Stein's identity applied to the score
  gives the Hessian column ``c``
  ``Ĥ[:, :, c] = −Ĝ[:, c] ∘ Ĝ + (K + η_H I)⁻¹ ⟨∇∇_c, K⟩`` with
  ``⟨∇_j∇_c, K⟩[i] = Σ_k ∂²k(x_i, x_k)/∂x_k^j ∂x_k^c``; its diagonal
  ``Ĥ_jj`` is what SCORE uses.

For the RBF kernel ``k(x, y) = exp(−‖x − y‖² / (2s²)) / s``:
``∂k/∂y^j = (x − y)_j k / s²`` and
``∂²k/∂y^j∂y^c = ((x − y)_j (x − y)_c / s⁴ − δ_jc / s²) k``.
The sums over ``k`` are expanded into matrix products (no n × n × d array), so
memory is O(n² + nd) and d = 100, n = 1,000 fits in a few hundred MB.
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np


def _squared_distances(X: np.ndarray) -> np.ndarray:
    """(n × n) squared Euclidean distances between the rows of ``X`` (n × d), clipped at 0."""
    sq = np.einsum("ij,ij->i", X, X)
    D2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(D2, 0.0, out=D2)
    np.fill_diagonal(D2, 0.0)
    return D2


def kernel_width(X: np.ndarray) -> float:
    """Median heuristic: the median of all n² pairwise distances (diagonal zeros included,
    as in Rolland et al.'s reference code). A constant table gives 1.0."""
    s = float(np.median(np.sqrt(_squared_distances(X))))
    return s if s > 0 else 1.0


class SteinKernel:
    """The RBF Gram matrix of a sample and the factorised ridge systems the estimators solve.

    Args:
        X: (n × d) samples of p(x).
        s: kernel bandwidth; ``None`` → :func:`kernel_width`.

    Attributes:
        K: (n × n) Gram matrix ``exp(−‖x_i − x_k‖² / (2s²)) / s``.
        row_sums: (n,) ``K 1``.
        KX: (n × d) ``K X``.
    """

    def __init__(self, X: np.ndarray, s: Optional[float] = None) -> None:
        self.X = np.asarray(X, dtype=float)
        self.n, self.d = self.X.shape
        self.s = kernel_width(self.X) if s is None else float(s)
        self.K = np.exp(-_squared_distances(self.X) / (2.0 * self.s**2)) / self.s
        self.row_sums = self.K.sum(axis=1)
        self.KX = self.K @ self.X
        self._factors: dict = {}

    def solve(self, eta: float, B: np.ndarray) -> np.ndarray:
        """``(K + η I)⁻¹ B`` for B (n × m), with one Cholesky factorisation per η (K + ηI is
        positive definite for η > 0)."""
        from scipy.linalg import cho_factor, cho_solve

        key = float(eta)
        if key not in self._factors:
            self._factors[key] = cho_factor(self.K + key * np.eye(self.n), lower=True, check_finite=False)
        return cho_solve(self._factors[key], B, check_finite=False)

    def grad_K(self) -> np.ndarray:
        """(n × d) ``⟨∇, K⟩[i, j] = Σ_k (x_i − x_k)_j K[i, k] / s²``."""
        return (self.X * self.row_sums[:, None] - self.KX) / self.s**2

    def score(self, eta_G: float) -> np.ndarray:
        """(n × d) Stein gradient estimate Ĝ of ∇ log p at the samples (Li & Turner 2018)."""
        return -self.solve(eta_G, self.grad_K())

    def hessian_diagonal(self, eta_G: float, eta_H: float) -> np.ndarray:
        """(n × d) Stein estimate of diag ∇² log p at the samples (Rolland et al. 2022, Eq. 9).

        ``⟨∇_j², K⟩[i] = Σ_k ((x_i − x_k)_j² / s⁴ − 1 / s²) K[i, k]``, expanded as
        ``(x_ij² R_i − 2 x_ij (KX)_ij + (K X²)_ij) / s⁴ − R_i / s²`` with ``R = K 1``.
        """
        G = self.score(eta_G)
        X, R, s = self.X, self.row_sums, self.s
        lap = (X**2 * R[:, None] - 2.0 * X * self.KX + self.K @ (X**2)) / s**4 - R[:, None] / s**2
        return -(G**2) + self.solve(eta_H, lap)

    def hessian_column(self, c: int, G: np.ndarray, eta_H: float) -> np.ndarray:
        """(n × d) Stein estimate of ``∂² log p / ∂x_c ∂x_j`` for every j (one column of the Hessian).

        Args:
            c: the column (variable) index.
            G: (n × d) score estimate from :meth:`score`.
            eta_H: ridge of the Hessian system.

        ``Σ_k (x_i − x_k)_c (x_i − x_k)_j K[i, k]`` expands to
        ``x_ic x_ij R_i − x_ic (KX)_ij − x_ij (KX)_ic + (K (x_c ∘ X))_ij``.
        """
        X, R, s = self.X, self.row_sums, self.s
        xc = X[:, c]
        cross = (xc[:, None] * X * R[:, None] - xc[:, None] * self.KX - X * self.KX[:, [c]]
                 + self.K @ (xc[:, None] * X))
        B = cross / s**4
        B[:, c] -= R / s**2
        return -G[:, [c]] * G + self.solve(eta_H, B)


def hessian_diagonal(X: np.ndarray, eta_G: float = 0.001, eta_H: float = 0.001) -> np.ndarray:
    """(n × d) Stein estimate of the Hessian diagonal of log p at the rows of ``X`` (n × d)."""
    return SteinKernel(X).hessian_diagonal(eta_G, eta_H)


def hessian(X: np.ndarray, eta_G: float = 0.001, eta_H: float = 0.001) -> np.ndarray:
    """(n × d × d) Stein estimate of the full Hessian of log p; ``H[:, c, j] = ∂²/∂x_c∂x_j``.

    DAS needs one Hessian of the whole table (Montagna et al. 2023, Alg. 1): the row of each
    leaf is read when the leaf is removed. Cost O(n² d²) for the products plus one
    factorisation per η.
    """
    ker = SteinKernel(X)
    G = ker.score(eta_G)
    return np.stack([ker.hessian_column(c, G, eta_H) for c in range(ker.d)], axis=1)


def score_order(X: np.ndarray, eta_G: float = 0.001, eta_H: float = 0.001) -> List[int]:
    """SCORE's topological order (Rolland et al. 2022, Alg. 1; DAS's first step).

    Repeat d − 1 times on the not yet ordered columns: estimate diag ∇² log p of their
    marginal and take as leaf the column whose Hessian diagonal has the smallest variance
    over the samples (Lemma 1: in an additive Gaussian noise model, ``∂² log p / ∂x_j²`` is
    constant, ``−1/σ_j²``, iff j is a leaf). The last column left is a root.

    Args:
        X: (n × d) samples.

    Returns:
        The order from root to leaf, a permutation of 0..d−1 (list of d ints).
    """
    X = np.asarray(X, dtype=float)
    active = list(range(X.shape[1]))
    leaves: List[int] = []
    while len(active) > 1:
        spread = hessian_diagonal(X[:, active], eta_G, eta_H).var(axis=0)
        leaves.append(active.pop(int(np.argmin(spread))))
    leaves.extend(active)
    return leaves[::-1]
