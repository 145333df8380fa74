"""SAM (Structural Agnostic Modeling) from ``cdt`` 0.6.0, wrapped as a CausalArena method.

SAM (Kalainathan et al. 2022, JMLR) trains one generator per variable whose inputs
pass through learned structural gates; a discriminator compares the generated
with the observed joint distribution (f-GAN loss), sparsity (``lambda1``) and
functional-complexity (``lambda2``) penalties and, from ``dagstart`` on, a
NOTEARS acyclicity penalty shape the gates. cdt runs it ``nruns`` times and
averages the gate probabilities of the last ``test_epochs`` epochs of each run.

Library call: ``cdt.causality.graph.SAM(**params, gpus=0, njobs=1).predict(df)``
with ``df = pandas.DataFrame(dataset.X, columns=dataset.columns)``; cdt
standardises every column itself (``sklearn.preprocessing.scale``).

Defaults: cdt 0.6.0's own ``SAM.__init__`` (lr 0.01, dlr 0.001, lambda1 10,
lambda2 0.001, nh 20, dnh 200, 3000 train + 1000 test epochs, full batch,
fgan loss, DAG penalty from half-way, l2-norm complexity, 2 + 2 hidden layers,
sigmoid-probability gates, 8 runs). The CausalArena paper (App. B.4) has no SAM
entry. The training sizes (``train_epochs``, ``test_epochs``, ``nruns``,
``batch_size``, ``nh``, ``dnh``) are parameters so that tests and small grids can
shrink them. SAM is slow on CPU: see the README for measured times.

Output convention (cdt ``SAM.predict`` docstring: "A[i, j] is the term of the
i-th variable for the j-th generator", and the code
``nx.relabel_nodes(nx.DiGraph(W), {idx: column})``): a weighted
``networkx.DiGraph`` whose edge i → j carries ``weight = W[i, j]``, the averaged
probability that variable i feeds the generator of j, i.e. row = parent. It is
read back with ``networkx.to_numpy_array(graph, nodelist=dataset.columns)``, so
the row/column order is ``dataset.columns`` whatever order networkx keeps
(:func:`sam_graph_to_scores`); ``edge_scores_`` is that matrix.

Thresholding (:func:`scores_to_dag`): the averaged probabilities are not a DAG
(cdt: "may need a thresholding"); both directions of a pair can exceed 0.5.
The arena keeps i → j when ``W[i, j] >= threshold`` (0.5), adding candidate
edges in order of decreasing score (ties by row, then column) and skipping an
edge that would close a directed cycle: the result is always a DAG and is the
plain threshold graph whenever that is acyclic. ``cycle_skipped_`` counts the
skipped edges (0 = no repair was needed).

Randomness: torch's global generator (weight init, gate sampling, batch
order) is seeded with ``random_state`` or ``dataset.metadata["seed"]`` inside
``torch.random.fork_rng``, so the caller's torch RNG state is left unchanged. CPU
only (``gpus=0``: the runs execute in-process, sequentially).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, List, Optional, Sequence, Tuple
from unittest import mock

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method


def import_cdt() -> Any:
    """Import ``cdt`` quietly and return the module.

    cdt warns "No GPU automatically detected ..." at import and replaces
    ``warnings.formatwarning`` with its own; both are undone here.
    """
    formatwarning = warnings.formatwarning
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import cdt
    finally:
        warnings.formatwarning = formatwarning
    return cdt


def sam_graph_to_scores(graph: Any, columns: Sequence[str]) -> np.ndarray:
    """Read cdt's weighted ``networkx.DiGraph`` back into a (d × d) score matrix in ``columns`` order.

    Args:
        graph: output of ``cdt SAM.predict``: nodes are column names, edge
            ``u → v`` with attribute ``weight`` = averaged gate probability that u
            is an input of v's generator.
        columns: the d column names, in ``dataset.X``'s column order.

    Returns:
        (d × d) float matrix ``W`` with ``W[i, j]`` = weight of ``columns[i] → columns[j]``
        (row = parent); 0 where there is no edge; diagonal set to 0.

    Raises:
        ValueError: the graph's nodes are not exactly ``columns``.
    """
    import networkx as nx

    columns = list(columns)
    if set(graph.nodes) != set(columns) or graph.number_of_nodes() != len(columns):
        raise ValueError(f"SAM graph nodes {sorted(map(str, graph.nodes))} do not match the columns {columns}")
    W = nx.to_numpy_array(graph, nodelist=columns, weight="weight", nonedge=0.0, dtype=float)
    np.fill_diagonal(W, 0.0)
    return W


def scores_to_dag(W: np.ndarray, threshold: float) -> Tuple[np.ndarray, int]:
    """Threshold edge scores into a DAG: strongest edges first, skipping any that closes a cycle.

    Args:
        W: (d × d) scores, ``W[i, j]`` for i → j.
        threshold: keep candidate edges with ``W[i, j] >= threshold`` (diagonal ignored).

    Returns:
        ``(A, skipped)``: (d × d) int8 DAG adjacency (row = parent) and the number of
        candidate edges skipped because they would have closed a directed cycle.
        Candidates are added by decreasing score, ties broken by (i, j) ascending, so the
        result is deterministic.
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"scores must be square (d × d), got shape {W.shape}")
    d = W.shape[0]
    A = np.zeros((d, d), dtype=np.int8)
    cand: List[Tuple[float, int, int]] = [
        (-W[i, j], i, j) for i in range(d) for j in range(d) if i != j and W[i, j] >= threshold]
    skipped = 0
    for _, i, j in sorted(cand):
        if _reaches(A, j, i):  # j ->* i already: i -> j would close a cycle
            skipped += 1
            continue
        A[i, j] = 1
    return A, skipped


def _reaches(A: np.ndarray, src: int, dst: int) -> bool:
    """Whether a directed path ``src →* dst`` exists in adjacency ``A`` (row = parent)."""
    seen = {src}
    stack = [src]
    while stack:
        u = stack.pop()
        if u == dst:
            return True
        for v in np.flatnonzero(A[u]):
            if v not in seen:
                seen.add(int(v))
                stack.append(int(v))
    return False


class SAM(Method):
    """Structural Agnostic Modeling (Kalainathan et al. 2022) from cdt 0.6.0.

    Parameters: those of ``cdt.causality.graph.SAM`` (same names and defaults,
    ``functional_complexity``, ``hlayers``, ``dhlayers``, ``sampling_type`` as
    in cdt), plus

        threshold: gate probability at or above which i → j is kept (then made acyclic,
            see :func:`scores_to_dag`).
        random_state: torch seed; ``None`` = ``dataset.metadata["seed"]`` (0 if absent).

    After ``fit``: ``adjacency_`` (d × d) DAG, row = parent; ``edge_scores_``
    (d × d) averaged gate probabilities (row = parent, diagonal 0);
    ``native_`` = ``edge_scores_``; ``cycle_skipped_`` edges dropped to stay acyclic.
    """

    output_kind = "dag"

    def __init__(self, lr: float = 0.01, dlr: float = 0.001, lambda1: float = 10.0,
                 lambda2: float = 0.001, nh: int = 20, dnh: int = 200,
                 train_epochs: int = 3000, test_epochs: int = 1000, batch_size: int = -1,
                 losstype: str = "fgan", dagloss: bool = True, dagstart: float = 0.5,
                 dagpenalization: float = 0.0, dagpenalization_increase: float = 0.01,
                 functional_complexity: str = "l2_norm", hlayers: int = 2, dhlayers: int = 2,
                 sampling_type: str = "sigmoidproba", linear: bool = False, nruns: int = 8,
                 threshold: float = 0.5, random_state: Optional[int] = None) -> None:
        self.lr = lr
        self.dlr = dlr
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.nh = nh
        self.dnh = dnh
        self.train_epochs = train_epochs
        self.test_epochs = test_epochs
        self.batch_size = batch_size
        self.losstype = losstype
        self.dagloss = dagloss
        self.dagstart = dagstart
        self.dagpenalization = dagpenalization
        self.dagpenalization_increase = dagpenalization_increase
        self.functional_complexity = functional_complexity
        self.hlayers = hlayers
        self.dhlayers = dhlayers
        self.sampling_type = sampling_type
        self.linear = linear
        self.nruns = nruns
        self.threshold = threshold
        self.random_state = random_state

    @classmethod
    def preload(cls) -> None:
        """Import torch and cdt once per worker (load time, not the first fit; paper §5.5)."""
        import torch  # noqa: F401

        import_cdt()
        importlib.import_module("cdt.causality.graph.SAM")

    def fit(self, dataset: Dataset) -> "SAM":
        """Run SAM on ``dataset.X`` (n × d, observational use: the mask is ignored).

        Raises:
            AssertionError: from cdt when every run produced NaN gate probabilities.
            Other library errors propagate unchanged.
        """
        import pandas as pd
        import torch

        import_cdt()
        # the package cdt.causality.graph re-exports the class SAM under the submodule's name
        sam_module = importlib.import_module("cdt.causality.graph.SAM")

        columns = [str(c) for c in dataset.columns]
        if len(set(columns)) != len(columns):  # cdt relabels nodes by name: names must be unique
            columns = [f"X{j}" for j in range(dataset.d)]
        df = pd.DataFrame(np.array(dataset.X, dtype=float, copy=True), columns=columns)
        seed = self.random_state if self.random_state is not None else dataset.metadata.get("seed", 0)
        model = sam_module.SAM(
            lr=self.lr, dlr=self.dlr, lambda1=self.lambda1, lambda2=self.lambda2, nh=self.nh, dnh=self.dnh,
            train_epochs=self.train_epochs, test_epochs=self.test_epochs, batch_size=self.batch_size,
            losstype=self.losstype, dagloss=self.dagloss, dagstart=self.dagstart,
            dagpenalization=self.dagpenalization, dagpenalization_increase=self.dagpenalization_increase,
            functional_complexity=self.functional_complexity, hlayers=self.hlayers, dhlayers=self.dhlayers,
            sampling_type=self.sampling_type, linear=self.linear, nruns=self.nruns,
            njobs=1, gpus=0, verbose=False)
        run_sam = sam_module.run_SAM

        def quiet_run(*args: Any, **kwargs: Any) -> Any:
            # cdt's SAM.predict does not pass its verbose flag on: run_SAM would draw a tqdm bar
            kwargs["verbose"] = False
            return run_sam(*args, **kwargs)

        with torch.random.fork_rng(devices=[]), mock.patch.object(sam_module, "run_SAM", quiet_run):
            torch.manual_seed(int(seed))
            graph = model.predict(df)

        W = sam_graph_to_scores(graph, columns)
        self.edge_scores_ = W
        self.native_ = W
        self.adjacency_, self.cycle_skipped_ = scores_to_dag(W, self.threshold)
        return self
