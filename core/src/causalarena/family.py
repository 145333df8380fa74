"""Family and instance interfaces.

A family (``arena_families`` → :class:`FamilyInfo` → a :class:`Family`
subclass) lists *instances*: one executable SCM, or one real table. The
runner asks an instance for the dataset of a cell ``(split, replicate)``;
the seed is derived from the cell (:func:`causalarena.protocol.cell_seed`),
so every method sees byte-identical data.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar, Dict, List, Optional, Sequence

import attrs

from .data import Dataset

SPLITS = ("obs", "obs_int")  #: obs-only (n = 1000) and obs+int (800 + 200), App. B.1


class Instance:
    """One evaluation unit of a family (an SCM, or a real table).

    Attributes:
        family: family name.
        scm_id: identifier, unique within the family (``"er-d10-003"``).
        splits: the splits this instance provides (real tables without
            interventions provide ``("obs",)`` only).
        n_replicates: replicates per split (5 for SCMs, App. B.1).
        factors: construction factors φ (graph family, d, mechanisms ...).
    """

    family: str
    scm_id: str
    splits: Sequence[str] = SPLITS
    n_replicates: int = 5
    factors: Dict[str, Any]

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:  # pragma: no cover
        """Build the (n × d) dataset of one cell, deterministically.

        Raises:
            ValueError: unknown split or replicate out of range.
        """
        raise NotImplementedError

    def true_adjacency(self):  # pragma: no cover
        """(d × d) int8 ground truth, row = parent."""
        raise NotImplementedError

    def fingerprint(self) -> str:
        """SHA-256 of what this instance is (data and graph), 16 hex digits.

        Part of every result key, so a changed table, edge list or generator
        never reuses a stored result. The default hashes the raw first-split,
        first-replicate dataset with its true graph; SCM instances hash their
        spec instead.
        """
        ds = self.dataset(tuple(self.splits)[0], 0, standardise=False)
        return hashlib.sha256(ds.to_npz_bytes()).hexdigest()[:16]


@attrs.define(eq=False)
class SCMInstance(Instance):
    """An instance backed by an executable :class:`~causalarena.scm.SCMSpec`.

    Datasets follow the shared protocol (:func:`causalarena.protocol.make_dataset`).
    """

    family: str
    scm_id: str
    spec: Any  # SCMSpec
    splits: Sequence[str] = SPLITS
    n_replicates: int = 5
    factors: Dict[str, Any] = attrs.field(factory=dict)

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:
        from .protocol import make_dataset

        return make_dataset(self.spec, family=self.family, split=split, replicate=replicate,
                            standardise=standardise, protocol=protocol, n=n,
                            n_replicates=self.n_replicates)

    def true_adjacency(self):
        return self.spec.adjacency()

    def fingerprint(self) -> str:
        """SHA-256 of the spec JSON (the SCM is fully explicit data)."""
        return hashlib.sha256(self.spec.to_json().encode()).hexdigest()[:16]


class Family:
    """Base class of an SCM family or real-data collection.

    Subclasses take their options as keyword arguments (``arena run
    --family-option synthetic.dims=10,20``) and list instances cheaply.
    """

    name: ClassVar[str] = ""

    def __init__(self, **options: Any) -> None:
        self.options = options

    def instances(self) -> List[Instance]:  # pragma: no cover - abstract
        """All instances of this family under the current options."""
        raise NotImplementedError

    def instance(self, scm_id: str) -> Instance:
        """The instance with this id.

        Raises:
            KeyError: no such instance, listing a few known ids.
        """
        for inst in self.instances():
            if inst.scm_id == scm_id:
                return inst
        known = [i.scm_id for i in self.instances()][:5]
        raise KeyError(f"family {self.name!r} has no instance {scm_id!r} (e.g. {known})")


@attrs.frozen(kw_only=True)
class Suite:
    """A named study over one family: which instances, splits, sample sizes and protocols.

    Families list theirs in the class attribute ``suites``; ``arena run
    --suite NAME`` runs the grid once per (n, protocol), recording the suite
    name with every run.

    Attributes:
        name: suite name (``"sample-size"``).
        family: the family it selects from.
        description: one line, with the paper section.
        family_options: options the family is built with (the user's
            ``--family-option`` values override them, e.g. ``per_cell=1`` for a
            small subset).
        splits: splits run.
        n_values: rows per dataset, one grid each (``None`` = the split's default).
        protocols: intervention protocols, one grid each.
    """

    name: str
    family: str
    description: str = ""
    family_options: Dict[str, Any] = attrs.field(factory=dict)
    splits: Sequence[str] = ("obs", "obs_int")
    n_values: Sequence[Optional[int]] = (None,)
    protocols: Sequence[str] = ("default",)
