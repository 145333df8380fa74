"""The result store: one SQLite file (stdlib ``sqlite3``, WAL journal).

Table ``runs`` has one row per cell, keyed by
``(family, scm_id, split, replicate, method, config_hash)``; ``config_hash``
(:func:`config_hash`) covers the method parameters, standardisation, the
intervention protocol and ``n``. Every run is written in its own transaction
(``INSERT OR REPLACE``), so a runner killed at any moment leaves only whole
rows, and rerunning the same grid skips the keys in :meth:`Store.done_keys`.

Table ``predictions`` holds, per ``ok`` run (same key), the scored adjacency,
the native output kind, the edge scores and the id of its true graph; table
``truths`` holds each true graph once (:mod:`causalarena.predictions` for the
encodings). Both are written in the run's own transaction
(:meth:`Store.record` with ``prediction=`` and ``truth=``), so no run is ever
stored without its prediction or the other way round; a store written before
they existed gets them (empty) when opened for writing, and its readers
(:meth:`Store.predictions_frame`, :meth:`Store.truths`) return nothing when it
is opened read-only.

A fault of the file or its disk (full, read-only, corrupt, not a store at
all) is a :class:`StoreError` naming the path, the cause and the remedy; it
is a :class:`MachineFault`, the harness's own environment failing, which the
runner never records as a method's result (``arena run`` stops with exit code
:data:`MACHINE_FAULT_EXIT`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

import attrs

from .predictions import Truth, decode_adjacency, decode_scores, encode_adjacency, encode_scores, truth_id
from .records import STATUSES, Status
from .runs import KEY_COLUMNS, Key, RunRecord, to_status

if TYPE_CHECKING:
    from .data import Prediction

__all__ = ["COLUMNS", "KEY_COLUMNS", "PREDICTION_COLUMNS", "KeptRow", "pack_array", "unpack_array", "MACHINE_FAULT_EXIT", "Key", "MachineFault", "RunRecord", "STATUSES", "Store",
           "StoreError", "config_hash", "store_error"]

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
    # added with the CPDAG scoring policies (issue 12); NULL for DAG outputs and older rows
    "scoring": "TEXT",         # "orientation=mec, cpdag_repair=undirect_cycles" (metrics.scoring_config)
    # added with the second task (issue 15); NULL in older rows (discovery)
    "task": "TEXT",            # the task of the run (causalarena.tasks)
}

#: the ``predictions`` table (one row per ``ok`` run, keyed like the run); ``adjacency`` is the scored
#: DAG (:func:`causalarena.predictions.encode_adjacency`), ``edge_scores`` NULL when the run had none
_PREDICTIONS_SQL = (f"CREATE TABLE IF NOT EXISTS predictions (\n  {', '.join(f'{k} {COLUMNS[k]}' for k in KEY_COLUMNS)},"
                    "\n  kind TEXT NOT NULL, adjacency BLOB NOT NULL, edge_scores BLOB, d INTEGER NOT NULL,"
                    f"\n  truth_id TEXT NOT NULL,\n  PRIMARY KEY ({', '.join(KEY_COLUMNS)}))")
#: the ``truths`` table: one row per distinct true graph (:class:`causalarena.predictions.Truth`)
_TRUTHS_SQL = ("CREATE TABLE IF NOT EXISTS truths (truth_id TEXT PRIMARY KEY, d INTEGER NOT NULL, "
               "columns TEXT NOT NULL, adjacency BLOB NOT NULL, node_tags TEXT)")
#: the columns of :meth:`Store.predictions_frame`
PREDICTION_COLUMNS = (*KEY_COLUMNS, "kind", "adjacency", "edge_scores", "truth_id")

#: exit code of an ``arena`` command stopped by a :class:`MachineFault` (0 success, 1 other runtime
#: failure, 2 bad arguments): fix the named file or folder, then rerun the same command to resume.
MACHINE_FAULT_EXIT = 3


class MachineFault(RuntimeError):
    """The harness's own environment failed, not a method: a disk full or read-only, a store corrupt.

    Raised where the harness does its own I/O (the result store, the dataset
    cache, the worker log, a temporary file), never for what a method does in
    its worker. The runner never records it as a cell's result: the grid stops,
    the cells not yet stored stay unstored (the rows already stored are kept),
    and rerunning the same command resumes once the cause is fixed. ``str()``
    is one line naming the path, the cause and the remedy.

    Attributes:
        path: the file or folder at fault.
        cause: the underlying error (e.g. ``"[Errno 28] No space left on device"``).
    """

    def __init__(self, message: str, path: Optional[str] = None, cause: Optional[str] = None) -> None:
        super().__init__(message)
        self.path = path
        self.cause = cause


class StoreError(MachineFault):
    """The result store cannot be opened, read or written (:class:`MachineFault`; message names path and remedy)."""


# SQLite primary result codes (sqlite3.SQLITE_* constants exist only from Python 3.11)
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 10, 11, 13, 14, 26
# Python < 3.11 carries no result code: the message SQLite gives for each code instead
_SQLITE_MESSAGES = (("file is not a database", _SQLITE_NOTADB), ("malformed", _SQLITE_CORRUPT),
                    ("is full", _SQLITE_FULL), ("readonly", _SQLITE_READONLY), ("unable to open", _SQLITE_CANTOPEN),
                    ("disk i/o error", _SQLITE_IOERR), ("locked", _SQLITE_BUSY))


def _sqlite_code(exc: BaseException) -> Optional[int]:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(exc).lower()
    return next((c for needle, c in _SQLITE_MESSAGES if needle in text), None)


def _file_identity(path: str) -> Optional[Tuple[int, int]]:
    """``(st_dev, st_ino)`` of a database file; None for ``:memory:``-like paths that are no file, or when gone."""
    if path == ":memory:":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _not_a_store(path: str, why: str) -> StoreError:
    return StoreError(f"{path} is not a CausalArena result store ({why}): move it away or pass another "
                      "--results folder", path=path, cause=why)


def store_error(path: str, action: str, exc: BaseException) -> StoreError:
    """The :class:`StoreError` for SQLite's ``exc`` while ``action`` (e.g. ``"write"``) the store at ``path``.

    One line: the path, SQLite's own message and the remedy for its kind
    (corrupt / not a database, full, read-only or unopenable, locked).
    """
    cause = str(exc) or type(exc).__name__
    code = _sqlite_code(exc)
    if code in (_SQLITE_NOTADB, _SQLITE_CORRUPT):
        return _not_a_store(path, cause)
    if code == _SQLITE_FULL:
        remedy = "free space on its disk, then rerun the same command to resume"
    elif code in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PERM, _SQLITE_IOERR):
        remedy = "check that its folder exists, is writable and its disk is healthy, then rerun to resume"
    elif code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        remedy = "another process holds it locked; wait for it or pass another --results folder"
    else:
        remedy = "rerun the same command to resume, or pass another --results folder"
    return StoreError(f"cannot {action} the result store {path}: {cause}: {remedy}", path=path, cause=cause)


if tuple(COLUMNS) != RunRecord.columns():  # pragma: no cover - caught by the tests at once
    raise ImportError("causalarena.store.COLUMNS and causalarena.runs.RunRecord disagree on the run columns")


def pack_array(arr: Any) -> Optional[bytes]:
    """A 1-D array as zlib-compressed ``.npy`` bytes (exact float64 / int64); None stays None."""
    if arr is None:
        return None
    import io
    import zlib

    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return zlib.compress(buf.getvalue(), 6)


def unpack_array(blob: Optional[bytes]) -> Any:
    """Inverse of :func:`pack_array`."""
    if blob is None:
        return None
    import io
    import zlib

    import numpy as np

    return np.load(io.BytesIO(zlib.decompress(blob)), allow_pickle=False)


@attrs.frozen
class KeptRow:
    """One row a task keeps with an ``ok`` run, in a table of its own (:meth:`Store.record`).

    The store creates the table on first use: the run's key columns (:data:`KEY_COLUMNS`, the
    primary key), then :attr:`columns`; a rerun of the key replaces the row, and a rerun that keeps
    nothing deletes it (every table with the key columns is such a table).

    Attributes:
        table: the table's name (an identifier, e.g. ``"estimates"``).
        columns: column name → SQLite type (``"BLOB NOT NULL"``), in order; arrays are stored as
            :func:`pack_array` blobs.
        values: column name → value (the key columns are added by the store).
    """

    table: str
    columns: Mapping[str, str]
    values: Mapping[str, Any]

    def __attrs_post_init__(self) -> None:
        for name in (self.table, *self.columns):
            if not name.isidentifier():
                raise ValueError(f"KeptRow: {name!r} is not an SQL identifier")
        extra = set(self.values) - set(self.columns)
        if extra:
            raise ValueError(f"KeptRow({self.table}): values for undeclared column(s) {sorted(extra)}")


def config_hash(params: Dict[str, Any], standardise: bool, protocol: str = "default",
                n: Optional[int] = None, data: Optional[str] = None,
                method_version: Optional[str] = None, scoring: Optional[str] = None) -> str:
    """16-hex-digit SHA-256 of the run configuration that changes results.

    Covers the method ``params``, ``standardise``, the intervention
    ``protocol``, the row count override ``n`` and ``data``, the instance's
    fingerprint (:meth:`causalarena.family.Instance.fingerprint`), so a changed
    table or graph is a new cell, and ``method_version``
    (``"distribution==version"``), so an upgraded plugin is rerun, and
    ``scoring``, the CPDAG scoring policy of a CPDAG/PAG method
    (:func:`causalarena.metrics.scoring_config`; ``None`` for a DAG output
    leaves the hash as it was before the policy existed) (canonical JSON,
    sorted keys).
    """
    body: Dict[str, Any] = {"params": params, "standardise": bool(standardise), "protocol": protocol, "n": n}
    if data is not None:
        body["data"] = data
    if method_version is not None:
        body["method_version"] = method_version
    if scoring is not None:
        body["scoring"] = scoring
    payload = json.dumps(body, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


class Store:
    """An SQLite result store; safe to share between the runner's threads.

    Args:
        path: database file (created if absent; an empty file or an SQLite
            database without tables becomes a store); ``":memory:"`` for tests.
        readonly: open an existing store for reading only (``arena report``).

    Raises:
        FileNotFoundError: ``readonly`` and no file at ``path``.
        StoreError: (here and from every method) the file is not a store
            (random bytes, truncated, another program's SQLite database, a
            ``runs`` table without the key columns), or it cannot be opened,
            read or written (disk full, read-only, locked); one line naming the
            path, SQLite's message and the remedy.
    """

    def __init__(self, path: str, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        self._kept: Set[str] = set()
        if readonly:
            # a report needs read access only: open without creating, writing or a WAL
            # index (``immutable`` also works in a read-only folder, where SQLite
            # cannot create the -shm file of a WAL database)
            from urllib.parse import quote

            if not os.path.exists(self.path):
                raise FileNotFoundError(f"no result store at {self.path}")
            for mode in ("mode=ro", "immutable=1"):  # ro reads a pending WAL; immutable needs no -shm
                conn = None
                try:
                    conn = sqlite3.connect(f"file:{quote(self.path)}?{mode}", uri=True,
                                           check_same_thread=False, isolation_level=None)
                    self._conn = conn
                    self._check_schema(empty_ok=False)
                    conn.execute("SELECT count(*) FROM runs").fetchone()
                    return
                except StoreError:
                    self._conn.close()
                    raise
                except sqlite3.Error as exc:
                    if conn is not None:
                        conn.close()
                    if mode == "immutable=1" or _sqlite_code(exc) in (_SQLITE_NOTADB, _SQLITE_CORRUPT):
                        raise store_error(self.path, "read", exc) from None
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                         timeout=60.0)
        except sqlite3.Error as exc:
            raise store_error(self.path, "open", exc) from None
        try:
            self._check_schema(empty_ok=True)  # before any write: another program's database stays untouched
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            cols = ",\n  ".join(f"{k} {v}" for k, v in COLUMNS.items())
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS runs (\n  {cols},\n  PRIMARY KEY ({', '.join(KEY_COLUMNS)}))")
            present = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)").fetchall()}
            for name, sql_type in COLUMNS.items():
                if name not in present:  # a store written by an older version: add the column, keep the rows
                    self._conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {sql_type.replace(' NOT NULL', '')}")
            self._conn.execute(_PREDICTIONS_SQL)  # an older store gets them empty
            self._conn.execute(_TRUTHS_SQL)
        except StoreError:
            self._conn.close()
            raise
        except sqlite3.Error as exc:
            self._conn.close()
            raise store_error(self.path, "open", exc) from None
        self._identity = _file_identity(self.path)
        self._kept = set(self._kept_tables())

    def _kept_tables(self) -> List[str]:
        """The tables that keep runs' outputs: every table but ``runs`` with all the key columns."""
        out = []
        for (name,) in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'runs'"):
            cols = {r[1] for r in self._conn.execute(f"PRAGMA table_info({name})")}
            if set(KEY_COLUMNS) <= cols:
                out.append(name)
        return sorted(out)

    def check_file(self) -> None:
        """Raise :class:`StoreError` when the database file was deleted or replaced since it was opened.

        SQLite keeps reading and writing an unlinked file through its open descriptor: every later row
        would be lost while the run reports it stored. Called before every write transaction (one ``stat``)
        and by ``arena run`` before it reads the folder's runs back for its report, so a file deleted
        after the last write (or during a rerun that skipped every cell) is noticed too. A no-op for
        ``:memory:``.

        Raises:
            StoreError: the file at :attr:`path` is gone or is another file (another device/inode).
        """
        want = getattr(self, "_identity", None)
        if want is None:
            return
        got = _file_identity(self.path)
        if got != want:
            what = "deleted" if got is None else "replaced by another file"
            raise StoreError(f"the result store {self.path} was {what} while this run was writing to it: the rows "
                             "written since are lost with it; rerun the same command to resume from what the "
                             "folder holds now", path=self.path, cause=f"database file {what}")

    def _check_schema(self, empty_ok: bool) -> None:
        """Raise :class:`StoreError` unless the database is a store (or, with ``empty_ok``, has no table yet)."""
        tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "runs" not in tables:
            if empty_ok and not tables:
                return
            listed = ", ".join(sorted(tables)[:5]) or "none"
            raise _not_a_store(self.path, f"no table 'runs'; its tables: {listed}")
        present = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)").fetchall()}
        missing = [c for c in (*KEY_COLUMNS, "status") if c not in present]
        if missing:
            raise _not_a_store(self.path, f"its table 'runs' lacks the column(s) {', '.join(missing)}")

    # -- writing -------------------------------------------------------------
    def record(self, row: Union[RunRecord, Mapping[str, Any]], prediction: Optional["Prediction"] = None,
               truth: Optional[Truth] = None, kept: Sequence[KeptRow] = ()) -> None:
        """Write one run in its own transaction (replacing the same key), with what its task keeps.

        ``row`` is a :class:`~causalarena.runs.RunRecord` or a column → value
        mapping (:meth:`RunRecord.from_row <causalarena.runs.RunRecord.from_row>`;
        absent columns are NULL, absent JSON columns an empty list / object). ``flags`` (list), ``metrics``, ``params`` and
        ``factors`` (dicts) are stored as JSON, the status as its text.

        ``prediction`` (a :class:`causalarena.data.Prediction` holding the
        *scored* d × d adjacency, i.e. after CPDAG orientation, its native
        ``kind`` and optional edge scores) and ``truth`` (the graph it was
        scored against) go into the tables ``predictions`` and ``truths`` in
        the same transaction (the discovery task). ``kept`` rows (another
        task's outputs, :class:`KeptRow`) go into their tables the same way.
        A stored output of this key in any table that ``kept`` does not
        rewrite (an ``ok`` run being rerun) is deleted in that transaction.

        Raises:
            KeyError: unknown columns (naming them), or a key column or the
                status missing (``run row lacks [...]``).
            ValueError: a status outside :data:`STATUSES`; a prediction without
                a truth, a prediction or kept row with a run that is not ``ok``,
                a prediction of another size than its truth.
            StoreError: SQLite cannot write it (disk full, read-only, corrupt …);
                nothing of this row is stored.
        """
        record = row if isinstance(row, RunRecord) else RunRecord.from_row(row)
        if record.status is None:
            raise KeyError("run row lacks ['status']")
        values = record.as_row()
        names = list(values)
        key = [values[k] for k in KEY_COLUMNS]
        statements: List[Tuple[str, List[Any]]] = [
            (f"INSERT OR REPLACE INTO runs ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
             [values[k] for k in names])]
        where = " AND ".join(f"{k} = ?" for k in KEY_COLUMNS)
        written = {k.table for k in kept} | ({"predictions"} if prediction is not None else set())
        if prediction is not None:
            statements += self._prediction_statements(record, key, prediction, truth)
        for k in kept:
            if record.status is not Status.OK:
                raise ValueError(f"Store.record: a {k.table} row is kept for ok runs only, this run is {record.status}")
            keys = ", ".join(f"{c} {COLUMNS[c]}" for c in KEY_COLUMNS)
            own = ", ".join(f"{c} {t}" for c, t in k.columns.items())
            statements.append((f"CREATE TABLE IF NOT EXISTS {k.table} (\n  {keys},\n  {own},\n  "
                               f"PRIMARY KEY ({', '.join(KEY_COLUMNS)}))", []))
            cols = (*KEY_COLUMNS, *k.values)
            statements.append((f"INSERT OR REPLACE INTO {k.table} ({', '.join(cols)}) "
                               f"VALUES ({', '.join('?' for _ in cols)})", [*key, *k.values.values()]))
        statements[1:1] = [(f"DELETE FROM {t} WHERE {where}", key) for t in sorted(self._kept - written)]
        with self._lock:
            self.check_file()
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for sql, args in statements:
                        self._conn.execute(sql, args)
                    self._conn.execute("COMMIT")
                    self._kept |= written
                except BaseException:
                    # SQLite has already rolled back after some errors (SQLITE_FULL, SQLITE_IOERR …):
                    # a second ROLLBACK would replace the real cause by "no transaction is active"
                    if self._conn.in_transaction:
                        try:
                            self._conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            pass  # the first error is the one to report
                    raise
            except sqlite3.Error as exc:
                raise store_error(self.path, "write", exc) from exc

    @staticmethod
    def _prediction_statements(record: RunRecord, key: List[Any], prediction: "Prediction",
                               truth: Optional[Truth]) -> List[Tuple[str, List[Any]]]:
        """The INSERTs of a prediction and its truth (encoded here, before the transaction opens)."""
        if truth is None:
            raise ValueError("Store.record: a prediction needs its truth (the graph it was scored against)")
        if record.status is not Status.OK:
            raise ValueError(f"Store.record: a prediction is kept for ok runs only, this run is {record.status}")
        adjacency = encode_adjacency(prediction.adjacency)
        d = int(len(prediction.adjacency))
        if d != truth.d:
            raise ValueError(f"Store.record: the prediction is {d} x {d} but its truth is {truth.d} x {truth.d}")
        scores = None if prediction.edge_scores is None else encode_scores(prediction.edge_scores)
        tid = truth_id(str(record.family), str(record.scm_id), truth)
        cols = (*KEY_COLUMNS, "kind", "adjacency", "edge_scores", "d", "truth_id")
        return [("INSERT OR IGNORE INTO truths (truth_id, d, columns, adjacency, node_tags) VALUES (?, ?, ?, ?, ?)",
                 [tid, *truth.encode()]),
                (f"INSERT OR REPLACE INTO predictions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                 [*key, str(prediction.kind), adjacency, scores, d, tid])]

    def update_metrics(self, updates: Iterable[Tuple[Key, Mapping[str, Optional[float]]]]) -> int:
        """Merge new metric values into stored runs, all in one transaction; returns the runs updated.

        Each ``(key, values)`` sets ``values`` (name → float or None) in the
        run's ``metrics`` and keeps its other metrics. A key not in the store
        is skipped. A crash before the commit leaves every run as it was.

        Raises:
            StoreError: SQLite cannot write (nothing is updated).
        """
        where = " AND ".join(f"{k} = ?" for k in KEY_COLUMNS)
        done = 0
        with self._lock:
            self.check_file()
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for key, values in updates:
                        found = self._conn.execute(f"SELECT metrics FROM runs WHERE {where}", list(key)).fetchone()
                        if found is None:
                            continue
                        metrics = json.loads(found[0]) if found[0] else {}
                        metrics.update(values)
                        self._conn.execute(f"UPDATE runs SET metrics = ? WHERE {where}",
                                           [json.dumps(metrics), *key])
                        done += 1
                    self._conn.execute("COMMIT")
                except BaseException:
                    if self._conn.in_transaction:
                        try:
                            self._conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            pass
                    raise
            except sqlite3.Error as exc:
                raise store_error(self.path, "write", exc) from exc
        return done

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
            try:
                rows = self._conn.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise store_error(self.path, "read", exc) from exc
        return {tuple(r) for r in rows}

    def rows(self) -> List[Dict[str, Any]]:
        """All runs as dicts (JSON columns decoded), ordered by key.

        Raises:
            StoreError: SQLite cannot read the table (a page corrupted since the open …).
        """
        with self._lock:
            try:
                cur = self._conn.execute(f"SELECT * FROM runs ORDER BY {', '.join(KEY_COLUMNS)}")
                names = [c[0] for c in cur.description]
                raw = cur.fetchall()
            except sqlite3.Error as exc:
                raise store_error(self.path, "read", exc) from exc
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

    def _has_table(self, name: str) -> bool:
        return bool(self._query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))

    def _query(self, sql: str, args: Iterable[Any] = ()) -> List[Tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._conn.execute(sql, list(args)).fetchall())
            except sqlite3.Error as exc:
                raise store_error(self.path, "read", exc) from exc

    def prediction_count(self) -> int:
        """Number of stored predictions (0 for a store written before they were kept)."""
        present = self._has_table("predictions")
        return int(self._query("SELECT count(*) FROM predictions")[0][0]) if present else 0

    def missing_predictions(self) -> int:
        """Number of ``ok`` runs whose output is kept in no table (stored before outputs were kept).

        A kept table is any table but ``runs`` with the key columns (``predictions`` of the
        discovery task, a :class:`KeptRow` table of another). :data:`causalarena.predictions.FILL_COMMAND`
        stores them.
        """
        on = " AND ".join(f"p.{k} = r.{k}" for k in KEY_COLUMNS)
        kept = " AND ".join(f"NOT EXISTS (SELECT 1 FROM {t} p WHERE {on})" for t in self._kept_tables()) or "1"
        return int(self._query(f"SELECT count(*) FROM runs r WHERE r.status = ? AND {kept}",
                               [Status.OK.value])[0][0])

    def predictions_frame(self) -> Any:
        """A ``pandas.DataFrame`` with one row per stored prediction (of an ``ok`` run), ordered by key.

        Columns (:data:`PREDICTION_COLUMNS`): the run key (``family``,
        ``scm_id``, ``split``, ``replicate``, ``method``, ``config_hash``),
        ``kind`` (native output kind ``"dag"`` / ``"cpdag"`` / ``"pag"``),
        ``adjacency`` (d × d bool numpy array, the scored DAG: after
        orientation), ``edge_scores`` (d × d float64 numpy array or ``None``)
        and ``truth_id`` (a key of :meth:`truths`). Empty (same columns) for a
        store written before predictions were kept.

        Raises:
            StoreError: SQLite cannot read the table.
            ValueError: a blob that does not decode (a damaged row).
        """
        import pandas as pd

        present = self._has_table("predictions")
        rows = self._query(f"SELECT {', '.join(KEY_COLUMNS)}, kind, adjacency, edge_scores, d, truth_id "
                           f"FROM predictions ORDER BY {', '.join(KEY_COLUMNS)}") if present else []
        n_key = len(KEY_COLUMNS)
        records = []
        for r in rows:
            d = int(r[n_key + 3])
            records.append((*r[:n_key], r[n_key], decode_adjacency(r[n_key + 1], d),
                            None if r[n_key + 2] is None else decode_scores(r[n_key + 2], d), r[n_key + 4]))
        return pd.DataFrame.from_records(records, columns=list(PREDICTION_COLUMNS))

    def truths(self) -> Dict[str, Truth]:
        """Every stored true graph, by ``truth_id`` (``{}`` for a store written before predictions were kept).

        Raises:
            StoreError: SQLite cannot read the table.
        """
        present = self._has_table("truths")
        rows = self._query("SELECT truth_id, d, columns, adjacency, node_tags FROM truths") if present else []
        return {r[0]: Truth.decode(*r[1:]) for r in rows}

    def kept_frame(self, table: str, arrays: Sequence[str] = ()) -> Any:
        """A task's kept table as a pandas DataFrame, ordered by key; ``arrays`` columns unpacked.

        Args:
            table: the table's name (:attr:`KeptRow.table`).
            arrays: its columns stored by :func:`pack_array`, returned as numpy arrays (``None`` where NULL).

        Returns:
            The key columns then every other column of the table; empty (key columns and
            ``arrays``) when the store has no such table.

        Raises:
            StoreError: SQLite cannot read the table.
        """
        import pandas as pd

        if not (table.isidentifier() and self._has_table(table)):
            return pd.DataFrame(columns=[*KEY_COLUMNS, *arrays])
        cols = [r[1] for r in self._query(f"PRAGMA table_info({table})")]
        frame = pd.DataFrame(self._query(f"SELECT * FROM {table} ORDER BY {', '.join(KEY_COLUMNS)}"), columns=cols)
        for name in arrays:
            frame[name] = [unpack_array(b) for b in frame[name]] if name in frame else None
        return frame

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
