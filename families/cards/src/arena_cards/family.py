""":class:`CardFamily`: a family whose instances are scenario cards.

The base of ``arena-family-semantic`` and ``arena-family-formula``. A
subclass sets ``name`` (``"semantic"`` / ``"formula"``) and ``shipped`` (the
folder of cards its distribution ships). Options (``arena run
--family-option semantic.<key>=<value>``):

- ``cards``: a folder (or a card file, or several separated by ``,`` or the
  OS path separator) of extra cards from anywhere — a third party adds
  scenarios without a release;
- ``shipped``: ``false`` to leave out the shipped cards;
- ``ids``: comma list of card ids to keep;
- ``n_replicates``: replicates per split (default 5, App. B.1; the demo uses 1);
- ``per_domain``: keep the first N cards (by id) of each domain (the demo uses 1);
- ``pool``: ``public`` (the plain ``*.yaml`` cards), ``reserved`` (the sealed
  ``*.yaml.enc`` cards, :mod:`arena_cards.seal`) or ``all``. Default: ``all``
  when the reserved key ``CAUSALARENA_RESERVED_KEY`` is set, else ``public``;
  ``reserved`` and ``all`` without the key, or an ``ids`` entry naming a
  sealed card without it, raise :class:`~arena_cards.seal.ReservedKeyError`
  (a :class:`PermissionError` naming the variable; ``arena`` prints one line,
  exit code 2). The split itself (which cards are sealed) is
  :func:`arena_cards.seal.split`: half of each domain, rounded down, by a
  salted hash of the card id, the demo's cards always public.

Every card passes the full validation (:func:`~arena_cards.validate.validate_card`)
before it runs; a card that fails becomes a :class:`FailedCard` instance, so
its cells are recorded as failed with the first errors and the run goes on.
Reports are cached per process by file path, size and modification time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple

import attrs

from causalarena.family import Family, Instance, InstanceSummary, SCMInstance

from .model import card_files
from .validate import CardReport, validate_card

_CACHE: Dict[Tuple[str, int, int, str], CardReport] = {}


def _key_tag(path: Path) -> str:
    """For a sealed card, a fingerprint of the reserved key it is read with ('' otherwise): a report made
    under one key is never reused under another (or none)."""
    from .seal import SEALED_SUFFIX, key_from_env

    if not path.name.endswith(SEALED_SUFFIX):
        return ""
    import hashlib

    return "|" + hashlib.sha256((key_from_env() or "").encode()).hexdigest()[:16]


def cached_report(path: Path, pool_severity: str = "warning") -> CardReport:
    """:func:`validate_card` of ``path``, cached by (path, size, mtime, severity and, for a sealed
    card, the reserved key's fingerprint)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, pool_severity + _key_tag(path))
    rep = _CACHE.get(key)
    if rep is None:
        rep = _CACHE[key] = validate_card(path, pool_severity)
    return rep


@attrs.define(eq=False)
class FailedCard(Instance):
    """A card that did not pass validation: every cell fails with the reason."""

    family: str
    scm_id: str
    error: str
    path: str = ""
    n_replicates: int = 5
    splits: Sequence[str] = ("obs", "obs_int")
    factors: Dict[str, Any] = attrs.field(factory=dict)

    def dataset(self, split: str, replicate: int, standardise: bool = True, protocol: str = "default",
                n: Optional[int] = None):
        raise RuntimeError(f"card {self.path or self.scm_id} failed validation: {self.error}")

    def true_adjacency(self):
        raise RuntimeError(f"card {self.path or self.scm_id} failed validation: {self.error}")

    def fingerprint(self) -> str:
        import hashlib

        return hashlib.sha256(self.error.encode()).hexdigest()[:16]


def _paths(value: Any) -> List[Path]:
    if value in (None, "", False):
        return []
    items = value if isinstance(value, (list, tuple)) else str(value).replace(os.pathsep, ",").split(",")
    return [Path(os.path.expanduser(str(v).strip())) for v in items if str(v).strip()]


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"option {name!r} must be true or false, got {value!r}")


class CardFamily(Family):
    """Instances from scenario cards: the shipped folder plus ``cards=FOLDER`` (see module doc)."""

    name: ClassVar[str] = ""
    #: folder of the cards this distribution ships
    shipped: ClassVar[Optional[Path]] = None
    #: pool rules are errors for shipped cards, warnings for third-party ones
    OPTIONS: ClassVar[Tuple[str, ...]] = ("cards", "shipped", "ids", "n_replicates", "per_domain", "pool")
    POOLS: ClassVar[Tuple[str, ...]] = ("public", "reserved", "all")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"family {self.name!r}: unknown option(s) {unknown}; options: {list(self.OPTIONS)}")
        super().__init__(**options)
        self._instances: Optional[List[Instance]] = None
        reps = options.get("n_replicates", 5)
        try:
            self.n_replicates = int(reps)
        except (TypeError, ValueError):
            raise ValueError(f"family {self.name!r}: n_replicates must be a positive integer, got {reps!r}") from None
        if self.n_replicates < 1:
            raise ValueError(f"family {self.name!r}: n_replicates must be a positive integer, got {reps!r}")
        per = options.get("per_domain")
        try:
            self.per_domain = None if per in (None, "") else int(per)
        except (TypeError, ValueError):
            self.per_domain = -1
        if self.per_domain is not None and self.per_domain < 1:
            raise ValueError(f"family {self.name!r}: per_domain must be a positive integer, got {per!r}")
        pool = options.get("pool")
        if pool not in (None, "") and str(pool).strip().lower() not in self.POOLS:
            raise ValueError(f"family {self.name!r}: option pool must be public, reserved or all, got {pool!r}")
        self._pool = None if pool in (None, "") else str(pool).strip().lower()

    @property
    def pool(self) -> str:
        """The selected pool: the ``pool`` option, else ``all`` with the reserved key set and ``public`` without."""
        from .seal import key_from_env

        if self._pool is not None:
            return self._pool
        return "all" if key_from_env() else "public"

    def _roots(self) -> List[Tuple[Path, bool]]:
        roots: List[Tuple[Path, bool]] = []
        if _flag(self.options.get("shipped", True), "shipped") and self.shipped is not None \
                and Path(self.shipped).is_dir():
            roots.append((Path(self.shipped), True))
        roots += [(root, False) for root in _paths(self.options.get("cards"))]
        return roots

    def sealed_paths(self) -> List[Tuple[Path, bool]]:
        """(sealed card file, shipped?) under the selected folders, whatever the pool (names only: no key needed).

        Raises:
            FileNotFoundError: a ``cards`` path does not exist.
        """
        from .seal import sealed_files

        return [(p, shipped) for root, shipped in self._roots() for p in sealed_files(root)]

    def card_paths(self) -> List[Tuple[Path, bool]]:
        """(card file, shipped?) for every card selected by the options, shipped first.

        Raises:
            FileNotFoundError: a ``cards`` path does not exist.
        """
        from .seal import KEY_ENV, ReservedKeyError, key_from_env

        out: List[Tuple[Path, bool]] = []
        pool = self.pool
        roots = self._roots()
        if pool in ("public", "all"):
            out += [(p, shipped) for root, shipped in roots for p in card_files(root)]
        if pool in ("reserved", "all"):
            if not key_from_env():
                # no "family 'x':" prefix: `arena run` adds it (a PermissionError is an OSError there)
                raise ReservedKeyError(f"pool={pool} selects the reserved {self.name} cards, which are sealed with "
                                       f"the operator's key; set {KEY_ENV} (or select pool=public)")
            out += self.sealed_paths()
        return out

    def reports(self) -> List[CardReport]:
        """Validation reports of every selected card."""
        return [cached_report(p, "error" if shipped else "warning") for p, shipped in self.card_paths()]

    def instances(self) -> List[Instance]:
        if self._instances is not None:
            return self._instances
        keep = None
        if self.options.get("ids"):
            ids = self.options["ids"]
            keep = set(ids if isinstance(ids, (list, tuple)) else str(ids).split(","))
        out: List[Instance] = []
        seen: Dict[str, str] = {}
        reports = self.reports()
        from .seal import sealed_id

        ids = [rep.card_id if rep.card_id != "?" else sealed_id(rep.path) for rep in reports]
        if keep is not None and keep - set(ids):
            from .seal import KEY_ENV, ReservedKeyError, sealed_id

            sealed = sorted((keep - set(ids)) & {sealed_id(p) for p, _ in self.sealed_paths()})
            if sealed:
                how = f"set {KEY_ENV}" if self.pool == "public" and self._pool is None else \
                    "select pool=reserved or pool=all" + ("" if self.pool != "public" else f" with {KEY_ENV} set")
                raise ReservedKeyError(f"{self.name} card(s) {sealed} in 'ids' are reserved (sealed with the "
                                       f"operator's key); {how}")
            raise ValueError(f"family {self.name!r}: unknown card id(s) {sorted(keep - set(ids))} in 'ids'; "
                             f"known: {', '.join(sorted(ids)[:8])}{' …' if len(ids) > 8 else ''}")
        if self.per_domain is not None:  # the first N ids of each domain (cards that did not load count as '?')
            by_domain: Dict[str, List[str]] = {}
            for cid, rep in sorted(zip(ids, reports), key=lambda t: t[0]):
                dom = rep.spec.metadata.get("domain", "?") if rep.spec is not None else "?"
                by_domain.setdefault(dom, []).append(cid)
            chosen = {c for cids in by_domain.values() for c in cids[:self.per_domain]}
            keep = chosen if keep is None else keep & chosen
        for cid, rep in zip(ids, reports):
            if cid in seen:
                # results are keyed by id: two cards under one id would overwrite each other's results
                raise ValueError(f"family {self.name!r}: card id {cid!r} is used twice: {seen[cid]} and {rep.path}; "
                                 "rename one (the id and the file name)")
            seen[cid] = rep.path
            if keep is not None and cid not in keep:
                continue
            if rep.family not in ("?", self.name):
                out.append(FailedCard(family=self.name, scm_id=cid, path=rep.path, n_replicates=self.n_replicates,
                                      error=f"the card declares family {rep.family!r}; load it with "
                                            f"--family-option {rep.family}.cards=…"))
                continue
            if not rep.ok or rep.spec is None:
                first = "; ".join(str(i) for i in rep.errors[:3])
                more = f" (+{len(rep.errors) - 3} more)" if len(rep.errors) > 3 else ""
                out.append(FailedCard(family=self.name, scm_id=cid, path=rep.path, error=first + more,
                                      n_replicates=self.n_replicates))
                continue
            # card_compiler is the compiler's table version (it keys results through the spec), not a factor
            factors = {k: v for k, v in rep.spec.metadata.items() if k not in ("title", "card_compiler")}
            out.append(SCMInstance(family=self.name, scm_id=cid, spec=rep.spec, factors=factors,
                                   n_replicates=self.n_replicates))
        self._instances = out
        return out

    def instance(self, scm_id: str) -> Instance:
        """The instance with this id (``arena show semantic/ID``).

        Raises:
            KeyError: no such card.
            ReservedKeyError: the id is a sealed reserved card outside the selected pool (without the
                key: names ``CAUSALARENA_RESERVED_KEY``).
        """
        try:
            return super().instance(scm_id)
        except KeyError:
            from .seal import KEY_ENV, ReservedKeyError, key_from_env, sealed_id

            if scm_id in {sealed_id(p) for p, _ in self.sealed_paths()}:
                how = f"set {KEY_ENV}" if not key_from_env() else "select pool=reserved or pool=all"
                raise ReservedKeyError(f"{self.name} card {scm_id!r} is reserved (sealed with the operator's "
                                       f"key); {how}") from None
            raise

    def listing(self) -> List[InstanceSummary]:
        """One summary per selected card (``arena show semantic``): a card that fails
        its gates is listed with its first errors (``error``), ``d`` = its variables."""
        out = []
        for inst in self.instances():
            if isinstance(inst, FailedCard):
                out.append(InstanceSummary(scm_id=inst.scm_id, d=None, splits=tuple(inst.splits),
                                           n_replicates=inst.n_replicates, error=inst.error))
            else:
                out.append(InstanceSummary(scm_id=inst.scm_id, d=len(inst.spec.nodes), splits=tuple(inst.splits),
                                           n_replicates=inst.n_replicates))
        return out

    def listing_note(self) -> str:
        """``arena show``'s footer: the sealed reserved cards a public listing leaves out, and how to list them."""
        from .seal import KEY_ENV

        sealed = len(self.sealed_paths())
        if not sealed or self.pool != "public":
            return ""
        return (f"{sealed} reserved {self.name} card(s) are sealed and not listed: set {KEY_ENV} to list "
                f"them too (pool=all), or select pool=reserved")

    def audit(self, scm_ids: Optional[Sequence[str]] = None, splits: Optional[Sequence[str]] = None,
              replicates: Optional[int] = None, jobs: int = 1) -> List[Dict[str, Any]]:
        """Card gates on every table of every selected card (``arena audit semantic|formula``;
        the data gates of App. A.3 stage 5 on each split × replicate table).

        Args:
            scm_ids: card ids to audit (default: every selected card).
            splits: default: each card's splits (obs, obs_int).
            replicates: default: the family's ``n_replicates``.
            jobs: accepted for the :class:`~causalarena.family.Family` interface; cards
                are audited in this process (a card's tables take well under a second).

        Returns:
            One record per card: ``scm_id``, ``passed``, ``tables``, ``failed_tables``,
            ``failures`` (``split``, ``replicate``, ``reason``), ``errors`` (validation
            errors of a card that did not compile).
        """
        from .model import load_card
        from .validate import audit_tables

        records = []
        for inst in self.instances():
            if scm_ids and inst.scm_id not in scm_ids:
                continue
            if isinstance(inst, FailedCard):
                records.append({"scm_id": inst.scm_id, "passed": False, "tables": 0, "failed_tables": 0,
                                "failures": [], "errors": [inst.error]})
                continue
            path = next(r.path for r in self.reports() if r.spec is not None and r.spec.id == inst.spec.id)
            tables = audit_tables(load_card(path), inst.spec, tuple(splits or inst.splits),
                                  int(replicates or inst.n_replicates))
            failures = [{"split": t["split"], "replicate": t["replicate"], "reason": p}
                        for t in tables for p in t["problems"]]
            records.append({"scm_id": inst.scm_id, "passed": not failures, "tables": len(tables),
                            "failed_tables": sum(bool(t["problems"]) for t in tables), "failures": failures,
                            "errors": []})
        return records

    def audit_details(self, records: List[Dict[str, Any]]) -> Tuple[List[Any], bool]:
        """What ``arena audit`` prints after its pass counts and first failure lines.

        Returns:
            ``(renderables, ok)``: when every card passes, one line naming the
            gates that were run; otherwise a rich table of every finding, one row
            per card × split × finding with the replicates it occurred in (the
            command prints only the first three per card). ``ok`` is whether
            every record passed.
        """
        ok = all(r["passed"] for r in records)
        if ok:
            tables = sum(r["tables"] for r in records)
            return [f"[green]card gates (App. A.3 stage 5) pass on all {tables} tables of {len(records)} "
                    f"card(s)[/green]"], True
        from rich.markup import escape
        from rich.table import Table

        table = Table(title="card gates that failed (App. A.3 stage 5; `arena validate --all-tables CARD` for all)")
        for col in ("card", "split", "replicates", "finding"):
            table.add_column(col)
        for rec in records:
            for err in rec["errors"]:
                table.add_row(escape(rec["scm_id"]), "–", "–", escape(f"invalid card: {err}"))
            seen: Dict[Tuple[str, str], List[str]] = {}
            for f in rec["failures"]:
                seen.setdefault((f["split"], f["reason"]), []).append(str(f["replicate"]))
            for (split, reason), reps in seen.items():
                table.add_row(escape(rec["scm_id"]), split, ",".join(reps), escape(reason))
        return [table], False
