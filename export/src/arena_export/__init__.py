"""arena-export: an instance's cells as files other tools read (Parquet, JSON, CSV), and ``arena export``.

Installing this distribution adds the ``arena export`` command (entry point
``causalarena: export`` → :mod:`arena_export.plugin`, through the core's
``arena_commands`` hook; :mod:`arena_export.command`). The functions below are
its library: a release can be written and read back from Python too.

Layout written by :func:`export_instance` for one instance::

    <outdir>/<family>__<scm_id>/
        adjacency.csv               true graph, header row + index column of names, row = parent
        spec.json                   the SCM spec (only when the instance has .spec.to_json())
        <split>__rep<k>.parquet     one table per cell (split, replicate)
        factors.json                factor tags: the SCM's, per node, per edge (child's equation)
        audit.json                  the family's audit record of these tables (when it has an audit)

:func:`write_release_manifest` adds ``release.json`` at the top: generator
versions, families, instance ids, audit pass counts (never a key).

Each Parquet table has one float64 column per variable (in order), one bool
column ``mask__<var>`` per variable (True where the entry was set by an
intervention) and an int64 column ``regime`` (−1 observational, else the
index of the intervened variable). The Dataset's metadata and true adjacency
are stored in the Parquet schema metadata under the key ``causalarena``
(JSON), so :func:`read_exported_table` rebuilds the exact
:class:`~causalarena.data.Dataset`.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from causalarena.data import Dataset

__version__ = "0.1.0"

__all__ = ["ADJACENCY_CORNER", "MASK_PREFIX", "REGIME_COLUMN", "SCHEMA_KEY", "dataset_to_table", "export_instance",
           "read_adjacency_csv", "read_exported_table", "write_adjacency_csv", "write_release_manifest"]

PathLike = Union[str, Path]

MASK_PREFIX = "mask__"
REGIME_COLUMN = "regime"
SCHEMA_KEY = b"causalarena"
#: Written into the top-left cell of adjacency.csv.
ADJACENCY_CORNER = "parent"

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _json_default(obj: Any) -> Any:
    """numpy scalars and arrays as JSON values (``json.dumps(..., default=_json_default)``)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _safe(name: str) -> str:
    """A file-name-safe form of ``name`` (runs of other characters → ``_``)."""
    return _SAFE.sub("_", name).strip("_") or "_"


def _check_columns(columns: Sequence[str], where: str) -> None:
    seen = set()
    for c in columns:
        if c == REGIME_COLUMN or c.startswith(MASK_PREFIX):
            raise ValueError(
                f"{where}: variable name {c!r} clashes with the export's reserved column names "
                f"({REGIME_COLUMN!r}, {MASK_PREFIX}<var>)"
            )
        if c in seen:
            raise ValueError(f"{where}: duplicate variable name {c!r}")
        seen.add(c)


def dataset_to_table(dataset: Dataset) -> Any:
    """The (n × (2d + 1)) :class:`pyarrow.Table` of a dataset (layout in the module docstring).

    Raises:
        ValueError: a variable is named ``regime`` or ``mask__…``, or two
            variables share a name.
    """
    import pyarrow as pa

    meta = dataset.metadata
    where = f"dataset {meta.get('family', '?')}/{meta.get('scm_id', '?')}"
    _check_columns(dataset.columns, where)
    arrays: List[Any] = []
    names: List[str] = []
    for j, c in enumerate(dataset.columns):
        arrays.append(pa.array(dataset.X[:, j], type=pa.float64()))
        names.append(c)
    mask = np.asarray(dataset.intervention_mask)  # (n × d) bool: Dataset fills it when not given
    for j, c in enumerate(dataset.columns):
        arrays.append(pa.array(mask[:, j], type=pa.bool_()))
        names.append(MASK_PREFIX + c)
    arrays.append(pa.array(dataset.regime, type=pa.int64()))
    names.append(REGIME_COLUMN)
    payload = {
        "columns": list(dataset.columns),
        "metadata": dataset.metadata,
        "true_adjacency": None if dataset.true_adjacency is None
        else np.asarray(dataset.true_adjacency).tolist(),
    }
    text = json.dumps(payload, sort_keys=True, default=_json_default)
    return pa.Table.from_arrays(arrays, names=names).replace_schema_metadata({SCHEMA_KEY: text.encode()})


def write_adjacency_csv(adjacency: np.ndarray, columns: Sequence[str], path: PathLike) -> Path:
    """Write a (d × d) adjacency as CSV: header ``parent,<v1>,…``, one row per parent.

    ``A[i, j] = 1`` (row i, column j) means i → j.

    Raises:
        ValueError: shape is not (d × d) for d = len(columns).
    """
    A = np.asarray(adjacency)
    d = len(columns)
    if A.shape != (d, d):
        raise ValueError(f"adjacency has shape {A.shape}, expected {(d, d)} for columns {list(columns)}")
    p = Path(path)
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow([ADJACENCY_CORNER, *columns])
        for i, c in enumerate(columns):
            w.writerow([c, *(int(v) for v in A[i])])
    return p


def read_adjacency_csv(path: PathLike) -> Tuple[List[str], np.ndarray]:
    """Inverse of :func:`write_adjacency_csv`: ``(columns, A)`` with A (d × d) int8, row = parent.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the row names differ from the header names (row named),
            or a row has the wrong length.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"adjacency CSV not found: {p}")
    with p.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    columns = rows[0][1:]
    d = len(columns)
    A = np.zeros((d, d), dtype=np.int8)
    if len(rows) - 1 != d:
        raise ValueError(f"{p}: {len(rows) - 1} rows for {d} header names")
    for i, row in enumerate(rows[1:]):
        if len(row) != d + 1 or row[0] != columns[i]:
            raise ValueError(f"{p}: line {i + 2}: expected {d + 1} fields starting with {columns[i]!r}")
        A[i] = [int(v) for v in row[1:]]
    return columns, A


def export_instance(instance: Any, outdir: PathLike, splits: Optional[Iterable[str]] = None,
                    replicates: Optional[Iterable[int]] = None, standardise: bool = False,
                    audit: bool = True, family: Any = None) -> List[Path]:
    """Write every requested cell of ``instance`` to ``outdir`` (layout in the module docstring).

    Args:
        instance: a :class:`causalarena.family.Instance`.
        outdir: output directory (created).
        splits: default ``instance.splits``.
        replicates: default ``range(instance.n_replicates)``.
        standardise: export standardised tables; default False (raw data,
            so that users can apply their own preprocessing).
        audit: also write ``audit.json``, the audit record of the exported
            tables from ``family.audit([scm_id], splits, replicates)`` (the
            family's own gates: App. A.2 for the synthetic grid, the card
            gates for scenario cards); nothing when no ``family`` is given or
            the family has no audit (``NotImplementedError``, e.g. real tables).
        family: the :class:`~causalarena.family.Family` object the instance
            comes from (built with the options that made the instance).

    Returns:
        Paths written, in order: ``adjacency.csv``, ``spec.json`` (when the
        instance has a ``spec`` with ``to_json()``), one Parquet file per
        (split, replicate), splits outer, ``factors.json`` (factor tags:
        SCM-level, node-level and edge-level), ``audit.json`` (when audited).

    Raises:
        ValueError: a split the instance does not provide (from
            ``instance.dataset``), or reserved/duplicate variable names.
    """
    import pyarrow.parquet as pq

    splits = list(instance.splits if splits is None else splits)
    replicates = list(range(instance.n_replicates) if replicates is None else replicates)
    for s in splits:
        if s not in instance.splits:
            raise ValueError(
                f"instance {instance.family}/{instance.scm_id} has no split {s!r}; "
                f"available: {tuple(instance.splits)}"
            )
    folder = Path(outdir) / _safe(f"{instance.family}__{instance.scm_id}")
    folder.mkdir(parents=True, exist_ok=True)
    written: List[Path] = []
    columns: Optional[List[str]] = None
    for split in splits:
        for rep in replicates:
            ds = instance.dataset(split, int(rep), standardise=standardise)
            if columns is None:
                columns = list(ds.columns)
                _check_columns(columns, f"instance {instance.family}/{instance.scm_id}")
                written.append(write_adjacency_csv(instance.true_adjacency(), columns,
                                                   folder / "adjacency.csv"))
                spec = getattr(instance, "spec", None)
                if spec is not None and hasattr(spec, "to_json"):
                    text = spec.to_json()
                    if not isinstance(text, str):  # a spec whose to_json returns a dict
                        text = json.dumps(text, indent=2, sort_keys=True, default=_json_default)
                    p = folder / "spec.json"
                    p.write_text(text, encoding="utf-8")
                    written.append(p)
            p = folder / f"{_safe(split)}__rep{int(rep)}.parquet"
            pq.write_table(dataset_to_table(ds), p)
            written.append(p)
    p = folder / "factors.json"
    factors: Dict[str, Any] = {"factors": dict(getattr(instance, "factors", {}) or {})}
    spec = getattr(instance, "spec", None)
    if spec is not None and hasattr(spec, "nodes"):
        # node-level tags, and edge-level tags from the child's equation (App. A.1)
        factors["nodes"] = {n.name: dict(n.tags) for n in spec.nodes}
        factors["edges"] = [{"parent": par, "child": n.name, "mechanism": n.tags.get("mechanism"),
                             "noise": n.tags.get("noise")} for n in spec.nodes for par in n.parents]
        if hasattr(spec, "compile") and "obs_int" in splits:
            from causalarena.interventions import default_target_pool

            # the default protocol's pool (a property of the SCM, drawn from its id when the spec has none)
            pool = default_target_pool(spec.compile(), spec.id)
            factors["intervention_target_pool"] = [spec.names[i] for i in pool]
    p.write_text(json.dumps(factors, indent=2, sort_keys=True, default=_json_default), encoding="utf-8")
    written.append(p)
    record = _family_audit(family, instance, splits, replicates) if audit and family is not None else None
    if record is not None:
        p = folder / "audit.json"
        p.write_text(json.dumps(record, indent=2, sort_keys=True, default=_json_default), encoding="utf-8")
        written.append(p)
    return written


def _family_audit(family: Any, instance: Any, splits: Sequence[str], replicates: Sequence[int]) -> Optional[dict]:
    """The family's audit record of ``instance``'s exported tables, or ``None`` (the family has no audit).

    Audits replicates ``0 .. max(replicates)``.

    Raises:
        ValueError: the family's audit returned no record for the instance.
    """
    try:
        records = family.audit([instance.scm_id], list(splits), max(replicates) + 1 if replicates else 0)
    except NotImplementedError:
        return None
    for record in records:
        if record.get("scm_id") == instance.scm_id:
            return record
    raise ValueError(f"family {family.name!r}: audit returned no record for {instance.scm_id!r}")


def read_exported_table(path: PathLike) -> Dataset:
    """Read a Parquet table written by :func:`export_instance` back into a Dataset.

    Tables without the ``causalarena`` schema metadata are accepted too: the
    variables are the columns that are neither ``regime`` nor ``mask__…``
    (masks default to False, regime to −1, no true adjacency).

    Returns:
        :class:`~causalarena.data.Dataset` (n × d) equal to the exported one
        (X bit-for-bit, masks, regime, columns, metadata, true adjacency).

    Raises:
        FileNotFoundError: no such file.
        ValueError: a ``mask__<v>`` column names no variable, or a mask /
            variable column listed in the metadata is missing (named).
    """
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"exported table not found: {p}")
    table = pq.read_table(p)
    names = table.column_names
    raw_meta = (table.schema.metadata or {}).get(SCHEMA_KEY)
    payload = json.loads(raw_meta.decode()) if raw_meta else {}
    columns = payload.get("columns") or [
        c for c in names if c != REGIME_COLUMN and not c.startswith(MASK_PREFIX)
    ]
    for c in names:
        if c.startswith(MASK_PREFIX) and c[len(MASK_PREFIX):] not in columns:
            raise ValueError(f"{p}: mask column {c!r} names no variable of the table")
    missing = [c for c in columns if c not in names]
    if missing:
        raise ValueError(f"{p}: variable column(s) {missing} missing")
    n = table.num_rows
    X = np.column_stack([table.column(c).to_numpy() for c in columns]) if columns else np.zeros((n, 0))
    mask = np.zeros((n, len(columns)), dtype=bool)
    for j, c in enumerate(columns):
        if MASK_PREFIX + c in names:
            mask[:, j] = table.column(MASK_PREFIX + c).to_numpy(zero_copy_only=False)
        elif payload:
            raise ValueError(f"{p}: mask column {MASK_PREFIX + c!r} missing")
    regime = (table.column(REGIME_COLUMN).to_numpy() if REGIME_COLUMN in names
              else np.full(n, -1, dtype=np.int64))
    adj = payload.get("true_adjacency")
    return Dataset(X=X, columns=columns, intervention_mask=mask, regime=regime,
                   true_adjacency=None if adj is None else np.asarray(adj, dtype=np.int8),
                   metadata=payload.get("metadata", {}))


def write_release_manifest(outdir: PathLike, instances: Sequence[Any], command: str = "",
                           settings: Optional[dict] = None) -> Path:
    """Write ``release.json``: what the release holds and how it was made.

    Records the export ``settings`` (standardised, splits, replicates), and,
    per instance, the family, id, generator (``factors["generator"]``
    when present), release half (public/reserved/fresh) and the audit verdict
    read back from its ``audit.json``; the operator key is never written.
    """
    outdir = Path(outdir)
    entries = []
    for inst in instances:
        folder = outdir / _safe(f"{inst.family}__{inst.scm_id}")
        audit_path = folder / "audit.json"
        passed = json.loads(audit_path.read_text())["passed"] if audit_path.exists() else None
        factors = dict(getattr(inst, "factors", {}) or {})
        entries.append({"family": inst.family, "scm_id": inst.scm_id, "folder": folder.name,
                        "generator": factors.get("generator"), "release": factors.get("release"),
                        "audit_passed": passed})
    manifest = {"format": "causalarena.release/1", "command": command, **(settings or {}), "instances": entries,
                "audit_passed": sum(1 for e in entries if e["audit_passed"]),
                "generators": sorted({str(e["generator"]) for e in entries if e["generator"]})}
    p = outdir / "release.json"
    p.write_text(json.dumps(manifest, indent=2, default=_json_default), encoding="utf-8")
    return p
