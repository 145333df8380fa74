"""Units of scenario cards (pint).

One shared :class:`pint.UnitRegistry` (built lazily: ~0.3 s) holding pint's
default definitions plus the few operational units semantic cards need:
currencies (``USD``, ``EUR``, ``GBP`` as one ``[currency]`` dimension, no
exchange rate implied beyond USD being the base) and countable nouns
(``person``, ``patient``, ``vehicle`` …), all dimensionless aliases of
``count``. Anything else countable is written ``count``.
"""

from __future__ import annotations

import functools
from typing import Any, Tuple

#: extra definitions (pint definition syntax)
EXTRA_DEFINITIONS = (
    "USD = [currency]",
    "EUR = USD",  # a label, not an exchange rate: cards never mix currencies in one expression
    "GBP = USD",
    "person = count = persons = people",
    "patient = count = patients",
    "student = count = students",
    "vehicle = count = vehicles",
    "household = count = households",
    "case = count = cases",
    "event = count = events",
    "incident = count = incidents",
    "item = count = items",
    "score_point = count",
)


class UnitError(ValueError):
    """A unit string pint cannot parse, or a dimensional inconsistency."""


@functools.lru_cache(maxsize=1)
def registry():
    """The shared pint registry (``pint.UnitRegistry`` with :data:`EXTRA_DEFINITIONS`)."""
    import pint

    ureg = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    for line in EXTRA_DEFINITIONS:
        ureg.define(line)
    return ureg


@functools.lru_cache(maxsize=4096)
def parse_unit(text: str):
    """The pint unit of ``text`` (``"1"`` and ``"dimensionless"`` are pure numbers).

    Raises:
        UnitError: ``text`` is not a unit pint knows (names the offending token).
    """
    if not isinstance(text, str) or not text.strip():
        raise UnitError(f"unit must be a non-empty string, got {text!r}")
    ureg = registry()
    try:
        return ureg.Unit(text.strip())
    except Exception as exc:  # pint raises several error types (UndefinedUnitError, DefinitionSyntaxError …)
        raise UnitError(f"unknown unit {text!r}: {exc}") from None


@functools.lru_cache(maxsize=4096)
def to_base_affine(text: str) -> Tuple[float, float]:
    """``(a, b)`` with ``value_in_SI_base = a · value + b`` for unit ``text``.

    Offset units (°C, °F) have ``b ≠ 0``; every other unit is a pure scale.

    Raises:
        UnitError: unknown unit.
    """
    unit = parse_unit(text)
    ureg = registry()
    q0 = ureg.Quantity(0.0, unit).to_base_units().magnitude
    q1 = ureg.Quantity(1.0, unit).to_base_units().magnitude
    return float(q1 - q0), float(q0)


def quantity(value: Any, text: str):
    """A pint quantity of ``value`` in unit ``text``."""
    return registry().Quantity(value, parse_unit(text))


def dimensionality(text: str) -> str:
    """Pint's dimensionality of ``text`` as a string (``"[length] / [time]"``; ``"dimensionless"``)."""
    dim = parse_unit(text).dimensionality
    return str(dim) if dim else "dimensionless"
