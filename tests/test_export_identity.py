"""Behaviour does not change across the small-core refactor (issue 11).

``arena export`` of five synthetic SCMs (one per graph family, d = 10 and 50)
and two scenario cards must give the same Parquet tables as the commit before
the refactor (``55ec368``), whose hashes are in
``fixtures/export_hashes.json`` (recorded with ``python
tests/test_export_identity.py --record`` run on a checkout of 55ec368, e.g.
``PYTHONPATH`` pointing at its ``core/src`` and ``families/*/src``).

The card entries (``semantic__*``, ``formula__*``) were re-recorded on purpose
at ``11d39fb`` (issue 12 item 10; fixture fields ``cards_commit`` and
``cards_reason``): a compiled card's columns are now a permutation drawn from
the card id, not the authored order, which listed causes first and handed the
causal order to any method whose ties fall back to the column order
(sortnregress on a standardised table). Permuting the nodes also changes the
order the sampler draws them in, so the values change too, not only the
column order (arena-cards 0.2.0, spec metadata ``card_compiler: "2"``). Only
those keys were replaced (exported with the same single-thread settings,
pyarrow 26.0.1); the synthetic entries are untouched by that change.

Three fingerprints per table. The SHA-256 of the file's bytes (compared
when pyarrow is the version that wrote the fixture — the footer names the
writer, so another pyarrow changes the bytes but not the data — and the data
is the recorded content). A content hash of every column's name, dtype and
raw values plus the schema metadata. And a sketch that any machine can
compare: the schema metadata and the non-float columns hashed exactly, the
float columns as :func:`arena_testkit.array_sketch` (sums that agree to
1e-9). The float bytes depend on the CPU class (OpenBLAS chooses its kernels
by CPU: on one AMD EPYC the default kernels give other last bits than
``OPENBLAS_CORETYPE=SkylakeX``, which reproduces the recorded content hash of
every table; measured difference ≤ 6e-14 × a column's standard deviation),
so the content hash is compared where it matches and the sketch always. The
sketches were recorded (``--record-sketch``) only for tables whose content
hash equalled the recorded one, so they describe the pre-refactor data.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "export_hashes.json"
EXPORTS = (
    ("synthetic", "er-d10-000,sf-d10-001,chain-d50-002,layered-d50-003,small_world-d10-004"),
    ("semantic", "wildfire-smoke-shelter"),
    ("formula", "barometric-pressure-reduction"),
)


def _arena() -> list:
    return [sys.executable, "-c", "from causalarena.cli import main; raise SystemExit(main())"]


#: BLAS thread counts fixed for the export: a d = 50 synthetic table's bytes depend on how many threads
#: OpenBLAS splits a matrix product over (rounding; true before the refactor too), so the fixture and
#: the check both use one thread, as every tox env does
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def export_all(out: Path) -> None:
    env = dict(os.environ, **SINGLE_THREAD)
    for family, scms in EXPORTS:
        subprocess.run(_arena() + ["export", "--family", family, "--scm", scms, "--replicates", "2",
                                   "--no-audit", "--out", str(out)], check=True, capture_output=True, env=env)


def table_fingerprints(path: Path) -> tuple:
    """One read of a Parquet table, two fingerprints: ``(content, sketch)``.

    ``content``: SHA-256 of the schema metadata and every column's name, dtype and raw values.
    ``sketch``: the metadata and non-float columns hashed exactly (``exact``), the float columns as
    :func:`arena_testkit.array_sketch` (``float``).
    """
    import numpy as np
    import pyarrow.parquet as pq

    from arena_testkit import array_sketch

    table = pq.read_table(path)
    content, exact = hashlib.sha256(), hashlib.sha256()
    for key, value in sorted((table.schema.metadata or {}).items()):
        content.update(key + b"=" + value)
        exact.update(key + b"=" + value)
    floats = []
    for name in table.column_names:
        col = table.column(name).to_numpy()
        head = f"{name}:{col.dtype}:".encode()
        content.update(head)
        content.update(col.tobytes())
        exact.update(head)
        if col.dtype.kind == "f":
            floats.append(col)
        else:
            exact.update(col.tobytes())
    values = np.column_stack(floats) if floats else np.zeros((table.num_rows, 0))
    return content.hexdigest(), {"exact": exact.hexdigest(), "float": array_sketch(values)}


def fingerprints(out: Path) -> dict:
    rows = {}
    for path in sorted(out.rglob("*.parquet")):
        rel = str(path.relative_to(out))
        content, sketch = table_fingerprints(path)
        rows[rel] = {"bytes": hashlib.sha256(path.read_bytes()).hexdigest(), "content": content, "sketch": sketch}
    for path in sorted(out.rglob("adjacency.csv")):
        rows[str(path.relative_to(out))] = {"bytes": hashlib.sha256(path.read_bytes()).hexdigest()}
    return rows


def test_export_tables_identical_to_before_refactor(tmp_path):
    import pyarrow

    from arena_testkit import assert_sketch_close

    expected = json.loads(FIXTURE.read_text())
    export_all(tmp_path)
    got = fingerprints(tmp_path)
    assert sorted(got) == sorted(expected["files"])
    same_writer = pyarrow.__version__ == expected["pyarrow"]
    for rel, want in expected["files"].items():
        if "content" not in want:  # adjacency.csv: integers written as text, the same on every machine
            assert got[rel]["bytes"] == want["bytes"], f"{rel}: file bytes changed"
            continue
        assert got[rel]["sketch"]["exact"] == want["sketch"]["exact"], f"{rel}: metadata or a non-float column changed"
        assert_sketch_close(got[rel]["sketch"]["float"], want["sketch"]["float"], where=f"{rel} float columns")
        if got[rel]["content"] == want["content"] and same_writer:  # this machine class wrote the recorded bits
            assert got[rel]["bytes"] == want["bytes"], f"{rel}: file bytes changed"


if __name__ == "__main__":  # pragma: no cover - records the fixture
    import tempfile

    import pyarrow

    if "--record-sketch" in sys.argv:  # add sketches, only where this machine gives the recorded content
        with tempfile.TemporaryDirectory() as tmp:
            export_all(Path(tmp))
            fixture = json.loads(FIXTURE.read_text())
            for rel, row in fingerprints(Path(tmp)).items():
                want = fixture["files"][rel]
                if "content" in want:
                    if row["content"] != want["content"]:
                        raise SystemExit(f"{rel}: content differs from the recorded one on this machine class "
                                         "(try OPENBLAS_CORETYPE=SkylakeX); no sketch recorded")
                    want["sketch"] = row["sketch"]
            fixture.pop("alternates", None)
            fixture.pop("alternates_note", None)
            FIXTURE.write_text(json.dumps(fixture, indent=1) + "\n")
    elif "--record" not in sys.argv:
        pytest.main([__file__])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            export_all(Path(tmp))
            FIXTURE.write_text(json.dumps({"commit": subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
                "pyarrow": pyarrow.__version__, "files": fingerprints(Path(tmp))}, indent=1) + "\n")
