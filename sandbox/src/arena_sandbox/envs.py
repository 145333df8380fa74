"""Per-plugin virtual environments: resolve, key, build, list, prune.

One environment per method plugin, built from the plugin's own declared
requirements plus the core (``causal-arena``, whose worker path imports only
numpy and attrs), so a plugin pinning numpy 1.26 / pandas 1.5 (gcastle, sdcd)
never touches the main environment (the CausalArena paper §4.5, App. B.3).

Cache key
    ``sha256`` over the plugin's name and version, the interpreter
    (``X.Y.Z``, platform, machine) and the **resolved** requirement set — every
    ``name==version`` pip's resolver picks for ``core + plugin`` under the
    active constraints (``pip install --dry-run --ignore-installed --report``)
    — plus a content hash of every local source tree (a plugin or core
    installed from a folder: its version does not change when its code does)
    — plus, for a plugin with the lean-install field (``[tool.causalarena.sandbox]``,
    :mod:`arena_sandbox.lean`), that field's two lists. Same key → the environment is reused; anything that changes what would be
    installed → a new environment. 12 hex digits.

Layout (``$CAUSALARENA_SANDBOX_DIR``, default ``~/.cache/causalarena/sandbox``)::

    venv/<plugin>-<version>-<key>/env/            the virtual environment
    venv/<plugin>-<version>-<key>/manifest.json   written last: the env is complete
    venv/<plugin>-<version>-<key>.lock            flock while building

The environment is created with ``python -m venv --without-pip`` from the
running interpreter and filled by the running pip (``pip --python ENV
install --no-deps`` of exactly the resolved set): fast, and the sandbox
carries no installer of its own.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple
from urllib.parse import unquote, urlparse

if sys.version_info >= (3, 10):
    from importlib import metadata as importlib_metadata
else:  # pragma: no cover
    import importlib_metadata  # type: ignore

CORE_DISTRIBUTION = "causal-arena"
ROOT_ENV = "CAUSALARENA_SANDBOX_DIR"
MANIFEST = "manifest.json"
#: files and folders left out of a local source tree's content hash
_SKIP_PARTS = {"build", "dist", "__pycache__", ".git", ".tox", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

Log = Callable[[str], None]


class SandboxError(RuntimeError):
    """A sandbox could not be resolved, built or found (the message says which and why)."""


def normalise(name: str) -> str:
    """PEP 503 name normalisation (``Arena_Method.X`` → ``arena-method-x``)."""
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def sandbox_root() -> Path:
    """The folder that holds every sandbox (``$CAUSALARENA_SANDBOX_DIR`` or the user cache)."""
    root = os.environ.get(ROOT_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "causalarena", "sandbox")
    return Path(root)


def env_python(env_dir: Path) -> Path:
    """The interpreter of a virtual environment folder (POSIX or Windows layout)."""
    posix = env_dir / "bin" / "python"
    return posix if posix.exists() or os.name != "nt" else env_dir / "Scripts" / "python.exe"


# -- sources -------------------------------------------------------------------
def installed_source(distribution: str) -> str:
    """A pip install argument that reproduces an installed distribution.

    A distribution installed from a local folder (PEP 610 ``direct_url.json``
    with a ``file://`` URL, editable or not) gives that folder; anything else
    gives ``name==version`` from the package index.

    Raises:
        SandboxError: the distribution is not installed here.
    """
    try:
        dist = importlib_metadata.distribution(distribution)
    except importlib_metadata.PackageNotFoundError:
        raise SandboxError(f"{distribution} is not installed in this environment") from None
    raw = dist.read_text("direct_url.json")
    if raw:
        try:
            url = json.loads(raw).get("url", "")
        except ValueError:
            url = ""
        if url.startswith("file://"):
            path = unquote(urlparse(url).path)
            if os.path.exists(path):
                return path
    return f"{dist.metadata['Name']}=={dist.version}"


def tree_hash(path: str) -> str:
    """SHA-256 of the relative paths and contents of a source folder's files.

    Build artefacts (``build/``, ``*.egg-info``, ``__pycache__`` …) are left
    out, so building a wheel does not change the hash; a file is read once.
    """
    h = hashlib.sha256()
    base = Path(path)
    if base.is_file():
        h.update(base.read_bytes())
        return h.hexdigest()
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_PARTS and not d.endswith(".egg-info"))
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            p = Path(root) / name
            h.update(str(p.relative_to(base)).encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def _is_local(source: str) -> bool:
    return os.path.exists(source)


# -- resolution -------------------------------------------------------------------
def pip_command() -> List[str]:
    """The running interpreter's pip (``python -m pip``), quiet and non-interactive."""
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]


def constraint_args(constraints: Sequence[str]) -> List[str]:
    """``-c FILE`` for each constraints file; ``PIP_CONSTRAINT`` in the environment also applies (pip reads it)."""
    out: List[str] = []
    for c in constraints:
        if not os.path.isfile(c):
            raise SandboxError(f"constraints file {c!r} does not exist")
        out += ["-c", os.path.abspath(c)]
    return out


def _run(cmd: Sequence[str], what: str, timeout: float = 3600.0, env: Optional[Dict[str, str]] = None) -> str:
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise SandboxError(f"{what}: timed out after {timeout:g} s ({' '.join(cmd)})") from None
    if proc.returncode != 0:
        raise SandboxError(f"{what} failed: {_pip_error(proc.stderr or proc.stdout or '')}")
    return proc.stdout


def _pip_error(text: str) -> str:
    """The lines of pip's output that say what went wrong (``ERROR:`` and hints), joined; else the last line."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    keep = [ln for ln in lines if ln.startswith(("ERROR:", "Hint:", "error:"))
            and "Location 'file:" not in ln
            and not ln.startswith("ERROR: Ignored the following")]  # a list of other pythons' versions: noise
    text = " ".join(keep or lines[-1:]) or "no output"
    return text if len(text) <= 600 else text[:600] + " …"


def _dry_run(args: Sequence[str], what: str, constraints: Sequence[str]) -> List[Dict[str, Any]]:
    """``pip install --dry-run --ignore-installed --report`` of ``args``; the report's ``install`` list."""
    with tempfile.TemporaryDirectory(prefix="arena-sandbox-") as tmp:
        report = os.path.join(tmp, "report.json")
        _run(pip_command() + ["install", "--dry-run", "--ignore-installed", "--quiet", "--report", report,
                              *constraint_args(constraints), *args], what)
        with open(report) as fh:
            return json.load(fh).get("install", [])


def _item(it: Dict[str, Any], local_hashes: Dict[str, str], stage: str) -> Dict[str, str]:
    """One resolved distribution: name, version, what to pass to pip (a local path or name==version), stage."""
    meta = it.get("metadata", {})
    name, version = meta.get("name", "?"), meta.get("version", "?")
    url = (it.get("download_info") or {}).get("url", "")
    source = f"{name}=={version}"
    if url.startswith("file://"):
        path = unquote(urlparse(url).path)
        source = path
        local_hashes[normalise(name)] = tree_hash(path)
    return {"name": name, "version": version, "source": source, "stage": stage}


def environment_key(body: Dict[str, Any]) -> str:
    """12 hex digits of SHA-256 over the key body (plugin, version, python, platform, resolved, local[, lean])."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]


#: install order of a lean build (the lean-install field, :mod:`arena_sandbox.lean`)
STAGES = ("no-deps", "requirements", "plugin")


def resolve(plugin_source: str, core_source: Optional[str] = None,
            constraints: Sequence[str] = ()) -> Dict[str, Any]:
    """Resolve ``core + plugin`` for a fresh environment without installing anything.

    A plugin folder whose ``pyproject.toml`` has the lean-install field
    (``[tool.causalarena.sandbox]``, :mod:`arena_sandbox.lean`) is resolved
    in three parts instead: its ``no-deps`` distributions and the plugin
    with ``--no-deps`` (their declared dependencies are never resolved),
    and ``core + requirements`` normally; the plugin's own declared
    requirements must then be satisfied by that union. The field is part of
    the key.

    Args:
        plugin_source: a folder with the plugin's ``pyproject.toml``, a wheel,
            or a requirement (``arena-method-sdcd==0.1.0``).
        core_source: how to install the core (default: as installed here,
            :func:`installed_source`), so the sandbox's worker speaks this
            runner's protocol version.
        constraints: pip constraints files (e.g. the project's
            ``torch==2.13.0``); ``PIP_CONSTRAINT`` applies too.

    Returns:
        ``{"plugin": name, "version": str, "key": 12 hex, "items": [{"name",
        "version", "source", "stage"}], "sources": {...}, "python": "X.Y.Z",
        "lean": field or None}`` where ``source`` is what to pass to pip for
        that item (a local path or ``name==version``) and ``stage`` one of
        :data:`STAGES` (``"requirements"`` for every item of a normal build).

    Raises:
        SandboxError: pip could not resolve (its last lines are in the
            message); the plugin is the core itself; the lean-install field
            is malformed, a ``no-deps`` distribution is also pulled in by
            ``requirements``, or the plugin's requirements are not satisfied
            by the lean set (the message names the file and the field).
    """
    from .lean import TABLE, LeanFieldError, read_lean_field, unsatisfied

    core_source = core_source or installed_source(CORE_DISTRIBUTION)
    try:
        lean = read_lean_field(plugin_source)
    except LeanFieldError as exc:
        raise SandboxError(str(exc)) from None
    local_hashes: Dict[str, str] = {}
    items: List[Dict[str, str]] = []
    plugin: Optional[Tuple[str, str]] = None
    if lean is None:
        for it in _dry_run([core_source, plugin_source], f"resolving {plugin_source}", constraints):
            items.append(_item(it, local_hashes, "requirements"))
            if it.get("requested") and normalise(items[-1]["name"]) != CORE_DISTRIBUTION:
                plugin = (items[-1]["name"], items[-1]["version"])
    else:
        where = f"{lean.source}: {TABLE}"
        for it in _dry_run([core_source, *lean.requirements], f"resolving {where} requirements (+ core)",
                           constraints):
            items.append(_item(it, local_hashes, "requirements"))
        clash = sorted(set(lean.names()) & {normalise(i["name"]) for i in items})
        if clash:
            raise SandboxError(f"{where} requirements (+ core) pull in {', '.join(clash)}, which no-deps lists: "
                               "remove it from no-deps or the requirement that depends on it")
        requires: List[str] = []
        for it in _dry_run(["--no-deps", *lean.no_deps, plugin_source],
                           f"resolving {where} no-deps and the plugin", constraints):
            name = normalise(it.get("metadata", {}).get("name", "?"))
            is_plugin = name not in lean.names()
            items.append(_item(it, local_hashes, "plugin" if is_plugin else "no-deps"))
            if is_plugin:
                plugin = (items[-1]["name"], items[-1]["version"])
                requires = list(it.get("metadata", {}).get("requires_dist") or [])
        if plugin is not None:
            have = {normalise(i["name"]): i["version"] for i in items}
            missing = unsatisfied(requires, have)
            if missing:
                raise SandboxError(f"{plugin[0]} {plugin[1]} requires {'; '.join(missing)}, which the lean set "
                                   f"does not provide: add it to {where} requirements (or no-deps)")
    if plugin is None or normalise(plugin[0]) == CORE_DISTRIBUTION:
        raise SandboxError(f"{plugin_source!r} resolved to no plugin distribution besides {CORE_DISTRIBUTION}")
    items.sort(key=lambda i: (STAGES.index(i["stage"]), normalise(i["name"])))
    python = platform.python_version()
    body: Dict[str, Any] = {"plugin": normalise(plugin[0]), "version": plugin[1], "python": python,
                            "platform": f"{sys.platform}-{platform.machine()}",
                            "resolved": [f"{normalise(i['name'])}=={i['version']}"
                                         for i in sorted(items, key=lambda i: normalise(i["name"]))],
                            "local": local_hashes}
    if lean is not None:  # absent for a normal plugin: its existing environments keep their keys
        body["lean"] = lean.key_body()
    return {"plugin": normalise(plugin[0]), "version": plugin[1], "key": environment_key(body), "items": items,
            "python": python, "local": local_hashes, "lean": body.get("lean"),
            "sources": {"plugin": plugin_source, "core": core_source}}


# -- build ------------------------------------------------------------------------
def env_dir_for(plugin: str, version: str, key: str, root: Optional[Path] = None) -> Path:
    return (root or sandbox_root()) / "venv" / f"{plugin}-{version}-{key}"


class _Lock:
    """An exclusive ``flock`` on ``path`` (two builds of one key never interleave)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fh: Any = None

    def __enter__(self) -> "_Lock":
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.path, "w")
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: Any) -> None:
        import fcntl

        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


#: run inside a built environment: the plugin's method records and the stack
_PROBE = r"""
import json, sys
from importlib import metadata
from causalarena.plugins import get_registry
import attrs
plugin = sys.argv[1]
norm = lambda n: __import__("re").sub(r"[-_.]+", "-", n).lower()
reg = get_registry(strict=False)
methods = [attrs.asdict(m) for m in reg.methods.values() if norm(m.distribution) == plugin]
errors = [attrs.asdict(e) for e in reg.errors]
stack = {norm(d.metadata["Name"]): d.version for d in metadata.distributions()}
print(json.dumps({"methods": methods, "errors": errors, "stack": stack}, default=list))
"""


def build(plugin_source: str, *, core_source: Optional[str] = None, constraints: Sequence[str] = (),
          force: bool = False, log: Log = lambda text: None, root: Optional[Path] = None) -> Dict[str, Any]:
    """Build (or reuse) the environment of one plugin; return its manifest.

    Steps: :func:`resolve` → key → if ``venv/<plugin>-<version>-<key>/manifest.json``
    exists (and not ``force``) reuse it; else ``python -m venv --without-pip``,
    ``pip --python ENV install --no-deps`` of exactly the resolved set, a probe
    inside the environment that lists the plugin's methods (through the core's
    own plugin discovery) and the installed stack, and a worker ``hello``
    (``python -m causalarena.worker``) proving the worker starts there. The
    manifest is written last; a build that fails midway leaves no manifest
    and is removed.

    Returns:
        The manifest: plugin, version, key, created, python, path, sources,
        requirements (the resolved ``name==version`` list), stack, methods
        (MethodInfo fields), worker (the ``hello`` answer), build_seconds.

    Raises:
        SandboxError: resolution, installation, the probe or the worker
            failed; the plugin registers no method.
    """
    t0 = time.perf_counter()
    log(f"resolving {plugin_source} (+ core {core_source or installed_source(CORE_DISTRIBUTION)})")
    res = resolve(plugin_source, core_source, constraints)
    target = env_dir_for(res["plugin"], res["version"], res["key"], root)
    manifest_path = target / MANIFEST
    with _Lock(target.parent / (target.name + ".lock")):
        if manifest_path.exists() and not force:
            log(f"reusing {target} (key {res['key']})")
            return read_manifest(target)
        if target.exists():
            shutil.rmtree(target)
        try:
            env = target / "env"
            log(f"creating {env}")
            _run([sys.executable, "-m", "venv", "--without-pip", str(env)], "creating the virtual environment")
            py = env_python(env)
            for stage in STAGES:  # a normal build has one stage; a lean one: no-deps, requirements, plugin
                sources = [i["source"] for i in res["items"] if i["stage"] == stage]
                if not sources:
                    continue
                log(f"installing {len(sources)} distributions ({stage if res['lean'] else 'resolved set'}, "
                    "--no-deps)")
                _run(pip_command() + ["--python", str(py), "install", "--no-deps", "--no-compile", "--quiet",
                                      *sources],
                     f"installing {res['plugin']} {res['version']} ({stage}) into {env}",
                     env={"PIP_CONSTRAINT": ""})  # exact pins already; a constraint cannot change them
            out = _run([str(py), "-I", "-c", _PROBE, res["plugin"]], f"probing {env}",
                       env={"PYTHONPATH": ""})
            probe = json.loads(out.strip().splitlines()[-1])
            if not probe["methods"]:
                errs = "; ".join(f"{e['name']}: {e['error']}" for e in probe["errors"]) or "none"
                raise SandboxError(f"{res['plugin']} {res['version']} registers no method in its environment "
                                   f"(plugin load errors: {errs})")
            hello = worker_hello(py)
            manifest = {
                "plugin": res["plugin"], "version": res["version"], "key": res["key"],
                "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "python": res["python"], "path": str(target), "interpreter": str(py),
                "sources": res["sources"], "local": res["local"],
                "requirements": [f"{i['name']}=={i['version']}" for i in res["items"]],
                "lean": res["lean"],
                "stack": probe["stack"], "methods": probe["methods"], "worker": hello,
                "build_seconds": round(time.perf_counter() - t0, 2),
            }
            tmp = target / (MANIFEST + ".tmp")
            tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True))
            os.replace(tmp, manifest_path)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
    log(f"built {target} in {manifest['build_seconds']:.1f} s: numpy {hello['versions'].get('numpy')}, "
        f"methods {', '.join(m['name'] for m in manifest['methods'])}")
    return manifest


def worker_hello(python: Path, timeout_s: float = 120.0) -> Dict[str, Any]:
    """Start ``python -m causalarena.worker`` in an environment and return its ``hello``.

    Raises:
        SandboxError: the worker did not start or answer.
    """
    from causalarena.isolation import WorkerLaunch
    from causalarena.runner import WorkerError, WorkerHandle

    w = WorkerHandle(launch=WorkerLaunch(argv=(str(python),), env=ISOLATED_ENV), startup_timeout_s=timeout_s)
    try:
        return dict(w.start())
    except WorkerError as exc:
        raise SandboxError(f"the worker does not start in {python}: {exc}") from None
    finally:
        w.close()


#: environment of a sandboxed worker: nothing from the main environment leaks in
ISOLATED_ENV = {"PYTHONPATH": "", "PYTHONNOUSERSITE": "1", "PYTHONSAFEPATH": "1"}


# -- listing and pruning --------------------------------------------------------------
def read_manifest(env_dir: Path) -> Dict[str, Any]:
    with open(env_dir / MANIFEST) as fh:
        return json.load(fh)


def list_envs(root: Optional[Path] = None) -> List[Dict[str, Any]]:
    """Manifests of every complete environment, newest first per plugin.

    An environment whose interpreter disappeared (its base Python was
    removed) is listed with ``"broken": "<reason>"``.
    """
    base = (root or sandbox_root()) / "venv"
    out: List[Dict[str, Any]] = []
    if not base.is_dir():
        return out
    for d in sorted(base.iterdir()):
        if not d.is_dir() or not (d / MANIFEST).is_file():
            continue
        try:
            m = read_manifest(d)
        except (OSError, ValueError) as exc:
            out.append({"plugin": d.name, "version": "?", "key": "?", "path": str(d), "created": "",
                        "methods": [], "broken": f"unreadable manifest: {exc}"})
            continue
        m["path"] = str(d)
        py = env_python(d / "env")
        if not py.exists():
            m["broken"] = f"interpreter {py} is missing"
        out.append(m)
    out.sort(key=lambda m: (m.get("plugin", ""), m.get("created", "")), reverse=True)
    return out


def find_env(distribution: str, version: Optional[str] = None, root: Optional[Path] = None,
             include_broken: bool = False) -> Optional[Dict[str, Any]]:
    """The newest complete environment of a plugin distribution (and version); unbroken unless asked."""
    want = normalise(distribution)
    for m in list_envs(root):
        if m.get("plugin") == want and (include_broken or not m.get("broken")) \
                and (not version or m.get("version") == version):
            return m
    return None


def dir_size_mb(path: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total / 1e6


def prune(*, everything: bool = False, dry_run: bool = False, root: Optional[Path] = None,
          keep: Sequence[str] = ()) -> List[Tuple[Path, str]]:
    """Remove stale environments; return ``(path, reason)`` for each.

    Stale: an incomplete build (no manifest), a broken interpreter, or an
    older environment of a plugin that has a newer one. ``everything``
    removes all; ``keep`` lists keys never removed.
    """
    base = (root or sandbox_root()) / "venv"
    if not base.is_dir():
        return []
    removed: List[Tuple[Path, str]] = []
    newest: Dict[str, str] = {}
    for m in list_envs(root):  # newest first per plugin
        if m.get("broken"):
            removed.append((Path(m["path"]), m["broken"]))
        elif everything:
            removed.append((Path(m["path"]), "--all"))
        elif m["plugin"] in newest:
            removed.append((Path(m["path"]), f"superseded by {newest[m['plugin']]}"))
        else:
            newest[m["plugin"]] = f"{m['plugin']}-{m['version']}-{m['key']}"
    for d in base.iterdir():
        if d.is_dir() and not (d / MANIFEST).exists():
            removed.append((d, "incomplete build"))
        elif d.name.endswith(".lock") and not (base / d.name[:-5]).exists():
            removed.append((d, "stale lock"))
    removed = [(p, why) for p, why in removed if not any(p.name.endswith(k) for k in keep)]
    for p, _ in list(removed):
        lock = p.parent / (p.name + ".lock")
        if p.is_dir() and lock.exists() and all(lock != q for q, _ in removed):
            removed.append((lock, f"lock of {p.name}"))
    if not dry_run:
        for p, _ in removed:
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    p.unlink()
                except OSError:
                    pass
    return removed
