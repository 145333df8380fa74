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
"Effect estimation" section (:mod:`arena_diagnosis.effect`, analysis name
``effect``); a store without effect runs gets one "Left out" line instead.

An analysis that has no data (no sample-size suite, no real tables, no
method with a pretraining prior) is left out with the reason shown on the
page; an analysis that raises is reported the same way and never costs the
others. Analyses that need predictions (the edge-level mechanism / noise
slices) say so when the store holds none and name the command that fills
them (:attr:`causalarena.records.ReportContext.fill_command`).
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from . import analyses as A
from . import figures as F
from .html import EffectSection, HtmlReport, failure_examples, write_html

__all__ = ["ANALYSES", "GRAPH_FACTORS", "EDGE_FACTORS", "INTERACTION_FACTORS", "write_diagnosis"]

#: analysis names accepted by ``arena report --analyses`` (default: all)
ANALYSES = ("slices", "edges", "winrates", "interactions", "curves", "protocols", "domains", "real",
            "frontier", "exposure", "effect")
#: graph-level factors of the slice explorer (§3.2 Eq. 6), in the paper's vocabulary
GRAPH_FACTORS = ("graph", "d", "difficulty", "root_dependency", "mechanism", "noise", "root", "domain",
                 "protocol", "n", "split", "standardisation")
#: the synthetic grid's factors (App. A.1): sliced on the synthetic family when it is in the store
SYNTHETIC_FACTORS = ("graph", "d", "difficulty", "root_dependency", "mechanism", "noise", "root")
#: edge-level factors: a mechanism or noise belongs to the child's equation (§6.1)
EDGE_FACTORS = ("mechanism", "noise")
#: factors of the interaction heatmaps (Fig. 10, 12, 13)
INTERACTION_FACTORS = ("graph", "mechanism", "noise", "root_dependency")


class _Section:
    """Collects tables, figures and notes while the analyses run; one failure never stops the rest."""

    def __init__(self, results: Path, console: Any) -> None:
        self.results = results
        self.tables_dir = results / "tables"
        self.figures_dir = results / "figures"
        self.console = console
        self.written: Dict[str, Path] = {}
        self.figures: List[Tuple[str, str]] = []
        self.tables: Dict[str, pd.DataFrame] = {}
        self.notes: Dict[str, str] = {}
        self.skipped: List[Tuple[str, str]] = []

    def csv(self, name: str, frame: pd.DataFrame, title: Optional[str] = None, index: bool = False) -> None:
        if frame is None or len(frame) == 0:
            return
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        path = self.tables_dir / f"{name}.csv"
        frame.to_csv(path, index=index)
        self.written[f"table {name}"] = path
        if title:
            self.tables[title] = frame

    def figure(self, title: str, paths: Sequence[Path]) -> None:
        for p in paths:
            p = Path(p)
            self.written[f"figure {p.name}"] = p
            if p.suffix == ".png":
                label = title if len([q for q in paths if Path(q).suffix == ".png"]) == 1 else \
                    f"{title}: {p.stem.split('_')[-1]}"
                self.figures.append((label, p.relative_to(self.results).as_posix()))

    def skip(self, analysis: str, reason: str) -> None:
        self.skipped.append((analysis, reason))

    def run(self, analysis: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - one analysis's error is a note, not a lost report
            self.skip(analysis, f"error: {type(exc).__name__}: {exc}")


def _options(ctx: Any) -> Tuple[Tuple[str, ...], Tuple[str, ...], Optional[Tuple[str, ...]]]:
    opts: Mapping[str, Any] = dict(getattr(ctx, "options", {}) or {})
    analyses = tuple(opts.get("analyses") or ANALYSES)
    unknown = [a for a in analyses if a not in ANALYSES]
    if unknown:
        raise ValueError(f"--analyses: unknown {', '.join(unknown)}; choose from {', '.join(ANALYSES)}")
    factors = tuple(opts.get("factors") or ())
    reference = tuple(opts["reference"]) if opts.get("reference") else None
    return analyses, factors, reference


def check_options(options: Mapping[str, Any], runs: pd.DataFrame) -> None:
    """The ``ReportInfo.check`` of the diagnosis report: bad options before any file is written.

    Raises:
        ValueError: an unknown analysis, a factor the runs do not hold, a
            reference method not in the runs (each message names the value and
            what is available).
    """
    for key in ("analyses", "factors", "reference"):
        value = options.get(key)
        if value is not None and not [v for v in value if str(v).strip()]:
            raise ValueError(f"--{key}: empty list")
    unknown = [a for a in (options.get("analyses") or ()) if a not in ANALYSES]
    if unknown:
        raise ValueError(f"--analyses: unknown {', '.join(unknown)}; choose from {', '.join(ANALYSES)}")
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


def _removal_line(results: Path, removed: Sequence[Path], analyses: Sequence[str]) -> str:
    """The console line that says what :func:`_remove_stale` removed (count per subfolder, the list's file).

    ``analyses`` are the analyses this report ran: when they are fewer than
    :data:`ANALYSES` the line names the command that writes the full report again.
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
    if set(ANALYSES) - set(analyses):
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


def _wide(frame: pd.DataFrame, columns: str, values: str, prefix: str = "", extra: Sequence[str] = ()) -> pd.DataFrame:
    """The page's form of a long table: one row per method, one column per level (the CSV keeps the long form)."""
    wide = frame.pivot_table(index="method", columns=columns, values=values, aggfunc="first", sort=False)
    wide.columns = [f"{prefix}{c}" for c in wide.columns]
    for col in extra:  # per-method constants (an SD across levels)
        wide[col] = frame.groupby("method", sort=False)[col].first()
    return wide.rename_axis("method").reset_index()


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


def _priors(ctx: Any, runs: pd.DataFrame) -> Dict[str, Any]:
    """Declared pretraining priors (``MethodInfo.prior``) of the methods in the runs; nothing entered by hand."""
    methods = getattr(getattr(ctx, "registry", None), "methods", {}) or {}
    out: Dict[str, Any] = {}
    for name in sorted({str(m) for m in runs["method"].unique()}):
        info = methods.get(name)
        out[name] = getattr(info, "prior", None) if info is not None else None
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
    asked = analyses  # before an effect-only store narrows them: the removal line's hint reads what was asked
    all_runs: pd.DataFrame = ctx.runs
    # the discovery analyses, leaderboard and failure list see discovery runs only; effect runs: _effect
    runs: pd.DataFrame = A.discovery_rows(all_runs)
    results = Path(ctx.results)
    out = _Section(results, ctx.console)
    if not len(runs) and len(all_runs):  # an effect-only store: the discovery analyses have nothing to read
        dropped = [a for a in analyses if a != "effect"]
        analyses = type(analyses)(a for a in analyses if a == "effect")
        if dropped:
            out.skip("discovery analyses", f"no discovery runs in this store ({', '.join(dropped)} need them)")
    board, _ = _leaderboard(runs)  # the page's table: every run, like the printed leaderboard
    main = A.main_rows(runs, status_ok=False)  # Fig. 4 is the main benchmark's (no suite or protocol variants)
    _, cells = _leaderboard(main) if len(main) else (None, pd.DataFrame(columns=["method"]))
    out.csv("leaderboard_cells", cells)
    # one method -> colour / marker mapping for every figure (the main benchmark's methods), so pc is one
    # colour everywhere; a frame with a label outside it (a suite variant) gets its own mapping
    styles = F.method_styles(set(cells["method"].astype(str)))

    def styled(frame: pd.DataFrame) -> Optional[Dict[str, Any]]:
        return styles if set(frame["method"].astype(str)) <= set(styles) else None

    if {"precision_mean", "recall_mean"} <= set(cells.columns) and len(cells):
        out.run("precision-recall figure", lambda: out.figure(
            "Precision–recall and F1–SHD (Fig. 4)", F.precision_recall_f1_shd(cells, out.figures_dir, styles=styled(cells))))
    elif len(runs):
        out.skip("precision-recall figure", "the runs hold no precision / recall (arena rescore adds them)")
    slices: Dict[str, pd.DataFrame] = {}

    def need_predictions() -> Optional[Tuple[pd.DataFrame, Dict[str, Any]]]:
        preds = ctx.predictions()
        if preds is None or len(preds) == 0:
            missing = ctx.missing_predictions()
            why = (f"no stored predictions ({missing} ok runs were stored before predictions were kept); "
                   f"fill them with `{ctx.fill_command}`" if missing else "no stored predictions")
            out.skip("edge-level slices", why)
            return None
        return preds, ctx.truths()

    fams = set(runs["family"].astype(str))
    if "slices" in analyses:
        for factor in dict.fromkeys(GRAPH_FACTORS + extra_factors):
            # the synthetic grid's own factors are sliced on the synthetic family (a card's d or mechanism
            # tags pooled with the grid's would mix two pools in one column); the others on every family
            family = "synthetic" if factor in SYNTHETIC_FACTORS and "synthetic" in fams else None
            try:
                frame = A.slice_scores(runs, factor, family=family)
            except ValueError as exc:
                if factor in extra_factors:  # asked for by name: say why it is absent
                    out.skip(f"slice {factor}", str(exc))
                continue
            if len(frame) and (frame["level"].nunique() > 1 or factor in extra_factors):
                slices[f"{factor} (synthetic)" if family else factor] = frame
        out.csv("slices", pd.concat(list(slices.values()), ignore_index=True) if slices else pd.DataFrame())

    pred_truth = None
    if "edges" in analyses or "interactions" in analyses:
        pred_truth = need_predictions()
    if "edges" in analyses and pred_truth is not None:
        def edges() -> None:
            for factor in EDGE_FACTORS:
                # §6.1's edge-level factors are the synthetic grid's (cards tag their own mechanism families)
                syn = runs[runs["family"] == "synthetic"] if "synthetic" in fams else runs
                frame = A.edge_slice_scores(syn, pred_truth[0], pred_truth[1], factor)
                if len(frame):
                    key = f"{factor} (edge-level{', synthetic' if 'synthetic' in fams else ''})"
                    slices[key] = frame.rename(columns={"f1": "score"}).assign(sd=float("nan"))[
                        ["factor", "level", "method", "split", "score", "sd", "units", "precision", "recall"]]
                    out.csv(f"edge_slices_{factor}", frame)
        out.run("edge-level slices", edges)

    if "winrates" in analyses:
        def winrates() -> None:
            for split in ("obs", "obs_int"):
                wr = A.win_rates(runs, split=split)
                if wr.pairwise.shape[0] < 2:  # a win rate needs an opponent (obs+int: often gies alone)
                    if split == "obs" or wr.pairwise.shape[0] == 1:
                        out.skip(f"win rates ({split})", "fewer than two methods scored on this split")
                    continue
                label = "obs" if split == "obs" else "obs+int"
                out.csv(f"win_rates_{split}", wr.pairwise, f"Pairwise win rates, {label} (row beats column)",
                        index=True)
                out.csv(f"win_rates_by_family_{split}", wr.by_family, f"Win rate by family, {label}", index=True)
                out.figure(f"Win-rate matrix, {label} (Fig. 19)",
                           F.win_rate_matrix(wr.pairwise, out.figures_dir, stem=f"win_rate_matrix_{split}"))
                out.figure(f"Win rate by family, {label} (Fig. 1)",
                           F.win_rate_bars(wr.by_family, out.figures_dir, stem=f"win_rate_bars_{split}", split=split))
        out.run("win rates", winrates)

    if "interactions" in analyses:
        def interactions() -> None:
            frames = []
            for factor in dict.fromkeys(INTERACTION_FACTORS + extra_factors):
                edge = factor in EDGE_FACTORS and pred_truth is not None
                try:
                    family = "synthetic" if factor in SYNTHETIC_FACTORS and "synthetic" in fams else None
                    frame = A.interaction_scores(runs, factor, predictions=pred_truth[0] if edge else None,
                                                 truths=pred_truth[1] if edge else None, family=family)
                except ValueError as exc:
                    if factor in extra_factors:  # a default factor these runs do not hold is no news
                        out.skip(f"interaction {factor}", str(exc))
                    continue
                if len(frame):
                    frames.append(frame)
            if frames:
                inter = pd.concat(frames, ignore_index=True)
                out.csv("interactions", inter)
                out.figure("Interaction scores (Eq. 7; Fig. 10, 12, 13)",
                           F.interaction_heatmaps(inter, out.figures_dir))
        out.run("interactions", interactions)

    if "curves" in analyses:
        def curves() -> None:
            dc = A.d_curve(runs)
            out.csv("d_curve", dc)
            if len(dc):
                out.tables["F1 against d (synthetic, obs)"] = _wide(dc, "d", "score", prefix="d = ")
            out.figure("F1 against d (Fig. 11)", F.d_curve(dc, out.figures_dir, styles=styled(dc)))
            nc = A.n_curve(runs)
            if len(nc):
                out.csv("n_curve", nc)
                out.tables["F1 against n (sample-size suite)"] = _wide(nc, "n", "score", prefix="n = ")
                out.figure("F1 against n (Fig. 6a)", F.n_curve(nc, out.figures_dir, styles=styled(nc)))
            else:
                out.skip("n curve", "no sample-size suite runs (arena run --suite sample-size)")
        out.run("curves", curves)

    if "protocols" in analyses:
        def protocols() -> None:
            pt = A.protocol_table(runs)
            if not len(pt):
                out.skip("protocol table", "no intervention-protocol suite runs "
                         "(arena run --suite intervention-protocols)")
                return
            out.csv("protocols", pt)
            f1 = _wide(pt, "protocol", "f1", prefix="F1 ")
            delta = _wide(pt, "protocol", "delta_f1", prefix="ΔF1 ", extra=("f1_sd",)).drop(columns=["method"])
            out.tables["Intervention-protocol sensitivity (Table 3)"] = pd.concat([f1, delta], axis=1)
            out.figure("ΔF1 against the default protocol (Fig. 6b)", F.protocol_bars(pt, out.figures_dir))
        out.run("protocols", protocols)

    if "domains" in analyses:
        def domains() -> None:
            for family in ("semantic", "formula"):
                if family not in set(runs["family"]):
                    continue
                ds = A.domain_shift(runs, family)
                if len(ds):
                    out.csv(f"domain_shift_{family}", ds)
                    title = f"Domain shift, {family}: F1 on the domain minus the method's own mean (Fig. 17)"
                    out.tables[title] = _wide(ds, "domain", "shift", extra=("domain_sd",))
                    sub = runs[(runs["family"] == family) & (runs["split"] == "obs")]
                    per = sub.groupby(sub["factors"].map(lambda t: str(json.loads(t or "{}").get("domain"))))[
                        "scm_id"].nunique()
                    out.notes[title] = (f"obs split; SCMs per domain: {int(per.min())}–{int(per.max())}"
                                        + (" (one scenario per domain: a shift is that one card's, not the "
                                           "domain's)" if per.max() == 1 else "") + ".")
                    out.figure(f"Domain shift, {family} (Fig. 17)",
                               F.domain_heatmap(ds, out.figures_dir, stem=f"domain_shift_{family}", family=family))
        out.run("domain shifts", domains)

    if "real" in analyses:
        def real() -> None:
            rd = A.real_data(runs)
            if len(rd):
                out.csv("real_data", rd)
                out.tables["Real data: F1 per table (Fig. 5)"] = _wide(
                    rd.assign(column=rd["table"].astype(str) + " / " + rd["split"].astype(str)), "column", "f1")
                out.figure("Real data per table (Fig. 5)", F.real_data_strip(rd, out.figures_dir))
        out.run("real data", real)

    runtime = None
    if "frontier" in analyses:
        def front() -> None:
            nonlocal runtime
            from causalarena.report import runtime_table

            try:
                runtime = runtime_table(runs)
            except ValueError:
                runtime = None  # no worker timing: end-to-end times only
            fr = A.frontier(runs, runtime)
            out.csv("frontier", fr, "Accuracy–cost frontier (Fig. 9)")
            out.figure("Accuracy–cost frontier (Fig. 9)", F.pareto_frontier(fr, out.figures_dir, styles=styled(fr)))
            out.notes["Accuracy–cost frontier (Fig. 9)"] = (
                "f1 is the leaderboard's Avg F1; seconds is T_graph (mean over d of the load / per-graph fit) where "
                "the method has such a fit, otherwise its mean end-to-end time per run; pareto marks the methods "
                "no other method beats on both.")
        out.run("frontier", front)

    if "exposure" in analyses:
        def expo() -> None:
            ex = A.exposure(runs, _priors(ctx, runs), reference=reference)
            out.csv("exposure_skipped", ex.skipped)
            if len(ex.summary) == 0:
                from .exposure import NO_PRIOR

                reasons = {m: r for m, r in zip(ex.skipped["method"], ex.skipped["reason"])}
                with_prior = {m: r for m, r in reasons.items() if r != NO_PRIOR}
                if with_prior:  # a method declares a prior but has nothing to analyse: say why, per method
                    why = "; ".join(f"{m}: {r}" for m, r in sorted(with_prior.items()))
                    out.skip("pretraining exposure", f"no method with a declared prior has runs to analyse ({why})")
                else:
                    names = ", ".join(sorted(reasons)) or "none"
                    out.skip("pretraining exposure", f"no method in the store declares a pretraining prior "
                             f"(MethodInfo.prior); left out: {names}")
                return
            out.csv("exposure_coverage", ex.coverage, "Pretraining prior coverage (Fig. 14)")
            out.csv("exposure_axes", ex.axes, "ID / OOD F1 per axis (Eq. 8; Fig. 15)")
            out.csv("exposure_summary", ex.summary, "Exposure summary (Eq. 8–10)")
            out.figure("Prior coverage (Fig. 14)", F.prior_coverage_bars(ex.coverage, out.figures_dir))
            out.figure("ID / OOD F1 against the reference (Fig. 15)", F.id_ood_bars(ex.axes, out.figures_dir))
        out.run("pretraining exposure", expo)

    # the core's own tables on the page too
    from causalarena.report import sortability_table

    try:
        out.tables["Sortability (varsortability, R²-sortability)"] = sortability_table(runs)
    except (ValueError, KeyError):
        pass
    if runtime is not None and len(runtime):
        out.tables["Load and per-graph time T(k) = T_fixed + k·T_graph (§5.5)"] = runtime
    effect = _effect(ctx, all_runs, out) if "effect" in analyses else None
    if out.skipped:
        skipped = pd.DataFrame(out.skipped, columns=["analysis", "reason"])
        out.tables["Left out"] = skipped
        out.notes["Left out"] = "Analyses without data in this store, and why."
    page = HtmlReport(title=f"CausalArena report — {results.name}", leaderboard=board,
                      failures=failure_examples(runs), slices=slices, figures=out.figures,
                      tables=out.tables, config=_versions(ctx, all_runs), notes=out.notes, effect=effect)
    out.written["html"] = write_html(results / "index.html", page)
    removed = _remove_stale(results, out.written)
    for analysis, reason in out.skipped + (effect.left_out if effect is not None else []):
        ctx.console.print(f"[dim]{analysis}: {reason}[/dim]")
    if removed:  # never a silent deletion: the count, where, the list's file (issue 21)
        # markup off: a folder name with brackets is text, not a style tag
        ctx.console.print(_removal_line(results, removed, asked), style="yellow", markup=False, highlight=False,
                          soft_wrap=True)
    return out.written


#: (csv stem, page title, note) of the effect tables, in page order
_EFFECT_TABLES = (
    ("effect_view_method", "sPEHE² by view and method (CausalIDView Fig. 2)",
     "Family causalidview, original worlds, default context size. spehe2 = mean_effect_error + "
     "centred_cate_error (means over worlds of replicate means); *_sd: SD over worlds. Sorted by view, best first."),
    ("effect_stay_move", "Stay / Move response (Fig. 3)",
     "Per pair (same method, view, world, replicate; queries aligned by id): Stay error mean (τ̂_stay − τ̂)², "
     "Move tracking error mean ((τ̂_move − τ̂) − (τ_move − τ))²; means over worlds."),
    ("effect_hc_degradation", "Hiding the confounder: bd vs hc (RQ3, Fig. 6a–b)",
     "Mean sPEHE² over the worlds (synthetic) or realisations (real) where the method has both views; "
     "difference = hc − bd, ratio = hc / bd."),
    ("effect_bounds", "Bounds per method and assumption (Fig. 6c–e)",
     "Endpoint RMSE against the oracle identified set, containment = share of queries with τ in [L̂, Û], "
     "mean width; means over worlds."),
    ("effect_real", "Real and semi-synthetic data (Table 1)", "Mean sPEHE² ± SD over replicates (realisations)."),
    ("effect_context", "Context length (Table 8)",
     "Mean sPEHE² ± SD over worlds per context size n_context (the default runs at their own size)."),
)


def _effect(ctx: Any, runs: pd.DataFrame, out: _Section) -> Optional[EffectSection]:
    """The effect-estimation tables, figures and page section; None (one "Left out" line) without effect runs."""
    from . import effect as E
    from . import effect_figures as EF

    mask = E.effect_mask(runs)
    if not mask.any():
        out.skip("effect estimation", "no effect-estimation runs in this store (task 'effect'; e.g. "
                 "arena run --families causalidview)")
        return None
    status = E.effect_status(runs)
    out.csv("effect_status", status)
    section = EffectSection(status=status, failures=failure_examples(runs[mask]))
    tables: Dict[str, pd.DataFrame] = {}

    def left(analysis: str, reason: str) -> None:
        section.left_out.append((analysis, reason))

    def attempt(analysis: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - one analysis's error is a note, not a lost report
            left(analysis, f"error: {type(exc).__name__}: {exc}")

    def keep(stem: str, frame: pd.DataFrame, analysis: str, why: str) -> None:
        if len(frame):
            tables[stem] = frame
        else:
            left(analysis, why)

    attempt("effect view × method", lambda: keep(
        "effect_view_method", E.view_method(runs), "effect view × method",
        f"no ok {E.EFFECT_FAMILY} runs of the original variant with sPEHE² at the default context size"))

    def stay_move() -> None:
        rows = E.effect_rows(runs)
        if not set(rows.loc[rows["family"] == E.EFFECT_FAMILY, "variant"]) & {"stay", "move"}:
            left("effect stay / move", f"no ok {E.EFFECT_FAMILY} runs of a stay or move variant")
            return
        try:
            from arena_task_effect.task import estimates_frame

            estimates = estimates_frame(ctx)
        except Exception as exc:  # noqa: BLE001 - a context without an estimates reader (an older core)
            left("effect stay / move", f"the store's estimates could not be read ({type(exc).__name__}: {exc})")
            return
        if estimates is None or not len(estimates):
            left("effect stay / move", "no stored estimates of ok effect runs (τ̂ at the queries)")
            return
        pairs, summary = E.stay_move(runs, estimates)
        out.csv("effect_stay_move_pairs", pairs)
        keep("effect_stay_move", summary, "effect stay / move",
             "no stay or move run has an original run of the same method, view, world and replicate")
    attempt("effect stay / move", stay_move)
    attempt("effect bd → hc", lambda: keep(
        "effect_hc_degradation", E.hc_degradation(runs), "effect bd → hc",
        "no method has both a bd and an hc run on the same worlds (causalidview) or realisations (effect_real)"))
    attempt("effect bounds", lambda: keep(
        "effect_bounds", E.bounds_table(runs), "effect bounds",
        f"no ok partial-identification runs ({E.PI_FAMILY}: views pi_manski, pi_iv, pi_msm_<Γ>)"))
    attempt("effect real data", lambda: keep(
        "effect_real", E.real_table(runs), "effect real data", f"no ok {E.REAL_FAMILY} runs with sPEHE²"))
    attempt("effect context length", lambda: keep(
        "effect_context", E.context_table(runs), "effect context length",
        "no effect runs with a context-size override (arena run --n)"))

    for stem, title, note in _EFFECT_TABLES:
        if stem in tables:
            out.csv(stem, tables[stem])
            section.tables.append((stem, title, tables[stem]))
            section.notes[title] = note
    # one method -> colour mapping for every effect figure (the effect methods' labels of all tables)
    styles = F.method_styles(set().union(*[set(t["method"].astype(str)) for t in tables.values()]) if tables else ())

    def figure(title: str, paths: Sequence[Path]) -> None:
        for p in paths:
            out.written[f"figure {Path(p).name}"] = Path(p)
        section.figures += [(title, Path(p).relative_to(out.results).as_posix()) for p in paths
                            if Path(p).suffix == ".png"]

    for stem, title, draw in (
            ("effect_view_method", "sPEHE² by view and method (Fig. 2)",
             lambda t: EF.view_method_bars(t, out.figures_dir)),
            ("effect_stay_move", "Stay / Move response map (Fig. 3)",
             lambda t: EF.stay_move_map(t, out.figures_dir, styles=styles)),
            ("effect_hc_degradation", "bd → hc degradation (Fig. 6a–b)",
             lambda t: EF.hc_degradation_plot(t, out.figures_dir, styles=styles)),
            ("effect_bounds", "Bounds against Γ (Fig. 6d–e)",
             lambda t: EF.bounds_gamma(t, out.figures_dir, styles=styles))):
        if stem in tables:
            attempt(f"figure {stem}", lambda draw=draw, stem=stem, title=title: figure(title, draw(tables[stem])))
    return section
