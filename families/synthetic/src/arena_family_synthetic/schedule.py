"""The grid of App. A.1: configuration ids, seeds, and the factor schedule.

The pool crosses 10 graph families × d ∈ {10, 20, 30, 50, 100} × 20 slots =
1,000 configurations. Slots 0–9 of every block are the **public** half (ids
``er-d10-003``), slots 10–19 the **reserved** half (ids ``er-d10-r013``).
Public seeds are SHA-256 of the seed namespace (:data:`SEED_VERSION`, `synthetic@1`) and the id, so anyone
regenerates them; reserved seeds are HMAC-SHA256 under a key the operator
holds in the environment variable :data:`KEY_ENV` (never in the repo), so
without it a reserved configuration can neither be regenerated nor guessed.
A **fresh round** R (``er-d10-f3-007``) draws never-released configurations
over the same grid and schedule, also under the key.

Schedule (a pure function of the block and the slot, so counts are exact):

* difficulty (App. A.1 "Difficulty variants"): slots cycle clean → single
  stressor → single stressor → paired stressors (5 / 10 / 5 per block); the
  stressor of a single slot rotates through the 8 stressors, a paired slot
  through the 28 stressor pairs, continuing across blocks so every stressor
  gets ≈ the same share;
* root dependency (App. A.1 "Root dependency"): slots 1, 6, 11, 16 of every
  block (4 × 50 = 200 of 1,000) use a dependent root block, the mode rotating
  through common factor / random covariance / uniform ball; the other 800 are
  independent.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
import re
from typing import Dict, List, NamedTuple, Optional, Tuple

from . import SEED_VERSION

DIMS = (10, 20, 30, 50, 100)
SLOTS_PER_BLOCK = 20
PUBLIC_SLOTS = tuple(range(10))
RESERVED_SLOTS = tuple(range(10, 20))
KEY_ENV = "CAUSALARENA_RESERVED_KEY"

#: the 8 stressors of App. A.1, in the paper's order
STRESSORS = ("weak_signal", "high_noise", "feature_warping", "outliers", "missingness", "feature_corruption",
             "intervention_shift", "soft")
STRESSOR_PAIRS = tuple(itertools.combinations(STRESSORS, 2))  # 28
DEPENDENT_MODES = ("common_factor", "random_covariance", "uniform_ball")
DEPENDENT_SLOTS = (1, 6, 11, 16)  # slot 1: the demo's two slots cover both root modes

_ID = re.compile(r"^(?P<graph>[a-z_]+)-d(?P<d>\d+)-(?:(?P<r>r)|f(?P<round>\d+)-)?(?P<slot>\d{3})$")


class ConfigId(NamedTuple):
    """A parsed configuration id."""

    graph: str
    d: int
    slot: int
    release: str  # "public" | "reserved" | "fresh"
    round: Optional[int]


class ReservedKeyError(PermissionError):
    """A reserved or fresh configuration was requested without the operator's key."""


def graph_families() -> Tuple[str, ...]:
    from .graphs import GRAPH_FAMILIES

    return tuple(GRAPH_FAMILIES)


def blocks() -> List[Tuple[str, int]]:
    """(graph family, d) blocks in grid order; the block index drives the rotation."""
    return [(g, d) for g in graph_families() for d in DIMS]


def make_id(graph: str, d: int, slot: int, fresh: Optional[int] = None) -> str:
    """The id of a slot: public ``er-d10-003``, reserved ``er-d10-r013``, fresh ``er-d10-f2-013``."""
    if not 0 <= slot < SLOTS_PER_BLOCK:
        raise ValueError(f"slot {slot} out of range 0..{SLOTS_PER_BLOCK - 1}")
    if fresh is not None:
        return f"{graph}-d{d}-f{int(fresh)}-{slot:03d}"
    return f"{graph}-d{d}-{'r' if slot in RESERVED_SLOTS else ''}{slot:03d}"


def looks_like_id(config_id: str) -> bool:
    """Whether ``config_id`` is meant as a synthetic id: the id pattern with a known graph family.

    ``parse_id`` may still reject it (off-grid d, wrong half, non-canonical);
    another family's id (``sachs``, ``clinic-reminders``) is not one.
    """
    m = _ID.match(config_id)
    return bool(m) and m["graph"] in graph_families()


def parse_id(config_id: str) -> ConfigId:
    """Parse and check a configuration id.

    Raises:
        ValueError: malformed id, unknown graph family, or a slot in the
            wrong half (``er-d10-013`` is reserved and must be written
            ``er-d10-r013``).
    """
    m = _ID.match(config_id)
    if not m:
        raise ValueError(f"malformed synthetic config id {config_id!r}; expected '<graph>-d<d>-<slot>' "
                         "(public, slot 000-009), '<graph>-d<d>-r<slot>' (reserved, 010-019) or "
                         "'<graph>-d<d>-f<round>-<slot>' (fresh round)")
    graph, d, slot = m["graph"], int(m["d"]), int(m["slot"])
    if graph not in graph_families():
        raise ValueError(f"{config_id!r}: unknown graph family {graph!r}; known: {list(graph_families())}")
    if d not in DIMS:
        raise ValueError(f"{config_id!r}: d = {d} is not on the grid; d is one of {list(DIMS)} (App. A.1)")
    if slot >= SLOTS_PER_BLOCK:
        raise ValueError(f"{config_id!r}: slot {slot} out of range 000-{SLOTS_PER_BLOCK - 1:03d}")
    if m["round"] is not None:
        if int(m["round"]) < 1:
            raise ValueError(f"{config_id!r}: fresh rounds are numbered from 1")
        cid = ConfigId(graph, d, slot, "fresh", int(m["round"]))
    else:
        reserved = bool(m["r"])
        if reserved != (slot in RESERVED_SLOTS):
            right = make_id(graph, d, slot)
            raise ValueError(f"{config_id!r}: slot {slot:03d} is {'reserved' if slot in RESERVED_SLOTS else 'public'}"
                             f"; write {right!r} (slots 000-009 are public, 010-019 reserved as r010-r019)")
        cid = ConfigId(graph, d, slot, "reserved" if reserved else "public", None)
    canonical = make_id(graph, d, slot, cid.round)
    if canonical != config_id:  # one SCM, one id: 'er-d010-000' would seed a different SCM
        raise ValueError(f"{config_id!r} is not a canonical id; write {canonical!r}")
    return cid


def config_seed(config_id: str, version: str = SEED_VERSION, key: Optional[str] = None) -> int:
    """The 64-bit seed of a configuration.

    Public ids: SHA-256 of ``version`` and the id (stable everywhere).
    Reserved and fresh ids: HMAC-SHA256 keyed with the operator's key
    (``key`` or the environment variable :data:`KEY_ENV`).

    Raises:
        ReservedKeyError: a reserved/fresh id without a key.
        ValueError: malformed id.
    """
    cid = parse_id(config_id)
    message = f"{version}\x1f{config_id}".encode()
    if cid.release == "public":
        digest = hashlib.sha256(message).digest()
    else:
        key = key if key is not None else os.environ.get(KEY_ENV)
        if not key:
            raise ReservedKeyError(
                f"{config_id!r} is a {cid.release} configuration: its seed derives from the operator's key; "
                f"set {KEY_ENV} ({cid.release} configurations cannot be generated without it)")
        digest = hmac.new(key.encode(), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little")


def difficulty(block: int, slot: int) -> Tuple[str, ...]:
    """Stressors of a slot: () clean, (s,) single, (s, t) paired (App. A.1 schedule)."""
    phase = slot % 4
    if phase == 0:
        return ()
    if phase in (1, 2):
        single = (slot // 4) * 2 + (phase - 1)  # 0..9 within the block
        return (STRESSORS[(block * 10 + single) % len(STRESSORS)],)
    return STRESSOR_PAIRS[(block * 5 + slot // 4) % len(STRESSOR_PAIRS)]


def difficulty_level(stressors: Tuple[str, ...]) -> str:
    """``"clean"``, ``"single"`` or ``"paired"`` for 0, 1 or 2 stressors."""
    return {0: "clean", 1: "single", 2: "paired"}[len(stressors)]


def root_dependency(block: int, slot: int) -> str:
    """``"independent"`` or the dependent mode of a slot (200 of 1,000 dependent)."""
    if slot not in DEPENDENT_SLOTS:
        return "independent"
    return DEPENDENT_MODES[(block * len(DEPENDENT_SLOTS) + DEPENDENT_SLOTS.index(slot)) % len(DEPENDENT_MODES)]


def block_index(graph: str, d: int) -> int:
    """Index of the (graph, d) block; dimensions off the grid rotate as the nearest listed one."""
    fams = graph_families()
    nearest = min(DIMS, key=lambda x: (abs(x - d), x))
    return fams.index(graph) * len(DIMS) + DIMS.index(nearest)


def schedule_counts(config_ids) -> Dict[str, Dict[str, int]]:
    """Counts the schedule prescribes for these ids (``arena audit`` compares the realised ones)."""
    counts: Dict[str, Dict[str, int]] = {"graph": {}, "d": {}, "root_dependency": {}, "difficulty_level": {},
                                         "difficulty": {}}
    for cid in map(parse_id, config_ids):
        block = block_index(cid.graph, cid.d)
        stress = difficulty(block, cid.slot)
        for key, value in (("graph", cid.graph), ("d", str(cid.d)), ("root_dependency", root_dependency(block, cid.slot)),
                           ("difficulty_level", difficulty_level(stress))):
            counts[key][value] = counts[key].get(value, 0) + 1
        for s in stress or ("clean",):
            counts["difficulty"][s] = counts["difficulty"].get(s, 0) + 1
    return counts
