"""The linear-Gaussian bnlearn networks as the core's executable SCMs.

Each shipped ``<name>.json`` holds ``nodes``, ``arcs`` and, per node, ``cpds[node] =
{"coefficients": {"(Intercept)": [b0], parent: [b], ...}, "variance": [v], "parents": [...]}``:
the node's linear regression on its parents fitted by bnlearn to real data. It becomes an
:class:`~causalarena.scm.SCMSpec` whose nodes are

* roots: ``root_distribution = gaussian(loc = b0, scale = √v)``;
* others: ``mechanism = linear(weights = [b_parent …], bias = b0)`` over exactly the node's
  parents (in the file's order) with ``noise = gaussian(scale = √v)``,

so the core's sampler, the shared protocol (obs n = 1000; obs+int 800 + 200 with the default
hard do-resampling) and the intervention audit run it unchanged. ``v`` is read as a variance
(the field's name, and how pgmpy's ``LinearGaussianBayesianNetwork.load`` reads it:
``std = sqrt(variance)``).
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict, List

from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

from .files import pgmpy_version, read_text
from .networks import NETWORKS, REPOSITORY_CITATION

INTERCEPT = "(Intercept)"


class NetworkFormatError(ValueError):
    """A shipped network file is not as expected; the message names the file, node and field."""


def _number(value: Any, where: str) -> float:
    """``[x]`` or ``x`` as a finite float."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise NetworkFormatError(f"{where}: expected a finite number (or a one-element list), got {value!r}")
    return float(value)


def parse_gaussian(text: str, file: str) -> Dict[str, Any]:
    """Parse a linear-Gaussian network file.

    Returns:
        ``{"nodes": [names, file order], "arcs": [(parent, child)], "cpds": {node: {"intercept": b0,
        "coefficients": {parent: b}, "variance": v, "parents": [..]}}}``.

    Raises:
        NetworkFormatError: a missing key, a node without a cpd, parents that disagree with the
            arcs, a coefficient missing for a parent, a non-positive variance (names file and node).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NetworkFormatError(f"{file}: not JSON: {exc}") from exc
    for key in ("nodes", "arcs", "cpds"):
        if key not in data:
            raise NetworkFormatError(f"{file}: missing key {key!r} (expected nodes, arcs, cpds)")
    nodes = [str(n) for n in data["nodes"]]
    if len(set(nodes)) != len(nodes):
        raise NetworkFormatError(f"{file}: duplicate node names")
    arcs = [(str(a), str(b)) for a, b in data["arcs"]]
    parents_of: Dict[str, List[str]] = {n: [] for n in nodes}
    for a, b in arcs:
        if a not in parents_of or b not in parents_of:
            raise NetworkFormatError(f"{file}: arc {a} -> {b} names an unknown node")
        parents_of[b].append(a)
    cpds = {}
    for node in nodes:
        where = f"{file}: cpds[{node!r}]"
        raw = data["cpds"].get(node)
        if raw is None:
            raise NetworkFormatError(f"{where}: missing")
        parents = [str(p) for p in raw.get("parents", [])]
        if sorted(parents) != sorted(parents_of[node]):
            raise NetworkFormatError(f"{where}.parents {parents} differ from the arcs into {node!r} "
                                     f"{sorted(parents_of[node])}")
        coef = raw.get("coefficients", {})
        if INTERCEPT not in coef:
            raise NetworkFormatError(f"{where}.coefficients: no {INTERCEPT!r}")
        missing = [p for p in parents if p not in coef]
        if missing:
            raise NetworkFormatError(f"{where}.coefficients: no coefficient for parent(s) {missing}")
        variance = _number(raw.get("variance"), f"{where}.variance")
        if not variance > 0:
            raise NetworkFormatError(f"{where}.variance must be > 0, got {variance}")
        cpds[node] = {"intercept": _number(coef[INTERCEPT], f"{where}.coefficients[{INTERCEPT!r}]"),
                      "coefficients": {p: _number(coef[p], f"{where}.coefficients[{p!r}]") for p in parents},
                      "variance": variance, "parents": parents}
    return {"nodes": nodes, "arcs": arcs, "cpds": cpds}


def gaussian_spec(name: str, family: str = "bnlearn") -> SCMSpec:
    """The :class:`SCMSpec` of the shipped linear-Gaussian network ``name`` (see the module).

    Nodes keep the file's order (alphabetical, as bnlearn orders them). Node tags: ``mechanism``
    (``"linear"``) or ``root`` (``"gaussian"``), ``noise`` (``"gaussian"``). Spec metadata: the
    factor tags (network, graph, d, n_edges, mechanisms, noises, roots, source, domain, citation).

    Raises:
        KeyError: ``name`` is not a Gaussian network of :data:`~arena_family_bnlearn.networks.NETWORKS`.
        NetworkFormatError, FileNotFoundError: see :func:`parse_gaussian`,
            :func:`~arena_family_bnlearn.files.network_path`.
    """
    net = NETWORKS[name]
    if net.kind != "gaussian":
        raise KeyError(f"bnlearn network {name!r} is {net.kind}, not linear-Gaussian")
    parsed = parse_gaussian(read_text(net.file), net.file)
    specs = []
    for node in parsed["nodes"]:
        cpd = parsed["cpds"][node]
        scale = math.sqrt(cpd["variance"])
        if not cpd["parents"]:
            specs.append(NodeSpec(name=node, role="root",
                                  root_distribution=ComponentSpec(kind="gaussian", params={"loc": cpd["intercept"],
                                                                               "scale": scale}),
                                  tags={"root": "gaussian"}))
        else:
            specs.append(NodeSpec(name=node, role="mechanism", parents=tuple(cpd["parents"]),
                                  mechanism=ComponentSpec(kind="linear", params={
                                      "weights": [cpd["coefficients"][p] for p in cpd["parents"]],
                                      "bias": cpd["intercept"]}),
                                  noise=ComponentSpec(kind="gaussian", params={"scale": scale}),
                                  tags={"mechanism": "linear", "mechanism_kind": "linear", "noise": "gaussian"}))
    source = f"bnlearn repository via pgmpy {pgmpy_version()} ({net.file})"
    metadata = {"network": name, "graph": "bnlearn", "data_type": "continuous", "d": net.nodes,
                "n_edges": len(parsed["arcs"]), "mechanisms": ["linear"], "noises": ["gaussian"],
                "roots": ["gaussian"], "source": source, "domain": net.domain, "citation": net.citation,
                "repository": REPOSITORY_CITATION}
    return SCMSpec(id=f"{family}/{name}", nodes=tuple(specs), metadata=metadata)
