"""The ``textbook`` family: five hand-written SCMs on graphs from the textbooks.

Each SCM is written out node by node with the core's declarative SCM API
(:class:`causalarena.scm.SCMSpec`): a root has a ``root_distribution``, every
other node a ``mechanism`` over exactly its parents plus a ``noise``. The
graphs are the classic ones; the mechanisms are continuous stand-ins for the
original conditional probability tables (linear-Gaussian unless said):

* ``asia`` — Lauritzen & Spiegelhalter (1988): asia → tub, smoke → lung,
  smoke → bronc, tub → either ← lung, either → xray, either → dysp ← bronc;
  interventions on ``smoke`` and ``either`` only (``intervention_targets``).
* ``sprinkler`` — cloudy → sprinkler, cloudy → rain, sprinkler → wet ← rain,
  wet → slippery; cloudy is Bernoulli(0.5) (``textbook_bernoulli``, this
  distribution's own component, :mod:`.components`), the other nodes
  saturate (tanh).
* ``alarm`` — Pearl (1988): burglary → alarm ← earthquake, alarm → john,
  alarm → mary; Laplace noise (non-Gaussian, so LiNGAM can orient it).
* ``collider_chain`` — a → b ← c → d ← e: two colliders sharing c.
* ``confounded_triangle`` — u → x, u → y, x → y: the effect x → y confounded
  by an observed u.

Datasets follow the shared protocol (:class:`causalarena.family.SCMInstance`):
obs (1000 rows) and obs+int (800 + 200), 5 replicates, seeds from the cell.

The builders list each SCM's nodes causes-first (easy to read), but the
instance's columns are a permutation drawn from its id (:func:`column_order`,
:func:`permuted`): a table in causal order would hand the order to any method
whose ties fall back to the column order (the kit's ``column_order`` check).
"""

from __future__ import annotations

import hashlib
from typing import Any, Dict, List, Sequence

from causalarena.family import Family, SCMInstance
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

NAME = "textbook"


def root(name: str, kind: str = "gaussian", **params: float) -> NodeSpec:
    """A root node; ``gaussian`` with ``loc``/``scale`` unless told."""
    params = params or {"loc": 0.0, "scale": 1.0}
    return NodeSpec(name=name, role="root", root_distribution=ComponentSpec(kind=kind, params=params))


def node(name: str, parents: Dict[str, float], bias: float = 0.0, noise: float = 0.5,
         mechanism: str = "linear", noise_kind: str = "gaussian", **extra: float) -> NodeSpec:
    """``name = f(Σ w_p · parent_p + bias) + noise``; ``parents`` maps parent → weight (in mechanism order)."""
    return NodeSpec(
        name=name, role="mechanism", parents=tuple(parents),
        mechanism=ComponentSpec(kind=mechanism, params={"weights": list(parents.values()), "bias": bias, **extra}),
        noise=ComponentSpec(kind=noise_kind, params={"scale": noise}),
    )


def asia() -> SCMSpec:
    return SCMSpec(
        id=f"{NAME}/asia",
        nodes=(
            root("asia", loc=-1.0, scale=1.0),
            root("smoke", loc=0.5, scale=1.0),
            node("tub", {"asia": 0.6}),
            node("lung", {"smoke": 0.8}),
            node("bronc", {"smoke": 0.7}),
            node("either", {"tub": 1.0, "lung": 1.0}, noise=0.3),
            node("xray", {"either": 0.9}),
            node("dysp", {"either": 0.6, "bronc": 0.8}),
        ),
        intervention_targets=("smoke", "either"),
        metadata={"graph": "asia", "source": "Lauritzen & Spiegelhalter 1988", "d": 8, "mechanism": "linear",
                  "noise": "gaussian"},
    )


def sprinkler() -> SCMSpec:
    return SCMSpec(
        id=f"{NAME}/sprinkler",
        nodes=(
            root("cloudy", kind="textbook_bernoulli", p=0.5),
            node("sprinkler", {"cloudy": -1.5}, bias=0.5, mechanism="saturation", scale=1.0),
            node("rain", {"cloudy": 1.8}, bias=-0.6, mechanism="saturation", scale=1.0),
            node("wet", {"sprinkler": 1.0, "rain": 1.2}, mechanism="saturation", scale=1.5, noise=0.3),
            node("slippery", {"wet": 1.1}, mechanism="saturation", scale=1.0, noise=0.3),
        ),
        metadata={"graph": "sprinkler", "source": "Russell & Norvig", "d": 5, "mechanism": "saturation",
                  "noise": "gaussian"},
    )


def alarm() -> SCMSpec:
    return SCMSpec(
        id=f"{NAME}/alarm",
        nodes=(
            root("burglary", kind="uniform", low=-1.0, high=1.0),
            root("earthquake", kind="uniform", low=-1.0, high=1.0),
            node("alarm", {"burglary": 1.2, "earthquake": 0.8}, noise=0.4, noise_kind="laplace"),
            node("john", {"alarm": 0.9}, noise=0.4, noise_kind="laplace"),
            node("mary", {"alarm": 0.7}, noise=0.4, noise_kind="laplace"),
        ),
        metadata={"graph": "alarm", "source": "Pearl 1988", "d": 5, "mechanism": "linear", "noise": "laplace"},
    )


def collider_chain() -> SCMSpec:
    return SCMSpec(
        id=f"{NAME}/collider_chain",
        nodes=(
            root("a"), root("c"), root("e"),
            node("b", {"a": 1.0, "c": -0.8}),
            node("d", {"c": 0.9, "e": 0.7}),
        ),
        metadata={"graph": "collider_chain", "source": "two v-structures sharing a parent", "d": 5,
                  "mechanism": "linear", "noise": "gaussian"},
    )


def confounded_triangle() -> SCMSpec:
    return SCMSpec(
        id=f"{NAME}/confounded_triangle",
        nodes=(
            root("u", loc=0.0, scale=1.0),
            node("x", {"u": 0.9}),
            node("y", {"x": 0.5, "u": -0.7}),
        ),
        metadata={"graph": "confounded_triangle", "source": "observed confounder", "d": 3, "mechanism": "linear",
                  "noise": "gaussian"},
    )


def column_order(scm_id: str, names: Sequence[str]) -> List[str]:
    """The column order of instance ``scm_id``: ``names`` sorted by ``SHA-256(seed + "/" + name)``,
    ``seed = SHA-256("textbook-column-order/" + scm_id)`` (hex) — a fixed permutation per id, the
    same on every platform, unrelated to the causal order (the scheme arena-cards uses for cards)."""
    seed = hashlib.sha256(f"textbook-column-order/{scm_id}".encode("utf-8")).hexdigest()
    return sorted(names, key=lambda n: hashlib.sha256(f"{seed}/{n}".encode("utf-8")).digest())


def permuted(scm_id: str, spec: SCMSpec) -> SCMSpec:
    """``spec`` with its nodes (the dataset's columns) in :func:`column_order`; parents,
    intervention targets and the other fields are by name and unchanged."""
    import attrs

    by_name = {n.name: n for n in spec.nodes}
    return attrs.evolve(spec, nodes=tuple(by_name[n] for n in column_order(scm_id, list(by_name))))


#: instance id → spec builder (nodes causes-first; the instance permutes them), in listing order
SCMS = {
    "asia": asia,
    "sprinkler": sprinkler,
    "alarm": alarm,
    "collider_chain": collider_chain,
    "confounded_triangle": confounded_triangle,
}


def _names(value: Any) -> List[str]:
    """``graphs`` option: a list, or one comma-separated string (``--family-option textbook.graphs=asia,alarm``)."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


class TextbookFamily(Family):
    """Five textbook SCMs (see the module docstring).

    Options (``arena run --family-option textbook.<option>=...``):
        graphs: which SCMs (default all five, in :data:`SCMS` order).
        n_replicates: replicates per split (default 5).

    Raises:
        ValueError: an unknown option or SCM name, or a bad replicate count.
    """

    name = NAME

    def __init__(self, graphs: Sequence[str] = tuple(SCMS), n_replicates: int = 5, **options: Any) -> None:
        if options:
            raise ValueError(f"textbook: unknown option(s) {sorted(options)}; known: graphs, n_replicates")
        super().__init__(graphs=graphs, n_replicates=n_replicates)
        self.graphs = _names(graphs)
        unknown = [g for g in self.graphs if g not in SCMS]
        if unknown or not self.graphs:
            raise ValueError(f"textbook: unknown graph(s) {unknown}; known: {list(SCMS)}")
        if isinstance(n_replicates, bool) or not isinstance(n_replicates, int) or n_replicates < 1:
            raise ValueError(f"textbook: n_replicates must be a positive integer, got {n_replicates!r}")
        self.n_replicates = n_replicates

    def instances(self) -> List[SCMInstance]:
        out = []
        for gid in self.graphs:
            spec = permuted(gid, SCMS[gid]())
            # factor tags: scalars, so the report can slice by them
            out.append(SCMInstance(family=NAME, scm_id=gid, spec=spec, n_replicates=self.n_replicates,
                                   factors=dict(spec.metadata)))
        return out
