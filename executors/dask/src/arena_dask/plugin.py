"""Descriptor of the ``dask`` executor (entry point ``causalarena: dask``); imports no Dask."""

from __future__ import annotations

from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import ExecutorInfo


@hookimpl
def arena_executors() -> Iterator[ExecutorInfo]:
    """Yield the Dask executor: local:N, a scheduler address, slurm / pbs (dask-jobqueue)."""
    yield ExecutorInfo(name="dask", factory="arena_dask.executor:DaskExecutor",
                       help="cells as Dask tasks: local:N, tcp://HOST:PORT, slurm or pbs (dask-jobqueue)")
