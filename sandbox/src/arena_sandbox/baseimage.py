"""A Python base image made from Debian packages, never pulled.

The docker backend needs a base image with a CPython of the running
interpreter's minor version (the host builds the wheelhouse, so the image must
take the same ``cpXY`` wheels). Pulling ``python:X.Y-slim`` needs an image
registry, which many clusters and CI machines do not reach; Debian's package
archive (or a mirror of it) they usually do. So the base is made here:

1. ``debootstrap --variant=minbase --include=python3,python3-venv SUITE ROOT
   MIRROR`` — a minimal Debian of the suite whose ``python3`` is X.Y
   (:data:`DEBIAN_PYTHON`: bookworm → 3.11, trixie → 3.13, bullseye → 3.9);
2. the package caches, apt lists, documentation and CPython's own test suite
   removed (~300 MB → ~120 MB);
3. ``tar -C ROOT -c . | docker import --change … - TAG`` with tag
   ``causalarena/python:X.Y-SUITE`` (:func:`base_image_tag`).

An existing tag is reused; builds of one tag are serialised with ``flock``.
Plugin images then install into a virtualenv of their own inside the image
(:func:`arena_sandbox.docker.dockerfile`), so Debian's "externally managed"
system Python (PEP 668) is never touched.

Why our own code: no library builds a root file system from a package archive;
``debootstrap`` is Debian's own tool for it and ``docker import`` the engine's
documented way to turn a root file system into an image.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, Optional

from causalarena.isolation import IsolationError

#: Debian suites by the minor version of their ``python3`` (the newest suite first for a version)
DEBIAN_PYTHON = {"3.9": "bullseye", "3.11": "bookworm", "3.13": "trixie"}
#: mirror override (else the host's own apt source for Debian, else deb.debian.org)
MIRROR_ENV = "CAUSALARENA_DEBIAN_MIRROR"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
#: removed from the root file system before import: caches and files no worker reads
_SLIM = ("var/cache/apt/archives", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/info",
         "usr/share/locale", "usr/share/lintian")

Log = Callable[[str], None]


def python_minor(version_info: Any = None) -> str:
    """``"X.Y"`` of the running (or given) interpreter."""
    v = version_info or sys.version_info
    return f"{v[0]}.{v[1]}"


def debian_suite(minor: Optional[str] = None) -> str:
    """The Debian suite whose ``python3`` is ``minor`` (default: the running interpreter's).

    Raises:
        IsolationError: no Debian release ships that minor version; the
            message lists those that do and how to choose a base yourself.
    """
    minor = minor or python_minor()
    try:
        return DEBIAN_PYTHON[minor]
    except KeyError:
        known = ", ".join(f"{v} ({s})" for v, s in sorted(DEBIAN_PYTHON.items()))
        raise IsolationError(f"no Debian release ships Python {minor} (the wheelhouse is built for this "
                             f"interpreter's minor version); Debian has {known}: run the arena under one of "
                             "those, or pass --base-image / set CAUSALARENA_DOCKER_BASE to an image with "
                             f"Python {minor}") from None


def base_image_tag(minor: Optional[str] = None, suite: Optional[str] = None) -> str:
    """``causalarena/python:X.Y-SUITE`` (e.g. ``causalarena/python:3.11-bookworm``)."""
    minor = minor or python_minor()
    return f"causalarena/python:{minor}-{suite or debian_suite(minor)}"


def host_debian_mirror(sources_dir: str = "/etc/apt") -> Optional[str]:
    """The Debian archive URI the host's apt uses, if the host is Debian (a local mirror or proxy is kept)."""
    candidates = []
    d822 = Path(sources_dir) / "sources.list.d" / "debian.sources"
    if d822.is_file():
        for block in d822.read_text(errors="replace").split("\n\n"):
            uris = re.search(r"^URIs:\s*(\S+)", block, re.M)
            suites = re.search(r"^Suites:\s*(.+)$", block, re.M)
            if uris and suites and "security" not in uris.group(1) and "-security" not in suites.group(1):
                candidates.append(uris.group(1))
    legacy = Path(sources_dir) / "sources.list"
    if legacy.is_file():
        for line in legacy.read_text(errors="replace").splitlines():
            m = re.match(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line.strip())
            if m and "security" not in m.group(1) and "debian" in m.group(1):
                candidates.append(m.group(1))
    return candidates[0] if candidates else None


def _image_present(docker: str, tag: str) -> bool:
    return subprocess.run([docker, "image", "inspect", tag], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def build_base_image(*, minor: Optional[str] = None, suite: Optional[str] = None, mirror: Optional[str] = None,
                     force: bool = False, log: Log = lambda text: None, workdir: Optional[str] = None,
                     docker: Optional[str] = None) -> Dict[str, Any]:
    """Make (or reuse) the Python base image from Debian packages; no image is pulled.

    Args:
        minor: the Python minor version (default: the running interpreter's).
        suite: the Debian suite (default: :func:`debian_suite` of ``minor``).
        mirror: the Debian archive (default: ``$CAUSALARENA_DEBIAN_MIRROR``,
            else the host's apt source, else ``deb.debian.org``).
        force: rebuild even if the tag exists.
        log: progress lines.
        workdir: where the root file system is assembled (default: a
            temporary folder; ~300 MB while building).
        docker: the docker client binary (default: on ``PATH``).

    Returns:
        ``{"tag", "reused": bool, "seconds", "size_mb", "suite", "python"}``.

    Raises:
        IsolationError: the docker client or ``debootstrap`` is missing (the
            message names the Debian package to install), not running as root
            (debootstrap needs it), no engine answers, or a step failed (its
            last output lines are in the message).
    """
    minor = minor or python_minor()
    suite = suite or debian_suite(minor)
    tag = base_image_tag(minor, suite)
    docker = docker or shutil.which("docker")
    if not docker:
        raise IsolationError("the docker client is not installed: apt-get install -y docker.io (then start dockerd)")
    t0 = time.perf_counter()
    if not force and _image_present(docker, tag):
        log(f"reusing base image {tag}")
        return {"tag": tag, "reused": True, "seconds": round(time.perf_counter() - t0, 2),
                "size_mb": image_size_mb(docker, tag), "suite": suite, "python": minor}
    debootstrap = shutil.which("debootstrap") or next(
        (p for p in ("/usr/sbin/debootstrap", "/sbin/debootstrap") if os.path.exists(p)), None)
    if not debootstrap:
        raise IsolationError(f"building the base image {tag} needs debootstrap, which is not installed: "
                             "apt-get install -y debootstrap (or pass --base-image / set CAUSALARENA_DOCKER_BASE "
                             "to a Python image already on this engine)")
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise IsolationError(f"building the base image {tag} runs debootstrap, which needs root: run "
                             "`sudo arena sandbox base-image` once (plugin images then build as this user)")
    info = subprocess.run([docker, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True)
    if info.returncode != 0:
        raise IsolationError(f"no Docker engine answers ({(info.stderr or info.stdout).strip()[:200]}); start it: "
                             "dockerd > /tmp/dockerd.log 2>&1 &")
    mirror = mirror or os.environ.get(MIRROR_ENV) or host_debian_mirror() or DEFAULT_MIRROR
    from .envs import _Lock

    # one lock per engine host, not per sandbox folder: two test sessions must not debootstrap the same tag twice
    lock_dir = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "causalarena" / "locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    with _Lock(lock_dir / (tag.replace("/", "_").replace(":", "_") + ".lock")):
        if not force and _image_present(docker, tag):  # another process built it while we waited
            log(f"reusing base image {tag}")
            return {"tag": tag, "reused": True, "seconds": round(time.perf_counter() - t0, 2),
                    "size_mb": image_size_mb(docker, tag), "suite": suite, "python": minor}
        with tempfile.TemporaryDirectory(prefix="arena-base-", dir=workdir) as tmp:
            root = Path(tmp) / "root"
            log(f"debootstrap {suite} (python3 {minor}) from {mirror} into {root}")
            _step([debootstrap, "--variant=minbase", "--include=python3,python3-venv", suite, str(root), mirror],
                  f"debootstrap {suite} from {mirror}")
            found = subprocess.run(["chroot", str(root), "python3", "-c",
                                    "import sys; print('%d.%d' % sys.version_info[:2])"],
                                   capture_output=True, text=True)
            if found.returncode == 0 and found.stdout.strip() != minor:
                raise IsolationError(f"Debian {suite} ships python3 {found.stdout.strip()}, not {minor}: pass the "
                                     "suite that has it")
            for rel in _SLIM:
                target = root / rel
                if target.is_dir():
                    for child in target.iterdir():
                        if child.is_dir() and not child.is_symlink():
                            shutil.rmtree(child, ignore_errors=True)
                        elif child.name != "lock":
                            child.unlink(missing_ok=True)
            shutil.rmtree(root / f"usr/lib/python{minor}/test", ignore_errors=True)
            log(f"importing {root} as {tag}")
            changes = ["ENV LANG=C.UTF-8", 'CMD ["/usr/bin/python3"]',
                       f"LABEL org.causalarena.base=debian-{suite} org.causalarena.python={minor} "
                       f"org.causalarena.mirror={mirror}"]
            tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
            argv = [docker, "import", *[a for c in changes for a in ("--change", c)],
                    "--message", f"causalarena base: debootstrap --variant=minbase {suite}, python3 {minor}", "-", tag]
            imp = subprocess.run(argv, stdin=tar.stdout, capture_output=True, text=True)
            assert tar.stdout is not None
            tar.stdout.close()
            tar.wait()
            if tar.returncode != 0 or imp.returncode != 0:
                raise IsolationError(f"docker import of {tag} failed (tar exit {tar.returncode}): "
                                     f"{(imp.stderr or imp.stdout).strip()[-400:]}")
    seconds = round(time.perf_counter() - t0, 2)
    log(f"built base image {tag} in {seconds:.0f} s")
    return {"tag": tag, "reused": False, "seconds": seconds, "size_mb": image_size_mb(docker, tag),
            "suite": suite, "python": minor}


def image_size_mb(docker: str, tag: str) -> Optional[float]:
    """The image's size in MB as the engine reports it (None if it cannot say)."""
    out = subprocess.run([docker, "image", "inspect", "--format", "{{.Size}}", tag], capture_output=True, text=True)
    try:
        return round(int(out.stdout.strip()) / 1e6, 1)
    except ValueError:
        return None


def _step(argv: list, what: str) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        raise IsolationError(f"{what} failed (exit {proc.returncode}):\n{tail}")
