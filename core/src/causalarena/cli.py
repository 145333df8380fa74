"""The ``arena`` command line.

Commands::

    arena plugins [--json] [--strict]      everything installed, with distribution and version
    arena methods | families [--json]      the installed methods / families
    arena audit FAMILY                     regenerate + audit a family's SCMs (App. A.2)
    arena show FAMILY[/SCM_ID]             an SCM spec as JSON (or the family's instance ids)
    arena run [options]                    run the grid, resume, print the leaderboard
    arena report [--results DIR]           the leaderboard of a results folder
    arena export [--family F] [--scm ID]   datasets (Parquet), specs (JSON), adjacency (CSV)
    arena validate PATH                    check scenario cards (a file or a folder) against every gate
    arena card show|render ID|PATH         a scenario card as a table / drawn graph (PNG + SVG)

Exit codes: 0 success, 1 runtime failure, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

DEFAULT_RESULTS = "arena-results"
STORE_NAME = "arena.sqlite"


class UsageError(Exception):
    """A bad command-line value; printed with exit code 2."""


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _console():
    from rich.console import Console

    # rich falls back to 80 columns when stdout is not a terminal (CI logs, pipes),
    # which wraps every leaderboard cell; use a wide page there instead.
    return Console() if sys.stdout.isatty() else Console(width=200)


def _csv(value: Optional[str]) -> Optional[List[str]]:
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


def _positive(name: str, value: Optional[float], integer: bool = False) -> None:
    if value is not None and not value > 0:
        raise UsageError(f"{name} must be {'a positive integer' if integer else '> 0'}, got {value}")


def _validate_run_args(args, registry) -> None:
    """Reject bad values before anything runs (they would otherwise be stored as method failures)."""
    _positive("--jobs", args.jobs, integer=True)
    _positive("--budget", args.budget)
    _positive("--memory-mb", args.memory_mb)
    _positive("--n", args.n, integer=True)
    _positive("--replicates", args.replicates, integer=True)
    from .family import SPLITS

    unknown = [sp for sp in (_csv(args.splits) or []) if sp not in SPLITS]
    if unknown:
        raise UsageError(f"--splits: unknown split(s) {unknown}; expected {list(SPLITS)}")
    if args.protocol not in registry.interventions:
        raise UsageError(f"--protocol {args.protocol!r} is not installed; installed: {sorted(registry.interventions)}")
    _validate_metrics(args.metrics, registry)
    import shutil

    python = shutil.which(args.python) or args.python
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise UsageError(f"--python {args.python!r} is not an executable interpreter")
    from .isolation import ISOLATION_CHOICES

    known = sorted(set(ISOLATION_CHOICES) | set(registry.isolation_backends))
    if getattr(args, "isolation", "auto") not in known:
        raise UsageError(f"--isolation {args.isolation!r}: expected one of {known}"
                         + ("" if registry.isolation_backends else " (pip install arena-sandbox for venv, docker)"))
    from .report import STATUSES

    bad = [s for s in (_csv(args.retry) or []) if s not in STATUSES]
    if bad:
        raise UsageError(f"--retry: unknown status(es) {bad}; expected some of {list(STATUSES)}")


def _validate_metrics(text: Optional[str], registry) -> None:
    unknown = [m for m in (_csv(text) or []) if m not in registry.metrics]
    if unknown:
        raise UsageError(f"--metrics: unknown metric(s) {unknown}; installed: {sorted(registry.metrics)}")


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
        self.fh = None

    def __enter__(self) -> "_FolderLock":
        try:
            import fcntl
        except ImportError:  # pragma: no cover - non-POSIX
            return self
        self.fh = open(self.path, "a+")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.fh.seek(0)
            owner = self.fh.read().strip() or "?"
            self.fh.close()
            raise UsageError(f"another `arena run` (pid {owner}) is using {self.path.parent}; "
                             "wait for it or use another --results folder") from None
        self.fh.seek(0)
        self.fh.truncate()
        self.fh.write(str(os.getpid()))
        self.fh.flush()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.fh is not None:
            self.fh.close()


def _registry(strict: bool = False):
    from .plugins import get_registry

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
        hint = ""
        if what.startswith("method"):
            hint = ("; a method built only in a sandbox is listed while its environment exists "
                    "(`arena sandbox list`; rebuild with `arena sandbox build PLUGIN`)")
        raise UsageError(f"unknown {what} {unknown}; installed: {sorted(table)}{hint}")
    return [table[w] for w in wanted]


def _print_errors(registry, console) -> None:
    for err in registry.errors:
        console.print(f"[red]plugin error[/red]: entry point {err.name!r} of {err.distribution} "
                      f"{err.version} failed to load: {err.error}")


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------


def cmd_plugins(args) -> int:
    registry = _registry(args.strict)
    rows = registry.as_rows()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from rich.table import Table

    console = _console()
    table = Table(title="CausalArena plugins")
    for col in ("kind", "name", "distribution", "version", "description"):
        table.add_column(col)
    for row in rows:
        style = "red" if row["kind"] == "error" else None
        table.add_row(*(str(row[c]) for c in ("kind", "name", "distribution", "version", "description")),
                      style=style)
    console.print(table)
    return 0


def _cmd_kind(kind: str):
    def command(args) -> int:
        registry = _registry(getattr(args, "strict", False))
        records = list(registry.kind(kind).values())
        if args.json:
            import attrs

            print(json.dumps([attrs.asdict(r) for r in records], indent=2, default=str))
            return 0
        from rich.table import Table

        console = _console()
        table = Table(title=f"installed {kind}")
        if kind == "methods":
            cols = ("name", "distribution", "version", "output", "interventions", "installed in", "description")
            for c in cols:
                table.add_column(c)
            for r in records:
                table.add_row(r.name, r.distribution, r.version, r.output_kind,
                              "yes" if r.supports_interventions else "no",
                              "sandbox" if r.environment == "venv" else "this env", r.description)
        else:
            for c in ("name", "kind", "distribution", "version", "description"):
                table.add_column(c)
            for r in records:
                table.add_row(r.name, r.kind, r.distribution, r.version, r.description)
        console.print(table)
        _print_errors(registry, console)
        return 0

    return command


def cmd_show(args) -> int:
    family, sep, scm_id = args.scm.partition("/")
    registry = _registry()
    fam = _family_object(registry, family, parse_family_options(args.family_option).get(family, {}))
    if not sep or not scm_id:  # `arena show synthetic`: list the instance ids
        for inst in fam.instances():
            if getattr(inst, "error", None):
                print(f"{family}/{inst.scm_id}\tnot generated: {inst.error}")
                continue
            d = inst.true_adjacency().shape[0]
            print(f"{family}/{inst.scm_id}\td={d}\tsplits={','.join(inst.splits)}\treplicates={inst.n_replicates}")
        return 0
    try:
        inst = fam.instance(scm_id)
    except PermissionError as exc:
        raise UsageError(str(exc)) from None
    except (KeyError, ValueError) as exc:
        raise UsageError(f"no instance {scm_id!r} in family {family!r}: {exc.args[0]}") from None
    spec = getattr(inst, "spec", None)
    if spec is None:
        print(json.dumps({"family": family, "scm_id": scm_id, "factors": inst.factors,
                          "note": "a real table has no executable spec",
                          "adjacency": inst.true_adjacency().tolist()}, indent=2, default=str))
    else:
        print(spec.to_json())
    return 0


def _instances(registry, families: List[Any], options: Dict[str, Dict[str, Any]], scm_ids: Optional[List[str]]):
    out = []
    unmatched = set(scm_ids or ())
    for info in families:
        fam = _family_object(registry, info.name, options.get(info.name, {}))
        try:
            if scm_ids and hasattr(fam, "config_ids"):
                # a grid family generates any valid id on request, inside the option selection or not
                insts = []
                for sid in scm_ids:
                    try:
                        insts.append(fam.instance(sid))
                    except ValueError:
                        if len(families) == 1:
                            raise
                        # not this family's id: another selected family may have it
            else:
                insts = fam.instances()
                if scm_ids:
                    insts = [i for i in insts if i.scm_id in scm_ids]
            unmatched.difference_update(i.scm_id for i in insts)
        except (ValueError, OSError) as exc:  # a bad user table, a missing file, a malformed id
            raise UsageError(f"family {info.name!r}: {exc}") from None
        out.extend(insts)
    if scm_ids and unmatched:
        raise UsageError(f"--scm: no selected family has instance(s) {sorted(unmatched)}")
    return out


def cmd_run(args) -> int:
    from .report import print_report, write_report
    from .runner import grid_keys, make_cells, run_grid
    from .store import Store

    registry = _registry(args.strict)
    console = _console()
    _print_errors(registry, console)
    _validate_run_args(args, registry)
    methods = _select(registry.methods, _csv(args.methods), "method(s)")
    families = _select(registry.families, _csv(args.families), "family(ies)")
    if not methods:
        raise UsageError("no method installed: pip install a plugin, e.g. plugins/pc")
    if not families:
        raise UsageError("no family installed: pip install a family, e.g. families/synthetic")
    options = parse_family_options(args.family_option)
    for fam_name in options:
        if fam_name not in registry.families:
            raise UsageError(f"--family-option for unknown family {fam_name!r}; installed: {sorted(registry.families)}")
    suite = None
    grids = [(args.protocol, args.n)]
    splits = _csv(args.splits)
    if args.suite:
        suite = _find_suite(registry, args.suite)
        if args.families or args.protocol != "default" or args.n is not None:
            raise UsageError("--suite sets the family, protocols and sample sizes; "
                             "drop --families/--protocol/--n (narrow it with --family-option, --scm, --replicates)")
        families = [registry.family(suite.family)]
        options[suite.family] = {**suite.family_options, **options.get(suite.family, {})}
        grids = [(p, n) for p in suite.protocols for n in suite.n_values]
        unknown = [p for p, _ in grids if p not in registry.interventions]
        if unknown:
            raise UsageError(f"suite {suite.name!r} needs intervention protocol(s) {unknown}; "
                             f"installed: {sorted(registry.interventions)}")
        splits = splits or list(suite.splits)
    _apply_fresh(args, registry, families, options)
    instances = _instances(registry, families, options, _csv(args.scm))
    replicates = list(range(args.replicates)) if args.replicates is not None else None
    if args.replicates is not None and instances:
        most = max(i.n_replicates for i in instances)
        if args.replicates > most:
            raise UsageError(f"--replicates {args.replicates}: the selected instances provide at most {most} "
                             "(set synthetic.n_replicates to draw more)")
    cells = make_cells(instances, methods, splits=splits, replicates=replicates)
    if not cells:
        raise UsageError("the selection gives no cells (check --splits, --scm, --replicates)")
    results = _results_dir(args.results, create=True)
    what = f"suite {suite.name!r}: {len(grids)} grids × " if suite else ""
    console.print(f"[bold]CausalArena[/bold]: {what}{len(methods)} methods × {len(instances)} instances "
                  f"→ {len(cells) * len(grids)} cells; results in {results}/ (rerun the same command to resume)")
    # one BLAS/OpenMP thread budget per worker, so N workers do not oversubscribe the cores
    threads = str(max(1, (os.cpu_count() or 1) // max(1, args.jobs)))
    worker_env = {var: os.environ.get(var, threads)
                  for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    counts: Dict[str, int] = {}
    skipped = 0
    elapsed = 0.0
    keys: set = set()
    launcher = _isolation_launcher(args, registry, methods, console, python=args.python)
    with _FolderLock(results), Store(str(results / STORE_NAME)) as store:
        for protocol, n in grids:
            if len(grids) > 1:
                console.print(f"grid: protocol={protocol}" + (f", n={n}" if n else ""))
            grid_cells = cells
            summary = run_grid(
                grid_cells, registry, store, jobs=args.jobs, budget_s=args.budget, memory_mb=args.memory_mb,
                env=worker_env,
                python=args.python, standardise=not args.raw, protocol=protocol, n=n,
                progress=not args.no_progress, cache_dir=str(results / "datasets"),
                retry_statuses=tuple(_csv(args.retry) or ()), suite=suite.name if suite else None,
                launcher=launcher,
            )
            for k, v in summary.counts.items():
                counts[k] = counts.get(k, 0) + v
            skipped += summary.skipped
            elapsed += summary.elapsed_seconds
            keys |= set(grid_keys(grid_cells, standardise=not args.raw, protocol=protocol, n=n))
        runs = store.runs_frame()
    done = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"
    console.print(f"this invocation: {done}; skipped {skipped} already stored; {elapsed:.1f} s")
    metrics = tuple(_csv(args.metrics) or ("f1", "shd"))
    print_report(_only_keys(runs, keys), console=console, metrics=metrics)
    # the files describe the whole folder (every grid run into it), as `arena report` does
    paths = _write_report_files(write_report, runs, results, metrics, console)
    console.print("wrote " + ", ".join(str(p) for p in paths.values()) + " (every run stored in this folder)")
    return 0


def _write_report_files(write_report, runs, results, metrics, console) -> Dict[str, Path]:
    """``write_report``, printing its ReportWarnings (a file left out) instead of hiding them."""
    import warnings

    from rich.markup import escape

    from .report import ReportWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ReportWarning)
        paths = write_report(runs, results, metrics=metrics)
    for w in caught:
        if issubclass(w.category, ReportWarning):
            console.print(f"[yellow]warning[/yellow]: {escape(str(w.message))}")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return paths


def _find_suite(registry, name: str):
    """The suite ``name`` among the installed families' ``suites``."""
    found = {}
    for info in registry.families.values():
        try:
            cls = info.load()
        except Exception:  # noqa: BLE001 - a broken family cannot offer suites
            continue
        for suite in getattr(cls, "suites", ()) or ():
            found[suite.name] = suite
    if name not in found:
        raise UsageError(f"--suite {name!r} is not offered by an installed family; available: {sorted(found)}")
    return found[name]


def _apply_fresh(args, registry, families, options) -> None:
    """``--fresh ROUND``: pass ``fresh=ROUND`` to the selected families that draw fresh rounds."""
    if getattr(args, "fresh", None) is None:
        return
    import inspect

    _positive("--fresh", args.fresh, integer=True)
    takers = [info.name for info in families if "fresh" in inspect.signature(info.load().__init__).parameters]
    if not takers:
        raise UsageError(f"--fresh: none of the selected families {[f.name for f in families]} draws fresh rounds")
    for name in takers:
        options.setdefault(name, {})["fresh"] = int(args.fresh)
    families[:] = [f for f in families if f.name in takers]


def _only_keys(runs, keys):
    """The rows of this grid (other grids in the same store are left to `arena report`)."""
    if runs is None or len(runs) == 0:
        return runs
    from .store import KEY_COLUMNS

    mask = [tuple(row) in keys for row in runs[list(KEY_COLUMNS)].itertuples(index=False, name=None)]
    return runs[mask].reset_index(drop=True)


def _isolation_launcher(args, registry, methods, console, python: str):
    """``method -> WorkerLaunch`` for ``--isolation`` (see :mod:`causalarena.isolation`).

    Chooses a backend per method, prints the choice, and prepares (builds)
    each isolated environment once before the grid; a method whose backend
    cannot serve it gets an :class:`IsolationError` that the runner records
    as ``env_error`` in every cell of that method.
    """
    from .isolation import ISOLATION_CHOICES, IsolationError, choose_backend, local_launch

    isolation = args.isolation
    known = sorted(set(ISOLATION_CHOICES) | set(registry.isolation_backends))
    if isolation not in known:
        raise UsageError(f"--isolation {isolation!r}: expected one of {known}"
                         + ("" if registry.isolation_backends else " (pip install arena-sandbox for venv, docker)"))
    backends = {}
    for name, rec in registry.isolation_backends.items():
        try:
            backends[name] = rec.load()()
        except Exception as exc:  # noqa: BLE001 - a broken backend is reported, others still work
            console.print(f"[yellow]isolation backend {name!r} ({rec.distribution}) failed to load: {exc}[/yellow]")
    plan: Dict[str, Any] = {}
    for m in methods:
        try:
            backend, why = choose_backend(m, isolation, backends)
        except IsolationError as exc:
            plan[m.name] = exc
            console.print(f"  {m.name}: [red]env_error[/red] {exc}")
            continue
        if backend == "none":
            plan[m.name] = None
            if isolation != "auto" or len(methods) <= 12:
                console.print(f"  {m.name}: this environment ({why})", highlight=False)
            continue
        impl = backends[backend]
        reason = impl.available()
        if reason:
            plan[m.name] = IsolationError(f"method {m.name!r} needs the {backend} backend ({why}), "
                                          f"which cannot run here: {reason}")
            console.print(f"  {m.name}: [red]env_error[/red] {plan[m.name]}")
            continue
        console.print(f"  {m.name}: {backend} ({why})", highlight=False)
        try:
            impl.prepare(m, log=lambda text: console.print(f"    {text}", highlight=False))
            plan[m.name] = impl
        except IsolationError as exc:
            plan[m.name] = exc
            console.print(f"  {m.name}: [red]env_error[/red] {exc}")

    cache_dir = str(_results_dir(args.results, create=True) / "datasets")

    def launcher(m):
        target = plan.get(m.name)
        if target is None:
            return local_launch(python)
        if isinstance(target, IsolationError):
            raise target
        return target.launch(m, cache_dir=cache_dir, memory_mb=args.memory_mb)

    return launcher


def cmd_sandbox(args) -> int:
    """``arena sandbox …``: delegated to the arena-sandbox distribution."""
    try:
        from arena_sandbox.cli import main as sandbox_main
    except ImportError:
        raise UsageError("the sandbox commands come with arena-sandbox: pip install arena-sandbox "
                         "(in this repository: pip install ./sandbox)") from None
    return int(sandbox_main(list(args.sandbox_args)) or 0)


def cmd_report(args) -> int:
    from .report import print_report, write_report
    from .store import Store

    results = _results_dir(args.results, create=False)
    path = results / STORE_NAME
    if not path.exists():
        raise UsageError(f"no result store at {path}; run `arena run --results {args.results}` first")
    _validate_metrics(args.metrics, _registry())
    with Store(str(path), readonly=True) as store:
        runs = store.runs_frame()
    if len(runs) == 0:
        raise UsageError(f"{path} holds no runs yet")
    console = _console()
    if args.runtime:
        return _report_runtime(runs, results, console)
    metrics = tuple(_csv(args.metrics) or ("f1", "shd"))
    print_report(runs, console=console, metrics=metrics)
    try:
        paths = _write_report_files(write_report, runs, results, metrics, console)
    except OSError as exc:
        console.print(f"[yellow]report files not written[/yellow] ({exc.strerror}: {exc.filename}); "
                      "the leaderboard above is complete")
        return 0
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def _report_runtime(runs, results, console) -> int:
    """`arena report --runtime`: load vs per-graph time (§5.5, Table 5), runtime.csv."""
    from .report import print_runtime, runtime_table, write_runtime

    try:
        table = runtime_table(runs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print_runtime(table, console=console)
    try:
        path = write_runtime(table, results)
    except OSError as exc:
        console.print(f"[yellow]runtime.csv not written[/yellow] ({exc.strerror}: {exc.filename})")
        return 0
    console.print(f"wrote {path}")
    return 0


def cmd_audit(args) -> int:
    from rich.table import Table

    from .audits import audit_family, summarise_audit

    registry = _registry()
    _positive("--jobs", args.jobs, integer=True)
    _positive("--replicates", args.replicates, integer=True)
    info = registry.family(args.family)
    options = parse_family_options(args.family_option).get(args.family, {})
    opts = {args.family: options}
    _apply_fresh(args, registry, [info], opts)
    options = opts[args.family]
    fam = _family_object(registry, args.family, options)
    from .cards.family import CardFamily

    if isinstance(fam, CardFamily):
        return _audit_cards(args, fam)
    if hasattr(fam, "config_ids"):
        ids = fam.config_ids()
    else:
        insts = fam.instances()
        if not any(getattr(i, "spec", None) is not None for i in insts):
            raise UsageError(f"family {args.family!r} has no executable SCMs to audit (its instances are tables)")
        ids = [i.scm_id for i in insts]
    if args.scm:
        ids = [i for i in ids if i in _csv(args.scm)]
    if not ids:
        raise UsageError("nothing to audit (check --scm and the family options)")
    console = _console()
    console.print(f"auditing {len(ids)} {args.family} configurations with {args.jobs} processes …")
    import time

    t0 = time.perf_counter()
    records = audit_family(args.family, options, ids, jobs=args.jobs, splits=_csv(args.splits),
                           replicates=args.replicates)
    elapsed = time.perf_counter() - t0
    summary = summarise_audit(records)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps({k: v for k, v in rec.items() if k != "node_tags"}, default=str) + "\n")
    ok = summary["passed"] == summary["configurations"]
    console.print(f"[{'green' if ok else 'red'}]{summary['passed']} / {summary['configurations']} configurations "
                  f"pass[/]; {summary['tables'] - summary['failed_tables']} / {summary['tables']} tables pass; "
                  f"{elapsed:.1f} s")
    for line in summary["generation_errors"][:20]:
        console.print(f"[red]generation failed[/red] {line}")
    for rec in records:
        for f in rec.get("failures", [])[:3]:
            console.print(f"[red]fail[/red] {rec['scm_id']} {f['split']} rep {f['replicate']}: {f['reason']}")
    table = Table(title="resample statistics (App. A.2 gates, bounded resampling)")
    for c in ("stage", "attempts mean", "attempts max", "rejections by reason"):
        table.add_column(c)
    for stage in ("graph", "data"):
        att = summary[f"{stage}_attempts"]
        table.add_row(stage, f"{sum(att) / len(att):.2f}" if att else "–", str(max(att)) if att else "–",
                      ", ".join(f"{k} {v}" for k, v in sorted(summary[f"{stage}_rejections"].items())) or "none")
    console.print(table)
    expected = getattr(fam, "expected_counts", lambda: {})()
    counts = Table(title="factor counts (SCMs carrying the tag; nodes for node-level tags)")
    for c in ("factor", "value", "SCMs", "expected", "nodes"):
        counts.add_column(c)
    for key, values in summary["counts"].items():
        node_key = {"mechanisms": "mechanism", "noises": "noise", "roots": "root"}.get(key)
        for value, n in sorted(values.items(), key=lambda kv: (-kv[1], kv[0])):
            exp = expected.get(key, {}).get(value)
            nodes = summary["node_counts"][node_key].get(value, "") if node_key else ""
            counts.add_row(key, value, str(n), "" if exp is None else str(exp), str(nodes))
    console.print(counts)
    if expected:
        mismatched = [f"{k}={v}: {summary['counts'].get(k, {}).get(v, 0)} vs {n}"
                      for k, vals in expected.items() for v, n in vals.items()
                      if summary["counts"].get(k, {}).get(v, 0) != n]
        if mismatched:
            console.print(f"[red]counts differ from the schedule[/red]: {mismatched[:10]}")
            ok = False
        else:
            console.print("[green]counts match the grid's schedule[/green]")
    return 0 if ok else 1


def _audit_cards(args, fam) -> int:
    """``arena audit semantic|formula``: the card gates on every split × replicate table."""
    import time

    console = _console()
    t0 = time.perf_counter()
    records = fam.audit(_csv(args.splits), args.replicates, _csv(args.scm))
    if not records:
        raise UsageError("nothing to audit (check --scm and the family options)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, default=str) + "\n")
    passed = sum(r["passed"] for r in records)
    tables = sum(r["tables"] for r in records)
    bad_tables = sum(r.get("failed_tables", 0) for r in records)
    ok = passed == len(records)
    console.print(f"[{'green' if ok else 'red'}]{passed} / {len(records)} cards pass[/]; "
                  f"{tables - bad_tables} / {tables} tables pass (card gates, App. A.3 stage 5); "
                  f"{time.perf_counter() - t0:.1f} s")
    from rich.markup import escape

    for rec in records:
        for err in rec["errors"][:3]:
            console.print(f"[red]invalid[/red] {escape(rec['scm_id'])}: {escape(err)}")
        for f in rec["failures"][:3]:
            console.print(f"[red]fail[/red] {escape(rec['scm_id'])} {f['split']} rep {f['replicate']}: "
                          f"{escape(f['reason'])}")
    return 0 if ok else 1


def cmd_export(args) -> int:
    from .export import export_instance, write_release_manifest

    registry = _registry()
    _positive("--replicates", args.replicates, integer=True)
    from .family import SPLITS

    unknown = [sp for sp in (_csv(args.splits) or []) if sp not in SPLITS]
    if unknown:
        raise UsageError(f"--splits: unknown split(s) {unknown}; expected {list(SPLITS)}")
    families = _select(registry.families, _csv(args.family), "family(ies)")
    options = parse_family_options(args.family_option)
    _apply_fresh(args, registry, families, options)
    instances = _instances(registry, families, options, _csv(args.scm))
    if not instances:
        raise UsageError("nothing to export (check --family and --scm)")
    if args.splits:
        missing = [f"{i.family}/{i.scm_id}" for i in instances if not set(_csv(args.splits)) & set(i.splits)]
        if missing:
            raise UsageError(f"--splits {args.splits}: not provided by {missing} (e.g. real tables are obs only)")
    written = 0
    for inst in instances:
        written += len(export_instance(inst, args.out, splits=_csv(args.splits),
                                       replicates=(list(range(args.replicates))
                                                   if args.replicates is not None else None),
                                       standardise=not args.raw, audit=not args.no_audit))
    manifest = write_release_manifest(
        args.out, instances, command="arena " + " ".join(sys.argv[1:]),
        settings={"standardised": not args.raw, "splits": _csv(args.splits) or "all the instance provides",
                  "replicates": args.replicates or "all the instance provides",
                  "columns": "one float64 column per variable, mask__<var> (bool, True where an intervention set "
                             "the entry), regime (int64: -1 observational, else the row's first target index)"})
    failed = [e["scm_id"] for e in json.loads(manifest.read_text())["instances"] if e["audit_passed"] is False]
    _console().print(f"exported {len(instances)} instances ({written + 1} files) to {args.out}/"
                     + (f"; [red]audit failed for {failed[:10]}[/red]" if failed else ""))
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# scenario cards
# ---------------------------------------------------------------------------


def cmd_validate(args) -> int:
    from .cards.validate import format_reports, residual_summary, validate_path

    reports = []
    for path in args.paths:
        try:
            reports.extend(validate_path(path, pool_severity="error" if args.strict else "warning",
                                         data=not args.no_data, all_tables=args.all_tables))
        except FileNotFoundError as exc:
            raise UsageError(str(exc)) from None
    if len(args.paths) > 1:  # duplicate ids across the given paths (validate_path checks within one)
        from .cards.model import CardIssue

        first: Dict[tuple, str] = {}
        for r in reports:
            key = (r.family, r.card_id)
            if r.card_id == "?" or any("duplicate" in i.message and i.field == "id" for i in r.issues):
                continue
            if key in first and first[key] != r.path:
                r.issues.append(CardIssue(card=r.path, field="id", line=None, gate="schema",
                                          message=f"duplicate {r.family} card id {r.card_id!r} (also {first[key]})"))
            first.setdefault(key, r.path)
    if args.json:
        rows = [{"path": r.path, "id": r.card_id, "family": r.family, "ok": r.ok, "stats": r.stats,
                 "issues": [{"field": i.field, "line": i.line, "gate": i.gate, "severity": i.severity,
                             "message": i.message} for i in r.issues]} for r in reports]
        print(json.dumps(rows, indent=2, default=str))
    else:
        if args.verbose:
            for r in reports:
                res = residual_summary(r)
                status = "ok" if r.ok else "FAILED"
                print(f"{r.path}: {status} ({r.family} {r.card_id}: {r.stats.get('d', '?')} variables, "
                      f"{r.stats.get('edges', '?')} edges)" + (f"; {res}" if res else ""))
        print(format_reports(reports))
    if not reports:
        print("no card files (*.yaml, *.yml) found", file=sys.stderr)
        return 1
    failed = any(not r.ok for r in reports) or (args.strict and any(r.warnings for r in reports))
    return 1 if failed else 0


def _find_card(ref: str, family_options) -> Path:
    """A card file from a path, ``ID`` or ``FAMILY/ID`` among installed card families."""
    p = Path(ref)
    if p.is_file():
        return p
    from .cards.family import CardFamily

    fam_name, _, cid = ref.rpartition("/")
    registry = _registry()
    options = parse_family_options(family_options)
    known = []
    for info in registry.families.values():
        if fam_name and info.name != fam_name:
            continue
        try:
            cls = info.load()
        except Exception:  # noqa: BLE001 - a broken family is listed by `arena plugins`
            continue
        if not (isinstance(cls, type) and issubclass(cls, CardFamily)):
            continue
        fam = cls(**options.get(info.name, {}))
        for path, _ in fam.card_paths():
            if path.stem == cid:
                return path
            known.append(f"{info.name}/{path.stem}")
    card_families = [n for n, info in registry.families.items() if info.kind in ("semantic", "formula")]
    if fam_name and fam_name not in registry.families:
        hint = f" (no family {fam_name!r}; card families: {', '.join(card_families) or 'none installed'})"
    elif known:
        hint = f" (e.g. {', '.join(sorted(known)[:4])})"
    else:
        hint = " (no card family is installed)" if not card_families else ""
    raise UsageError(f"no card {ref!r}: not a file and not a card id of an installed family{hint}; for your own "
                     "cards pass the file path, or --family-option semantic.cards=FOLDER")


def cmd_card(args) -> int:
    from .cards import render
    from .cards.model import CardError, load_card

    path = _find_card(args.card, args.family_option)
    try:
        card = load_card(path)
    except CardError as exc:
        raise UsageError(f"cannot read card:\n{exc}") from None
    from .cards.validate import validate_card

    errors = validate_card(path, data=False).errors  # static gates only: cheap, and says if the card is usable
    if errors:
        print(f"note: this card does not pass validation ({len(errors)} error(s); `arena validate {path}` lists "
              f"them), e.g. {errors[0]}", file=sys.stderr)
    if args.action == "show":
        render.show(card, _console())
        return 0
    outs = render.render(card, args.out, formats=_csv(args.format) or ["png", "svg"])
    for o in outs:
        print(o)
    return 0


# ---------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arena", description="CausalArena: benchmark causal discovery methods "
                                "on executable SCMs under one shared protocol.")
    sub = p.add_subparsers(dest="command", required=True)

    sp = sub.add_parser("plugins", help="list installed plugins with distribution and version")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--strict", action="store_true", help="fail when an entry point does not import")
    sp.set_defaults(func=cmd_plugins)
    for kind in ("methods", "families"):
        sp = sub.add_parser(kind, help=f"list installed {kind}")
        sp.add_argument("--json", action="store_true")
        sp.set_defaults(func=_cmd_kind(kind))

    sp = sub.add_parser("show", help="print an SCM spec as JSON, or list a family's instances")
    sp.add_argument("scm", help="FAMILY/SCM_ID (e.g. synthetic/er-d10-000), or FAMILY to list its instance ids")
    sp.add_argument("--family-option", action="append", default=[], metavar="FAMILY.KEY=VALUE")
    sp.set_defaults(func=cmd_show)

    sp = sub.add_parser("run", help="run the grid (resumes), print and write the leaderboard")
    sp.add_argument("--methods", help="comma list (default: every installed method)")
    sp.add_argument("--families", help="comma list (default: every installed family)")
    sp.add_argument("--scm", help="comma list of instance ids to keep")
    sp.add_argument("--splits", help="comma list of obs, obs_int (default: both)")
    sp.add_argument("--replicates", type=int, help="replicates per split (default: the family's, 5 for SCMs)")
    sp.add_argument("--family-option", action="append", default=[], metavar="FAMILY.KEY=VALUE",
                    help="family option, e.g. synthetic.per_cell=3 or real.tables=data.csv=edges.csv")
    sp.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)), help="parallel workers")
    sp.add_argument("--budget", type=float, default=600.0, help="wall-clock seconds per run (default 600)")
    sp.add_argument("--memory-mb", type=float, default=6144.0, help="memory cap per worker (default 6144)")
    sp.add_argument("--raw", action="store_true", help="do not standardise inputs (varsortability study)")
    sp.add_argument("--protocol", default="default", help="intervention protocol of obs+int")
    sp.add_argument("--suite", help="run a family's named suite (e.g. sample-size, intervention-protocols)")
    sp.add_argument("--fresh", type=int, metavar="ROUND",
                    help="draw fresh round ROUND of never-released configurations (needs the operator key)")
    sp.add_argument("--n", type=int, help="rows per dataset (sample-size studies)")
    sp.add_argument("--python", default=sys.executable, help="interpreter that runs the workers")
    sp.add_argument("--isolation", default="auto",
                    help="where method workers run: auto (own environment only for plugins whose requirements "
                         "this environment does not satisfy), none, venv, docker (default auto)")
    sp.add_argument("--results", default=DEFAULT_RESULTS, help=f"results folder (default {DEFAULT_RESULTS})")
    sp.add_argument("--metrics", help="metrics in leaderboard cells (default f1,shd)")
    sp.add_argument("--retry", help="stored statuses to run again, e.g. timeout,failed")
    sp.add_argument("--no-progress", action="store_true")
    sp.add_argument("--strict", action="store_true", help="fail when a plugin does not import")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("sandbox", help="build, list and prune isolated method environments (arena-sandbox)",
                        add_help=False)
    sp.add_argument("sandbox_args", nargs=argparse.REMAINDER)
    sp.set_defaults(func=cmd_sandbox)

    sp = sub.add_parser("audit", help="regenerate and audit a family's SCMs (App. A.2 gates, resample statistics)")
    sp.add_argument("family", help="family name, e.g. synthetic")
    sp.add_argument("--family-option", action="append", default=[], metavar="FAMILY.KEY=VALUE")
    sp.add_argument("--scm", help="comma list of instance ids to keep")
    sp.add_argument("--splits", help="comma list of obs, obs_int (default: both)")
    sp.add_argument("--replicates", type=int, help="replicates per split (default: the family's)")
    sp.add_argument("--fresh", type=int, metavar="ROUND", help="audit fresh round ROUND instead")
    sp.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)), help="parallel processes")
    sp.add_argument("--out", help="write one JSON audit record per SCM to this file (JSON lines)")
    sp.set_defaults(func=cmd_audit)

    sp = sub.add_parser("report", help="print the leaderboard of a results folder")
    sp.add_argument("--results", default=DEFAULT_RESULTS)
    sp.add_argument("--metrics", help="metrics in leaderboard cells (default f1,shd)")
    sp.add_argument("--runtime", action="store_true",
                    help="instead: fit load vs per-graph time T(k) = T_fixed + k*T_graph per method and d "
                         "(paper 5.5, Table 5) and write runtime.csv")
    sp.set_defaults(func=cmd_report)

    sp = sub.add_parser("export", help="export datasets (Parquet), specs (JSON), adjacency (CSV)")
    sp.add_argument("--family", help="comma list (default: all)")
    sp.add_argument("--scm", help="comma list of instance ids")
    sp.add_argument("--splits", help="comma list")
    sp.add_argument("--replicates", type=int, help="replicates per split")
    sp.add_argument("--raw", action="store_true", help="export raw (unstandardised) data")
    sp.add_argument("--out", default="arena-export")
    sp.add_argument("--fresh", type=int, metavar="ROUND", help="export fresh round ROUND (needs the operator key)")
    sp.add_argument("--no-audit", action="store_true", help="skip the audit records (audit.json)")
    sp.add_argument("--family-option", action="append", default=[], metavar="FAMILY.KEY=VALUE")
    sp.set_defaults(func=cmd_export)

    sp = sub.add_parser("validate", help="check scenario cards (file or folder) against every gate (App. A.3)")
    sp.add_argument("paths", nargs="+", metavar="PATH", help="card file(s) or folder(s)")
    sp.add_argument("--strict", action="store_true",
                    help="pool rules are errors and warnings fail (what the shipped cards must pass)")
    sp.add_argument("--no-data", action="store_true", help="static gates only (no sampling)")
    sp.add_argument("--all-tables", action="store_true",
                    help="data gates on every shipped table (both splits x 5 replicates), not only replicate 0")
    sp.add_argument("--json", action="store_true", help="one JSON record per card")
    sp.add_argument("-v", "--verbose", action="store_true", help="one status line per card (residuals)")
    sp.set_defaults(func=cmd_validate)

    sp = sub.add_parser("card", help="show a scenario card as a table or render its graph")
    sp.add_argument("action", choices=("show", "render"))
    sp.add_argument("card", help="card id (wildfire-smoke-shelter), FAMILY/ID, or a path")
    sp.add_argument("--out", default=".", help="render: output folder (default .)")
    sp.add_argument("--format", help="render: comma list of png, svg (default both)")
    sp.add_argument("--family-option", action="append", default=[], metavar="FAMILY.KEY=VALUE",
                    help="e.g. semantic.cards=~/my-cards to find cards outside the shipped set")
    sp.set_defaults(func=cmd_card)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["sandbox"]:  # everything after `sandbox` belongs to arena-sandbox (incl. --help)
        args = argparse.Namespace(command="sandbox", func=cmd_sandbox, sandbox_args=argv[1:])
    else:
        args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        if os.environ.get("CAUSALARENA_DEBUG") and exc.__context__ is not None:
            import traceback

            traceback.print_exception(type(exc.__context__), exc.__context__, exc.__context__.__traceback__)
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"arena {args.command}: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except PermissionError as exc:  # e.g. a reserved configuration without the operator key
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `arena plugins --json | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - one line naming the error; the traceback on request
        from .plugins import PluginError

        if os.environ.get("CAUSALARENA_DEBUG"):
            raise
        kind = "plugin error" if isinstance(exc, PluginError) else f"error ({type(exc).__name__})"
        print(f"arena {args.command}: {kind}: {exc}\n(set CAUSALARENA_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
