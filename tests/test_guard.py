"""Known answers for ``tests/guard_local_dists.py`` (every tox env's commands_pre).

The guard must fail an env when a project distribution (``causal-arena``,
``arena-method-*``, ``arena-family-*``, ``arena-contrib-*``, ``arena-sandbox``)
was installed from a package index instead of this checkout. Fake
distributions stand in for installed ones (``importlib.metadata`` API:
metadata, version, locate_file, read_text).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

GUARD_PATH = Path(__file__).resolve().parent / "guard_local_dists.py"


def _guard():
    spec = importlib.util.spec_from_file_location("_guard_local_dists", GUARD_PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class FakeDist:
    """What the guard reads of an installed distribution."""

    def __init__(self, name, direct_url=None, location="/usr/lib/python3/site-packages", version="0.1.0"):
        self.metadata = {"Name": name}
        self.version = version
        self._url = direct_url
        self._location = location

    def locate_file(self, path):
        return Path(self._location) / path

    def read_text(self, filename):
        assert filename == "direct_url.json"
        return None if self._url is None else json.dumps(self._url)


def run(monkeypatch, capsys, *dists):
    guard = _guard()
    monkeypatch.setattr(guard, "distributions", lambda: list(dists))
    code = guard.main()
    return code, capsys.readouterr().out, guard.ROOT


INDEX = {"url": "https://files.pythonhosted.org/packages/ab/cd/arena_method_pc-0.1.0-py3-none-any.whl",
         "archive_info": {"hashes": {"sha256": "0" * 64}}}


@pytest.mark.parametrize("name", ["arena-method-pc", "causal-arena", "arena-family-synthetic",
                                  "arena-contrib-family-example", "arena-contrib-method-example", "arena-sandbox",
                                  "arena-cards", "Arena_Method_PC"])
def test_sibling_from_an_index_is_reported(monkeypatch, capsys, name):
    code, out, _ = run(monkeypatch, capsys, FakeDist(name, INDEX, version="9.9.9"))
    assert code == 1
    assert "not installed from this checkout" in out
    assert f"{name.lower().replace('_', '-')} 9.9.9 (source: https://files.pythonhosted.org/" in out


def test_no_direct_url_means_an_index(monkeypatch, capsys):
    code, out, _ = run(monkeypatch, capsys, FakeDist("arena-method-ges", None))
    assert code == 1 and "arena-method-ges 0.1.0 (source: a package index)" in out


def test_local_directory_inside_the_checkout_passes(monkeypatch, capsys):
    guard = _guard()
    url = {"url": (guard.ROOT / "plugins" / "pc").as_uri(), "dir_info": {}}
    code, out, _ = run(monkeypatch, capsys, FakeDist("arena-method-pc", url),
                       FakeDist("arena-contrib-method-example",
                                {"url": (guard.ROOT / "contrib" / "method-example").as_uri(), "dir_info": {}}))
    assert (code, out) == (0, "")


def test_local_directory_outside_the_checkout_is_reported(monkeypatch, capsys, tmp_path):
    code, out, _ = run(monkeypatch, capsys,
                       FakeDist("arena-method-pc", {"url": tmp_path.as_uri(), "dir_info": {}}))
    assert code == 1 and f"source: {tmp_path.as_uri()}" in out


def test_in_tree_metadata_passes_and_other_packages_are_ignored(monkeypatch, capsys):
    guard = _guard()
    code, out, _ = run(monkeypatch, capsys,
                       FakeDist("arena-family-real", None, location=str(guard.ROOT / "families" / "real" / "src")),
                       FakeDist("numpy", INDEX), FakeDist("arenaceous", INDEX))
    assert (code, out) == (0, "")


def test_reports_every_offender(monkeypatch, capsys):
    code, out, _ = run(monkeypatch, capsys, FakeDist("arena-method-pc", INDEX), FakeDist("causal-arena", None))
    assert code == 1
    assert out.count("\n  ") == 2
