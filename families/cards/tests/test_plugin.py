"""arena-cards as a plugin: its components and commands come from the registry, the
command objects work on their own and through ``arena``, and CardFamily's Family methods."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from arena_cards import compile_card, load_card
from arena_cards.commands import card as card_command
from arena_cards.commands import validate as validate_command
from arena_cards.compile import column_order
from arena_cards.components import CardChannel, CardExpression, CardRoot
from arena_cards.family import CardFamily, FailedCard
from causalarena.cli import main
from causalarena.family import Family, SCMInstance
from causalarena.plugins import Registry, UnknownComponentError, default_registry

EXAMPLE = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
EXAMPLE_VARIABLES = ["booked_appointments", "reminder_sent", "mean_travel_km", "no_shows", "patients_seen",
                     "backlog_days", "satisfaction_band"]


def _broken(folder: Path) -> Path:
    """The example with one defect: variables[2].range reversed (line 42)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "example-clinic-reminders.yaml"
    path.write_text(EXAMPLE.read_text().replace("range: [0.5, 100]", "range: [100, 0.5]"))
    return path


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind, name, cls", [("root_distribution", "card_root", CardRoot),
                                             ("mechanism", "card_expression", CardExpression),
                                             ("noise", "card_channel", CardChannel)])
def test_card_components_come_from_arena_cards(kind, name, cls):
    rec = default_registry().component(kind, name)
    assert rec.distribution == "arena-cards"
    assert rec.factory == f"arena_cards.components:{cls.__name__}"
    assert rec.load() is cls and cls.kind == name


def test_validate_and_card_commands_come_from_arena_cards():
    cmds = default_registry().commands
    assert {n: (cmds[n].distribution, cmds[n].factory) for n in ("validate", "card")} == {
        "validate": ("arena-cards", "arena_cards.commands.validate"),
        "card": ("arena-cards", "arena_cards.commands.card")}
    assert cmds["validate"].load() is validate_command and cmds["card"].load() is card_command
    assert not cmds["validate"].passthrough and not cmds["card"].passthrough


def test_a_card_spec_compiles_through_the_registry_and_names_arena_cards_without_it():
    spec = compile_card(load_card(EXAMPLE))
    kinds = {c.kind for n in spec.nodes for c in (n.root_distribution, n.mechanism, n.noise) if c is not None}
    assert kinds == {"card_root", "card_expression", "card_channel"}
    assert spec.compile().sample(5, __import__("numpy").random.default_rng(0)).shape == (5, 7)
    with pytest.raises(UnknownComponentError, match=r"card_channel.*arena-cards \(pip install arena-cards\)"):
        Registry().component("noise", "card_channel", "node no_shows")


def test_importing_the_plugin_loads_no_card_engine_module():
    import subprocess
    import sys

    code = ("import sys, arena_cards.plugin as p; list(p.arena_components()); list(p.arena_commands()); "
            "print(sorted(m for m in sys.modules if m.startswith('arena_cards') or m in "
            "('yaml', 'jsonschema', 'pint', 'matplotlib')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['arena_cards', 'arena_cards.plugin']"


# ---------------------------------------------------------------------------
# the command objects on their own (argparse parser + configure + run)
# ---------------------------------------------------------------------------


def _parse(command, argv):
    parser = argparse.ArgumentParser(prog=f"arena {command.NAME}")
    command.configure(parser)
    return parser.parse_args(argv)


def test_validate_command_object_exit_codes(tmp_path, capsys):
    assert validate_command.run(_parse(validate_command, [str(EXAMPLE)])) == 0
    assert "1 card(s): 1 passed, 0 failed; 0 error(s)" in capsys.readouterr().out
    bad = _broken(tmp_path / "bad")
    assert validate_command.run(_parse(validate_command, [str(bad)])) == 1
    out = capsys.readouterr().out
    # the finding names the file, the line, the gate and the field
    assert f"{bad}:42: error [schema] variables[2].range: range must be [min, max] with finite min < max, " \
           "got [100, 0.5]" in out
    assert "1 card(s): 0 passed, 1 failed; 1 error(s)" in out
    assert validate_command.run(_parse(validate_command, [str(tmp_path / "missing.yaml")])) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena validate: error: ") and "missing.yaml" in err


def test_validate_command_reports_duplicate_ids_across_paths(tmp_path, capsys):
    shutil.copy(EXAMPLE, tmp_path / "example-clinic-reminders.yaml")
    args = _parse(validate_command, ["--json", "--no-data", str(EXAMPLE), str(tmp_path)])
    assert validate_command.run(args) == 1
    rows = json.loads(capsys.readouterr().out)
    assert [r["ok"] for r in rows] == [True, False]
    assert any(i["field"] == "id" and "duplicate semantic card id 'example-clinic-reminders'" in i["message"]
               for i in rows[1]["issues"])


def test_card_command_object_shows_and_refuses_unknown_cards(capsys):
    assert card_command.run(_parse(card_command, ["show", str(EXAMPLE)])) == 0
    out = capsys.readouterr().out
    assert "satisfaction_band" in out and "Only booked patients can be seen." in out
    assert card_command.run(_parse(card_command, ["show", "semantic/no-such-card"])) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena card: error: no card 'semantic/no-such-card'")
    assert card_command.run(_parse(card_command, ["show", "x", "--family-option", "nodot=1"])) == 2
    assert "expected FAMILY.KEY=VALUE" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# through `arena`
# ---------------------------------------------------------------------------


def test_arena_validate_and_card_through_the_frame(tmp_path, capsys):
    assert main(["validate", str(EXAMPLE)]) == 0
    bad = _broken(tmp_path / "bad")
    assert main(["validate", str(bad)]) == 1
    assert f"{bad}:42: error [schema] variables[2].range" in capsys.readouterr().out
    assert main(["card", "show", str(EXAMPLE)]) == 0
    assert "booked_appointments" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# CardFamily: the Family interface
# ---------------------------------------------------------------------------


class _Cards(CardFamily):
    name = "semantic"
    shipped = None


def test_listing_and_audit_of_a_good_and_a_broken_card(tmp_path):
    good = tmp_path / "good"
    good.mkdir()
    shutil.copy(EXAMPLE, good / "example-clinic-reminders.yaml")
    text = EXAMPLE.read_text().replace("id: example-clinic-reminders", "id: broken-clinic")
    (good / "broken-clinic.yaml").write_text(text.replace("range: [0.5, 100]", "range: [100, 0.5]"))
    fam = _Cards(cards=str(good), n_replicates=2)
    assert type(fam).audit is not Family.audit and type(fam).listing is not Family.listing

    listing = {s.scm_id: s for s in fam.listing()}
    assert set(listing) == {"example-clinic-reminders", "broken-clinic"}
    ok = listing["example-clinic-reminders"]
    assert (ok.d, tuple(ok.splits), ok.n_replicates, ok.error) == (7, ("obs", "obs_int"), 2, "")
    broken = listing["broken-clinic"]
    assert broken.d is None and "variables[2].range: range must be [min, max]" in broken.error
    assert fam.ids() == [s.scm_id for s in fam.listing()]
    assert [i.scm_id for i in fam.select(["broken-clinic"])] == ["broken-clinic"]
    assert isinstance(fam.select(["broken-clinic"])[0], FailedCard)
    good_inst = fam.select(["example-clinic-reminders"])[0]
    assert isinstance(good_inst, SCMInstance) and sorted(good_inst.spec.names) == sorted(EXAMPLE_VARIABLES)
    assert good_inst.spec.names == column_order("example-clinic-reminders", EXAMPLE_VARIABLES)

    records = {r["scm_id"]: r for r in fam.audit()}
    assert records["example-clinic-reminders"] == {
        "scm_id": "example-clinic-reminders", "passed": True, "tables": 4, "failed_tables": 0,
        "failures": [], "errors": []}
    rec = records["broken-clinic"]
    assert (rec["passed"], rec["tables"], rec["failed_tables"], rec["failures"]) == (False, 0, 0, [])
    assert len(rec["errors"]) == 1 and "variables[2].range" in rec["errors"][0]

    # selection by id, splits and replicates (the generic `arena audit` passes them positionally)
    (only,) = fam.audit(["example-clinic-reminders"], ["obs"], 1, 1)
    assert (only["scm_id"], only["tables"], only["passed"]) == ("example-clinic-reminders", 1, True)

    renderables, passed = fam.audit_details([only])
    assert passed is True and renderables == [
        "[green]card gates (App. A.3 stage 5) pass on all 1 tables of 1 card(s)[/green]"]
    renderables, passed = fam.audit_details(list(records.values()))
    assert passed is False and len(renderables) == 1
    table = renderables[0]
    assert [c.header for c in table.columns] == ["card", "split", "replicates", "finding"]
    assert table.row_count == 1 and list(table.columns[0].cells) == ["broken-clinic"]


def test_audit_details_group_failing_tables_by_finding():
    records = [{"scm_id": "c1", "passed": False, "tables": 4, "failed_tables": 2, "errors": [],
                "failures": [{"split": "obs", "replicate": 0, "reason": "x: [bold] out of range"},
                             {"split": "obs", "replicate": 3, "reason": "x: [bold] out of range"},
                             {"split": "obs_int", "replicate": 3, "reason": "y: not finite"}]}]
    (table,), passed = _Cards().audit_details(records)
    assert passed is False
    rows = list(zip(*(list(c.cells) for c in table.columns)))
    # escaped for rich markup: a bracketed word in a finding stays text
    assert rows == [("c1", "obs", "0,3", r"x: \[bold] out of range"), ("c1", "obs_int", "3", "y: not finite")]
