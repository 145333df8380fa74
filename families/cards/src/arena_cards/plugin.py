"""Entry point ``causalarena: cards`` of ``arena-cards``: the scenario-card SCM components and commands.

Descriptors only: nothing here imports the card engine (pyyaml, jsonschema,
pint load when a card is read; :mod:`arena_cards.components` when a spec
names ``card_root``, ``card_expression`` or ``card_channel``; a command's
module when ``arena`` builds its parser).
"""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import CommandInfo, ComponentInfo

CITATION = ("CausalArena: benchmarking causal discovery on executable structural causal models "
            "(scenario cards: §4.2–4.4 and App. A.3–A.5).")


@hookimpl
def arena_components() -> Iterator[ComponentInfo]:
    """Yield the three components card specs compile to (FORMAT.md; :mod:`arena_cards.components`)."""
    yield ComponentInfo(kind="root_distribution", name="card_root",
                        factory="arena_cards.components:CardRoot",
                        description="a card root distribution (normal, lognormal, beta, categorical …) "
                                    "in the variable's unit")
    yield ComponentInfo(kind="mechanism", name="card_expression",
                        factory="arena_cards.components:CardExpression",
                        description="a restricted-language expression over the parents (safe evaluator; "
                                    "SI units for formula cards)")
    yield ComponentInfo(kind="noise", name="card_channel",
                        factory="arena_cards.components:CardChannel",
                        description="a card noise kind plus its cut points, instrument resolution and "
                                    "declared boundary clip")


@hookimpl
def arena_commands() -> Iterator[CommandInfo]:
    """Yield ``arena validate`` and ``arena card`` (:mod:`arena_cards.commands`)."""
    validate_help = "check scenario cards (file or folder) against every gate (App. A.3)"
    card_help = "show or render a scenario card; audit a card pool for near-duplicates; seal the reserved half"
    yield CommandInfo(name="validate", factory="arena_cards.commands.validate", help=validate_help,
                      description=validate_help)
    yield CommandInfo(name="card", factory="arena_cards.commands.card", help=card_help, description=card_help)
