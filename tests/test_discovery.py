"""Plugin discovery across installed distributions (issue 2, item 2)."""

from __future__ import annotations

import pytest
from conftest import fake_distribution, run_arena

METHODS = {"randomregress", "sortnregress", "pc", "ges", "gies", "direct_lingam", "dagma"}


def test_arena_plugins_lists_everything_with_distribution_and_version(plugins_json):
    rows = plugins_json()
    by_kind = {}
    for row in rows:
        by_kind.setdefault(row["kind"], {})[row["name"]] = row
    assert METHODS <= set(by_kind["method"])
    assert by_kind["method"]["pc"]["distribution"] == "arena-method-pc"
    assert by_kind["method"]["direct_lingam"]["distribution"] == "arena-method-direct-lingam"
    assert {"synthetic", "real", "semantic", "formula"} <= set(by_kind["family"])
    assert by_kind["family"]["semantic"]["distribution"] == "arena-family-semantic"
    assert by_kind["family"]["real"]["distribution"] == "arena-family-real"
    assert by_kind["intervention"]["default"]["distribution"] == "causal-arena"
    assert len(by_kind["metric"]) >= 8
    assert {"precision", "recall", "f1", "shd", "nshd", "sid", "auroc", "ap"} <= set(by_kind["metric"])
    from importlib.metadata import version

    # every record carries its distribution's installed version
    assert all(r["version"] == version(r["distribution"]) for r in rows if r["kind"] != "error")
    # the version the checkout's source declares (not a literal that each release must remember to bump)
    import re
    from pathlib import Path

    pyproject = (Path(__file__).resolve().parents[1] / "families" / "synthetic" / "pyproject.toml").read_text()
    assert by_kind["family"]["synthetic"]["version"] == re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert "error" not in by_kind


BROKEN = {
    "arena_method_broken_mod": """
        raise ImportError("needs libfoo.so, which is not installed")
    """,
}


def test_broken_distribution_is_reported_by_name_and_the_rest_load(tmp_path, plugins_json):
    site = fake_distribution(tmp_path / "site", "arena-method-broken", "0.3.1",
                             {"broken": "arena_method_broken_mod"}, BROKEN)
    env = {"PYTHONPATH": str(site), "CAUSALARENA_STRICT_PLUGINS": "0"}
    rows = plugins_json(env=env)
    errors = [r for r in rows if r["kind"] == "error"]
    assert len(errors) == 1
    err = errors[0]
    assert (err["name"], err["distribution"], err["version"]) == ("broken", "arena-method-broken", "0.3.1")
    assert "needs libfoo.so" in err["description"]
    assert METHODS <= {r["name"] for r in rows if r["kind"] == "method"}
    # strict mode turns the report into an error that names the distribution
    proc = run_arena("plugins", "--strict", env=env, check=False)
    assert proc.returncode == 1
    assert "arena-method-broken 0.3.1" in proc.stderr and "needs libfoo.so" in proc.stderr


def test_duplicate_method_name_names_both_distributions(tmp_path):
    site = fake_distribution(tmp_path / "site", "arena-method-otherpc", "2.0", {"otherpc": "otherpc_plugin"}, {
        "otherpc_plugin": """
            from causalarena.hookspecs import hookimpl
            from causalarena.records import MethodInfo

            @hookimpl
            def arena_methods():
                yield MethodInfo(name="pc", factory="otherpc_plugin:PC")
        """,
    })
    proc = run_arena("plugins", env={"PYTHONPATH": str(site), "CAUSALARENA_STRICT_PLUGINS": "0"}, check=False)
    assert proc.returncode == 1
    assert "'pc'" in proc.stderr
    assert "arena-method-pc 0.1.0" in proc.stderr and "arena-method-otherpc 2.0" in proc.stderr


def test_listing_plugins_does_not_import_method_libraries():
    import subprocess
    import sys

    code = ("import sys; from causalarena.plugins import get_registry; r = get_registry(strict=True); "
            "heavy = [m for m in ('causallearn', 'lingam', 'dagma', 'torch', 'sklearn') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


@pytest.mark.parametrize("command", ["methods", "families"])
def test_methods_and_families_commands(command):
    out = run_arena(command, "--json").stdout
    assert ("arena-method-pc" if command == "methods" else "arena-family-synthetic") in out
