"""Small synthetic frames in the issue 13 contract formats, for the figure and HTML tests.

Values are made up but deterministic (no RNG), so the tests can assert exact
orders and numbers. The method list includes a long name (clipping check) and
the HTML fixture a name carrying ``</script>`` and ``<b>`` (escaping check).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

METHODS = ["pc", "ges", "DirectLiNGAM", "NOTEARS-MLP (very long method name)", "avici"]
FAMILIES = ["synthetic", "semantic", "formula", "real"]


def leaderboard_cells() -> pd.DataFrame:
    """Per (method, family, split) means: method, family, split, precision, recall, f1, shd."""
    rows = []
    for i, m in enumerate(METHODS):
        for j, fam in enumerate(FAMILIES):
            for s, bump in (("obs", 0.0), ("obs_int", 0.08)):
                if m == "DirectLiNGAM" and s == "obs_int":
                    continue  # an obs-only method: a lone circle, no joining line
                p = 0.25 + 0.1 * i + 0.03 * j + bump
                r = 0.2 + 0.08 * (4 - i) + 0.02 * j + bump
                rows.append({"method": m, "family": fam, "split": s, "precision": p, "recall": r,
                             "f1": 2 * p * r / (p + r), "shd": 30.0 - 3 * i - 2 * j - 10 * bump})
    return pd.DataFrame(rows)


def win_rates():
    """(pairwise, by_family, units) like ``WinRates``: pairwise[a, b] + pairwise[b, a] = 1."""
    n = len(METHODS)
    strength = np.array([0.9, 0.7, 0.5, 0.3, 0.1])
    pw = np.full((n, n), np.nan)
    for a in range(n):
        for b in range(n):
            if a != b:
                pw[a, b] = round(0.5 + (strength[a] - strength[b]) / 2, 3)
    pairwise = pd.DataFrame(pw, index=METHODS, columns=METHODS)
    fam = {f: [0.8 - 0.15 * i + 0.02 * k for i in range(n)] for k, f in enumerate(FAMILIES)}
    fam["semantic"][1] = 0.95  # ges best on semantic: the star moves
    by_family = pd.DataFrame(fam, index=METHODS)
    by_family["mean"] = by_family.mean(axis=1)
    by_family = by_family.sort_values("mean", ascending=False)
    units = pd.DataFrame(np.where(np.eye(n, dtype=bool), np.nan, 40.0), index=METHODS, columns=METHODS)
    return pairwise, by_family, units


def interaction_scores() -> pd.DataFrame:
    """factor, level, method, score, interaction for "graph" (3 levels) and "mechanism" (4 levels)."""
    rows = []
    for factor, levels in (("graph", ["er", "sf", "sbm"]), ("mechanism", ["linear", "polynomial", "rff", "mlp"])):
        k = len(levels)
        for i, m in enumerate(METHODS):
            for j, lv in enumerate(levels):
                # row and column sums are 0 (double-centred): outer product of centred vectors
                a = (i - 2) / 10.0
                b = (j - (k - 1) / 2) / k
                rows.append({"factor": factor, "level": lv, "method": m, "score": 0.5 + a * b,
                             "interaction": a * b})
    return pd.DataFrame(rows)


def d_curve() -> pd.DataFrame:
    rows = []
    for i, m in enumerate(METHODS):
        for d in (5, 10, 20, 50):
            rows.append({"method": m, "d": d, "score": max(0.05, 0.8 - 0.1 * i - 0.004 * d * (i + 1)),
                         "sd": 0.05, "units": 12})
    return pd.DataFrame(rows)


def n_curve() -> pd.DataFrame:
    rows = []
    for i, m in enumerate(METHODS):
        for n in (100, 300, 1000, 3000, 10000):
            rows.append({"method": m, "n": n, "score": 0.2 + 0.1 * np.log10(n) - 0.05 * i, "sd": 0.04, "units": 6})
    return pd.DataFrame(rows)


def protocol_table() -> pd.DataFrame:
    rows = []
    for i, m in enumerate(METHODS[:4]):
        base = 0.6 - 0.1 * i
        f1s = {"default": base, "fixed_setpoint": base - 0.05 * i, "soft_shift": base + 0.02, "few_targets": base - 0.1}
        sd = float(np.std(list(f1s.values()), ddof=1))
        for p, f in f1s.items():
            rows.append({"method": m, "protocol": p, "f1": f, "shd": 20 - 10 * f, "delta_f1": f - base, "f1_sd": sd})
    return pd.DataFrame(rows)


def domain_shift() -> pd.DataFrame:
    domains = ["public health", "cybersecurity and IT operations", "education", "manufacturing", "energy"]
    rows = []
    for i, m in enumerate(METHODS):
        shifts = [(j - 2) * 0.03 * (i + 1) * (-1) ** j for j in range(len(domains))]
        mean = float(np.mean(shifts))
        shifts = [s - mean for s in shifts]
        sd = float(np.std(shifts, ddof=1))
        for dm, s in zip(domains, shifts):
            rows.append({"method": m, "domain": dm, "f1": 0.4 + s, "shift": s, "domain_sd": sd})
    return pd.DataFrame(rows)


def real_data() -> pd.DataFrame:
    tables = ["sachs", "asia", "alarm", "child", "insurance"]
    rows = []
    for i, m in enumerate(METHODS):
        for s, tabs in (("obs", tables), ("obs_int", tables[:2])):
            for k, t in enumerate(tabs):
                rows.append({"method": m, "split": s, "table": t, "f1": 0.15 + 0.08 * ((i + k) % 5), "shd": 10 + k})
    return pd.DataFrame(rows)


def frontier() -> pd.DataFrame:
    pts = [("pc", 0.42, 0.8, "end_to_end"), ("ges", 0.47, 12.0, "end_to_end"), ("DirectLiNGAM", 0.30, 3.0, "end_to_end"),
           ("NOTEARS-MLP (very long method name)", 0.50, 200.0, "end_to_end"), ("avici", 0.55, 0.05, "T_graph")]
    df = pd.DataFrame(pts, columns=["method", "f1", "seconds", "time_source"])
    # by hand: avici (fastest, best) dominates all -> only avici is Pareto-optimal; make ges better so both are
    df.loc[df["method"] == "NOTEARS-MLP (very long method name)", "f1"] = 0.6
    df["pareto"] = df["method"].isin(["avici", "NOTEARS-MLP (very long method name)"])
    return df


def exposure_coverage() -> pd.DataFrame:
    totals = {"graph": 5, "mechanism": 8, "noise": 6, "root": 7}
    covered = {"avici": {"graph": 2, "mechanism": 3, "noise": 1, "root": 1},
               "sea": {"graph": 2, "mechanism": 1, "noise": 1, "root": 1},
               "cauScale": {"graph": 3, "mechanism": 4, "noise": 2, "root": 2}}
    rows = [{"method": m, "axis": a, "covered": c[a], "total": t, "ratio": c[a] / t}
            for m, c in covered.items() for a, t in totals.items()]
    return pd.DataFrame(rows)


def exposure_axes() -> pd.DataFrame:
    rows = []
    for i, m in enumerate(["avici", "sea", "cauScale"]):
        for k, a in enumerate(["graph", "mechanism", "noise", "root"]):
            f_id, f_ood = 0.55 - 0.05 * i + 0.02 * k, 0.35 - 0.03 * i + 0.01 * k
            ref_id, ref_ood = 0.4, 0.33
            r_id, r_ood = (f_id - ref_id) / ref_id, (f_ood - ref_ood) / ref_ood
            rows.append({"method": m, "axis": a, "f_id": f_id, "f_ood": f_ood, "ref_id": ref_id, "ref_ood": ref_ood,
                         "r_id": r_id, "r_ood": r_ood, "gap": r_id - r_ood})
    return pd.DataFrame(rows)


def slice_scores(factor: str, levels) -> pd.DataFrame:
    """factor, level, method, split, score, sd, units for the HTML slice explorer."""
    rows = []
    for i, m in enumerate(METHODS):
        for j, lv in enumerate(levels):
            rows.append({"factor": factor, "level": str(lv), "method": m, "split": "obs",
                         "score": round(0.2 + 0.1 * i + 0.05 * j, 3), "sd": 0.1, "units": 10 + j})
    return pd.DataFrame(rows)


#: a method name that would break out of a <script> tag or inject markup if not escaped
EVIL = "evil</script><b>bold</b>&amp;"
HTML_METHODS = ["pc", "ges", EVIL, "DirectLiNGAM"]


def html_report(out_dir):
    """An HtmlReport with 4 methods, failures for two of them, 3 slice factors, real figure files in
    ``out_dir/figures`` and three extra tables (the last one long: 32 rows). Leaderboard F1 values chosen so
    each sort order is distinct."""
    from arena_diagnosis import figures as F
    from arena_diagnosis.html import HtmlReport

    lb = pd.DataFrame({
        "method": HTML_METHODS,
        "synthetic / obs": [0.31, 0.45, 0.12, 0.27],
        "synthetic / obs+int": [0.35, np.nan, 0.20, 0.50],   # ges has no obs+int cell: missing sorts last
        "Avg": [0.33, 0.45, 0.16, 0.385],
    })
    failures = pd.DataFrame({
        "method": ["ges", "ges", EVIL],
        "status": ["failed", "timeout", "failed"],
        "count": [2, 1, 3],
        "examples": [["ValueError: singular covariance in score", "LinAlgError: SVD did not converge"],
                     ["timeout after 600 s"], ["<script>alert(1)</script> broke"]],
    })
    slices = {
        "graph": _slices_for(HTML_METHODS, "graph", ["er", "sf", "sbm"]),
        "d": _slices_for(HTML_METHODS, "d", ["5", "10", "20", "50"]),
        "mechanism": _slices_for(HTML_METHODS, "mechanism", ["linear", "polynomial"]),
    }
    fig_dir = out_dir / "figures"
    pairwise, by_family, units = win_rates()
    figs = []
    for title, paths in (("Pairwise win rate (Fig. 19)", F.win_rate_matrix(pairwise, fig_dir, units=units)),
                         ("F1 vs d (Fig. 11)", F.d_curve(d_curve(), fig_dir)),
                         ("Accuracy-cost frontier (Fig. 9)", F.pareto_frontier(frontier(), fig_dir))):
        figs.append((title, f"figures/{paths[0].name}"))
    tables = {
        "Sortability": pd.DataFrame({"family": ["synthetic", "semantic"], "varsortability": [0.62, 0.48],
                                     "r2_sortability": [0.55, 0.51]}),
        "Runtime (T_fixed + k T_graph)": pd.DataFrame({"method": ["pc", "ges"], "d": [10, 10],
                                                       "T_fixed": [0.4, 1.2], "T_graph": [0.08, 0.9]}),
        "Domain shift (long)": long_table(),
    }
    config = {"causal-arena": "0.6.0", "arena-diagnosis": "0.1.0", "command": "arena report --results results/",
              "results": "/tmp/results", "python": "3.11.2"}
    return HtmlReport(title="CausalArena report <test>", leaderboard=lb, failures=failures, slices=slices,
                      figures=figs, tables=tables, config=config)


#: the 8 domains of :func:`long_table` (4 methods x 8 = 32 rows, more than html.COLLAPSE_ROWS = 25)
LONG_DOMAINS = ["astronomy", "biology", "chemistry", "earth", "energy", "finance", "health", "transport"]


def long_table() -> pd.DataFrame:
    """method, domain, shift for the HTML methods x 8 domains: shift = 0.01 (8 i + j) - 0.1, all distinct,
    so the largest (0.21) is the last row (DirectLiNGAM, transport) and the smallest (-0.1) the first."""
    rows = [{"method": m, "domain": dm, "shift": round(0.01 * (8 * i + j) - 0.1, 3)}
            for i, m in enumerate(HTML_METHODS) for j, dm in enumerate(LONG_DOMAINS)]
    return pd.DataFrame(rows)


def _slices_for(methods, factor, levels):
    rows = []
    for i, m in enumerate(methods):
        for j, lv in enumerate(levels):
            for s in ("obs", "obs_int"):
                rows.append({"factor": factor, "level": lv, "method": m, "split": s,
                             "score": round(0.1 + 0.15 * i + 0.05 * j + (0.02 if s == "obs_int" else 0), 3),
                             "sd": 0.05, "units": 4 + j})
    return pd.DataFrame(rows)
