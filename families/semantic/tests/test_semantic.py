"""The shipped semantic pool (issue 4 §6) and the family's options."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import numpy as np
import pytest

from arena_cards.family import FailedCard
from arena_cards.model import SEMANTIC_DOMAINS, card_files, load_card
from arena_cards.seal import key_from_env, sealed_files, sealed_id
from arena_cards.validate import validate_card
from arena_family_semantic import CARDS_DIR, SemanticFamily
from causalarena.family import SCMInstance

EXAMPLE = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
#: the cards this environment can read: the public ones, and the sealed reserved half (arena_cards.seal)
#: when CAUSALARENA_RESERVED_KEY is set; ALL_FILES names every shipped card file (sealed ones need no key to count)
ALL_FILES = card_files(CARDS_DIR) + sealed_files(CARDS_DIR)
FILES = card_files(CARDS_DIR) + (sealed_files(CARDS_DIR) if key_from_env() else [])


def test_every_domain_has_two_to_ten_cards():
    # a sealed card counts by its domain folder (no key needed); the gates check a card's domain is its folder's
    by_domain = collections.Counter(f.parent.name if f.name.endswith(".yaml.enc") else load_card(f).data["domain"]
                                    for f in ALL_FILES)
    assert set(by_domain) == set(SEMANTIC_DOMAINS) and all(2 <= n <= 10 for n in by_domain.values()), by_domain


@pytest.mark.parametrize("path", FILES, ids=[sealed_id(f) for f in FILES])
def test_shipped_card_passes_every_gate_strictly(path):
    # every gate, pool rules as errors, data gates on all 10 tables the arena ships (2 splits x 5 replicates)
    rep = validate_card(path, pool_severity="error", all_tables=True)
    assert rep.issues == [], "\n".join(map(str, rep.issues))
    card = load_card(path)
    assert card.family == "semantic" and path.parent.name == card.data["domain"] and path.stem == card.id
    assert 17 <= rep.stats["d"] <= 25 and 25 <= rep.stats["edges"] <= 67
    parents = card.parents()
    types = [v["mechanism"]["type"] for v in card.variables if parents[v["name"]]]
    assert len(set(types)) >= 3
    assert types.count("logistic") <= 0.25 * len(types)
    assert rep.stats["intervenable"] >= 1
    assert all(e["reason"].strip() for e in card.edges)


def test_wildfire_worked_example_counts():
    """Paper §4.2 / Fig. 3 (top): wildfire smoke and shelter behaviour, 20 variables and 26 edges."""
    card = load_card(CARDS_DIR / "public_health" / "wildfire-smoke-shelter.yaml")
    assert (len(card.variables), len(card.edges)) == (20, 26)
    names = set(card.names)
    parents = card.parents()
    # the paper's two plain readings of edges: filter provision is a parent of true indoor PM2.5,
    # and the consumer-sensor reading is a child of (not the same as) the true indoor level
    indoor = next(n for n in names if "indoor" in n and "true" in n)
    assert any("filter" in p or "cadr" in p for p in parents[indoor])
    sensor = next(n for n in names if "sensor" in n)
    assert indoor in parents[sensor]


def test_family_instances_and_factors():
    fam = SemanticFamily()
    insts = fam.instances()
    assert len(insts) == len(FILES) >= 20
    assert all(isinstance(i, SCMInstance) for i in insts), [getattr(i, "error", "") for i in insts]
    inst = fam.instance("wildfire-smoke-shelter")
    assert inst.factors["domain"] == "public_health" and inst.factors["family"] == "semantic"
    assert inst.factors["d"] == 20 and inst.factors["n_edges"] == 26
    assert set(inst.factors["mechanism_types"].split(",")) >= {"threshold"} or inst.factors["mechanism_types"]
    a = inst.dataset("obs_int", 1, standardise=False)
    b = SemanticFamily().instance("wildfire-smoke-shelter").dataset("obs_int", 1, standardise=False)
    assert a.X.shape == (1000, 20) and a.X.tobytes() == b.X.tobytes()  # a seed gives byte-identical data
    assert a.intervention_mask[800:].any(axis=1).all() and not a.intervention_mask[:800].any()
    np.testing.assert_array_equal(a.true_adjacency, inst.spec.adjacency())


def _copy_example(folder: Path, new_id: str, family: str = "semantic") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = EXAMPLE.read_text().replace("id: example-clinic-reminders", f"id: {new_id}")
    text = text.replace("family: semantic", f"family: {family}")
    p = folder / f"{new_id}.yaml"
    p.write_text(text)
    return p


def test_cards_option_loads_a_folder_from_anywhere(tmp_path):
    _copy_example(tmp_path / "mine", "my-clinic")
    fam = SemanticFamily(cards=str(tmp_path / "mine"), shipped="false")
    (inst,) = fam.instances()
    assert isinstance(inst, SCMInstance) and inst.scm_id == "my-clinic"
    ds = inst.dataset("obs", 0)
    assert ds.X.shape == (1000, 7)
    both = SemanticFamily(cards=str(tmp_path / "mine"))
    assert len(both.instances()) == len(FILES) + 1


def test_bad_and_misfiled_cards_become_failed_instances(tmp_path):
    _copy_example(tmp_path, "wrong-family", family="formula")
    bad = _copy_example(tmp_path, "broken-card")
    bad.write_text(bad.read_text().replace("outflows: {no_shows: 1.0}", "outflows: {no_show: 1.0}"))
    insts = {i.scm_id: i for i in SemanticFamily(cards=str(tmp_path), shipped=False).instances()}
    assert isinstance(insts["wrong-family"], FailedCard) and "formula" in insts["wrong-family"].error
    assert isinstance(insts["broken-card"], FailedCard)
    assert "no_show" in insts["broken-card"].error and "hidden parent" in insts["broken-card"].error
    with pytest.raises(RuntimeError, match="failed validation"):
        insts["broken-card"].dataset("obs", 0)


def test_unknown_option_and_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="unknown option"):
        SemanticFamily(folder="x")
    with pytest.raises(ValueError, match="n_replicates"):
        SemanticFamily(n_replicates="0")
    inst = SemanticFamily(n_replicates="1", ids="wildfire-smoke-shelter").instances()[0]
    assert inst.n_replicates == 1
    with pytest.raises(ValueError, match="replicate 1 out of range"):
        inst.dataset("obs", 1)
    with pytest.raises(FileNotFoundError, match="no such card"):
        SemanticFamily(cards=str(tmp_path / "nope")).instances()


def test_duplicate_id_with_a_shipped_card_is_an_error(tmp_path):
    src = CARDS_DIR / "public_health" / "wildfire-smoke-shelter.yaml"
    shutil.copy(src, tmp_path / src.name)
    with pytest.raises(ValueError, match="'wildfire-smoke-shelter' is used twice"):
        SemanticFamily(cards=str(tmp_path)).instances()


def test_per_domain_keeps_the_first_cards_of_each_domain():
    insts = SemanticFamily(per_domain="1").instances()
    assert len(insts) == 10 and len({i.factors["domain"] for i in insts}) == 10
    first = sorted(i.scm_id for i in SemanticFamily().instances() if i.factors["domain"] == "public_health")[0]
    assert first in {i.scm_id for i in insts}
    with pytest.raises(ValueError, match="per_domain"):
        SemanticFamily(per_domain="0")


def test_unknown_ids_and_bad_flags_are_errors():
    with pytest.raises(ValueError, match=r"unknown card id\(s\) \['nope'\]"):
        SemanticFamily(ids="nope").instances()
    with pytest.raises(ValueError, match="'shipped' must be true or false"):
        SemanticFamily(shipped="maybe").instances()


def test_columns_are_not_in_causal_order():
    """The family kit's column_order check (issue 12 item 10): the mean share of directed paths from an
    earlier to a later column is at most 0.9 (1.00 when the columns kept the cards' causes-first order)."""
    from arena_testkit import COLUMN_ORDER_MAX_FORWARD, family_checks, forward_path_share

    dict(family_checks("semantic"))["column_order"]()
    shares = [forward_path_share(i.true_adjacency())[0] for i in SemanticFamily().instances()]
    assert len(shares) == len(FILES) and np.mean(shares) <= COLUMN_ORDER_MAX_FORWARD and max(shares) < 1.0


def test_the_listing_names_the_sealed_reserved_cards_it_leaves_out(monkeypatch):
    sealed = len(sealed_files(CARDS_DIR))
    assert sealed == 50  # 5 of 10 per domain (notes/issue-23.md)
    monkeypatch.delenv("CAUSALARENA_RESERVED_KEY", raising=False)
    assert SemanticFamily().listing_note() == (
        "50 reserved semantic card(s) are sealed and not listed: set CAUSALARENA_RESERVED_KEY to list them "
        "too (pool=all), or select pool=reserved")
    monkeypatch.setenv("CAUSALARENA_RESERVED_KEY", "any")  # the note needs no key to count; with one, all are listed
    assert SemanticFamily().listing_note() == ""
