"""``arena export`` audits a card through its own family (issue 12 item 9).

The export writes ``audit.json`` from :meth:`CardFamily.audit` (the card
gates of App. A.3 stage 5), so a card's declared ``boundary`` waives the 10 %
boundary-mass gate there too: two cards whose column sits at its range
minimum in far more than 10 % of the rows, each with a declared boundary,
export with ``audit_passed: true``; the same card without the waiver fails
that very gate.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena_cards.family import CardFamily, FailedCard
from arena_cards.model import load_card
from arena_cards.validate import BOUNDARY_MASS, audit_tables, validate_card
from arena_export import export_instance, read_exported_table, write_release_manifest

HERE = Path(__file__).resolve().parent
#: the example card whose backlog_days = max(..., 0) puts > 10 % of the rows at 0, with no declared boundary
UNWAIVED = HERE / "hostile_cards" / "data-boundary-mass.yaml"
EXPRESSION = 'expression: "max(no_shows - 0.1 * patients_seen - 2, 0)"'
WAIVER = '\n    boundary: {clip: [0, null], reason: "No free slot is ever less than zero days away."}'
GATE = "sit exactly at the range minimum"


class Cards(CardFamily):
    """A card family with nothing shipped: only the ``cards`` option's folder."""

    name = "semantic"
    shipped = None


def _card(folder: Path, card_id: str, offset: int, waived: bool) -> Path:
    text = UNWAIVED.read_text(encoding="utf-8").replace("id: data-boundary-mass", f"id: {card_id}")
    expression = EXPRESSION.replace("- 2, 0)", f"- {offset}, 0)")
    assert EXPRESSION in text
    text = text.replace(EXPRESSION, expression + (WAIVER if waived else ""))
    path = folder / f"{card_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cards")
    waived = [_card(folder, "boundary-waived-a", 2, True), _card(folder, "boundary-waived-b", 1, True)]
    unwaived = _card(folder, "boundary-not-waived", 2, False)
    return folder, waived, unwaived


def test_exported_cards_with_declared_boundaries_pass_their_audit(cards, tmp_path):
    folder, waived, _ = cards
    fam = Cards(cards=str(folder), n_replicates=1)
    by_id = {inst.scm_id: inst for inst in fam.instances()}
    chosen = [by_id["boundary-waived-a"], by_id["boundary-waived-b"]]
    assert not any(isinstance(i, FailedCard) for i in chosen)
    for inst in chosen:
        export_instance(inst, tmp_path, family=fam)
    release = json.loads(write_release_manifest(tmp_path, chosen, command="arena export").read_text())
    assert [(e["scm_id"], e["audit_passed"]) for e in release["instances"]] == [
        ("boundary-waived-a", True), ("boundary-waived-b", True)]
    assert release["audit_passed"] == 2
    for inst in chosen:
        sub = tmp_path / f"semantic__{inst.scm_id}"
        record = json.loads((sub / "audit.json").read_text())
        assert record["passed"] is True and record["failures"] == [] and record["tables"] == 2
        # the waiver is what let it pass: the exported raw table has the mass at the boundary
        ds = read_exported_table(sub / "obs__rep0.parquet")
        share = float(np.mean(ds.X[:, ds.columns.index("backlog_days")] == 0.0))
        assert share > BOUNDARY_MASS, share


def test_the_same_card_without_its_waiver_fails_the_boundary_mass_gate(cards):
    folder, waived, unwaived = cards
    fam = Cards(cards=str(folder), n_replicates=1)
    (record,) = fam.audit(["boundary-not-waived"])
    assert record["passed"] is False
    assert any(GATE in e for e in record["errors"]), record
    (ok,) = fam.audit(["boundary-waived-a"])
    assert ok["passed"] is True and not any(GATE in str(f) for f in ok["failures"])
    # table by table, on the same tables (the same spec): only the declared boundary differs
    spec = validate_card(waived[0]).spec
    with_waiver = audit_tables(load_card(waived[0]), spec, ("obs",), 1)
    without = audit_tables(load_card(unwaived), spec, ("obs",), 1)
    assert with_waiver[0]["problems"] == []
    assert [p for p in without[0]["problems"] if GATE in p] and all(GATE in p for p in without[0]["problems"])
