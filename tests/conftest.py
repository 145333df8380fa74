"""Shared helpers for the cross-package tests (run by tox env ``integration``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def arena_cmd():
    """The installed console script next to this interpreter."""
    exe = Path(sys.executable).with_name("arena")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "causalarena.cli"]


def run_arena(*args, env=None, check=True, cwd=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run([*arena_cmd(), *args], capture_output=True, text=True, env=full_env, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def fake_distribution(root: Path, dist_name: str, version: str, entry_points: dict, modules: dict) -> Path:
    """Write a minimal installed distribution (dist-info + modules) under ``root``.

    importlib.metadata discovers it when ``root`` is on ``sys.path``
    (``PYTHONPATH``), exactly like a pip-installed one.
    """
    root.mkdir(parents=True, exist_ok=True)
    info = root / f"{dist_name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n")
    lines = ["[causalarena]"] + [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))
    return root


@pytest.fixture
def plugins_json():
    def get(env=None, extra=()):
        return json.loads(run_arena("plugins", "--json", *extra, env=env).stdout)

    return get


def have(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(dist)
        return True
    except PackageNotFoundError:
        return False


__all__ = ["run_arena", "fake_distribution", "have", "ROOT", "shutil"]
