"""The run record: one row of the result store, typed.

A :class:`RunRecord` is what the runner (:mod:`causalarena.runner`) builds for
one cell (method × family instance × split × replicate) and what the store
(:mod:`causalarena.store`) writes as one row of its ``runs`` table. Its
attributes are the store's columns, in table order and with the same names
(:data:`causalarena.store.COLUMNS` gives their SQL types), so a store written
before this class existed loads unchanged. The report reads the store as a
DataFrame (:meth:`causalarena.store.Store.runs_frame`), not as records.

The status is a :class:`causalarena.records.Status`; the store keeps its
plain-text value.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union, overload

import attrs

from .records import STATUSES, Status

#: the columns of the store's primary key, in key order
KEY_COLUMNS = ("family", "scm_id", "split", "replicate", "method", "config_hash")

#: the columns holding JSON (a list or an object) in the store
JSON_COLUMNS = ("flags", "metrics", "params", "factors")

Key = Tuple[str, str, str, int, str, str]


@overload
def to_status(value: None) -> None: ...


@overload
def to_status(value: Union[Status, str]) -> Status: ...


@overload
def to_status(value: Any) -> Optional[Status]: ...


def to_status(value: Any) -> Optional[Status]:
    """``value`` as a :class:`~causalarena.records.Status` (``None`` stays ``None``: not set yet).

    Raises:
        ValueError: ``value`` is not one of :data:`~causalarena.records.STATUSES`
            (the message names it and lists them).
    """
    if value is None or isinstance(value, Status):
        return value
    try:
        return Status(value)
    except ValueError:
        raise ValueError(f"status {value!r} not in {STATUSES}") from None


def _json_list(value: Any) -> List[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = json.loads(value)
    return list(value)


def _json_dict(value: Any) -> Dict[str, Any]:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        value = json.loads(value)
    return dict(value)


def _optional_bool(value: Any) -> Optional[bool]:
    return None if value is None else bool(value)


@attrs.define(kw_only=True)
class RunRecord:
    """One run (method × family instance × split × replicate) as stored in the ``runs`` table.

    Mutable while the runner fills it in; attribute assignment converts and
    validates (an unknown attribute raises ``AttributeError``, an unknown
    status ``ValueError``). Times are wall-clock seconds measured with
    ``time.perf_counter``; memory is in MiB (2**20 bytes; the column names say
    ``mb`` for history).

    Attributes:
        family: family name (``"synthetic"``); key column.
        scm_id: the family instance's id (``"er-d10-000"``); key column.
        split: ``"obs"`` or ``"obs_int"``; key column.
        replicate: replicate index, 0-based; key column.
        method: method name (``"pc"``); key column.
        config_hash: 16 hex digits of :func:`causalarena.store.config_hash`
            (method parameters and version, dataset options, instance
            fingerprint); key column.
        status: the outcome; ``None`` only while the run is in progress (the
            store refuses to write it).
        wall_seconds: seconds from the fit request to the worker's answer
            (``budget_s`` on timeout; ``0.0`` for a cell refused before a
            worker: ``unsupported``, ``invalid_input``; the whole cell when it
            ended before a fit).
        fit_seconds: seconds inside the worker for ``fit`` + ``prediction``
            (not the dataset load); ``None`` when no fit answered.
        load_seconds: seconds the worker spent importing, constructing and
            preloading the method, once per worker (shared by every cell that
            worker served; see ``worker_id``).
        peak_rss_mb: peak resident memory of the worker during this fit, MiB
            (the larger of the worker's own ``VmHWM`` and the runner's
            process-tree polls).
        error: one-line reason of a non-ok status (``None`` when ok).
        traceback: the worker's Python traceback of a failure, if any.
        flags: warnings kept with the run (``"near_collinear: cond=3.1e+07"``,
            ``"oriented_undirected_edges"`` …); the run still counts.
        metrics: metric name → value (``None``: undefined for this graph);
            empty unless ``ok``.
        params: the method parameters (provenance).
        output_kind: the method's declared native output: ``"dag"``,
            ``"cpdag"`` or ``"pag"``.
        n: rows of the table the method saw.
        d: variables (columns) of that table.
        seed: the cell seed (:func:`causalarena.protocol.cell_seed`): the
            worker seeds ``random`` / ``numpy.random`` with it and CPDAG
            orientation uses it.
        standardise: the table was standardised (zero mean, unit variance per column).
        protocol: the intervention protocol's name (``"default"``).
        python: the worker's Python version (``"3.11.7"``).
        method_version: the method distribution's version (``None``: unknown).
        started_at, finished_at: ISO-8601 UTC timestamps (milliseconds) of the cell.
        n_override: ``--n`` / a sample-size suite's row count (``None``: the split's default).
        suite: the suite this run belongs to, if any.
        varsortability: of the raw table the method saw (Reisach et al. 2021), in [0, 1].
        r2_sortability: R²-sortability of that table (Reisach et al. 2023), in [0, 1].
        factors: the instance's scalar factor tags (graph, d, difficulty …).
        start_seconds: seconds from spawning the worker that ran this cell to
            its ``hello`` answer (its cold start).
        worker_id: one id per worker process (12 hex digits): the cells one load served share it.
        worker_seq: 1, 2, …: this cell was the k-th fit of that worker.
        isolation: where the worker ran: ``"none"``, ``"venv:<env key>"``,
            ``"docker:<image>"``.
        scoring: the CPDAG scoring policy of a ``cpdag``/``pag`` output,
            ``"orientation=mec, cpdag_repair=undirect_cycles"``
            (:func:`causalarena.metrics.scoring_config`; part of the config
            hash); ``None`` for a ``dag`` output and for rows stored before it
            existed (those CPDAG runs used ``orientation=linear_extension,
            cpdag_repair=strict``).
        task: the run's task (``"discovery"`` or a task a distribution registers, :mod:`causalarena.tasks`);
            ``None`` in rows stored before tasks existed (all discovery).
    """

    family: str
    scm_id: str
    split: str
    replicate: int
    method: str
    config_hash: str
    status: Optional[Status] = attrs.field(default=None, converter=to_status)
    wall_seconds: Optional[float] = None
    fit_seconds: Optional[float] = None
    load_seconds: Optional[float] = None
    peak_rss_mb: Optional[float] = None
    error: Optional[str] = None
    traceback: Optional[str] = None
    flags: List[str] = attrs.field(factory=list, converter=_json_list)
    metrics: Dict[str, Optional[float]] = attrs.field(factory=dict, converter=_json_dict)
    params: Dict[str, Any] = attrs.field(factory=dict, converter=_json_dict)
    output_kind: Optional[str] = None
    n: Optional[int] = None
    d: Optional[int] = None
    seed: Optional[int] = None
    standardise: Optional[bool] = attrs.field(default=None, converter=_optional_bool)
    protocol: Optional[str] = None
    python: Optional[str] = None
    method_version: Optional[str] = None
    started_at: Optional[str] = None
    finished_at: Optional[str] = None
    n_override: Optional[int] = None
    suite: Optional[str] = None
    varsortability: Optional[float] = None
    r2_sortability: Optional[float] = None
    factors: Dict[str, Any] = attrs.field(factory=dict, converter=_json_dict)
    start_seconds: Optional[float] = None
    worker_id: Optional[str] = None
    worker_seq: Optional[int] = None
    isolation: Optional[str] = None
    scoring: Optional[str] = None
    task: Optional[str] = None

    @classmethod
    def columns(cls) -> Tuple[str, ...]:
        """The column names, in table order (:data:`causalarena.store.COLUMNS` has the same)."""
        return tuple(a.name for a in attrs.fields(cls))

    @property
    def key(self) -> Key:
        """The store key ``(family, scm_id, split, replicate, method, config_hash)``."""
        return (self.family, self.scm_id, self.split, int(self.replicate), self.method, self.config_hash)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "RunRecord":
        """A record from a column → value mapping (a store row, or a dict written by hand).

        JSON columns (:data:`JSON_COLUMNS`) may be decoded values or JSON
        text; ``None`` gives an empty list / dict. Columns the mapping lacks
        are ``None`` (a store written before they existed).

        Raises:
            KeyError: a key the table does not have (``unknown run columns [...]``)
                or a key column that is missing or ``None`` (``run row lacks [...]``).
            ValueError: a status outside :data:`~causalarena.records.STATUSES`.
        """
        names = cls.columns()
        unknown = set(row) - set(names)
        if unknown:
            raise KeyError(f"unknown run columns {sorted(unknown)}")
        missing = [k for k in KEY_COLUMNS if row.get(k) is None]
        if missing:
            raise KeyError(f"run row lacks {missing}")
        return cls(**row)

    def as_row(self) -> Dict[str, Any]:
        """Column → value, ready for SQLite.

        The status is its text, JSON columns are JSON text (sorted keys),
        ``standardise`` is 0/1 (``None`` stays ``None``).
        """
        values = attrs.asdict(self, recurse=False)
        values["status"] = None if self.status is None else self.status.value
        for k in JSON_COLUMNS:
            values[k] = json.dumps(values[k], sort_keys=True, default=str)
        if self.standardise is not None:
            values["standardise"] = int(self.standardise)
        return values
