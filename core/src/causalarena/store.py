"""The result store: one SQLite file (stdlib ``sqlite3``, WAL journal).

Table ``runs`` has one row per cell, keyed by
``(family, scm_id, split, replicate, method, config_hash)``; ``config_hash``
(:func:`config_hash`) covers the method parameters, standardisation, the
intervention protocol and ``n``. Every run is written in its own transaction
(``INSERT OR REPLACE``), so a runner killed at any moment leaves only whole
rows, and rerunning the same grid skips the keys in :meth:`Store.done_keys`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Union

from .records import STATUSES
from .runs import KEY_COLUMNS, Key, RunRecord, to_status

__all__ = ["COLUMNS", "KEY_COLUMNS", "Key", "RunRecord", "STATUSES", "Store", "config_hash"]

#: column name → SQL type, in table order (the attributes of :class:`~causalarena.runs.RunRecord`,
#: which documents each column and its unit).
COLUMNS = {
    "family": "TEXT NOT NULL",
    "scm_id": "TEXT NOT NULL",
    "split": "TEXT NOT NULL",
    "replicate": "INTEGER NOT NULL",
    "method": "TEXT NOT NULL",
    "config_hash": "TEXT NOT NULL",
    "status": "TEXT NOT NULL",
    "wall_seconds": "REAL",
    "fit_seconds": "REAL",
    "load_seconds": "REAL",
    "peak_rss_mb": "REAL",
    "error": "TEXT",
    "traceback": "TEXT",
    "flags": "TEXT",     # JSON list of strings
    "metrics": "TEXT",   # JSON object name -> float | null
    "params": "TEXT",    # JSON object (provenance)
    "output_kind": "TEXT",
    "n": "INTEGER",
    "d": "INTEGER",
    "seed": "INTEGER",
    "standardise": "INTEGER",
    "protocol": "TEXT",
    "python": "TEXT",
    "method_version": "TEXT",
    "started_at": "TEXT",
    "finished_at": "TEXT",
    # added with the synthetic grid (older stores get them on open, NULL in old rows)
    "n_override": "INTEGER",   # --n / a sample-size suite's n (NULL: the split's default)
    "suite": "TEXT",           # the suite this run belongs to, if any
    "varsortability": "REAL",  # of the raw table the method saw (Reisach et al. 2021)
    "r2_sortability": "REAL",  # R²-sortability of that table (Reisach et al. 2023)
    "factors": "TEXT",         # JSON object: the instance's scalar factor tags (graph, d, difficulty …)
    # added with isolated execution and load/per-graph timing (issue 5)
    "start_seconds": "REAL",   # spawn → `hello` of the worker that ran this cell (its cold start)
    "worker_id": "TEXT",       # one id per worker process: the cells one load served share it
    "worker_seq": "INTEGER",   # 1, 2, … : this cell was the k-th fit of that worker
    "isolation": "TEXT",       # none | venv:<env key> | docker:<image> — where the worker ran
}

if tuple(COLUMNS) != RunRecord.columns():  # pragma: no cover - caught by the tests at once
    raise ImportError("causalarena.store.COLUMNS and causalarena.runs.RunRecord disagree on the run columns")


def config_hash(params: Dict[str, Any], standardise: bool, protocol: str = "default",
                n: Optional[int] = None, data: Optional[str] = None,
                method_version: Optional[str] = None) -> str:
    """16-hex-digit SHA-256 of the run configuration that changes results.

    Covers the method ``params``, ``standardise``, the intervention
    ``protocol``, the row count override ``n`` and ``data``, the instance's
    fingerprint (:meth:`causalarena.family.Instance.fingerprint`), so a changed
    table or graph is a new cell, and ``method_version``
    (``"distribution==version"``), so an upgraded plugin is rerun (canonical
    JSON, sorted keys).
    """
    body: Dict[str, Any] = {"params": params, "standardise": bool(standardise), "protocol": protocol, "n": n}
    if data is not None:
        body["data"] = data
    if method_version is not None:
        body["method_version"] = method_version
    payload = json.dumps(body, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


class Store:
    """An SQLite result store; safe to share between the runner's threads.

    Args:
        readonly: open an existing store for reading only (``arena report``).
        path: database file (created with its parent directory missing →
            ``sqlite3.OperationalError``); ``":memory:"`` for tests.
    """

    def __init__(self, path: str, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        if readonly:
            # a report needs read access only: open without creating, writing or a WAL
            # index (``immutable`` also works in a read-only folder, where SQLite
            # cannot create the -shm file of a WAL database)
            from urllib.parse import quote

            if not os.path.exists(self.path):
                raise FileNotFoundError(f"no result store at {self.path}")
            for mode in ("mode=ro", "immutable=1"):  # ro reads a pending WAL; immutable needs no -shm
                try:
                    self._conn = sqlite3.connect(f"file:{quote(self.path)}?{mode}", uri=True,
                                                 check_same_thread=False, isolation_level=None)
                    self._conn.execute("SELECT count(*) FROM runs").fetchone()
                    return
                except sqlite3.OperationalError:
                    if mode == "immutable=1":
                        raise
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                     timeout=60.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        cols = ",\n  ".join(f"{k} {v}" for k, v in COLUMNS.items())
        self._conn.execute(
            f"CREATE TABLE IF NOT EXISTS runs (\n  {cols},\n  PRIMARY KEY ({', '.join(KEY_COLUMNS)}))")
        present = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)").fetchall()}
        for name, sql_type in COLUMNS.items():
            if name not in present:  # a store written by an older version: add the column, keep the rows
                self._conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {sql_type.replace(' NOT NULL', '')}")

    # -- writing -------------------------------------------------------------
    def record(self, row: Union[RunRecord, Mapping[str, Any]]) -> None:
        """Write one run in its own transaction (replacing the same key).

        ``row`` is a :class:`~causalarena.runs.RunRecord` or a column → value
        mapping (:meth:`RunRecord.from_row <causalarena.runs.RunRecord.from_row>`;
        absent columns are NULL, absent JSON columns an empty list / object). ``flags`` (list), ``metrics``, ``params`` and
        ``factors`` (dicts) are stored as JSON, the status as its text.

        Raises:
            KeyError: unknown columns (naming them), or a key column or the
                status missing (``run row lacks [...]``).
            ValueError: a status outside :data:`STATUSES`.
        """
        record = row if isinstance(row, RunRecord) else RunRecord.from_row(row)
        if record.status is None:
            raise KeyError("run row lacks ['status']")
        values = record.as_row()
        names = list(values)
        sql = (f"INSERT OR REPLACE INTO runs ({', '.join(names)}) "
               f"VALUES ({', '.join('?' for _ in names)})")
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(sql, [values[k] for k in names])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    # -- reading -------------------------------------------------------------
    def done_keys(self, statuses: Optional[Iterable[str]] = None) -> Set[Key]:
        """Keys of stored runs (optionally only those with these statuses).

        Raises:
            ValueError: a status outside :data:`STATUSES`.
        """
        sql = f"SELECT {', '.join(KEY_COLUMNS)} FROM runs"
        args: List[Any] = []
        if statuses is not None:
            statuses = [to_status(s).value for s in statuses]
            sql += f" WHERE status IN ({', '.join('?' for _ in statuses)})"
            args = statuses
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return {tuple(r) for r in rows}

    def rows(self) -> List[Dict[str, Any]]:
        """All runs as dicts (JSON columns decoded), ordered by key."""
        with self._lock:
            cur = self._conn.execute(f"SELECT * FROM runs ORDER BY {', '.join(KEY_COLUMNS)}")
            names = [c[0] for c in cur.description]
            raw = cur.fetchall()
        out = []
        for r in raw:
            row = dict(zip(names, r))
            row["flags"] = json.loads(row["flags"]) if row["flags"] else []
            row["metrics"] = json.loads(row["metrics"]) if row["metrics"] else {}
            row["params"] = json.loads(row["params"]) if row["params"] else {}
            row["factors"] = json.loads(row["factors"]) if row.get("factors") else {}
            for name in COLUMNS:
                row.setdefault(name, None)  # read-only open of an older store
            out.append(row)
        return out

    def records(self) -> List[RunRecord]:
        """All runs as :class:`~causalarena.runs.RunRecord` (ordered by key).

        Columns this version does not know (a store written by a newer one)
        are left out.

        Raises:
            ValueError: a stored status outside :data:`STATUSES`.
        """
        names = set(COLUMNS)
        return [RunRecord.from_row({k: v for k, v in r.items() if k in names}) for r in self.rows()]

    def runs_frame(self) -> Any:
        """A ``pandas.DataFrame`` with one row per run.

        Columns: every column of :data:`COLUMNS` except ``metrics`` and
        ``traceback``, then one float column per metric found in any row
        (``NaN`` where missing; a metric whose name collides with a run
        column is prefixed ``metric_``). ``flags`` is a comma-joined string
        (``""`` when none). This is what :mod:`causalarena.report` consumes.
        """
        import pandas as pd

        rows = self.rows()
        base = [c for c in COLUMNS if c not in ("metrics", "traceback")]
        metric_names: List[str] = []
        for r in rows:
            for k in r["metrics"]:
                if k not in metric_names:
                    metric_names.append(k)
        rename = {m: (f"metric_{m}" if m in COLUMNS else m) for m in metric_names}
        records = []
        for r in rows:
            rec = {c: r[c] for c in base}
            rec["flags"] = ",".join(r["flags"])
            rec["params"] = json.dumps(r["params"], sort_keys=True)
            rec["factors"] = json.dumps(r["factors"], sort_keys=True)
            rec["standardise"] = None if r["standardise"] is None else bool(r["standardise"])
            for m in metric_names:
                v = r["metrics"].get(m)
                rec[rename[m]] = float("nan") if v is None else float(v)
            records.append(rec)
        return pd.DataFrame.from_records(records, columns=base + [rename[m] for m in metric_names])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
