"""Helpers shared by the ``arena`` commands (the core's and plugins' own).

The core's commands import from here; a plugin distribution's command
imports the public ones (``UsageError``, ``parse_family_options``,
``add_family_option``) from :mod:`causalarena.commands`. A
:class:`UsageError` is printed by the frame (:mod:`causalarena.cli`) as one
line with exit code 2.

Importing this module is cheap (standard library only): it is imported when
the registry is built, for every ``arena`` invocation.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Tuple

DEFAULT_RESULTS = "arena-results"
STORE_NAME = "arena.sqlite"


class UsageError(Exception):
    """A bad command-line value; printed with exit code 2."""


def _machine_fault(prog: str, exc: BaseException) -> int:
    """Print a :class:`~causalarena.store.MachineFault` as one line on stderr; its exit code (3).

    The fault's message already names the path, the cause and the remedy;
    ``CAUSALARENA_DEBUG=1`` adds the traceback.
    """
    from ..store import MACHINE_FAULT_EXIT

    if os.environ.get("CAUSALARENA_DEBUG"):
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__)
    print(f"{prog}: error: " + " ".join(str(exc).split()), file=sys.stderr)
    return MACHINE_FAULT_EXIT


def _os_error_text(exc: OSError) -> str:
    """``"<cause>: <path>"`` of an OSError; pyarrow's carry neither field, only a message naming the file."""
    if exc.filename is None:
        return " ".join(str(exc).split())
    return f"{exc.strerror or exc}: {exc.filename}"


def _console():
    from rich.console import Console

    # rich falls back to 80 columns when stdout is not a terminal (CI logs, pipes),
    # which wraps every leaderboard cell; use a wide page there instead.
    return Console() if sys.stdout.isatty() else Console(width=200)


def _csv(value: Optional[str]) -> Optional[List[str]]:
    """``"a, b,,c"`` → ``["a", "b", "c"]``; ``None`` or only commas → ``None``."""
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


def _scalar(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_family_options(items: Sequence[str]) -> Dict[str, Dict[str, Any]]:
    """``["synthetic.dims=10,20", "real.csv=a.csv"]`` → ``{"synthetic": {"dims": (10, 20)}, ...}``.

    A value with a comma becomes a tuple; numbers are converted.

    Raises:
        UsageError: an item is not ``family.key=value``.
    """
    out: Dict[str, Dict[str, Any]] = {}
    for item in items:
        head, sep, value = item.partition("=")
        family, dot, key = head.partition(".")
        if not sep or not dot or not family or not key:
            raise UsageError(f"--family-option {item!r}: expected FAMILY.KEY=VALUE (e.g. synthetic.per_cell=3)")
        out.setdefault(family, {})[key] = (
            tuple(_scalar(v) for v in value.split(",") if v) if "," in value else _scalar(value)
        )
    return out


def add_family_option(parser: argparse.ArgumentParser, help: Optional[str] = None) -> None:
    """Add the repeatable ``--family-option FAMILY.KEY=VALUE`` (read with :func:`parse_family_options`)."""
    parser.add_argument("--family-option", action="append", default=[], metavar="FAMILY.KEY=VALUE", help=help)


def _positive(name: str, value: Optional[float], integer: bool = False) -> None:
    if value is not None and not value > 0:
        raise UsageError(f"{name} must be {'a positive integer' if integer else '> 0'}, got {value}")


def _validate_splits(text: Optional[str], allow_views: bool = False) -> None:
    """Raise :class:`UsageError` when ``--splits`` names a split that is not in :data:`~causalarena.family.SPLITS`
    (with ``allow_views``, any other name passes here: a family whose task's splits are views
    (:attr:`causalarena.tasks.Task.splits_are_views`) is checked once its instances are listed)."""
    from ..family import SPLITS

    if allow_views:
        return
    unknown = [sp for sp in (_csv(text) or []) if sp not in SPLITS]
    if unknown:
        raise UsageError(f"--splits: unknown split(s) {unknown}; expected {list(SPLITS)}")


def _validate_metrics(text: Optional[str], registry) -> None:
    """Raise :class:`UsageError` when ``--metrics`` names a metric that is not installed."""
    unknown = [m for m in (_csv(text) or []) if m not in registry.metrics]
    if unknown:
        raise UsageError(f"--metrics: unknown metric(s) {unknown}; installed: {sorted(registry.metrics)}")


def _validate_leaderboard_metrics(text: Optional[str], registry, task: Optional[str] = None,
                                  why: str = "") -> None:
    """:func:`_validate_metrics` for the ``--metrics`` of ``run`` / ``report``, which picks the discovery
    leaderboard's cells: another task's section shows its own columns, so its metric, or any ``--metrics``
    when no discovery cell is shown (``task`` another task; ``why`` says why), would be ignored without
    a word. Raises :class:`UsageError` naming which."""
    _validate_metrics(text, registry)
    named = _csv(text) or []
    if named and task not in (None, "discovery"):
        raise UsageError(f"--metrics picks the discovery leaderboard's cells and {why or f'--task {task} runs no discovery cell'}; "
                         f"the {task} section always shows its own columns")
    other = {m: registry.metrics[m].task for m in named if registry.metrics[m].task != "discovery"}
    if other:
        discovery = sorted(m for m, info in registry.metrics.items() if info.task == "discovery")
        raise UsageError(f"--metrics: {sorted(other)} score(s) the {'/'.join(sorted(set(other.values())))} task; "
                         f"--metrics picks the discovery leaderboard's cells (discovery metrics: {discovery}); "
                         "another task's section shows its columns always")


def _existing_store(results_option: str) -> Tuple[Path, Path]:
    """``(results folder, its store)`` for a command that reads a store (``report``, ``rescore``).

    Raises:
        UsageError: the folder is a file, or holds no store yet.
    """
    results = _results_dir(results_option, create=False)
    path = results / STORE_NAME
    if not path.exists():
        raise UsageError(f"no result store at {path}; run `arena run --results {results_option}` first")
    return results, path


def _results_dir(path: str, create: bool) -> Path:
    results = Path(path)
    if results.exists() and not results.is_dir():
        raise UsageError(f"--results {path!r} is a file, not a folder")
    if create:
        try:
            results.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--results {path!r}: cannot create the folder: {exc.strerror}") from None
        if not os.access(results, os.W_OK):
            raise UsageError(f"--results {path!r}: the folder is not writable")
    return results


class _FolderLock:
    """An exclusive lock on a results folder, so two `arena run`s never compute the same cells.

    POSIX ``flock`` on ``<results>/.arena.lock``; released when the process
    exits, even on SIGKILL. Without ``fcntl`` (Windows) it does nothing.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / ".arena.lock"
        self.fh: Optional[IO[str]] = None

    def __enter__(self) -> "_FolderLock":
        try:
            import fcntl
        except ImportError:  # pragma: no cover - non-POSIX
            return self
        self.fh = fh = open(self.path, "a+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            owner = fh.read().strip() or "?"
            fh.close()
            raise UsageError(f"another `arena run` (pid {owner}) is using {self.path.parent}; "
                             "wait for it or use another --results folder") from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.fh is not None:
            self.fh.close()


#: the attribute of the parsed arguments under which the frame passes its registry
REGISTRY_ATTR = "arena_registry"
#: the attribute of the parsed arguments holding ``{dest: (option, default)}`` of the options plugins added
#: (hook ``arena_addoption``, :func:`causalarena.plugins.add_options`)
PLUGIN_OPTIONS_ATTR = "arena_plugin_options"


def _plugin_options(args: argparse.Namespace) -> Dict[str, Any]:
    """``{dest: value}`` of the options plugins added to this command (hook ``arena_addoption``)."""
    return {dest: getattr(args, dest, default) for dest, (_, default) in getattr(args, PLUGIN_OPTIONS_ATTR, {}).items()}


def _given_plugin_options(args: argparse.Namespace) -> List[str]:
    """The plugin-added options (their flags) given a value other than their default."""
    return [flag for dest, (flag, default) in getattr(args, PLUGIN_OPTIONS_ATTR, {}).items()
            if getattr(args, dest, default) != default]


def _registry(args: Optional[argparse.Namespace] = None, strict: bool = False):
    """The registry a command works with.

    The frame's (``args.arena_registry``, built once per invocation, or the one a
    test passed to :func:`causalarena.cli.main`) unless ``strict`` asks for a
    fresh strict build (``--strict``: an entry point that does not import raises).
    """
    registry = getattr(args, REGISTRY_ATTR, None)
    if registry is not None and not strict:
        return registry
    from ..plugins import get_registry

    return get_registry(strict=strict or None)


def _family_object(registry, name: str, options: Dict[str, Any]):
    info = registry.family(name)
    try:
        return info.load()(**options)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"family {name!r} ({info.distribution}): bad option: {exc}") from None


def _select(table: Dict[str, Any], wanted: Optional[List[str]], what: str) -> List[Any]:
    if wanted is None:
        return list(table.values())
    unknown = [w for w in wanted if w not in table]
    if unknown:
        import difflib

        close = {w: difflib.get_close_matches(w, list(table), n=1) for w in unknown}
        hint = "".join(f"; did you mean {c[0]!r} for {w!r}?" for w, c in close.items() if c)
        if what.startswith("method"):
            hint += ("; a method built only in a sandbox is listed while its environment exists "
                    "(`arena sandbox list`; rebuild with `arena sandbox build PLUGIN`)")
        raise UsageError(f"unknown {what} {unknown}; installed: {sorted(table)}{hint}")
    return [table[w] for w in wanted]


def _print_errors(registry, console) -> None:
    for err in registry.errors:
        console.print(f"[red]plugin error[/red]: entry point {err.name!r} of {err.distribution} "
                      f"{err.version} failed to load: {err.error}")


def _family_instances(registry, families: List[Any], options: Dict[str, Dict[str, Any]],
                      scm_ids: Optional[List[str]]) -> List[Tuple[Any, Any]]:
    """``(family object, instance)`` for every selected instance, families in order.

    With ``scm_ids`` each family contributes what :meth:`Family.select
    <causalarena.family.Family.select>` finds (an id ``FAMILY/ID``, as ``arena show`` prints it,
    is asked of that family only); with one family selected, an id
    it does not have is asked of :meth:`~causalarena.family.Family.instance`
    so a malformed id fails with the family's own message.

    Raises:
        UsageError: a family cannot be listed (a bad user table, a missing
            file, a malformed id), or no selected family has an id.
    """
    out: List[Tuple[Any, Any]] = []
    unmatched = set(scm_ids or ())
    names = {info.name for info in families}
    for info in families:
        fam = _family_object(registry, info.name, options.get(info.name, {}))
        # an id as `arena show` prints it ("synthetic/er-d10-000") selects in its own family only
        wanted: Dict[str, str] = {}
        for sid in scm_ids or ():
            prefix, sep, rest = sid.partition("/")
            if sep and prefix in names:
                if prefix == info.name:
                    wanted[rest] = sid
            else:
                wanted[sid] = sid
        try:
            insts = (fam.select(list(wanted)) if wanted else []) if scm_ids else fam.instances()
            found = {i.scm_id for i in insts}
            if scm_ids and len(families) == 1:
                for sid in wanted:
                    if sid not in found:
                        try:
                            fam.instance(sid)  # a malformed id raises its real ValueError here
                        except KeyError:
                            pass  # not an id of this family: reported below
            unmatched.difference_update(wanted[sid] for sid in found if sid in wanted)
        except (ValueError, OSError) as exc:  # a bad user table, a missing file, a malformed id
            raise UsageError(f"family {info.name!r}: {exc}") from None
        out.extend((fam, inst) for inst in insts)
    if scm_ids and unmatched:
        raise UsageError(f"--scm: no selected family has instance(s) {sorted(unmatched)}")
    return out


def _apply_fresh(args, registry, families, options) -> None:
    """``--fresh ROUND``: pass ``fresh=ROUND`` to the selected families that draw fresh rounds
    (:attr:`Family.takes_fresh <causalarena.family.Family.takes_fresh>`); the others are dropped."""
    if getattr(args, "fresh", None) is None:
        return
    _positive("--fresh", args.fresh, integer=True)
    takers = [info.name for info in families if info.load().takes_fresh]
    if not takers:
        raise UsageError(f"--fresh: none of the selected families {[f.name for f in families]} draws fresh rounds")
    for name in takers:
        options.setdefault(name, {})["fresh"] = int(args.fresh)
    families[:] = [f for f in families if f.name in takers]


def _write_report_files(write_report, runs, results, metrics, console) -> Dict[str, Path]:
    """``write_report``, printing its ReportWarnings (a file left out) instead of hiding them."""
    import warnings

    from rich.markup import escape

    from ..report import ReportWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ReportWarning)
        paths = write_report(runs, results, metrics=metrics)
    for w in caught:
        if issubclass(w.category, ReportWarning):
            console.print(f"[yellow]warning[/yellow]: {escape(str(w.message))}")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return paths


def _store_reader(path: Path) -> Callable[..., Any]:
    """``(name, *args) -> Store(path, readonly=True).<name>(*args)``: the lazy store reads of a :class:`ReportContext`."""
    from ..store import Store

    def read(name: str, *args: Any) -> Any:
        with Store(str(path), readonly=True) as store:
            return getattr(store, name)(*args)

    return read


def _check_report_options(registry: Any, options: Dict[str, Any], runs: Any) -> None:
    """Each report extension's ``check`` on the options; the first ``ValueError`` is a :class:`UsageError`."""
    reports = sorted(registry.reports.values(), key=lambda r: (r.order, r.name))
    for info in reports:
        try:
            check = info.load_check()
        except Exception as exc:  # noqa: BLE001 - a broken extension is reported when it runs
            _debug(exc)
            continue
        if check is None:
            continue
        try:
            import inspect

            takes_registry = len(inspect.signature(check).parameters) >= 3
        except (TypeError, ValueError):  # a builtin or C callable: the current form
            takes_registry = True
        try:
            check(options, runs, registry) if takes_registry else check(options, runs)  # the pre-0.8 form
        except ValueError as exc:
            raise UsageError(" ".join(str(exc).split())) from None


def _run_report_extensions(registry: Any, results: Path, store_path: Path, runs: Any, console: Any,
                           options: Dict[str, Any]) -> None:
    """Run every report extension (hook ``arena_reports``) on the folder's runs (``arena report`` and ``arena run``)."""
    from ..records import ReportContext

    context = ReportContext(results=results, store_path=store_path, runs=runs, registry=registry, console=console,
                            options=options, reader=_store_reader(store_path))
    _run_reports(registry, context, console)


def _summarise_files(results: Path, files: Dict[str, Path]) -> str:
    """``index.html, 12 files in tables/, 22 in figures/``: files in the folder by name, subfolders counted."""
    top: List[str] = []
    sub: Dict[str, int] = {}
    for p in files.values():
        try:
            rel = Path(p).resolve().relative_to(Path(results).resolve())
        except ValueError:
            top.append(str(p))
            continue
        if len(rel.parts) == 1:
            top.append(str(Path(results) / rel))
        else:
            sub[rel.parts[0]] = sub.get(rel.parts[0], 0) + 1
    parts = [f"{n} file{'s' if n != 1 else ''} in {Path(results) / d}/" for d, n in sub.items()]
    html = [t for t in top if t.endswith(".html")]
    return ", ".join(parts + [t for t in top if t not in html] + html)


def _run_reports(registry: Any, context: Any, console: Any) -> None:
    """Call every registered report in ``order``; a failing one is one yellow line, never fatal."""
    from rich.markup import escape

    reports = sorted(registry.reports.values(), key=lambda r: (r.order, r.name))
    if not reports:
        console.print("[dim]pip install arena-diagnosis adds slices, win rates, figures and the HTML report[/dim]")
        return
    for info in reports:
        who = f"report {info.name!r}" + (f" of {info.distribution} {info.version}".rstrip() if info.distribution else "")
        try:
            written = info.load()(context)
            if not isinstance(written, dict):
                raise TypeError(f"returned {type(written).__name__}, expected a dict of the files it wrote")
            files: Dict[str, Path] = {str(k): Path(v) for k, v in written.items()}
        except OSError as exc:  # its files could not be written: the leaderboard above stands
            _debug(exc)
            console.print(f"[yellow]{escape(who)}: files not written[/yellow] "
                          f"({escape(_os_error_text(exc))})", soft_wrap=True)
            continue
        except Exception as exc:  # noqa: BLE001 - an extension's bug never costs the leaderboard
            _debug(exc)
            console.print(f"[yellow]{escape(who)} failed[/yellow]: {escape(type(exc).__name__)}: "
                          f"{escape(' '.join(str(exc).split()))}", soft_wrap=True)
            continue
        if files:
            console.print(f"{escape(info.name)}: wrote " + escape(_summarise_files(context.results, files)),
                          highlight=False, soft_wrap=True)
            pages = [p for p in files.values() if Path(p).suffix == ".html"]
            if pages:
                console.print(f"report page: {escape(str(pages[-1]))} (open it in a browser)", highlight=False,
                              soft_wrap=True)


def _debug(exc: BaseException) -> None:
    """The traceback of a failed report on stderr when ``CAUSALARENA_DEBUG`` is set."""
    if os.environ.get("CAUSALARENA_DEBUG"):
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
