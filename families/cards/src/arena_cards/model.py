"""Loading scenario cards: YAML with line numbers, the JSON Schema, issues.

CausalArena paper App. A.3 stage 5 ("schema validity"). A card is read with
PyYAML's *composer* (the node tree, which carries line marks) and converted to
plain data ourselves, so every value keeps the line it came from and so that
what PyYAML would silently accept is refused: duplicate keys, anchors and
aliases (the "billion laughs" expansion), non-string keys, and files over
:data:`MAX_CARD_BYTES`. The data is then checked against ``card.schema.json``
(``jsonschema``, Draft 2020-12); every problem becomes a :class:`CardIssue`
naming the card, the field path and the line.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import attrs

#: the card format this version reads
CARD_FORMAT = "causalarena.card/1"
#: largest card file accepted (bytes); real cards are 10–40 kB
MAX_CARD_BYTES = 1_000_000
#: semantic and formula domains (paper §4.2–4.3, App. A.4–A.5)
SEMANTIC_DOMAINS = ("cybersecurity_it_operations", "education", "finance_credit", "government_services",
                    "healthcare_delivery", "housing_real_estate", "manufacturing", "public_health",
                    "urban_transportation", "water_sanitation")
FORMULA_DOMAINS = ("biology_ecology", "astronomy", "chemistry", "mechanics_fluids", "earth_systems",
                   "electromagnetism", "energy_systems", "materials_structures", "optics_waves", "thermodynamics")
SCHEMA_PATH = Path(__file__).with_name("card.schema.json")

FieldPath = Tuple[Union[str, int], ...]
#: a plain scalar YAML 1.2 reads as a float but YAML 1.1 as a string (``3.73e6``, ``1e-3``)
_YAML12_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+")


def field_text(path: Sequence[Union[str, int]]) -> str:
    """``("variables", 3, "unit")`` → ``"variables[3].unit"``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "<card>"


@attrs.frozen(kw_only=True)
class CardIssue:
    """One validation finding.

    Attributes:
        card: the card's file (or id when it has no file).
        field: the field path (``variables[3].mechanism.expression``).
        line: 1-based line in the file (None when unknown).
        message: what is wrong and, where possible, how to fix it.
        gate: which gate found it (schema, graph, mechanism, units, numerics, data, formula, pool).
        severity: ``"error"`` or ``"warning"``.
    """

    card: str
    field: str
    line: Optional[int]
    message: str
    gate: str
    severity: str = "error"

    def __str__(self) -> str:
        where = f"{self.card}:{self.line}" if self.line else self.card
        return f"{where}: {self.severity} [{self.gate}] {self.field}: {self.message}"


class CardError(ValueError):
    """A card that cannot be loaded or compiled; ``issues`` lists every problem found."""

    def __init__(self, issues: Sequence[CardIssue]) -> None:
        self.issues = list(issues)
        super().__init__("\n".join(str(i) for i in self.issues) or "invalid card")


@attrs.define(eq=False)
class Card:
    """A parsed scenario card (plain data plus the line of every field).

    Attributes:
        data: the card as plain Python data.
        source: the file path (or ``"<string>"``).
        lines: field path tuple → 1-based line.
    """

    data: Dict[str, Any]
    source: str = "<string>"
    lines: Dict[FieldPath, int] = attrs.field(factory=dict)

    @property
    def id(self) -> str:
        return str(self.data.get("id", "?"))

    @property
    def family(self) -> str:
        return str(self.data.get("family", "?"))

    @property
    def variables(self) -> List[Dict[str, Any]]:
        return list(self.data.get("variables") or [])

    @property
    def edges(self) -> List[Dict[str, Any]]:
        return list(self.data.get("edges") or [])

    @property
    def equations(self) -> List[Dict[str, Any]]:
        return list(self.data.get("equations") or [])

    @property
    def names(self) -> List[str]:
        return [v.get("name") for v in self.variables]

    def parents(self) -> Dict[str, List[str]]:
        """Variable name → graph parents, in edge order."""
        out: Dict[str, List[str]] = {n: [] for n in self.names}
        for e in self.edges:
            if e.get("to") in out and e.get("from") not in out[e["to"]]:
                out[e["to"]].append(e.get("from"))
        return out

    def line(self, path: Sequence[Union[str, int]]) -> Optional[int]:
        """Line of ``path`` or of its nearest recorded ancestor."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), None)

    def issue(self, path: Sequence[Union[str, int]], message: str, gate: str, severity: str = "error") -> CardIssue:
        return CardIssue(card=self.source, field=field_text(path), line=self.line(path), message=message,
                         gate=gate, severity=severity)

    def variable_path(self, name: str) -> FieldPath:
        for i, v in enumerate(self.variables):
            if v.get("name") == name:
                return ("variables", i)
        return ("variables",)


# ---------------------------------------------------------------------------
# YAML with lines
# ---------------------------------------------------------------------------


def _loader():
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _convert(node, path: FieldPath, lines: Dict[FieldPath, int], seen: set, issues: List[CardIssue],
             source: str, constructor=None):
    import yaml

    if constructor is None:
        constructor = yaml.constructor.SafeConstructor()

    if id(node) in seen:
        issues.append(CardIssue(card=source, field=field_text(path), line=node.start_mark.line + 1,
                                message="YAML anchors and aliases are not allowed in cards (write the value out)",
                                gate="schema"))
        return None
    seen.add(id(node))
    lines[path] = node.start_mark.line + 1
    standard = {yaml.MappingNode: "tag:yaml.org,2002:map", yaml.SequenceNode: "tag:yaml.org,2002:seq"}
    if type(node) in standard and node.tag != standard[type(node)]:
        issues.append(CardIssue(card=source, field=field_text(path), line=node.start_mark.line + 1, gate="schema",
                                message=f"YAML tag {node.tag!r} is not allowed in cards (plain data only)"))
        return None
    if isinstance(node, yaml.MappingNode):
        out: Dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                issues.append(CardIssue(card=source, field=field_text(path), line=key_node.start_mark.line + 1,
                                        message="YAML merge keys (<<) are not allowed in cards", gate="schema"))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                issues.append(CardIssue(card=source, field=field_text(path), line=key_node.start_mark.line + 1,
                                        message="mapping keys must be plain strings", gate="schema"))
                continue
            key = key_node.value
            if key in out:
                issues.append(CardIssue(card=source, field=field_text(path + (key,)),
                                        line=key_node.start_mark.line + 1,
                                        message=f"duplicate key {key!r} (first at line {lines.get(path + (key,))})",
                                        gate="schema"))
                continue
            out[key] = _convert(value_node, path + (key,), lines, seen, issues, source, constructor)
            lines[path + (key,)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(v, path + (i,), lines, seen, issues, source, constructor) for i, v in enumerate(node.value)]
    if node.tag == "tag:yaml.org,2002:str":
        if not node.style and _YAML12_FLOAT.fullmatch(node.value):
            # YAML 1.1 (PyYAML) reads 3.73e6 as a string; YAML 1.2 and every author read a number
            return float(node.value)
        return node.value  # the constructor would return the same string, slower
    try:
        value = constructor.construct_object(node)
    except Exception as exc:  # a malformed timestamp, a bad !!binary … : report, never crash
        issues.append(CardIssue(card=source, field=field_text(path), line=node.start_mark.line + 1,
                                message=f"cannot read value: {exc}", gate="schema"))
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:  # every number is used as a float; 10**400 would crash the gates later
            issues.append(CardIssue(card=source, field=field_text(path), line=node.start_mark.line + 1,
                                    message=f"integer with {value.bit_length()} bits is beyond the float range",
                                    gate="schema"))
            return None
    return value


def parse_text(text: str, source: str = "<string>") -> Card:
    """Parse card YAML text (no schema check).

    Raises:
        CardError: not YAML, not a mapping, duplicate keys, anchors/aliases.
    """
    import yaml

    if len(text.encode("utf-8", "replace")) > MAX_CARD_BYTES:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message=f"card is {len(text.encode('utf-8', 'replace')) / 1e6:.1f} MB; "
                                           f"the limit is {MAX_CARD_BYTES / 1e6:.0f} MB")])
    try:
        root = yaml.compose(text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise CardError([CardIssue(card=source, field="<card>", line=None if mark is None else mark.line + 1,
                                   gate="schema", message=f"not valid YAML: {getattr(exc, 'problem', None) or exc}")]
                        ) from None
    except RecursionError:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message="YAML nested too deeply")]) from None
    if root is None or not isinstance(root, yaml.MappingNode):
        raise CardError([CardIssue(card=source, field="<card>", line=1, gate="schema",
                                   message="a card must be a YAML mapping (format, id, title, …)")])
    issues: List[CardIssue] = []
    lines: Dict[FieldPath, int] = {}
    try:
        data = _convert(root, (), lines, set(), issues, source)
    except RecursionError:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message="YAML nested too deeply")]) from None
    if issues:
        raise CardError(issues)
    return Card(data=data, source=source, lines=lines)


#: variable fields whose schema is a switch on a discriminator (field → discriminator key)
_SWITCHED = {"mechanism": "type", "root_distribution": "kind", "noise": "kind"}


@functools.lru_cache(maxsize=1)
def _validator():
    """The full Draft 2020-12 validator of ``card.schema.json`` (the published contract)."""
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text())
    return jsonschema.Draft202012Validator(schema)


@functools.lru_cache(maxsize=1)
def _split_validators():
    """The same schema, evaluated faster: (validator without the switches, {(field, value): branch validator}).

    ``mechanism``, ``root_distribution`` and ``noise`` are ``allOf`` lists of
    ``if {discriminator: const} then {...}`` branches; jsonschema evaluates
    every ``if`` of every variable (≈ 70 % of the validation time). Exactly
    one branch can match a discriminator value, so validating the object
    against that branch alone gives the same verdict; the published schema
    file keeps the branches for editors and other tools.
    """
    import copy

    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text())
    base = copy.deepcopy(schema)
    props = base["properties"]["variables"]["items"]["properties"]
    branches = {}
    for field, key in _SWITCHED.items():
        for branch in props[field].pop("allOf"):
            value = branch["if"]["properties"][key]["const"]
            branches[(field, value)] = jsonschema.Draft202012Validator(branch["then"])
    return jsonschema.Draft202012Validator(base), branches


def _schema_message(err) -> str:
    limits = {"maxLength": ("too long", "characters"), "minLength": ("too short", "characters"),
              "maxItems": ("too long", "items"), "minItems": ("too short", "items")}
    if err.validator in limits and hasattr(err.instance, "__len__"):
        what, unit = limits[err.validator]
        bound = "at most" if err.validator.startswith("max") else "at least"
        return f"is {what}: {len(err.instance)} {unit}; {bound} {err.validator_value} allowed"
    msg = err.message
    if err.validator == "additionalProperties":
        return msg + " (check the spelling against FORMAT.md)"
    if len(msg) > 300:
        msg = msg[:300] + " …"
    return msg


def schema_issues(card: Card) -> List[CardIssue]:
    """Every JSON Schema violation of ``card``, deepest first, one per field."""
    out: List[CardIssue] = []
    seen = set()
    base, branches = _split_validators()
    found = [(tuple(e.absolute_path), e) for e in base.iter_errors(card.data)]
    variables = card.data.get("variables") if isinstance(card.data, dict) else None
    for i, var in enumerate(variables if isinstance(variables, list) else []):
        if not isinstance(var, dict):
            continue
        for field, key in _SWITCHED.items():
            obj = var.get(field)
            branch = branches.get((field, obj.get(key))) if isinstance(obj, dict) else None
            if branch is not None:
                found += [(("variables", i, field) + tuple(e.absolute_path), e) for e in branch.iter_errors(obj)]
    found.sort(key=lambda pe: (-len(pe[0]), str(pe[0])))
    for path, err in found:
        key = (path, err.validator)
        if key in seen or any(p[:len(path)] == path and p != path for p, _ in seen):
            continue  # a deeper error on the same branch already says it better
        seen.add(key)
        out.append(card.issue(path, _schema_message(err), "schema"))
    return sorted(out, key=lambda i: (i.line or 0, i.field))


def load_card(path: Union[str, os.PathLike], check_schema: bool = True, key: Optional[str] = None) -> Card:
    """Read and schema-check the card at ``path``.

    A sealed card (``*.yaml.enc``, :mod:`.seal`) is decrypted first with
    ``key``, by default the reserved key in ``CAUSALARENA_RESERVED_KEY``.

    Raises:
        CardError: the file is missing, too large (> 1 MB), not UTF-8, not
            valid YAML, or violates the schema (every violation listed).
        arena_cards.seal.ReservedKeyError: a sealed card without the key, or with another key.
    """
    p = Path(path)
    source = str(p)
    sealed = p.name.endswith(".yaml.enc")  # a sealed reserved card (arena_cards.seal): needs the reserved key
    limit = 2 * MAX_CARD_BYTES if sealed else MAX_CARD_BYTES  # a Fernet token is base64: ~4/3 of the card
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message=f"cannot read card: {exc.strerror or exc}")]) from None
    if size > limit:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message=f"card is {size / 1e6:.1f} MB; the limit is {limit / 1e6:.0f} MB")])
    try:
        if sealed:
            from .seal import unseal_bytes

            text = unseal_bytes(p.read_bytes(), key, source=f"sealed card {p}").decode("utf-8")
        else:
            text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message=f"card is not UTF-8 text: {exc.reason} at byte {exc.start}")]) from None
    except PermissionError:
        raise  # ReservedKeyError: no key or another key (names CAUSALARENA_RESERVED_KEY)
    except OSError as exc:
        raise CardError([CardIssue(card=source, field="<card>", line=None, gate="schema",
                                   message=f"cannot read card: {exc.strerror or exc}")]) from None
    card = parse_text(text, source)
    if check_schema:
        issues = schema_issues(card)
        if issues:
            raise CardError(issues)
    return card


def card_files(path: Union[str, os.PathLike]) -> List[Path]:
    """The card files under ``path`` (a file, or a folder searched recursively for ``*.yaml``/``*.yml``), sorted.

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such card or folder: {p}")
    if p.is_file():
        return [p]
    return sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml") and q.is_file())


def iter_cards(paths: Iterable[Union[str, os.PathLike]]):
    """Yield ``(path, Card or CardError)`` for every card file under ``paths``."""
    for root in paths:
        for f in card_files(root):
            try:
                yield f, load_card(f)
            except CardError as exc:
                yield f, exc
