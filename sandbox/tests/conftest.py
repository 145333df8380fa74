"""Fixtures shared by the sandbox's test modules."""

from __future__ import annotations

import pytest
from sandbox_support import scoped_env


@pytest.fixture(scope="module")
def sandbox_dir(tmp_path_factory):
    """A fresh ``CAUSALARENA_SANDBOX_DIR`` for one test module (restored afterwards)."""
    root = tmp_path_factory.mktemp("sandbox")
    with scoped_env("CAUSALARENA_SANDBOX_DIR", str(root)):
        yield root
