"""Subnetwork sampling and SERGIO simulation, through avici's own code.

Subnetwork (:func:`sample_subnetwork`): avici's ``_module_extraction`` (AVICI, Lorch et al.
2022, its GRN domain: the modular subnetwork extraction of Marbach et al. 2009, "Generating
realistic in silico gene networks for performance assessment of reverse engineering methods",
J. Comput. Biol. 16(2), as GeneNetWeaver does it) with AVICI's settings ``topk = 0.2``,
``at_least_n_regulators = 1``: a seed regulator, then d − 1 genes each drawn among the top 20 %
neighbours by modularity of the undirected skeleton; the result is the source's induced
subgraph on those genes, self-loops removed, and cycles broken by removing the edges that
close them in a DFS from a random start (SERGIO simulates a DAG level by level). Columns are
then put in a random order (as avici's ``Ecoli``/``Yeast`` graph models permute), named by
their genes.

Mechanism (:func:`draw_parameters`), one draw per instance, from the ranges of AVICI's
released GRN training configuration ``avici/config/train/neurips-grn.yaml`` (the regime of
its pretrained GRN model, Lorch et al. 2022, App. on the GRN domain), sampled as avici's
``GRNSergio`` samples them:

* interaction strengths ``|k_uj| ~ U[1, 5]``, sign + with probability ``p_u ~ Beta(a, a)`` per
  regulator u, ``a`` drawn from {1, 0.5};
* master-regulator basal production rates ``b ~ U[1, 3]`` per gene and cell type; 5 cell
  types;
* Hill coefficient ∈ {1.9, 2.0, 2.1}, decay ∈ {0.7, 0.8, 0.9}, noise scale ∈ {0.9, 1.0, 1.1}
  (one value each per instance); SERGIO's ``dpd`` noise (independent production and decay
  noise, Dibaeinia & Sinha 2020, STAR Methods), ``dt = 0.01``, ``sampling_state = 15``,
  ``safety_steps = 10`` (avici's ``GRNSergio`` defaults);
* technical noise "10x-chromium" (``avici/synthetic/sergio/noise_config.yaml``, SERGIO's
  supplement): outlier genes, library size, dropout, each setting drawn from the file's list.

Simulation (:func:`simulate_cells`): avici's ``Sergio`` — the chemical Langevin equation of
SERGIO (Dibaeinia & Sinha 2020, STAR Methods: production by Hill functions of the regulators,
linear decay) integrated to steady state per cell type, cells sampled as snapshots; a
**knockout** sets the gene's production rate to 0 from a zero initial concentration, so its
expression is exactly 0 in every knocked-out cell (clean and with technical noise: outlier,
library-size and dropout factors multiply, and Poisson(0) = 0). Output ``"counts"`` (default,
AVICI's GRN regime): the clean expression with outlier, library-size and dropout effects, then
Poisson UMI counts; ``"clean"``: SERGIO's clean expression.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import attrs
import numpy as np
from threadpoolctl import threadpool_limits

from .avici_code import module_extraction, noise_config, sergio_class
from .networks import SourceNetwork

#: AVICI's subnetwork-sampler settings (avici/synthetic/graph.py: Ecoli / Yeast defaults)
TOPK = 0.2
AT_LEAST_N_REGULATORS = 1

#: neurips-grn.yaml ranges (see the module docstring)
K_RANGE = (1.0, 5.0)
K_SIGN_BETA = (1.0, 0.5)  # Beta(a, a) with a drawn from these
BASAL_RANGE = (1.0, 3.0)
N_CELL_TYPES = 5
HILLS = (1.9, 2.0, 2.1)
DECAYS = (0.7, 0.8, 0.9)
NOISE_SCALES = (0.9, 1.0, 1.1)
PLATFORM = "10x-chromium"
#: avici GRNSergio defaults
NOISE_TYPE = "dpd"
SAMPLING_STATE = 15
DT = 0.01
SAFETY_STEPS = 10

OUTPUTS = ("counts", "clean")
#: expression of a knocked-out gene in its interventional rows (production 0 from a zero start)
KNOCKOUT_VALUE = 0.0
#: the technical-noise settings a platform entry of noise_config.yaml holds
TECH_KEYS = ("outlier_prob", "outlier_mean", "outlier_scale", "lib_size_mean", "lib_size_scale",
             "dropout_shape", "dropout_percentile")


@attrs.frozen(eq=False)
class Subnetwork:
    """A sampled subnetwork in column order.

    Attributes:
        genes: (d,) gene names, one per column.
        source_index: (d,) each column's gene index in the source network.
        adjacency: (d × d) int8, row = regulator; acyclic, no self-loops.
        dropped: number of induced, non-self-loop source edges removed to break cycles.
    """

    genes: Tuple[str, ...]
    source_index: np.ndarray
    adjacency: np.ndarray
    dropped: int


def sample_subnetwork(source: SourceNetwork, d: int, rng: np.random.Generator) -> Subnetwork:
    """Sample a d-gene subnetwork of ``source`` with avici's ``_module_extraction`` (see the module).

    Args:
        source: the source network (D genes).
        d: number of genes, 2 ≤ d < D.
        rng: the instance's generator (consumed).

    Raises:
        ValueError: d out of range (names the source and its size).
    """
    D = len(source.genes)
    if not 2 <= int(d) < D:
        raise ValueError(f"subnetwork size d={d} out of range for {source.name} ({D} genes): 2 <= d < {D}")
    extract = module_extraction()
    # The sampler ranks candidate genes by modularity sums (``s @ b``, a BLAS matrix-vector
    # product over all D genes); a multi-threaded BLAS adds in another order, which reorders
    # near-ties and changes the subnetwork. One BLAS thread makes the draw independent of
    # OMP_NUM_THREADS / OPENBLAS_NUM_THREADS (seen: a different ecoli-d10-0 under tox's 1 thread).
    with threadpool_limits(limits=1, user_api="blas"):
        # the sampler zeroes the diagonal of its argument in place: hand it a copy
        g, subnet = extract(rng, source.adjacency.copy(), int(d), topk=TOPK,
                            at_least_n_regulators=AT_LEAST_N_REGULATORS, make_acyclic=True, drop_self_edges=True,
                            return_node_indices=True)
    nodes = np.array(list(subnet), dtype=np.int64)  # the order avici's _extract_subnetwork indexed them in
    perm = rng.permutation(int(d))
    index = nodes[perm]
    A = np.asarray(g)[np.ix_(perm, perm)].astype(np.int8)
    induced = source.adjacency[np.ix_(index, index)].astype(np.int8)
    np.fill_diagonal(induced, 0)
    return Subnetwork(genes=tuple(source.genes[i] for i in index), source_index=index, adjacency=A,
                      dropped=int(induced.sum() - A.sum()))


@attrs.frozen(eq=False)
class SergioParameters:
    """One instance's SERGIO mechanism (see the module for the ranges).

    Attributes:
        interaction: (d × d) signed interaction strengths k (only entries on edges are used).
        basal: (d × n_cell_types) basal production rates (used for master regulators only).
        n_cell_types: cell types (SERGIO "bins").
        hill, decay, noise_scale: Hill coefficient, decay rate, CLE noise amplitude.
        sign_beta: ``a`` of the Beta(a, a) the activation probabilities were drawn from.
        tech: technical-noise settings (:data:`TECH_KEYS`).
    """

    interaction: np.ndarray
    basal: np.ndarray
    n_cell_types: int
    hill: float
    decay: float
    noise_scale: float
    sign_beta: float
    tech: Dict[str, float]

    def summary(self) -> Dict[str, float]:
        """The scalar parameters (metadata; the matrices stay out of what methods see)."""
        return {"n_cell_types": self.n_cell_types, "hill": self.hill, "decay": self.decay,
                "noise_scale": self.noise_scale, "sign_beta": self.sign_beta,
                **{k: float(v) for k, v in self.tech.items()}}


def draw_parameters(d: int, rng: np.random.Generator, platform: str = PLATFORM) -> SergioParameters:
    """Draw one SERGIO mechanism for d genes (AVICI's neurips-grn ranges; see the module).

    Raises:
        ValueError: ``platform`` is not a key of avici's noise_config.yaml, or an entry lacks a
            setting of :data:`TECH_KEYS`.
    """
    config = noise_config()
    if platform not in config:
        raise ValueError(f"technical-noise platform {platform!r} not in avici's noise_config.yaml "
                         f"({', '.join(config)})")
    missing = [k for k in TECH_KEYS if k not in config[platform]]
    if missing:
        raise ValueError(f"noise_config.yaml entry {platform!r} lacks {missing}")
    a = float(rng.choice(K_SIGN_BETA))
    strength = rng.uniform(*K_RANGE, size=(d, d))
    p_positive = rng.beta(a, a, size=(d, 1))  # one activation probability per regulator (row)
    sign = rng.binomial(1, p_positive, size=(d, d)) * 2.0 - 1.0
    basal = rng.uniform(*BASAL_RANGE, size=(d, N_CELL_TYPES))
    hill = float(rng.choice(HILLS))
    decay = float(rng.choice(DECAYS))
    noise = float(rng.choice(NOISE_SCALES))
    tech = {k: float(rng.choice(np.asarray(config[platform][k], dtype=float))) for k in TECH_KEYS}
    return SergioParameters(interaction=strength * sign, basal=basal, n_cell_types=N_CELL_TYPES, hill=hill,
                            decay=decay, noise_scale=noise, sign_beta=a, tech=tech)


def simulate_cells(adjacency: np.ndarray, params: SergioParameters, n_cells: int, rng: np.random.Generator,
                   knockout: Optional[int] = None, output: str = "counts") -> np.ndarray:
    """Simulate ``n_cells`` single cells with avici's ``Sergio`` (one run; see the module).

    ``ceil(n_cells / n_cell_types)`` cells per cell type are simulated, pooled, shuffled and the
    first ``n_cells`` kept (AVICI's ``GRNSergio`` does the same per experiment).

    Args:
        adjacency: (d × d) 0/1 DAG, row = regulator.
        params: the instance's mechanism.
        n_cells: rows to return (≥ 1).
        rng: the cell's generator (consumed; SERGIO draws from it).
        knockout: a gene index knocked out in every cell of this run, or None (wild type).
        output: ``"counts"`` (technical noise + UMI counts) or ``"clean"``.

    Returns:
        (n_cells × d) float64 expression.

    Raises:
        ValueError: an unknown output, ``n_cells`` < 1, a knockout index out of range.
    """
    if output not in OUTPUTS:
        raise ValueError(f"output {output!r} is not one of {OUTPUTS}")
    if int(n_cells) < 1:
        raise ValueError(f"n_cells must be >= 1, got {n_cells}")
    d = adjacency.shape[0]
    kout = np.zeros(d, dtype=bool)
    if knockout is not None:
        if not 0 <= int(knockout) < d:
            raise ValueError(f"knockout gene index {knockout} out of range 0..{d - 1}")
        kout[int(knockout)] = True
    per_type = math.ceil(int(n_cells) / params.n_cell_types)
    sim = sergio_class()(rng=rng, number_genes=d, number_bins=params.n_cell_types, number_sc=per_type,
                         noise_params=params.noise_scale, noise_type=NOISE_TYPE, decays=params.decay,
                         sampling_state=SAMPLING_STATE, kout=kout, dt=DT, safety_steps=SAFETY_STEPS)
    sim.custom_graph(g=np.asarray(adjacency, dtype=np.int64), k=params.interaction, b=params.basal,
                     hill=np.full((d, d), params.hill))
    with threadpool_limits(limits=1, user_api="blas"):  # SERGIO's production rates use np.matmul (as above)
        sim.simulate()
    expr = sim.getExpressions()  # (cell types × d × cells per type)
    if output == "counts":
        t = params.tech
        expr = sim.outlier_effect(expr, t["outlier_prob"], t["outlier_mean"], t["outlier_scale"])
        _, expr = sim.lib_size_effect(expr, t["lib_size_mean"], t["lib_size_scale"])
        expr = sim.dropout_indicator(expr, t["dropout_shape"], t["dropout_percentile"]) * expr
        expr = sim.convert_to_UMIcounts(expr)
    x = np.concatenate(list(expr), axis=1).T  # (cells × d)
    return np.ascontiguousarray(x[rng.permutation(x.shape[0])[: int(n_cells)]], dtype=np.float64)


def knockout_rows(pool: np.ndarray, n_int: int, rng: np.random.Generator) -> List[Tuple[int, np.ndarray]]:
    """Balanced assignment of ``n_int`` interventional rows to the pool's genes.

    Returns:
        ``[(gene, row offsets within the interventional block)]`` in pool order, genes with no
        row left out (the core's :func:`causalarena.interventions.balanced_assignment`).
    """
    from causalarena.interventions import balanced_assignment

    targets = balanced_assignment(pool, n_int, rng)
    return [(int(g), np.flatnonzero(targets == g)) for g in pool if np.any(targets == g)]
