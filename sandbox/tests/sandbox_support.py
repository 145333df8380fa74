"""Shared by the sandbox tests: an engine (or a skip, or a failure where CI requires one), a scoped variable."""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

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


@contextlib.contextmanager
def scoped_env(name: str, value: str) -> Iterator[None]:
    """Set the environment variable ``name`` for the block, then restore what it was (or unset it)."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old
