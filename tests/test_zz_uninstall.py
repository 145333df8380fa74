"""`pip uninstall arena-method-pc` removes PC (runs last; reinstalls it)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, run_arena


def _pip(*args):
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)


def test_uninstall_removes_pc_and_reinstall_restores_it(plugins_json):
    assert "pc" in {r["name"] for r in plugins_json() if r["kind"] == "method"}
    proc = _pip("uninstall", "-y", "arena-method-pc")
    assert proc.returncode == 0, proc.stderr
    try:
        names = {r["name"] for r in plugins_json() if r["kind"] == "method"}
        assert "pc" not in names and "ges" in names
        bad = run_arena("run", "--methods", "pc", check=False)
        assert bad.returncode == 2 and "unknown method(s) ['pc']" in bad.stderr
    finally:
        proc = _pip("install", "--no-deps", "--no-build-isolation", "-q", str(ROOT / "plugins" / "pc"))
        assert proc.returncode == 0, proc.stderr
    assert "pc" in {r["name"] for r in plugins_json() if r["kind"] == "method"}
