"""The diagnosis layer's discovery analyses as registered functions (hook ``arena_analyses``, paper §5–6).

Each function takes the report's :class:`arena_diagnosis.context.AnalysisRun`
and writes its tables (``tables/<stem>.csv``), figures (``figures/<stem>.png``
and ``.svg``) and page tables through it; :mod:`arena_diagnosis.plugin`
registers them (name, order, tables, figures, page section) and
:func:`arena_diagnosis.report.write_diagnosis` calls them in order. The
definitions of the numbers live in :mod:`arena_diagnosis.analyses`.
"""

from __future__ import annotations

import json
from typing import Any, Dict

import pandas as pd

from . import analyses as A
from . import figures as F
from .context import AnalysisRun

#: graph-level factors of the slice explorer (§3.2 Eq. 6), in the paper's vocabulary
GRAPH_FACTORS = ("graph", "d", "difficulty", "root_dependency", "mechanism", "noise", "root", "domain",
                 "protocol", "n", "split", "standardisation")
#: the synthetic grid's factors (App. A.1): sliced on the synthetic family when it is in the store
SYNTHETIC_FACTORS = ("graph", "d", "difficulty", "root_dependency", "mechanism", "noise", "root")
#: edge-level factors: a mechanism or noise belongs to the child's equation (§6.1)
EDGE_FACTORS = ("mechanism", "noise")
#: factors of the interaction heatmaps (Fig. 10, 12, 13)
INTERACTION_FACTORS = ("graph", "mechanism", "noise", "root_dependency")


def _families(run: AnalysisRun) -> set:
    return set(run.runs["family"].astype(str))


def _wide(frame: pd.DataFrame, columns: str, values: str, prefix: str = "", extra=()) -> pd.DataFrame:
    """The page's form of a long table: one row per method, one column per level (the CSV keeps the long form)."""
    wide = frame.pivot_table(index="method", columns=columns, values=values, aggfunc="first", sort=False)
    wide.columns = [f"{prefix}{c}" for c in wide.columns]
    for col in extra:  # per-method constants (an SD across levels)
        wide[col] = frame.groupby("method", sort=False)[col].first()
    return wide.rename_axis("method").reset_index()


def slices(run: AnalysisRun) -> None:
    """Eq. 6 slice scores by every graph-level factor (+ ``--factors``): ``tables/slices.csv``, the slice explorer."""
    runs, fams, extra = run.runs, _families(run), run.factors
    found: Dict[str, pd.DataFrame] = {}
    for factor in dict.fromkeys(GRAPH_FACTORS + extra):
        # the synthetic grid's own factors are sliced on the synthetic family (a card's d or mechanism
        # tags pooled with the grid's would mix two pools in one column); the others on every family
        family = "synthetic" if factor in SYNTHETIC_FACTORS and "synthetic" in fams else None
        try:
            frame = A.slice_scores(runs, factor, family=family)
        except ValueError as exc:
            if factor in extra:  # asked for by name: say why it is absent
                run.skip(f"slice {factor}", str(exc))
            continue
        if len(frame) and (frame["level"].nunique() > 1 or factor in extra):
            found[f"{factor} (synthetic)" if family else factor] = frame
    run.slices.update(found)
    run.csv("slices", pd.concat(list(found.values()), ignore_index=True) if found else pd.DataFrame())


def edges(run: AnalysisRun) -> None:
    """§6.1 edge-level precision / recall / F1 by the child's mechanism or noise: ``tables/edge_slices_*.csv``."""
    pred_truth = run.predictions()
    if pred_truth is None:
        return
    runs, fams = run.runs, _families(run)
    for factor in EDGE_FACTORS:
        # §6.1's edge-level factors are the synthetic grid's (cards tag their own mechanism families)
        syn = runs[runs["family"] == "synthetic"] if "synthetic" in fams else runs
        frame = A.edge_slice_scores(syn, pred_truth[0], pred_truth[1], factor)
        if len(frame):
            key = f"{factor} (edge-level{', synthetic' if 'synthetic' in fams else ''})"
            run.slices[key] = frame.rename(columns={"f1": "score"}).assign(sd=float("nan"))[
                ["factor", "level", "method", "split", "score", "sd", "units", "precision", "recall"]]
            run.csv(f"edge_slices_{factor}", frame)


def winrates(run: AnalysisRun) -> None:
    """Pairwise win rates and win rate by family (Fig. 1, 19), per split."""
    for split in ("obs", "obs_int"):
        wr = A.win_rates(run.runs, split=split)
        if wr.pairwise.shape[0] < 2:  # a win rate needs an opponent (obs+int: often gies alone)
            if split == "obs" or wr.pairwise.shape[0] == 1:
                run.skip(f"win rates ({split})", "fewer than two methods scored on this split")
            continue
        label = "obs" if split == "obs" else "obs+int"
        run.csv(f"win_rates_{split}", wr.pairwise, f"Pairwise win rates, {label} (row beats column)", index=True)
        run.csv(f"win_rates_by_family_{split}", wr.by_family, f"Win rate by family, {label}", index=True)
        run.figure(f"Win-rate matrix, {label} (Fig. 19)",
                   F.win_rate_matrix(wr.pairwise, run.figures_dir, stem=f"win_rate_matrix_{split}"))
        run.figure(f"Win rate by family, {label} (Fig. 1)",
                   F.win_rate_bars(wr.by_family, run.figures_dir, stem=f"win_rate_bars_{split}", split=split))


def interactions(run: AnalysisRun) -> None:
    """Eq. 7 double-centred interaction scores with unit counts and a bootstrap interval (Fig. 10, 12, 13)."""
    runs, fams, extra = run.runs, _families(run), run.factors
    pred_truth = None
    if any(f in EDGE_FACTORS for f in INTERACTION_FACTORS + extra):
        pred_truth = run.predictions()
    frames = []
    for factor in dict.fromkeys(INTERACTION_FACTORS + extra):
        edge = factor in EDGE_FACTORS and pred_truth is not None
        try:
            family = "synthetic" if factor in SYNTHETIC_FACTORS and "synthetic" in fams else None
            frame = A.interaction_scores(runs, factor, predictions=pred_truth[0] if edge else None,
                                         truths=pred_truth[1] if edge else None, family=family)
        except ValueError as exc:
            if factor in extra:  # a default factor these runs do not hold is no news
                run.skip(f"interaction {factor}", str(exc))
            continue
        if len(frame):
            frames.append(frame)
    if frames:
        inter = pd.concat(frames, ignore_index=True)
        title = "Interaction scores (Eq. 7) with units and 95% bootstrap interval"
        run.csv("interactions", inter, title)
        run.notes[title] = ("interaction: double-centred F1 (obs split); units: the SCMs the cell rests on; "
                            "ci_low / ci_high: 2.5 and 97.5 percentiles over 200 resamples of the SCMs (seed 0), "
                            "one resample shared by every method. A cell on 2–4 SCMs is a hint, not a finding.")
        run.figure("Interaction scores (Eq. 7; Fig. 10, 12, 13)", F.interaction_heatmaps(inter, run.figures_dir))


def curves(run: AnalysisRun) -> None:
    """F1 against d (Fig. 11) and against n (Fig. 6a, the sample-size suite)."""
    dc = A.d_curve(run.runs)
    run.csv("d_curve", dc)
    if len(dc):
        run.tables["F1 against d (synthetic, obs)"] = _wide(dc, "d", "score", prefix="d = ")
    run.figure("F1 against d (Fig. 11)", F.d_curve(dc, run.figures_dir, styles=run.styled(dc)))
    nc = A.n_curve(run.runs)
    if len(nc):
        run.csv("n_curve", nc)
        run.tables["F1 against n (sample-size suite)"] = _wide(nc, "n", "score", prefix="n = ")
        run.figure("F1 against n (Fig. 6a)", F.n_curve(nc, run.figures_dir, styles=run.styled(nc)))
    else:
        run.skip("n curve", "no sample-size suite runs (arena run --suite sample-size)")


def protocols(run: AnalysisRun) -> None:
    """Intervention-protocol sensitivity (Table 3, Fig. 6b)."""
    pt = A.protocol_table(run.runs)
    if not len(pt):
        run.skip("protocol table", "no intervention-protocol suite runs (arena run --suite intervention-protocols)")
        return
    run.csv("protocols", pt)
    f1 = _wide(pt, "protocol", "f1", prefix="F1 ")
    delta = _wide(pt, "protocol", "delta_f1", prefix="ΔF1 ", extra=("f1_sd",)).drop(columns=["method"])
    run.tables["Intervention-protocol sensitivity (Table 3)"] = pd.concat([f1, delta], axis=1)
    run.figure("ΔF1 against the default protocol (Fig. 6b)", F.protocol_bars(pt, run.figures_dir))


def domains(run: AnalysisRun) -> None:
    """Domain shift of the semantic and formula families (Fig. 17)."""
    runs = run.runs
    for family in ("semantic", "formula"):
        if family not in set(runs["family"]):
            continue
        ds = A.domain_shift(runs, family)
        if len(ds):
            run.csv(f"domain_shift_{family}", ds)
            title = f"Domain shift, {family}: F1 on the domain minus the method's own mean (Fig. 17)"
            run.tables[title] = _wide(ds, "domain", "shift", extra=("domain_sd",))
            sub = runs[(runs["family"] == family) & (runs["split"] == "obs")]
            per = sub.groupby(sub["factors"].map(lambda t: str(json.loads(t or "{}").get("domain"))))[
                "scm_id"].nunique()
            run.notes[title] = (f"obs split; SCMs per domain: {int(per.min())}–{int(per.max())}"
                                + (" (one scenario per domain: a shift is that one card's, not the "
                                   "domain's)" if per.max() == 1 else "") + ".")
            run.figure(f"Domain shift, {family} (Fig. 17)",
                       F.domain_heatmap(ds, run.figures_dir, stem=f"domain_shift_{family}", family=family))


def family_kinds(run: AnalysisRun) -> Dict[str, str]:
    """``{family: kind}`` of the installed families (``FamilyInfo.kind``: ``"real"``, ``"synthetic"`` …).

    The real-data section is keyed on this declared kind, never on a list of names; without a registry
    (a test's stand-in context) only the core's conventional names are known: ``real`` and ``synthetic``.
    """
    families = getattr(getattr(run.context, "registry", None), "families", None)
    if not families:
        return {"real": "real", "synthetic": "synthetic"}
    return {str(name): str(getattr(info, "kind", "") or "") for name, info in families.items()}


def real(run: AnalysisRun) -> None:
    """Every real table (families of kind ``real``): F1 / SHD per table against the method's synthetic mean,
    one strip per table, and the weighted accuracy of cause–effect pair tracks (Fig. 5, App. C.4)."""
    kinds = family_kinds(run)
    present = set(run.runs["family"].astype(str))
    fams = sorted(f for f, k in kinds.items() if k == "real" and f in present)
    synthetic = sorted(f for f, k in kinds.items() if k == "synthetic" and f in present)
    if not fams:
        return
    rd = A.real_data(run.runs, families=fams, synthetic=synthetic)
    pt = A.pair_track(run.runs, fams)
    missing = A.real_missing(run.runs, [f for f in fams if f not in set(A.pair_families(run.runs, fams))])
    run.csv("real_missing", missing)
    if len(rd):
        run.csv("real_data", rd)
        cells = rd.assign(column=F.table_labels(rd) + " / " + rd["split"].astype(str),
                          cell=[("–" if pd.isna(f) else f"{f:.2f}") + " / " + ("–" if pd.isna(h) else f"{h:.1f}")
                                for f, h in zip(rd["f1"], rd["shd"])])
        wide = _wide(cells, "column", "cell")
        for split in ("obs", "obs_int"):
            ref = rd[rd["split"] == split].groupby("method", sort=False)[["synthetic_f1", "synthetic_shd"]].first()
            if len(ref) and ref["synthetic_f1"].notna().any():
                wide[f"synthetic ({split})"] = wide["method"].map(
                    lambda m, r=ref: "–" if m not in r.index or pd.isna(r.loc[m, "synthetic_f1"])
                    else f"{r.loc[m, 'synthetic_f1']:.2f} / {r.loc[m, 'synthetic_shd']:.1f}")
        title = "Real data: F1 / SHD per table against the synthetic mean (Fig. 5)"
        run.table(title, wide, note=(
            f"families of kind 'real': {', '.join(f for f in fams if f not in set(A.pair_families(run.runs, fams)))}"
            f"; cells F1 / SHD (replicate means); 'synthetic' = the method's mean over the "
            f"{', '.join(synthetic) or 'no synthetic family'} units of that split (§5.2: does the synthetic "
            "ranking carry over?)."))
        run.figure("Real data per table (Fig. 5)", F.real_data_strip(rd, run.figures_dir))
    if len(pt):
        run.csv("real_pairs", pt)
        wide = _wide(pt.assign(column=pt["family"].astype(str) + " / " + pt["split"].astype(str)), "column",
                     "accuracy")
        pairs = pt.groupby("family")["pairs"].max()
        wide["pairs"] = wide["method"].map(pt.groupby("method")["pairs"].max())
        wide["undecided"] = wide["method"].map(pt.groupby("method")["undecided"].sum())
        run.table("Cause–effect pairs: weighted orientation accuracy", wide, note=(
            "Σ w·s / Σ w over pairs (Mooij et al. 2016): s = 1 for the true direction, 0 for the reversed one, "
            "0.5 without a decision (empty graph; a CPDAG edge is oriented at random with the cell seed before "
            "scoring); w = the pair's weight factor (1 each for cdt's copy of CEP, which ships no weights). "
            "Pairs per family: " + ", ".join(f"{f} {int(n)}" for f, n in pairs.items()) + "."))
    if len(rd) or len(pt):
        run.figure("Real data: one strip per table against the synthetic mean (Fig. 5)",
                   F.real_table_strips(rd, run.figures_dir, pairs=pt, missing=missing, styles=run.styled(pd.concat(
                       [rd[["method"]], pt[["method"]], missing[["method"]]]))))


def frontier(run: AnalysisRun) -> None:
    """Accuracy–cost frontier (Fig. 9): Avg F1 against T_graph (:mod:`arena_diagnosis.runtime`) or end-to-end time."""
    from .runtime import shared_runtime_table

    fr = A.frontier(run.runs, shared_runtime_table(run))
    run.csv("frontier", fr, "Accuracy–cost frontier (Fig. 9)")
    run.figure("Accuracy–cost frontier (Fig. 9)", F.pareto_frontier(fr, run.figures_dir, styles=run.styled(fr)))
    run.notes["Accuracy–cost frontier (Fig. 9)"] = (
        "f1 is the leaderboard's Avg F1; seconds is T_graph (mean over d of the load / per-graph fit) where "
        "the method has such a fit, otherwise its mean end-to-end time per run; pareto marks the methods "
        "no other method beats on both.")


def _priors(run: AnalysisRun) -> Dict[str, Any]:
    """Declared pretraining priors (``MethodInfo.prior``) of the methods in the runs; nothing entered by hand."""
    methods = getattr(getattr(run.context, "registry", None), "methods", {}) or {}
    out: Dict[str, Any] = {}
    for name in sorted({str(m) for m in run.runs["method"].unique()}):
        info = methods.get(name)
        out[name] = getattr(info, "prior", None) if info is not None else None
    return out


def exposure(run: AnalysisRun) -> None:
    """Pretraining exposure (§6.2 Eq. 8–10; Fig. 14, 15) of the methods that declare a prior."""
    ex = A.exposure(run.runs, _priors(run), reference=run.reference)
    run.csv("exposure_skipped", ex.skipped)
    if len(ex.summary) == 0:
        from .exposure import NO_PRIOR

        reasons = {m: r for m, r in zip(ex.skipped["method"], ex.skipped["reason"])}
        with_prior = {m: r for m, r in reasons.items() if r != NO_PRIOR}
        if with_prior:  # a method declares a prior but has nothing to analyse: say why, per method
            why = "; ".join(f"{m}: {r}" for m, r in sorted(with_prior.items()))
            run.skip("pretraining exposure", f"no method with a declared prior has runs to analyse ({why})")
        else:
            names = ", ".join(sorted(reasons)) or "none"
            run.skip("pretraining exposure", f"no method in the store declares a pretraining prior "
                     f"(MethodInfo.prior); left out: {names}")
        return
    run.csv("exposure_coverage", ex.coverage, "Pretraining prior coverage (Fig. 14)")
    run.csv("exposure_axes", ex.axes, "ID / OOD F1 per axis (Eq. 8; Fig. 15)")
    run.csv("exposure_summary", ex.summary, "Exposure summary (Eq. 8–10)")
    run.figure("Prior coverage (Fig. 14)", F.prior_coverage_bars(ex.coverage, run.figures_dir))
    run.figure("ID / OOD F1 against the reference (Fig. 15)", F.id_ood_bars(ex.axes, run.figures_dir))
