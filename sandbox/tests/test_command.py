"""``arena sandbox`` is arena-sandbox's passthrough command (``arena_commands``), not a core import."""

from __future__ import annotations

import json

import pytest

from causalarena.cli import main
from causalarena.plugins import get_registry


def test_sandbox_is_a_passthrough_command_of_arena_sandbox():
    info = get_registry(strict=False).commands["sandbox"]
    assert (info.distribution, info.factory, info.passthrough) == ("arena-sandbox", "arena_sandbox.cli", True)
    assert info.help == "build, list and prune isolated method environments and images (arena-sandbox)"


def test_arena_sandbox_gets_the_rest_of_argv(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CAUSALARENA_SANDBOX_DIR", str(tmp_path / "none"))
    assert main(["sandbox", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    # --help is the sandbox's own parser, not arena's
    with pytest.raises(SystemExit) as exc:
        main(["sandbox", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and out.startswith("usage: arena sandbox [-h] {build,base-image,list,prune}")
    with pytest.raises(SystemExit) as exc:
        main(["sandbox", "nosuch"])
    assert exc.value.code == 2 and "invalid choice: 'nosuch'" in capsys.readouterr().err
