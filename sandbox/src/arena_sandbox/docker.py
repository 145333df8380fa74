"""The ``docker`` isolation backend: each method plugin in its own image.

Base image
    ``causalarena/python:X.Y-SUITE``, made here from Debian packages by
    :func:`arena_sandbox.baseimage.build_base_image` (``arena sandbox
    base-image``, or the first image build when it is absent): nothing is
    ever pulled. ``CAUSALARENA_DOCKER_BASE`` / ``--base-image`` name another
    image already on the engine (its Python must be X.Y of the running
    interpreter, whose wheels the wheelhouse holds).

Image
    Built with the Docker SDK (``docker`` package) from a generated Dockerfile
    (:func:`dockerfile`) over a wheelhouse of exactly the resolved set
    (:func:`arena_sandbox.envs.resolve`, ``pip wheel --no-deps``), installed
    ``--no-index --no-deps`` into a virtualenv ``/opt/venv/<plugin>`` inside
    the image (never the system Python: Debian's is "externally managed",
    PEP 668), so the build needs no network. Tag
    ``causalarena/<plugin>:<version>-<key>``. After the build a probe in a
    locked-down container lists the plugin's methods and stack; the image
    manifest (``$CAUSALARENA_SANDBOX_DIR/docker/<plugin>-<version>-<key>.json``)
    is written last, so ``arena methods`` lists the methods of an image whose
    plugin is not installed here (sdcd on numpy 1.26 beside a numpy 2 arena).

Container (:func:`run_argv`), one per worker process
    ``docker run -i --rm --init`` with no network, a read-only root file
    system, every capability dropped, ``no-new-privileges``, an unprivileged
    user (65534), memory (= swap, so no swap), CPU and PID limits, a small
    ``/tmp`` tmpfs, and the runner's dataset folder bind-mounted **read-only
    at the same path**, so the worker protocol's ``dataset_path`` needs no
    translation. The worker protocol runs over the client's stdin/stdout.
    The container's memory cap is the run's cap plus :data:`CGROUP_HEADROOM_MB`:
    the worker enforces the run's cap itself (polling and an rlimit, as in
    every backend, so a method over the cap gets the same status here as in a
    virtualenv); the cgroup is the backstop nothing in the container escapes.
    Killing the client does not stop a container, so ``on_kill`` kills it by
    name through the SDK.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from causalarena.isolation import IsolationError, WorkerLaunch
from causalarena.worker import HANGUP_ENV

from .envs import _PROBE, SandboxError, _run, installed_source, normalise, pip_command, resolve, sandbox_root
from .venv import _installed_here, default_constraints

#: environment variables forwarded from the runner into the container (values from the client's env)
FORWARDED_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "CAUSALARENA_WORKER_MEMORY_MB")
UNPRIVILEGED_USER = "65534:65534"
DEFAULT_PIDS = 512
DEFAULT_TMPFS_MB = 1024
#: the container's cgroup cap above the run's memory cap: the worker's own cap acts first (same status as
#: in a virtualenv), the cgroup is the backstop (the interpreter, tini and the client's pipes fit in it)
CGROUP_HEADROOM_MB = 256
#: where a plugin's virtualenv lives inside its image
VENV_ROOT = "/opt/venv"


def default_base_image() -> str:
    """``causalarena/python:X.Y-SUITE`` for the running interpreter, made from Debian packages.

    Where no Debian release ships the running minor version, ``python:X.Y-slim``
    (which then must be on the engine already: nothing is pulled).
    """
    from .baseimage import base_image_tag

    try:
        return base_image_tag()
    except IsolationError:
        return f"python:{sys.version_info[0]}.{sys.version_info[1]}-slim"


def image_tag(plugin: str, version: str, key: str) -> str:
    """``causalarena/<plugin>:<version>-<key>`` (Docker tags allow ``[A-Za-z0-9_.-]``)."""
    return f"causalarena/{normalise(plugin)}:{version.replace('+', '_')}-{key}"


def venv_path(plugin: str) -> str:
    """The plugin's virtualenv inside its image, ``/opt/venv/<plugin>``."""
    return f"{VENV_ROOT}/{normalise(plugin)}"


def dockerfile(base_image: str, wheels: Sequence[str], labels: Mapping[str, str], build: str = "") -> str:
    """The Dockerfile of a plugin image.

    Args:
        base_image: a Python image present locally (never pulled).
        wheels: file names in the context's ``wheels/`` folder — exactly the
            resolved set; installed ``--no-index --no-deps`` (no network) into
            the virtualenv :func:`venv_path` of ``labels["plugin"]``.
        labels: image labels (plugin, version, key), prefixed ``org.causalarena.``.
        build: an id of this build, a label of the install stage only, so that the
            build prunes its own stage image and never another build's (two builds
            in parallel, e.g. two test sessions, pruned each other's stage mid-build:
            "invalid from flag value install: No such image").

    Returns:
        The Dockerfile text. The image has no entry point: the runner runs
        ``python -m causalarena.worker`` in it (``python`` is the virtualenv's:
        it is first on ``PATH``; Debian's base has only ``python3``).

    Raises:
        ValueError: no wheels, or no ``plugin`` label.
    """
    if not wheels:
        raise ValueError("no wheels to install")
    if not labels.get("plugin"):
        raise ValueError("labels must name the plugin (its virtualenv is /opt/venv/<plugin>)")
    env = venv_path(labels["plugin"])
    path = f"PATH={env}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    lines = [
        "# generated by arena-sandbox: one method plugin, its resolved requirements, the core's worker",
        # two stages: the wheelhouse stays in the first, so the image does not carry it in a COPY layer
        f"FROM {base_image} AS install",
        'LABEL org.causalarena.stage="install"',  # the stage image is pruned after the build
        *([f'LABEL org.causalarena.build="{build}"'] if build else []),
        "ENV PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1",
        "COPY wheels/ /opt/arena-wheels/",
        # a virtualenv of the image's python3, not the system Python (PEP 668 "externally managed")
        f"RUN python3 -m venv {env} && {env}/bin/python -m pip install --no-index --no-deps --no-cache-dir "
        "--no-compile " + " ".join(f"/opt/arena-wheels/{w}" for w in sorted(wheels)),
        f"FROM {base_image}",
        *[f'LABEL org.causalarena.{k}="{v}"' for k, v in sorted(labels.items())],
        f"COPY --from=install {env} {env}",
        f"ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VIRTUAL_ENV={env} {path}",
        f"USER {UNPRIVILEGED_USER}",
        "WORKDIR /tmp",
        "",
    ]
    return "\n".join(lines)


def method_settings(method_name: str, params: Mapping[str, Any],
                    environ: Optional[Mapping[str, str]] = None) -> "tuple[Dict[str, str], List[str]]":
    """What of the host a method's settings name: its own variables and the files they point at.

    A method reads its settings from its parameters and from variables
    ``CAUSALARENA_<METHOD>_*`` (e.g. ``CAUSALARENA_AVICI_CHECKPOINT``). Those
    variables are forwarded into the container (no other host variable is:
    ``CAUSALARENA_RESERVED_KEY`` never enters one), and every parameter or
    forwarded value that is an existing absolute path is bind-mounted
    read-only at the same path together with the folder that holds it (a
    checkpoint's loader may read beside it: avici reads ``kwargs.json`` in the
    checkpoint folder's parent), so such settings work unchanged.

    Returns:
        ``({name: value}, [absolute paths])``, both sorted.

    Raises:
        IsolationError: a named path the container's unprivileged user
            could not read (the method's cells become ``env_error`` with the
            ``chmod`` that fixes it, instead of a PermissionError inside).
    """
    environ = os.environ if environ is None else environ
    prefix = f"CAUSALARENA_{method_name.upper().replace('-', '_')}_"
    env = {k: v for k, v in sorted(environ.items()) if k.startswith(prefix)}
    paths = set()
    for value in [*env.values(), *[v for v in params.values() if isinstance(v, str)]]:
        if os.path.isabs(value) and os.path.exists(value):
            real = os.path.realpath(value)
            _readable_by_container(real, method_name)
            parent = os.path.dirname(real)
            paths.add(parent if parent not in ("/", "") else real)
    # a folder inside another mounted one needs no mount of its own
    paths = {p for p in paths if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in paths)}
    return env, sorted(paths)


def _readable_by_container(path: str, method_name: str) -> None:
    """Raise IsolationError when the container's user (65534, "others" to the host) cannot read ``path``."""
    import stat

    mode = os.stat(path).st_mode
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    if mode & need != need:
        raise IsolationError(f"method {method_name!r}: {path} (mode {stat.filemode(mode)}) is not readable by the "
                             f"container's user {UNPRIVILEGED_USER}: `chmod -R a+rX {path}` or point the setting "
                             "at a readable copy")


def run_argv(image: str, name: str, cache_dir: str, *, memory_mb: Optional[float] = None,
             cpus: Optional[float] = None, pids_limit: int = DEFAULT_PIDS, tmpfs_mb: int = DEFAULT_TMPFS_MB,
             docker: str = "docker", headroom_mb: int = CGROUP_HEADROOM_MB,
             env: Optional[Mapping[str, str]] = None, mounts: Sequence[str] = ()) -> List[str]:
    """``docker run …`` arguments that start one sandboxed worker interpreter.

    The runner appends ``-m causalarena.worker [--memory-mb M]``.

    Args:
        image: the plugin image tag.
        name: a unique container name (``on_kill`` kills it by name).
        cache_dir: the dataset folder, mounted read-only at the same path.
        memory_mb: the run's memory cap (MB); the container's cgroup gets
            ``memory_mb + headroom_mb`` (``--memory`` = ``--memory-swap``: no
            swap); None → no limit.
        cpus: CPU limit (default: the host's CPU count).
        pids_limit: maximum processes/threads in the container.
        tmpfs_mb: size of the writable ``/tmp``.
        headroom_mb: see :data:`CGROUP_HEADROOM_MB`.
        env: extra variables set in the container (:func:`method_settings`).
        mounts: extra absolute host paths, bind-mounted read-only at the same path.

    Raises:
        ValueError: a relative ``cache_dir`` (a bind mount needs an absolute path).
    """
    if not os.path.isabs(cache_dir):
        raise ValueError(f"cache_dir must be absolute, got {cache_dir!r}")
    argv = [docker, "run", "--rm", "-i", "--init", "--name", name,
            "--network", "none", "--read-only", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges", "--user", UNPRIVILEGED_USER,
            "--pids-limit", str(int(pids_limit)),
            "--cpus", f"{float(cpus if cpus is not None else (os.cpu_count() or 1)):g}",
            "--tmpfs", f"/tmp:rw,nosuid,nodev,size={int(tmpfs_mb)}m",
            "--mount", f"type=bind,source={cache_dir},target={cache_dir},readonly",
            "--label", "org.causalarena.worker=1"]
    if memory_mb:
        cap = int(memory_mb) + int(headroom_mb)
        argv += ["--memory", f"{cap}m", "--memory-swap", f"{cap}m"]
    for path in mounts:
        if path != cache_dir:
            argv += ["--mount", f"type=bind,source={path},target={path},readonly"]
    for var in FORWARDED_ENV:
        argv += ["-e", var]  # `-e NAME` forwards the client's value (absent → unset)
    for key, value in sorted((env or {}).items()):
        argv += ["-e", f"{key}={value}"]
    # the worker's parent in a container is its init, which outlives a killed runner: the worker also watches
    # its protocol pipe for the hang-up (causalarena.worker, "Processes the method starts")
    argv += ["-e", "PYTHONPATH=", "-e", "HOME=/tmp", "-e", f"{HANGUP_ENV}=1", image, "python"]
    return argv


def image_manifest_dir() -> Path:
    """``$CAUSALARENA_SANDBOX_DIR/docker``: one JSON manifest per built image."""
    return sandbox_root() / "docker"


def list_images(root: Optional[Path] = None) -> List[Dict[str, Any]]:
    """Manifests of built plugin images, newest first per plugin (the engine is not asked)."""
    base = root or image_manifest_dir()
    out: List[Dict[str, Any]] = []
    if not base.is_dir():
        return out
    for p in sorted(base.glob("*.json")):
        try:
            out.append(json.loads(p.read_text()))
        except (OSError, ValueError):
            continue
    out.sort(key=lambda m: (m.get("plugin", ""), m.get("created", "")), reverse=True)
    return out


def find_image(distribution: str, version: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The newest image manifest of a plugin distribution (and version), or None."""
    want = normalise(distribution)
    for m in list_images():
        if m.get("plugin") == want and (not version or m.get("version") == version):
            return m
    return None


class DockerBackend:
    """Runs a method's worker in a container of its plugin's image (see module doc)."""

    name = "docker"

    def __init__(self, base_image: Optional[str] = None, constraints: Optional[Sequence[str]] = None,
                 client_factory: Optional[Callable[[], Any]] = None) -> None:
        self.base_image = base_image or os.environ.get("CAUSALARENA_DOCKER_BASE") or default_base_image()
        self.constraints = list(constraints if constraints is not None else default_constraints())
        self._client_factory = client_factory
        self._client: Any = None
        self._images: Dict[str, str] = {}

    # -- engine ---------------------------------------------------------------
    def client(self) -> Any:
        if self._client is None:
            if self._client_factory is not None:
                self._client = self._client_factory()
            else:
                import docker  # the Docker SDK

                self._client = docker.from_env(timeout=10)
        return self._client

    def available(self) -> Optional[str]:
        """None when an engine answers ``ping``; otherwise why not (no SDK, no engine …)."""
        try:
            self.client().ping()
        except ImportError:
            return "the Docker SDK is not installed (pip install docker)"
        except Exception as exc:  # noqa: BLE001 - any failure means: no engine here
            where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
            text = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            return f"no Docker engine answers at {where} ({text})"
        return None

    # -- images ----------------------------------------------------------------
    def ensure_base_image(self, log: Callable[[str], None] = lambda t: None) -> None:
        """Make the default base image from Debian packages when it is absent.

        Raises:
            IsolationError: a base image named by the user is absent (never
                pulled), or the default one cannot be made here (the message
                says why: no debootstrap, not root, …).
        """
        from .baseimage import build_base_image

        if _image_exists(self.client(), self.base_image):
            return
        if self.base_image != default_base_image() or not self.base_image.startswith("causalarena/"):
            raise IsolationError(f"base image {self.base_image} is not present on this engine; the sandbox never "
                                 "pulls: make the default base with `arena sandbox base-image`, or load that "
                                 "image (docker load / docker import) first")
        log(f"base image {self.base_image} is absent: making it from Debian packages (once)")
        build_base_image(log=log)

    def build_image(self, plugin_source: str, log: Callable[[str], None] = lambda t: None,
                    force: bool = False) -> str:
        """Build (or reuse) the image of a plugin; return its tag.

        The image manifest (:func:`image_manifest_dir`) is written once the
        probe in a container listed the plugin's methods; an image whose
        manifest is missing (an interrupted build) is rebuilt.

        Raises:
            IsolationError: no engine, no base image and none can be made,
                the wheelhouse or image build failed, or the plugin registers
                no method inside its image.
        """
        reason = self.available()
        if reason:
            raise IsolationError(reason)
        try:
            res = resolve(plugin_source, constraints=self.constraints)
        except SandboxError as exc:
            raise IsolationError(str(exc)) from None
        tag = image_tag(res["plugin"], res["version"], res["key"])
        client = self.client()
        manifest_path = image_manifest_dir() / f"{res['plugin']}-{res['version']}-{res['key']}.json"
        if not force and manifest_path.is_file() and _image_exists(client, tag):
            log(f"reusing image {tag}")
            return tag
        self.ensure_base_image(log)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="arena-docker-") as ctx:
            wheels = Path(ctx) / "wheels"
            wheels.mkdir()
            log(f"wheelhouse of {len(res['items'])} distributions")
            try:
                _run(pip_command() + ["wheel", "--no-deps", "--quiet", "-w", str(wheels),
                                      *[i["source"] for i in res["items"]]], "building the wheelhouse",
                     env={"PIP_CONSTRAINT": ""})
            except SandboxError as exc:
                raise IsolationError(str(exc)) from None
            names = sorted(p.name for p in wheels.iterdir() if p.suffix == ".whl")
            labels = {"plugin": res["plugin"], "version": res["version"], "key": res["key"]}
            build = uuid.uuid4().hex
            (Path(ctx) / "Dockerfile").write_text(dockerfile(self.base_image, names, labels, build=build))
            log(f"building {tag} from {self.base_image}")
            try:
                client.images.build(path=ctx, tag=tag, pull=False, rm=True, forcerm=True, network_mode="none")
            except Exception as exc:  # noqa: BLE001 - docker.errors.BuildError / APIError
                raise IsolationError(f"building image {tag} failed: {_build_log_tail(exc)}") from None
            finally:
                try:  # this build's install stage (wheelhouse + venv) is left dangling by the classic builder
                    client.images.prune(filters={"dangling": True, "label": ["org.causalarena.stage=install",
                                                                           f"org.causalarena.build={build}"]})
                except Exception:  # noqa: BLE001 - pruning is housekeeping
                    pass
        probe = self._probe(tag, res["plugin"])
        if not probe["methods"]:
            errs = "; ".join(f"{e['name']}: {e['error']}" for e in probe["errors"]) or "none"
            raise IsolationError(f"{res['plugin']} {res['version']} registers no method in its image {tag} "
                                 f"(plugin load errors: {errs})")
        manifest = {
            "plugin": res["plugin"], "version": res["version"], "key": res["key"], "tag": tag,
            "base_image": self.base_image, "python": res["python"],
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "sources": res["sources"], "requirements": [f"{i['name']}=={i['version']}" for i in res["items"]],
            "lean": res["lean"], "stack": probe["stack"], "methods": probe["methods"],
            "build_seconds": round(time.perf_counter() - t0, 2), "size_mb": _image_size_mb(client, tag),
        }
        manifest_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=list))
        os.replace(tmp, manifest_path)
        log(f"built {tag} in {manifest['build_seconds']:.0f} s ({manifest['size_mb']} MB): "
            f"numpy {probe['stack'].get('numpy')}, methods {', '.join(m['name'] for m in probe['methods'])}")
        return tag

    def _probe(self, tag: str, plugin: str) -> Dict[str, Any]:
        """Methods, plugin load errors and the installed stack, from a locked-down container of ``tag``."""
        argv = [shutil.which("docker") or "docker", "run", "--rm", "--network", "none", "--read-only",
                "--cap-drop", "ALL", "--user", UNPRIVILEGED_USER, "-e", "HOME=/tmp", "--tmpfs", "/tmp",
                tag, "python", "-I", "-c", _PROBE, plugin]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise IsolationError(f"probing image {tag} failed (exit {proc.returncode}): {proc.stderr.strip()[-400:]}")
        return dict(json.loads(proc.stdout.strip().splitlines()[-1]))

    def prepare(self, method: Any, log: Callable[[str], None] = lambda t: None) -> None:
        """Build (or find) the image of the method's plugin once, before the grid.

        A plugin installed here is built from its installed source; one known
        from a virtualenv sandbox from that sandbox's plugin source; one known
        only from an image manifest uses that image.

        Raises:
            IsolationError: no image and no source to build one from, or the
                build failed.
        """
        dist = method.distribution
        if getattr(method, "environment", "") not in ("venv", "docker") and _installed_here(dist):
            self._images[method.name] = self.build_image(installed_source(dist), log)
            return
        from .envs import find_env

        venv_manifest = find_env(dist, method.version or None)
        source = (venv_manifest or {}).get("sources", {}).get("plugin")
        if source and (os.path.exists(source) or not os.path.isabs(source)):
            self._images[method.name] = self.build_image(source, log)
            return
        image = find_image(dist, method.version or None)
        if image is not None and _image_exists(self.client(), image["tag"]):
            self._images[method.name] = image["tag"]
            return
        raise IsolationError(f"method {method.name!r}: no image of {dist} {method.version} on this engine and no "
                             f"source to build one from: `arena sandbox build --backend docker PATH|REQUIREMENT`")

    def launch(self, method: Any, cache_dir: Optional[str] = None, memory_mb: Optional[float] = None) -> WorkerLaunch:
        """``docker run`` arguments for one worker, and a kill-by-name hook."""
        tag = self._images.get(method.name)
        if tag is None:
            raise IsolationError(f"method {method.name!r}: no image prepared (run with --isolation docker)")
        name = f"arena-{normalise(method.name)}-{uuid.uuid4().hex[:10]}"
        env, mounts = method_settings(method.name, dict(getattr(method, "params", {}) or {}))
        argv = run_argv(tag, name, os.path.abspath(cache_dir or tempfile.gettempdir()), memory_mb=memory_mb,
                        env=env, mounts=mounts)
        argv[0] = shutil.which("docker") or "docker"
        return WorkerLaunch(argv=tuple(argv), label=f"docker:{tag}", on_kill=lambda: self._kill(name),
                            memory_probe=ContainerMemory(name, self.client), signal_exit_codes=True)

    def _kill(self, name: str) -> None:
        try:
            self.client().containers.get(name).kill()
        except Exception:  # noqa: BLE001 - already gone (--rm)
            pass


class ContainerMemory:
    """The resident memory (MB) of a running container, read from its cgroup on the host.

    The runner's memory cap polls the worker every 0.1 s; the engine's stats
    API answers in about a second, so the cgroup's ``memory.stat`` is read
    directly: ``total_rss`` (cgroup v1) or ``anon`` (v2) — anonymous memory,
    what the local backend's RSS poll measures, without the page cache of the
    read-only dataset mount. Paths for the ``cgroupfs`` and ``systemd`` cgroup
    drivers. None until the container exists (or where no cgroup file is
    readable: the runner then polls the client's process tree, and the
    container's own cap remains the backstop).
    """

    ROOTS = ("/sys/fs/cgroup/memory/docker/{id}", "/sys/fs/cgroup/memory/system.slice/docker-{id}.scope",
             "/sys/fs/cgroup/docker/{id}", "/sys/fs/cgroup/system.slice/docker-{id}.scope")

    def __init__(self, name: str, client: Callable[[], Any]) -> None:
        self.name = name
        self._client = client
        self._stat: Optional[str] = None

    def _find(self) -> Optional[str]:
        """The cgroup's ``memory.stat``; None while the container does not exist yet, "" when it has none here."""
        try:
            cid = self._client().containers.get(self.name).id
        except Exception:  # noqa: BLE001 - not created yet, or already gone
            return None
        for root in self.ROOTS:
            path = os.path.join(root.format(id=cid), "memory.stat")
            if os.path.exists(path):
                return path
        return ""  # the container exists but no readable cgroup file: stop asking the engine every poll

    def __call__(self) -> Optional[float]:
        if self._stat is None:
            self._stat = self._find()
        if not self._stat:
            return None
        try:
            with open(self._stat) as fh:
                fields = dict(line.split() for line in fh if line.strip())
        except (OSError, ValueError):
            return None
        value = fields.get("total_rss", fields.get("anon"))
        return int(value) / (1024.0 * 1024.0) if value is not None else None


def _image_size_mb(client: Any, tag: str) -> Optional[float]:
    try:
        return round(int(client.images.get(tag).attrs["Size"]) / 1e6, 1)
    except Exception:  # noqa: BLE001 - the engine cannot say
        return None


def _build_log_tail(exc: Exception) -> str:
    """The error and the last lines of a failed build's log (docker.errors.BuildError carries it)."""
    lines = [str(exc)]
    for chunk in list(getattr(exc, "build_log", None) or [])[-8:]:
        text = chunk.get("stream") or chunk.get("error") or "" if isinstance(chunk, dict) else str(chunk)
        if text.strip():
            lines.append(text.strip())
    return "\n".join(lines)


def _image_exists(client: Any, tag: str) -> bool:
    try:
        client.images.get(tag)
        return True
    except Exception:  # noqa: BLE001 - docker.errors.ImageNotFound
        return False


def host_summary() -> str:
    """One line on the engine situation of this host (for notes and `arena sandbox list`)."""
    client_bin = shutil.which("docker")
    reason = DockerBackend().available()
    return (f"docker client: {client_bin or 'not found'}; engine: {'answers' if reason is None else reason}; "
            f"platform {platform.machine()}")
