"""The lean-install field ``[tool.causalarena.sandbox]``: parsing, the key, and a lean build end to end.

The end-to-end part builds tests/fixture_lean_plugin, whose no-deps entry
``fixture-heavy==0.1.0`` declares a dependency that exists nowhere
(``fixture-unobtainable-dependency``): the build succeeds only if it is
installed without its dependencies. The two fixture distributions are tiny
wheels written here into a temporary find-links folder (no network for them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
LEAN_FIXTURE = HERE / "fixture_lean_plugin"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX virtualenv layout and flock")


# -- parsing and validation (no pip) ----------------------------------------------------------
def _parse(table, source="plugins/x/pyproject.toml"):
    from arena_sandbox.lean import parse_lean_field

    return parse_lean_field({"tool": {"causalarena": {"sandbox": table}}}, source)


def test_the_field_is_parsed():
    from arena_sandbox.lean import parse_lean_field

    assert parse_lean_field({"project": {"name": "x"}}) is None  # no table: a normal build
    lean = _parse({"no-deps": ["Avici==1.0.7"], "requirements": ["numpy<2", "jax==0.4.30"]})
    assert lean.no_deps == ("Avici==1.0.7",) and lean.requirements == ("numpy<2", "jax==0.4.30")
    assert lean.names() == ["avici"] and lean.source == "plugins/x/pyproject.toml"
    # the key body is normalised and order-free
    assert lean.key_body() == {"no-deps": ["Avici==1.0.7"], "requirements": ["jax==0.4.30", "numpy<2"]}
    assert _parse({"no-deps": ["avici==1.0.7"]}).requirements == ()


@pytest.mark.parametrize("table, message", [
    ("avici", "must be a table, got str"),
    ({"no-deps": ["a==1"], "requirement": []}, "has unknown field(s) requirement (known: no-deps, requirements)"),
    ({"requirements": ["jax==0.4.30"]}, "no-deps must list at least one distribution (or drop the table)"),
    ({"no-deps": "avici==1.0.7"}, "no-deps must be a list of requirement strings, got 'avici==1.0.7'"),
    ({"no-deps": ["avici==1.0.7"], "requirements": [3]}, "requirements must be a list of requirement strings, got [3]"),
    ({"no-deps": ["avici"]}, "no-deps: 'avici' must be pinned exactly as name==version"),
    ({"no-deps": ["avici>=1.0"]}, "no-deps: 'avici>=1.0' must be pinned exactly as name==version"),
    ({"no-deps": ["avici==1.*"]}, "no-deps: 'avici==1.*' must be pinned exactly as name==version"),
    ({"no-deps": ["avici==1.0.7; python_version<'3'"]}, "must be pinned exactly as name==version"),
    ({"no-deps": ["avici==1.0.7"], "requirements": ["jax=0.4"]}, "requirements: 'jax=0.4' is not a requirement ("),
    ({"no-deps": ["avici==1.0.7"], "requirements": ["Avici==1.0.7"]},
     ": Avici is listed twice (no-deps and requirements)"),
])
def test_a_malformed_field_is_an_error_naming_file_and_field(table, message):
    from arena_sandbox.lean import LeanFieldError

    with pytest.raises(LeanFieldError) as err:
        _parse(table)
    text = str(err.value)
    assert text.startswith("plugins/x/pyproject.toml: [tool.causalarena.sandbox]")
    assert message in text


def test_read_lean_field_reads_a_folder_and_names_bad_toml(tmp_path):
    from arena_sandbox.lean import LeanFieldError, read_lean_field

    assert read_lean_field(str(tmp_path)) is None  # no pyproject.toml
    assert read_lean_field("arena-method-x==1.0") is None  # a requirement: no [tool] table to read
    assert read_lean_field(str(LEAN_FIXTURE)).no_deps == ("fixture-heavy==0.1.0",)
    (tmp_path / "pyproject.toml").write_text("[tool.causalarena.sandbox]\nno-deps = [\n")
    with pytest.raises(LeanFieldError, match=rf"^{tmp_path / 'pyproject.toml'}: not valid TOML \("):
        read_lean_field(str(tmp_path))


def test_unsatisfied_names_each_missing_or_wrong_requirement():
    from arena_sandbox.lean import unsatisfied

    have = {"causal-arena": "0.5.0", "numpy": "2.1.0", "avici": "1.0.7"}
    reqs = ["causal-arena>=0.4", "avici==1.0.7", "numpy<2", "jax>=0.4", "pytest; extra == 'test'",
            "tomli; python_version < '3.0'"]
    assert unsatisfied(reqs, have) == ["numpy<2 (2.1.0 installed)", "jax>=0.4 (not installed)"]


def test_the_key_covers_the_field():
    from arena_sandbox.envs import environment_key

    body = {"plugin": "p", "version": "1", "python": "3.11.7", "platform": "linux-x86_64",
            "resolved": ["p==1"], "local": {}}
    k0 = environment_key(body)
    k1 = environment_key({**body, "lean": {"no-deps": ["a==1"], "requirements": []}})
    k2 = environment_key({**body, "lean": {"no-deps": ["a==1"], "requirements": ["b==2"]}})
    assert len({k0, k1, k2}) == 3 and all(len(k) == 12 for k in (k0, k1, k2))
    assert k0 == environment_key(dict(body))  # deterministic


# -- end to end: a lean build ---------------------------------------------------------------------
def _wheel(folder: Path, name: str, version: str, requires=(), body: str = "") -> Path:
    """A minimal pure-Python wheel of ``name`` (module ``name`` with ``_``, VERSION = version)."""
    mod = name.replace("-", "_")
    info = f"{mod}-{version}.dist-info"
    path = folder / f"{mod}-{version}-py3-none-any.whl"
    meta = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                    *[f"Requires-Dist: {r}\n" for r in requires]])
    files = {f"{mod}/__init__.py": f"VERSION = {version!r}\n{body}",
             f"{info}/METADATA": meta,
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: arena-sandbox-tests\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{f},,\n" for f in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for f, text in files.items():
            z.writestr(f, text)
    return path


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    """fixture-heavy 0.1.0 (needs a distribution that exists nowhere) and 0.0.1 (needs nothing),
    fixture-light 0.2.0 / 0.3.0, fixture-needs-heavy 0.1.0 (depends on fixture-heavy); on pip's
    find-links for this module."""
    folder = tmp_path_factory.mktemp("wheels")
    _wheel(folder, "fixture-heavy", "0.1.0", requires=["fixture-unobtainable-dependency>=1"])
    _wheel(folder, "fixture-heavy", "0.0.1")  # installable with its (no) dependencies: what a resolver falls back to
    _wheel(folder, "fixture-light", "0.2.0")
    _wheel(folder, "fixture-light", "0.3.0")
    _wheel(folder, "fixture-needs-heavy", "0.1.0", requires=["fixture-heavy"])
    old = os.environ.get("PIP_FIND_LINKS")
    os.environ["PIP_FIND_LINKS"] = f"{old or ''} {folder}".strip()  # keeps the machine's own find-links
    yield folder
    if old is None:
        os.environ.pop("PIP_FIND_LINKS", None)
    else:
        os.environ["PIP_FIND_LINKS"] = old


@pytest.fixture(scope="module")
def lean_manifest(wheelhouse, tmp_path_factory):
    from arena_sandbox.envs import build

    root = tmp_path_factory.mktemp("sandbox")
    lines = []
    manifest = build(str(LEAN_FIXTURE), root=root, log=lines.append)
    manifest["_log"] = lines
    return manifest


def _copy_fixture(tmp_path: Path) -> Path:
    copy = tmp_path / "lean"
    shutil.copytree(LEAN_FIXTURE, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    return copy


def test_a_no_deps_entry_is_installed_without_its_dependencies(lean_manifest):
    m = lean_manifest
    assert m["plugin"] == "arena-method-sandbox-lean" and [x["name"] for x in m["methods"]] == ["lean_probe"]
    assert m["lean"] == {"no-deps": ["fixture-heavy==0.1.0"], "requirements": ["fixture-light==0.2.0"]}
    pins = set(m["requirements"])
    assert {"fixture-heavy==0.1.0", "fixture-light==0.2.0", "arena-method-sandbox-lean==0.1.0"} <= pins
    # the three stages in their order: no-deps, requirements (+ core), the plugin
    installs = [ln for ln in m["_log"] if ln.startswith("installing ")]
    assert installs[0] == "installing 1 distributions (no-deps, --no-deps)"
    assert installs[1].startswith("installing ") and installs[1].endswith(" distributions (requirements, --no-deps)")
    assert installs[2] == "installing 1 distributions (plugin, --no-deps)"
    # inside the environment: fixture-heavy declares its dependency, which is not there
    probe = ("import json; from importlib import metadata as md\n"
             "out = {'heavy': md.version('fixture-heavy'), 'requires': md.requires('fixture-heavy'),"
             " 'light': md.version('fixture-light')}\n"
             "try:\n    md.version('fixture-unobtainable-dependency'); out['dep'] = 'installed'\n"
             "except md.PackageNotFoundError:\n    out['dep'] = None\n"
             "print(json.dumps(out))")
    out = subprocess.run([m["interpreter"], "-I", "-c", probe], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == {"heavy": "0.1.0", "requires": ["fixture-unobtainable-dependency>=1"],
                               "light": "0.2.0", "dep": None}


def test_a_plain_install_of_the_same_plugin_would_fail(wheelhouse, tmp_path):
    """Control: without the field, pip must resolve fixture-heavy's dependency and cannot."""
    from arena_sandbox.envs import SandboxError, resolve

    copy = _copy_fixture(tmp_path)
    text = (copy / "pyproject.toml").read_text()
    (copy / "pyproject.toml").write_text(text.split("[tool.causalarena.sandbox]")[0])
    with pytest.raises(SandboxError, match="fixture-unobtainable-dependency"):
        resolve(str(copy))


def test_changing_the_field_changes_the_key_and_same_content_keeps_it(lean_manifest, tmp_path):
    from arena_sandbox.envs import resolve

    copy = _copy_fixture(tmp_path)
    res = resolve(str(copy))
    assert res["key"] == lean_manifest["key"]  # same content elsewhere: same key
    assert [(i["name"], i["stage"]) for i in res["items"]][0] == ("fixture-heavy", "no-deps")
    assert res["items"][-1]["name"] == "arena-method-sandbox-lean" and res["items"][-1]["stage"] == "plugin"
    py = copy / "pyproject.toml"
    py.write_text(py.read_text().replace('requirements = ["fixture-light==0.2.0"]',
                                         'requirements = ["fixture-light==0.3.0"]'))
    res2 = resolve(str(copy))
    assert res2["key"] != res["key"] and res2["lean"]["requirements"] == ["fixture-light==0.3.0"]
    assert "fixture-light==0.3.0" in {f"{i['name']}=={i['version']}" for i in res2["items"]}


def test_a_plugin_requirement_the_lean_set_misses_is_an_error_naming_the_field(wheelhouse, tmp_path):
    from arena_sandbox.envs import SandboxError, resolve

    copy = _copy_fixture(tmp_path)
    py = copy / "pyproject.toml"
    py.write_text(py.read_text().replace('requirements = ["fixture-light==0.2.0"]', "requirements = []"))
    with pytest.raises(SandboxError) as err:
        resolve(str(copy))
    assert str(err.value) == (
        "arena-method-sandbox-lean 0.1.0 requires fixture-light>=0.2 (not installed), which the lean set does "
        f"not provide: add it to {py}: [tool.causalarena.sandbox] requirements (or no-deps)")


def test_a_requirement_that_pulls_a_no_deps_distribution_is_an_error(wheelhouse, tmp_path):
    from arena_sandbox.envs import SandboxError, resolve

    copy = _copy_fixture(tmp_path)
    py = copy / "pyproject.toml"
    py.write_text(py.read_text().replace('requirements = ["fixture-light==0.2.0"]',
                                         'requirements = ["fixture-light==0.2.0", "fixture-needs-heavy==0.1.0"]'))
    with pytest.raises(SandboxError) as err:
        resolve(str(copy))
    assert "requirements (+ core) pull in fixture-heavy, which no-deps lists" in str(err.value)
    assert str(err.value).startswith(f"{py}: [tool.causalarena.sandbox]")
