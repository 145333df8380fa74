"""A tiny effect world and effect methods for the core's effect-task tests.

Workers import this module by its factory path (``effect_toys:LinearSLearner``), so
tests pass ``env={"PYTHONPATH": TESTS_DIR}`` to the runner.

The world (known answer): X ~ N(0, I_3), U ∈ {−1, +1}, T ~ Bernoulli(sigmoid(U)),
Y = X₀ + 2U + τ(X) T + 0.1 ε with τ(x) = 1 + x₁. The back-door view keeps U; the
hidden-confounder view does not, so a linear regression on (X, T, T·X) is biased there
by the confounding E[U | T=1] − E[U | T=0] ≠ 0, and unbiased with U.
"""

from __future__ import annotations

import hashlib
import os

import attrs
import numpy as np

from arena_task_effect.effect import EffectDataset, EffectInstance, EffectMethod, EffectOracle
from causalarena.family import Family
from causalarena.protocol import cell_seed
from causalarena.records import MethodInfo

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


class ToyWorld(EffectInstance):
    """One world, views ``bd`` (adds the confounder), ``hc`` (nothing) and ``fd`` (adds a mediator)."""

    def __init__(self, scm_id: str = "toy-0", family: str = "toy_effect", n_context: int = 400, n_query: int = 50):
        self.family, self.scm_id = family, scm_id
        self.splits = ("bd", "hc", "fd")
        self.n_replicates = 1
        self.factors = {"world": scm_id}
        self.n_context, self.n_query = n_context, n_query

    def _units(self, replicate: int):
        seed = cell_seed(self.family, self.scm_id, "world", replicate)
        rng = np.random.default_rng(seed)
        N = self.n_context + self.n_query
        X = rng.normal(size=(N, 3))
        U = rng.choice([-1.0, 1.0], size=N)
        T = (rng.uniform(size=N) < 1 / (1 + np.exp(-U))).astype(np.int8)
        tau = 1.0 + X[:, 1]
        M = T + 0.5 * rng.normal(size=N)
        Y = X[:, 0] + 2.0 * U + tau * T + 0.1 * rng.normal(size=N)
        return seed, X, U, T, M, Y, tau

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        if split not in self.splits:
            raise ValueError(f"unknown view {split!r}")
        seed, X, U, T, M, Y, _ = self._units(replicate)
        c, q = slice(0, n or self.n_context), slice(self.n_context, None)
        aux = {"bd": {"confounder": U}, "fd": {"mediator": M}, "hc": {}}[split]
        return EffectDataset(X=X[c], T=T[c], Y=Y[c], X_query=X[q], query_ids=np.arange(len(X))[q],
                             unit_ids=np.arange(len(X))[c], view=split,
                             auxiliary={r: a[c] for r, a in aux.items()},
                             auxiliary_query={r: a[q] for r, a in aux.items()},
                             metadata={"seed": seed, "family": self.family, "scm_id": self.scm_id, "split": split})

    def oracle(self, split, replicate, n=None):
        _, X, U, T, M, Y, tau = self._units(replicate)
        q = slice(self.n_context, None)
        return EffectOracle(query_ids=np.arange(len(X))[q], tau=tau[q])

    def fingerprint(self):
        return hashlib.sha256(f"toy-effect-1/{self.scm_id}".encode()).hexdigest()[:16]


class LinearSLearner(EffectMethod):
    """OLS of Y on (V, T, T·X) with V = X plus the view's confounder; τ̂(x) = coefficient of T + T·X."""

    def fit(self, dataset):
        roles = [r for r in ("confounder",) if r in dataset.auxiliary]
        V = dataset.features(roles)
        X = dataset.X
        T = dataset.T.astype(float)[:, None]
        design = np.hstack([np.ones((dataset.n, 1)), V, T, T * X])
        coef = np.linalg.lstsq(design, dataset.Y, rcond=None)[0]
        p = X.shape[1]
        b_t, b_tx = coef[1 + V.shape[1]], coef[2 + V.shape[1]:2 + V.shape[1] + p]
        self.cate_ = b_t + dataset.X_query @ b_tx
        return self


class ReturnsNaN(EffectMethod):
    """τ̂ with a NaN at the first query: invalid output."""

    def fit(self, dataset):
        cate = np.zeros(dataset.q)
        cate[0] = np.nan
        self.cate_ = cate
        return self


class WrongLength(EffectMethod):
    """One estimate too few."""

    def fit(self, dataset):
        self.cate_ = np.zeros(dataset.q - 1)
        return self


class MisShaped(EffectMethod):
    """``cate_`` (or, with ``bounds=True``, ``lower_``) of shape ``(q * rows_per_query, cols)``: a (q, 2)
    answer, or a (q/2, 2) one whose ravel has exactly q entries."""

    def __init__(self, rows_per_query=1.0, cols=2, bounds=False):
        self.rows_per_query, self.cols, self.bounds = rows_per_query, cols, bounds

    def fit(self, dataset):
        shape = (int(dataset.q * self.rows_per_query), self.cols)
        if self.bounds:
            self.lower_, self.upper_ = np.zeros(shape), np.ones(dataset.q)
        else:
            self.cate_ = np.zeros(shape)
        return self


class RecordsInput(EffectMethod):
    """Writes the names of the arrays and attributes it received to ``$EFFECT_TOY_LOG``; τ̂ = 0."""

    def fit(self, dataset):
        with open(os.environ["EFFECT_TOY_LOG"], "a") as fh:
            fh.write(",".join(sorted(a.name for a in attrs.fields(type(dataset)))) + "\n")
        self.cate_ = np.zeros(dataset.q)
        return self


def effect_info(name: str, cls: str, **kw) -> MethodInfo:
    """An effect MethodInfo whose factory lives in this module."""
    return MethodInfo(name=name, factory=f"effect_toys:{cls}", task="effect", output_kind="effect", **kw)


class LeakyWorld(ToyWorld):
    """Hands the oracle τ to methods as an 'instrument' column: the conformance kit must catch it."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        ds = super().dataset(split, replicate, standardise, protocol, n)
        tau = self.oracle(split, replicate).tau
        ds.auxiliary_query = {**ds.auxiliary_query, "instrument": tau[:, None]}
        ds.auxiliary = {**ds.auxiliary, "instrument": np.zeros((ds.n, 1))}
        return ds


class ToyEffectFamily(Family):
    """A family of one :class:`ToyWorld` (``leaky=True``: a :class:`LeakyWorld`)."""

    name = "toy_effect"

    def __init__(self, leaky=False):
        super().__init__(leaky=leaky)
        self.leaky = leaky

    def instances(self):
        return [(LeakyWorld if self.leaky else ToyWorld)()]


# -- a discovery cell beside the effect cells (a mixed grid): the chain 0 -> 1 -> 2 and a method that finds it --

CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.int8)


class Chain:
    """A discovery method returning the chain 0 → 1 → 2 (the truth of :class:`ChainInstance`)."""

    def fit(self, dataset):
        self.adjacency_ = CHAIN.copy()
        return self

    def prediction(self, kind="dag"):
        from causalarena.data import Prediction

        return Prediction(adjacency=self.adjacency_, kind="dag")


def info(name: str, cls: str, **kw) -> MethodInfo:
    """A discovery method of this module."""
    return MethodInfo(name=name, factory=f"effect_toys:{cls}", **kw)


class ChainInstance:
    """A fixed 3-variable linear chain 0 → 1 → 2 with uniform noise (a discovery instance)."""

    task = "discovery"
    factors = {"graph": "chain"}

    def __init__(self, scm_id: str = "chain-0", family: str = "toy", splits=("obs", "obs_int"), n_replicates: int = 1):
        self.scm_id, self.family, self.splits, self.n_replicates = scm_id, family, tuple(splits), n_replicates

    def true_adjacency(self):
        return CHAIN

    def fingerprint(self):
        return hashlib.sha256(f"chain:{self.scm_id}".encode()).hexdigest()[:16]

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        from causalarena.data import Dataset

        seed = cell_seed(self.family, self.scm_id, split, replicate)
        e = np.random.default_rng(seed % (2 ** 32)).uniform(-1, 1, size=(n or 200, 3))
        x1 = 0.8 * e[:, 0] + e[:, 1]
        X = np.column_stack([e[:, 0], x1, -0.7 * x1 + e[:, 2]])
        X = (X - X.mean(0)) / X.std(0) if standardise else X
        mask, regime = np.zeros(X.shape, dtype=bool), np.full(len(X), -1)
        if split == "obs_int":  # the last 20 rows intervene on X0
            mask[-20:, 0], regime[-20:] = True, 0
        return Dataset(X=X, columns=["X0", "X1", "X2"], intervention_mask=mask, regime=regime, true_adjacency=CHAIN,
                       metadata={"family": self.family, "scm_id": self.scm_id, "split": split,
                                 "replicate": replicate, "seed": seed})


class ChainFamily(Family):
    """A discovery family of two chain instances (family ``toy``)."""

    name = "toy"

    def __init__(self, n=200):
        super().__init__(n=n)

    def instances(self):
        return [ChainInstance("chain-0"), ChainInstance("chain-1")]
