"""The ``formula`` family: the cards shipped in ``cards/<domain>/<id>.yaml`` plus ``formula.cards=FOLDER``.

All loading, validation and compilation is the card engine's
(:class:`arena_cards.family.CardFamily`, from ``arena-cards``); this distribution ships data.
"""

from __future__ import annotations

from pathlib import Path

from arena_cards.family import CardFamily

#: the shipped cards, one folder per domain
CARDS_DIR = Path(__file__).with_name("cards")


class FormulaFamily(CardFamily):
    """Formula scenario cards (CausalArena paper §4.3, App. A.5).

    Options (``arena run --family-option formula.<key>=<value>``):
        cards: a folder (or card file; several separated by commas) of extra
            cards, validated like the shipped ones (pool rules as warnings).
        shipped: ``false`` to run only the ``cards`` folder.
        ids: comma list of card ids to keep.
    """

    name = "formula"
    shipped = CARDS_DIR
