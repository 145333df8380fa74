"""The discrete bnlearn networks: a BIF reader, a forward sampler with hard interventions, and
the categorical instance.

Reader: the shipped ``<name>.bif.gz`` files (BIF 0.15 as written by bnlearn) are parsed here —
``variable X { type discrete [ k ] { s1, …, sk }; }`` and ``probability ( X | P1, …, Pm ) {
(p1, …, pm) q1, …, qk; … }`` (``table q1, …, qk;`` for a node without parents) — into
:class:`DiscreteNetwork`. pgmpy is not imported (its BIF reader is the tests' independent
oracle).

Sampler (:func:`sample_codes`): ancestral sampling in topological order with one exogenous
uniform per entry, ``x_j = #{c : U_j > F_j(c | parents)}`` (the inverse CDF of the node's
conditional distribution, ``F`` its cumulative row); an intervened entry is set to its value
and the descendants of every row are recomputed from the same uniforms, as the core's SCM
does for continuous nodes.

Protocol (:class:`DiscreteInstance`), the same splits as every SCM (App. B.1): obs (n = 1000)
and obs+int (800 observational + 200 interventional rows, one target per row by balanced
assignment from a target pool of the core's App. A.1 size, drawn once per network from its
id). A hard intervention do(X_t = s) sets the target to a state ``s`` drawn uniformly from
its states (the categorical counterpart of the default U[q10, q90]: every state, not a
percentile band, since states have no order). Values are category codes ``0 … k−1`` (the
state's position in the file's list) stored as float64; states and cardinalities are in the
dataset's metadata.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import attrs
import numpy as np

from causalarena.data import Dataset
from causalarena.family import Instance
from causalarena.interventions import balanced_assignment, pool_size_range, regime_from_mask
from causalarena.protocol import cell_seed, raw_sortabilities, split_sizes
from causalarena.protocol import standardise as zscore

from .files import pgmpy_version, read_text
from .networks import NETWORKS

#: a CPT row may miss 1 by this much (the files round to 4–8 decimals); it is renormalised
ROW_SUM_TOL = 1e-3
#: version of the sampler (part of the fingerprint: a changed sampler never reuses stored results)
SAMPLER = "bnlearn-discrete@1"

_VARIABLE = re.compile(r"variable\s+(\S+)\s*\{\s*type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}\s*;\s*\}")
_PROBABILITY = re.compile(r"probability\s*\(\s*([^)|]+?)\s*(?:\|\s*([^)]*?))?\s*\)\s*\{([^}]*)\}")
_ROW = re.compile(r"\(([^)]*)\)\s*([^;]*);")
_TABLE = re.compile(r"^\s*table\s+([^;]*);\s*$")


class BIFFormatError(ValueError):
    """A shipped BIF file is not as expected; the message names the file, the variable and the problem."""


def _split(items: str) -> List[str]:
    return [s.strip() for s in items.split(",") if s.strip()]


def _floats(text: str, where: str, k: int) -> np.ndarray:
    try:
        values = np.array([float(v) for v in _split(text)], dtype=float)
    except ValueError as exc:
        raise BIFFormatError(f"{where}: not a list of numbers: {text.strip()[:80]!r}") from exc
    if values.size != k:
        raise BIFFormatError(f"{where}: {values.size} probabilities for {k} states")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise BIFFormatError(f"{where}: probabilities must be finite and >= 0, got {values.tolist()}")
    total = float(values.sum())
    if abs(total - 1.0) > ROW_SUM_TOL:
        raise BIFFormatError(f"{where}: probabilities sum to {total:.6g}, not 1 (tolerance {ROW_SUM_TOL})")
    return values / total


@attrs.frozen(eq=False)
class DiscreteNetwork:
    """A discrete Bayesian network read from a BIF file.

    Attributes:
        name: network name.
        names: variable names, sorted alphabetically (bnlearn's node order; the BIF file's order
            is close to a topological one and would hand methods the causal order).
        states: per variable, its state names in the file's order (code c = ``states[j][c]``).
        parents: per variable, its parents' indices in the order the file's ``probability``
            block lists them.
        cpts: per variable, a (Π parent cardinalities × k) float array; row r is the distribution
            of the variable given the parent configuration whose mixed-radix index (first parent
            most significant) is r; rows sum to 1.
    """

    name: str
    names: Tuple[str, ...]
    states: Tuple[Tuple[str, ...], ...]
    parents: Tuple[Tuple[int, ...], ...]
    cpts: Tuple[np.ndarray, ...]

    @property
    def d(self) -> int:
        """Number of variables."""
        return len(self.names)

    @property
    def cardinalities(self) -> Tuple[int, ...]:
        """Number of states per variable."""
        return tuple(len(s) for s in self.states)

    def adjacency(self) -> np.ndarray:
        """(d × d) int8 true graph, row = parent."""
        A = np.zeros((self.d, self.d), dtype=np.int8)
        for j, ps in enumerate(self.parents):
            A[list(ps), j] = 1
        return A

    def n_parameters(self) -> int:
        """Free parameters, Σ_j (k_j − 1) · Π_parents k (bnlearn's count)."""
        return int(sum((len(self.states[j]) - 1) * cpt.shape[0] for j, cpt in enumerate(self.cpts)))

    @functools.cached_property
    def order(self) -> List[int]:
        """A topological order (Kahn's algorithm, smallest index first).

        Raises:
            BIFFormatError: the parent sets have a cycle.
        """
        indeg = [len(p) for p in self.parents]
        children: List[List[int]] = [[] for _ in range(self.d)]
        for j, ps in enumerate(self.parents):
            for p in ps:
                children[p].append(j)
        ready = sorted(j for j in range(self.d) if indeg[j] == 0)
        out: List[int] = []
        while ready:
            j = ready.pop(0)
            out.append(j)
            for c in children[j]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
            ready.sort()
        if len(out) != self.d:
            raise BIFFormatError(f"{self.name}: the parent sets have a cycle")
        return out

    @functools.cached_property
    def cumulative(self) -> Tuple[np.ndarray, ...]:
        """Per variable, the row-wise cumulative CPT (last column exactly 1)."""
        out = []
        for cpt in self.cpts:
            c = np.cumsum(cpt, axis=1)
            c[:, -1] = 1.0
            out.append(c)
        return tuple(out)


def parse_bif(text: str, name: str, file: str = "") -> DiscreteNetwork:
    """Read a discrete network from BIF text (the subset bnlearn writes; see the module).

    Raises:
        BIFFormatError: naming the file and variable: an unknown variable or state, a missing or
            duplicated CPT row, a row that does not sum to 1, a ``table`` for a node with parents,
            a variable without a ``probability`` block, a cycle.
    """
    file = file or name
    variables: Dict[str, Tuple[str, ...]] = {}
    for m in _VARIABLE.finditer(text):
        var, k, states = m.group(1), int(m.group(2)), tuple(_split(m.group(3)))
        if len(states) != k:
            raise BIFFormatError(f"{file}: variable {var!r} declares {k} states but lists {len(states)}")
        if var in variables:
            raise BIFFormatError(f"{file}: variable {var!r} declared twice")
        variables[var] = states
    if not variables:
        raise BIFFormatError(f"{file}: no 'variable ... {{ type discrete ... }}' block")
    names = tuple(sorted(variables))
    index = {v: j for j, v in enumerate(names)}
    parents: List[Optional[Tuple[int, ...]]] = [None] * len(names)
    cpts: List[Optional[np.ndarray]] = [None] * len(names)
    for m in _PROBABILITY.finditer(text):
        var, given, body = m.group(1).strip(), _split(m.group(2) or ""), m.group(3)
        where = f"{file}: probability ( {var}{' | ' + ', '.join(given) if given else ''} )"
        for v in [var] + given:
            if v not in index:
                raise BIFFormatError(f"{where}: unknown variable {v!r}")
        j = index[var]
        if cpts[j] is not None:
            raise BIFFormatError(f"{where}: a second probability block for {var!r}")
        k = len(variables[var])
        pcards = [len(variables[p]) for p in given]
        rows = int(np.prod(pcards)) if given else 1
        cpt = np.full((rows, k), np.nan)
        table = _TABLE.match(body.strip().replace("\n", " "))
        if table is not None:
            if given:
                raise BIFFormatError(f"{where}: a 'table' entry for a node with parents is not supported "
                                     "(bnlearn writes one row per parent configuration)")
            cpt[0] = _floats(table.group(1), where, k)
        else:
            strides = np.cumprod([1] + pcards[::-1])[:-1][::-1] if given else []
            for row in _ROW.finditer(body):
                conf = _split(row.group(1))
                if len(conf) != len(given):
                    raise BIFFormatError(f"{where}: row ({row.group(1)}) names {len(conf)} parent states "
                                         f"for {len(given)} parents")
                r = 0
                for s, p, stride in zip(conf, given, strides):
                    if s not in variables[p]:
                        raise BIFFormatError(f"{where}: unknown state {s!r} of parent {p!r} "
                                             f"(states: {', '.join(variables[p])})")
                    r += variables[p].index(s) * int(stride)
                if not np.isnan(cpt[r, 0]):
                    raise BIFFormatError(f"{where}: row ({row.group(1)}) given twice")
                cpt[r] = _floats(row.group(2), f"{where} row ({row.group(1)})", k)
        missing = np.flatnonzero(np.isnan(cpt[:, 0]))
        if missing.size:
            raise BIFFormatError(f"{where}: {missing.size} of {rows} parent configurations have no row")
        parents[j] = tuple(index[p] for p in given)
        cpts[j] = cpt
    lacking = [names[j] for j in range(len(names)) if cpts[j] is None]
    if lacking:
        raise BIFFormatError(f"{file}: no probability block for variable(s) {lacking[:5]}")
    net = DiscreteNetwork(name=name, names=names, states=tuple(variables[v] for v in names),
                          parents=tuple(p for p in parents if p is not None),
                          cpts=tuple(c for c in cpts if c is not None))
    net.order  # noqa: B018 - raises on a cycle, now rather than at the first sample
    return net


@functools.lru_cache(maxsize=None)
def load_network(name: str) -> DiscreteNetwork:
    """The shipped discrete network ``name`` (read once per process).

    Raises:
        KeyError: not a discrete network of :data:`~arena_family_bnlearn.networks.NETWORKS`.
        BIFFormatError, FileNotFoundError: see :func:`parse_bif`, :func:`~arena_family_bnlearn.files.network_path`.
    """
    net = NETWORKS[name]
    if net.kind != "discrete":
        raise KeyError(f"bnlearn network {name!r} is {net.kind}, not discrete")
    return parse_bif(read_text(net.file), name, net.file)


def sample_codes(net: DiscreteNetwork, uniforms: np.ndarray, intervention_mask: Optional[np.ndarray] = None,
                 values: Optional[np.ndarray] = None) -> np.ndarray:
    """Ancestral sampling by inverse CDF, with hard interventions.

    Args:
        net: the network.
        uniforms: (n × d) exogenous U(0, 1) draws, one per entry.
        intervention_mask: (n × d) bool; True entries are set to ``values`` (do), their
            descendants recomputed from the same uniforms. None: no intervention.
        values: (n × d) codes for the masked entries (ignored elsewhere).

    Returns:
        (n × d) int64 category codes (``0 … k_j − 1``).
    """
    n, d = uniforms.shape
    x = np.zeros((n, d), dtype=np.int64)
    for j in net.order:
        ps = net.parents[j]
        rows = np.zeros(n, dtype=np.int64)
        for p in ps:  # mixed radix, first parent most significant
            rows = rows * len(net.states[p]) + x[:, p]
        cum = net.cumulative[j][rows]  # (n × k)
        x[:, j] = np.minimum((uniforms[:, [j]] > cum).sum(axis=1), cum.shape[1] - 1)
        if intervention_mask is not None and values is not None:
            hit = intervention_mask[:, j]
            if hit.any():
                x[hit, j] = values[hit, j].astype(np.int64)
    return x


def target_pool(net: DiscreteNetwork, scm_id: str) -> np.ndarray:
    """The network's intervention target pool (node indices, sorted): the core's App. A.1 pool size
    for ``d`` (:func:`causalarena.interventions.pool_size_range`), nodes drawn uniformly, seeded by
    SHA-256 of ``"target-pool" ␟ scm_id`` — one pool per network, shared by replicates and methods."""
    digest = hashlib.sha256(f"target-pool\x1f{scm_id}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    lo, hi = pool_size_range(net.d)
    size = min(int(rng.integers(lo, hi + 1)), net.d)
    return np.sort(rng.choice(net.d, size=size, replace=False))


@attrs.define(eq=False)
class DiscreteInstance(Instance):
    """One discrete bnlearn network as a categorical instance (see the module for the protocol).

    Attributes:
        family: family name; scm_id: the network's name (``"alarm"``).
        splits: ``("obs", "obs_int")``; n_replicates: 5 (App. B.1).
        factors: network, graph (``"bnlearn"``), data_type, d, n_edges, size, domain, source.
    """

    family: str
    scm_id: str
    splits: Sequence[str] = ("obs", "obs_int")
    n_replicates: int = 5
    factors: Dict[str, Any] = attrs.field(factory=dict)

    data_type = "categorical"

    @property
    def network(self) -> DiscreteNetwork:
        """The parsed network (read on first use, cached per process)."""
        return load_network(self.scm_id)

    def true_adjacency(self) -> np.ndarray:
        """(d × d) int8 true graph, row = parent."""
        return self.network.adjacency()

    def fingerprint(self) -> str:
        """SHA-256 of the shipped file's text and the sampler version, 16 hex digits."""
        text = read_text(NETWORKS[self.scm_id].file)
        return hashlib.sha256(f"{SAMPLER}\x1f{text}".encode()).hexdigest()[:16]

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:
        """The (n × d) categorical table of one cell, deterministic in the cell.

        Args:
            split: ``"obs"`` (1000 rows) or ``"obs_int"`` (800 + 200).
            replicate: 0 … n_replicates − 1.
            standardise: z-score the codes per column (the shared protocol's default; an
                increasing affine map, so each column's distinct values are still its
                categories in order); False: the raw codes 0 … k − 1.
            protocol: only ``"default"`` (hard do to a uniformly drawn state).
            n: total rows (obs+int keeps its 80/20 mix).

        Raises:
            ValueError: unknown split, replicate out of range, another protocol.
        """
        if split not in self.splits:
            raise ValueError(f"bnlearn/{self.scm_id}: unknown split {split!r}; expected one of {tuple(self.splits)}")
        if not 0 <= int(replicate) < self.n_replicates:
            raise ValueError(f"replicate {replicate} out of range 0..{self.n_replicates - 1} for "
                             f"bnlearn/{self.scm_id}")
        if split == "obs_int" and protocol != "default":
            raise ValueError(f"bnlearn/{self.scm_id} is categorical: only the 'default' intervention protocol "
                             f"(hard do to a uniformly drawn state) applies, not {protocol!r}")
        net = self.network
        seed = cell_seed(self.family, self.scm_id, split, replicate)
        rng = np.random.default_rng(seed)
        n_obs, n_int = split_sizes(split, n)
        total = n_obs + n_int
        uniforms = rng.random((total, net.d))
        mask = np.zeros((total, net.d), dtype=bool)
        pool = np.zeros(0, dtype=np.int64)
        values = None
        if n_int:
            pool = target_pool(net, self.scm_id)
            targets = balanced_assignment(pool, n_int, rng)
            rows = np.arange(n_obs, total)
            mask[rows, targets] = True
            values = np.zeros((total, net.d), dtype=np.int64)
            card = np.asarray(net.cardinalities)
            values[rows, targets] = rng.integers(0, card[targets])
        x = sample_codes(net, uniforms, mask, values).astype(np.float64)
        A = net.adjacency()
        sort = raw_sortabilities(x, A)
        metadata = {
            "family": self.family, "scm_id": self.scm_id, "split": split, "replicate": int(replicate),
            "seed": seed, "protocol": protocol if split != "obs" else None, "n_obs": n_obs, "n_int": n_int,
            "target_pool": [net.names[i] for i in pool], "standardised": bool(standardise),
            "data_type": "categorical", "cardinalities": list(net.cardinalities),
            "states": {v: list(s) for v, s in zip(net.names, net.states)},
            "varsortability": sort["varsortability"], "r2_sortability": sort["r2_sortability"],
            "factors": dict(self.factors),
        }
        if standardise:
            with np.errstate(invalid="ignore", divide="ignore"):
                x = zscore(x)
        return Dataset(X=x, columns=list(net.names), intervention_mask=mask, regime=regime_from_mask(mask),
                       true_adjacency=A, metadata=metadata)


def discrete_instance(name: str, family: str = "bnlearn") -> DiscreteInstance:
    """The instance of discrete network ``name``; its factors come from the catalogue (no file is read)."""
    net = NETWORKS[name]
    if net.kind != "discrete":
        raise KeyError(f"bnlearn network {name!r} is {net.kind}, not discrete")
    factors = {"network": name, "graph": "bnlearn", "data_type": "categorical", "d": net.nodes,
               "n_edges": net.arcs, "size": net.size, "domain": net.domain,
               "source": f"bnlearn repository via pgmpy {pgmpy_version()} ({net.file})"}
    return DiscreteInstance(family=family, scm_id=name, factors=factors)
