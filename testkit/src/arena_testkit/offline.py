"""Run code in a fresh interpreter with the network refused.

A family that reads shipped files (package data of another distribution) must
never download at run time; its test builds every table under
:func:`run_offline` and asserts that ``attempts`` stayed empty. Used by the
bnlearn, chambers and gene-regulatory families' tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Mapping, Optional

__all__ = ["OFFLINE_PRELUDE", "run_offline"]

#: prepended to the code: every socket connection or name lookup raises ``OSError`` and is appended
#: (its arguments, 200 characters) to the list ``attempts`` the code can report
OFFLINE_PRELUDE = r"""
import socket
attempts = []
def _refuse(*args, **kwargs):
    attempts.append(repr(args)[:200])
    raise OSError("network access attempted")
socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


def run_offline(code: str, *, timeout: float = 300, env: Optional[Mapping[str, str]] = None,
                extra_path: str = "") -> "subprocess.CompletedProcess[str]":
    """Run :data:`OFFLINE_PRELUDE` + ``code`` with ``python -c`` in a new process.

    The child sees this process's ``sys.path`` (plus ``extra_path`` first), so the
    distributions under test import as here; a fresh interpreter, so nothing this
    process already imported hides an import the code makes.

    Args:
        code: Python source; the list ``attempts`` (refused network calls) is defined.
        timeout: seconds before ``subprocess.TimeoutExpired``.
        env: extra environment variables.
        extra_path: a folder put first on the child's ``PYTHONPATH`` (e.g. stand-in packages).

    Returns:
        The completed process (text stdout / stderr; the caller asserts on them).
    """
    path = os.pathsep.join(([extra_path] if extra_path else []) + [p for p in sys.path if p])
    return subprocess.run([sys.executable, "-c", OFFLINE_PRELUDE + code], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=path, **(env or {})))
