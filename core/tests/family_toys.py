"""Toy families for the family conformance kit's tests (``core/tests/test_family_kit.py``).

Importable by factory path (``family_toys:GoodFamily``): pytest puts this
folder on ``sys.path``. ``GoodFamily`` obeys every rule; each other family
breaks exactly one (the rule named in its docstring).
"""

from __future__ import annotations

from typing import List

import attrs
import numpy as np

from causalarena.data import Dataset
from causalarena.family import Family, SCMInstance
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

NAME = "toy"


#: column order of the toy chains: not the causal order a, b, c (the kit's ``column_order`` check;
#: forward share of the three directed paths a→b, b→c, a→c = 1/3)
CHAIN_COLUMNS = ("b", "c", "a")


def chain_spec(scm_id: str, weight: float, columns: tuple = CHAIN_COLUMNS) -> SCMSpec:
    """a → b → c, linear-Gaussian: a ~ N(0, 1), b = w·a + N(0, 0.5²), c = w·b + N(0, 0.5²);
    the nodes (dataset columns) in the order ``columns``."""
    def child(name: str, parent: str) -> NodeSpec:
        return NodeSpec(name=name, role="mechanism", parents=(parent,),
                        mechanism=ComponentSpec(kind="linear", params={"weights": [weight], "bias": 0.0}),
                        noise=ComponentSpec(kind="gaussian", params={"scale": 0.5}))

    root = NodeSpec(name="a", role="root",
                    root_distribution=ComponentSpec(kind="gaussian", params={"loc": 0.0, "scale": 1.0}))
    nodes = {"a": root, "b": child("b", "a"), "c": child("c", "b")}
    return SCMSpec(id=scm_id, nodes=tuple(nodes[v] for v in columns),
                   metadata={"graph": "chain", "d": 3, "weight": weight})


def _instances(cls: type = SCMInstance, ids: tuple = ("chain-w1", "chain-w2"),
               columns: tuple = CHAIN_COLUMNS) -> List[SCMInstance]:
    return [cls(family=NAME, scm_id=sid, spec=chain_spec(f"{NAME}/{sid}", float(k + 1), columns),
                factors={"graph": "chain", "d": 3, "weight": float(k + 1)})
            for k, sid in enumerate(ids)]


class GoodFamily(Family):
    """Two linear-Gaussian chains with obs and obs+int splits, columns b, c, a: passes every check."""

    name = NAME

    def instances(self):
        return _instances()


class TopologicalColumnsFamily(Family):
    """Breaks ``column_order``: the chains' columns are a, b, c, the causal order (forward share 1)."""

    name = NAME

    def instances(self):
        return _instances(columns=("a", "b", "c"))


class DuplicateIdsFamily(Family):
    """Breaks ``instances``: two instances share the id ``chain``."""

    name = NAME

    def instances(self):
        return _instances(ids=("chain", "chain"))


@attrs.define(eq=False)
class CyclicInstance(SCMInstance):
    """Claims the truth a → b → c → a (a cycle the SCM cannot have)."""

    def _cyclic(self) -> np.ndarray:
        return np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.int8)

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        return attrs.evolve(ds, true_adjacency=self._cyclic())

    def true_adjacency(self):
        return self._cyclic()


class CyclicFamily(Family):
    """Breaks ``true_graph``: an undeclared directed cycle."""

    name = NAME

    def instances(self):
        return _instances(CyclicInstance)


@attrs.define(eq=False)
class NondeterministicInstance(SCMInstance):
    """Adds noise from numpy's global generator: the same cell differs between calls."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        return attrs.evolve(ds, X=ds.X + np.random.normal(0.0, 0.01, size=ds.X.shape))


class NondeterministicFamily(Family):
    """Breaks ``deterministic``: the sampler reads global random state."""

    name = NAME

    def instances(self):
        return _instances(NondeterministicInstance)


@attrs.define(eq=False)
class NaNInstance(SCMInstance):
    """Column b has a NaN (undeclared)."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        X = ds.X.copy()
        X[0, list(ds.columns).index("b")] = np.nan
        return attrs.evolve(ds, X=X)


class NaNFamily(Family):
    """Breaks ``finite``: NaN in a sampled table."""

    name = NAME

    def instances(self):
        return _instances(NaNInstance)


@attrs.define(eq=False)
class LeakyInstance(SCMInstance):
    """Puts the edge list into the metadata (which methods see)."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        return attrs.evolve(ds, metadata={**ds.metadata, "notes": {"links": [["a", "b"], ["b", "c"]]}})


class LeakyFamily(Family):
    """Breaks ``no_truth_leak``: true (parent, child) pairs in metadata."""

    name = NAME

    def instances(self):
        return _instances(LeakyInstance)


@attrs.define(eq=False)
class FrozenReplicatesInstance(SCMInstance):
    """Every replicate is replicate 0 (the seed ignores the replicate)."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        if not 0 <= int(replicate) < self.n_replicates:
            raise ValueError(f"replicate {replicate} out of range")
        return super().dataset(split, 0, standardise=standardise, protocol=protocol, n=n)


class FrozenReplicatesFamily(Family):
    """Breaks ``replicates``: replicates 0 and 1 are identical."""

    name = NAME

    def instances(self):
        return _instances(FrozenReplicatesInstance)


@attrs.define(eq=False)
class ObsMaskInstance(SCMInstance):
    """Marks a row of the obs split as intervened."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        if split == "obs":
            mask = ds.intervention_mask.copy()
            mask[0, 0] = True
            ds = attrs.evolve(ds, intervention_mask=mask)
        return ds


class ObsMaskFamily(Family):
    """Breaks ``datasets``: an intervention mask on the obs-only split."""

    name = NAME

    def instances(self):
        return _instances(ObsMaskInstance)


class DictFactorsFamily(Family):
    """Breaks ``factors``: no tag the runner can store (a dict only)."""

    name = NAME

    def instances(self):
        insts = _instances()
        for inst in insts:
            inst.factors = {"structure": {"depth": 2}}
        return insts


@attrs.define(eq=False)
class NoR2Instance(SCMInstance):
    """Carries varsortability but no r2_sortability (the real family before issue 12, item 11)."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        return attrs.evolve(ds, metadata={k: v for k, v in ds.metadata.items() if k != "r2_sortability"})


class NoR2Family(Family):
    """Breaks ``sortability``: metadata without r2_sortability."""

    name = NAME

    def instances(self):
        return _instances(NoR2Instance)


@attrs.define(eq=False)
class NoneR2Instance(SCMInstance):
    """Stores r2_sortability None although the chain has edges (it is defined)."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        return attrs.evolve(ds, metadata={**ds.metadata, "r2_sortability": None})


class NoneR2Family(Family):
    """Breaks ``sortability``: a None where the value is defined."""

    name = NAME

    def instances(self):
        return _instances(NoneR2Instance)


@attrs.define(eq=False)
class StandardisedSortabilityInstance(SCMInstance):
    """Measures varsortability on the standardised table it returns (≈ 0.5: every variance is 1)
    instead of the raw one (1.0 for these chains: variances 1 < 1 + 0.25 w² < …)."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None) -> Dataset:
        from causalarena.protocol import varsortability

        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        return attrs.evolve(ds, metadata={**ds.metadata,
                                          "varsortability": varsortability(ds.X, ds.true_adjacency)})


class StandardisedSortabilityFamily(Family):
    """Breaks ``sortability``: varsortability of the standardised table, not the raw one."""

    name = NAME

    def instances(self):
        return _instances(StandardisedSortabilityInstance)


def roots_spec(scm_id: str) -> SCMSpec:
    """Three independent Gaussian roots a, b, c: a graph without edges."""
    nodes = tuple(NodeSpec(name=v, role="root", root_distribution=ComponentSpec(
        kind="gaussian", params={"loc": 0.0, "scale": float(k + 1)})) for k, v in enumerate("abc"))
    return SCMSpec(id=scm_id, nodes=nodes, metadata={"graph": "empty", "d": 3})


class EdgelessFamily(Family):
    """No edges: both sortabilities are undefined and None (passes ``sortability``)."""

    name = NAME

    def instances(self):
        return [SCMInstance(family=NAME, scm_id="roots", spec=roots_spec(f"{NAME}/roots"),
                            factors={"graph": "empty", "d": 3})]
