"""The docker backend: generated Dockerfile and run arguments (everywhere), engine use (where one answers)."""

from __future__ import annotations

import sys

import pytest

from arena_sandbox.docker import (
    CGROUP_HEADROOM_MB,
    FORWARDED_ENV,
    DockerBackend,
    default_base_image,
    dockerfile,
    image_tag,
    run_argv,
)
from causalarena.isolation import IsolationError
from causalarena.records import MethodInfo


def test_dockerfile_installs_exactly_the_wheelhouse_offline_into_a_virtualenv_and_drops_root():
    text = dockerfile("causalarena/python:3.11-bookworm",
                      ["numpy-1.26.4-cp311-none-any.whl", "arena_method_x-0.1.0-py3-none-any.whl"],
                      {"plugin": "arena-method-x", "version": "0.1.0", "key": "abcdef012345"})
    lines = text.splitlines()
    # two stages from the same base: the wheelhouse never reaches the final image
    assert [line for line in lines if line.startswith("FROM ")] == [
        "FROM causalarena/python:3.11-bookworm AS install", "FROM causalarena/python:3.11-bookworm"]
    final = lines[lines.index("FROM causalarena/python:3.11-bookworm"):]
    assert 'LABEL org.causalarena.key="abcdef012345"' in final and 'LABEL org.causalarena.plugin="arena-method-x"' in final
    install = next(line for line in lines if line.startswith("RUN "))
    # a virtualenv of python3 (Debian's system Python is externally managed, PEP 668), no index, no
    # dependency resolution, the wheels named in sorted order
    assert install == ("RUN python3 -m venv /opt/venv/arena-method-x && /opt/venv/arena-method-x/bin/python -m pip "
                       "install --no-index --no-deps --no-cache-dir --no-compile "
                       "/opt/arena-wheels/arena_method_x-0.1.0-py3-none-any.whl "
                       "/opt/arena-wheels/numpy-1.26.4-cp311-none-any.whl")
    assert "COPY --from=install /opt/venv/arena-method-x /opt/venv/arena-method-x" in final
    assert not any("arena-wheels" in line for line in final)
    env = next(line for line in final if line.startswith("ENV "))
    assert "PATH=/opt/venv/arena-method-x/bin:" in env  # `python` is the virtualenv's (Debian has only python3)
    assert final.index("USER 65534:65534") > final.index("COPY --from=install /opt/venv/arena-method-x "
                                                         "/opt/venv/arena-method-x")
    assert not any(line.startswith(("ENTRYPOINT", "CMD", "ADD http", "RUN curl", "RUN wget")) for line in lines)
    assert not any("org.causalarena.build" in line for line in lines)


def test_a_build_id_labels_the_install_stage_only():
    # a build prunes the dangling install stage carrying its own id; two parallel builds (CI's sandbox and
    # sandbox-oldstacks envs) pruned each other's stage by the shared stage label alone
    lines = dockerfile("causalarena/python:3.11-bookworm", ["a-1-py3-none-any.whl"], {"plugin": "a"},
                       build="0123abcd").splitlines()
    second = lines.index("FROM causalarena/python:3.11-bookworm")
    assert [i for i, line in enumerate(lines) if line == 'LABEL org.causalarena.build="0123abcd"'] == [3]
    assert lines[1:3] == ["FROM causalarena/python:3.11-bookworm AS install", 'LABEL org.causalarena.stage="install"'] and second > 3
    with pytest.raises(ValueError, match="no wheels"):
        dockerfile("python:3.11-slim", [], {"plugin": "x"})
    with pytest.raises(ValueError, match="must name the plugin"):
        dockerfile("python:3.11-slim", ["a.whl"], {})


def test_run_arguments_lock_the_container_down():
    argv = run_argv("causalarena/arena-method-x:0.1.0-abc", "arena-x-1", "/data/cache", memory_mb=2048, cpus=2,
                    pids_limit=128, tmpfs_mb=256)
    assert argv[:3] == ["docker", "run", "--rm"]
    assert argv[-2:] == ["causalarena/arena-method-x:0.1.0-abc", "python"]  # the runner appends -m causalarena.worker

    def value(flag):
        return argv[argv.index(flag) + 1]

    assert "-i" in argv and "--init" in argv and "--read-only" in argv
    assert value("--network") == "none"
    assert value("--cap-drop") == "ALL"
    assert value("--security-opt") == "no-new-privileges"
    assert value("--user") == "65534:65534"
    assert value("--pids-limit") == "128"
    assert value("--cpus") == "2"
    # the run's cap + the headroom (the worker's own cap acts first); no swap beyond it
    assert value("--memory") == f"{2048 + CGROUP_HEADROOM_MB}m" and value("--memory-swap") == value("--memory")
    assert value("--tmpfs") == "/tmp:rw,nosuid,nodev,size=256m"
    assert value("--mount") == "type=bind,source=/data/cache,target=/data/cache,readonly"
    assert value("--name") == "arena-x-1"
    assert value("--label") == "org.causalarena.worker=1"  # how tests and cleanup find worker containers
    envs = [argv[i + 1] for i, a in enumerate(argv) if a == "-e"]
    assert envs == [*FORWARDED_ENV, "PYTHONPATH=", "HOME=/tmp", "CAUSALARENA_WORKER_HANGUP=1"]
    assert not any(a.startswith(("--privileged", "--cap-add", "-p", "--publish", "--network=host")) for a in argv)
    # no memory cap → no memory flags; a relative dataset folder cannot be bind-mounted
    assert "--memory" not in run_argv("img", "n", "/d")
    with pytest.raises(ValueError, match="must be absolute"):
        run_argv("img", "n", "relative/cache")


def test_image_tag_and_base_image():
    assert image_tag("Arena_Method_X", "0.1.0+local", "abc") == "causalarena/arena-method-x:0.1.0_local-abc"
    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    from arena_sandbox.baseimage import DEBIAN_PYTHON

    # made here from Debian packages where Debian ships this minor version; python:X.Y-slim (never pulled) otherwise
    want = f"causalarena/python:{minor}-{DEBIAN_PYTHON[minor]}" if minor in DEBIAN_PYTHON else f"python:{minor}-slim"
    assert default_base_image() == want


class _FakeContainers:
    def __init__(self):
        self.killed = []

    def get(self, name):
        outer = self

        class C:
            def kill(self):
                outer.killed.append(name)

        return C()


class _FakeImages:
    def __init__(self, present):
        self.present = set(present)

    def get(self, tag):
        if tag not in self.present:
            raise LookupError(tag)
        return tag


class _FakeClient:
    def __init__(self, ping_error=None, images=()):
        self.ping_error = ping_error
        self.containers = _FakeContainers()
        self.images = _FakeImages(images)

    def ping(self):
        if self.ping_error:
            raise self.ping_error
        return True


def test_available_names_why_not():
    down = DockerBackend(client_factory=lambda: _FakeClient(ConnectionError("Connection refused")))
    assert down.available().startswith("no Docker engine answers at ")
    assert down.available().endswith("(Connection refused)")
    assert DockerBackend(client_factory=_FakeClient).available() is None


def test_launch_uses_the_prepared_image_and_kills_the_container_by_name(tmp_path):
    client = _FakeClient()
    b = DockerBackend(client_factory=lambda: client)
    m = MethodInfo(name="notears", factory="x:Y", distribution="arena-method-notears", version="0.1.0")
    with pytest.raises(IsolationError, match="no image prepared"):
        b.launch(m, cache_dir=str(tmp_path))
    b._images["notears"] = "causalarena/arena-method-notears:0.1.0-k"
    launch = b.launch(m, cache_dir=str(tmp_path), memory_mb=1000)
    argv = list(launch.argv)
    assert argv[-2:] == ["causalarena/arena-method-notears:0.1.0-k", "python"]
    assert argv[argv.index("--mount") + 1] == f"type=bind,source={tmp_path},target={tmp_path},readonly"
    assert argv[argv.index("--memory") + 1] == f"{1000 + CGROUP_HEADROOM_MB}m"
    assert launch.label == "docker:causalarena/arena-method-notears:0.1.0-k"
    name = argv[argv.index("--name") + 1]
    assert name.startswith("arena-notears-")
    launch.on_kill()
    assert client.containers.killed == [name]
    other = b.launch(m, cache_dir=str(tmp_path))
    assert list(other.argv)[list(other.argv).index("--name") + 1] != name  # one container name per worker


def test_build_without_engine_or_base_image_is_an_isolation_error(monkeypatch):
    down = DockerBackend(client_factory=lambda: _FakeClient(ConnectionError("refused")))
    with pytest.raises(IsolationError, match="no Docker engine answers"):
        down.build_image("plugins/whatever")
    import arena_sandbox.docker as mod

    monkeypatch.setattr(mod, "resolve", lambda *a, **k: {"plugin": "arena-method-x", "version": "0.1.0",
                                                          "key": "k", "items": []})
    up = DockerBackend(base_image="python:3.11-slim", client_factory=lambda: _FakeClient(images=()))
    with pytest.raises(IsolationError, match=r"base image python:3.11-slim is not present on this engine; "
                                             r"the sandbox never pulls: make the default base with "
                                             r"`arena sandbox base-image`"):
        up.build_image("plugins/whatever")


def test_a_methods_own_settings_and_the_files_they_name_reach_the_container(tmp_path):
    from arena_sandbox.docker import method_settings

    ck = tmp_path / "ck"
    ck.mkdir()
    tmp_path.chmod(0o755)  # pytest makes it 0700: unreadable to the container's user
    ck.chmod(0o755)
    environ = {"CAUSALARENA_AVICI_CHECKPOINT": str(ck), "CAUSALARENA_RESERVED_KEY": "secret",
               "CAUSALARENA_AVICIX_OTHER": "x", "HOME": "/root"}
    env, mounts = method_settings("avici", {"threshold": 0.5, "data": str(tmp_path), "rel": "relative/x",
                                            "missing": "/no/such/path"}, environ)
    assert env == {"CAUSALARENA_AVICI_CHECKPOINT": str(ck)}  # never the reserved key, never another method's
    # the folders holding what they name (tmp_path holds ck; tmp_path's parent holds tmp_path)
    assert mounts == [str(tmp_path.parent)]
    argv = run_argv("img", "n", "/data/cache", env=env, mounts=mounts)
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--mount"]
    assert binds == ["type=bind,source=/data/cache,target=/data/cache,readonly",
                     *[f"type=bind,source={p},target={p},readonly" for p in mounts]]
    assert f"CAUSALARENA_AVICI_CHECKPOINT={ck}" in argv and not any("RESERVED" in a for a in argv)
    # a folder the container's user cannot read is an isolation error naming the fix, not a PermissionError inside
    ck.chmod(0o700)
    from causalarena.isolation import IsolationError

    with pytest.raises(IsolationError, match=r"method 'avici': .*/ck \(mode drwx------\) is not readable by the "
                                             r"container's user 65534:65534: `chmod -R a\+rX "):
        method_settings("avici", {}, environ)
