"""Methods with injected faults and a tiny fixed instance, for runner tests.

Workers import this module by its factory path (``fault_methods:Raises``), so
tests pass ``env={"PYTHONPATH": TESTS_DIR}`` to the runner.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

from causalarena.data import Dataset
from causalarena.family import Instance
from causalarena.method import Method
from causalarena.records import MethodInfo

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.int8)  # 0 -> 1 -> 2


class Chain(Method):
    """Returns the chain 0 → 1 → 2 (the truth of :class:`ChainInstance`)."""

    def __init__(self, sleep: float = 0.0):
        self.sleep = sleep

    def fit(self, dataset):
        if self.sleep:
            time.sleep(self.sleep)
        self.adjacency_ = CHAIN.copy()
        return self


class Reversed(Method):
    """Returns 2 → 1 → 0: SHD 2 against the chain (case M3)."""

    def fit(self, dataset):
        self.adjacency_ = CHAIN.T.copy()
        return self


class Empty(Method):
    """Returns the empty graph (degenerate, case I9); the benchmark's fast method."""

    def fit(self, dataset):
        self.adjacency_ = np.zeros((dataset.d, dataset.d))
        return self


class UndirectedChain(Method):
    """A CPDAG 0 — 1 — 2 (both directions set); oriented by the runner."""

    output_kind = "cpdag"

    def fit(self, dataset):
        self.adjacency_ = (CHAIN | CHAIN.T).copy()
        return self


class Raises(Method):
    def fit(self, dataset):
        raise ValueError("boom in fit: column 'X1' is weird")


class Sleeps(Method):
    """Sleeps ``seconds`` (case I10), optionally with a child process in its group."""

    def __init__(self, seconds: float = 10.0, child: bool = False):
        self.seconds = seconds
        self.child = child

    def fit(self, dataset):
        if self.child:
            p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            with open(os.environ["FAULT_CHILD_PIDFILE"], "w") as fh:
                fh.write(str(p.pid))
        time.sleep(self.seconds)
        self.adjacency_ = CHAIN.copy()
        return self


class Exits(Method):
    """Kills its own process (case I11)."""

    def fit(self, dataset):
        os._exit(1)


class AllocatesAtOnce(Method):
    """One ``mb`` MB allocation (2 GB by default) — hits the worker's rlimit backstop (RLIMIT_DATA)."""

    def __init__(self, mb: int = 2048):
        self.mb = mb

    def fit(self, dataset):
        self.blob_ = np.ones(self.mb * 1024 * 1024 // 8)
        self.adjacency_ = CHAIN.copy()
        return self


class AllocatorRefuses(Method):
    """Raises what torch's CPU allocator raises when ``malloc`` fails (a RuntimeError, not a MemoryError)."""

    def fit(self, dataset):
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:118] data. DefaultCPUAllocator: not enough memory: "
                           "you tried to allocate 3200000000 bytes.")


class AllocatesBriefly(Method):
    """Touches ``mb`` MB at once and frees it before returning: faster than the runner's 0.1 s poll."""

    def __init__(self, mb: int = 300):
        self.mb = mb

    def fit(self, dataset):
        blob = np.ones(self.mb * 1024 * 1024 // 8)
        del blob
        self.adjacency_ = CHAIN.copy()
        return self


class AllocatesGradually(Method):
    """Touches memory 50 MB at a time up to ``mb`` MB — caught by the RSS monitor."""

    def __init__(self, mb: int = 1200):
        self.mb = mb

    def fit(self, dataset):
        blocks = []
        for _ in range(self.mb // 50):
            blocks.append(np.ones(50 * 1024 * 1024 // 8))
            time.sleep(0.02)
        self.adjacency_ = CHAIN.copy()
        return self


class ReturnsNaN(Method):
    def fit(self, dataset):
        a = CHAIN.astype(float)
        a[0, 2] = np.nan
        self.adjacency_ = a
        return self


class ReturnsCycle(Method):
    """0 → 1 → 2 → 0 in a promised DAG (case I8)."""

    def fit(self, dataset):
        a = CHAIN.copy()
        a[2, 0] = 1
        self.adjacency_ = a
        return self


class ReturnsTwoCycle(Method):
    """0 ⇄ 1 in a promised DAG (case M6)."""

    def fit(self, dataset):
        a = CHAIN.copy()
        a[1, 0] = 1
        self.adjacency_ = a
        return self


class Prints(Method):
    """Writes to stdout from Python and from the fd level, then returns the chain."""

    def fit(self, dataset):
        print("{not json} library chatter")
        os.write(1, b"raw fd-1 chatter\n")
        self.adjacency_ = CHAIN.copy()
        return self


class UsesSeed(Method):
    """Edge scores from the global numpy RNG (seeded by the worker per fit)."""

    def fit(self, dataset):
        self.adjacency_ = CHAIN.copy()
        self.edge_scores_ = np.random.random((dataset.d, dataset.d))
        return self


class Interventional(Chain):
    pass


def info(name: str, cls: str, **kw) -> MethodInfo:
    """A MethodInfo whose factory lives in this module."""
    return MethodInfo(name=name, factory=f"fault_methods:{cls}", **kw)


class ChainInstance(Instance):
    """A fixed 3-variable chain 0 → 1 → 2 with uniform noise (deterministic per cell)."""

    def __init__(self, scm_id: str = "chain-0", family: str = "toy", n: int = 200,
                 splits=("obs", "obs_int"), n_replicates: int = 2, X=None, columns=None, truth=None):
        self.family = family
        self.scm_id = scm_id
        self.splits = tuple(splits)
        self.n_replicates = n_replicates
        self.factors = {"graph": "chain"}
        self._n = n
        self._X = X
        self._columns = columns
        self._truth = CHAIN if truth is None else truth
        self.built = []

    def true_adjacency(self):
        return self._truth

    def fingerprint(self):
        """Cheap identity (the data are a pure function of these fields)."""
        import hashlib
        payload = repr((self.scm_id, self._n, None if self._X is None else np.asarray(self._X).tobytes(),
                        np.asarray(self._truth).tobytes()))
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        from causalarena.protocol import cell_seed

        self.built.append((split, replicate))
        seed = cell_seed(self.family, self.scm_id, split, replicate)
        if self._X is not None:
            X = np.asarray(self._X, dtype=float)
        else:
            rng = np.random.default_rng(seed % (2 ** 32))
            n_rows = n or self._n
            e = rng.uniform(-1, 1, size=(n_rows, 3))
            x0 = e[:, 0]
            x1 = 0.8 * x0 + e[:, 1]
            x2 = -0.7 * x1 + e[:, 2]
            X = np.column_stack([x0, x1, x2])
            if standardise:
                X = (X - X.mean(0)) / X.std(0)
        cols = self._columns or [f"X{i}" for i in range(X.shape[1])]
        mask = np.zeros(X.shape, dtype=bool)
        regime = np.full(X.shape[0], -1)
        if split == "obs_int":
            mask[-20:, 0] = True
            regime[-20:] = 0
        return Dataset(X=X, columns=cols, intervention_mask=mask, regime=regime,
                       true_adjacency=self._truth,
                       metadata={"family": self.family, "scm_id": self.scm_id, "split": split,
                                 "replicate": replicate, "seed": seed})


class NoTruth(Method):
    """Fails if the worker was given the true graph."""

    def fit(self, dataset):
        if dataset.true_adjacency is not None:
            raise AssertionError("the worker saw the true adjacency")
        self.adjacency_ = CHAIN.copy()
        return self


def resume_grid():
    """The grid of the SIGKILL/resume test: 3 instances × 2 splits × 2 replicates × 5 methods."""
    from causalarena.runner import make_cells

    methods = [info("slow_chain", "Chain", params={"sleep": 0.15}),
               info("raises", "Raises"),
               info("reversed", "Reversed"),
               info("undirected", "UndirectedChain", output_kind="cpdag"),
               info("interventional", "Interventional", supports_interventions=True)]
    instances = [ChainInstance(f"chain-{i}") for i in range(3)]
    return make_cells(instances, methods)


class TorchInFit(Method):
    """Imports torch inside ``fit`` (heavy imports belong there) and multiplies matrices."""

    def fit(self, dataset):
        import torch

        x = torch.randn(400, 400)
        self.native_ = float((x @ x).sum())
        self.adjacency_ = CHAIN.copy()
        return self


class Stateful(Method):
    """Keeps a counter between fits: returns edge 0→1 on its first fit, 1→2 afterwards."""

    def __init__(self):
        self._calls = 0

    def fit(self, dataset):
        self._calls += 1
        a = np.zeros((dataset.d, dataset.d))
        a[(0, 1) if self._calls == 1 else (1, 2)] = 1
        self.adjacency_ = a
        return self


class NeedsR(Method):
    """A preflight that finds R missing: status ``env_error`` (at fit or at load)."""

    def __init__(self, at_load: bool = False):
        self.at_load = at_load
        if at_load:
            from causalarena.method import MethodEnvironmentError

            raise MethodEnvironmentError("Rscript not found on PATH: install R and the R package 'pcalg'")

    def fit(self, dataset):
        from causalarena.method import MethodEnvironmentError

        raise MethodEnvironmentError("R package 'pcalg' is not installed")


class ReportsEnv(Method):
    """Encodes the worker's ``ARENA_TEST_MARK`` env var in the graph: 0 → 1 when set."""

    def fit(self, dataset):
        a = np.zeros((dataset.d, dataset.d))
        if os.environ.get("ARENA_TEST_MARK"):
            a[0, 1] = 1
        self.adjacency_ = a
        return self


_PRELOADED = []


class PreloadsParams(Method):
    """``preload(checkpoint=...)`` receives the run's parameter; ``fit`` reports what was preloaded."""

    loaded: list = []

    def __init__(self, checkpoint="none", alpha=0.1):
        self.checkpoint, self.alpha = checkpoint, alpha

    @classmethod
    def preload(cls, checkpoint="none"):
        cls.loaded.append(checkpoint)

    def fit(self, dataset):
        a = np.zeros((dataset.d, dataset.d))
        if type(self).loaded == [self.checkpoint]:  # preloaded once, with this run's checkpoint
            a[0, 1] = 1
        self.adjacency_ = a
        return self


class Preloads(Method):
    """``preload`` takes 0.3 s (a heavy import); ``fit`` returns 0 → 1 only if it ran first."""

    @classmethod
    def preload(cls):
        time.sleep(0.3)
        _PRELOADED.append(True)

    def fit(self, dataset):
        a = np.zeros((dataset.d, dataset.d))
        if _PRELOADED:
            a[0, 1] = 1
        self.adjacency_ = a
        return self


def stored_runs(db: str) -> int:
    """Rows in the ``runs`` table of the store at ``db`` (0 while it does not exist or cannot be read)."""
    import sqlite3

    try:
        con = sqlite3.connect(db, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0
