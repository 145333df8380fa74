"""The ``arena`` frame (causalarena.cli) and the core's commands (causalarena.commands), in process.

Throwaway plugins are registered with ``get_registry(extra_plugins=...)`` and
the registry is handed to ``main(argv, registry=...)``; their factories point
into this module (already in ``sys.modules`` under ``__name__``).
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any, Dict, List

import pytest

from causalarena.cli import main
from causalarena.family import Family, InstanceSummary
from causalarena.hookspecs import hookimpl
from causalarena.plugins import DuplicatePluginError, get_registry
from causalarena.records import CommandInfo, FamilyInfo

HERE = __name__

# --------------------------------------------------------------------------- toy commands

PASSTHROUGH_CALLS: List[List[str]] = []


class Hello:
    """``arena hello --name N --times K``: prints ``hello N`` K times; ``--fail`` raises one error kind."""

    @staticmethod
    def configure(parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--times", type=int, default=1)
        parser.add_argument("--fail", choices=("usage", "key", "boom"))

    @staticmethod
    def run(args) -> int:
        from causalarena.commands import UsageError

        if args.fail == "usage":
            raise UsageError("--name 'x' is not a greeting")
        if args.fail == "key":
            raise KeyError("unknown greeting 'x'")
        if args.fail == "boom":
            raise RuntimeError("the greeter broke")
        for _ in range(args.times):
            print(f"hello {args.name}")
        return 0


class Echo:
    """A passthrough command: records its argv, exit code 3."""

    @staticmethod
    def main(argv) -> int:
        PASSTHROUGH_CALLS.append(list(argv))
        return 3


# --------------------------------------------------------------------------- toy families

def _chain_instances(family: str, ids=("chain-w1", "chain-w2")):
    from family_toys import chain_spec

    from causalarena.family import SCMInstance

    return [SCMInstance(family=family, scm_id=sid, spec=chain_spec(f"{family}/{sid}", float(k + 1)), n_replicates=2,
                        factors={"graph": "chain", "weight": float(k + 1)}) for k, sid in enumerate(ids)]


class ListedFamily(Family):
    """Lists without building: ``instances()`` must never be called by ``arena show``."""

    name = "listed"

    def instances(self):
        raise AssertionError("instances() must not be called to list the family")

    def listing(self):
        return [InstanceSummary(scm_id="a", d=3),
                InstanceSummary(scm_id="b", d=None, splits=("obs",), n_replicates=2),
                InstanceSummary(scm_id="c", error="gate failed")]

    def listing_note(self):
        return "2 more are sealed"


class PlainFamily(Family):
    """Two chain SCMs, no audit (the default raises NotImplementedError)."""

    name = "plain"

    def instances(self):
        return _chain_instances(self.name)


class StrictIdFamily(PlainFamily):
    """A grid-like family: a malformed id is a ValueError with the family's own message."""

    name = "strictid"

    def instance(self, scm_id):
        raise ValueError(f"malformed id {scm_id!r}: expected chain-wK")


class AuditedFamily(Family):
    """Draws fresh rounds; its audit passes chain-w1 and fails chain-w2; details from the option ``details_ok``."""

    name = "audited"
    takes_fresh = True
    calls: List[Dict[str, Any]] = []

    def instances(self):
        return _chain_instances(self.name)

    def audit(self, scm_ids=None, splits=None, replicates=None, jobs=1):
        AuditedFamily.calls.append({"scm_ids": scm_ids, "splits": splits, "replicates": replicates, "jobs": jobs,
                                    "options": dict(self.options)})
        if self.options.get("broken_records"):
            return [{"scm_id": "chain-w1", "passed": True}]
        records = [
            {"scm_id": "chain-w1", "passed": True, "tables": 2, "failed_tables": 0, "failures": [], "errors": [],
             "extra": {"kept": 1}},
            {"scm_id": "chain-w2", "passed": False, "tables": 2, "failed_tables": 1,
             "failures": [{"split": "obs", "replicate": 0, "reason": "boundary mass [0.4] > 0.3"}],
             "errors": ["could not build the second table"]},
        ]
        return [r for r in records if scm_ids is None or r["scm_id"] in scm_ids]

    def audit_details(self, records):
        return [f"DETAILS over {len(records)} records"], bool(self.options.get("details_ok", True))


# --------------------------------------------------------------------------- plugins


class CommandsPlugin:
    __distribution__ = "arena-test-commands"

    @hookimpl
    def arena_commands(self):
        yield CommandInfo(name="hello", factory=f"{HERE}:Hello", help="say hello (a test plugin)")
        yield CommandInfo(name="echo", factory=f"{HERE}:Echo", passthrough=True, help="echo the raw argv")
        yield CommandInfo(name="broken", factory="arena_no_such_module_for_tests.cmd", help="cannot import")
        yield CommandInfo(name="hollow", factory=f"{HERE}:ListedFamily", help="has no configure/run")


class FamiliesPlugin:
    __distribution__ = "arena-test-families"

    @hookimpl
    def arena_families(self):
        for cls in (ListedFamily, PlainFamily, StrictIdFamily, AuditedFamily):
            yield FamilyInfo(name=cls.name, kind="synthetic", factory=f"{HERE}:{cls.__name__}",
                             description=cls.__doc__.splitlines()[0])


def _misspelled_plugin() -> types.ModuleType:
    mod = types.ModuleType("arena_misspelled_plugin")

    @hookimpl
    def arena_method():  # a typo of arena_methods
        return []

    mod.arena_method = arena_method
    return mod


@pytest.fixture(scope="module")
def reg():
    return get_registry(strict=False, extra_plugins=[CommandsPlugin(), FamiliesPlugin(), _misspelled_plugin()])


def arena(reg, capsys, *argv):
    """(exit code, stdout, stderr) of ``arena ARGV`` with the registry ``reg``."""
    code = main(list(argv), registry=reg)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- the frame


def test_a_plugin_command_is_listed_in_help_and_runs_with_its_arguments(reg, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"], registry=reg)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "say hello (a test plugin)" in out and "echo the raw argv" in out
    # the core's commands first, in their order
    listed = out.split("{", 1)[1].split("}", 1)[0].split(",")
    assert listed[:8] == ["plugins", "methods", "families", "show", "run", "audit", "report", "rescore"]
    assert {"hello", "echo", "broken"} <= set(listed)
    assert arena(reg, capsys, "hello", "--name", "ada", "--times", "2") == (0, "hello ada\nhello ada\n", "")
    with pytest.raises(SystemExit) as exc:
        main(["hello", "--help"], registry=reg)
    assert exc.value.code == 0 and "--times TIMES" in capsys.readouterr().out


def test_a_passthrough_command_receives_the_raw_argv(reg, capsys):
    PASSTHROUGH_CALLS.clear()
    code, out, err = arena(reg, capsys, "echo", "--help", "-x", "a b", "--name=ada")
    assert code == 3 and PASSTHROUGH_CALLS == [["--help", "-x", "a b", "--name=ada"]]


def test_a_command_that_cannot_be_imported_is_one_line_naming_its_distribution(reg, capsys):
    code, out, err = arena(reg, capsys, "broken")
    assert code == 1 and out == ""
    first, hint = err.strip().splitlines()
    assert first.startswith("arena broken: plugin error: command 'broken' of arena-test-commands 0 failed to load")
    assert "No module named 'arena_no_such_module_for_tests'" in first
    assert hint == "(set CAUSALARENA_DEBUG=1 for the traceback)"
    code, out, err = arena(reg, capsys, "hollow")
    assert code == 1 and f"{HERE}:ListedFamily has no configure(), run()" in err
    # every other command still works, and `arena plugins` lists the broken one
    code, out, err = arena(reg, capsys, "plugins", "--json")
    assert code == 0
    rows = {(r["kind"], r["name"]): r for r in json.loads(out)}
    assert rows["command", "broken"]["distribution"] == "arena-test-commands"
    assert rows["command", "run"]["distribution"] == "causal-arena"


def test_errors_are_one_line_with_the_old_exit_codes(reg, capsys, monkeypatch):
    monkeypatch.delenv("CAUSALARENA_DEBUG", raising=False)
    assert arena(reg, capsys, "hello", "--name", "x", "--fail", "usage") == (
        2, "", "arena hello: error: --name 'x' is not a greeting\n")
    assert arena(reg, capsys, "hello", "--name", "x", "--fail", "key") == (
        2, "", "arena hello: error: unknown greeting 'x'\n")
    code, out, err = arena(reg, capsys, "hello", "--name", "x", "--fail", "boom")
    assert code == 1 and err == ("arena hello: error (RuntimeError): the greeter broke\n"
                                 "(set CAUSALARENA_DEBUG=1 for the traceback)\n")
    monkeypatch.setenv("CAUSALARENA_DEBUG", "1")
    with pytest.raises(RuntimeError, match="the greeter broke"):
        main(["hello", "--name", "x", "--fail", "boom"], registry=reg)


def test_a_known_command_that_is_not_installed_names_its_distribution(reg, capsys):
    import attrs

    without = attrs.evolve(reg, commands={k: v for k, v in reg.commands.items() if k not in ("sandbox", "card")})
    code, out, err = arena(without, capsys, "sandbox", "list")
    assert code == 2 and "the sandbox command comes with arena-sandbox: pip install arena-sandbox" in err
    code, out, err = arena(without, capsys, "card", "show", "x")
    assert code == 2 and "comes with arena-cards" in err


def test_unknown_and_abbreviated_options_are_refused_by_the_subcommand(reg, capsys):
    # `--metods` used to be reported by the top-level parser (arena's usage, no hint), and argparse's
    # prefix matching silently took `--method pc` for `--methods pc`
    for bad, hint in (("--metods", "--methods"), ("--method", "--methods"), ("--replicate", "--replicates")):
        with pytest.raises(SystemExit) as exc:
            main(["run", bad, "2"], registry=reg)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.splitlines()[0].startswith("usage: arena run ")
        assert f"arena run: error: unrecognized arguments: {bad} 2; did you mean '{hint}'?" in err


def test_a_command_name_provided_twice_names_both_distributions():
    class Dup:
        __distribution__ = "arena-dup"

        @hookimpl
        def arena_commands(self):
            yield CommandInfo(name="run", factory="x.y", help="another run")

    with pytest.raises(DuplicatePluginError, match=r"command name 'run' is provided by both") as exc:
        get_registry(strict=False, extra_plugins=[Dup()])
    assert "arena-dup 0" in str(exc.value) and "causal-arena" in str(exc.value)


def test_a_misspelled_hook_is_shown_by_arena_plugins_with_its_name(reg, capsys):
    code, out, err = arena(reg, capsys, "plugins", "--json")
    errors = [r for r in json.loads(out) if r["kind"] == "error"]
    mine = [r for r in errors if r["name"] == "arena_misspelled_plugin"]
    assert len(mine) == 1 and "unknown hook 'arena_method'" in mine[0]["description"]
    assert "did you mean 'arena_methods'" in mine[0]["description"]
    code, out, err = arena(reg, capsys, "plugins")
    assert code == 0 and "arena_misspelled_plugin" in out and "unknown hook" in out
    # the listing commands print the registry errors under their table
    code, out, err = arena(reg, capsys, "families")
    assert code == 0 and "plugin error" in out and "arena_misspelled_plugin" in out
    assert "listed" in out and "arena-test-families" in out


# --------------------------------------------------------------------------- show, --scm, --fresh


def test_show_lists_from_listing_without_building_instances(reg, capsys):
    code, out, err = arena(reg, capsys, "show", "listed")
    # the family's note on stderr: stdout stays one instance per line
    assert (code, err) == (0, "2 more are sealed\n")
    assert out.splitlines() == ["listed/a\td=3\tsplits=obs,obs_int\treplicates=5",
                                "listed/b\td=?\tsplits=obs\treplicates=2",
                                "listed/c\tnot generated: gate failed"]


def test_show_default_listing_and_one_spec(reg, capsys):
    code, out, err = arena(reg, capsys, "show", "plain")
    assert err == ""  # Family.listing_note: none by default
    assert out.splitlines() == ["plain/chain-w1\td=3\tsplits=obs,obs_int\treplicates=2",
                                "plain/chain-w2\td=3\tsplits=obs,obs_int\treplicates=2"]
    code, out, err = arena(reg, capsys, "show", "plain/chain-w2")
    spec = json.loads(out)
    assert code == 0 and spec["id"] == "plain/chain-w2" and [n["name"] for n in spec["nodes"]] == ["b", "c", "a"]  # family_toys permutes its columns (kit check column_order)
    code, out, err = arena(reg, capsys, "show", "plain/nope")
    assert code == 2 and "no instance 'nope' in family 'plain'" in err


def test_scm_selection_uses_select_and_keeps_the_real_error_of_a_malformed_id(reg):
    # the selection helpers of `arena run` and of a plugin's command (arena-export's tests run `arena export`)
    from causalarena.commands import UsageError, family_instances, select

    def pick(*names):
        return select(reg.families, list(names), "family(ies)")

    with pytest.raises(UsageError, match=r"^family 'strictid': malformed id 'zz': expected chain-wK$"):
        family_instances(reg, pick("strictid"), {}, ["zz"])
    with pytest.raises(UsageError, match=r"^--scm: no selected family has instance\(s\) \['zz'\]$"):
        family_instances(reg, pick("plain"), {}, ["chain-w1", "zz"])
    # two families: an id one of them lacks is not an error while another has it
    pairs = family_instances(reg, pick("strictid", "plain"), {}, ["chain-w2"])
    assert [(fam.name, inst.family, inst.scm_id) for fam, inst in pairs] == [("strictid", "strictid", "chain-w2"),
                                                                             ("plain", "plain", "chain-w2")]
    with pytest.raises(UsageError, match=r"^unknown family\(ies\) \['nope'\]; installed: \["):
        pick("plain", "nope")
    # a misspelled name gets the closest installed one
    with pytest.raises(UsageError, match=r"^unknown family\(ies\) \['plian'\]; installed: \[.*\]; did you mean 'plain' for 'plian'\?$"):
        pick("plian")
    # an id as `arena show` prints it (FAMILY/ID) selects in that family only
    pairs = family_instances(reg, pick("strictid", "plain"), {}, ["plain/chain-w2"])
    assert [(fam.name, inst.scm_id) for fam, inst in pairs] == [("plain", "chain-w2")]
    with pytest.raises(UsageError, match=r"^--scm: no selected family has instance\(s\) \['plain/zz'\]$"):
        family_instances(reg, pick("strictid", "plain"), {}, ["plain/zz", "chain-w1"])


def test_fresh_goes_to_the_families_that_take_it(reg, capsys, tmp_path):
    import argparse

    from causalarena.commands import UsageError, apply_fresh, select

    families = select(reg.families, ["plain"], "family(ies)")
    with pytest.raises(UsageError, match=r"^--fresh: none of the selected families \['plain'\] draws fresh rounds$"):
        apply_fresh(argparse.Namespace(fresh=1), reg, families, {})
    families, options = select(reg.families, ["plain", "audited"], "family(ies)"), {}
    apply_fresh(argparse.Namespace(fresh=1), reg, families, options)
    assert [f.name for f in families] == ["audited"] and options == {"audited": {"fresh": 1}}
    AuditedFamily.calls.clear()
    code, out, err = arena(reg, capsys, "audit", "audited", "--fresh", "2", "--jobs", "1", "--scm", "chain-w1")
    assert code == 0, err
    assert AuditedFamily.calls[-1]["options"] == {"fresh": 2}


# --------------------------------------------------------------------------- audit


def test_audit_is_generic_over_the_family(reg, capsys, tmp_path):
    AuditedFamily.calls.clear()
    out_file = tmp_path / "audit.jsonl"
    code, out, err = arena(reg, capsys, "audit", "audited", "--splits", "obs", "--replicates", "1", "--jobs", "1",
                           "--out", str(out_file))
    assert code == 1, err  # chain-w2 failed
    assert AuditedFamily.calls == [{"scm_ids": None, "splits": ["obs"], "replicates": 1, "jobs": 1, "options": {}}]
    assert "1 / 2 configurations pass; 3 / 4 tables pass" in out
    assert "not built chain-w2: could not build the second table" in out
    assert "fail chain-w2 obs rep 0: boundary mass [0.4] > 0.3" in out  # markup-like text printed literally
    assert "DETAILS over 2 records" in out
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [r["scm_id"] for r in records] == ["chain-w1", "chain-w2"] and records[0]["extra"] == {"kept": 1}
    # every record passes, but the details say not ok: exit 1
    code, out, err = arena(reg, capsys, "audit", "audited", "--scm", "chain-w1", "--jobs", "1",
                           "--family-option", "audited.details_ok=false")
    assert code == 1 and "1 / 1 configurations pass; 2 / 2 tables pass" in out
    code, out, err = arena(reg, capsys, "audit", "audited", "--scm", "chain-w1", "--jobs", "1")
    assert code == 0
    code, out, err = arena(reg, capsys, "audit", "plain", "--jobs", "1")
    assert code == 2 and err == "arena audit: error: family 'plain' has no audit\n"
    code, out, err = arena(reg, capsys, "audit", "audited", "--scm", "nope", "--jobs", "1")
    assert code == 2 and "nothing to audit" in err
    code, out, err = arena(reg, capsys, "audit", "audited", "--jobs", "1", "--family-option",
                           "audited.broken_records=true")
    assert code == 1 and "family 'audited' (arena-test-families): audit record 'chain-w1' lacks" in err


def test_export_comes_with_arena_export(reg, capsys, tmp_path):
    # the core has no export command: without arena-export `arena export` names the distribution (exit 2)
    if "export" in reg.commands:
        pytest.skip("arena-export is installed in this environment (export/tests covers the command)")
    code, out, err = arena(reg, capsys, "export", "--out", str(tmp_path / "x"))
    assert code == 2
    assert err == ("arena export: error: the export command comes with arena-export: pip install arena-export "
                   "(in this repository: pip install ./export)\n")
    code, out, err = arena(reg, capsys, "plugins", "--json")
    assert code == 0 and not [r for r in json.loads(out) if r["name"] == "export"]
    assert not (tmp_path / "x").exists()


def test_run_rejects_unknown_retry_statuses_from_the_one_status_list(reg, capsys, tmp_path):
    from causalarena.records import STATUSES

    code, out, err = arena(reg, capsys, "run", "--families", "plain", "--retry", "env_error,crashed",
                           "--results", str(tmp_path / "r"))
    assert code == 2
    assert f"--retry: unknown status(es) ['crashed']; expected some of {list(STATUSES)}" in err
    assert "env_error" in STATUSES and not (tmp_path / "r").exists()


def test_core_commands_come_from_the_builtin_plugin():
    import causalarena.commands as commands

    infos = list(commands.arena_commands())
    assert [i.name for i in infos] == ["plugins", "methods", "families", "show", "run", "audit", "report", "rescore"]
    for info in infos:
        obj = info.load()
        assert callable(obj.configure) and callable(obj.run) and info.help


def test_help_imports_no_command_module():
    import subprocess

    code = ("import sys\nfrom causalarena.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('causalarena.commands.') and m != "
            "'causalarena.commands._common' or m in ('arena_sandbox.cli', 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_an_os_error_is_cause_and_path_and_never_says_none():
    import errno

    from causalarena.commands._common import _os_error_text

    assert _os_error_text(OSError(errno.EACCES, "Permission denied", "r/runs.parquet")) == \
        "Permission denied: r/runs.parquet"
    # pyarrow raises OSError with a message only (no errno, no filename): the message, not "None: None"
    pyarrow_like = OSError("Failed to open local file 'r/runs.parquet'. Detail: [errno 13] Permission denied")
    assert _os_error_text(pyarrow_like) == "Failed to open local file 'r/runs.parquet'. Detail: [errno 13] " \
        "Permission denied"


def test_version_flag_prints_the_core_version(capsys):
    import causalarena
    from causalarena.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"arena (causal-arena) {causalarena.__version__}"


def test_the_run_header_names_the_reserved_keys_fingerprint_never_the_key():
    import hashlib

    from causalarena.commands.run import reserved_key_note

    assert reserved_key_note({}) is None and reserved_key_note({"CAUSALARENA_RESERVED_KEY": ""}) is None
    note = reserved_key_note({"CAUSALARENA_RESERVED_KEY": "operator-secret"})
    fp = hashlib.sha256(b"operator-secret").hexdigest()[:8]
    assert note == (f"reserved rounds: CAUSALARENA_RESERVED_KEY fingerprint {fp} (another key gives other reserved "
                    "SCMs under the same ids: keep one results folder per key)")
    assert "operator-secret" not in note
    assert reserved_key_note({"CAUSALARENA_RESERVED_KEY": "other"}) != note
