"""The ``causalidview`` family: 40 worlds × (original, stay, move), five views each (CausalIDView §4.1, App. C–D).

Instance ids: ``"w00-linear"``, ``"w00-linear-stay"``, ``"w00-linear-move"``,
``"w01-quadratic"`` … (world index k, its effect family
``EFFECT_FAMILIES[k mod 5]``, the variant). The instance's splits are the
views ``bd``, ``fd``, ``iv``, ``px``, ``hc`` (§4.1.2, Table 3).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from arena_task_effect.effect import EffectDataset, EffectInstance, EffectOracle
from causalarena.family import Family, InstanceSummary

from . import __version__
from .scm import (
    EFFECT_FAMILIES,
    FAMILY_NAME,
    GENERATOR_VERSION,
    SETTINGS,
    VARIANTS,
    World,
    effect_family_of,
    generate_world,
    optional_int,
    world_id_of,
)

#: the five point-estimation views and the auxiliary roles each keeps (§4.1.2, Table 3)
VIEW_ROLES: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "bd": (("confounder", "U"),),
    "fd": (("mediator", "M"),),
    "iv": (("instrument", "I"),),
    "px": (("treatment_proxy", "Zp"), ("outcome_proxy", "Wp")),
    "hc": (),
}
VIEWS = tuple(VIEW_ROLES)
#: the family's options and their defaults
DEFAULT_OPTIONS = {"worlds": 40, "variants": "original,stay,move", "per_family": None, "n_context": 1024,
                   "n_query": 100, "n_replicates": 1}
_ID = re.compile(r"^w(\d{2,})-(" + "|".join(EFFECT_FAMILIES) + r")(?:-(stay|move))?$")


@functools.lru_cache(maxsize=48)
def cached_world(world_id: str, index: int, effect_family: str, replicate: int, n_context: int,
                 n_query: int) -> World:
    """:func:`~.scm.generate_world` under the default settings, kept (shared by the 3 variants of a world)."""
    return generate_world(world_id, index, effect_family, replicate, n_context, n_query, SETTINGS)


def parse_id(scm_id: str) -> Tuple[int, str, str]:
    """(world index, effect family, variant) of an instance id.

    Raises:
        KeyError: not a causalidview id, or the effect family is not the index's.
    """
    m = _ID.match(str(scm_id))
    if not m:
        raise KeyError(f"{scm_id!r} is not a causalidview id (e.g. 'w00-linear', 'w03-fourier-stay')")
    index, fam, variant = int(m.group(1)), m.group(2), m.group(3) or "original"
    if effect_family_of(index) != fam:
        raise KeyError(f"{scm_id!r}: world {index} has effect family {effect_family_of(index)!r}, not {fam!r}")
    return index, fam, variant


class CausalIDViewInstance(EffectInstance):
    """One world and one outcome variant; its splits are the five views.

    Attributes:
        scm_id: ``"w00-linear"`` (original), ``"w00-linear-stay"``, ``"w00-linear-move"``.
        index, effect_family, variant, world_id (the base id, shared by the variants).
        n_context, n_query: context and query units of a realization.
        n_replicates: realizations (default 1: the paper's world is one realization).
        factors: effect_family, world, variant, n_context, n_query.
    """

    family = FAMILY_NAME

    def __init__(self, index: int, variant: str = "original", n_context: int = 1024, n_query: int = 100,
                 n_replicates: int = 1) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"causalidview: variant {variant!r} not in {VARIANTS}")
        self.index, self.variant = int(index), variant
        self.effect_family = effect_family_of(index)
        self.world_id = world_id_of(index)
        self.scm_id = self.world_id if variant == "original" else f"{self.world_id}-{variant}"
        self.splits = VIEWS
        self.n_context, self.n_query, self.n_replicates = int(n_context), int(n_query), int(n_replicates)
        self.factors = {"effect_family": self.effect_family, "world": self.world_id, "variant": variant,
                        "n_context": self.n_context, "n_query": self.n_query}

    def __repr__(self) -> str:
        return f"CausalIDViewInstance({self.scm_id!r})"

    def world(self, replicate: int = 0) -> World:
        """The generated realization (cached; identical for the three variants of a world).

        Raises:
            ValueError: replicate out of range.
        """
        if not 0 <= int(replicate) < self.n_replicates:
            raise ValueError(f"{self.scm_id}: replicate {replicate} out of range 0 … {self.n_replicates - 1}")
        return cached_world(self.world_id, self.index, self.effect_family, int(replicate), self.n_context,
                            self.n_query)

    def _context(self, world: World, n: Optional[int]) -> np.ndarray:
        if n is None:
            return world.context_ids
        n = int(n)
        if not 2 <= n <= self.n_context:
            raise ValueError(f"{self.scm_id}: n = {n} context units must be in 2 … n_context = {self.n_context} "
                             "(the first n context units are kept; raise the family option n_context for more)")
        return world.context_ids[:n]

    def dataset(self, split: str, replicate: int, standardise: bool = True, protocol: str = "default",
                n: Optional[int] = None) -> EffectDataset:
        """The view ``split`` as a method sees it: context (n × 50) X, T, Y and the view's auxiliaries,
        the query covariates (100 × 50) and their factual auxiliaries; no potential outcome, no τ.

        ``standardise`` is ignored (the paper does not standardise the synthetic worlds); ``n`` keeps
        the first n context units (App. F.2 context-length stress), the queries are unchanged.

        Raises:
            ValueError: unknown view, replicate out of range, n out of range, a protocol other than ``default``.
        """
        if split not in VIEW_ROLES:
            raise ValueError(f"{self.scm_id}: unknown view {split!r}; expected one of {', '.join(VIEWS)}")
        if protocol != "default":
            raise ValueError(f"{self.scm_id}: protocol {protocol!r}: the effect worlds have no intervention "
                             "protocol (use 'default')")
        w = self.world(replicate)
        c, q = self._context(w, n), w.query_ids
        master = w.master(self.variant)
        aux = {role: master[col][:, None] for role, col in VIEW_ROLES[split]}
        return EffectDataset(
            X=w.X[c], T=w.T[c], Y=master["Y"][c], X_query=w.X[q], query_ids=q, unit_ids=c,
            auxiliary={role: a[c] for role, a in aux.items()},
            auxiliary_query={role: a[q] for role, a in aux.items()},
            columns={"covariates": [f"x{j}" for j in range(w.X.shape[1])],
                     **{role: [col] for role, col in VIEW_ROLES[split]}},
            view=split, outcome="continuous", target="cate",
            metadata={"seed": int(w.seed), "family": FAMILY_NAME, "scm_id": self.scm_id, "split": split,
                      "replicate": int(replicate), "factors": dict(self.factors),
                      "generator": GENERATOR_VERSION, "version": __version__})

    def oracle(self, split: str, replicate: int, n: Optional[int] = None) -> EffectOracle:
        """τ at the query units (τ₀, or 2τ₀ for *move*), in the dataset's query order.

        Raises:
            ValueError: unknown view or replicate out of range.
        """
        if split not in VIEW_ROLES:
            raise ValueError(f"{self.scm_id}: unknown view {split!r}; expected one of {', '.join(VIEWS)}")
        w = self.world(replicate)
        self._context(w, n)
        q = w.query_ids
        return EffectOracle(query_ids=q, tau=w.outcomes(self.variant)["tau"][q])

    def fingerprint(self) -> str:
        """16 hex digits of sha256(generator version, settings, id, sizes)."""
        spec = {"generator": GENERATOR_VERSION, "settings": SETTINGS.as_dict(), "scm_id": self.scm_id,
                "n_context": self.n_context, "n_query": self.n_query}
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


class CausalIDViewFamily(Family):
    """The CausalIDView synthetic worlds (§4.1, App. C).

    Options (keyword arguments; CLI strings such as ``worlds=10`` are accepted):
        worlds: number of worlds, indices 0 … worlds−1 (default 40 → 8 per effect family).
        variants: comma list of ``original``, ``stay``, ``move`` (default all three).
        per_family: keep the first k worlds of each effect family (default all).
        n_context, n_query: units per realization (1,024 and 100).
        n_replicates: realizations per world (default 1).

    Raises:
        ValueError: an unknown option or a bad value (the message names it).
    """

    name = FAMILY_NAME

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
        if unknown:
            raise ValueError(f"causalidview: unknown option(s) {unknown}; known: {', '.join(DEFAULT_OPTIONS)}")
        super().__init__(**options)
        opts = {**DEFAULT_OPTIONS, **options}
        self.worlds = optional_int("worlds", opts["worlds"], 1)
        self.per_family = optional_int("per_family", opts["per_family"], 1)
        self.n_context = optional_int("n_context", opts["n_context"], 2)
        self.n_query = optional_int("n_query", opts["n_query"], 1)
        self.replicates = optional_int("n_replicates", opts["n_replicates"], 1)
        raw = opts["variants"]
        names = [v.strip() for v in (raw.split(",") if isinstance(raw, str) else raw) if str(v).strip()]
        bad = [v for v in names if v not in VARIANTS]
        if bad or not names:
            raise ValueError(f"causalidview option variants={raw!r}: expected a comma list of {', '.join(VARIANTS)}")
        self.variants = tuple(v for v in VARIANTS if v in names)

    def _indices(self) -> List[int]:
        out = list(range(self.worlds))
        if self.per_family is not None:
            out = [k for k in out if k // len(EFFECT_FAMILIES) < self.per_family]
        return out

    def _make(self, index: int, variant: str) -> CausalIDViewInstance:
        return CausalIDViewInstance(index, variant, self.n_context, self.n_query, self.replicates)

    def ids(self) -> List[str]:
        """The instance ids, world-major (``w00-linear``, ``w00-linear-stay``, ``w00-linear-move``, ``w01-…``)."""
        return [self._make(k, v).scm_id for k in self._indices() for v in self.variants]

    def instances(self) -> List[CausalIDViewInstance]:
        """Every instance under the options; nothing is generated until a dataset is asked for."""
        return [self._make(k, v) for k in self._indices() for v in self.variants]

    def instance(self, scm_id: str) -> CausalIDViewInstance:
        """Any valid id, inside the option selection or not.

        Raises:
            KeyError: not a causalidview id.
        """
        index, _, variant = parse_id(scm_id)
        return self._make(index, variant)

    def select(self, scm_ids: Sequence[str]) -> List[CausalIDViewInstance]:
        """The valid causalidview ids among ``scm_ids`` (others are skipped), built on request."""
        out = []
        for sid in scm_ids:
            try:
                out.append(self.instance(sid))
            except KeyError:
                continue
        return out

    def listing(self) -> List[InstanceSummary]:
        return [InstanceSummary(scm_id=i.scm_id, d=SETTINGS.p, splits=VIEWS, n_replicates=self.replicates)
                for i in self.instances()]

    def expected_counts(self) -> Dict[str, Dict[str, int]]:
        """Instances per effect family and per variant under the options (40 worlds: 8 worlds per family)."""
        fams: Dict[str, int] = {}
        for k in self._indices():
            fams[effect_family_of(k)] = fams.get(effect_family_of(k), 0) + len(self.variants)
        return {"effect_family": fams, "variant": {v: len(self._indices()) for v in self.variants}}

    def audit(self, scm_ids: Optional[Sequence[str]] = None, splits: Optional[Sequence[str]] = None,
              replicates: Optional[int] = None, jobs: int = 1) -> List[Dict[str, Any]]:
        """App. D.1–D.2 on each instance (:func:`.functionals.audit` and the paired-view integrity).

        A table is one (view, replicate); it fails when the view is not the master world's projection,
        or when the world's potential-outcome identity, the view's functional (bd, fd, iv, px) or the
        Stay/Move target exceeds the tolerance 1e-10. ``jobs`` is ignored (an audit takes milliseconds).
        """
        from .functionals import FUNCTIONALS, TOLERANCE
        from .functionals import audit as world_audit

        insts = self.select(scm_ids) if scm_ids else self.instances()
        views = [s for s in (splits or VIEWS) if s in VIEW_ROLES]
        out = []
        for inst in insts:
            rec: Dict[str, Any] = {"scm_id": inst.scm_id, "passed": True, "tables": 0, "failed_tables": 0,
                                   "failures": [], "errors": [], "max_errors": {}}
            for r in range(replicates or inst.n_replicates):
                try:
                    w = cached_world(inst.world_id, inst.index, inst.effect_family, r, inst.n_context, inst.n_query)
                    errs = world_audit(w, (inst.variant,))
                except Exception as exc:  # noqa: BLE001 - reported as "not built"
                    rec["errors"].append(f"replicate {r}: {type(exc).__name__}: {exc}")
                    continue
                for k, v in errs.items():
                    rec["max_errors"][k] = max(rec["max_errors"].get(k, 0.0), v)
                for view in views:
                    reasons = [f"{k} error {errs[k]:.3g} > {TOLERANCE:g}"
                               for k in ("potential_outcomes", "stay", "move") if errs[k] > TOLERANCE]
                    if view in FUNCTIONALS and errs[view] > TOLERANCE:
                        reasons.append(f"{view} functional error {errs[view]:.3g} > {TOLERANCE:g}")
                    reasons += projection_errors(inst, w, view, r)
                    rec["tables"] += 1
                    if reasons:
                        rec["failed_tables"] += 1
                        rec["failures"].append({"split": view, "replicate": r, "reason": "; ".join(reasons)})
            rec["passed"] = not rec["failures"] and not rec["errors"]
            out.append(rec)
        return out


def projection_errors(inst: CausalIDViewInstance, world: World, view: str, replicate: int) -> List[str]:
    """Why the view's dataset is not the master world's projection (App. D.1; empty when it is):
    X, T, Y, unit and query ids, and each retained auxiliary at the context and the queries."""
    ds = inst.dataset(view, replicate)
    master = world.master(inst.variant)
    c, q = world.context_ids, world.query_ids
    out = []
    checks = [("unit_ids", ds.unit_ids, c), ("query_ids", ds.query_ids, q), ("X", ds.X, master["X"][c]),
              ("X_query", ds.X_query, master["X"][q]), ("T", ds.T, master["T"][c]), ("Y", ds.Y, master["Y"][c])]
    for role, col in VIEW_ROLES[view]:
        checks.append((f"auxiliary[{role}]", ds.auxiliary.get(role), master[col][c][:, None]))
        checks.append((f"auxiliary_query[{role}]", ds.auxiliary_query.get(role), master[col][q][:, None]))
    if sorted(ds.auxiliary) != sorted(role for role, _ in VIEW_ROLES[view]):
        out.append(f"roles {sorted(ds.auxiliary)} differ from the view's")
    for name, got, want in checks:
        if got is None or got.shape != want.shape or not np.array_equal(got, want):
            out.append(f"{name} differs from the master world")
    return out
