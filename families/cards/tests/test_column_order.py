"""A compiled card's columns are a permutation drawn from its id, not the authored order (issue 12 item 10).

Authors list variables causes-first: before arena-cards 0.2.0 the dataset
columns kept that order, so the share of directed paths running from an
earlier to a later column was 1.00 on 20/20 formula and 17/20 semantic cards
(0.55 synthetic, 0.61 Sachs), and sortnregress — whose variance ties fall back
to the column order — read the causal order off a standardised card table.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena_cards import compile as compile_module
from arena_cards import compile_card, load_card, validate_card
from arena_cards.compile import CARD_COMPILER, COLUMN_ORDER_SEED, column_order
from arena_testkit import forward_path_share

EXAMPLE = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
AUTHORED = ["booked_appointments", "reminder_sent", "mean_travel_km", "no_shows", "patients_seen", "backlog_days",
            "satisfaction_band"]


#: the shipped pools, read from the source tree (the family-cards env installs arena-cards only)
FAMILIES = Path(__file__).resolve().parents[2]
SEMANTIC = FAMILIES / "semantic" / "src" / "arena_family_semantic" / "cards"
FORMULA = FAMILIES / "formula" / "src" / "arena_family_formula" / "cards"


def _shipped() -> list:
    return sorted(SEMANTIC.rglob("*.yaml")) + sorted(FORMULA.rglob("*.yaml"))


def test_permutation_is_deterministic_per_id_and_independent_of_the_authored_order():
    first = column_order("example-clinic-reminders", AUTHORED)
    assert sorted(first) == sorted(AUTHORED) and first != AUTHORED
    assert column_order("example-clinic-reminders", AUTHORED) == first
    assert column_order("example-clinic-reminders", list(reversed(AUTHORED))) == first  # moving a variable in the file
    # the documented recipe (FORMAT.md, *Column order*), spelled out
    import hashlib

    seed = hashlib.sha256(("card-column-order/" + "example-clinic-reminders").encode()).hexdigest()
    assert COLUMN_ORDER_SEED == "card-column-order/"
    assert first == sorted(AUTHORED, key=lambda n: hashlib.sha256(f"{seed}/{n}".encode()).digest())


def test_permutation_differs_between_ids():
    orders = {tuple(column_order(f"card-{k}", AUTHORED)) for k in range(20)}
    assert len(orders) >= 18  # 7! = 5040 orders: twenty ids almost never collide
    names = [f"v{k}" for k in range(20)]
    assert column_order("wildfire-smoke-shelter", names) != column_order("wildfire-smoke-shelterx", names)


def test_spec_is_the_authored_spec_with_its_nodes_permuted(monkeypatch):
    """Nothing but the order changes: every node (mechanism, parents, noise, tags, intervention
    domain) and the target pool are the same by name as in the YAML-ordered spec of arena-cards 0.1."""
    for path in [EXAMPLE] + _shipped()[::7]:
        card = load_card(path)
        new = compile_card(card)
        monkeypatch.setattr(compile_module, "column_order", lambda card_id, names: list(names))
        old = compile_card(card)
        monkeypatch.undo()
        assert old.names == card.names  # the authored order, as before
        assert new.names == column_order(card.id, card.names) and sorted(new.names) == sorted(old.names)
        assert {n.name: n for n in new.nodes} == {n.name: n for n in old.nodes}, path.name
        assert sorted(new.intervention_targets) == sorted(old.intervention_targets)
        assert list(new.intervention_targets) == [n for n in new.names if n in set(old.intervention_targets)]
        idx = [old.names.index(n) for n in new.names]
        np.testing.assert_array_equal(new.adjacency(), old.adjacency()[np.ix_(idx, idx)])
        assert new.metadata["card_compiler"] == CARD_COMPILER == "2"
        assert new.to_json() != old.to_json()  # so the fingerprint, which keys stored results, changed


def test_yaml_keeps_its_authored_order_and_field_paths():
    card = load_card(EXAMPLE)
    assert card.names == AUTHORED
    rep = validate_card(EXAMPLE)
    assert rep.ok and rep.stats["targets"] == ["reminder_sent"]
    assert card.variable_path("mean_travel_km") == ("variables", 2)


def test_formula_card_residual_check_passes_on_permuted_columns():
    """The columns by name still carry their meaning: each formula output, recomputed by name from
    its sampled inputs, equals its column (relative 1e-9) on the permuted tables."""
    from arena_cards.validate import _equation_in_units
    from causalarena.protocol import sample_cell

    path = next(FORMULA.rglob("barometric-pressure-reduction.yaml"))
    card = load_card(path)
    spec = compile_card(card)
    assert spec.names != card.names
    rep = validate_card(path, "error")
    assert rep.ok, rep.errors
    assert rep.stats["residuals"] and all(r["max_rel"] <= 1e-9 for r in rep.stats["residuals"].values())
    cell = sample_cell(spec, "formula", "obs", 0)
    for eq in card.equations:
        want = _equation_in_units(card, eq, spec, cell.x_structural)
        got = cell.x_structural[:, spec.names.index(eq["output"])]
        np.testing.assert_allclose(got, want, rtol=1e-9)


def test_shipped_cards_columns_do_not_follow_the_causal_order():
    """Forward share of directed paths over every shipped card: about 0.5 (1.00 on most before)."""
    shares = []
    for path in _shipped():
        share, paths = forward_path_share(compile_card(load_card(path)).adjacency())
        assert paths >= 3
        shares.append(share)
    assert len(shares) == len(_shipped()) >= 40
    assert 0.4 <= float(np.mean(shares)) <= 0.6, shares
    assert max(shares) < 0.95 and sum(s == 1.0 for s in shares) == 0


def test_equation_inputs_listed_in_another_order_than_the_edges_bind_by_name(tmp_path):
    """An equation's ``inputs`` may list its parents in any order: the sampler hands the parent columns in
    edge order, and the compiled expression names them in that order (before arena-cards 0.2.1, a card whose
    inputs order differed bound columns to the wrong names and failed its residual check)."""
    import yaml

    path = next(FORMULA.rglob("thin-lens-imaging.yaml"))
    doc = yaml.safe_load(path.read_text())
    parents = {}
    for e in doc["edges"]:
        parents.setdefault(e["to"] if isinstance(e, dict) else e[1], []).append(e["from"] if isinstance(e, dict) else e[0])
    changed = 0
    for eq in doc["equations"]:
        if len(eq["inputs"]) >= 2:
            flipped = list(reversed(parents[eq["output"]]))  # never the edge order of two or more parents
            changed += flipped != parents[eq["output"]]
            eq["inputs"] = flipped
    assert changed >= 3
    moved = tmp_path / "thin-lens-imaging.yaml"
    moved.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    rep = validate_card(moved, "error")
    assert rep.ok, rep.errors
    assert all(r["max_rel"] <= 1e-9 for r in rep.stats["residuals"].values())
