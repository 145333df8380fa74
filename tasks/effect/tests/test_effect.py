"""The effect-estimation task in the core: data model, metrics (known answers), runner, store, leak check."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest
from effect_toys import TESTS_DIR, ChainInstance, ToyWorld, effect_info, info

from arena_task_effect.effect import (
    EffectDataset,
    EffectOracle,
    EffectPrediction,
    bound_rmse,
    centred_cate_error,
    check_effect_output,
    containment,
    mean_effect_error,
    move_tracking_error,
    spehe2,
    stay_error,
)
from arena_task_effect.task import EffectTask, estimates_frame
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry
from causalarena.records import FamilyInfo, MethodInfo, Status, resolve
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store
from causalarena.worker import _file_loader

ENV = {"PYTHONPATH": TESTS_DIR}


def _oracle(tau, **kw):
    return EffectOracle(query_ids=np.arange(len(tau)), tau=np.asarray(tau, float), **kw)


def test_spehe2_and_its_exact_decomposition_by_hand():
    o = _oracle([1.0, 2.0, 3.0])
    flat = EffectPrediction(cate=np.array([2.0, 2.0, 2.0]))  # right mean, no heterogeneity
    assert spehe2(o, flat) == pytest.approx(2 / 3)
    assert mean_effect_error(o, flat) == pytest.approx(0.0)
    assert centred_cate_error(o, flat) == pytest.approx(2 / 3)
    shifted = EffectPrediction(cate=np.array([2.0, 3.0, 4.0]))  # right shape, mean off by 1
    assert (spehe2(o, shifted), mean_effect_error(o, shifted), centred_cate_error(o, shifted)) == \
        pytest.approx((1.0, 1.0, 0.0))
    rng = np.random.default_rng(0)
    for _ in range(20):
        tau, cate = rng.normal(size=50), rng.normal(size=50) * 3 + 1
        o, p = _oracle(tau), EffectPrediction(cate=cate)
        assert spehe2(o, p) == pytest.approx(mean_effect_error(o, p) + centred_cate_error(o, p), rel=1e-12)
    assert spehe2(o, EffectPrediction(lower=np.zeros(50), upper=np.ones(50))) is None


def test_bound_metrics_by_hand():
    o = _oracle([0.1, 0.2], lower=np.array([0.0, -0.5]), upper=np.array([0.5, 0.5]))
    p = EffectPrediction(lower=np.array([0.1, -0.5]), upper=np.array([0.5, 0.1]))
    # endpoint errors: (0.1, 0), (0, 0.4) -> sqrt((0.01 + 0.16) / 4)
    assert bound_rmse(o, p) == pytest.approx(np.sqrt(0.17 / 4))
    assert containment(o, p) == pytest.approx(0.5)  # 0.1 in [0.1, 0.5]; 0.2 not in [-0.5, 0.1]
    p2 = EffectPrediction(lower=np.array([0.15, -0.5]), upper=np.array([0.5, 0.1]))
    assert containment(o, p2) == pytest.approx(0.0)


def test_stay_and_move_errors_by_hand():
    assert stay_error([1.0, 2.0], [1.0, 4.0]) == pytest.approx(2.0)  # (0 + 4) / 2
    # the true change is tau (Move doubles it); estimated changes 1 and 1 vs true 1 and 2
    assert move_tracking_error([1.0, 2.0], [2.0, 3.0], [1.0, 2.0], [2.0, 4.0]) == pytest.approx(0.5)


def test_effect_dataset_round_trips_byte_identically_and_names_bad_fields():
    ds = ToyWorld().dataset("bd", 0)
    blob = ds.to_npz_bytes()
    back = EffectDataset.load(blob)
    assert back.to_npz_bytes() == blob
    np.testing.assert_array_equal(back.auxiliary["confounder"], ds.auxiliary["confounder"])
    assert back.columns == {"covariates": ["x0", "x1", "x2"], "confounder": ["confounder"]}
    with pytest.raises(ValueError, match=r"EffectDataset.T must be 0/1"):
        EffectDataset(X=np.zeros((3, 1)), T=[0, 1, 2], Y=np.zeros(3), X_query=np.zeros((1, 1)), query_ids=[0])
    with pytest.raises(ValueError, match=r"unknown role 'instrumentt'"):
        EffectDataset(X=np.zeros((3, 1)), T=[0, 1, 1], Y=np.zeros(3), X_query=np.zeros((1, 1)), query_ids=[0],
                      auxiliary={"instrumentt": np.zeros(3)})
    with pytest.raises(ValueError, match=r"X_query must be \(q × 1\)"):
        EffectDataset(X=np.zeros((3, 1)), T=[0, 1, 1], Y=np.zeros(3), X_query=np.zeros((1, 2)), query_ids=[0])
    with pytest.raises(ValueError, match="gamma must be a sensitivity level"):
        EffectDataset(X=np.zeros((3, 1)), T=[0, 1, 1], Y=np.zeros(3), X_query=np.zeros((1, 1)), query_ids=[0],
                      target="bounds", assumption="msm", gamma=0.5)


def test_check_effect_output_names_the_problem():
    ds = ToyWorld(n_query=3).dataset("hc", 0)
    assert check_effect_output(EffectPrediction(cate=np.zeros(3)), ds) is None
    assert "non-finite" in check_effect_output(EffectPrediction(cate=np.array([0, np.inf, 0.0])), ds)
    assert "shape (2,), expected (3,)" in check_effect_output(EffectPrediction(cate=np.zeros(2)), ds)
    assert "no 'cate'" in check_effect_output(EffectPrediction(lower=np.zeros(3), upper=np.ones(3)), ds)


def test_a_mis_shaped_estimate_is_invalid_not_flattened():
    """A method's cate_ of shape (q/2, 2) or (q, 2) is named by its shape (ravel once scored the first as (q,));
    a (q, 1) column is the one reshaping accepted."""
    from arena_task_effect.effect import EffectMethod

    ds = ToyWorld(n_query=4).dataset("hc", 0)
    m = EffectMethod()
    m.cate_ = np.zeros((2, 2))
    assert check_effect_output(m.prediction(), ds) == "cate has shape (2, 2), expected (4,) (one per query unit)"
    m.cate_ = np.zeros((4, 2))
    assert check_effect_output(m.prediction(), ds) == "cate has shape (4, 2), expected (4,) (one per query unit)"
    m.cate_ = np.arange(4.0).reshape(4, 1)
    assert check_effect_output(m.prediction(), ds) is None and m.prediction().cate.tolist() == [0.0, 1.0, 2.0, 3.0]
    del m.cate_
    m.lower_, m.upper_ = np.zeros((2, 2)), np.ones((4, 1))
    assert m.prediction().lower.shape == (2, 2) and m.prediction().upper.shape == (4,)


class _BoundsWorld(ToyWorld):
    """The toy world asked for a worst-case interval instead of a point."""

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        ds = super().dataset(split, replicate, standardise, protocol, n)
        ds.target, ds.assumption = "bounds", "manski"
        return ds

    def oracle(self, split, replicate, n=None):
        o = super().oracle(split, replicate, n)
        return EffectOracle(query_ids=o.query_ids, tau=o.tau, lower=o.tau - 1, upper=o.tau + 1)


def test_a_mis_shaped_estimate_is_invalid_output_through_the_worker(tmp_path):
    """End to end (worker → wire → runner): the shape the method returned is named. The wire once carried
    ``ravel()``'d lists, so a (25, 2) answer for 50 queries arrived as (50,) and was scored ``ok``, and a (50, 2)
    one was named (100,). Bounds (``lower_``) are checked the same way."""
    methods = [effect_info("q_by_2", "MisShaped", views=("hc",)),
               effect_info("half_by_2", "MisShaped", views=("hc",), params={"rows_per_query": 0.5}),
               effect_info("column", "MisShaped", views=("hc",), params={"cols": 1})]
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([ToyWorld()], methods), get_registry(), st, env=ENV, progress=False)
        run_grid(make_cells([_BoundsWorld(scm_id="toy-b")],
                            [effect_info("bounds_half_by_2", "MisShaped", views=("hc",),
                                         params={"rows_per_query": 0.5, "bounds": True})]),
                 get_registry(), st, env=ENV, progress=False)
        rows = {r.method: r for r in st.records() if r.split == "hc"}
    assert {m: (r.status, r.error) for m, r in rows.items()} == {
        "q_by_2": (Status.INVALID_OUTPUT, "cate has shape (50, 2), expected (50,) (one per query unit)"),
        "half_by_2": (Status.INVALID_OUTPUT, "cate has shape (25, 2), expected (50,) (one per query unit)"),
        "column": (Status.OK, None),  # a (q, 1) column is the one reshaping accepted
        "bounds_half_by_2": (Status.INVALID_OUTPUT, "lower has shape (25, 2), expected (50,) (one per query unit)"),
    }
    assert rows["column"].metrics["spehe2"] > 0


def test_methods_are_paired_only_with_their_task():
    world, chain = ToyWorld(), ChainInstance("chain-x", splits=("obs",), n_replicates=1)
    cells = make_cells([world, chain], [effect_info("ols", "LinearSLearner"), info("chain", "Chain")])
    assert sorted((c.method.name, c.instance.scm_id, c.split) for c in cells) == [
        ("chain", "chain-x", "obs"), ("ols", "toy-0", "bd"), ("ols", "toy-0", "fd"), ("ols", "toy-0", "hc")]


def test_an_effect_grid_runs_scores_stores_and_marks_unsupported_views(tmp_path):
    world = ToyWorld()
    methods = [effect_info("ols", "LinearSLearner", views=("bd", "hc")), effect_info("nan", "ReturnsNaN"),
               effect_info("short", "WrongLength", views=("hc",))]
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([world], methods), get_registry(), st, env=ENV, progress=False)
        rows = {(r.method, r.split): r for r in st.records()}
        est = estimates_frame(st)
    status = {k: r.status for k, r in rows.items()}
    assert status == {("ols", "bd"): Status.OK, ("ols", "hc"): Status.OK, ("ols", "fd"): Status.UNSUPPORTED,
                      ("nan", "bd"): Status.INVALID_OUTPUT, ("nan", "hc"): Status.INVALID_OUTPUT,
                      ("nan", "fd"): Status.INVALID_OUTPUT, ("short", "hc"): Status.INVALID_OUTPUT,
                      ("short", "bd"): Status.UNSUPPORTED, ("short", "fd"): Status.UNSUPPORTED}
    assert "supports the split(s) bd, hc; 'fd' is missing" in rows[("ols", "fd")].error
    assert "1 non-finite value(s) of 50" in rows[("nan", "bd")].error
    assert {r.task for r in rows.values()} == {"effect"}
    bd, hc = rows[("ols", "bd")].metrics, rows[("ols", "hc")].metrics
    # with U the OLS model is correctly specified: tiny error; without U the confounding 2U biases it
    assert bd["spehe2"] < 0.01 < 0.5 < hc["spehe2"]
    assert bd["spehe2"] == pytest.approx(bd["mean_effect_error"] + bd["centred_cate_error"], rel=1e-9)
    assert bd["bound_rmse"] is None and rows[("ols", "bd")].n == 400 and rows[("ols", "bd")].d == 3
    # the stored estimate and oracle are exactly what was scored
    row = est[(est.method == "ols") & (est.split == "bd")].iloc[0]
    oracle = world.oracle("bd", 0)
    np.testing.assert_array_equal(row.tau, oracle.tau)
    np.testing.assert_array_equal(row.query_ids, oracle.query_ids)
    assert spehe2(oracle, EffectPrediction(cate=row.cate)) == bd["spehe2"]
    assert len(est) == 2  # only ok runs keep an estimate


def test_no_oracle_reaches_the_method_process(tmp_path, monkeypatch):
    """The worker's .npz holds the EffectDataset only: no τ, no potential outcome, in any array."""
    log = tmp_path / "received.txt"
    world = ToyWorld()
    cache = tmp_path / "cache"
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([world], [effect_info("rec", "RecordsInput")]), get_registry(), st,
                 env={**ENV, "EFFECT_TOY_LOG": str(log)}, progress=False, cache_dir=str(cache))
        assert {(r.status, r.error) for r in st.records()} == {(Status.OK, None)}
    tau = world.oracle("bd", 0).tau
    files = glob.glob(os.path.join(cache, "*.npz"))
    assert len(files) == 3
    for path in files:
        with np.load(path, allow_pickle=False) as z:
            assert not {"tau", "mu0", "mu1", "y0", "y1", "ite"} & set(z.files)
            for key in z.files:
                arr = z[key]
                if arr.dtype.kind == "f" and arr.size >= tau.size:
                    assert not np.isin(np.round(tau, 12), np.round(arr.ravel(), 12)).any(), key
        # the file names the reader the effect task declares, the one the worker calls
        assert _file_loader(path) == EffectTask.loader
        assert isinstance(resolve(EffectTask.loader)(path), EffectDataset)
    received = log.read_text().split()
    assert len(received) == 3 and not any("tau" in line or "oracle" in line for line in received)


def test_records_of_an_uninstalled_task_or_a_wrong_output_kind_are_reported_not_registered():
    from causalarena.hookspecs import hookimpl
    from causalarena.plugins import get_registry

    class Plugin:
        @hookimpl
        def arena_methods(self):
            yield MethodInfo(name="x", factory="a:b", task="estimation")
            yield MethodInfo(name="y", factory="a:b", task="effect", output_kind="dag")
            yield MethodInfo(name="z", factory="a:b", task="effect", views=["bd"], output_kind="effect")

    registry = get_registry(strict=False, extra_plugins=[Plugin()])
    assert "x" not in registry.methods and "y" not in registry.methods
    assert registry.methods["z"].views == ("bd",)
    errors = {e.name: e.error for e in registry.errors}
    assert "serves the task 'estimation', which no installed distribution registers" in errors["x"]
    assert errors["y"] == "method 'y': output_kind 'dag' is not one of the effect task's ['effect']"
    from causalarena.plugins import PluginLoadError

    with pytest.raises(PluginLoadError, match="method 'x' serves the task 'estimation'"):
        get_registry(strict=True, extra_plugins=[Plugin()])


def test_the_conformance_kit_runs_effect_rules_for_an_effect_method():
    from arena_task_effect.testing import make_effect_dataset
    from arena_testkit import ConformanceError, method_checks

    good = effect_info("ols", "LinearSLearner", views=("bd", "hc"))
    import sys

    sys.path.insert(0, TESTS_DIR)
    for check_id, check in method_checks(good):
        if check_id in ("registered", "descriptor_cheap"):
            continue  # need an installed distribution
        check()
    with pytest.raises(ConformanceError, match="non-finite"):
        dict(method_checks(effect_info("nan", "ReturnsNaN", views=("hc",))))["fit_output"]()
    ds = make_effect_dataset("px")
    assert ds.roles == ["treatment_proxy", "outcome_proxy"] and ds.q == 40 and ds.n == 300
    assert make_effect_dataset("pi_msm_2").gamma == 2.0


def test_rescore_recomputes_effect_metrics_from_the_stored_estimates(tmp_path):
    from causalarena.commands.rescore import rescore

    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([ToyWorld()], [effect_info("ols", "LinearSLearner", views=("bd",))]), get_registry(),
                 st, env=ENV, progress=False)
        before = {r.split: dict(r.metrics) for r in st.records() if r.status == Status.OK}
        key = next(r.key for r in st.records() if r.status == Status.OK)
        st.update_metrics([(key, {m: None for m in before["bd"]})])
        assert all(v is None for v in next(r for r in st.records() if r.key == key).metrics.values())
        rescored, missing = rescore(st, get_registry().metrics)
        after = {r.split: dict(r.metrics) for r in st.records() if r.status == Status.OK}
    assert (rescored, missing) == (1, 0) and after == before


def test_the_family_kit_runs_effect_rules_and_catches_an_oracle_leak():
    import sys

    from arena_testkit import ConformanceError, family_checks
    from causalarena.records import FamilyInfo

    sys.path.insert(0, TESTS_DIR)
    info = FamilyInfo(name="toy_effect", factory="effect_toys:ToyEffectFamily", task="effect")
    checks = dict(family_checks(info))
    for cid in ("instances", "datasets", "true_graph", "finite", "standardise", "deterministic", "no_truth_leak"):
        checks[cid]()  # the effect rules pass on the toy world
    leaky = dict(family_checks(info, leaky=True))
    with pytest.raises(ConformanceError, match="'auxq__instrument' a method receives contains the oracle"):
        leaky["no_truth_leak"]()


def test_the_effect_table_keeps_the_default_run_beside_a_context_length_run(tmp_path):
    """A `--n` run of the same cell is a stress variant: it never replaces the default-size result."""
    from arena_task_effect.report import effect_leaderboard, effect_table

    m = effect_info("ols", "LinearSLearner", views=("bd",))
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([ToyWorld()], [m]), get_registry(), st, env=ENV, progress=False)
        run_grid(make_cells([ToyWorld()], [m]), get_registry(), st, env=ENV, progress=False, n=100)
        default = next(r for r in st.records() if r.split == "bd" and r.n_override is None)
        assert {r.n for r in st.records() if r.split == "bd"} == {400, 100}
        runs = st.runs_frame()
    row = effect_table(runs).query("split == 'bd'").iloc[0]
    assert row.instances == 1 and row.spehe2_mean == default.metrics["spehe2"]
    assert row.spehe2_sd != row.spehe2_sd  # one instance: no SD (as the discovery leaderboard)
    assert effect_leaderboard(runs).loc["ols", "toy_effect/bd"] == f"{default.metrics['spehe2']:.3f} (–)"


class _MixedTasks:
    """A discovery family and method beside an effect family and method (the CLI's task checks)."""

    __distribution__ = "arena-test-mixed-tasks"

    @hookimpl
    def arena_families(self):
        yield FamilyInfo(name="toy", kind="synthetic", factory="effect_toys:ChainFamily")
        yield FamilyInfo(name="toy_effect", kind="synthetic", task="effect", factory="effect_toys:ToyEffectFamily")

    @hookimpl
    def arena_methods(self):
        yield info("chain", "Chain")
        yield effect_info("ols", "LinearSLearner", views=("bd", "hc"))


def test_the_cli_names_a_task_mismatch_before_running_anything(tmp_path, monkeypatch, capsys):
    from causalarena.cli import main

    monkeypatch.setenv("PYTHONPATH", TESTS_DIR)
    reg = get_registry(strict=False, extra_plugins=[_MixedTasks()])
    reg.interventions.setdefault("fixed_setpoint", reg.interventions["default"])  # arena-family-synthetic's
    results = tmp_path / "r"
    base = ["run", "--results", str(results), "--no-progress", "--isolation", "none", "--jobs", "1"]
    # a discovery method on an effect family: both tasks named, not a generic "no cells"
    assert main(base + ["--methods", "chain", "--families", "toy_effect"], registry=reg) == 2
    err = capsys.readouterr().err
    assert "method(s) ['chain'] serve the discovery task, family(ies) ['toy_effect'] the effect task" in err
    # --task effect with a discovery family named explicitly: an error, as for a method (not dropped quietly)
    assert main(base + ["--task", "effect", "--families", "toy_effect,toy"], registry=reg) == 2
    assert "--task effect: family(ies) ['toy'] serve another task" in capsys.readouterr().err
    # an intervention protocol is a discovery setting: with an effect family it is a usage error up front,
    # never a stored failure of the method
    assert main(base + ["--methods", "ols", "--families", "toy_effect", "--protocol", "fixed_setpoint"],
                registry=reg) == 2
    assert "the effect family(ies) ['toy_effect'] have none" in capsys.readouterr().err
    assert not (results / "arena.sqlite").exists()
    # discovery methods alone with every installed family (effect ones included): the protocol is theirs
    assert main(base + ["--methods", "chain", "--protocol", "fixed_setpoint", "--splits", "obs_int",
                        "--results", str(tmp_path / "d")], registry=reg) == 0
    capsys.readouterr()
    # an option for a family that is not selected is said, not silently dropped
    assert main(base + ["--methods", "ols", "--families", "toy_effect", "--splits", "bd",
                        "--family-option", "toy.n=5"], registry=reg) == 0
    out = capsys.readouterr().out
    assert "--family-option toy.…: family 'toy' is not selected, its options are ignored" in out
    with Store(str(results / "arena.sqlite")) as st:
        assert [(r.method, r.split, r.status) for r in st.records()] == [("ols", "bd", Status.OK)]
    # an effect-only folder: leaderboard.md is the effect table, without an empty discovery table above it
    assert (results / "leaderboard.md").read_text().startswith("# Effect estimation (sPEHE²")
    # (the runtime fit on an effect-only store is arena-diagnosis's: diagnosis/tests/test_runtime.py)
    # --metrics picks the discovery leaderboard's cells: on an effect-only store, with --task effect, or
    # naming an effect metric, it would be ignored; each is a usage error that names why
    assert main(["report", "--results", str(results), "--metrics", "f1"], registry=reg) == 2
    assert f"{results / 'arena.sqlite'} holds effect runs only" in capsys.readouterr().err
    assert main(base + ["--task", "effect", "--metrics", "shd"], registry=reg) == 2
    assert "--task effect runs no discovery cell; the effect section always shows its own columns" in capsys.readouterr().err
    assert main(base + ["--methods", "chain", "--metrics", "f1,spehe2"], registry=reg) == 2
    assert "--metrics: ['spehe2'] score(s) the effect task" in capsys.readouterr().err
    # failures.csv counts the effect runs too, under their task; leaderboard.md shows their status counts
    import pandas as pd

    failures = pd.read_csv(results / "failures.csv")
    assert failures[["task", "method", "split", "ok", "total"]].values.tolist() == [["effect", "ols", "bd", 1, 1]]
    md = (results / "leaderboard.md").read_text()
    assert "## Effect run status counts" in md and "## Run status counts" not in md
