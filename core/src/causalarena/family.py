"""Family and instance interfaces.

A family (``arena_families`` → :class:`FamilyInfo` → a :class:`Family`
subclass) lists *instances*: one executable SCM, or one real table. The
runner asks an instance for the dataset of a cell ``(split, replicate)``;
the seed is derived from the cell (:func:`causalarena.protocol.cell_seed`),
so every method sees byte-identical data.
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple

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
        data_type: the kind of table it serves, one of
            :data:`causalarena.records.DATA_TYPES`: ``"continuous"`` (default)
            or ``"categorical"`` (X holds category codes 0..k-1, as float); a
            method whose ``MethodInfo.data_types`` lacks it is ``unsupported``
            on the instance's cells.
    """

    family: str
    scm_id: str
    splits: Sequence[str] = SPLITS
    n_replicates: int = 5
    factors: Dict[str, Any]
    data_type: ClassVar[str] = "continuous"

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

    Datasets follow the shared protocol (:func:`causalarena.protocol.make_dataset`);
    the spec is compiled once per instance (:meth:`compiled`) and reused by
    every table.
    """

    family: str
    scm_id: str
    spec: Any  # SCMSpec
    splits: Sequence[str] = SPLITS
    n_replicates: int = 5
    factors: Dict[str, Any] = attrs.field(factory=dict)
    _scm: Any = attrs.field(default=None, init=False, repr=False)

    def compiled(self) -> Any:
        """The compiled :class:`~causalarena.scm.SCM` of :attr:`spec`, built on first use and kept.

        Raises:
            causalarena.scm.SpecError: the spec is invalid (names node and field).
        """
        if self._scm is None or self._scm.spec is not self.spec:
            self._scm = self.spec.compile()
        return self._scm

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:
        from .protocol import make_dataset

        return make_dataset(self.spec, family=self.family, split=split, replicate=replicate,
                            standardise=standardise, protocol=protocol, n=n,
                            n_replicates=self.n_replicates, scm=self.compiled())

    def true_adjacency(self):
        return self.spec.adjacency()

    def fingerprint(self) -> str:
        """SHA-256 of the spec JSON (the SCM is fully explicit data)."""
        return hashlib.sha256(self.spec.to_json().encode()).hexdigest()[:16]


@attrs.frozen(kw_only=True)
class InstanceSummary:
    """What ``arena show FAMILY`` prints for one instance, without building it.

    Attributes:
        scm_id: the instance id.
        d: number of variables, or ``None`` when not known without building.
        splits: splits the instance provides.
        n_replicates: replicates per split.
        error: why the instance cannot be built (a card that fails its gates), or ``""``.
    """

    scm_id: str
    d: Optional[int] = None
    splits: Sequence[str] = SPLITS
    n_replicates: int = 5
    error: str = ""


class Family:
    """Base class of an SCM family or real-data collection.

    Subclasses take their options as keyword arguments (``arena run
    --family-option synthetic.dims=10,20``) and list instances cheaply.
    Only :meth:`instances` is required; the other methods have documented
    defaults built on it, which a family overrides when it can do better
    (the synthetic grid lists 1,000 ids without generating one SCM).

    Class attributes:
        name: the family's registry name.
        takes_fresh: the family accepts the option ``fresh=ROUND`` (draws
            fresh rounds of held-out SCMs, ``arena run --fresh``). Default False.
        suites: the named studies it offers (:class:`Suite`).
    """

    name: ClassVar[str] = ""
    takes_fresh: ClassVar[bool] = False
    suites: ClassVar[Sequence["Suite"]] = ()

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

    def ids(self) -> List[str]:
        """The instance ids under the current options, in order.

        Default: from :meth:`instances`. A generated family overrides it to
        list ids without building anything.
        """
        return [inst.scm_id for inst in self.instances()]

    def listing(self) -> List[InstanceSummary]:
        """One :class:`InstanceSummary` per instance (``arena show FAMILY``).

        Default: built from :meth:`instances` (the true graph gives ``d``; an
        instance with an ``error`` attribute is listed with it).
        """
        out = []
        for inst in self.instances():
            error = getattr(inst, "error", None) or ""
            # an instance of another task may have no graph (e.g. a world of views): d unknown here
            graph = getattr(inst, "task", "discovery") == "discovery"
            d = None if error or not graph else int(inst.true_adjacency().shape[0])
            out.append(InstanceSummary(scm_id=inst.scm_id, d=d, splits=tuple(inst.splits),
                                       n_replicates=inst.n_replicates, error=str(error)))
        return out

    def listing_note(self) -> str:
        """One line ``arena show FAMILY`` prints after the listing (on stderr), e.g. what the
        listing leaves out (a sealed reserved pool); default none."""
        return ""

    def select(self, scm_ids: Sequence[str]) -> List[Instance]:
        """The instances among ``scm_ids`` this family has (others are skipped;
        the caller reports ids no family matched).

        Default: filter :meth:`instances`. A grid family overrides it to
        build any valid id on request, inside the option selection or not.

        Raises:
            ValueError, OSError: the family cannot be listed (a bad user table).
        """
        wanted = set(scm_ids)
        return [inst for inst in self.instances() if inst.scm_id in wanted]

    def expected_counts(self) -> Dict[str, Dict[str, int]]:
        """Factor → value → number of SCMs the family's schedule promises (``arena audit``
        compares the audited counts with these). Default: none (``{}``)."""
        return {}

    def audit(self, scm_ids: Optional[Sequence[str]] = None, splits: Optional[Sequence[str]] = None,
              replicates: Optional[int] = None, jobs: int = 1) -> List[Dict[str, Any]]:
        """Run the family's own audits (App. A.2 for SCM grids, the card gates of
        App. A.3 for scenario cards) on its released tables.

        Args:
            scm_ids: instances to audit (default: all under the options).
            splits, replicates: which tables (default: every split, every replicate).
            jobs: worker processes.

        Returns:
            One dict per instance with at least ``scm_id``, ``passed`` (bool),
            ``tables`` and ``failed_tables`` (ints), ``failures`` (list of
            ``{"split", "replicate", "reason"}``) and ``errors`` (list of str:
            the instance could not be built). A family may add keys it renders
            in :meth:`audit_details`.

        Raises:
            NotImplementedError: the family has no audit (the default; real
                tables have no generator to audit).
        """
        raise NotImplementedError(f"family {self.name!r} has no audit")

    def audit_details(self, records: List[Dict[str, Any]]) -> "Tuple[List[Any], bool]":
        """Extra renderables (rich tables) ``arena audit`` prints after the pass
        counts, and whether they pass (e.g. factor counts match the schedule).
        Default: ``([], True)``."""
        return [], True


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
