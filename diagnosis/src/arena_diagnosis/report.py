"""The diagnosis section of ``arena report``: every analysis, its CSV, its figure, one HTML page.

:func:`write_diagnosis` is the ``arena_reports()`` factory (see
:mod:`arena_diagnosis.plugin`). It reads the :class:`causalarena.records.ReportContext`
the core hands it and writes, into the results folder:

* ``tables/<analysis>.csv`` — one CSV per table (slice scores per factor,
  edge-level slices, win rates, interactions, curves, protocol table,
  domain shifts, real data, frontier, exposure);
* ``figures/<name>.png`` and ``.svg`` — the paper's figures (Fig. 1, 4, 5, 6,
  9, 10–17, 19) for the data the store holds;
* ``index.html`` — the static page (leaderboard, slice explorer, figures,
  tables, effect estimation, configuration), readable from ``file://``.

Discovery analyses read the discovery runs only
(:func:`arena_diagnosis.slices.discovery_rows`); the effect-estimation runs
of the same store (``task == "effect"``) get their own tables
(``tables/effect_*.csv``), figures (``figures/effect_*``) and the page's
"Effect estimation" section (:mod:`arena_diagnosis.effect_section`, analysis
``effect``); a store without effect runs gets one "Left out" line instead.

Every analysis is a registered plugin (hook ``arena_analyses``,
:class:`causalarena.records.AnalysisInfo`): this distribution registers its
own in :mod:`arena_diagnosis.plugin` (the functions are in
:mod:`arena_diagnosis.sections`, :mod:`.runtime`, :mod:`.sortability`,
:mod:`.effect_section`), another distribution adds one the same way, and
:func:`write_diagnosis` calls each installed one in order with one
:class:`arena_diagnosis.context.AnalysisRun`.

An analysis that has no data (no sample-size suite, no real tables, no
method with a pretraining prior) is left out with the reason shown on the
page; an analysis that raises is reported the same way and never costs the
others. Analyses that need predictions (the edge-level mechanism / noise
slices) say so when the store holds none and name the command that fills
them (:attr:`causalarena.records.ReportContext.fill_command`).
"""

from __future__ import annotations

import datetime as _dt
import platform
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from . import analyses as A
from . import figures as F
from .context import AnalysisRun, installed_analyses
from .html import HtmlReport, failure_examples, write_html
from .sections import EDGE_FACTORS, GRAPH_FACTORS, INTERACTION_FACTORS

__all__ = ["GRAPH_FACTORS", "EDGE_FACTORS", "INTERACTION_FACTORS", "analysis_names", "check_options",
           "write_diagnosis"]


def analysis_names(registry: Any = None) -> Tuple[str, ...]:
    """The names ``arena report --analyses`` accepts: every installed analysis, in run order."""
    return tuple(installed_analyses(registry))


def _options(ctx: Any) -> Tuple[Tuple[str, ...], Tuple[str, ...], Optional[Tuple[str, ...]]]:
    opts: Mapping[str, Any] = dict(getattr(ctx, "options", {}) or {})
    known = analysis_names(getattr(ctx, "registry", None))
    analyses = tuple(opts.get("analyses") or (("runtime",) if opts.get("runtime") else known))
    unknown = [a for a in analyses if a not in known]
    if unknown:
        raise ValueError(f"--analyses: unknown {', '.join(unknown)}; choose from {', '.join(known)}")
    factors = tuple(opts.get("factors") or ())
    reference = tuple(opts["reference"]) if opts.get("reference") else None
    return analyses, factors, reference


def check_options(options: Mapping[str, Any], runs: pd.DataFrame, registry: Any = None) -> None:
    """The ``ReportInfo.check`` of the diagnosis report: bad options before any file is written.

    Raises:
        ValueError: an unknown analysis, a factor the runs do not hold, a
            reference method not in the runs, ``--runtime`` with ``--analyses``
            (each message names the value and what is available).
    """
    for key in ("analyses", "factors", "reference"):
        value = options.get(key)
        if value is not None and not [v for v in value if str(v).strip()]:
            raise ValueError(f"--{key}: empty list")
    known = analysis_names(registry)
    unknown = [a for a in (options.get("analyses") or ()) if a not in known]
    if unknown:
        raise ValueError(f"--analyses: unknown {', '.join(unknown)}; choose from {', '.join(known)}")
    if options.get("runtime") and options.get("analyses"):
        raise ValueError("--runtime runs the runtime analysis alone; with --analyses add 'runtime' to the list instead")
    if options.get("runtime") and not len(A.discovery_rows(runs)):
        raise ValueError("--runtime fits the discovery methods' load vs per-graph time (paper §5.5); this store "
                         "holds only effect runs (their fit times are in runs.parquet, column wall_seconds)")
    if options.get("runtime"):
        from .runtime import runtime_table

        runtime_table(runs)  # an old store without worker columns: its ValueError says so
    factors = list(options.get("factors") or ())
    if factors:
        # the slices and interactions read discovery runs only (the effect table has its own columns)
        discovery = A.discovery_rows(runs)
        if not len(discovery):
            raise ValueError(f"--factors {','.join(factors)}: the factor slices and interactions read discovery "
                             "runs and this store holds effect runs only; the effect analyses split by view, "
                             "world and variant themselves")
        available = set(A.available_factors(discovery))
        bad = [f for f in factors if f not in available]
        if bad:
            standard = [f for f in GRAPH_FACTORS if f in available]
            raise ValueError(f"--factors: {', '.join(bad)} not in these runs; standard factors here: "
                             f"{', '.join(standard)} (and {len(available) - len(standard)} more keys of the runs' "
                             "factor tags, e.g. graph_attempts)")
    reference = list(options.get("reference") or ())
    if reference:
        methods = set(runs["method"].astype(str))
        bad = [m for m in reference if m not in methods]
        if bad:
            raise ValueError(f"--reference: {', '.join(bad)} not in these runs; methods: {', '.join(sorted(methods))}")


#: the files the last report wrote (one path per line, relative to the results folder): the next report
#: removes those it does not write again, so tables/ and figures/ never mix two reports
MANIFEST = ".arena-diagnosis-files"
#: the files the last report removed (same form): written whenever a report removes any, so the line it
#: prints can point at the full list; removed when a report removes nothing (it would describe an older one)
REMOVED = ".arena-diagnosis-removed"


def _remove_stale(results: Path, written: Mapping[str, Path]) -> List[Path]:
    """Remove the files the previous report wrote that this one did not; rewrite the manifests.

    Args:
        results: the results folder (the manifests :data:`MANIFEST` and
            :data:`REMOVED` live at its top).
        written: label -> path of every file this report wrote.

    Returns:
        The removed files (absolute paths, in manifest order), also listed in
        ``results/.arena-diagnosis-removed`` when there are any. Only files named in the previous
        manifest, inside ``results`` and still present are removed: never a
        user's own file.

    Raises:
        OSError: a file or a manifest cannot be removed or written (the caller's
            ``write_diagnosis`` lets it through; the core prints it).
    """
    root = results.resolve()
    manifest = results / MANIFEST
    now = {Path(p).resolve() for p in written.values()}
    removed: List[Path] = []
    if manifest.exists():
        for line in manifest.read_text(encoding="utf-8").splitlines():
            old = (results / line).resolve()
            # only files this report wrote before, inside the folder: never a user's own file
            if line and old not in now and root in old.parents and old.is_file():
                old.unlink()
                removed.append(old)
    manifest.write_text("".join(f"{Path(p).resolve().relative_to(root).as_posix()}\n"
                                for p in written.values()), encoding="utf-8")
    listing = results / REMOVED
    if removed:
        listing.write_text("".join(f"{p.relative_to(root).as_posix()}\n" for p in removed), encoding="utf-8")
    elif listing.exists():
        listing.unlink()
    return removed


def _removal_line(results: Path, removed: Sequence[Path], analyses: Sequence[str],
                  known: Sequence[str] = ()) -> str:
    """The console line that says what :func:`_remove_stale` removed (count per subfolder, the list's file).

    ``analyses`` are the analyses this report ran: when they are fewer than
    ``known`` (every installed analysis) the line names the command that writes the full report again.
    """
    root = results.resolve()
    per: Dict[str, int] = {}
    for p in removed:
        parts = p.relative_to(root).parts
        key = f"{results / parts[0]}/" if len(parts) > 1 else str(results)
        per[key] = per.get(key, 0) + 1
    where = ", ".join(f"{n} in {k}" for k, n in per.items())
    line = (f"diagnosis: removed {len(removed)} file{'s' if len(removed) != 1 else ''} of the previous report "
            f"that this one did not write again ({where}); listed in {results / REMOVED}")
    if set(known) - set(analyses):
        line += f"; `arena report --results {results}` without --analyses writes the full report again"
    return line


def _leaderboard(runs: pd.DataFrame) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """(page leaderboard: one row per method, numeric F1 / SHD per family x split + Avg; the tidy cells)."""
    from causalarena.report import leaderboard_numeric

    cells = leaderboard_numeric(runs, metrics=[m for m in ("f1", "shd", "precision", "recall") if m in runs])
    wide: Dict[str, Dict[str, float]] = {}
    for r in cells.itertuples(index=False):
        row = wide.setdefault(r.method, {})
        row[f"{r.column} F1"] = r.f1_mean
        if "shd_mean" in cells.columns:
            row[f"{r.column} SHD"] = r.shd_mean
    board = pd.DataFrame.from_dict(wide, orient="index")
    board.index.name = "method"
    first = [c for c in board.columns if c.startswith("Avg")]
    board = board[first + [c for c in board.columns if c not in first]]
    board = board.sort_values(first[0], ascending=False) if first else board
    return board.reset_index(), cells


def _versions(ctx: Any, runs: pd.DataFrame) -> Dict[str, str]:
    import causalarena

    from . import __version__

    out = {"results": str(ctx.results), "store": str(ctx.store_path), "runs": f"{len(runs):,}",
           "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "causal-arena": causalarena.__version__, "arena-diagnosis": __version__,
           "python (report)": platform.python_version()}
    for col, label in (("family", "families"), ("protocol", "protocols"), ("scoring", "CPDAG scoring")):
        if col in runs:
            out[label] = ", ".join(sorted({str(v) for v in runs[col].dropna().unique()})) or "–"
    if "method_version" in runs:
        mv = runs.dropna(subset=["method_version"]).drop_duplicates("method")
        out["methods"] = ", ".join(f"{m} {v}" for m, v in zip(mv["method"], mv["method_version"])) or "–"
    if "python" in runs:
        out["python (workers)"] = ", ".join(sorted({str(v) for v in runs["python"].dropna().unique()})) or "–"
    return out


def write_diagnosis(ctx: Any) -> Dict[str, Path]:
    """Write every diagnosis table, figure and ``index.html`` for the store of ``ctx``.

    Args:
        ctx: a :class:`causalarena.records.ReportContext` (``results``,
            ``store_path``, ``runs``, ``registry``, ``console``, ``options``
            with ``analyses`` / ``factors`` / ``reference``, lazy
            ``predictions()`` / ``truths()``, ``missing_predictions()``,
            ``fill_command``).

    Returns:
        label -> path of every file written (CSV tables, PNG + SVG figures, the page).

    Files the previous report wrote (listed in ``results/.arena-diagnosis-files``)
    that this one did not write again — a narrower ``--analyses``, or an
    analysis that lost its data — are removed, so ``tables/`` and ``figures/``
    never mix two reports; the removal is never silent: one console line gives
    the count per subfolder and the file listing them
    (``results/.arena-diagnosis-removed``), and, after a narrower
    ``--analyses``, the command that writes the full report again.

    Raises:
        ValueError: ``--analyses`` names an unknown analysis (the message lists them).
        OSError: a file cannot be written (the core prints it; the leaderboard is kept).
    """
    analyses, extra_factors, reference = _options(ctx)
    installed = installed_analyses(getattr(ctx, "registry", None))
    asked = analyses  # before an effect-only store narrows them: the removal line's hint reads what was asked
    all_runs: pd.DataFrame = ctx.runs
    # the discovery analyses, leaderboard and failure list see discovery runs only; the effect section: all
    runs: pd.DataFrame = A.discovery_rows(all_runs)
    results = Path(ctx.results)
    # one method -> colour / marker mapping for every discovery figure: every discovery method of the store,
    # so pc looks the same in every figure and neighbours (ges / gies) differ; the effect section keys its own
    out = AnalysisRun(ctx, runs, all_runs, extra_factors, reference, F.method_styles(runs["method"].astype(str)))
    if not len(runs) and len(all_runs):  # an effect-only store: the discovery analyses have nothing to read
        dropped = [a for a in analyses if installed[a].task == "discovery"]
        analyses = tuple(a for a in analyses if installed[a].task != "discovery")
        if dropped:
            out.skip("discovery analyses", f"no discovery runs in this store ({', '.join(dropped)} need them)")
    board, _ = _leaderboard(runs)  # the page's table: every run, like the printed leaderboard
    main = A.main_rows(runs, status_ok=False)  # Fig. 4 is the main benchmark's (no suite or protocol variants)
    _, cells = _leaderboard(main) if len(main) else (None, pd.DataFrame(columns=["method"]))
    out.csv("leaderboard_cells", cells)
    if {"precision_mean", "recall_mean"} <= set(cells.columns) and len(cells):
        out.run("precision-recall figure", lambda: out.figure(
            "Precision–recall and F1–SHD (Fig. 4)",
            F.precision_recall_f1_shd(cells, out.figures_dir, styles=out.styled(cells))))
    elif len(runs):
        out.skip("precision-recall figure", "the runs hold no precision / recall (arena rescore adds them)")

    for name in analyses:  # the registered analyses, in order (hook arena_analyses)
        info = installed[name]
        who = name if not info.distribution or info.distribution == "arena-diagnosis" else \
            f"{name} ({info.distribution})"
        out.run(who, lambda info=info: info.load()(out))

    if out.skipped:
        skipped = pd.DataFrame(out.skipped, columns=["analysis", "reason"])
        out.tables["Left out"] = skipped
        out.notes["Left out"] = "Analyses without data in this store, and why."
    effect = out.effect
    page = HtmlReport(title=f"CausalArena report — {results.name}", leaderboard=board,
                      failures=failure_examples(runs), slices=out.slices, figures=out.figures,
                      tables=out.tables, config=_versions(ctx, all_runs), notes=out.notes, effect=effect)
    out.written["html"] = write_html(results / "index.html", page)
    removed = _remove_stale(results, out.written)
    for analysis, reason in out.skipped + (effect.left_out if effect is not None else []):
        ctx.console.print(f"[dim]{analysis}: {reason}[/dim]")
    if removed:  # never a silent deletion: the count, where, the list's file (issue 21)
        # markup off: a folder name with brackets is text, not a style tag
        ctx.console.print(_removal_line(results, removed, asked, tuple(installed)), style="yellow", markup=False,
                          highlight=False, soft_wrap=True)
    return out.written
