"""The ``semantic`` family: the cards shipped in ``cards/<domain>/<id>.yaml`` plus ``semantic.cards=FOLDER``.

All loading, validation and compilation is the card engine's
(:class:`arena_cards.family.CardFamily`, from ``arena-cards``); this distribution ships data.
"""

from __future__ import annotations

from pathlib import Path

from arena_cards.family import CardFamily

#: the shipped cards, one folder per domain
CARDS_DIR = Path(__file__).with_name("cards")


class SemanticFamily(CardFamily):
    """Semantic scenario cards (CausalArena paper §4.2, App. A.4).

    Options (``arena run --family-option semantic.<key>=<value>``):
        cards: a folder (or card file; several separated by commas) of extra
            cards, validated like the shipped ones (pool rules as warnings).
        shipped: ``false`` to run only the ``cards`` folder.
        ids: comma list of card ids to keep.
    """

    name = "semantic"
    shipped = CARDS_DIR
