"""The synthetic family: the regenerable SCM grid of App. A.1.

Every SCM is a pure function of its configuration id, the generator version
(:data:`GENERATOR_VERSION`) and — for reserved and fresh ids — the operator's
key (:mod:`.schedule`): ``generate_spec(config_id)`` gives the same spec bit
for bit in any process.

One configuration is built in these steps (App. A.1, A.2):

1. graph of its family with the validity filters (:mod:`.graphs`; a
   dependent root block needs ≥ 2 roots);
2. family mixing: the number of active mechanism tags and noise families by
   d, the number of root families by the number of roots, then node-level
   assignment, so one SCM mixes local equations; no-noise on at most 10 % of
   the nodes;
3. parameters drawn in the paper's ranges by each component's ``draw``;
4. the slot's root-dependency mode and difficulty stressors (weak signal:
   mechanism strength × 0.45; high noise: extra Gaussian noise 0.35; the
   observation and intervention stressors as spec stressors);
5. output calibration on a pilot sample (:func:`causalarena.scm.calibrate_outputs`);
6. the dataset audits of App. A.2 on pilot obs and obs+int tables; a failure
   redraws the equations (step 2–5) and, every :data:`REDRAW_GRAPH_EVERY`
   failures, the graph, up to :data:`MAX_DATA_ATTEMPTS`; the reasons are
   recorded in the spec metadata.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple

import attrs
import numpy as np

from causalarena.family import SPLITS, Family, Instance, InstanceSummary, SCMInstance, Suite
from causalarena.scm import ComponentSpec, SCMSpec, calibrate_outputs, component_class, node_from_components

from . import GENERATOR_VERSION
from . import schedule as S

# The catalogue (scipy) and the graph generators are imported where SCMs are generated, so that
# listing the 1,000 ids of the pool (``arena show synthetic``) imports neither.

#: active mechanism / noise family count by d (App. A.1 "Family mixing")
ACTIVE_FAMILIES_BY_D = {10: (2, 4), 20: (3, 5), 30: (4, 6), 50: (5, 8), 100: (6, 10)}
#: share of nodes that may be noiseless (App. A.1 "No-noise option")
MAX_NO_NOISE_SHARE = 0.10
#: weak-signal and high-noise stressors (App. A.1 "Signal and noise stressors")
WEAK_SIGNAL_STRENGTH = 0.45
HIGH_NOISE_SCALE = 0.35
MAX_DATA_ATTEMPTS = 30
REDRAW_GRAPH_EVERY = 10
PILOT_N = 1000
#: the pilot's near-duplicate gate sits below the release threshold (0.99, App. A.2), so that a
#: replicate's sampling noise rarely pushes a pair over it
PILOT_MAX_ABS_CORR = 0.985
PILOT_FAMILY = "synthetic-pilot"  # pilot tables use their own seeds, never a released cell's


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


def assign_noises(n_nodes: int, active: Sequence[str], rng: np.random.Generator, d: int) -> List[str]:
    """Node-level noise assignment with the no-noise cap (≤ 10 % of the d nodes).

    Surplus "none" draws are reassigned uniformly to the other active
    families (gaussian when "none" is the only active one).
    """
    picks = [str(v) for v in rng.choice(list(active), size=n_nodes)]
    cap = int(math.floor(MAX_NO_NOISE_SHARE * d))
    others = [a for a in active if a != "none"] or ["gaussian"]
    seen = 0
    for i, p in enumerate(picks):
        if p == "none":
            seen += 1
            if seen > cap:
                picks[i] = str(rng.choice(others))
    return picks


def _used(nodes: Sequence[Any], key: str) -> List[str]:
    """Sorted distinct node tags ``key`` (the factor tags of one SCM)."""
    return sorted({str(n.tags[key]) for n in nodes if key in n.tags})


def _dependency(block: int, slot: int, allowed: Optional[Sequence[str]]) -> str:
    """The slot's scheduled root-dependency mode; ``"independent"`` when ``allowed`` excludes it."""
    mode = S.root_dependency(block, slot)
    return "independent" if allowed is not None and mode not in allowed else mode


def _draw_equations(cid: S.ConfigId, a: np.ndarray, graph_record: Dict[str, Any], block: int,
                    rng: np.random.Generator, config_id: str,
                    catalog: Optional[Mapping[str, Sequence[str]]] = None) -> SCMSpec:
    """Steps 2–5 of the module docstring; ``catalog`` (keys ``mechanism``, ``noise``, ``root``)
    restricts the categories drawn from (a training prior, :mod:`.prior`); default: the paper's."""
    from .distributions import PAPER_NOISES, PAPER_ROOTS
    from .mechanisms import MECHANISM_TAGS, kinds_for_tag
    from .stressors import EQUATION_STRESSORS

    catalog = catalog or {}
    MECHANISM_TAGS = tuple(catalog.get("mechanism", MECHANISM_TAGS))  # noqa: N806 (shadows the catalogue)
    PAPER_NOISES = tuple(catalog.get("noise", PAPER_NOISES))  # noqa: N806
    PAPER_ROOTS = tuple(catalog.get("root", PAPER_ROOTS))  # noqa: N806
    d = cid.d
    names = [f"X{i}" for i in range(d)]
    stressors = S.difficulty(block, cid.slot)
    dependency = _dependency(block, cid.slot, catalog.get("root_dependency"))
    root_idx = [j for j in range(d) if not a[:, j].any()]
    nonroot_idx = [j for j in range(d) if a[:, j].any()]
    active_mech = sorted(rng.choice(MECHANISM_TAGS, size=_active_count(d, len(MECHANISM_TAGS), rng),
                                    replace=False).tolist())
    active_noise = sorted(rng.choice(PAPER_NOISES, size=_active_count(d, len(PAPER_NOISES), rng),
                                     replace=False).tolist())
    active_roots = sorted(rng.choice(PAPER_ROOTS, size=root_family_count(len(root_idx), len(PAPER_ROOTS), rng),
                                     replace=False).tolist())
    noise_of = dict(zip(nonroot_idx, assign_noises(len(nonroot_idx), active_noise, rng, d)))
    nodes = []
    for j in range(d):
        parents = [names[i] for i in np.flatnonzero(a[:, j])]
        tag = str(rng.choice(active_mech))
        kinds = kinds_for_tag(tag)
        kind = str(kinds[int(rng.integers(len(kinds)))])
        node = node_from_components(names[j], parents, rng, mechanism=kind, noise=noise_of.get(j, "none"),
                                    root=str(rng.choice(active_roots)), tags={"mechanism_kind": kind} if parents
                                    else None)
        if "high_noise" in stressors and node.noise is not None:
            node = attrs.evolve(node, noise=ComponentSpec(kind=node.noise.kind, params={
                **node.noise.params, "extra_scale": HIGH_NOISE_SCALE}))
        nodes.append(node)
    root_dependency = None
    if dependency != "independent":
        block_names = [names[j] for j in root_idx]
        params = component_class("root_dependency", dependency).draw(len(block_names), rng)
        root_dependency = ComponentSpec(kind=dependency, params={**params, "nodes": block_names})
        for j in root_idx:  # their marginals come from the joint block (column-standardised)
            nodes[j] = attrs.evolve(nodes[j], tags={**nodes[j].tags, "root": f"dependent:{dependency}"},
                                    root_distribution=ComponentSpec(kind="gaussian",
                                                                    params={"loc": 0.0, "scale": 1.0}))
    spec_stressors = [ComponentSpec(kind=s, params=component_class("stressor", s).draw(d, names, rng))
                      for s in stressors if s not in EQUATION_STRESSORS]
    metadata: Dict[str, Any] = {
        "generator": GENERATOR_VERSION, "config_id": config_id, "release": cid.release,
        **({"round": cid.round} if cid.round is not None else {}),
        "graph": cid.graph, "d": d, "slot": cid.slot, **graph_record, "n_roots": len(root_idx),
        "mechanisms": _used(nodes, "mechanism"), "noises": _used(nodes, "noise"), "roots": _used(nodes, "root"),
        "active_mechanisms": active_mech, "active_noises": active_noise, "active_roots": active_roots,
        "root_dependency": dependency,
        "difficulty": list(stressors) or ["clean"], "difficulty_level": S.difficulty_level(stressors),
    }
    spec = SCMSpec(id=config_id, nodes=nodes, root_dependency=root_dependency, stressors=spec_stressors,
                   metadata=metadata)
    strength = ({names[j]: WEAK_SIGNAL_STRENGTH for j in nonroot_idx} if "weak_signal" in stressors else None)
    return calibrate_outputs(spec, n=PILOT_N, seed=int(rng.integers(2**63)), strength=strength)


def release_gate_cells() -> List[Tuple[str, str, int, str]]:
    """The cells the release gate of :func:`pilot_audit` audits, as ``(family, split, replicate, protocol)``.

    Both splits × 5 replicates of the default protocol under the family name
    ``"synthetic"``, with :func:`.audits.audit_cell`'s release thresholds. A
    spec :func:`generate_spec` returns has passed every one of them, so
    ``arena audit`` reuses these results instead of sampling and auditing
    the same ten tables again (:meth:`SyntheticFamily.release_gate`).
    """
    from causalarena.protocol import N_REPLICATES

    return [("synthetic", split, rep, "default") for split in ("obs", "obs_int") for rep in range(N_REPLICATES)]


def pilot_audit(spec: SCMSpec) -> List[str]:
    """The App. A.2 dataset audits: a pilot obs and obs+int table, then the release gate.

    The release gate audits the tables the protocol will actually ship
    (both splits × 5 replicates of the default protocol, the family's own
    cell seeds): "generated files enter the release only after passing the
    audit rules" (App. A.1). Deep chains of super-linear mechanisms can pass
    a pilot and still overflow on another sample; this catches them.
    """
    from causalarena.protocol import N_REPLICATES

    from .audits import audit_cell

    scm = spec.compile()
    cells = [(PILOT_FAMILY, split, 0, PILOT_MAX_ABS_CORR) for split in ("obs", "obs_int")]
    cells += [(family, split, rep, None) for family, split, rep, _ in release_gate_cells()]
    assert N_REPLICATES == len(release_gate_cells()) // 2
    for family, split, rep, corr in cells:
        kwargs = {"max_abs_corr": corr} if corr is not None else {}
        problems = audit_cell(spec, family, split, rep, scm=scm, **kwargs)
        if problems:
            return problems
    return []


def _redraw_nodes(spec: SCMSpec, names: Sequence[str], rng: np.random.Generator, high_noise: bool,
                  new_kinds: Sequence[str] = ()) -> SCMSpec:
    """Redraw the parameters of the named nodes.

    Kinds are kept (so the factor tags stay), except for the nodes in
    ``new_kinds`` (implicated again after a redraw: e.g. a noiseless
    monotone copy of its parent, which no parameter draw can fix): they get a
    new mechanism tag and a noise family other than "none", both from the
    SCM's active families, and their tags follow.
    """
    from .mechanisms import kinds_for_tag

    nodes = list(spec.nodes)
    meta = spec.metadata
    for i, node in enumerate(nodes):
        if node.name in new_kinds and node.role == "mechanism":
            tag = str(rng.choice(meta["active_mechanisms"]))
            kinds = kinds_for_tag(tag)
            kind = str(kinds[int(rng.integers(len(kinds)))])
            noisy = [nz for nz in meta["active_noises"] if nz != "none"] or ["gaussian"]
            noise_kind = str(rng.choice(noisy))
            nodes[i] = attrs.evolve(
                node, mechanism=ComponentSpec(kind=kind, params={}),
                noise=ComponentSpec(kind=noise_kind, params={}),
                tags={**node.tags, "mechanism": tag, "mechanism_kind": kind, "noise": noise_kind})
    dep = spec.root_dependency
    for i, node in enumerate(nodes):
        if node.name not in names:
            continue
        if node.role == "root":
            if dep is not None and node.name in dep.params["nodes"]:
                block = list(dep.params["nodes"])
                dep = ComponentSpec(kind=dep.kind, params={**component_class("root_dependency", dep.kind).draw(len(block), rng),
                                                           "nodes": block})
            else:
                kind = node.root_distribution.kind
                nodes[i] = attrs.evolve(node, root_distribution=ComponentSpec(
                    kind=kind, params=component_class("root_distribution", kind).draw(rng)))
            continue
        k = len(node.parents)
        mech = ComponentSpec(kind=node.mechanism.kind, params=component_class("mechanism", node.mechanism.kind).draw(k, rng))
        noise = node.noise
        if noise is not None:
            params = component_class("noise", noise.kind).draw(rng, k=k)
            if high_noise:
                params["extra_scale"] = HIGH_NOISE_SCALE
            noise = ComponentSpec(kind=noise.kind, params=params)
        nodes[i] = attrs.evolve(node, mechanism=mech, noise=noise)
    metadata = {**meta, "mechanisms": _used(nodes, "mechanism"), "noises": _used(nodes, "noise")}
    return attrs.evolve(spec, nodes=nodes, root_dependency=dep, metadata=metadata)


def _implicated(problem: str, spec: SCMSpec) -> List[str]:
    """The node(s) a pilot problem names; for a pair, the later one in causal order (its equation is redrawn)."""
    import re

    names = set(spec.names)
    text = problem if problem.startswith("non-finite") else problem.split("(")[0]
    found = [t for t in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if t in names]
    order = {spec.names[j]: pos for pos, j in enumerate(spec.topological_order())}
    if problem.startswith("near-duplicate") and len(found) >= 2:
        return [max(found[:2], key=order.__getitem__)]
    if problem.startswith("non-finite") and found:
        return [min(found, key=order.__getitem__)]  # the first to overflow; the rest inherit it
    return found[:1]


def generate_spec(config_id: str, key: Optional[str] = None) -> SCMSpec:
    """Generate the SCM of a configuration id, deterministically.

    Args:
        config_id: ``er-d10-003`` (public), ``er-d10-r013`` (reserved) or
            ``er-d10-f2-003`` (fresh round 2); see :mod:`.schedule`.
        key: operator key for reserved/fresh ids (default: the environment
            variable ``CAUSALARENA_RESERVED_KEY``).

    Returns:
        The audited :class:`SCMSpec`; ``spec.metadata`` holds the factor tags
        and the resample statistics (graph and data attempts, rejection
        reasons by key).

    Bounded resampling: a pilot failure that names variables (near-duplicate
    pair, near-constant column, dominant category) redraws the parameters of
    the variable at fault (the later one of a pair) and recalibrates; other
    failures, and every :data:`REDRAW_GRAPH_EVERY` attempts, redraw the graph
    and all equations; at most :data:`MAX_DATA_ATTEMPTS` attempts.

    Raises:
        ValueError: malformed id.
        ReservedKeyError: reserved/fresh id without the key.
        RuntimeError: no draw passed the audits in MAX_DATA_ATTEMPTS tries.
    """
    cid = S.parse_id(config_id)
    return generate_from(cid, config_id, S.config_seed(config_id, key=key))


def generate_from(cid: S.ConfigId, config_id: str, seed: int, slot: Optional[int] = None,
                  catalog: Optional[Mapping[str, Sequence[str]]] = None,
                  dependent_modes: Optional[Sequence[str]] = None) -> SCMSpec:
    """:func:`generate_spec`'s steps for a parsed id and its seed (the grid's SCMs and a training prior's).

    Args:
        cid: the configuration (graph family, d, slot, release); ``d`` may lie
            off the grid (the schedule then uses the nearest grid block).
        config_id: the id recorded in ``spec.metadata``.
        seed: the generator's seed.
        slot: the schedule slot (difficulty, root dependency); default ``cid.slot``.
        catalog: categories to draw from (``mechanism``, ``noise``, ``root``;
            :mod:`.prior`); default the paper's full catalogue.
        dependent_modes: the allowed root-dependency modes; a slot whose
            scheduled mode is not among them uses independent roots
            (default: every mode).

    Raises:
        RuntimeError: no draw passed the audits in MAX_DATA_ATTEMPTS tries.
    """
    from .graphs import sample_graph

    rng = np.random.default_rng(seed)
    block = S.block_index(cid.graph, cid.d)
    if slot is not None:
        cid = cid._replace(slot=int(slot))
    catalog = dict(catalog or {})
    if dependent_modes is not None:
        catalog["root_dependency"] = tuple(dependent_modes)
    min_roots = 1 if _dependency(block, cid.slot, catalog.get("root_dependency")) == "independent" else 2
    stressors = S.difficulty(block, cid.slot)
    rejections: Dict[str, int] = {}
    graph_attempts = 0
    graph_rejections: Dict[str, int] = {}
    spec: Optional[SCMSpec] = None
    redraw: List[str] = []
    implicated: Dict[str, int] = {}
    for attempt in range(1, MAX_DATA_ATTEMPTS + 1):
        if spec is None or not redraw or (attempt - 1) % REDRAW_GRAPH_EVERY == 0:
            a, graph_record = sample_graph(cid.graph, cid.d, rng, min_roots=min_roots)
            graph_record = dict(graph_record)
            graph_attempts += int(graph_record.pop("graph_attempts", 1))
            for k, v in graph_record.pop("graph_rejections", {}).items():
                graph_rejections[k] = graph_rejections.get(k, 0) + v
            with np.errstate(all="ignore"):
                spec = _draw_equations(cid, a, graph_record, block, rng, config_id, catalog)
            implicated = {}
        else:
            strength = ({n.name: WEAK_SIGNAL_STRENGTH for n in spec.nodes if n.role == "mechanism"}
                        if "weak_signal" in stressors else None)
            again = [name for name in redraw if implicated.get(name, 0) >= 2]
            with np.errstate(all="ignore"):
                spec = calibrate_outputs(_redraw_nodes(spec, redraw, rng, "high_noise" in stressors, again),
                                         n=PILOT_N, seed=int(rng.integers(2**63)), strength=strength)
        try:
            with np.errstate(all="ignore"):  # overflow is what the audit is for: it rejects, it need not warn
                problems = pilot_audit(spec)
        except (ArithmeticError, ValueError) as exc:
            problems = [f"non-finite pilot ({type(exc).__name__}: {exc})"]
        if not problems:
            spec.metadata.update(graph_attempts=graph_attempts, graph_rejections=graph_rejections,
                                 data_attempts=attempt, data_rejections=rejections)
            return spec
        reason = problems[0].split(" ")[0]
        if reason == "intervention":
            reason = " ".join(problems[0].split(" ")[:2])
        rejections[reason] = rejections.get(reason, 0) + 1
        local = ("near-duplicate", "near-constant", "dominant-category", "boundary-mass", "non-finite")
        redraw = sorted({name for p in problems if p.split(" ")[0] in local for name in _implicated(p, spec)})
        if any(p.split(" ")[0] not in local for p in problems):
            redraw = []  # anything else: a new graph and new equations
        for name in redraw:
            implicated[name] = implicated.get(name, 0) + 1
    raise RuntimeError(f"{config_id}: no SCM passed the audits in {MAX_DATA_ATTEMPTS} attempts: {rejections}")


def edge_tags(spec: SCMSpec) -> List[Dict[str, Any]]:
    """Edge-level factor tags: each edge i → j carries its child's equation tags (App. A.1)."""
    out = []
    for node in spec.nodes:
        for p in node.parents:
            out.append({"parent": p, "child": node.name, "mechanism": node.tags.get("mechanism"),
                        "noise": node.tags.get("noise")})
    return out


@attrs.define(eq=False)
class FailedInstance(Instance):
    """A configuration whose generation failed its audits: every cell fails with the reason."""

    family: str
    scm_id: str
    error: str
    n_replicates: int = 5
    splits: Sequence[str] = ("obs", "obs_int")
    factors: Dict[str, Any] = attrs.field(factory=dict)

    def dataset(self, split: str, replicate: int, standardise: bool = True, protocol: str = "default",
                n: Optional[int] = None):
        raise RuntimeError(f"{self.family}/{self.scm_id} was not generated: {self.error}")

    def true_adjacency(self):
        raise RuntimeError(f"{self.family}/{self.scm_id} was not generated: {self.error}")

    def fingerprint(self) -> str:
        import hashlib

        return hashlib.sha256(self.error.encode()).hexdigest()[:16]


def _tuple(value: Any, cast=str) -> Tuple[Any, ...]:
    """A command-line scalar (``synthetic.dims=10``) or a list, as a tuple."""
    if isinstance(value, (list, tuple)):
        return tuple(cast(v) for v in value)
    return (cast(value),)


class SyntheticFamily(Family):
    """The synthetic SCM grid (App. A.1): 1,000 configurations, 500 public + 500 reserved.

    Options (``arena run --family-option synthetic.<key>=<value>``):
        dims: dimensions (default ``10``; the grid has 10, 20, 30, 50, 100).
        graphs: graph families (default: all 10).
        per_cell: slots per graph family × dimension (default 2; at most 10
            for ``pool=public`` or ``reserved``, 20 for ``all`` and fresh rounds).
        pool: ``public`` (default), ``reserved`` or ``all`` (reserved and
            fresh need ``CAUSALARENA_RESERVED_KEY``).
        fresh: a round number R: draw the never-released configurations of
            round R over the same grid instead (``arena run --fresh R``).
        n_replicates: replicates per split (default 5, App. B.1).

    The default selection (d = 10, every graph family, the first two public
    slots: one clean and one single-stressor SCM each) is the demo's; the
    suites and ``arena audit`` select more. The full 1,000-configuration
    pool is ``dims=10,20,30,50,100 per_cell=20 pool=all`` (reserved ids need
    the key to be generated, not to be listed).

    Listing (:meth:`ids`, :meth:`listing`) reads everything from the ids and
    generates no SCM; :meth:`select` and :meth:`instance` generate on request.
    """

    name = "synthetic"
    takes_fresh: ClassVar[bool] = True
    suites: ClassVar[Tuple[Suite, ...]] = ()

    def __init__(self, dims: Any = (10,), graphs: Any = None, per_cell: int = 2, pool: str = "public",
                 fresh: Optional[int] = None, n_replicates: int = 5, **options: Any) -> None:
        if options:
            raise ValueError(f"synthetic: unknown option(s) {sorted(options)}; "
                             "known: dims, graphs, per_cell, pool, fresh, n_replicates")
        for name, value in (("per_cell", per_cell), ("n_replicates", n_replicates)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"synthetic: option {name} must be a positive integer, got {value!r}")
        try:
            self.dims = _tuple(dims, int)
        except (TypeError, ValueError):
            raise ValueError(f"synthetic: option dims must be integers, got {dims!r}") from None
        bad = [d for d in self.dims if d not in S.DIMS]
        if bad:
            raise ValueError(f"synthetic: option dims must be grid dimensions {list(S.DIMS)} (App. A.1), got {bad}")
        self.graphs = _tuple(graphs) if graphs is not None else S.graph_families()
        unknown = [g for g in self.graphs if g not in S.graph_families()]
        if unknown:
            raise ValueError(f"synthetic: unknown graph families {unknown}; known: {list(S.graph_families())}")
        if pool not in ("public", "reserved", "all"):
            raise ValueError(f"synthetic: option pool must be public, reserved or all, got {pool!r}")
        if fresh is not None:
            if isinstance(fresh, bool) or not isinstance(fresh, int) or fresh < 1:
                raise ValueError(f"synthetic: option fresh must be a round number >= 1, got {fresh!r}")
        limit = S.SLOTS_PER_BLOCK if (pool == "all" or fresh is not None) else len(S.PUBLIC_SLOTS)
        if per_cell > limit:
            raise ValueError(f"synthetic: per_cell {per_cell} exceeds the {limit} slots of "
                             f"{'a fresh round' if fresh is not None else f'pool={pool}'}")
        self.per_cell = int(per_cell)
        self.pool = pool
        self.fresh = fresh
        self.n_replicates = int(n_replicates)
        self._cache: Dict[str, SCMInstance] = {}
        self._gated: Dict[str, SCMSpec] = {}  # scm id -> the spec generate_spec returned (release gate passed)
        # the checked options, so that a worker process rebuilds the same family (``audit``)
        super().__init__(dims=self.dims, graphs=self.graphs, per_cell=self.per_cell, pool=self.pool,
                         fresh=self.fresh, n_replicates=self.n_replicates)

    def slots(self) -> Tuple[int, ...]:
        if self.fresh is not None or self.pool == "all":
            return tuple(range(self.per_cell))
        base = S.PUBLIC_SLOTS if self.pool == "public" else S.RESERVED_SLOTS
        return base[: self.per_cell]

    def config_ids(self) -> List[str]:
        """The configuration ids of the selection (graph family outer, then d, then slot); nothing generated."""
        return [S.make_id(g, d, k, self.fresh) for g in self.graphs for d in self.dims for k in self.slots()]

    def ids(self) -> List[str]:
        """Same as :meth:`config_ids` (the :class:`~causalarena.family.Family` name)."""
        return self.config_ids()

    def listing(self) -> List[InstanceSummary]:
        """One summary per selected id, ``d`` read from the id: no SCM is generated (1,000 ids in milliseconds).

        A configuration whose generation would fail its audits is only known
        by generating it, so ``error`` is empty here (``arena audit`` finds those).
        """
        return [InstanceSummary(scm_id=cid, d=S.parse_id(cid).d, splits=SPLITS, n_replicates=self.n_replicates)
                for cid in self.config_ids()]

    def select(self, scm_ids: Sequence[str]) -> List[Any]:
        """Generate the instances of the requested ids, inside the option selection or not.

        Ids that are not synthetic ids (another family's, no known graph family
        prefix) are skipped for the caller to report; an id of this grid's shape
        that is invalid (off-grid d, wrong half, non-canonical) raises.

        Raises:
            ValueError: an invalid synthetic id (the message says how to write it).
            ReservedKeyError: a reserved or fresh id without the operator's key.
        """
        out = []
        for sid in scm_ids:
            if not S.looks_like_id(sid):
                continue
            out.append(self.instance(sid))
        return out

    def instance(self, scm_id: str) -> Any:
        """The instance of an id; a configuration no draw could pass the audits for becomes a
        :class:`FailedInstance` (its cells are recorded as failed with the reason, the run goes on).

        Raises:
            ValueError: malformed id; ReservedKeyError: reserved/fresh id without the key.
        """
        if scm_id not in self._cache:
            try:
                spec = generate_spec(scm_id)
            except RuntimeError as exc:
                self._cache[scm_id] = FailedInstance(family=self.name, scm_id=scm_id, error=str(exc),
                                                     n_replicates=self.n_replicates)
                return self._cache[scm_id]
            self._cache[scm_id] = SCMInstance(family=self.name, scm_id=scm_id, spec=spec,
                                              n_replicates=self.n_replicates, factors=dict(spec.metadata))
            self._gated[scm_id] = spec
        return self._cache[scm_id]

    def release_gate(self, instance: Any) -> List[Tuple[str, str, int, str]]:
        """The cells of ``instance`` its release gate has audited and passed in this process.

        :func:`generate_spec` returns only specs that passed every cell of
        :func:`release_gate_cells`; for an instance this family generated (the
        same spec object, not a copy or a spec read from disk) those results
        stand and :func:`.audits.audit_instance` need not repeat them. Empty for
        anything else.
        """
        scm_id = getattr(instance, "scm_id", None)
        if scm_id is None or self._gated.get(scm_id) is not getattr(instance, "spec", None):
            return []
        return release_gate_cells()

    def instances(self) -> List[SCMInstance]:
        return [self.instance(cid) for cid in self.config_ids()]

    def expected_counts(self) -> Dict[str, Dict[str, int]]:
        """Counts the schedule prescribes for the selected ids (``arena audit`` compares them)."""
        return S.schedule_counts(self.config_ids())

    def audit(self, scm_ids: Optional[Sequence[str]] = None, splits: Optional[Sequence[str]] = None,
              replicates: Optional[int] = None, jobs: int = 1) -> List[Dict[str, Any]]:
        """Regenerate the selected configurations and run the App. A.2 audits on their released tables.

        Args:
            scm_ids: audit these ids, inside the option selection or not, as :meth:`select`
                builds them (non-synthetic ids skipped; default: every selected id).
            splits, replicates: which tables (default: both splits, every replicate).
            jobs: worker processes (:func:`.audits.audit_family`).

        Returns:
            One record per id, in selection (or request) order: the keys of
            :meth:`causalarena.family.Family.audit` (``failed_tables`` counts
            distinct failed (split, replicate) tables; ``errors`` holds the
            generation error, if any) plus ``generation`` (resample
            statistics), ``factors``, ``node_tags``, ``generate_seconds`` and
            ``audit_seconds``, which :meth:`audit_details` renders.
        """
        from .audits import audit_family

        ids = self.config_ids()
        if scm_ids:
            # every requested synthetic id, inside the option selection or not (as :meth:`select`
            # builds it), once each in request order; other families' ids are skipped
            ids = list(dict.fromkeys(sid for sid in scm_ids if S.looks_like_id(sid)))
        records = audit_family(self.name, self.options, ids, jobs=jobs, splits=splits, replicates=replicates)
        for rec in records:
            rec["failed_tables"] = len({(f["split"], f["replicate"]) for f in rec.get("failures", [])})
            rec["errors"] = [rec["generation_error"]] if rec.get("generation_error") else []
        return records

    def audit_details(self, records: List[Dict[str, Any]]) -> Tuple[List[Any], bool]:
        """The resample statistics and the factor counts against the schedule (rich tables).

        Returns:
            ``(renderables, ok)``: a "resample statistics" table (graph and data
            attempts, rejections by reason), a "factor counts" table (SCMs per
            factor value, the schedule's expected count, nodes for node-level
            tags) and one line saying whether the counts match the schedule;
            ``ok`` is False when any expected count differs.
        """
        from rich.table import Table

        from .audits import summarise_audit

        summary = summarise_audit(records)
        out: List[Any] = []
        ok = True
        table = Table(title="resample statistics (App. A.2 gates, bounded resampling)")
        for c in ("stage", "attempts mean", "attempts max", "rejections by reason"):
            table.add_column(c)
        for stage in ("graph", "data"):
            att = summary[f"{stage}_attempts"]
            table.add_row(stage, f"{sum(att) / len(att):.2f}" if att else "–", str(max(att)) if att else "–",
                          ", ".join(f"{k} {v}" for k, v in sorted(summary[f"{stage}_rejections"].items())) or "none")
        out.append(table)
        expected = self.expected_counts()
        counts = Table(title="factor counts (SCMs carrying the tag; nodes for node-level tags)")
        for c in ("factor", "value", "SCMs", "expected", "nodes"):
            counts.add_column(c)
        for key, values in summary["counts"].items():
            node_key = {"mechanisms": "mechanism", "noises": "noise", "roots": "root"}.get(key)
            for value, n in sorted(values.items(), key=lambda kv: (-kv[1], kv[0])):
                exp = expected.get(key, {}).get(value)
                nodes = summary["node_counts"][node_key].get(value, "") if node_key else ""
                counts.add_row(key, value, str(n), "" if exp is None else str(exp), str(nodes))
        out.append(counts)
        if expected:
            mismatched = [f"{k}={v}: {summary['counts'].get(k, {}).get(v, 0)} vs {n}"
                          for k, vals in expected.items() for v, n in vals.items()
                          if summary["counts"].get(k, {}).get(v, 0) != n]
            if mismatched:
                out.append(f"[red]counts differ from the schedule[/red]: {mismatched[:10]}")
                ok = False
            else:
                out.append("[green]counts match the grid's schedule[/green]")
        return out, ok


#: App. A.2 suites: the d = 30 representative subset, 10 public SCMs per graph family
SyntheticFamily.suites = (
    Suite(name="sample-size", family="synthetic",
          description="d = 30, 10 SCMs per graph family, n in {100, ..., 10000}, obs-only (App. A.2)",
          family_options={"dims": (30,), "per_cell": 10, "pool": "public"}, splits=("obs",),
          n_values=(100, 200, 500, 1000, 2000, 5000, 10000)),
    Suite(name="intervention-protocols", family="synthetic",
          description="d = 30, 100 SCMs, the six intervention protocols on obs+int (App. A.2)",
          family_options={"dims": (30,), "per_cell": 10, "pool": "public"}, splits=("obs_int",),
          protocols=("default", "fixed_setpoint", "parameter_shift", "high_fraction", "multi_target",
                     "dense_mixed")),
)
