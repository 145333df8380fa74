"""arena-cards: scenario cards, the semantic and formula families' authoring format.

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
- :mod:`.render` — ``arena card show`` / ``arena card render``;
- :mod:`.components` — the SCM components cards compile to (``card_root``,
  ``card_expression``, ``card_channel``);
- :mod:`.audit` — the pool's near-duplicate audit (``arena card audit``);
- :mod:`.seal` — the public / reserved split and sealed cards (``arena card seal``);
- :mod:`.commands` — ``arena validate`` and ``arena card``;
- :mod:`.plugin` — the entry point contributing both to the core's registry.
"""

from __future__ import annotations

import importlib
from typing import Any

#: 0.2.0: compiled cards' columns are a permutation drawn from the card id, no longer the authored order
#: (every card table changed; compile.CARD_COMPILER, in each spec's metadata and so its fingerprint, is "2")
#: 0.3.0: the pool's diversity audit (:mod:`.audit`), sealed reserved cards (:mod:`.seal`), option ``pool``
#: 0.3.1: the paper's three worked examples pinned public with the demo's cards (``seal.WORKED_EXAMPLES``)
__version__ = "0.3.1"

#: public name → the module defining it. Imported on first access (PEP 562), so that
#: loading the entry point (:mod:`.plugin`) for ``arena --help`` reads no YAML, schema or units code.
_EXPORTS = {
    "compile_card": ".compile",
    "CARD_FORMAT": ".model", "Card": ".model", "CardError": ".model", "CardIssue": ".model", "load_card": ".model",
    "CardReport": ".validate", "validate_card": ".validate", "validate_path": ".validate",
}

__all__ = ["CARD_FORMAT", "Card", "CardError", "CardIssue", "CardReport", "compile_card", "load_card",
           "validate_card", "validate_path"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arena_cards' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
