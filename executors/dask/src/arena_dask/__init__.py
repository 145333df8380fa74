"""CausalArena executor plugin: arena grids on a Dask cluster (``arena run --cluster SPEC``).

The executor is :class:`arena_dask.executor.DaskExecutor`; the descriptor is in
:mod:`arena_dask.plugin`.
"""

__version__ = "0.1.0"
