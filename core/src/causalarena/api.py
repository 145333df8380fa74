"""The Python API: run a grid and read its results from a notebook or a script, without a subprocess.

::

    import causalarena

    res = causalarena.run(methods=["pc", "ges"], families=["synthetic"], results="R",
                          family_options={"synthetic": {"d": 10, "per_cell": 1}}, jobs=2)
    res.runs            # one row per run (pandas DataFrame)
    res.leaderboard()   # methods × family/split, mean (sd) over SCMs (the paper's Table 2 layout)
    res.report()        # the report files and extensions (`arena report`)
    causalarena.open("R").runs   # an existing results folder

:func:`run` goes through the same function as ``arena run`` (:func:`causalarena.commands.run.execute`):
the same selection checks, resume (a rerun skips what the folder holds), statuses, store and files;
only the exit code becomes an exception. Every option is keyword-only and named as on the command line.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Union

__all__ = ["Results", "open", "run"]

PathLike = Union[str, "os.PathLike[str]"]


def _csv(values: Optional[Union[str, Sequence[Any]]]) -> Optional[str]:
    if values is None or isinstance(values, str):
        return values
    return ",".join(str(v) for v in values)


def _family_option_list(options: Optional[Mapping[str, Mapping[str, Any]]]) -> list:
    """``{"synthetic": {"d": 10}}`` → ``["synthetic.d=10"]`` (the ``--family-option`` form)."""
    out = []
    for family, values in (options or {}).items():
        for key, value in values.items():
            text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            out.append(f"{family}.{key}={text}")
    return out


class Results:
    """A results folder: its runs, leaderboard and report.

    Attributes:
        path: the folder (:class:`pathlib.Path`).
        counts: status → runs of the invocation that returned this object (``{}`` from :func:`open`).
        skipped: cells that invocation found already stored (resumed).
    """

    def __init__(self, path: PathLike, counts: Optional[Mapping[str, int]] = None, skipped: int = 0,
                 registry: Any = None) -> None:
        self.path = Path(path)
        self.counts: Dict[str, int] = dict(counts or {})
        self.skipped = skipped
        self._registry = registry

    def __repr__(self) -> str:
        return f"Results({str(self.path)!r}, counts={self.counts}, skipped={self.skipped})"

    @property
    def store_path(self) -> Path:
        from .commands._common import STORE_NAME

        return self.path / STORE_NAME

    @property
    def runs(self) -> Any:
        """Every stored run as a pandas DataFrame (:meth:`causalarena.store.Store.runs_frame`).

        Raises:
            FileNotFoundError: the folder holds no store.
        """
        from .store import Store

        with Store(str(self.store_path), readonly=True) as store:
            return store.runs_frame()

    def leaderboard(self, metrics: Sequence[str] = ("f1", "shd"), numeric: bool = False) -> Any:
        """The discovery leaderboard of the stored runs (methods × family/split).

        Args:
            metrics: the metrics of each cell.
            numeric: the numeric table (:func:`causalarena.report.leaderboard_numeric`: one row per
                method × family × split with means, SDs and counts) instead of the text cells.
        """
        from .report import DISCOVERY, leaderboard, leaderboard_numeric, task_runs

        runs = task_runs(self.runs, DISCOVERY)
        return leaderboard_numeric(runs, metrics) if numeric else leaderboard(runs, metrics)

    def report(self, *, metrics: Sequence[str] = ("f1", "shd"), extensions: bool = True) -> int:
        """Print the leaderboard and write the report files and extensions into the folder (``arena report``).

        Returns:
            0.

        Raises:
            ValueError: a bad value (the command's usage error).
        """
        from .commands import report as report_cmd

        args = _namespace(report_cmd.configure, self._registry, results=str(self.path), metrics=_csv(metrics),
                          no_extensions=not extensions)
        return _usage(report_cmd.run, args)


def open(results: PathLike) -> Results:  # noqa: A001 - the API's verb, as tarfile.open / zipfile
    """An existing results folder.

    Raises:
        FileNotFoundError: no result store in ``results``.
    """
    res = Results(results)
    if not res.store_path.exists():
        raise FileNotFoundError(f"no result store at {res.store_path}")
    return res


def _namespace(configure: Any, registry: Any, **values: Any) -> argparse.Namespace:
    """A command's parsed options: its defaults, then ``values`` (names as its ``dest``)."""
    from .commands._common import REGISTRY_ATTR

    parser = argparse.ArgumentParser(add_help=False)
    configure(parser)
    args = parser.parse_args([])
    for key, value in values.items():
        if not hasattr(args, key):
            raise TypeError(f"unknown option {key!r}")
        setattr(args, key, value)
    setattr(args, REGISTRY_ATTR, registry)
    return args


def _usage(fn: Any, args: argparse.Namespace) -> Any:
    from .commands._common import UsageError

    try:
        return fn(args)
    except UsageError as exc:
        raise ValueError(str(exc)) from None


def run(*, methods: Optional[Sequence[str]] = None, families: Optional[Sequence[str]] = None,
        results: PathLike = "arena-results", task: Optional[str] = None,
        family_options: Optional[Mapping[str, Mapping[str, Any]]] = None, scm: Optional[Sequence[str]] = None,
        splits: Optional[Sequence[str]] = None, replicates: Optional[int] = None, jobs: int = 1,
        budget_s: float = 600.0, memory_mb: float = 6144.0, standardise: bool = True, protocol: str = "default",
        n: Optional[int] = None, isolation: str = "none", metrics: Sequence[str] = ("f1", "shd"),
        retry: Optional[Sequence[str]] = None, cluster: Optional[str] = None,
        cluster_options: Optional[Mapping[str, Any]] = None, progress: bool = False, extensions: bool = False,
        registry: Any = None) -> Results:
    """Run a grid into ``results`` (resuming what it holds) and return the folder's :class:`Results`.

    The options are those of ``arena run`` (``arena run --help``; the docs' CLI reference):
    ``methods`` / ``families`` / ``scm`` / ``splits`` as lists of names, ``family_options`` as
    ``{family: {key: value}}``, ``budget_s`` the wall-clock seconds of one fit, ``memory_mb`` the
    cap of one worker, ``standardise=False`` for raw tables (``--raw``), ``cluster`` an executor
    spec (``"local:2"`` …) with ``cluster_options``. ``extensions`` runs the report extensions
    (the diagnosis report) at the end, as ``arena run`` does by default; ``registry`` replaces
    the discovered plugins (tests).

    Returns:
        :class:`Results` with this invocation's ``counts`` and ``skipped``.

    Raises:
        ValueError: a bad value or an empty selection (the CLI's usage error, same message).
        causalarena.store.MachineFault: the machine failed (disk, store); what was stored is kept.
    """
    from .commands import run as run_cmd

    values: Dict[str, Any] = dict(
        methods=_csv(methods), families=_csv(families), task=task, scm=_csv(scm), splits=_csv(splits),
        replicates=replicates, jobs=jobs, budget=budget_s, memory_mb=memory_mb, raw=not standardise,
        protocol=protocol, n=n, isolation=isolation, results=str(results), metrics=_csv(metrics),
        retry=_csv(retry), cluster=cluster, no_progress=not progress, no_extensions=not extensions,
        family_option=_family_option_list(family_options),
        cluster_option=[f"{k}={v}" for k, v in (cluster_options or {}).items()])
    args = _namespace(run_cmd.configure, registry, **values)
    outcome = _usage(run_cmd.execute, args)
    return Results(outcome.results, outcome.counts, outcome.skipped, registry)
