"""``arena export`` through the core's ``arena`` frame, in process (moved from the core's test_cli).

Toy families are registered with ``get_registry(extra_plugins=...)`` next to
the installed entry points (arena-export's among them); their factories point
into this module. The last test hides arena-export's entry point: the command
is then absent, named with the distribution that provides it.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

import numpy as np
import pytest

from causalarena.cli import main
from causalarena.family import Family, SCMInstance
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import FamilyInfo
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

HERE = __name__


def chain_spec(scm_id: str, weight: float) -> SCMSpec:
    """a → b → c, linear-Gaussian (b = w·a + N(0, 0.5²), c = w·b + N(0, 0.5²)); columns b, c, a."""
    def child(name: str, parent: str) -> NodeSpec:
        return NodeSpec(name=name, role="mechanism", parents=(parent,),
                        mechanism=ComponentSpec(kind="linear", params={"weights": [weight], "bias": 0.0}),
                        noise=ComponentSpec(kind="gaussian", params={"scale": 0.5}))

    root = NodeSpec(name="a", role="root",
                    root_distribution=ComponentSpec(kind="gaussian", params={"loc": 0.0, "scale": 1.0}))
    nodes = {"a": root, "b": child("b", "a"), "c": child("c", "b")}
    return SCMSpec(id=scm_id, nodes=tuple(nodes[v] for v in ("b", "c", "a")),
                   metadata={"graph": "chain", "d": 3, "weight": weight})


def _chain_instances(family: str, ids=("chain-w1", "chain-w2")):
    return [SCMInstance(family=family, scm_id=sid, spec=chain_spec(f"{family}/{sid}", float(k + 1)), n_replicates=2,
                        factors={"graph": "chain", "weight": float(k + 1)}) for k, sid in enumerate(ids)]


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
    """Draws fresh rounds; its audit passes chain-w1 and fails chain-w2."""

    name = "audited"
    takes_fresh = True
    calls: List[Dict[str, Any]] = []

    def instances(self):
        return _chain_instances(self.name)

    def audit(self, scm_ids=None, splits=None, replicates=None, jobs=1):
        AuditedFamily.calls.append({"scm_ids": scm_ids, "splits": splits, "replicates": replicates, "jobs": jobs,
                                    "options": dict(self.options)})
        records = [
            {"scm_id": "chain-w1", "passed": True, "tables": 2, "failed_tables": 0, "failures": [], "errors": []},
            {"scm_id": "chain-w2", "passed": False, "tables": 2, "failed_tables": 1,
             "failures": [{"split": "obs", "replicate": 0, "reason": "boundary mass [0.4] > 0.3"}], "errors": []},
        ]
        return [r for r in records if scm_ids is None or r["scm_id"] in scm_ids]


class FamiliesPlugin:
    __distribution__ = "arena-test-families"

    @hookimpl
    def arena_families(self):
        for cls in (PlainFamily, StrictIdFamily, AuditedFamily):
            yield FamilyInfo(name=cls.name, kind="synthetic", factory=f"{HERE}:{cls.__name__}",
                             description=cls.__doc__.splitlines()[0])


@pytest.fixture(scope="module")
def reg():
    return get_registry(strict=False, extra_plugins=[FamiliesPlugin()])


def arena(reg, capsys, *argv):
    """(exit code, stdout, stderr) of ``arena ARGV`` with the registry ``reg``."""
    code = main(list(argv), registry=reg)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_comes_from_arena_export(reg, capsys):
    import arena_export

    info = reg.commands["export"]
    assert (info.distribution, info.version, info.factory) == ("arena-export", arena_export.__version__,
                                                                "arena_export.command")
    code, out, err = arena(reg, capsys, "plugins", "--json")
    rows = [r for r in json.loads(out) if r["name"] == "export"]
    assert code == 0 and [(r["kind"], r["distribution"]) for r in rows] == [("command", "arena-export")]


def test_export_writes_each_instance_and_the_manifest(reg, capsys, tmp_path):
    from arena_export import read_exported_table

    code, out, err = arena(reg, capsys, "export", "--family", "plain", "--scm", "chain-w2", "--replicates", "1",
                           "--splits", "obs", "--raw", "--out", str(tmp_path))
    assert code == 0, err
    folder = tmp_path / "plain__chain-w2"
    assert sorted(p.name for p in folder.iterdir()) == ["adjacency.csv", "factors.json", "obs__rep0.parquet",
                                                        "spec.json"]
    ds = read_exported_table(folder / "obs__rep0.parquet")
    want = _chain_instances("plain")[1].dataset("obs", 0, standardise=False)
    assert ds.columns == ["b", "c", "a"] and np.array_equal(ds.X, want.X)
    assert ds.true_adjacency.tolist() == [[0, 1, 0], [0, 0, 0], [1, 0, 0]]  # b→c, a→b in columns b, c, a
    manifest = json.loads((tmp_path / "release.json").read_text())
    assert manifest["standardised"] is False and manifest["splits"] == ["obs"] and manifest["replicates"] == 1
    assert [(e["family"], e["scm_id"], e["audit_passed"]) for e in manifest["instances"]] == [
        ("plain", "chain-w2", None)]
    assert "exported 1 instances (5 files)" in out


def test_scm_selection_uses_select_and_keeps_the_real_error_of_a_malformed_id(reg, capsys, tmp_path):
    code, out, err = arena(reg, capsys, "export", "--family", "strictid", "--scm", "zz", "--out", str(tmp_path))
    assert code == 2 and err == "arena export: error: family 'strictid': malformed id 'zz': expected chain-wK\n"
    code, out, err = arena(reg, capsys, "export", "--family", "plain", "--scm", "chain-w1,zz", "--out", str(tmp_path))
    assert code == 2 and "--scm: no selected family has instance(s) ['zz']" in err
    # two families: an id one of them lacks is not an error while another has it
    code, out, err = arena(reg, capsys, "export", "--family", "strictid,plain", "--scm", "chain-w2", "--replicates",
                           "1", "--no-audit", "--out", str(tmp_path / "two"))
    assert code == 0, err
    manifest = json.loads((tmp_path / "two" / "release.json").read_text())
    assert [(e["family"], e["scm_id"]) for e in manifest["instances"]] == [("strictid", "chain-w2"),
                                                                          ("plain", "chain-w2")]


def test_bad_values_are_usage_errors(reg, capsys, tmp_path):
    code, out, err = arena(reg, capsys, "export", "--family", "plain", "--fresh", "1", "--out", str(tmp_path))
    assert code == 2 and "--fresh: none of the selected families ['plain'] draws fresh rounds" in err
    code, out, err = arena(reg, capsys, "export", "--family", "plain", "--replicates", "0", "--out", str(tmp_path))
    assert code == 2 and err == "arena export: error: --replicates must be a positive integer, got 0\n"
    code, out, err = arena(reg, capsys, "export", "--family", "plain", "--splits", "int", "--out", str(tmp_path))
    assert code == 2 and "--splits: unknown split(s) ['int']" in err
    code, out, err = arena(reg, capsys, "export", "--family", "nope", "--out", str(tmp_path))
    assert code == 2 and "unknown family(ies) ['nope']" in err
    assert not any(tmp_path.iterdir())  # nothing written


def test_export_audits_through_the_instance_family(reg, capsys, tmp_path):
    AuditedFamily.calls.clear()
    code, out, err = arena(reg, capsys, "export", "--family", "audited,plain", "--scm", "chain-w1",
                           "--replicates", "1", "--out", str(tmp_path))
    assert code == 0, err
    assert AuditedFamily.calls == [{"scm_ids": ["chain-w1"], "splits": ["obs", "obs_int"], "replicates": 1,
                                    "jobs": 1, "options": {}}]
    audit = json.loads((tmp_path / "audited__chain-w1" / "audit.json").read_text())
    assert audit["passed"] is True and audit["tables"] == 2
    assert not (tmp_path / "plain__chain-w1" / "audit.json").exists()  # no audit: no record
    manifest = json.loads((tmp_path / "release.json").read_text())
    assert {e["family"]: e["audit_passed"] for e in manifest["instances"]} == {"audited": True, "plain": None}
    assert manifest["audit_passed"] == 1
    # a failed audit is exit code 1, named
    code, out, err = arena(reg, capsys, "export", "--family", "audited", "--scm", "chain-w2", "--replicates", "1",
                           "--out", str(tmp_path / "f"))
    assert code == 1 and "audit failed for ['chain-w2']" in out


def test_without_arena_export_the_command_is_absent_and_named(capsys, monkeypatch, tmp_path):
    import causalarena.plugins as plugins

    installed = plugins._entry_points

    def without_export():
        return [ep for ep in installed() if getattr(getattr(ep, "dist", None), "metadata", {}).get("Name")
                != "arena-export"]

    monkeypatch.setattr(plugins, "_entry_points", without_export)
    reg = get_registry(strict=False)
    assert "export" not in reg.commands
    code, out, err = arena(reg, capsys, "plugins", "--json")
    assert code == 0 and not [r for r in json.loads(out) if r["name"] == "export"]
    code, out, err = arena(reg, capsys, "export", "--out", str(tmp_path))
    assert code == 2
    assert err == ("arena export: error: the export command comes with arena-export: pip install arena-export "
                   "(in this repository: pip install ./export)\n")
    assert not any(tmp_path.iterdir())
