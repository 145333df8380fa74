"""No import cycle anywhere in the core (issue 11), function-level imports included.

grimp (import-linter's graph library, installed in ``tox -e lint``) reads every
``import`` statement of ``causalarena``, lazy ones inside functions too; a
strongly connected component of two or more modules is a cycle. The string
imports of the built-in plugins (``plugins.DEFAULT_PLUGINS``, loaded by name
when the registry is built) are not edges: nothing imports them at import time.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict, List, Set

import pytest

grimp = pytest.importorskip("grimp")

ROOT = Path(__file__).resolve().parents[2]


def _cycles(adj: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[List[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(adj):
        if v not in index:
            visit(v)
    return out


def test_tarjan_finds_a_known_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_core_has_no_import_cycle(monkeypatch):
    monkeypatch.setattr(sys, "path", [str(ROOT / "core" / "src")] + sys.path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "core" / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    graph = grimp.build_graph("causalarena", cache_dir=None)
    adj = {m: {d for d in graph.find_modules_directly_imported_by(m) if d != "causalarena"}
           for m in graph.modules}
    assert len(adj) > 25  # the whole core was read
    assert _cycles(adj) == []
