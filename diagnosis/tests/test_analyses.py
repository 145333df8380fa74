"""Known-answer tests of arena_diagnosis.analyses (issue 13; paper §5-6, Eq. 6-10).

Every runs frame is built by hand with the contract's columns (``row`` /
``frame``); the expected numbers are worked out in the comments.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any, Dict, Optional, Tuple

import attrs
import numpy as np
import pandas as pd
import pytest

from arena_diagnosis import analyses as A

RUN_COLUMNS = ["family", "scm_id", "split", "replicate", "method", "config_hash", "status", "wall_seconds",
               "fit_seconds", "load_seconds", "peak_rss_mb", "error", "flags", "params", "output_kind", "n", "d",
               "seed", "standardise", "protocol", "python", "method_version", "started_at", "finished_at",
               "n_override", "suite", "varsortability", "r2_sortability", "factors", "start_seconds", "worker_id",
               "worker_seq", "isolation", "scoring"]
METRICS = ["f1", "shd", "precision", "recall", "sid", "nshd", "auroc", "ap", "fdr", "n_edges"]


def row(method: str, scm_id: str, f1: float = math.nan, shd: float = math.nan, *, family: str = "synthetic",
        split: str = "obs", replicate: int = 0, status: str = "ok", factors: Optional[Dict[str, Any]] = None,
        **over: Any) -> Dict[str, Any]:
    """One run row with every contract column (main-benchmark defaults)."""
    r: Dict[str, Any] = {c: None for c in RUN_COLUMNS}
    r.update(family=family, scm_id=scm_id, split=split, replicate=replicate, method=method, config_hash="h0",
             status=status, wall_seconds=1.0, fit_seconds=1.0, flags="", params="{}", output_kind="dag",
             n=1000, d=10, seed=0, standardise=True, protocol="default", finished_at=f"2024-01-01T00:00:{replicate:02d}",
             factors=json.dumps(factors or {}, sort_keys=True), scoring="")
    r.update({m: math.nan for m in METRICS})
    r["f1"], r["shd"] = f1, shd
    r.update(over)
    return r


def frame(*rows: Dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=RUN_COLUMNS + METRICS)


try:  # the core's records; the analyses only duck-type them, so stand-ins serve on an older core
    from causalarena.predictions import Truth
    from causalarena.records import PretrainingPrior
except ImportError:  # pragma: no cover - core without issue 13
    @attrs.frozen
    class Truth:  # type: ignore[no-redef]
        adjacency: np.ndarray
        columns: Tuple[str, ...]
        node_tags: Tuple[Dict[str, str], ...]

    @attrs.frozen
    class PretrainingPrior:  # type: ignore[no-redef]
        axes: Dict[str, Tuple[str, ...]]
        d_range: Optional[Tuple[int, int]] = None
        n_range: Optional[Tuple[int, int]] = None
        source: str = "test"


def Prior(axes: Dict[str, Tuple[str, ...]], **kw: Any) -> Any:
    return PretrainingPrior(axes=axes, source="test", **kw)


def adj(d: int, *edges: Tuple[int, int]) -> np.ndarray:
    a = np.zeros((d, d), dtype=bool)
    for i, j in edges:
        a[i, j] = True
    return a


# ---------------------------------------------------------------------------
# unit scores, slices
# ---------------------------------------------------------------------------


def test_unit_scores_replicate_means_and_main_filter():
    runs = frame(
        row("pc", "s1", 0.4, 8, replicate=0), row("pc", "s1", 0.6, 12, replicate=1),  # mean 0.5 / 10
        row("pc", "s1", 0.0, 99, replicate=2, status="failed"),  # not ok: out
        row("pc", "s1", 0.9, 1, protocol="fixed_setpoint", config_hash="h1"),  # other protocol: out
        row("pc", "s1", 0.9, 1, suite="sample-size", n_override=100, config_hash="h2"),  # suite: out
        row("pc", "s1", 0.9, 1, standardise=False, config_hash="h3"),  # raw inputs: out
    )
    u = A.unit_scores(runs)
    assert len(u) == 1
    assert u["f1"].iloc[0] == pytest.approx(0.5)
    assert u["shd"].iloc[0] == pytest.approx(10.0)
    assert u["replicates"].iloc[0] == 2


def test_slice_units_with_list_factors():
    # s1 [linear], s2 [linear, rff], s3 [rff, tree]; s4 (semantic) has no mechanisms key
    runs = frame(
        row("a", "s1", 0.2, factors={"mechanisms": ["linear"]}),
        row("a", "s2", 0.4, factors={"mechanisms": ["linear", "rff"]}),
        row("a", "s3", 0.9, factors={"mechanisms": ["rff", "tree"]}),
        row("a", "s4", 0.1, family="semantic", factors={"domain": "energy"}),
        row("a", "s1", 0.7, split="obs_int", factors={"mechanisms": ["linear"]}),
    )
    out = A.slice_scores(runs, "mechanism", split="obs")
    assert list(out.columns) == A.SLICE_COLUMNS
    got = out.set_index("level")
    # linear: s1, s2 -> mean(0.2, 0.4) = 0.3, sd = sqrt(((0.1)^2 + (0.1)^2) / 1) = 0.141421
    assert got.loc["linear", "units"] == 2
    assert got.loc["linear", "score"] == pytest.approx(0.3)
    assert got.loc["linear", "sd"] == pytest.approx(math.sqrt(0.02))
    # rff: s2, s3 -> mean(0.4, 0.9) = 0.65; tree: s3 only -> 0.9, sd undefined
    assert got.loc["rff", "units"] == 2 and got.loc["rff", "score"] == pytest.approx(0.65)
    assert got.loc["tree", "units"] == 1 and math.isnan(got.loc["tree", "sd"])
    assert list(out["level"]) == ["linear", "rff", "tree"]
    # without a split filter the obs_int unit is its own row
    both = A.slice_scores(runs, "mechanism")
    assert set(both["split"]) == {"obs", "obs_int"}
    # the semantic unit has a domain, nothing else
    dom = A.slice_scores(runs, "domain")
    assert dom[["level", "units"]].values.tolist() == [["energy", 1]]


def test_slice_by_run_columns_and_aliases():
    runs = frame(
        row("a", "s1", 0.2, d=10, factors={"difficulty_level": "clean", "graph": "er"}),
        row("a", "s2", 0.6, d=20, factors={"difficulty_level": "hard", "graph": "er"}),
        row("a", "s3", 0.4, d=10, factors={"difficulty_level": "clean", "graph": "sf"}),
        row("a", "s1", 0.1, protocol="fixed_setpoint", config_hash="h1", split="obs_int",
            factors={"graph": "er"}),
    )
    d = A.slice_scores(runs, "d").set_index("level")
    assert d.loc["10", "score"] == pytest.approx(0.3) and d.loc["20", "units"] == 1
    diff = A.slice_scores(runs, "difficulty").set_index("level")  # alias of difficulty_level
    assert diff.loc["clean", "score"] == pytest.approx(0.3)
    # slicing by protocol lifts the protocol filter: both protocols appear
    prot = A.slice_scores(runs, "protocol")
    assert sorted(prot["level"]) == ["default", "fixed_setpoint"]
    assert prot.set_index("level").loc["fixed_setpoint", "score"] == pytest.approx(0.1)
    assert set(prot["method"]) == {"a"}  # the protocol is the slice, not a configuration label
    # standardisation likewise: the raw run (0.9) is its own level, the main runs the other
    raw = pd.concat([runs, frame(row("a", "s1", 0.9, standardise=False, config_hash="h9"))], ignore_index=True)
    std = A.slice_scores(raw, "standardisation", split="obs").set_index("level")
    assert std.loc["False", "score"] == pytest.approx(0.9) and std.loc["True", "units"] == 3
    assert set(std["method"]) == {"a"}


def test_unknown_factor_raises_naming_it_and_the_available_ones():
    runs = frame(row("a", "s1", 0.5, factors={"graph": "er"}))
    with pytest.raises(ValueError, match=r"unknown factor 'colour'.*graph"):
        A.slice_scores(runs, "colour")
    with pytest.raises(ValueError, match=r"unknown factor 'colour'"):
        A.interaction_scores(runs, "colour")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['status'\]"):
        A.unit_scores(runs.drop(columns="status"))


def test_empty_inputs_give_empty_frames_with_contract_columns():
    runs = frame()
    assert list(A.slice_scores(runs, "split").columns) == A.SLICE_COLUMNS
    assert list(A.edge_slice_scores(runs, None, {}, "mechanism").columns) == A.EDGE_SLICE_COLUMNS
    assert list(A.interaction_scores(runs, "split").columns) == A.INTERACTION_COLUMNS
    assert list(A.d_curve(runs).columns) == A.D_CURVE_COLUMNS
    assert list(A.n_curve(runs).columns) == A.N_CURVE_COLUMNS
    assert list(A.protocol_table(runs).columns) == A.PROTOCOL_COLUMNS
    assert list(A.domain_shift(runs, "semantic").columns) == A.DOMAIN_COLUMNS
    assert list(A.real_data(runs).columns) == A.REAL_COLUMNS
    assert list(A.frontier(runs).columns) == A.FRONTIER_COLUMNS
    w = A.win_rates(runs)
    assert w.pairwise.empty and list(w.by_family.columns) == ["mean"]
    e = A.exposure(runs, {})
    assert list(e.coverage.columns) == ["method", "axis", "covered", "total", "ratio"]
    assert list(e.axes.columns) == ["method", "axis", "f_id", "f_ood", "ref_id", "ref_ood", "r_id", "r_ood", "gap"]
    assert list(e.summary.columns) == ["method", "coverage", "r_id", "r_ood", "gap", "delta", "f", "f_hat_id",
                                       "f_hat_ood"]
    assert list(e.skipped.columns) == ["method", "reason"]
    # only failed runs: no unit either
    failed = frame(row("a", "s1", status="failed"))
    assert A.slice_scores(failed, "split").empty
    # no stored predictions: empty, and says which command fills them
    no_pred = A.edge_slice_scores(frame(row("a", "s1", 0.5)), None, {}, "mechanism")
    assert no_pred.empty and "rescore" in no_pred.attrs["reason"]


# ---------------------------------------------------------------------------
# edge level (§6.1)
# ---------------------------------------------------------------------------


def _four_node_truth() -> Truth:
    # X0 -> X1, X0 -> X2, X1 -> X3, X2 -> X3; X0 is the root
    return Truth(adjacency=adj(4, (0, 1), (0, 2), (1, 3), (2, 3)), columns=("X0", "X1", "X2", "X3"),
                 node_tags=({"root": "gaussian"}, {"mechanism": "linear", "noise": "gaussian"},
                            {"mechanism": "rff", "noise": "laplace"}, {"mechanism": "linear", "noise": "laplace"}))


def _predictions(*rows: Tuple[str, str, int, str, np.ndarray, str]) -> pd.DataFrame:
    return pd.DataFrame([{"family": "synthetic", "scm_id": s, "split": "obs", "replicate": r, "method": m,
                          "config_hash": h, "kind": "dag", "adjacency": a, "edge_scores": None, "truth_id": t}
                         for m, s, r, h, a, t in rows])


def test_edge_slice_on_a_four_node_graph():
    truths = {"t4": _four_node_truth(),
              # second unit: X0 -> X1, X1 linear
              "t2": Truth(adjacency=adj(2, (0, 1)), columns=("X0", "X1"),
                          node_tags=({"root": "gumbel"}, {"mechanism": "linear", "noise": "gaussian"}))}
    # replicate 0 predicts X0->X1 (TP), X2->X1 (FP), X1->X3 (TP), X3->X2 (FP, reversed X2->X3... into X2),
    # X0->X3 (FP); replicate 1 predicts the truth exactly
    p0 = adj(4, (0, 1), (2, 1), (1, 3), (3, 2), (0, 3))
    runs = frame(row("m", "s4", 0.5, replicate=0), row("m", "s4", 1.0, replicate=1), row("m", "s2", 0.0),
                 row("m", "s4", 0.3, protocol="fixed_setpoint", config_hash="h1", replicate=0))
    preds = _predictions(("m", "s4", 0, "h0", p0, "t4"), ("m", "s4", 1, "h0", _four_node_truth().adjacency, "t4"),
                         ("m", "s2", 0, "h0", adj(2), "t2"),
                         # a prediction of the fixed-setpoint run: not main benchmark, must not count
                         ("m", "s4", 0, "h1", np.ones((4, 4), dtype=bool), "t4"))
    out = A.edge_slice_scores(runs, preds, truths, "mechanism")
    assert list(out.columns) == A.EDGE_SLICE_COLUMNS
    got = out.set_index("level")
    # replicate 0, linear children {X1, X3}: true edges into them X0->X1, X1->X3, X2->X3 = 3;
    #   predicted into them X0->X1, X2->X1, X1->X3, X0->X3 = 4; TP X0->X1, X1->X3 = 2
    #   P = 2/4, R = 2/3, F1 = 2*2/(4+3) = 4/7
    # replicate 1 (exact): P = R = F1 = 1 -> unit s4 linear: P 0.75, R 5/6, F1 (4/7 + 1)/2 = 11/14
    # unit s2 linear: nothing predicted: P 0 (zero-division 0), R 0/1 = 0, F1 0
    # macro over the 2 units: P 0.375, R 5/12, F1 11/28
    assert got.loc["linear", "units"] == 2
    assert got.loc["linear", "precision"] == pytest.approx(0.375)
    assert got.loc["linear", "recall"] == pytest.approx(5 / 12)
    assert got.loc["linear", "f1"] == pytest.approx(11 / 28)
    # rff child {X2}: rep 0: true X0->X2, predicted X3->X2, TP 0 -> 0, 0, 0; rep 1: 1, 1, 1 -> 0.5 each; 1 unit
    assert got.loc["rff", "units"] == 1
    assert got.loc["rff", ["precision", "recall", "f1"]].tolist() == pytest.approx([0.5, 0.5, 0.5])

    noise = A.edge_slice_scores(runs, preds, truths, "noise").set_index("level")
    # gaussian {X1} (s4): rep 0 true 1, predicted 2 (X0->X1, X2->X1), TP 1 -> P .5, R 1, F1 2/3; rep 1 all 1
    #   s4: P .75, R 1, F1 5/6; s2 gaussian {X1}: 0, 0, 0 -> macro P .375, R .5, F1 5/12
    assert noise.loc["gaussian", ["precision", "recall", "f1"]].tolist() == pytest.approx([0.375, 0.5, 5 / 12])
    # laplace {X2, X3} (s4 only): rep 0 true 3 (X0->X2, X1->X3, X2->X3), predicted 3 (X3->X2, X1->X3, X0->X3),
    #   TP 1 -> 1/3 each; rep 1: 1 -> mean 2/3 each
    assert noise.loc["laplace", ["precision", "recall", "f1"]].tolist() == pytest.approx([2 / 3] * 3)
    assert noise.loc["laplace", "units"] == 1


def test_edge_slice_errors_name_the_problem():
    runs = frame(row("m", "s4", 0.5))
    preds = _predictions(("m", "s4", 0, "h0", adj(4), "missing"))
    with pytest.raises(ValueError, match="'missing'"):
        A.edge_slice_scores(runs, preds, {}, "mechanism")
    with pytest.raises(ValueError, match="edge-level factor"):
        A.edge_slice_scores(runs, preds, {}, "graph")
    bad = _predictions(("m", "s4", 0, "h0", adj(3), "t4"))
    with pytest.raises(ValueError, match="shape"):
        A.edge_slice_scores(runs, bad, {"t4": _four_node_truth()}, "mechanism")


# ---------------------------------------------------------------------------
# win rates (Fig. 1, 19)
# ---------------------------------------------------------------------------


def _win_runs() -> pd.DataFrame:
    f1 = {"u1": (0.5, 0.4, 0.5), "u2": (0.6, 0.7, 0.2), "u3": (0.3, 0.3, 0.9), "u4": (0.8, 0.1, None)}
    shd = {"u1": (10, 12, 10), "u2": (5, 5, 8), "u3": (7, 3, 1), "u4": (2, 9, None)}
    rows = []
    for u in f1:
        for k, m in enumerate(("A", "B", "C")):
            if f1[u][k] is None:
                rows.append(row(m, u, status="failed"))  # C failed on u4: not scored there
            elif (m, u) == ("A", "u1"):  # two replicates: F1 0.4, 0.6 -> 0.5; SHD 8, 12 -> 10
                rows += [row(m, u, 0.4, 8, replicate=0), row(m, u, 0.6, 12, replicate=1)]
            else:
                rows.append(row(m, u, f1[u][k], shd[u][k]))
    rows.append(row("B", "u1", 0.99, 0, protocol="fixed_setpoint", config_hash="h1"))  # not main: ignored
    rows.append(row("A", "u1", 0.0, 50, split="obs_int"))  # other split: ignored
    # a second family, one unit: A 0.5 / 3, B 0.5 / 4, no C
    rows += [row("A", "v1", 0.5, 3, family="semantic"), row("B", "v1", 0.5, 4, family="semantic")]
    return frame(*rows)


def test_win_rates_three_methods_four_units():
    w = A.win_rates(_win_runs())
    # synthetic, A vs B on u1..u4: F1 A wins u1, B wins u2, tie u3 (.5), A wins u4 -> 2.5;
    #   SHD A wins u1 (10 < 12), tie u2 (.5), B wins u3 (3 < 7), A wins u4 -> 2.5; pooled 5 / 8
    # A vs C on u1..u3 (C not scored on u4): F1 tie, A, C -> 1.5; SHD tie, A, C -> 1.5; pooled 3 / 6
    # B vs C on u1..u3: F1 C, B, C -> 1; SHD C, B, C -> 1; pooled 2 / 6
    # semantic, A vs B on v1: F1 tie .5, SHD A -> 1.5 / 2
    # overall A over B = (5 + 1.5) / (8 + 2) = 0.65
    p = w.pairwise
    assert p.loc["A", "B"] == pytest.approx(0.65)
    assert p.loc["B", "A"] == pytest.approx(0.35)
    assert p.loc["A", "C"] == pytest.approx(0.5) and p.loc["C", "A"] == pytest.approx(0.5)
    assert p.loc["B", "C"] == pytest.approx(1 / 3) and p.loc["C", "B"] == pytest.approx(2 / 3)
    assert np.isnan(np.diag(p.to_numpy())).all()
    # family rates: synthetic A (5 + 3) / (8 + 6) = 8/14, B (3 + 2) / 14 = 5/14, C (3 + 4) / 12 = 7/12;
    #   semantic A 0.75, B 0.25, C undefined
    fam = w.by_family
    assert list(fam.columns) == ["synthetic", "semantic", "mean"]
    assert fam.loc["A", "synthetic"] == pytest.approx(8 / 14)
    assert fam.loc["C", "synthetic"] == pytest.approx(7 / 12)
    assert fam.loc["B", "semantic"] == pytest.approx(0.25) and np.isnan(fam.loc["C", "semantic"])
    # means: A (8/14 + 0.75) / 2 = 0.6607, C 7/12 = 0.5833, B (5/14 + 0.25) / 2 = 0.3036 -> order A, C, B
    assert fam.loc["A", "mean"] == pytest.approx((8 / 14 + 0.75) / 2)
    assert list(fam.index) == ["A", "C", "B"]
    assert list(p.index) == ["A", "C", "B"] and list(p.columns) == ["A", "C", "B"]
    # shared units: A-B 4 + 1, A-C 3, B-C 3
    assert w.units.loc["A", "B"] == 5 and w.units.loc["A", "C"] == 3 and w.units.loc["C", "B"] == 3
    # synthetic alone: 5/8 (the per-family pairwise table)
    assert w.pairwise_by_family["synthetic"].loc["A", "B"] == pytest.approx(5 / 8)


# ---------------------------------------------------------------------------
# interactions (Eq. 7)
# ---------------------------------------------------------------------------


def test_interactions_on_a_two_by_three_table():
    # F:        er    sf    tree   row mean
    #   M1     0.6   0.4   0.2     0.4       (M1/er from two SCMs: 0.5, 0.7)
    #   M2     0.1   0.4   0.4     0.3
    # col mean 0.35  0.4   0.3     grand 0.35
    # I = F - row - col + grand:
    #   M1: 0.6-0.4-0.35+0.35 = 0.2, 0.4-0.4-0.4+0.35 = -0.05, 0.2-0.4-0.3+0.35 = -0.15
    #   M2: 0.1-0.3-0.35+0.35 = -0.2, 0.4-0.3-0.4+0.35 = 0.05, 0.4-0.3-0.3+0.35 = 0.15
    runs = frame(row("M1", "e1", 0.5, factors={"graph": "er"}), row("M1", "e2", 0.7, factors={"graph": "er"}),
                 row("M1", "s1", 0.4, factors={"graph": "sf"}), row("M1", "t1", 0.2, factors={"graph": "tree"}),
                 row("M2", "e1", 0.1, factors={"graph": "er"}), row("M2", "s1", 0.4, factors={"graph": "sf"}),
                 row("M2", "t1", 0.4, factors={"graph": "tree"}))
    out = A.interaction_scores(runs, "graph")
    assert list(out.columns) == A.INTERACTION_COLUMNS
    table = out.pivot(index="method", columns="level", values="interaction")
    expected = pd.DataFrame([[0.2, -0.05, -0.15], [-0.2, 0.05, 0.15]], index=["M1", "M2"],
                            columns=["er", "sf", "tree"])
    np.testing.assert_allclose(table.loc[["M1", "M2"], ["er", "sf", "tree"]].to_numpy(), expected.to_numpy(),
                               atol=1e-12)
    np.testing.assert_allclose(table.sum(axis=1).to_numpy(), 0.0, atol=1e-12)
    np.testing.assert_allclose(table.sum(axis=0).to_numpy(), 0.0, atol=1e-12)
    assert out.set_index(["method", "level"]).loc[("M1", "er"), "score"] == pytest.approx(0.6)


def test_double_centre_with_a_missing_cell_keeps_row_and_column_sums_zero():
    t = pd.DataFrame([[0.6, 0.4, 0.2], [0.1, np.nan, 0.4], [0.3, 0.5, 0.1]], index=["a", "b", "c"],
                     columns=["x", "y", "z"])
    i = A.double_centre(t)
    assert np.isnan(i.loc["b", "y"])
    np.testing.assert_allclose(i.sum(axis=1).to_numpy(), 0.0, atol=1e-10)
    np.testing.assert_allclose(i.sum(axis=0).to_numpy(), 0.0, atol=1e-10)
    # the residual is F minus an additive fit: F - I has no interaction left (a 2 x 2 contrast vanishes)
    fit = t - i
    assert (fit.loc["a", "x"] - fit.loc["a", "z"] - fit.loc["c", "x"] + fit.loc["c", "z"]) == pytest.approx(0.0)


def test_edge_level_interactions_use_the_child_mechanism():
    truths = {"t4": _four_node_truth()}
    runs = frame(row("m", "s4", 0.5), row("k", "s4", 0.5))
    # m: exact -> linear 1, rff 1; k: the replicate-0 prediction above -> linear F1 4/7, rff 0
    preds = _predictions(("m", "s4", 0, "h0", _four_node_truth().adjacency, "t4"),
                         ("k", "s4", 0, "h0", adj(4, (0, 1), (2, 1), (1, 3), (3, 2), (0, 3)), "t4"))
    out = A.interaction_scores(runs, "mechanism", predictions=preds, truths=truths)
    tab = out.pivot(index="method", columns="level", values="interaction")
    # F: m (1, 1), k (4/7, 0); row means 1, 2/7; col means 11/14, 1/2; grand 9/14
    # I(k, linear) = 4/7 - 2/7 - 11/14 + 9/14 = 2/7 - 1/7 = 1/7
    assert tab.loc["k", "linear"] == pytest.approx(1 / 7)
    assert tab.loc["m", "linear"] == pytest.approx(-1 / 7)


# ---------------------------------------------------------------------------
# curves and tables
# ---------------------------------------------------------------------------


def test_d_curve_and_n_curve():
    runs = frame(row("a", "s1", 0.6, d=10), row("a", "s2", 0.4, d=10), row("a", "s3", 0.2, d=20),
                 row("a", "c1", 0.9, d=10, family="semantic"),  # not synthetic: out of the d curve
                 row("a", "s1", 0.1, n=100, n_override=100, suite="sample-size", config_hash="n1"),
                 row("a", "s2", 0.3, n=100, n_override=100, suite="sample-size", config_hash="n1"),
                 row("a", "s1", 0.7, n=1000, n_override=1000, suite="sample-size", config_hash="n2"))
    d = A.d_curve(runs)
    np.testing.assert_allclose(d[["d", "score", "units"]].to_numpy(float), [[10, 0.5, 2], [20, 0.2, 1]])
    n = A.n_curve(runs)
    # n = 100: mean(0.1, 0.3) = 0.2 over 2 units; n = 1000: 0.7 (the main runs have no suite: not in it)
    np.testing.assert_allclose(n[["n", "score", "units"]].to_numpy(float), [[100, 0.2, 2], [1000, 0.7, 1]])


def test_protocol_table_reproduces_table3_cdis():
    # Table 3, CDIS: F1 0.397 0.396 0.397 0.382 0.365 0.355; mean 0.382, population SD
    # sqrt((.015^2 + .014^2 + .015^2 + 0 + .017^2 + .027^2) / 6) = sqrt(0.001664 / 6) = 0.016653
    f1s = {"default": 0.397, "fixed_setpoint": 0.396, "parameter_shift": 0.397, "multi_target": 0.382,
           "dense_mixed": 0.365, "high_fraction": 0.355}
    runs = frame(*[row("cdis", "s1", v, 48.0, split="obs_int", protocol=p, suite="intervention-protocols",
                       config_hash=p) for p, v in f1s.items()],
                 row("cdis", "s1", 0.9, 1.0, split="obs_int"))  # main benchmark, outside the suite: out
    t = A.protocol_table(runs).set_index("protocol")
    assert t.index[0] == "default"
    assert t.loc["default", "f1"] == pytest.approx(0.397)
    assert t.loc["multi_target", "delta_f1"] == pytest.approx(-0.015)
    assert t.loc["default", "delta_f1"] == pytest.approx(0.0)
    assert t["f1_sd"].unique() == pytest.approx([0.016653], abs=1e-6)
    assert round(t["f1_sd"].iloc[0], 3) == 0.017


def test_domain_shift_and_real_data():
    runs = frame(row("a", "c1", 0.6, family="semantic", factors={"domain": "energy"}),
                 row("a", "c2", 0.4, family="semantic", factors={"domain": "energy"}),
                 row("a", "c3", 0.8, family="semantic", factors={"domain": "health"}),
                 row("a", "sachs", 0.3, 12.0, family="real"), row("a", "sachs", 0.5, 10.0, family="real",
                                                                  replicate=1))
    t = A.domain_shift(runs, "semantic").set_index("domain")
    # family mean (0.6 + 0.4 + 0.8) / 3 = 0.6; energy 0.5 -> -0.1, health 0.8 -> +0.2; SD(-0.1, 0.2) = 0.15
    assert t.loc["energy", "shift"] == pytest.approx(-0.1) and t.loc["health", "shift"] == pytest.approx(0.2)
    assert t["domain_sd"].tolist() == pytest.approx([0.15, 0.15])
    r = A.real_data(runs)
    # no synthetic family in the frame: the synthetic reference is NaN
    assert r.values.tolist()[0][:6] == ["a", "obs", "real", "sachs", pytest.approx(0.4), pytest.approx(11.0)]
    assert r[["synthetic_f1", "synthetic_shd"]].isna().all().all()


# ---------------------------------------------------------------------------
# frontier (Fig. 9)
# ---------------------------------------------------------------------------


def test_pareto_set_on_hand_points():
    # (f1, seconds): A (.5, 1)  B (.6, 2)  C (.4, 3) <- A  D (.6, 2) = B  E (.7, 10)  F = A  G NaN  H (.6, 5) <- B
    f1 = np.array([0.5, 0.6, 0.4, 0.6, 0.7, 0.5, 0.9, 0.6])
    sec = np.array([1.0, 2.0, 3.0, 2.0, 10.0, 1.0, np.nan, 5.0])
    assert A.pareto_mask(f1, sec).tolist() == [True, True, False, True, True, True, False, False]


def test_frontier_uses_t_graph_where_fitted_else_wall_time():
    runs = frame(row("fast", "s1", 0.4, wall_seconds=9.0), row("fast", "c1", 0.6, family="semantic"),
                 row("slow", "s1", 0.3, wall_seconds=3.0), row("slow", "s2", 0.5, wall_seconds=5.0),
                 row("dull", "s1", 0.2, wall_seconds=6.0))
    runtime = pd.DataFrame({"method": ["fast", "fast", "fast"], "d": [10, 20, 30], "t_graph_s": [0.1, 0.3, np.nan]})
    f = A.frontier(runs, runtime).set_index("method")
    # fast: Avg F1 = mean of cells (synthetic 0.4, semantic 0.6) = 0.5; T_graph mean(0.1, 0.3) = 0.2
    assert f.loc["fast", "f1"] == pytest.approx(0.5) and f.loc["fast", "seconds"] == pytest.approx(0.2)
    assert f.loc["fast", "time_source"] == "T_graph"
    # slow: one cell, mean(0.3, 0.5) = 0.4; end-to-end mean(3, 5) = 4
    assert f.loc["slow", "f1"] == pytest.approx(0.4) and f.loc["slow", "seconds"] == pytest.approx(4.0)
    assert f.loc["slow", "time_source"] == "end_to_end"
    # fast dominates both (higher F1, lower time)
    assert f["pareto"].to_dict() == {"fast": True, "slow": False, "dull": False}


# ---------------------------------------------------------------------------
# exposure (§6.2, Eq. 8-10)
# ---------------------------------------------------------------------------


def _exposure_runs() -> pd.DataFrame:
    scen = {"s1": ({"graph": "er", "mechanisms": ["linear"], "noises": ["gaussian"], "roots": ["gumbel"]}, 10),
            "s2": ({"graph": "sf", "mechanisms": ["linear", "rff"], "noises": ["laplace"], "roots": ["gumbel"]}, 20),
            "s3": ({"graph": "er", "mechanisms": ["rff"], "noises": ["gaussian", "laplace"], "roots": ["poisson"]},
                   10)}
    f1 = {"pre": (0.6, 0.4, 0.5), "pc": (0.4, 0.2, 0.3), "ges": (0.2, 0.4, 0.3), "other": (0.1, 0.1, 0.1)}
    rows = [row(m, s, v[k], factors=scen[s][0], d=scen[s][1]) for m, v in f1.items() for k, s in enumerate(scen)]
    return frame(*rows)


def test_exposure_r_ood_gap_delta_and_f_hats():
    priors = {"pre": Prior(axes={"graph": ("er", "bipartite"), "mechanism": ("linear",),
                                 "noise": ("gaussian", "laplace"), "root": ("exponential",)},
                         d_range=(5, 15)),
              "other": None}
    e = A.exposure(_exposure_runs(), priors)
    assert set(e.reference) == {"pc", "ges"}
    cov = e.coverage.set_index("axis")
    # graph: er, sf in the pool; the prior's bipartite is not -> 1/2; mechanism 1/2; noise 2/2;
    # root 0/2 (exponential is not in the pool); d 1/2
    assert cov[["covered", "total"]].loc[["graph", "mechanism", "noise", "root", "d"]].values.tolist() == \
        [[1, 2], [1, 2], [2, 2], [0, 2], [1, 2]]
    ax = e.axes.set_index("axis")
    # graph: pre er = mean(.6, .5) = .55 (ID), sf = .4 (OOD); reference per category:
    #   er: pc mean(.4, .3) = .35, ges mean(.2, .3) = .25 -> .30; sf: pc .2, ges .4 -> .30
    #   R_ID = (.55 - .3) / .3 = 5/6, R_OOD = (.4 - .3) / .3 = 1/3, gap = 1/2
    assert ax.loc["graph", ["f_id", "f_ood", "ref_id", "ref_ood"]].tolist() == pytest.approx([0.55, 0.4, 0.3, 0.3])
    assert ax.loc["graph", ["r_id", "r_ood", "gap"]].tolist() == pytest.approx([5 / 6, 1 / 3, 0.5])
    # mechanism: linear (s1, s2) pre .5, rff (s2, s3) pre .45; reference .3 and .3
    #   R_ID = 2/3, R_OOD = 1/2, gap = 1/6
    assert ax.loc["mechanism", ["r_id", "r_ood", "gap"]].tolist() == pytest.approx([2 / 3, 0.5, 1 / 6])
    # noise: both covered -> no OOD category: R_OOD and gap NaN; R_ID = (.5 - .3) / .3 = 2/3
    assert ax.loc["noise", "r_id"] == pytest.approx(2 / 3) and np.isnan(ax.loc["noise", "r_ood"])
    # root: nothing covered -> R_ID NaN; OOD gumbel .5, poisson .5 vs .3 -> 2/3
    assert np.isnan(ax.loc["root", "r_id"]) and ax.loc["root", "r_ood"] == pytest.approx(2 / 3)
    # d in [5, 15]: ID {10} = s1, s3 -> as graph/er: R_ID 5/6; OOD {20} = s2 -> 1/3
    assert ax.loc["d", ["r_id", "r_ood"]].tolist() == pytest.approx([5 / 6, 1 / 3])
    s = e.summary.set_index("method").loc["pre"]
    # c = (1/2 + 1/2 + 1 + 0) / 4 = 1/2 (d is not one of the four axes)
    # R_ID mean over graph, mechanism, noise = (5/6 + 2/3 + 2/3) / 3 = 13/18
    # R_OOD mean over graph, mechanism, root = (1/3 + 1/2 + 2/3) / 3 = 1/2
    # gap mean over graph, mechanism = (1/2 + 1/6) / 2 = 1/3
    # delta = (1 + 13/18) / (1 + 1/2) - 1 = 31/27 - 1 = 4/27 (Eq. 9)
    # F = leaderboard Avg = mean(.6, .4, .5) = .5 (one cell)
    # F_hat_OOD = .5 / (1 + 2/27) = 13.5/29; F_hat_ID = .5 (31/27) / (29/27) = 15.5/29 (Eq. 10)
    assert s["coverage"] == pytest.approx(0.5)
    assert s["r_id"] == pytest.approx(13 / 18) and s["r_ood"] == pytest.approx(0.5)
    assert s["gap"] == pytest.approx(1 / 3)
    assert s["delta"] == pytest.approx(4 / 27)
    assert s["f"] == pytest.approx(0.5)
    assert s["f_hat_ood"] == pytest.approx(13.5 / 29) and s["f_hat_id"] == pytest.approx(15.5 / 29)
    # the coverage mix gives back F: c F_ID + (1 - c) F_OOD = F
    assert 0.5 * s["f_hat_id"] + 0.5 * s["f_hat_ood"] == pytest.approx(s["f"])
    skipped = dict(e.skipped.values.tolist())
    assert skipped == {"other": A.NO_PRIOR, "pc": A.NO_PRIOR, "ges": A.NO_PRIOR}
    reasons = e.notes[e.notes["method"] == "pre"].set_index("axis")["reason"]
    assert "no OOD category" in reasons["noise"] and "no ID category" in reasons["root"]


def test_exposure_reference_errors_and_missing_reference():
    runs = _exposure_runs()
    priors = {"pre": Prior(axes={"graph": ("er",)})}
    with pytest.raises(ValueError, match="reference methods"):
        A.exposure(runs, priors, reference=["cdis"])
    with pytest.raises(ValueError, match="not exposure axes"):
        # the core's PretrainingPrior refuses this itself; a duck-typed prior reaches the analysis
        A.exposure(runs, {"pre": SimpleNamespace(axes={"colour": ("red",)}, d_range=None, n_range=None)})
    # an axis the prior leaves out is not declared: NaN coverage, skipped by the four-axis means
    e = A.exposure(runs, priors)
    cov = e.coverage.set_index("axis")
    assert np.isnan(cov.loc["mechanism", "covered"]) and cov.loc["mechanism", "total"] == 2
    assert cov.loc["graph", "ratio"] == pytest.approx(0.5)
    assert e.summary["coverage"].iloc[0] == pytest.approx(0.5)  # graph only
    assert e.summary["r_id"].iloc[0] == pytest.approx(5 / 6)  # graph only (as in the test above)
    only = A.exposure(runs[runs["method"].isin(["pre"])], priors)
    assert np.isnan(only.axes.set_index("axis").loc["graph", "r_id"])
    assert only.notes["reason"].str.contains("no reference method").any()


def test_frontier_ignores_unsound_runtime_fits():
    """A negative T_graph or an R^2 below 0.9 is not a per-graph time: end-to-end time is used instead."""
    runs = frame(row("a", "s1", 0.5, wall_seconds=2.0), row("a", "s2", 0.5, wall_seconds=2.0),
                 row("b", "s1", 0.6, wall_seconds=4.0), row("b", "s2", 0.6, wall_seconds=4.0))
    runtime = pd.DataFrame({"method": ["a", "b", "b"], "d": [10, 10, 20], "t_graph_s": [-0.1, 0.5, 0.7],
                            "r2": [0.99, 0.95, 0.05]})
    fr = A.frontier(runs, runtime).set_index("method")
    assert fr.loc["a", "time_source"] == "end_to_end" and fr.loc["a", "seconds"] == pytest.approx(2.0)
    assert fr.loc["b", "time_source"] == "T_graph" and fr.loc["b", "seconds"] == pytest.approx(0.5)  # d=20 dropped


def test_interaction_cells_carry_unit_counts_and_a_seeded_bootstrap_interval():
    """units: the SCMs a cell rests on; the interval: a percentile bootstrap over SCMs (B draws, seeded)."""
    # additive scores: M1 = M2 + 0.2 on every SCM, so every resample has interaction exactly 0 → [0, 0]
    rows = [row(m, scm, v + (0.2 if m == "M1" else 0.0), factors={"graph": g})
            for scm, g, v in (("e1", "er", 0.4), ("e2", "er", 0.6), ("e3", "er", 0.5), ("s1", "sf", 0.1),
                              ("s2", "sf", 0.3)) for m in ("M1", "M2")]
    out = A.interaction_scores(frame(*rows), "graph").set_index(["method", "level"])
    assert out.loc[("M1", "er"), "units"] == 3 and out.loc[("M2", "sf"), "units"] == 2
    np.testing.assert_allclose(out[["interaction", "ci_low", "ci_high"]].to_numpy(), 0.0, atol=1e-9)
    # the two-by-three table above: M1/er rests on two SCMs, every other cell on one
    runs = frame(row("M1", "e1", 0.5, factors={"graph": "er"}), row("M1", "e2", 0.7, factors={"graph": "er"}),
                 row("M1", "s1", 0.4, factors={"graph": "sf"}), row("M1", "t1", 0.2, factors={"graph": "tree"}),
                 row("M2", "e1", 0.1, factors={"graph": "er"}), row("M2", "s1", 0.4, factors={"graph": "sf"}),
                 row("M2", "t1", 0.4, factors={"graph": "tree"}))
    a = A.interaction_scores(runs, "graph", n_boot=300, seed=7).set_index(["method", "level"])
    assert a["units"].to_dict() == {("M1", "er"): 2, ("M2", "er"): 1, ("M1", "sf"): 1, ("M2", "sf"): 1,
                                    ("M1", "tree"): 1, ("M2", "tree"): 1}
    assert (a["ci_low"] <= a["ci_high"]).all()
    # a draw is a mean over resampled SCMs: the interval of every cell lies within what any draw can give
    # (|I| <= 0.5 here: F in [0.1, 0.7]) and is reproducible from the seed
    assert a[["ci_low", "ci_high"]].abs().max().max() <= 0.5
    b = A.interaction_scores(runs, "graph", n_boot=300, seed=7).set_index(["method", "level"])
    pd.testing.assert_frame_equal(a, b)
    none = A.interaction_scores(runs, "graph", n_boot=0)
    assert none["ci_low"].isna().all() and none["ci_high"].isna().all()
    with pytest.raises(ValueError, match="n_boot must be >= 0"):
        A.interaction_scores(runs, "graph", n_boot=-1)
