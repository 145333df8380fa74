"""Issue 23 items 3 and 4: the pool's diversity audit (arena_cards.audit) and the public / reserved
split with sealed reserved cards (arena_cards.seal, CardFamily's ``pool`` option, ``arena card
audit|seal``). Known answers: a shipped card cloned under a new id, or with every variable renamed,
is flagged; the shipped pool is not; a sealed card opens only with its key; without the key every
refusal names CAUSALARENA_RESERVED_KEY."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest

from arena_cards import audit as A
from arena_cards import seal as S
from arena_cards.commands import card as card_command
from arena_cards.family import CardFamily
from arena_cards.model import load_card

REPO = Path(__file__).resolve().parents[3]
POOL = [REPO / "families" / "semantic" / "src" / "arena_family_semantic" / "cards",
        REPO / "families" / "formula" / "src" / "arena_family_formula" / "cards"]
EXAMPLE = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
KEY = "test-reserved-key-0123456789"

needs_pool = pytest.mark.skipif(not all(p.is_dir() for p in POOL), reason="the shipped card folders (source tree)")


def _parse(argv):
    parser = argparse.ArgumentParser(prog="arena card")
    card_command.configure(parser)
    return parser.parse_args(argv)


def _clone(src: Path, folder: Path, new_id: str, rename_variables: bool = False) -> Path:
    """``src`` copied under ``new_id`` (id and file name), optionally with every variable renamed ``vNN_x``."""
    text = src.read_text()
    old_id = load_card(src).id
    text = re.sub(rf"^id: {re.escape(old_id)}\b", f"id: {new_id}", text, flags=re.M)
    if rename_variables:
        for k, name in enumerate(sorted(load_card(src).names, key=len, reverse=True)):
            text = re.sub(rf"\b{re.escape(name)}\b", f"v{k:02d}_renamed", text)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{new_id}.yaml"
    out.write_text(text)
    return out


# ---------------------------------------------------------------------------
# diversity audit
# ---------------------------------------------------------------------------


def test_name_normalisation_and_mix_distance_known_answers():
    assert A.normalise_name("Pump_Flow_m3_per_h") == A.normalise_name("flow-pump-m3") == "flow_m3_pump"
    assert A.normalise_name("rate_pct") == "pct_rate"  # only stop tokens: all kept
    shape = A.shape_of(load_card(EXAMPLE))
    assert A.mix_distance(shape, shape) == 0.0
    same = A.compare(shape, shape)
    assert (round(same.names, 9), round(same.structure, 9), same.mix) == (1.0, 1.0, 0.0)
    assert same.score == pytest.approx(1.0)


@needs_pool
def test_shipped_pool_has_no_near_duplicates():
    """The audit over the whole shipped pool (semantic and formula together) passes: no pair at the threshold."""
    pairs, flagged = A.audit_pool(POOL)
    assert len(pairs) >= 45  # at least 10 cards (the public half alone, without the key, has 60)
    assert flagged == [], "\n".join(str(p) for p in flagged)
    assert pairs[0].score < A.THRESHOLD


@needs_pool
@pytest.mark.parametrize("rename_variables", [False, True], ids=["id-renamed", "every-variable-renamed"])
def test_a_cloned_and_renamed_card_is_flagged(tmp_path, rename_variables):
    src = POOL[1] / "optics_waves" / "doppler-carotid-velocimetry.yaml"
    clone = _clone(src, tmp_path / "extra" / "optics_waves", "carotid-doppler-clone", rename_variables)
    pairs, flagged = A.audit_pool(POOL + [clone])
    assert [(p.a, p.b) for p in flagged] == [("doppler-carotid-velocimetry", "carotid-doppler-clone")]
    assert flagged[0].score == pytest.approx(1.0)
    assert flagged[0].names == (0.0 if rename_variables else 1.0)


def _renamed_shape(shape, drop: int = 0, seed: int = 0):
    """``shape`` with every variable renamed and ``drop`` edges (chosen by ``seed``) removed."""
    import random

    rng = random.Random(seed)
    names = {n: f"z{k}_{rng.randrange(10**6)}" for k, n in enumerate(shape.roles)}
    edges = list(shape.graph_edges)
    rng.shuffle(edges)
    edges = tuple((names[a], names[b]) for a, b in edges[drop:])
    return A.CardShape(card_id=shape.card_id + "-renamed", family=shape.family, path=shape.path + "#renamed",
                       roles={names[n]: r for n, r in shape.roles.items()}, graph_edges=edges,
                       edges=frozenset((A.normalise_name(a), A.normalise_name(b)) for a, b in edges))


@needs_pool
def test_threshold_calibration_on_the_shipped_pool():
    """The calibration the threshold rests on (audit module doc): every shipped card renamed is flagged;
    renamed with one edge dropped, nearly all (>= 90 %); and two different shipped cards stay below."""
    shapes = A.load_shapes(POOL)
    exact = [A.compare(s, _renamed_shape(s)).score for s in shapes]
    assert min(exact) == pytest.approx(1.0)
    one_edge = [A.compare(s, _renamed_shape(s, drop=1, seed=k)).score for s in shapes for k in range(3)]
    assert sum(x >= A.THRESHOLD for x in one_edge) >= 0.9 * len(one_edge)
    assert A.audit_shapes(shapes)[0].score < A.THRESHOLD


def test_a_clone_with_every_name_renamed_scores_one_on_structure():
    shape = A.shape_of(load_card(EXAMPLE))
    renamed = {n: f"x{i}" for i, n in enumerate(shape.roles)}
    edges = tuple((renamed[a], renamed[b]) for a, b in shape.graph_edges)
    other = A.CardShape(card_id="other", family="semantic", path="other", roles={renamed[n]: r for n, r in
                                                                                 shape.roles.items()},
                        graph_edges=edges, edges=frozenset((A.normalise_name(a), A.normalise_name(b))
                                                           for a, b in edges))
    assert A.compare(shape, other).score == pytest.approx(1.0)


def test_card_audit_command_exit_codes(tmp_path, capsys):
    folder = tmp_path / "pool" / "healthcare_delivery"
    shutil.copy(EXAMPLE, folder.mkdir(parents=True) or folder / EXAMPLE.name)
    assert card_command.run(_parse(["audit", str(tmp_path / "pool")])) == 0
    assert "no near-duplicates" in capsys.readouterr().out
    _clone(EXAMPLE, folder, "example-clinic-clone", rename_variables=True)
    assert card_command.run(_parse(["audit", str(tmp_path / "pool"), "--top", "3"])) == 1
    out = capsys.readouterr().out
    assert "NEAR-DUPLICATE example-clinic-clone ~ example-clinic-reminders: score 1.000" in out
    assert card_command.run(_parse(["audit", "--json", str(tmp_path / "pool")])) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["threshold"], report["cards"], report["pairs"]) == (A.THRESHOLD, 2, 1)
    assert report["flagged"][0]["score"] == 1.0 and report["flagged"][0]["names"] == 0.0
    assert card_command.run(_parse(["audit", str(tmp_path / "nowhere")])) == 2
    assert card_command.run(_parse(["audit", "--threshold", "0", str(tmp_path / "pool")])) == 2
    assert "--threshold must lie in (0, 1]" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# split and sealing
# ---------------------------------------------------------------------------


def test_sealed_card_round_trips_only_with_its_key(monkeypatch):
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    text = EXAMPLE.read_bytes()
    token = S.seal_bytes(text, KEY)
    assert b"booked_appointments" not in token
    assert S.unseal_bytes(token, KEY) == text
    with pytest.raises(S.ReservedKeyError, match="cannot unseal with this CAUSALARENA_RESERVED_KEY"):
        S.unseal_bytes(token, "another-key")
    with pytest.raises(S.ReservedKeyError, match="set CAUSALARENA_RESERVED_KEY"):
        S.unseal_bytes(token)
    monkeypatch.setenv(S.KEY_ENV, KEY)
    assert S.unseal_bytes(token) == text  # the key from the environment


def test_split_known_answers():
    ids = [f"card-{i:02d}" for i in range(10)]
    verdict = S.split({"d": ids})
    assert sorted(verdict.values()).count("reserved") == 5  # 5 + 5 of 10
    assert S.split({"d": ids}) == verdict == S.split({"d": list(reversed(ids))})  # stable, order-free
    ranked = sorted(ids, key=S.split_rank)
    assert {i for i, v in verdict.items() if v == "reserved"} == set(ranked[:5])
    pinned = S.split({"d": ids}, pinned=ranked[:2])  # pinned cards stay public; the next ranks are reserved
    assert {i for i, v in pinned.items() if v == "reserved"} == set(ranked[2:7])
    assert list(S.split({"a": ids[:7], "b": ids[7:]}).values()).count("reserved") == 3 + 1  # floor(7/2) + floor(3/2)
    assert S.split({"d": ["only"]}) == {"only": "public"}
    with pytest.raises(ValueError, match="appear twice"):
        S.split({"a": ["x"], "b": ["x"]})


@needs_pool
def test_the_demo_cards_are_public_in_the_split_of_the_shipped_pool():
    """Whatever is sealed, the demo's 20 cards (scripts/demo) and the paper's worked examples stay public."""
    demo = (REPO / "scripts" / "demo").read_text()
    pinned = set()
    for var in ("SEMANTIC_IDS", "FORMULA_IDS"):
        pinned |= set(re.search(rf"^{var}=(\S+)", demo, flags=re.M).group(1).split(","))
    assert pinned == S.DEMO_CARDS and S.PINNED_PUBLIC == S.DEMO_CARDS | S.WORKED_EXAMPLES
    pinned |= S.WORKED_EXAMPLES  # the paper prints its worked examples: public too
    for folder in POOL:
        verdict, files = S.pool_split(folder)
        assert all(verdict[c] == "public" for c in pinned if c in verdict)
        assert not any(files[c].name.endswith(S.SEALED_SUFFIX) for c in pinned if c in files)
        # every sealed file shipped is in the reserved half
        assert all(verdict[c] == "reserved" for c, f in files.items() if f.name.endswith(S.SEALED_SUFFIX))


def _temporary_pool(root: Path) -> Path:
    """Six copies of the example card in two domain folders (ids example-a … example-f)."""
    for k, cid in enumerate("abcdef"):
        _clone(EXAMPLE, root / ("healthcare_delivery" if k < 3 else "education"), f"example-{cid}")
    return root


def test_seal_a_temporary_pool_then_select_public_reserved_all(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    pool = _temporary_pool(tmp_path / "cards")
    verdict, _ = S.pool_split(pool)
    reserved = sorted(c for c, v in verdict.items() if v == "reserved")
    assert len(reserved) == 2  # floor(3/2) in each domain
    # dry run: names the cards it would seal, changes nothing
    assert card_command.run(_parse(["seal", str(pool)])) == 0
    out = capsys.readouterr().out
    assert all(f"would seal\t{c}" in out for c in reserved) and "6 card(s), 2 reserved, 4 public" in out
    assert not S.sealed_files(pool)
    # --write without the key: refused, naming the variable, nothing written
    assert card_command.run(_parse(["seal", str(pool), "--write"])) == 2
    assert "set CAUSALARENA_RESERVED_KEY" in capsys.readouterr().err
    assert not S.sealed_files(pool)
    monkeypatch.setenv(S.KEY_ENV, KEY)
    assert card_command.run(_parse(["seal", str(pool), "--write"])) == 0
    assert sorted(S.sealed_id(p) for p in S.sealed_files(pool)) == reserved
    assert all(b"booked_appointments" not in p.read_bytes() for p in S.sealed_files(pool))
    assert S.seal_pool(pool, write=False) == [a for a in S.seal_pool(pool) if a[0].startswith("keep")]  # idempotent

    class Fam(CardFamily):
        name = "semantic"

    def ids(**options):
        return sorted(i.scm_id for i in Fam(cards=str(pool), **options).instances())

    # with the key: all by default; each half on request; reserved cards load and pass their gates
    assert ids() == [f"example-{c}" for c in "abcdef"]
    assert ids(pool="reserved") == reserved
    assert all(getattr(i, "error", "") == "" for i in Fam(cards=str(pool), pool="reserved").instances())
    public = ids(pool="public")
    assert sorted(public + reserved) == ids()
    # without the key: the public half only; the reserved half refused with the variable named
    monkeypatch.delenv(S.KEY_ENV)
    assert ids() == public
    for pool_option in ("reserved", "all"):
        with pytest.raises(S.ReservedKeyError, match="set CAUSALARENA_RESERVED_KEY"):
            ids(pool=pool_option)
    with pytest.raises(S.ReservedKeyError, match=rf"\['{reserved[0]}'\].*set CAUSALARENA_RESERVED_KEY"):
        ids(ids=reserved[0])
    with pytest.raises(ValueError, match="pool must be public, reserved or all"):
        Fam(pool="secret")
    # a wrong key is refused too (authenticated encryption), naming the variable
    monkeypatch.setenv(S.KEY_ENV, "wrong-key")
    with pytest.raises(S.ReservedKeyError, match="cannot unseal with this CAUSALARENA_RESERVED_KEY"):
        ids(pool="reserved")


def test_arena_run_and_show_refuse_the_reserved_pool_without_the_key(tmp_path, monkeypatch, capsys):
    """Through the ``arena`` frame: one line on stderr naming the variable, exit code 2."""
    from causalarena.cli import main

    pool = _temporary_pool(tmp_path / "cards")
    monkeypatch.setenv(S.KEY_ENV, KEY)
    S.seal_pool(pool, write=True)
    monkeypatch.delenv(S.KEY_ENV)
    fam = "semantic"
    pytest.importorskip("arena_family_semantic")
    opts = ["--family-option", f"{fam}.cards={pool}", "--family-option", f"{fam}.shipped=false"]
    assert main(["show", fam] + opts) == 0
    listed = capsys.readouterr().out
    assert listed.count(f"{fam}/example-") == 4
    assert main(["show", fam] + opts + ["--family-option", f"{fam}.pool=reserved"]) == 2
    assert "CAUSALARENA_RESERVED_KEY" in capsys.readouterr().err
    (reserved,) = sorted(c for c, v in S.pool_split(pool)[0].items() if v == "reserved")[:1]
    assert main(["show", f"{fam}/{reserved}"] + opts) == 2
    assert f"card {reserved!r} is reserved" in capsys.readouterr().err
    monkeypatch.setenv(S.KEY_ENV, KEY)
    assert main(["show", fam] + opts) == 0
    assert capsys.readouterr().out.count(f"{fam}/example-") == 6
    assert main(["show", f"{fam}/{reserved}"] + opts) == 0
    assert reserved in capsys.readouterr().out  # the spec JSON of the reserved card


def test_validate_checks_sealed_cards_only_with_the_key(tmp_path, monkeypatch, capsys):
    from arena_cards.commands import validate as validate_command

    def run(argv):
        parser = argparse.ArgumentParser(prog="arena validate")
        validate_command.configure(parser)
        return validate_command.run(parser.parse_args(argv))

    pool = _temporary_pool(tmp_path / "cards")
    monkeypatch.setenv(S.KEY_ENV, KEY)
    S.seal_pool(pool, write=True)
    assert run([str(pool), "--no-data"]) == 0
    assert "6 card(s): 6 passed" in capsys.readouterr().out
    monkeypatch.delenv(S.KEY_ENV)
    assert run([str(pool), "--no-data"]) == 0
    out, err = capsys.readouterr()
    assert "4 card(s): 4 passed" in out and "2 sealed reserved card(s) (*.yaml.enc) not checked: set " \
        "CAUSALARENA_RESERVED_KEY" in err
    assert run([str(S.sealed_files(pool)[0]), "--no-data"]) == 2
    assert "set CAUSALARENA_RESERVED_KEY" in capsys.readouterr().err


def test_a_split_that_moves_is_shown_and_unsealing_needs_allow_unseal(tmp_path, monkeypatch):
    """Adding cards can move a sealed card to the public half: the dry run shows it, --write refuses to
    publish it without allow_unseal, and with it the card is plain again (byte for byte)."""
    monkeypatch.setenv(S.KEY_ENV, KEY)
    pool = tmp_path / "cards"
    ids = [f"c-{i:02d}" for i in range(40)]
    ranked = sorted(ids, key=S.split_rank)
    first, later = ranked[1:3], ranked[0]  # sealing {1, 2}; then adding the lowest-ranked card evicts rank 2
    for cid in first + [ranked[3], ranked[4]]:
        _clone(EXAMPLE, pool / "education", cid)
    original = (pool / "education" / f"{ranked[2]}.yaml").read_bytes()
    S.seal_pool(pool, write=True)
    assert sorted(S.sealed_id(p) for p in S.sealed_files(pool)) == sorted(first)
    _clone(EXAMPLE, pool / "education", later)  # 5 cards: 2 reserved = ranks 0 and 1
    plan = {cid: action for action, cid, _ in S.seal_pool(pool)}
    assert plan[later] == "seal" and plan[ranked[2]] == "unseal" and plan[ranked[1]] == "keep sealed"
    with pytest.raises(ValueError, match=rf"\['{ranked[2]}'\] public.*allow_unseal"):
        S.seal_pool(pool, write=True)
    assert (pool / "education" / f"{later}.yaml").exists()  # nothing written
    S.seal_pool(pool, write=True, allow_unseal=True)
    assert (pool / "education" / f"{ranked[2]}.yaml").read_bytes() == original
    assert sorted(S.sealed_id(p) for p in S.sealed_files(pool)) == sorted([later, ranked[1]])


def test_a_damaged_sealed_card_is_refused():
    token = S.seal_bytes(EXAMPLE.read_bytes(), KEY)
    with pytest.raises(S.ReservedKeyError, match="another key, or the file is damaged"):
        S.unseal_bytes(token[:-8] + b"AAAAAAAA", KEY)
