"""scripts/demo runs exactly the methods the README names (issue 12 item 17).

Before, the demo ran every installed method (install fci and it ran fci
too). Now it passes ``--methods`` with the methods the README's quick
start names, which are also the plugins it installs (eight since the
amortized model, issue 14).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_methods():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("`scripts/demo` installs")
    para = text[start:text.index("\n\n", start)]
    eight = re.search(r"eight\s+methods of this release \(([^)]*)\)", para)
    assert eight, "README quick start no longer names the demo's eight methods"
    return re.findall(r"`([a-z_]+)`", eight.group(1))


def _demo_commands():
    text = (ROOT / "scripts" / "demo").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return body.replace("\\\n", " ")


def _readme_effect_methods():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("`scripts/demo` installs")
    para = text[start:text.index("\n\n", start)]
    four = re.search(r"four\s+effect\s+estimators \(([^)]*)\)", para)
    assert four, "README quick start no longer names the demo's four effect estimators"
    return [m for m in re.findall(r"`([a-z_]+)`", four.group(1)) if "_" in m]  # method names, not `bd` …


def test_demo_runs_exactly_the_readme_methods():
    named = _readme_methods()
    assert len(named) == 8
    script = _demo_commands()
    m = re.search(r"^METHODS=(\S+)$", script, re.M)
    assert m, "scripts/demo sets no METHODS list"
    methods = m.group(1).split(",")
    assert methods == named
    installed = [p for p in re.findall(r"\./plugins/([a-z_-]+)", script) if not p.startswith("effect-")]
    assert installed == named
    e = re.search(r"^EFFECT_METHODS=(\S+)$", script, re.M)
    assert e, "scripts/demo sets no EFFECT_METHODS list"
    assert e.group(1).split(",") == _readme_effect_methods()
    # each effect estimator's distribution is installed (plugins/effect-<strategy>)
    effect_plugins = set(re.findall(r"\./plugins/effect-([a-z]+)", script))
    assert {"metalearners", "frontdoor", "wald", "plearner"} <= effect_plugins
    run = next(line for line in script.splitlines() if "/bin/arena\" run" in line)
    words = shlex.split(run.replace('"$METHODS,$EFFECT_METHODS"', f"{m.group(1)},{e.group(1)}"))
    assert words[words.index("--methods") + 1] == f"{m.group(1)},{e.group(1)}"
    # user arguments come last, so `./scripts/demo --methods pc,ges` still narrows the run
    assert words[-1] == "$@"
