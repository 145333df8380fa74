"""The effect-estimation section of the report as one registered analysis (``effect``, task ``"effect"``).

Reads the effect runs of the store (CausalIDView App. E.1: sPEHE², Stay /
Move, bd → hc, bounds, real data, context length; :mod:`arena_diagnosis.effect`
and :mod:`arena_diagnosis.effect_figures`) and fills the page's "Effect
estimation" section; a store without effect runs gets one "Left out" line.
This module, :mod:`.effect` and :mod:`.effect_figures` move as one unit to the
effect task's distribution.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence

import pandas as pd

from . import figures as F
from .html import EffectSection, failure_examples

__all__ = ["effect"]


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


def _effect(ctx: Any, runs: pd.DataFrame, out: Any) -> Optional[EffectSection]:
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
        try:  # the effect task's kept table (arena-task-effect installs with every effect method)
            from arena_task_effect.task import estimates_frame

            estimates = estimates_frame(ctx)
        except Exception as exc:  # noqa: BLE001 - no effect task installed, or a store without the table
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
    named = set().union(*[set(t["method"].astype(str)) for t in tables.values()]) if tables else set()
    shared = getattr(out, "styles", None) or {}
    styles = shared if named <= set(shared) else F.method_styles(named)  # the report's one mapping when it covers

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


def effect(run: Any) -> None:
    """The analysis: the effect tables (``tables/effect_*.csv``), figures (``figures/effect_*``) and page section."""
    run.effect = _effect(run.context, run.all_runs, run)
