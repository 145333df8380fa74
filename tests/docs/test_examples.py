"""Every code example of the documentation runs (tox env ``docs``).

The blocks are taken from ``docs/**/*.md`` (the generated reference pages excepted) and
run page by page, in the order of the page, in a fresh folder that looks like the root of
a checkout (its top-level entries are symlinks to this repository's, so a tutorial's
``pip install ./plugins/pc`` or ``python contrib/method-template/render.py`` work as
written):

* a ```` ```python ```` block runs as a script (``python block.py`` in that folder);
* a ```` ```sh ```` block runs with ``bash -e -o pipefail`` only when the line before it
  is ``<!-- docs-test: run -->`` (install commands for a fresh machine are not);
* ``<!-- docs-test: file PATH -->`` before a block writes the block to ``PATH`` instead
  (a tutorial shows a file, later blocks use it);
* ``<!-- docs-test: skip (REASON) -->`` before a block leaves it out: the reason is
  required and every skipped block is listed by ``test_skipped_blocks_are_listed``.

A block that exits non-zero fails its page's test with the block's line, its output and
its error. The interpreter running the tests runs the blocks, and its ``bin`` folder comes
first on ``PATH`` (``arena``, ``pip``, ``python`` are that environment's).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
#: pages made by the build, not written by hand
GENERATED = ("reference/",)
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<what>run|skip|file)\b\s*(?P<arg>.*?)\s*-->$")
TIMEOUT = 900


class Block(NamedTuple):
    page: str
    line: int
    lang: str
    code: str
    action: str  # "python", "sh", "file", "skip", "show"
    arg: str


def parse(path: Path) -> List[Block]:
    """The fenced blocks of one page with what the test does with each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    page = path.relative_to(DOCS).as_posix()
    blocks: List[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group("lang"):
            i += 1
            continue
        indent, lang, start = len(m.group("indent")), m.group("lang"), i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][indent:])
            i += 1
        i += 1
        prev = next((ln.strip() for ln in reversed(lines[:start]) if ln.strip()), "")
        marker = MARKER.match(prev)
        what, arg = (marker.group("what"), marker.group("arg")) if marker else (None, "")
        if what == "skip":
            action = "skip"
        elif what == "file":
            action = "file"
        elif lang == "python":
            action = "python"
        elif lang in ("sh", "bash") and what == "run":
            action = "sh"
        else:
            action = "show"
        blocks.append(Block(page, start + 1, lang, "\n".join(body) + "\n", action, arg))
    return blocks


def pages() -> List[Path]:
    return sorted(p for p in DOCS.rglob("*.md")
                  if not p.relative_to(DOCS).as_posix().startswith(GENERATED))


def all_blocks() -> List[Block]:
    return [b for p in pages() for b in parse(p)]


def checkout_like(tmp: Path) -> None:
    """Symlink the repository's top-level entries into ``tmp`` (not docs, tests, git files)."""
    for entry in REPO.iterdir():
        if entry.name.startswith(".") or entry.name in ("docs", "site", "tests"):
            continue
        (tmp / entry.name).symlink_to(entry)


def run_block(block: Block, cwd: Path, env: dict, n: int) -> Optional[str]:
    """Run one block; return a failure message or None."""
    if block.action == "file":
        target = cwd / block.arg
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.code, encoding="utf-8")
        return None
    if block.action == "python":
        script = cwd / f"_docs_block_{n}.py"
        script.write_text(block.code, encoding="utf-8")
        cmd = [sys.executable, str(script)]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        return (f"{block.page}:{block.line} ({block.lang} block) exited {proc.returncode}\n"
                f"--- block\n{block.code}--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    return None


PAGES_WITH_CODE = sorted({b.page for b in all_blocks() if b.action in ("python", "sh", "file")})


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_page_examples_run(page, tmp_path):
    blocks = [b for b in parse(DOCS / page) if b.action in ("python", "sh", "file")]
    checkout_like(tmp_path)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # sandboxes and caches of the examples stay in the test's folder
    env["CAUSALARENA_SANDBOX_DIR"] = str(tmp_path / ".sandbox")
    env.pop("PYTHONPATH", None)
    for n, block in enumerate(blocks):
        failure = run_block(block, tmp_path, env, n)
        assert failure is None, failure


def test_markers_are_well_formed():
    """A skip names its reason; a file marker names a path; no marker is misspelt."""
    bad = []
    for path in pages():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not (line.strip().startswith("<!--") and "docs-test" in line):
                continue
            m = MARKER.match(line.strip())
            if not m:
                bad.append(f"{path.name}:{n}: unknown marker {line.strip()!r}")
            elif m.group("what") == "skip" and not re.fullmatch(r"\(.+\)", m.group("arg")):
                bad.append(f"{path.name}:{n}: a skip needs a reason in parentheses")
            elif m.group("what") == "file" and not m.group("arg"):
                bad.append(f"{path.name}:{n}: a file marker needs a path")
    assert not bad, "\n".join(bad)


def test_the_tutorials_have_running_examples():
    """Each tutorial runs at least one block (a page whose examples are all skipped is listed)."""
    blocks = all_blocks()
    runs = {b.page for b in blocks if b.action in ("python", "sh")}
    tutorials = {p.relative_to(DOCS).as_posix() for p in (DOCS / "tutorials").glob("*.md")}
    exempt = {b.page for b in blocks if b.action == "skip"}  # every block skipped: reported below
    assert tutorials - runs <= exempt, sorted(tutorials - runs - exempt)


def test_skipped_blocks_are_listed(capsys):
    """Print every skipped block (page, line, reason) so a reviewer sees what does not run."""
    skipped = [b for b in all_blocks() if b.action == "skip"]
    with capsys.disabled():
        print(f"\n{len(skipped)} skipped documentation block(s):")
        for b in skipped:
            print(f"  docs/{b.page}:{b.line} {b.arg}")


def test_a_failing_block_fails_its_page(tmp_path):
    """The runner reports a block that exits non-zero or raises, with its page and line."""
    env = dict(os.environ)
    sh = Block("x.md", 3, "sh", "echo before\nfalse\necho $((40 + 2))\n", "sh", "")
    py = Block("x.md", 9, "python", "raise ValueError('boom')\n", "python", "")
    ok = Block("x.md", 12, "python", "print('fine')\n", "python", "")
    sh_failure, py_failure = run_block(sh, tmp_path, env, 0), run_block(py, tmp_path, env, 1)
    assert sh_failure is not None and "x.md:3" in sh_failure and "42" not in sh_failure
    assert py_failure is not None and "x.md:9" in py_failure and "ValueError: boom" in py_failure
    assert run_block(ok, tmp_path, env, 2) is None


def test_markers_are_parsed(tmp_path):
    page = DOCS / "_parse_probe.md"
    page.write_text("<!-- docs-test: run -->\n```sh\necho 1\n```\n\n```sh\necho shown\n```\n\n"
                    "<!-- docs-test: skip (no engine) -->\n```python\nraise SystemExit(1)\n```\n\n"
                    "<!-- docs-test: file a/b.txt -->\n```text\nhello\n```\n", encoding="utf-8")
    try:
        got = [(b.lang, b.action, b.arg) for b in parse(page)]
    finally:
        page.unlink()
    assert got == [("sh", "sh", ""), ("sh", "show", ""), ("python", "skip", "(no engine)"),
                   ("text", "file", "a/b.txt")]
