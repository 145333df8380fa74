"""Diversity audit of a card pool: no card may be a near-duplicate of another (issue 23, item 3).

Every pair of cards in the pool (semantic and formula together) gets three
figures, each in [0, 1]:

- ``names``: Jaccard index of the two cards' **edge sets over normalised
  variable names** (:func:`normalise_name`: lower case, every run of
  non-alphanumerics one ``_``, unit and filler tokens such as ``pct``,
  ``per``, ``rate``, ``hours`` dropped, the remaining tokens sorted). Catches a
  card copied with its variable names kept (or lightly respelled), whatever its
  id, title and prose.
- ``structure``: a **Weisfeiler–Lehman subtree-kernel** similarity of the two
  graphs with names removed, each node labelled by its role
  (``variable type | mechanism type`` or ``… | root``). Catches a card cloned
  and *renamed* (every variable renamed, the graph kept). Node hashes come
  from :func:`networkx.weisfeiler_lehman_subgraph_hashes` (run forward on
  the children and on the reversed graph, so both parents and children
  count, :data:`WL_ITERATIONS` rounds); the kernel is the cosine of the two
  hash histograms of rounds 1…h, which networkx does not provide (it gives the
  hashes, not a kernel between two graphs) and which is a few lines: written
  here. Round 0 (the bare label counts) is left out: it is the mechanism mix,
  which ``mix`` measures on its own.
- ``mix``: the **mechanism-mix distance**, total-variation distance between
  the two cards' distributions of node roles (mechanism types of the
  non-root variables, ``root`` for roots): 0 same mix, 1 disjoint.

The pair's **score** is ``max(names, structure × (1 − mix))``: a copy under
the same names, or a renamed copy with the same mechanisms, both score near 1.
A pair scoring at or above :data:`THRESHOLD` fails the audit.

Graph edit distance (:func:`networkx.graph_edit_distance`) was considered
and not used: on two 20-node shipped cards (role-labelled) its exact search
had not finished after 20 s (best bound so far 46 edits; the first upper bound
of :func:`networkx.optimize_graph_edit_distance` came in 0.4 s at 49), and the
pool has ~5,900 pairs (≈ 20,000 at 200 cards); the whole WL audit takes ~2 s.

Calibration (the shipped pool of 2026-12-05, 17:49: 119 cards, 60 semantic +
59 formula, 7,021 pairs, :data:`WL_ITERATIONS` = 2; figures and the closest
pairs in ``notes/issue-23.md``; the first calibration, on 109 cards, gave the
same top pairs): two different shipped cards score at most 0.479 (median
0.016, 99th percentile 0.315; the top pairs are formula cards built on the
same sensor-chain pattern, with no shared variable names). A card cloned under
a new id, or with every variable renamed, scores 1.0 (the
must-fail case); renamed with one edge dropped, 0.559 at least (3 draws per
card); two edges, 96 % ≥ the threshold; three, 65 %. :data:`THRESHOLD` =
0.52, midway between the pool's highest pair and the lowest one-edge renamed
clone. On the 109-card pool, three rounds (h = 3) separated the pool better
(max 0.35) but let a renamed clone with one edge dropped fall to 0.37, under
it; one round (h = 1) let two different cards reach 0.68: h = 2 is the
compromise. ``tests/test_audit_seal.py`` re-checks the calibration on the
pool the tests see.

Errors: a card that does not load raises :class:`~arena_cards.model.CardError`
(naming the file and field) from :func:`audit_pool`.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import attrs

#: a pair scoring at or above this is a near-duplicate (calibrated on the shipped pool, see module doc)
THRESHOLD = 0.52
#: Weisfeiler–Lehman rounds (each round reaches one more edge away)
WL_ITERATIONS = 2
#: tokens dropped from variable names before comparing them (units, fillers)
_STOP = frozenset("""
    a an the of per pct percent rate ratio share fraction frac count num number n total avg mean
    s sec secs second seconds min mins minute minutes h hr hrs hour hours day days week weeks month months
    year years yr usd eur dollars k m km mm cm kg g w kw mw kwh mwh c degc k pa kpa mpa bar
    is has flag index idx level score
""".split())


def normalise_name(name: str) -> str:
    """A variable name reduced for comparison: ``"Pump_Flow_m3_per_h"`` → ``"flow_m3_pump"``.

    Lower case, runs of non-alphanumerics become one separator, tokens in
    :data:`_STOP` are dropped, the rest are sorted (so ``flow_pump`` and
    ``pump_flow`` agree). A name made only of stop tokens keeps them all.
    """
    tokens = [t for t in re.split(r"[^a-z0-9]+", str(name).lower()) if t]
    kept = [t for t in tokens if t not in _STOP]
    return "_".join(sorted(kept or tokens))


@attrs.frozen
class CardShape:
    """What the audit compares of one card.

    Attributes:
        card_id: the card's id.
        family: ``semantic`` / ``formula``.
        path: its file.
        edges: frozenset of (normalised parent name, normalised child name).
        roles: node → role label (``type|mechanism`` or ``type|root``), for the structure kernel.
        graph_edges: the (parent, child) edges under the card's own names.
    """

    card_id: str
    family: str
    path: str
    edges: frozenset
    roles: Dict[str, str]
    graph_edges: Tuple[Tuple[str, str], ...]


def shape_of(card: Any) -> CardShape:
    """The :class:`CardShape` of a loaded :class:`~arena_cards.model.Card`."""
    roles = {}
    for v in card.variables:
        mech = v.get("mechanism") or {}
        kind = mech.get("type") if mech else "root"
        roles[str(v.get("name"))] = f"{v.get('type', '?')}|{kind}"
    graph_edges = tuple((str(e.get("from")), str(e.get("to"))) for e in card.edges)
    edges = frozenset((normalise_name(a), normalise_name(b)) for a, b in graph_edges)
    return CardShape(card_id=card.id, family=card.family, path=card.source, edges=edges, roles=roles,
                     graph_edges=graph_edges)


def _wl_features(shape: CardShape) -> Counter:
    """Histogram of Weisfeiler–Lehman subtree hashes (rounds 1…h, both edge directions)."""
    import networkx as nx

    g = nx.DiGraph()
    for node, role in shape.roles.items():
        g.add_node(node, role=role)
    g.add_edges_from(shape.graph_edges)
    for node in g.nodes:  # an edge naming an undeclared variable (the gates refuse such a card anyway)
        g.nodes[node].setdefault("role", "?")
    feats: Counter = Counter()
    for direction, graph in (("down", g), ("up", g.reverse(copy=True))):
        with warnings.catch_warnings():  # networkx 3.5 changed directed hashes; we only compare within one run
            warnings.simplefilter("ignore", UserWarning)
            hashes = nx.weisfeiler_lehman_subgraph_hashes(graph, node_attr="role", iterations=WL_ITERATIONS)
        for node_hashes in hashes.values():
            for depth, h in enumerate(node_hashes, start=1):
                feats[(direction, depth, h)] += 1
    return feats


def _cosine(a: Counter, b: Counter) -> float:
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    return dot / (na * nb) if na and nb else 0.0


def _mix(shape: CardShape) -> Dict[str, float]:
    kinds = Counter(role.split("|", 1)[1] for role in shape.roles.values())
    total = sum(kinds.values()) or 1
    return {k: v / total for k, v in kinds.items()}


def mix_distance(a: CardShape, b: CardShape) -> float:
    """Total-variation distance of the two cards' mechanism mixes (0 same, 1 disjoint)."""
    ma, mb = _mix(a), _mix(b)
    return 0.5 * sum(abs(ma.get(k, 0.0) - mb.get(k, 0.0)) for k in set(ma) | set(mb))


@attrs.frozen
class PairScore:
    """The audit's figures for one pair of cards (see the module doc)."""

    a: str
    b: str
    names: float
    structure: float
    mix: float

    @property
    def score(self) -> float:
        return max(self.names, self.structure * (1.0 - self.mix))

    def __str__(self) -> str:
        return (f"{self.a} ~ {self.b}: score {self.score:.3f} (names {self.names:.3f}, "
                f"structure {self.structure:.3f}, mix distance {self.mix:.3f})")


def compare(a: CardShape, b: CardShape, _feats: Optional[Dict[str, Counter]] = None) -> PairScore:
    """The :class:`PairScore` of two card shapes."""
    union = a.edges | b.edges
    names = len(a.edges & b.edges) / len(union) if union else 0.0
    fa = _feats[a.path] if _feats else _wl_features(a)
    fb = _feats[b.path] if _feats else _wl_features(b)
    return PairScore(a=a.card_id, b=b.card_id, names=names, structure=_cosine(fa, fb), mix=mix_distance(a, b))


def load_shapes(paths: Iterable[Union[str, Path]], key: Optional[str] = None) -> List[CardShape]:
    """The shapes of every card under ``paths`` (files or folders; sealed ``*.yaml.enc`` cards are read
    with the reserved key when it is given or set, and skipped otherwise).

    Raises:
        CardError: a card does not load (its issues name the file and field).
        FileNotFoundError: a path does not exist.
    """
    from .model import card_files, load_card
    from .seal import key_from_env, sealed_files

    key = key if key is not None else key_from_env()
    shapes = []
    for root in paths:
        for f in card_files(root):
            shapes.append(shape_of(load_card(f)))
        if key:
            for f in sealed_files(root):
                shapes.append(shape_of(load_card(f, key=key)))
    return shapes


def audit_shapes(shapes: Sequence[CardShape]) -> List[PairScore]:
    """Every pair's :class:`PairScore`, highest score first."""
    feats = {s.path: _wl_features(s) for s in shapes}
    out = [compare(shapes[i], shapes[j], feats) for i in range(len(shapes)) for j in range(i + 1, len(shapes))]
    return sorted(out, key=lambda p: -p.score)


def audit_pool(paths: Iterable[Union[str, Path]], threshold: float = THRESHOLD,
               key: Optional[str] = None) -> Tuple[List[PairScore], List[PairScore]]:
    """Audit the cards under ``paths`` together.

    Returns:
        ``(all pairs highest first, pairs at or above threshold)``.
    """
    pairs = audit_shapes(load_shapes(paths, key))
    return pairs, [p for p in pairs if p.score >= threshold]


def shipped_card_folders() -> List[Path]:
    """The shipped card folders of the installed card families (semantic, formula), those present."""
    out = []
    for module in ("arena_family_semantic", "arena_family_formula"):
        try:
            mod = __import__(module)
        except ImportError:
            continue
        folder = Path(mod.CARDS_DIR)
        if folder.is_dir():
            out.append(folder)
    return out
