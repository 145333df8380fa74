"""The ``grn`` family: SERGIO single-cell expression on subnetworks of real regulatory networks.

Instances (ids ``<source>-d<d>-<k>``, e.g. ``ecoli-d20-0``): for each source network
(``ecoli``: RegulonDB 6.7; ``yeast``: Balaji 2006), each size d (default 10, 20, 50, 100) and
k = 0 … graphs − 1, one subnetwork sampled as AVICI samples them and one SERGIO mechanism
(:mod:`arena_family_grn.simulate`), both drawn from SHA-256 of the id — an instance is a fixed
gene-regulatory system; its cells are fresh simulations.

Protocol, the same splits as every SCM (CausalArena App. B.1): obs (n = 1000 wild-type cells)
and obs+int (800 wild-type + 200 knockout cells); 5 replicates; the cell's seed is the core's
:func:`causalarena.protocol.cell_seed`. Interventions are **knockouts** (the intervention of
SERGIO and of AVICI's GRN training data): a pool of the core's App. A.1 size for d, drawn once
per instance from its id; one target per interventional row by balanced assignment; one SERGIO
run per target gene, its rows' ``intervention_mask`` set on that gene, whose expression is 0 in
them. Rows: the wild-type cells first, then the knockout cells in assignment order. Tables are
z-scored per column by default (``standardise=False``: the raw counts / expression).

Listing reads no file: ``arena show grn`` lists ids and sizes from the options; the source
network is read and the subnetwork sampled on first use.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import attrs
import numpy as np

from causalarena.data import Dataset
from causalarena.family import SPLITS, Family, Instance, InstanceSummary
from causalarena.interventions import pool_size_range, regime_from_mask
from causalarena.protocol import cell_seed, raw_sortabilities, split_sizes
from causalarena.protocol import standardise as zscore

from .avici_code import avici_root
from .networks import SOURCES, load_source
from .simulate import (
    KNOCKOUT_VALUE,
    OUTPUTS,
    PLATFORM,
    SergioParameters,
    Subnetwork,
    draw_parameters,
    knockout_rows,
    sample_subnetwork,
    simulate_cells,
)

DEFAULT_SIZES = (10, 20, 50, 100)
DEFAULT_GRAPHS = 1
#: version of the instance construction and sampler (part of the fingerprint)
SAMPLER = "grn-sergio@1"
#: raw cells kept per instance (a standardised and a raw table of one cell share one simulation)
CELL_CACHE = 4


def instance_seed(scm_id: str, stream: int) -> np.random.Generator:
    """The instance's generator for ``stream`` (0: subnetwork, 1: mechanism), from SHA-256 of the id."""
    digest = hashlib.sha256(f"grn-instance\x1f{scm_id}".encode()).digest()
    return np.random.default_rng([int.from_bytes(digest[:8], "little"), int(stream)])


def parse_id(scm_id: str) -> Tuple[str, int, int]:
    """``"ecoli-d20-0"`` → ``("ecoli", 20, 0)``.

    Raises:
        KeyError: not of the form ``<source>-d<d>-<k>`` with a known source.
    """
    parts = scm_id.split("-")
    if len(parts) == 3 and parts[0] in SOURCES and parts[1][:1] == "d" and parts[1][1:].isdigit() \
            and parts[2].isdigit():
        return parts[0], int(parts[1][1:]), int(parts[2])
    raise KeyError(f"family 'grn' has no instance {scm_id!r}: ids are <source>-d<genes>-<k> with source in "
                   f"{sorted(SOURCES)}, e.g. 'ecoli-d20-0'")


@attrs.define(eq=False)
class GRNInstance(Instance):
    """One sampled subnetwork with its SERGIO mechanism (see the module for the protocol).

    Attributes:
        family: family name; scm_id: ``<source>-d<d>-<k>``.
        source, d: the source network and the number of genes.
        output: ``"counts"`` (technical noise + UMI counts, default) or ``"clean"``.
        splits: ``("obs", "obs_int")``; n_replicates: 5 (App. B.1).
        factors: source, organism, graph (``"grn-<source>"``), d, mechanism, output, platform.
    """

    family: str
    scm_id: str
    source: str
    d: int
    output: str = "counts"
    splits: Sequence[str] = ("obs", "obs_int")
    n_replicates: int = 5
    factors: Dict[str, Any] = attrs.field(factory=dict)
    _subnetwork: Optional[Subnetwork] = attrs.field(default=None, init=False, repr=False)
    _params: Optional[SergioParameters] = attrs.field(default=None, init=False, repr=False)
    _cells: "OrderedDict[Tuple[str, int, Optional[int]], Tuple[np.ndarray, np.ndarray, np.ndarray, int]]" = \
        attrs.field(factory=OrderedDict, init=False, repr=False)

    @property
    def subnetwork(self) -> Subnetwork:
        """The sampled subnetwork (sampled on first use: reads the source file, ~1–3 s)."""
        if self._subnetwork is None:
            self._subnetwork = sample_subnetwork(load_source(self.source), self.d, instance_seed(self.scm_id, 0))
        return self._subnetwork

    @property
    def parameters(self) -> SergioParameters:
        """The instance's SERGIO mechanism (drawn on first use)."""
        if self._params is None:
            self._params = draw_parameters(self.d, instance_seed(self.scm_id, 1))
        return self._params

    def true_adjacency(self) -> np.ndarray:
        """(d × d) int8 regulatory graph of the subnetwork, row = regulator."""
        return self.subnetwork.adjacency.copy()

    def target_pool(self) -> np.ndarray:
        """Knockout target pool (column indices, sorted): the core's App. A.1 pool size for d,
        genes drawn uniformly, seeded by SHA-256 of ``"target-pool" ␟ scm_id``."""
        digest = hashlib.sha256(f"target-pool\x1f{self.scm_id}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        lo, hi = pool_size_range(self.d)
        size = min(int(rng.integers(lo, hi + 1)), self.d)
        return np.sort(rng.choice(self.d, size=size, replace=False))

    def fingerprint(self) -> str:
        """SHA-256 of the sampler version, avici's version, the source file, the id and the output."""
        _, version = avici_root()
        text = "\x1f".join([SAMPLER, version, load_source(self.source).sha256, self.scm_id, self.output])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def _raw_cell(self, split: str, replicate: int, n: Optional[int]) -> Tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        key = (split, int(replicate), n)
        if key in self._cells:
            self._cells.move_to_end(key)
            return self._cells[key]
        net, params = self.subnetwork, self.parameters
        seed = cell_seed(self.family, self.scm_id, split, replicate)
        rng = np.random.default_rng(seed)
        n_obs, n_int = split_sizes(split, n)
        blocks = [simulate_cells(net.adjacency, params, n_obs, rng, output=self.output)]
        mask = np.zeros((n_obs + n_int, self.d), dtype=bool)
        pool = np.zeros(0, dtype=np.int64)
        if n_int:
            pool = self.target_pool()
            x_int = np.zeros((n_int, self.d))
            for gene, rows in knockout_rows(pool, n_int, rng):
                x_int[rows] = simulate_cells(net.adjacency, params, len(rows), rng, knockout=gene, output=self.output)
                mask[n_obs + rows, gene] = True
            blocks.append(x_int)
        x = np.vstack(blocks)
        self._cells[key] = (x, mask, pool, seed)
        while len(self._cells) > CELL_CACHE:
            self._cells.popitem(last=False)
        return x, mask, pool, seed

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:
        """The (n × d) expression table of one cell, deterministic in the cell.

        Args:
            split: ``"obs"`` (1000 wild-type cells) or ``"obs_int"`` (800 wild-type + 200 knockout).
            replicate: 0 … n_replicates − 1.
            standardise: z-score columns (default); False: raw counts / expression.
            protocol: only ``"default"`` (here: gene knockouts).
            n: total rows (obs+int keeps its 80/20 mix).

        Raises:
            ValueError: unknown split, replicate out of range, another protocol.
        """
        if split not in self.splits:
            raise ValueError(f"grn/{self.scm_id}: unknown split {split!r}; expected one of {tuple(self.splits)}")
        if not 0 <= int(replicate) < self.n_replicates:
            raise ValueError(f"replicate {replicate} out of range 0..{self.n_replicates - 1} for grn/{self.scm_id}")
        if split == "obs_int" and protocol != "default":
            raise ValueError(f"grn/{self.scm_id}: interventions are SERGIO gene knockouts; only the 'default' "
                             f"protocol applies, not {protocol!r}")
        x, mask, pool, seed = self._raw_cell(split, int(replicate), n)
        net = self.subnetwork
        n_obs = int((~mask.any(axis=1)).sum())
        sort = raw_sortabilities(x, net.adjacency)
        metadata = {
            "family": self.family, "scm_id": self.scm_id, "split": split, "replicate": int(replicate),
            "seed": seed, "protocol": protocol if split != "obs" else None, "n_obs": n_obs,
            "n_int": int(x.shape[0] - n_obs), "target_pool": [net.genes[i] for i in pool],
            "intervention": "knockout" if split != "obs" else None, "knockout_value": KNOCKOUT_VALUE,
            "edges_dropped": net.dropped, "output": self.output, "is_count_data": self.output == "counts",
            "standardised": bool(standardise),
            "sergio": self.parameters.summary(),
            "varsortability": sort["varsortability"], "r2_sortability": sort["r2_sortability"],
            "factors": dict(self.factors),
        }
        X = x.copy()
        if standardise:
            X = zscore(X)
        return Dataset(X=X, columns=list(net.genes), intervention_mask=mask.copy(), regime=regime_from_mask(mask),
                       true_adjacency=net.adjacency.copy(), metadata=metadata)


class GRNFamily(Family):
    """SERGIO on subnetworks of the E. coli and yeast regulatory networks (see the module).

    Options (``arena run --family-option grn.<option>=...``):
        sources: comma-separated subset of ``ecoli,yeast`` (default both).
        sizes: comma-separated gene counts (default ``10,20,50,100``; each 2 ≤ d < the source's size).
        graphs: subnetworks per source and size (default 1).
        output: ``counts`` (default) or ``clean``.

    Raises (at construction):
        ValueError: an unknown option, source or output; a size or graphs value that is not a
            positive integer, or a size outside 2 … 1564 (the smaller source's genes − 1).
    """

    name = "grn"
    OPTIONS = ("sources", "sizes", "graphs", "output")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"grn family: unknown option(s) {unknown}; known: {list(self.OPTIONS)}")
        super().__init__(**options)
        self._sources = _items(options.get("sources"), list(SOURCES), "sources")
        bad = [s for s in self._sources if s not in SOURCES]
        if bad:
            raise ValueError(f"grn family option sources: unknown source(s) {bad}; known: {', '.join(SOURCES)}")
        self._sizes = [_positive(v, "sizes") for v in _items(options.get("sizes"), list(DEFAULT_SIZES), "sizes")]
        cap = min(SOURCES[s].genes for s in self._sources) - 1
        wrong = [s for s in self._sizes if not 2 <= s <= cap]
        if wrong:
            raise ValueError(f"grn family option sizes: {wrong} out of range 2..{cap} (genes of the smallest "
                             "selected source − 1)")
        self._graphs = _positive(options.get("graphs", DEFAULT_GRAPHS), "graphs")
        self._output = str(options.get("output") or "counts").strip().lower()
        if self._output not in OUTPUTS:
            raise ValueError(f"grn family option output: {self._output!r} is not one of {list(OUTPUTS)}")
        self._instances: Dict[str, GRNInstance] = {}

    def ids(self) -> List[str]:
        """Selected ids: sources, then sizes, then k."""
        return [f"{s}-d{d}-{k}" for s in self._sources for d in self._sizes for k in range(self._graphs)]

    def _instance(self, scm_id: str) -> GRNInstance:
        if scm_id not in self._instances:
            source, d, k = parse_id(scm_id)
            if not 2 <= d < SOURCES[source].genes:
                raise KeyError(f"family 'grn': {scm_id!r} asks for {d} genes; {source} has {SOURCES[source].genes}")
            factors = {"source": source, "organism": SOURCES[source].organism, "graph": f"grn-{source}",
                       "d": d, "subnetwork": k, "mechanism": "sergio", "output": self._output,
                       "intervention": "knockout", "platform": PLATFORM if self._output == "counts" else "none"}
            self._instances[scm_id] = GRNInstance(family=self.name, scm_id=scm_id, source=source, d=d,
                                                  output=self._output, factors=factors)
        return self._instances[scm_id]

    def instances(self) -> List[Instance]:
        """The selected instances (nothing is read or sampled until a table or graph is asked for)."""
        return [self._instance(i) for i in self.ids()]

    def instance(self, scm_id: str) -> Instance:
        """Any well-formed id (``ecoli-d30-7``), inside the option selection or not.

        Raises:
            KeyError: a malformed id, an unknown source or a size out of range.
        """
        return self._instance(scm_id)

    def select(self, scm_ids: Sequence[str]) -> List[Instance]:
        """The named instances that are well-formed ids; others are skipped."""
        out = []
        for s in scm_ids:
            try:
                out.append(self._instance(s))
            except KeyError:
                continue
        return out

    def listing(self) -> List[InstanceSummary]:
        """One summary per selected id (no file is read)."""
        return [InstanceSummary(scm_id=i, d=parse_id(i)[1], splits=SPLITS, n_replicates=5) for i in self.ids()]


def _items(value: Any, default: List[Any], option: str) -> List[Any]:
    if value is None or value == "":
        return list(default)
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    items = [v.strip() for v in value.split(",")] if isinstance(value, str) else [str(v).strip() for v in value]
    items = [v for v in items if v]
    if not items:
        raise ValueError(f"grn family option {option}: empty")
    return list(dict.fromkeys(items))


def _positive(value: Any, option: str) -> int:
    try:
        out = int(str(value).strip())
    except (TypeError, ValueError):
        out = 0
    if out < 1:
        raise ValueError(f"grn family option {option}: expected a positive integer, got {value!r}")
    return out


__all__ = ("DEFAULT_SIZES", "GRNFamily", "GRNInstance", "instance_seed", "parse_id")
