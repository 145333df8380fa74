"""Shared by the docker tests: an engine, or a skip — or a failure where CI requires one."""

from __future__ import annotations

import os

import pytest


def engine_or_skip() -> None:
    """Skip with the reason where no Docker engine answers; fail instead under ``CAUSALARENA_REQUIRE_DOCKER=1``."""
    from arena_sandbox.docker import DockerBackend

    reason = DockerBackend().available()
    if reason is None:
        return
    if os.environ.get("CAUSALARENA_REQUIRE_DOCKER") == "1":
        pytest.fail(f"CAUSALARENA_REQUIRE_DOCKER=1 but {reason}", pytrace=False)
    pytest.skip(f"no Docker engine here: {reason}")
