"""Executable structural causal models.

An :class:`SCMSpec` is declarative data (JSON-serialisable): nodes with a
role, either a ``root_distribution`` or a ``mechanism`` over *exactly* the
node's graph parents, an additive ``noise``, an ``intervenable`` flag and
factor tags. :meth:`SCMSpec.compile` turns it into an :class:`SCM`, a
vectorised sampler that evaluates nodes in topological order.

Components are plugins: a spec names each one by ``kind`` and the compiler
resolves it through :func:`causalarena.plugins.load_component` (record kinds
``root_distribution``, ``mechanism``, ``noise``, ``root_dependency``,
``stressor``), so a distribution adds one by yielding a
:class:`~causalarena.records.ComponentInfo` from its ``arena_components()``
hook. The core's basic set is the built-in plugin :mod:`causalarena.components`;
the rest of the App. A.1 catalogue ships with ``arena-family-synthetic``. A
component is one small class::

    class Softplus(Mechanism):
        kind = "softplus"
        parameters = ("weights", "bias")
        def __call__(self, parents):           # (n × k) -> (n,)
            return np.logaddexp(0.0, parents @ self.weights + self.bias)
        @classmethod
        def draw(cls, k, rng):                  # paper ranges -> params
            return {"weights": ..., "bias": ...}

    @hookimpl
    def arena_components():
        yield ComponentInfo(kind="mechanism", name="softplus", factory="my_pkg.mod:Softplus")

A spec naming a component no installed distribution provides fails at
validation with :class:`UnknownComponentSpecError` (an
:class:`~causalarena.plugins.UnknownComponentError` and a :class:`SpecError`),
naming the component, the node and the distribution to install.

Parameters are stored in the spec (a spec is fully explicit: weights are
data), so a spec regenerates the same SCM bit for bit. ``draw`` samples
parameters from the ranges of the CausalArena paper, App. A.1.

Sampling draws every exogenous term first (one (n × d) matrix, node by node
in topological order), then propagates. Interventions are applied per row
(``intervention_mask``), and descendants are recomputed in the same pass, so
the same exogenous draw with and without interventions differs exactly on the
intervened rows' targets and their descendants.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, ClassVar, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import attrs
import numpy as np

from .plugins import UnknownComponentError, default_registry, load_component

ROLES = ("root", "mechanism")

# ---------------------------------------------------------------------------
# component registries
# ---------------------------------------------------------------------------


class Component:
    """A parametrised spec component (root distribution, mechanism or noise).

    Subclasses declare ``kind`` (the name used in specs) and take their
    parameters as keyword arguments. ``params()`` returns them JSON-ready.
    """

    kind: ClassVar[str] = ""
    #: the parameter names this component accepts (anything else is an error)
    parameters: ClassVar[tuple] = ()

    def __init__(self, **params: Any) -> None:
        allowed = self.accepted_parameters()
        unknown = sorted(set(params) - set(allowed))
        if unknown:
            import difflib

            hints = [f"{u!r} (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(u, allowed, 1)) else repr(u)
                     for u in unknown]
            raise ValueError(f"{self.kind}: unknown parameter(s) {', '.join(hints)}; accepted: {list(allowed)}")
        self._params = dict(params)
        for key, value in params.items():
            setattr(self, key, _numeric_array(value) if isinstance(value, list) else value)
        self.validate()

    @classmethod
    def accepted_parameters(cls) -> tuple:
        return tuple(cls.parameters)

    def validate(self) -> None:
        """Raise ValueError naming the bad parameter; default accepts the declared ones."""

    def params(self) -> Dict[str, Any]:
        return dict(self._params)

    def _require(self, *names: str) -> None:
        missing = [n for n in names if n not in self._params]
        if missing:
            raise ValueError(f"{self.kind}: missing parameter(s) {missing}")

    def _positive(self, *names: str) -> None:
        for n in names:
            v = self._params.get(n)
            if v is None or not float(v) > 0 or not math.isfinite(float(v)):
                raise ValueError(f"{self.kind}: parameter {n!r} must be finite and > 0, got {v!r}")


def _numeric_array(value: list) -> Any:
    """A list parameter as a float array when it is numeric (weights, …); other lists (names) unchanged."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return value


class RootDistribution(Component):
    """Distribution of a root node: ``sample(n, rng) -> (n,)``.

    ``discrete`` marks distributions with a finite or countable support
    (audited for a dominant category, App. A.2); ``boundaries()`` lists
    explicit clipping points (audited for boundary mass).
    """

    discrete: ClassVar[bool] = False

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def boundaries(self) -> List[float]:
        return []

    @classmethod
    def draw(cls, rng: np.random.Generator) -> Dict[str, Any]:  # pragma: no cover
        raise NotImplementedError


class Noise(Component):
    """A node's noise channel.

    Exogenous terms are drawn up front (``sample(n, rng)`` → (n,) or
    (n × width)), so the same draw can be propagated with and without
    interventions; ``apply(signal, eps, parents)`` combines them with the
    mechanism output. The default is additive: ``signal + eps``.
    Non-additive channels (multiplicative, heteroskedastic, quantised,
    censored …) override ``apply`` and, when they need the signal's scale,
    ``calibrate``.

    Every noise also accepts ``extra_scale`` (the high-noise stressor of
    App. A.1 "Difficulty variants"): Gaussian noise of that scale added after
    the node's own noise, drawn as one more exogenous column.
    """

    #: exogenous columns one node of this noise consumes
    width: ClassVar[int] = 1

    @classmethod
    def accepted_parameters(cls) -> tuple:
        return tuple(cls.parameters) + ("extra_scale",)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def apply(self, signal: np.ndarray, eps: np.ndarray, parents: np.ndarray) -> np.ndarray:
        """Node value from the mechanism output (n,), the exogenous block (n × width) and parents (n × k)."""
        return signal + eps[:, 0]

    def calibrate(self, signal: np.ndarray, eps: np.ndarray, parents: np.ndarray) -> Dict[str, Any]:
        """Parameter updates fixed on a pilot sample (e.g. target R², censoring points); default none."""
        return {}

    def boundaries(self) -> List[float]:
        """Explicit clipping boundaries of the node value (audited: ≤ 10 % mass, App. A.2)."""
        return []

    @classmethod
    def draw(cls, rng: np.random.Generator, k: Optional[int] = None) -> Dict[str, Any]:  # pragma: no cover
        """Parameters in the paper's ranges; ``k`` = the node's number of parents (for parent-driven noise)."""
        raise NotImplementedError


class Mechanism(Component):
    """Structural function of a node's parents: ``__call__((n × k)) -> (n,)``.

    ``k`` is the number of graph parents, in the order of ``NodeSpec.parents``.
    Every mechanism also accepts two optional output parameters, ``out_loc``
    and ``out_scale``: the sampler evaluates ``(f(x) − out_loc) / out_scale``
    before adding noise. Generators use them to keep deep nonlinear chains on
    a unit scale (stored in the spec, so the SCM stays explicit data).
    """

    #: factor tag (App. A.1 scores some kinds as one tag, e.g. both products
    #: as "multiplicative"); defaults to ``kind``
    tag: ClassVar[str] = ""

    @classmethod
    def factor_tag(cls) -> str:
        return cls.tag or cls.kind

    @classmethod
    def accepted_parameters(cls) -> tuple:
        return tuple(cls.parameters) + ("out_loc", "out_scale")

    #: number of parents the parameters were drawn for (checked at compile)
    def n_inputs(self) -> Optional[int]:
        w = self._params.get("weights")
        return None if w is None else len(w)

    def __call__(self, parents: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def calibrate(self, parents: np.ndarray) -> Dict[str, Any]:
        """Parameter updates fixed on the pilot's parent values (n × k), e.g. a rank reference; default none."""
        return {}

    @classmethod
    def draw(cls, k: int, rng: np.random.Generator) -> Dict[str, Any]:  # pragma: no cover
        raise NotImplementedError


class RootDependency(Component):
    """A joint sampler for a block of root nodes (App. A.1 "Root dependency").

    Parameters always include ``nodes`` (the root names of the block, in
    column order); ``sample(n, rng)`` returns (n × r) column-standardised
    values (population moments, so a column has mean 0 and variance 1 for any
    n) that replace those roots' own draws.
    """

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def draw(cls, r: int, rng: np.random.Generator) -> Dict[str, Any]:  # pragma: no cover
        raise NotImplementedError


class Stressor(Component):
    """A difficulty stressor applied outside the structural equations (App. A.1 "Difficulty variants").

    ``stage = "observation"``: ``apply(x, intervention_mask, rng, names)``
    transforms the sampled (n × d) table (warping, outliers, missingness,
    corruption) without changing the ground truth. ``stage =
    "intervention"``: read by :meth:`SCM.propagate` on intervened rows (soft
    interventions, interventional distribution shift).

    ``effect`` says what an intervention-stage stressor does there, so the
    core needs no stressor names: ``"soften"`` blends the structural value
    into hard-do entries with weight ``self.softness`` (in [0, 1]);
    ``"shift"`` maps the columns ``self.columns`` to ``value · scale + shift``
    (per column, from ``self.scale`` / ``self.shift``) on intervened rows
    before their descendants are computed. Observation stressors leave it "".
    """

    #: "observation" | "intervention"
    stage: ClassVar[str] = "observation"
    #: "" | "soften" | "shift" (intervention stage only, read by :meth:`SCM.propagate`)
    effect: ClassVar[str] = ""

    def apply(self, x: np.ndarray, intervention_mask: np.ndarray, rng: np.random.Generator,
              names: Sequence[str]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


#: component record kind → the base class its classes subclass
COMPONENT_BASES: Dict[str, type] = {
    "root_distribution": RootDistribution,
    "mechanism": Mechanism,
    "noise": Noise,
    "root_dependency": RootDependency,
    "stressor": Stressor,
}

#: (registry, {(kind, name): class}): classes resolved for the current default registry
_CLASS_CACHE: List[Any] = [None, {}]


def component_class(kind: str, name: str, where: str = "") -> Any:
    """The class of component ``name`` of record kind ``kind``, from the installed plugins.

    Resolved through :func:`causalarena.plugins.load_component` once per
    (kind, name) and per default registry (a new registry, e.g. inside
    :func:`~causalarena.plugins.temporary_plugins`, starts a new cache), so
    compiling many specs imports and looks up each class once.

    Args:
        kind: one of :data:`COMPONENT_BASES` (``"mechanism"`` …).
        name: the spec's ``kind`` string (``"linear"``).
        where: what names it, for the error (``"SCM 'x', node 'X3' mechanism"``).

    Raises:
        UnknownComponentSpecError: no installed distribution provides it (the
            message names the component, ``where``, the distribution that
            ships it when known, and what is installed).
        SpecError: the provided class is not a subclass of the kind's base
            class or declares another ``kind``.
    """
    registry = default_registry()
    if _CLASS_CACHE[0] is not registry:
        _CLASS_CACHE[0], _CLASS_CACHE[1] = registry, {}
    cache: Dict[Tuple[str, str], type] = _CLASS_CACHE[1]
    cls: Any = cache.get((kind, name))
    if cls is None:
        try:
            cls = load_component(kind, name, where)
        except UnknownComponentError as exc:
            raise UnknownComponentSpecError(str(exc)) from None
        base = COMPONENT_BASES[kind]
        if not (isinstance(cls, type) and issubclass(cls, base)) or getattr(cls, "kind", None) != name:
            info = registry.component(kind, name, where)
            raise SpecError(f"{where + ': ' if where else ''}{kind.replace('_', ' ')} {name!r} of "
                            f"{info.distribution} ({info.factory}) must be a {base.__name__} subclass with "
                            f"kind = {name!r}, got {cls!r}")
        cache[(kind, name)] = cls
    return cls


# ---------------------------------------------------------------------------
# the declarative spec
# ---------------------------------------------------------------------------


def _as_tuple(items: Iterable[Any]) -> tuple:
    """attrs converter: any iterable (list from JSON) to a tuple (typed, unlike ``converter=tuple``)."""
    return tuple(items)


@attrs.frozen(kw_only=True)
class ComponentSpec:
    """``{"kind": ..., "params": {...}}`` naming a registered component."""

    kind: str
    params: Dict[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "params": _jsonable(self.params)}

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any], where: str) -> "ComponentSpec":
        if not isinstance(obj, Mapping) or "kind" not in obj:
            raise SpecError(f"{where}: expected an object with 'kind', got {obj!r}")
        _no_unknown_keys(obj, ("kind", "params"), where)
        params = obj.get("params", {})
        if not isinstance(params, Mapping):
            raise SpecError(f"{where}.params: expected an object, got {type(params).__name__}")
        return cls(kind=str(obj["kind"]), params=dict(params))


@attrs.frozen(kw_only=True)
class NodeSpec:
    """One variable of an SCM.

    Attributes:
        name: variable name (unique).
        role: ``"root"`` (has ``root_distribution``, no parents) or
            ``"mechanism"`` (has ``mechanism`` over exactly ``parents``).
        parents: graph parents, in the order the mechanism reads them.
        root_distribution / mechanism / noise: component specs.
        intervenable: may be an intervention target.
        tags: factor tags φ (mechanism, noise, root tags; units; meaning …).
    """

    name: str
    role: str = attrs.field(validator=attrs.validators.in_(ROLES))
    parents: tuple = attrs.field(default=(), converter=_as_tuple)
    root_distribution: Optional[ComponentSpec] = None
    mechanism: Optional[ComponentSpec] = None
    noise: Optional[ComponentSpec] = None
    intervenable: bool = True
    tags: Dict[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict:
        out: Dict[str, Any] = {"name": self.name, "role": self.role, "parents": list(self.parents)}
        for key in ("root_distribution", "mechanism", "noise"):
            comp = getattr(self, key)
            if comp is not None:
                out[key] = comp.to_dict()
        if self.role == "mechanism" and self.noise is None:
            out["noise"] = None  # explicit: a noiseless equation is a choice, not a forgotten key
        out["intervenable"] = self.intervenable
        if self.tags:
            out["tags"] = _jsonable(self.tags)
        return out

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any], index: int) -> "NodeSpec":
        """Parse one node; strict: unknown keys, wrong types and a forgotten noise are errors.

        Raises:
            SpecError: naming the node (index and name) and the field.
        """
        where = f"nodes[{index}]"
        if not isinstance(obj, Mapping) or not isinstance(obj.get("name"), str) or not obj["name"]:
            raise SpecError(f"{where}: expected an object with a non-empty string 'name'")
        where = f"nodes[{index}] ({obj['name']!r})"
        _no_unknown_keys(obj, NODE_KEYS, where)
        parents = obj.get("parents", [])
        if not isinstance(parents, (list, tuple)) or not all(isinstance(p, str) for p in parents):
            raise SpecError(f"{where}.parents: expected a list of variable names, got {parents!r}")
        role = obj.get("role", "mechanism" if parents else "root")
        if role not in ROLES:
            raise SpecError(f"{where}.role: must be one of {list(ROLES)}, got {role!r}")
        intervenable = obj.get("intervenable", True)
        if not isinstance(intervenable, bool):
            raise SpecError(f"{where}.intervenable: expected true or false, got {intervenable!r}")
        tags = obj.get("tags", {})
        if not isinstance(tags, Mapping):
            raise SpecError(f"{where}.tags: expected an object, got {type(tags).__name__}")
        if role == "mechanism" and "noise" not in obj:
            raise SpecError(f"{where}.noise: required for a mechanism node; write \"noise\": null "
                            "for an equation without noise")
        if role == "root":
            extra = [k for k in ("mechanism", "noise") if obj.get(k) is not None]
            if extra:
                raise SpecError(f"{where}: a root node takes 'root_distribution' only, not {extra}")
        comps = {
            key: ComponentSpec.from_dict(obj[key], f"{where}.{key}")
            for key in ("root_distribution", "mechanism", "noise")
            if obj.get(key) is not None
        }
        return cls(name=obj["name"], role=role, parents=parents, intervenable=intervenable,
                   tags=dict(tags), **comps)


class SpecError(ValueError):
    """An invalid SCM spec; the message names the node and field."""


class UnknownComponentSpecError(UnknownComponentError, SpecError):
    """A spec names a component no installed distribution provides.

    Both an :class:`~causalarena.plugins.UnknownComponentError` and a
    :class:`SpecError`, so code that reports invalid specs reports it too.
    """


SPEC_FORMAT = "causalarena.scm/1"
SPEC_KEYS = ("format", "id", "nodes", "intervention_targets", "root_dependency", "stressors", "metadata")
NODE_KEYS = ("name", "role", "parents", "root_distribution", "mechanism", "noise", "intervenable", "tags")


def _no_unknown_keys(obj: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    import difflib

    unknown = [k for k in obj if k not in allowed]
    if unknown:
        hints = []
        for k in unknown:
            close = difflib.get_close_matches(str(k), allowed, 1)
            hints.append(f"{k!r} (did you mean {close[0]!r}?)" if close else repr(k))
        raise SpecError(f"{where}: unknown field(s) {', '.join(hints)}; allowed: {list(allowed)}")


@attrs.frozen(kw_only=True)
class SCMSpec:
    """A declarative, JSON-serialisable structural causal model.

    Attributes:
        id: identifier (``"synthetic/er-d10-000"``).
        nodes: node specs (any order; compiled in topological order).
        intervention_targets: the target pool of obs+int splits (names);
            empty → drawn by the protocol from intervenable nodes (App. A.1).
        root_dependency: optional joint sampler of a block of roots
            (:class:`RootDependency`; its ``params["nodes"]`` names them).
        stressors: difficulty stressors (:class:`Stressor` specs) applied to
            sampled tables or intervened rows.
        metadata: factor tags φ of the whole SCM (graph family, d, …).
    """

    id: str
    nodes: tuple = attrs.field(converter=_as_tuple)
    intervention_targets: tuple = attrs.field(default=(), converter=tuple)
    root_dependency: Optional[ComponentSpec] = None
    stressors: tuple = attrs.field(default=(), converter=_as_tuple)
    metadata: Dict[str, Any] = attrs.field(factory=dict)

    @property
    def names(self) -> List[str]:
        return [n.name for n in self.nodes]

    @property
    def d(self) -> int:
        return len(self.nodes)

    def adjacency(self) -> np.ndarray:
        """(d × d) int8 adjacency, ``A[i, j] = 1`` iff i → j, in node order."""
        index = {name: i for i, name in enumerate(self.names)}
        a = np.zeros((self.d, self.d), dtype=np.int8)
        for j, node in enumerate(self.nodes):
            for p in node.parents:
                a[index[p], j] = 1
        return a

    def to_dict(self) -> dict:
        return {
            "format": SPEC_FORMAT,
            "id": self.id,
            "nodes": [n.to_dict() for n in self.nodes],
            "intervention_targets": list(self.intervention_targets),
            **({"root_dependency": self.root_dependency.to_dict()} if self.root_dependency else {}),
            **({"stressors": [st.to_dict() for st in self.stressors]} if self.stressors else {}),
            "metadata": _jsonable(self.metadata),
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> "SCMSpec":
        """Build and validate a spec.

        Raises:
            SpecError: naming the node and field that is wrong.
        """
        if not isinstance(obj, Mapping) or "nodes" not in obj:
            raise SpecError("SCM spec: expected an object with 'nodes'")
        _no_unknown_keys(obj, SPEC_KEYS, "SCM spec")
        if obj.get("format", SPEC_FORMAT) != SPEC_FORMAT:
            raise SpecError(f"SCM spec: format {obj['format']!r} is not supported; this version reads {SPEC_FORMAT!r}")
        if not isinstance(obj.get("id"), str) or not obj["id"]:
            raise SpecError("SCM spec: 'id' must be a non-empty string (seeds are derived from it)")
        if not isinstance(obj["nodes"], (list, tuple)) or not obj["nodes"]:
            raise SpecError("SCM spec: 'nodes' must be a non-empty list")
        nodes = [NodeSpec.from_dict(n, i) for i, n in enumerate(obj["nodes"])]
        dep = obj.get("root_dependency")
        stressors = obj.get("stressors", [])
        if not isinstance(stressors, (list, tuple)):
            raise SpecError("SCM spec.stressors: expected a list of {kind, params} objects")
        spec = cls(id=obj["id"], nodes=nodes,
                   intervention_targets=obj.get("intervention_targets", ()),
                   root_dependency=None if dep is None else ComponentSpec.from_dict(dep, "SCM spec.root_dependency"),
                   stressors=[ComponentSpec.from_dict(st, f"SCM spec.stressors[{i}]")
                              for i, st in enumerate(stressors)],
                   metadata=dict(obj.get("metadata", {})))
        spec.validate()
        return spec

    @classmethod
    def from_json(cls, text: str) -> "SCMSpec":
        return cls.from_dict(json.loads(text))

    def topological_order(self) -> List[int]:
        """Node indices, parents first.

        Raises:
            SpecError: the graph has a cycle (names the nodes on it).
        """
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(range(self.d))
        g.add_edges_from(zip(*np.nonzero(self.adjacency())))
        try:
            # lexicographical order keeps the order stable across runs
            return list(nx.lexicographical_topological_sort(g))
        except nx.NetworkXUnfeasible:
            cycle = nx.find_cycle(g)
            names = " -> ".join(self.names[u] for u, _ in cycle) + f" -> {self.names[cycle[0][0]]}"
            raise SpecError(f"SCM {self.id!r}: graph has a cycle: {names}") from None

    def validate(self) -> None:
        """Check names, parents, roles and component parameters.

        Raises:
            SpecError: naming the node and field that is wrong.
        """
        seen = set()
        for node in self.nodes:
            if node.name in seen:
                raise SpecError(f"SCM {self.id!r}: duplicate node name {node.name!r}")
            seen.add(node.name)
        for node in self.nodes:
            where = f"SCM {self.id!r}, node {node.name!r}"
            unknown = [p for p in node.parents if p not in seen]
            if unknown:
                raise SpecError(f"{where}: parents {unknown} are not nodes of this SCM")
            if len(set(node.parents)) != len(node.parents) or node.name in node.parents:
                raise SpecError(f"{where}: parents must be distinct and exclude the node itself")
            if node.role == "root":
                if node.parents:
                    raise SpecError(f"{where}: a root has no parents, got {list(node.parents)}")
                if node.root_distribution is None:
                    raise SpecError(f"{where}: field 'root_distribution' is required for a root")
                if node.mechanism is not None or node.noise is not None:
                    raise SpecError(f"{where}: a root node takes 'root_distribution' only, not a mechanism or noise")
                _build("root_distribution", node.root_distribution, f"{where}.root_distribution")
            else:
                if not node.parents:
                    raise SpecError(f"{where}: a mechanism node needs at least one parent")
                if node.mechanism is None:
                    raise SpecError(f"{where}: field 'mechanism' is required for a non-root")
                mech = _build("mechanism", node.mechanism, f"{where}.mechanism")
                out_scale = node.mechanism.params.get("out_scale", 1.0)
                if not (isinstance(out_scale, (int, float)) and math.isfinite(out_scale) and out_scale > 0):
                    raise SpecError(f"{where}.mechanism: 'out_scale' must be finite and > 0, got {out_scale!r}")
                k = mech.n_inputs()
                if k is not None and k != len(node.parents):
                    raise SpecError(
                        f"{where}.mechanism: parameters are for {k} inputs but the node has "
                        f"{len(node.parents)} parents {list(node.parents)}"
                    )
            if node.noise is not None:
                noise = _build("noise", node.noise, f"{where}.noise")
                k = noise.n_inputs() if hasattr(noise, "n_inputs") else None
                if k is not None and k != len(node.parents):
                    raise SpecError(f"{where}.noise: parameters are for {k} parents but the node has "
                                    f"{len(node.parents)} parents {list(node.parents)}")
        for t in self.intervention_targets:
            if t not in seen:
                raise SpecError(f"SCM {self.id!r}: intervention target {t!r} is not a node")
        if self.root_dependency is not None:
            where = f"SCM {self.id!r}.root_dependency"
            block = self.root_dependency.params.get("nodes")
            roots = {n.name for n in self.nodes if n.role == "root"}
            if not isinstance(block, (list, tuple)) or len(block) < 2 or not set(block) <= roots \
                    or len(set(block)) != len(block):
                raise SpecError(f"{where}.params.nodes: expected at least two distinct root names, got {block!r}")
            _build("root_dependency", self.root_dependency, where)
        for i, st in enumerate(self.stressors):
            _build("stressor", st, f"SCM {self.id!r}.stressors[{i}]")
        self.topological_order()

    def compile(self) -> "SCM":
        """Return the vectorised sampler (validates first)."""
        self.validate()
        return SCM(self)


def _build(kind: str, comp: ComponentSpec, where: str) -> Any:
    """Instantiate the component ``comp`` of record kind ``kind`` (``where`` names it in errors).

    Raises:
        UnknownComponentSpecError: nobody provides ``comp.kind``.
        SpecError: its parameters are invalid (``where: message``).
    """
    cls = component_class(kind, comp.kind, where)
    try:
        return cls(**comp.params)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"{where}: {exc}") from None


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


# ---------------------------------------------------------------------------
# the compiled sampler
# ---------------------------------------------------------------------------


class SCM:
    """A compiled :class:`SCMSpec`: vectorised sampling in topological order.

    Attributes:
        spec: the source spec.
        order: node indices, parents first.
        parents: per node, the parent indices in mechanism order.
        exo_width: columns of the exogenous matrix (≥ d): column ``j`` is node
            ``j``'s primary term; noises wider than one column and the
            high-noise stressor use extra columns appended after ``d``.
    """

    def __init__(self, spec: SCMSpec) -> None:
        self.spec = spec
        self.names = spec.names
        self.d = spec.d
        index = {name: i for i, name in enumerate(self.names)}
        self.index = index
        self.order = spec.topological_order()
        self.parents = [np.array([index[p] for p in node.parents], dtype=np.int64) for node in spec.nodes]
        # component instances (their classes come from plugins: typed by their base classes' protocol)
        self._roots: List[Any] = [
            _build("root_distribution", n.root_distribution, f"node {n.name!r} root_distribution") if n.role == "root" else None for n in spec.nodes
        ]
        self._mechanisms: List[Any] = [
            _build("mechanism", n.mechanism, f"node {n.name!r} mechanism") if n.role == "mechanism" else None for n in spec.nodes
        ]
        self._noises: List[Any] = [_build("noise", n.noise, f"node {n.name!r} noise") if n.noise is not None else None for n in spec.nodes]
        self._out = [
            (float(n.mechanism.params.get("out_loc", 0.0)), float(n.mechanism.params.get("out_scale", 1.0)))
            if n.role == "mechanism" else (0.0, 1.0)
            for n in spec.nodes
        ]
        # exogenous layout: primary column j, extra columns after d in topological order
        self._exo_cols: List[List[int]] = [[j] for j in range(self.d)]
        self._extra_col: List[Optional[int]] = [None] * self.d
        width = self.d
        for j in self.order:
            noise = self._noises[j]
            if noise is None:
                continue
            for _ in range(noise.width - 1):
                self._exo_cols[j].append(width)
                width += 1
            if noise.params().get("extra_scale"):
                self._extra_col[j] = width
                width += 1
        self.exo_width = width
        self._dependency: Any = None
        self._dependency_cols: np.ndarray = np.zeros(0, dtype=np.int64)
        if spec.root_dependency is not None:
            self._dependency = _build("root_dependency", spec.root_dependency, "root_dependency")
            self._dependency_cols = np.array([index[r] for r in spec.root_dependency.params["nodes"]],
                                             dtype=np.int64)
        stressors = [_build("stressor", st, f"stressors[{i}]") for i, st in enumerate(spec.stressors)]
        self.observation_stressors = [st for st in stressors if st.stage == "observation"]
        self.intervention_stressors = [st for st in stressors if st.stage == "intervention"]

    def adjacency(self) -> np.ndarray:
        return self.spec.adjacency()

    def draw_exogenous(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n × exo_width) exogenous terms: root values for roots, noise draws for the others.

        Drawn node by node in topological order (a node's extra columns right
        after its primary one), then the dependent root block, if any,
        overwrites its roots' columns; so a seed fixes every column.
        """
        # Filled column by column through a (exo_width × n) buffer, so every write
        # is contiguous; the result is its transpose (a column-major view: the
        # same values, and propagate reads its columns contiguously).
        et = np.zeros((self.exo_width, n))
        e = et.T
        for j in self.order:
            if self._roots[j] is not None:
                et[j] = self._roots[j].sample(n, rng)
            elif self._noises[j] is not None:
                draw = np.asarray(self._noises[j].sample(n, rng), dtype=np.float64)
                cols = self._exo_cols[j]
                if len(cols) == 1:
                    et[j] = draw.reshape(n)
                else:
                    e[:, cols] = draw.reshape(n, -1)
                if self._extra_col[j] is not None:
                    et[self._extra_col[j]] = rng.standard_normal(n)
        if self._dependency is not None:
            e[:, self._dependency_cols] = self._dependency.sample(n, rng)
        return e

    def signal(self, j: int, parents: np.ndarray) -> np.ndarray:
        """Calibrated mechanism output ``(f(parents) − out_loc) / out_scale`` of node ``j`` (n,)."""
        loc, scale = self._out[j]
        return (self._mechanisms[j](parents) - loc) / scale

    def apply_noise(self, j: int, signal: np.ndarray, exogenous: np.ndarray, parents: np.ndarray) -> np.ndarray:
        """Node ``j``'s value from its signal and its exogenous columns (no-noise nodes: the signal)."""
        noise = self._noises[j]
        if noise is None:
            return signal
        col = noise.apply(signal, exogenous[:, self._exo_cols[j]], parents)
        if self._extra_col[j] is not None:
            col = col + float(noise.params()["extra_scale"]) * exogenous[:, self._extra_col[j]]
        return col

    def propagate(self, exogenous: np.ndarray, intervention_mask: Optional[np.ndarray] = None,
                  intervention_values: Optional[np.ndarray] = None,
                  transform: Optional[Callable[[int, np.ndarray, Optional[np.ndarray]], np.ndarray]] = None,
                  shift_mask: Optional[np.ndarray] = None,
                  shifts: Optional[Mapping[int, Any]] = None) -> np.ndarray:
        """Evaluate the structural equations.

        Args:
            exogenous: (n × exo_width) from :meth:`draw_exogenous`.
            intervention_mask: (n × d) bool; where True the entry is set to
                ``intervention_values`` (hard do) and its descendants are
                recomputed from it in the same pass.
            intervention_values: (n × d) float, read where the mask is True.
            transform: optional hook ``(j, values (n,), mask_col (n,)) -> (n,)``
                applied after a node's intervention.
            shift_mask: (n × d) bool; where True node ``j``'s *mechanism* is
                changed as ``shifts[j]`` says (parameter-shift interventions,
                App. A.2), its noise kept.
            shifts: node index → ``(kind, amount)`` with kind ``"strength"``
                (signal × amount), ``"bias"`` (signal + amount, in data units)
                or ``"parent_scale"`` (mechanism of amount × parents).

        The spec's intervention-stage stressors act here, as their
        :attr:`Stressor.effect` says: ``"soften"`` (e.g. ``soft``) blends the
        structural value into hard-do entries, ``"shift"`` (e.g.
        ``intervention_shift``) shifts/scales chosen columns on intervened
        rows (before their descendants are computed).

        Raises:
            ValueError: an intervention-stage stressor with another ``effect``.

        Returns:
            (n × d) float64 samples.
        """
        n = exogenous.shape[0]
        x = np.empty((n, self.d))
        softness = 0.0
        shifted_cols: Dict[int, Any] = {}
        int_rows = None
        if intervention_mask is not None and self.intervention_stressors:
            int_rows = intervention_mask.any(axis=1)
            for st in self.intervention_stressors:
                if st.effect == "soften":
                    softness = float(st.softness)
                elif st.effect == "shift":
                    for name, loc, scale in zip(st.columns, st.shift, st.scale):
                        shifted_cols[self.index[name]] = (float(loc), float(scale))
                else:
                    raise ValueError(f"intervention-stage stressor {st.kind!r} has effect {st.effect!r}; "
                                     "expected 'soften' or 'shift' (Stressor.effect)")
        roots, mechanisms, noises, outs = self._roots, self._mechanisms, self._noises, self._out
        for j in self.order:
            if roots[j] is not None:
                col = exogenous[:, j].copy()
            elif (noises[j] is not None and type(noises[j]).apply is Noise.apply
                  and not (shift_mask is not None and shifts and j in shifts)):
                # Fast path, same bytes as signal() + apply_noise(): an additive noise
                # (Noise.apply: signal + eps[:, 0], eps[:, 0] = column j) and no shift.
                # Subtracting 0.0 and dividing by 1.0 are exact, so they are skipped
                # (the sum with the noise column makes a fresh array either way).
                sig = mechanisms[j](x[:, self.parents[j]])
                loc, scale = outs[j]
                if loc != 0.0 or scale != 1.0:
                    sig = (sig - loc) / scale
                col = sig + exogenous[:, j]
                extra = self._extra_col[j]
                if extra is not None:
                    col = col + float(noises[j]._params["extra_scale"]) * exogenous[:, extra]
            else:
                pa = x[:, self.parents[j]]
                sig = self.signal(j, pa)
                if shift_mask is not None and shifts and j in shifts:
                    m = shift_mask[:, j]
                    if m.any():
                        kind, amount = shifts[j]
                        if kind == "strength":
                            sig[m] = sig[m] * amount
                        elif kind == "bias":
                            sig[m] = sig[m] + amount
                        elif kind == "parent_scale":
                            sig[m] = self.signal(j, pa[m] * amount)
                        else:
                            raise ValueError(f"unknown parameter shift kind {kind!r} (node {self.names[j]})")
                col = self.apply_noise(j, sig, exogenous, pa)
            if intervention_mask is not None:
                hard = intervention_mask[:, j] if shift_mask is None else intervention_mask[:, j] & ~shift_mask[:, j]
                if hard.any():
                    assert intervention_values is not None, "a hard intervention needs intervention_values"
                    col[hard] = softness * col[hard] + (1.0 - softness) * intervention_values[hard, j]
            if int_rows is not None and j in shifted_cols:
                loc, scale = shifted_cols[j]
                col[int_rows] = col[int_rows] * scale + loc
            if transform is not None:
                col = transform(j, col, None if intervention_mask is None else intervention_mask[:, j])
            x[:, j] = col
        return x

    def observe(self, x: np.ndarray, intervention_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Apply the spec's observation-stage stressors to a sampled (n × d) table (returns a copy)."""
        for st in self.observation_stressors:
            x = st.apply(x.copy(), intervention_mask, rng, self.names)
        return x

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n × d) observational samples (structural values, before observation stressors)."""
        return self.propagate(self.draw_exogenous(n, rng))

    def descendants(self, j: int) -> np.ndarray:
        """Indices of the strict descendants of node ``j``."""
        a = self.adjacency().astype(bool)
        reach = np.zeros(self.d, dtype=bool)
        frontier = a[j].copy()
        while frontier.any():
            reach |= frontier
            frontier = a[frontier].any(axis=0) & ~reach
        return np.flatnonzero(reach)


def node_from_components(name: str, parents: Sequence[str], rng: np.random.Generator, mechanism: str = "linear",
                         noise: str = "gaussian", root: str = "gaussian", tags: Optional[dict] = None) -> NodeSpec:
    """Convenience: a node whose parameters are drawn with each component's ``draw``.

    Roots get ``root`` as root distribution, other nodes ``mechanism`` plus
    ``noise`` (paper ranges, App. A.1); ``noise="none"`` makes a noiseless
    equation. Tags record the factor tags (the mechanism's ``factor_tag``).
    """
    tags = dict(tags or {})
    if not parents:
        tags.setdefault("root", root)
        return NodeSpec(name=name, role="root",
                        root_distribution=ComponentSpec(kind=root, params=component_class("root_distribution", root, f"node {name!r} root_distribution").draw(rng)),
                        tags=tags)
    mech_cls = component_class("mechanism", mechanism, f"node {name!r} mechanism")
    tags.setdefault("mechanism", mech_cls.factor_tag())
    tags.setdefault("noise", noise)
    mech_spec = ComponentSpec(kind=mechanism, params=mech_cls.draw(len(parents), rng))
    noise_spec = None if noise == "none" else ComponentSpec(
        kind=noise, params=component_class("noise", noise, f"node {name!r} noise").draw(rng, k=len(parents)))
    return NodeSpec(name=name, role="mechanism", parents=tuple(parents), mechanism=mech_spec,
                    noise=noise_spec, tags=tags)


def calibrate_outputs(spec: SCMSpec, n: int = 2000, seed: int = 0,
                      strength: Optional[Mapping[str, float]] = None) -> SCMSpec:
    """Set each mechanism's ``out_loc``/``out_scale`` to standardise its output; calibrate noises.

    Node by node in topological order, on a pilot sample of ``n`` rows drawn
    with ``seed``, the mechanism output f(parents) is centred and scaled to
    standard deviation ``strength[name]`` (default 1; the weak-signal stressor
    of App. A.1 uses 0.45) before its noise is applied; then the noise's
    ``calibrate`` fixes parameters that depend on the signal (target R²,
    censoring percentiles). This keeps deep nonlinear chains finite and on one
    scale; the constants are written into the returned spec, so the SCM
    remains explicit data (no hidden normalisation at sampling time). A
    constant mechanism output keeps ``out_scale = 1``.

    Returns:
        A new :class:`SCMSpec`.
    """
    strength = dict(strength or {})
    scm = SCM(spec)
    rng = np.random.default_rng(seed)
    exo = scm.draw_exogenous(n, rng)
    x = np.empty((n, scm.d))
    nodes = list(spec.nodes)
    for j in scm.order:
        node = nodes[j]
        if node.role == "root":
            x[:, j] = exo[:, j]
            continue
        pa = x[:, scm.parents[j]]
        update = scm._mechanisms[j].calibrate(pa)
        if update:
            node = attrs.evolve(node, mechanism=ComponentSpec(kind=node.mechanism.kind,
                                                              params={**node.mechanism.params, **update}))
            scm._mechanisms[j] = _build("mechanism", node.mechanism, node.name)
        f = scm._mechanisms[j](pa)
        loc, sd = float(np.mean(f)), float(np.std(f))
        if not (math.isfinite(loc) and math.isfinite(sd)) or sd < 1e-12:
            loc, sd = (loc if math.isfinite(loc) else 0.0), 1.0
        else:
            sd = sd / float(strength.get(node.name, 1.0))
        params = {**node.mechanism.params, "out_loc": loc, "out_scale": sd}
        node = attrs.evolve(node, mechanism=ComponentSpec(kind=node.mechanism.kind, params=params))
        signal = (f - loc) / sd
        noise = scm._noises[j]
        if noise is not None:
            update = noise.calibrate(signal, exo[:, scm._exo_cols[j]], pa)
            if update:
                node = attrs.evolve(node, noise=ComponentSpec(kind=node.noise.kind,
                                                              params={**node.noise.params, **update}))
                noise = _build("noise", node.noise, node.name)
                scm._noises[j] = noise
        scm._out[j] = (loc, sd)
        x[:, j] = scm.apply_noise(j, signal, exo, pa)
        nodes[j] = node
    return attrs.evolve(spec, nodes=nodes)

