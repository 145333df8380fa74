"""The Debian-made base image: suite choice, mirror discovery, clear errors (no engine needed)."""

from __future__ import annotations

import pytest

from arena_sandbox import baseimage
from arena_sandbox.baseimage import base_image_tag, build_base_image, debian_suite, host_debian_mirror
from causalarena.isolation import IsolationError


def test_suite_and_tag_follow_the_python_minor_version():
    assert debian_suite("3.11") == "bookworm" and debian_suite("3.13") == "trixie" and debian_suite("3.9") == "bullseye"
    assert base_image_tag("3.11") == "causalarena/python:3.11-bookworm"
    assert base_image_tag("3.13", "trixie") == "causalarena/python:3.13-trixie"
    with pytest.raises(IsolationError, match=r"no Debian release ships Python 3.12 .*Debian has 3.11 \(bookworm\), "
                                             r"3.13 \(trixie\), 3.9 \(bullseye\).*--base-image"):
        debian_suite("3.12")


def test_the_hosts_debian_mirror_is_reused(tmp_path):
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\nComponents: main\n\n"
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n")
    assert host_debian_mirror(str(tmp_path)) == "http://mirror.example/debian"  # the security archive is skipped
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "sources.list").write_text("# comment\ndeb [arch=amd64] http://ftp.example/debian bookworm main\n")
    assert host_debian_mirror(str(legacy)) == "http://ftp.example/debian"
    assert host_debian_mirror(str(tmp_path / "nothing")) is None


def test_missing_tools_are_named_with_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(baseimage.shutil, "which", lambda name: None)
    with pytest.raises(IsolationError, match=r"the docker client is not installed: apt-get install -y docker.io"):
        build_base_image()
    fake_docker = tmp_path / "docker"
    fake_docker.write_text("#!/bin/sh\nexit 1\n")  # `docker image inspect` fails: the tag is absent
    fake_docker.chmod(0o755)
    monkeypatch.setattr(baseimage.os.path, "exists", lambda p: False)  # no /usr/sbin/debootstrap either
    with pytest.raises(IsolationError, match=r"needs debootstrap, which is not installed: apt-get install -y "
                                             r"debootstrap"):
        build_base_image(docker=str(fake_docker))


def test_debootstrap_needs_root(monkeypatch, tmp_path):
    fake_docker = tmp_path / "docker"
    fake_docker.write_text("#!/bin/sh\nexit 1\n")
    fake_docker.chmod(0o755)
    monkeypatch.setattr(baseimage.shutil, "which", lambda name: "/usr/sbin/debootstrap")
    monkeypatch.setattr(baseimage.os, "geteuid", lambda: 1000)
    with pytest.raises(IsolationError, match=r"needs root: run `sudo arena sandbox base-image` once"):
        build_base_image(docker=str(fake_docker))
