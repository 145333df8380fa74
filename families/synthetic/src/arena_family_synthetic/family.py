"""The synthetic family: a regenerable grid of SCMs (first slice of App. A.1).

This slice covers Erdős–Rényi and scale-free graphs, d ∈ {10, 20}, the
root distributions, mechanisms and noises registered in the core
(:mod:`causalarena.scm`), and family mixing (number of active mechanism /
noise / root families by d and by number of roots, node-level assignment).
Every SCM is a pure function of its configuration id and the generator
version (:data:`GENERATOR_VERSION`): ``generate_spec(config_id)`` gives the
same spec bit for bit in any process.
"""

from __future__ import annotations

import hashlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from causalarena.family import Family, SCMInstance
from causalarena.scm import (MECHANISMS, NOISES, ROOT_DISTRIBUTIONS, SCMSpec, calibrate_outputs,
                             node_from_components)

from . import GENERATOR_VERSION
from .graphs import sample_graph

#: active mechanism/noise family count by d (App. A.1 "Family mixing")
ACTIVE_FAMILIES_BY_D = {10: (2, 4), 20: (3, 5), 30: (4, 6), 50: (5, 8), 100: (6, 10)}
#: components of this slice (the synthetic issue extends the registries)
SLICE_MECHANISMS = ("linear", "polynomial", "neural", "saturation")
SLICE_NOISES = ("gaussian", "uniform", "laplace", "student_t")
SLICE_ROOTS = ("gaussian", "uniform", "laplace", "lognormal")
MAX_DATA_ATTEMPTS = 20


def config_seed(config_id: str, version: str = GENERATOR_VERSION) -> int:
    """Seed of a configuration: SHA-256 of version and id (stable everywhere)."""
    digest = hashlib.sha256(f"{version}\x1f{config_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def parse_config_id(config_id: str) -> Tuple[str, int, int]:
    """``"er-d10-003"`` → ("er", 10, 3).

    Raises:
        ValueError: malformed id.
    """
    try:
        graph, dpart, index = config_id.split("-")
        if not dpart.startswith("d"):
            raise ValueError
        return graph, int(dpart[1:]), int(index)
    except ValueError:
        raise ValueError(f"malformed synthetic config id {config_id!r}; expected '<graph>-d<d>-<index>'") from None


def _active_count(d: int, available: int, rng: np.random.Generator) -> int:
    key = max([k for k in ACTIVE_FAMILIES_BY_D if k <= d] or [10])
    lo, hi = ACTIVE_FAMILIES_BY_D[key]
    return int(min(available, rng.integers(lo, hi + 1)))


def root_family_count(n_roots: int, available: int, rng: np.random.Generator) -> int:
    """App. A.1: one family for a single root, 1–2 for ≤ 3 roots, 2–4 for ≤ 8, 3–6 otherwise."""
    if n_roots <= 1:
        lo, hi = 1, 1
    elif n_roots <= 3:
        lo, hi = 1, 2
    elif n_roots <= 8:
        lo, hi = 2, 4
    else:
        lo, hi = 3, 6
    return int(min(available, rng.integers(lo, hi + 1)))


def data_audit(x: np.ndarray, names: Sequence[str]) -> Optional[str]:
    """Dataset-level checks of App. A.2 on a pilot sample; the first failure or None."""
    if not np.all(np.isfinite(x)):
        return "non-finite values"
    sd = x.std(axis=0)
    if np.any(sd < 1e-6):
        return f"near-constant column {names[int(np.argmin(sd))]}"
    corr = np.corrcoef(x, rowvar=False)
    np.fill_diagonal(corr, 0.0)
    i, j = np.unravel_index(np.argmax(np.abs(corr)), corr.shape)
    if abs(corr[i, j]) > 0.99:
        return f"near-duplicate pair {names[i]}, {names[j]} (|corr| = {abs(corr[i, j]):.3f})"
    return None


def _used(nodes: Sequence[Any], key: str) -> List[str]:
    """Sorted distinct node tags ``key`` (the factor tags of one SCM)."""
    return sorted({n.tags[key] for n in nodes if key in n.tags})


def generate_spec(config_id: str, mechanisms: Sequence[str] = SLICE_MECHANISMS,
                  noises: Sequence[str] = SLICE_NOISES, roots: Sequence[str] = SLICE_ROOTS) -> SCMSpec:
    """Generate the SCM of a configuration id, deterministically.

    Steps: graph with validity filters (App. A.1/A.2) → active families →
    node-level assignment → parameters drawn in the paper's ranges →
    output calibration on a pilot sample → dataset audit (App. A.2) with
    bounded resampling. Rejections are recorded in ``spec.metadata``.

    Raises:
        ValueError: malformed id or unknown component name.
        RuntimeError: no configuration passes the audits.
    """
    graph, d, _ = parse_config_id(config_id)
    for table, names, what in ((MECHANISMS, mechanisms, "mechanism"), (NOISES, noises, "noise"),
                               (ROOT_DISTRIBUTIONS, roots, "root distribution")):
        unknown = [n for n in names if n not in table]
        if unknown:
            raise ValueError(f"unknown {what}(s) {unknown}; registered: {sorted(table)}")
    rng = np.random.default_rng(config_seed(config_id))
    rejections: Dict[str, int] = {}
    for attempt in range(1, MAX_DATA_ATTEMPTS + 1):
        a, graph_record = sample_graph(graph, d, rng)
        names = [f"X{i}" for i in range(d)]
        active_mech = sorted(rng.choice(mechanisms, size=_active_count(d, len(mechanisms), rng), replace=False))
        active_noise = sorted(rng.choice(noises, size=_active_count(d, len(noises), rng), replace=False))
        root_idx = [j for j in range(d) if not a[:, j].any()]
        active_roots = sorted(rng.choice(roots, size=root_family_count(len(root_idx), len(roots), rng),
                                         replace=False))
        nodes = []
        for j in range(d):
            parents = [names[i] for i in np.flatnonzero(a[:, j])]
            nodes.append(node_from_components(
                names[j], parents, rng,
                mechanism=str(rng.choice(active_mech)), noise=str(rng.choice(active_noise)),
                root=str(rng.choice(active_roots)),
            ))
        metadata: Dict[str, Any] = {
            "generator": GENERATOR_VERSION, "config_id": config_id, "graph": graph, "d": d,
            **graph_record, "n_roots": len(root_idx),
            "mechanisms": _used(nodes, "mechanism"), "noises": _used(nodes, "noise"),
            "roots": _used(nodes, "root"),
            "root_dependency": "independent", "difficulty": "clean",
        }
        spec = SCMSpec(id=config_id, nodes=nodes, metadata=metadata)
        spec = calibrate_outputs(spec, n=2000, seed=config_seed(config_id) ^ attempt)
        pilot = spec.compile().sample(2000, np.random.default_rng(attempt))
        reason = data_audit(pilot, names)
        if reason is None:
            spec.metadata["data_attempts"] = attempt
            spec.metadata["data_rejections"] = rejections
            return spec
        key = reason.split(" ")[0]
        rejections[key] = rejections.get(key, 0) + 1
    raise RuntimeError(f"{config_id}: no SCM passed the audits in {MAX_DATA_ATTEMPTS} attempts: {rejections}")


class SyntheticFamily(Family):
    """Synthetic SCM grid.

    Options (``arena run --family-option synthetic.<key>=<value>``):
        dims: dimensions (default ``(10, 20)``).
        graphs: graph families (default ``("er", "sf")``).
        per_cell: SCMs per graph family × dimension (default 2).
        n_replicates: replicates per split (default 5, App. B.1).
    """

    name = "synthetic"

    def __init__(self, dims: Sequence[int] = (10, 20), graphs: Sequence[str] = ("er", "sf"),
                 per_cell: int = 2, n_replicates: int = 5, **options: Any) -> None:
        if options:
            raise ValueError(f"synthetic: unknown option(s) {sorted(options)}; "
                             "known: dims, graphs, per_cell, n_replicates")
        super().__init__()
        for name, value in (("per_cell", per_cell), ("n_replicates", n_replicates)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"synthetic: option {name} must be a positive integer, got {value!r}")
        # a single value from the command line (``synthetic.dims=10``) is a scalar
        self.dims = tuple(int(x) for x in ((dims,) if isinstance(dims, (int, str)) else dims))
        self.graphs = tuple((graphs,) if isinstance(graphs, str) else graphs)
        from .graphs import GENERATORS

        unknown = [g for g in self.graphs if g not in GENERATORS]
        if unknown:
            raise ValueError(f"synthetic: unknown graph families {unknown}; known: {sorted(GENERATORS)}")
        self.per_cell = int(per_cell)
        self.n_replicates = int(n_replicates)
        self._cache: Dict[str, SCMInstance] = {}

    def config_ids(self) -> List[str]:
        return [f"{g}-d{d}-{k:03d}" for g in self.graphs for d in self.dims for k in range(self.per_cell)]

    def instance(self, scm_id: str) -> SCMInstance:
        if scm_id not in self._cache:
            spec = generate_spec(scm_id)
            self._cache[scm_id] = SCMInstance(family=self.name, scm_id=scm_id, spec=spec,
                                              n_replicates=self.n_replicates, factors=dict(spec.metadata))
        return self._cache[scm_id]

    def instances(self) -> List[SCMInstance]:
        return [self.instance(cid) for cid in self.config_ids()]
