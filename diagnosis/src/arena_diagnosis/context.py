"""The context every diagnosis analysis gets (:class:`AnalysisRun`), and the lists of installed analyses.

An analysis is a function ``f(run: AnalysisRun) -> None`` registered through
the hook ``arena_analyses`` (:class:`causalarena.records.AnalysisInfo`);
:func:`arena_diagnosis.report.write_diagnosis` calls each installed one in
order with one shared :class:`AnalysisRun`, which collects the CSV tables,
figures, page tables, notes and "Left out" lines they produce. One
analysis's error is a "Left out" line, never a lost report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

__all__ = ["AnalysisRun", "installed_analyses", "analysis_rows"]


class AnalysisRun:
    """What ``write_diagnosis`` hands every analysis: the runs, the options, the writers.

    Attributes:
        context: the core's :class:`causalarena.records.ReportContext`.
        results: the results folder (``Path``); ``tables_dir`` = ``results/tables``,
            ``figures_dir`` = ``results/figures``.
        console: the report's console (``print(text)``).
        options: ``context.options`` (the leaderboard's ``metrics`` and every
            plugin option of ``arena report`` by dest, e.g. ``analyses``, ``factors``).
        runs: the discovery runs (:func:`arena_diagnosis.slices.discovery_rows`),
            one row per run; ``all_runs``: every run of the store (effect runs too).
        factors: extra factors asked for with ``--factors`` (tuple of str, may be empty).
        reference: ``--reference`` methods (tuple) or None (the exposure default).
        styles: ``{method: {"color", "marker", "linestyle"}}`` shared by every figure
            (:func:`arena_diagnosis.figures.method_styles` of every method in the store).
        slices: ``{label: long slice table}`` for the page's slice explorer.
        written: ``{label: Path}`` of every file written (returned to the core).
        figures: ``[(title, path relative to results)]`` of the page's figures.
        tables: ``{title: frame}`` of the page's tables; ``notes``: ``{title: text}``.
        skipped: ``[(analysis, reason)]``, the page's "Left out" table.
        effect: the page's effect section (:class:`arena_diagnosis.html.EffectSection`) or None.
    """

    def __init__(self, context: Any, runs: pd.DataFrame, all_runs: pd.DataFrame,
                 factors: Sequence[str] = (), reference: Optional[Sequence[str]] = None,
                 styles: Optional[Dict[str, Dict[str, str]]] = None) -> None:
        self.context = context
        self.results = Path(context.results)
        self.tables_dir = self.results / "tables"
        self.figures_dir = self.results / "figures"
        self.console = context.console
        self.options: Dict[str, Any] = dict(getattr(context, "options", {}) or {})
        self.runs = runs
        self.all_runs = all_runs
        self.factors: Tuple[str, ...] = tuple(factors)
        self.reference = tuple(reference) if reference else None
        self.styles: Dict[str, Dict[str, str]] = dict(styles or {})
        self.slices: Dict[str, pd.DataFrame] = {}
        self.written: Dict[str, Path] = {}
        self.figures: List[Tuple[str, str]] = []
        self.tables: Dict[str, pd.DataFrame] = {}
        self.notes: Dict[str, str] = {}
        self.skipped: List[Tuple[str, str]] = []
        self.effect: Any = None
        self._cache: Dict[str, Any] = {}

    def csv(self, name: str, frame: pd.DataFrame, title: Optional[str] = None, index: bool = False) -> None:
        """Write ``frame`` to ``tables/<name>.csv`` (nothing for an empty frame); ``title``: also a page table."""
        if frame is None or len(frame) == 0:
            return
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        path = self.tables_dir / f"{name}.csv"
        frame.to_csv(path, index=index)
        self.written[f"table {name}"] = path
        if title:
            self.tables[title] = frame

    def file(self, label: str, path: Path) -> None:
        """Record a file the analysis wrote elsewhere (e.g. the results folder's top)."""
        self.written[label] = Path(path)

    def table(self, title: str, frame: pd.DataFrame, note: Optional[str] = None) -> None:
        """Show ``frame`` on the page under ``title`` (with an optional note below the title)."""
        self.tables[title] = frame
        if note:
            self.notes[title] = note

    def figure(self, title: str, paths: Sequence[Path]) -> None:
        """Record figure files (PNG + SVG); each PNG is shown in the page's gallery under ``title``."""
        pngs = [Path(q) for q in paths if Path(q).suffix == ".png"]
        for p in map(Path, paths):
            self.written[f"figure {p.name}"] = p
            if p.suffix == ".png":
                label = title if len(pngs) == 1 else f"{title}: {p.stem.split('_')[-1]}"
                self.figures.append((label, p.relative_to(self.results).as_posix()))

    def skip(self, analysis: str, reason: str) -> None:
        """Leave ``analysis`` out with ``reason`` (the page's "Left out" table and one console line)."""
        self.skipped.append((analysis, reason))

    def run(self, analysis: str, fn: Callable[[], None]) -> None:
        """Call ``fn``; an exception becomes a "Left out" line naming ``analysis`` and the error."""
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - one analysis's error is a note, not a lost report
            self.skip(analysis, f"error: {type(exc).__name__}: {exc}")

    def styled(self, frame: pd.DataFrame) -> Optional[Dict[str, Any]]:
        """The shared styles when they cover every method of ``frame``, else None (the figure's own)."""
        return self.styles if set(frame["method"].astype(str)) <= set(self.styles) else None

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """``build()`` once per report, shared between analyses (predictions, the runtime fit)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def predictions(self) -> Optional[Tuple[pd.DataFrame, Dict[str, Any]]]:
        """``(kept predictions, truths)`` read once from the store, or None (a "Left out" line says why)."""
        def read() -> Optional[Tuple[pd.DataFrame, Dict[str, Any]]]:
            ctx = self.context
            preds = ctx.predictions()
            if preds is None or len(preds) == 0:
                missing = ctx.missing_predictions()
                why = (f"no stored predictions ({missing} ok runs were stored before predictions were kept); "
                       f"fill them with `{ctx.fill_command}`" if missing else "no stored predictions")
                self.skip("edge-level slices", why)
                return None
            return preds, ctx.truths()
        return self.cached("predictions", read)


def installed_analyses(registry: Any = None) -> Dict[str, Any]:
    """``{name: AnalysisInfo}`` of every analysis: this distribution's own, then the registry's.

    A registry without ``analyses`` (a test's stand-in) gives the built-ins
    (:func:`arena_diagnosis.plugin.arena_analyses`); a registered analysis
    replaces a built-in of the same name only through the registry (where
    duplicates across distributions are already an error).
    """
    from .plugin import arena_analyses

    out: Dict[str, Any] = {a.name: a for a in arena_analyses()}
    out.update(getattr(registry, "analyses", None) or {})
    return dict(sorted(out.items(), key=lambda kv: (kv[1].order, kv[0])))


def analysis_rows(analyses: Mapping[str, Any]) -> List[Dict[str, str]]:
    """One row per analysis (name, task, distribution, section, help) for ``--list-analyses``."""
    return [{"name": a.name, "task": a.task, "distribution": a.distribution or "arena-diagnosis",
             "section": a.section, "help": a.help} for a in analyses.values()]
