"""The layer contracts of ``pyproject.toml`` ([tool.importlinter]) hold, and would catch a break.

Runs in ``tox -e lint`` (import-linter installed, every distribution's
``src/`` on ``PYTHONPATH``). The second test copies the core into a temporary
folder, adds one deliberate ``causalarena → plugin`` import and checks that
``lint-imports`` fails naming the contract and the import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "pyproject.toml"

pytest.importorskip("importlinter")


def _lint_imports(pythonpath: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(exe), "--no-cache", str(CONFIG)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def _src_path() -> str:
    # every distribution: top-level ones (core, testkit, sandbox, diagnosis, export) and grouped ones
    dirs = [str(p) for p in sorted(ROOT.glob("*/*/src")) + sorted(ROOT.glob("*/src"))]
    return os.pathsep.join(dirs)


def test_contracts_hold_on_this_checkout():
    proc = _lint_imports(_src_path())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_a_core_to_plugin_import_breaks_the_contract(tmp_path):
    shadow = tmp_path / "src"
    shutil.copytree(ROOT / "core" / "src" / "causalarena", shadow / "causalarena",
                    ignore=shutil.ignore_patterns("__pycache__"))
    victim = shadow / "causalarena" / "metrics.py"
    victim.write_text(victim.read_text() + "\n\nimport arena_method_pc.plugin  # noqa: E402,F401 - deliberate\n")
    proc = _lint_imports(os.pathsep.join([str(shadow), _src_path()]))
    assert proc.returncode != 0
    out = proc.stdout
    assert "the core imports no plugin, family, sandbox or card engine BROKEN" in out
    assert "causalarena.metrics -> arena_method_pc.plugin" in out
