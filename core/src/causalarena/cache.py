"""The runner's dataset cache, and the machine faults of the harness's own I/O."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

from .store import MachineFault

if TYPE_CHECKING:
    from .data import Dataset


def harness_fault(what: str, exc: OSError, path: Optional[str] = None, name_file: bool = True) -> MachineFault:
    """The :class:`~causalarena.store.MachineFault` for ``exc``, an ``OSError`` of the harness's own I/O.

    ``what`` says what failed and where (e.g. ``"cannot write the dataset cache
    R/datasets"``); the message adds the cause (``[Errno 28] No space left on
    device``, then the file of ``exc`` unless ``name_file`` is false or it is
    ``path``) and the remedy. ``path`` defaults to the file of ``exc``.
    """
    import errno

    cause = f"[Errno {exc.errno}] {exc.strerror}" if exc.errno is not None and exc.strerror else str(exc)
    if name_file and exc.filename is not None and exc.filename != path:
        cause += f": {exc.filename}"
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        remedy = "free space on that disk"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        remedy = "make the folder writable"
    elif exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN):
        remedy = "free system resources (open files, memory, processes)"
    else:
        remedy = "check the folder and its disk"
    return MachineFault(f"{what}: {cause}: {remedy} (or pass another --results folder), then rerun the same "
                        "command to resume", path=path or exc.filename, cause=cause)


class DatasetCache:
    """Datasets built once per (family, scm_id, split, replicate) and config.

    The full dataset (with truth) stays in memory for the parent's checks
    and scoring (LRU of ``keep`` entries); the worker gets a ``.npz`` without
    the true graph. :meth:`get` raises what the family's generator raises (the
    cell's failure) and a :class:`~causalarena.store.MachineFault` when the
    ``.npz`` cannot be written (disk full, read-only …: the run's failure).
    """

    def __init__(self, directory: str, standardise: bool, protocol: str, n: Optional[int],
                 keep: int = 64) -> None:
        self.directory = directory
        self.standardise = standardise
        self.protocol = protocol
        self.n = n
        self.keep = keep
        self._lock = threading.Lock()
        self._locks: Dict[str, threading.Lock] = {}
        self._mem: Dict[str, Dataset] = {}
        self._written: set = set()

    def get(self, cell: Any) -> Tuple[Dataset, str]:
        ident = json.dumps([cell.family, cell.instance.scm_id, cell.split, int(cell.replicate),
                            self.standardise, self.protocol, self.n])
        h = hashlib.sha256(ident.encode()).hexdigest()[:20]
        with self._lock:
            lock = self._locks.setdefault(h, threading.Lock())
        with lock:
            path = os.path.join(self.directory, f"{h}.npz")
            with self._lock:
                ds = self._mem.get(h)
            if ds is None:
                ds = cell.instance.dataset(cell.split, cell.replicate, standardise=self.standardise,
                                           protocol=self.protocol, n=self.n)
                with self._lock:
                    self._mem[h] = ds
                    while len(self._mem) > self.keep:
                        self._mem.pop(next(iter(self._mem)))
            if h not in self._written:
                # (re)written once per runner even if a previous run left the
                # file: the dataset code may have changed since.
                tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
                try:
                    ds.without_truth().save(tmp)
                    os.replace(tmp, path)
                except OSError as exc:  # the harness's own write: a machine fault, not the cell's
                    try:
                        os.remove(tmp)  # a partial file would keep the disk full
                    except OSError:
                        pass
                    raise harness_fault(f"cannot write the dataset cache {self.directory}", exc,
                                        self.directory, name_file=False) from exc  # (a temporary name)
                self._written.add(h)
        return ds, path
