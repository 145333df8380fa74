"""Scenario cards: the semantic and formula families' authoring format.

CausalArena paper §4.2–4.4, App. A.3–A.5. A card is a YAML file (format
``causalarena.card/1``, documented in ``FORMAT.md`` with a JSON Schema in
``card.schema.json`` and an annotated ``example.yaml``) compiled to the
core's :class:`~causalarena.scm.SCMSpec`. Modules:

- :mod:`.expressions` — the restricted expression language and its safe evaluator;
- :mod:`.units` — pint units of variables and constants;
- :mod:`.model` — loading (YAML with lines, limits, JSON Schema);
- :mod:`.compile` — static gates and translation to an SCM spec;
- :mod:`.validate` — data gates, residual checks, ``arena validate``;
- :mod:`.family` — :class:`CardFamily`, the base of ``arena-family-semantic`` and ``-formula``;
- :mod:`.render` — ``arena card show`` / ``arena card render``.
"""

from .compile import compile_card
from .model import CARD_FORMAT, Card, CardError, CardIssue, load_card
from .validate import CardReport, validate_card, validate_path

__all__ = ["CARD_FORMAT", "Card", "CardError", "CardIssue", "CardReport", "compile_card", "load_card",
           "validate_card", "validate_path"]
