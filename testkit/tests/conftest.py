"""The kit's tests use the toy families of the core's own tests (``core/tests/family_toys.py``):
one set of toys, so a toy that breaks one rule is written once for both suites."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "core" / "tests"))
