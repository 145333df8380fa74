"""Tests of arena-method-bounds (run with it, arena-effect-backbones and arena-family-causalidview-pi installed)."""

from __future__ import annotations

import numpy as np
import pytest

from arena_family_causalidview_pi.family import GAMMAS, VIEWS, PIWorld
from arena_method_bounds.identified_sets import _design, iv_bounds, iv_violation, manski_bounds, msm_bounds, project_iv
from arena_method_bounds.method import PlugInBounds
from arena_method_bounds.plugin import VIEWS as METHOD_VIEWS
from arena_task_effect.effect import EffectDataset, bound_rmse
from arena_testkit import parametrize_method_checks

HAND = np.array([[0.2, 0.3, 0.1, 0.4]])  # P(T,Y|x) at (t,y) = (0,0), (0,1), (1,0), (1,1)


@parametrize_method_checks("bounds_logistic", "bounds_xgboost", "bounds_extratrees")
def test_conformance(check):
    check()


def test_descriptor_views_are_the_companion_views():
    assert METHOD_VIEWS == VIEWS


def test_manski_known_answer_on_a_hand_cell():
    # E[Y(1)] ∈ [P11, P11 + P(T=0)] = [0.4, 0.9]; E[Y(0)] ∈ [P01, P01 + P(T=1)] = [0.3, 0.8]
    lo, hi = manski_bounds(HAND)
    assert (lo[0], hi[0]) == pytest.approx((-0.4, 0.6), abs=1e-15)
    with pytest.raises(ValueError, match="rows must sum to 1"):
        manski_bounds([[0.2, 0.3, 0.1, 0.3]])
    with pytest.raises(ValueError, match=r"\(q × 4\)"):
        manski_bounds([0.25, 0.25, 0.25, 0.25])


def test_msm_known_answers_on_a_hand_cell():
    # e = ½, p₁ = 0.8, p₀ = 0.6; Γ=2: a = 1.5, b = 3 → E[Y(1)] ∈ [0.7, 0.85], E[Y(0)] ∈ [0.45, 0.7]
    assert np.r_[msm_bounds(HAND, 2.0)] == pytest.approx([0.0, 0.4], abs=1e-15)
    assert np.r_[msm_bounds(HAND, 1.0)] == pytest.approx([0.2, 0.2], abs=1e-15)  # p₁ − p₀
    # Γ → ∞ recovers Manski
    assert np.r_[msm_bounds(HAND, 1e9)] == pytest.approx([-0.4, 0.6], abs=1e-8)
    with pytest.raises(ValueError, match="gamma"):
        msm_bounds(HAND, 0.5)


def _iv_cells(always: float, never: float, y1_given: dict, y0_given: dict):
    """True cells of a monotone IV world: type shares (always, never, compliers = rest) and
    P(Y(1)=1 | type), P(Y(0)=1 | type); Y(1) and Y(0) independent within a type."""
    share = {"a": always, "n": never, "c": 1 - always - never}
    c0, c1 = np.zeros(4), np.zeros(4)
    for typ, s in share.items():
        for z, cells in ((0, c0), (1, c1)):
            t = {"a": 1, "n": 0, "c": z}[typ]
            py = y1_given[typ] if t else y0_given[typ]
            cells[2 * t + 1] += s * py
            cells[2 * t] += s * (1 - py)
    return c0[None], c1[None]


def test_iv_lp_equals_the_closed_form_and_halves_the_manski_width():
    # complier share ½ (always ¼, never ¼): the identified set has width 1 − ½ = ½, Manski's has width 1
    c0, c1 = _iv_cells(0.25, 0.25, y1_given={"a": 0.8, "c": 0.7, "n": 0.4}, y0_given={"a": 0.5, "c": 0.3, "n": 0.2})
    lo, hi, proj = iv_bounds(c0, c1)
    assert not proj.any()
    # closed form: [P(1,1|1) − P(0,1|0) − P(T=1|0), P(1,1|1) − P(0,1|0) + P(T=0|1)]
    base = c1[0, 3] - c0[0, 1]
    assert (lo[0], hi[0]) == pytest.approx((base - c0[0, 2:].sum(), base + c1[0, :2].sum()), abs=1e-12)
    assert hi[0] - lo[0] == pytest.approx(0.5, abs=1e-12)
    # by hand: P(1,1|1) = .25·.8 + .5·.7 = .55, P(0,1|0) = .25·.2 + .5·.3 = .2 → [.55 − .2 − .25, .55 − .2 + .25]
    assert (lo[0], hi[0]) == pytest.approx((0.10, 0.60), abs=1e-12)
    truth = 0.25 * (0.8 - 0.5) + 0.5 * (0.7 - 0.3) + 0.25 * (0.4 - 0.2)
    assert lo[0] <= truth <= hi[0]
    ml, mu = manski_bounds(0.5 * (c0 + c1))
    assert mu[0] - ml[0] == pytest.approx(1.0) and ml[0] <= lo[0] and hi[0] <= mu[0]
    # all compliers: point identification (the Wald contrast)
    c0, c1 = _iv_cells(0.0, 0.0, y1_given={"a": 0, "c": 0.7, "n": 0}, y0_given={"a": 0, "c": 0.3, "n": 0})
    lo, hi, _ = iv_bounds(c0, c1)
    assert (lo[0], hi[0]) == pytest.approx((0.4, 0.4), abs=1e-12)


def test_projection_of_incompatible_cells():
    c0, c1 = _iv_cells(0.25, 0.25, y1_given={"a": 0.8, "c": 0.7, "n": 0.4}, y0_given={"a": 0.5, "c": 0.3, "n": 0.2})
    # move mass in arm z=1 from (1,0) to (0,0): P(1,0|1) < P(1,0|0) needs defiers
    bad1 = c1.copy()
    bad1[0, 2] -= 0.2
    bad1[0, 0] += 0.2
    assert iv_violation(c0, bad1)[0] == pytest.approx(0.05)  # P(1,0|1) = 0 < P(1,0|0) = 0.05
    with pytest.raises(ValueError, match="violate the monotone-IV model"):
        iv_bounds(c0, bad1, project=False)
    p0, p1 = project_iv(c0, bad1)
    assert iv_violation(p0, p1)[0] <= 1e-12
    assert p0.sum() == pytest.approx(1.0) and p1.sum() == pytest.approx(1.0)
    # the projection is the closest compatible point: no farther than the compatible truth, and
    # closer than a perturbed compatible point
    d_proj = np.sum((np.r_[p0[0], p1[0]] - np.r_[c0[0], bad1[0]]) ** 2)
    assert d_proj <= np.sum((np.r_[c0[0], c1[0]] - np.r_[c0[0], bad1[0]]) ** 2) + 1e-12
    rng = np.random.default_rng(0)
    A = _design()[0]
    for _ in range(200):  # no random compatible point (A q, q in the type simplex) is closer
        pt = A @ rng.dirichlet(np.ones(12))
        assert d_proj <= np.sum((pt - np.r_[c0[0], bad1[0]]) ** 2) + 1e-10
    lo, hi, proj = iv_bounds(c0, bad1)
    assert proj.tolist() == [True] and lo[0] <= hi[0]
    # a compatible input is left untouched
    q0, q1 = project_iv(c0, c1)
    np.testing.assert_array_equal(q0, c0)
    np.testing.assert_array_equal(q1, c1)


@pytest.mark.parametrize("scm_id", ["pi-w00-linear", "pi-w03-fourier", "pi-w14-mlp"])
def test_formulas_on_the_familys_true_cells_reproduce_its_oracle(scm_id):
    """The plugin's formulas applied to the family's TRUE cell probabilities give the family's oracle
    endpoints (computed there by its own code) to 1e-10."""
    w = PIWorld(scm_id)
    Xq = w.units(0)["X"][:100]
    for view in VIEWS:
        o = w.oracle(view, 0)
        opts = w.view_options(view)
        if opts["assumption"] == "manski":
            lo, hi = manski_bounds(w.cells(Xq))
        elif opts["assumption"] == "iv":
            lo, hi, proj = iv_bounds(w.cells(Xq, 0), w.cells(Xq, 1))
            assert not proj.any()
        else:
            lo, hi = msm_bounds(w.cells(Xq), opts["gamma"])
        np.testing.assert_allclose(lo, o.lower, rtol=0, atol=1e-10, err_msg=view)
        np.testing.assert_allclose(hi, o.upper, rtol=0, atol=1e-10, err_msg=view)


def test_estimator_recovers_the_oracle_set_on_a_large_context_world():
    """Endpoint RMSE vs the oracle on pi-w00-linear (s_τ nearly linear in x, cells close to logistic):
    small at n = 20,000 and much smaller than at n = 1,024."""
    w = PIWorld("pi-w00-linear")
    err = {}
    for n in (1024, 20000):
        for view in ("pi_manski", "pi_iv", "pi_msm_2"):
            m = PlugInBounds("logistic").fit(w.dataset(view, 0, n=n))
            err[n, view] = bound_rmse(w.oracle(view, 0), m.prediction())
    for view in ("pi_manski", "pi_iv", "pi_msm_2"):
        assert err[20000, view] < 0.5 * err[1024, view], (view, err)
    assert err[20000, "pi_manski"] < 0.045 and err[20000, "pi_iv"] < 0.06 and err[20000, "pi_msm_2"] < 0.08, err


def test_every_backbone_gives_valid_byte_identical_iv_sets():
    w = PIWorld("pi-w04-mlp")
    ds = EffectDataset.load(w.dataset("pi_iv", 0, n=300).to_npz_bytes())  # what a worker reads
    for backbone in ("logistic", "xgboost", "extratrees"):
        a, b = PlugInBounds(backbone).fit(ds), PlugInBounds(backbone).fit(ds)
        assert a.lower_.tobytes() == b.lower_.tobytes() and a.upper_.tobytes() == b.upper_.tobytes()
        assert a.lower_.shape == (100,) and (a.lower_ <= a.upper_).all()
        assert (a.lower_ >= -1).all() and (a.upper_ <= 1).all()
        assert a.cells_z_.shape == (2, 100, 4) and 0 <= a.n_projected_ <= 100
        # the projected cells the LP saw are compatible; the bounds are those of the LP on them
        p0, p1 = project_iv(a.cells_z_[0], a.cells_z_[1])
        assert (iv_violation(p0, p1) <= 1e-12).all()


def test_manski_width_one_and_msm_point_at_gamma_1():
    w = PIWorld("pi-w04-mlp")
    a = PlugInBounds("logistic").fit(w.dataset("pi_manski", 0, n=300))
    np.testing.assert_allclose(a.upper_ - a.lower_, 1.0, atol=1e-12)
    b = PlugInBounds("logistic").fit(w.dataset("pi_msm_1", 0, n=300))
    np.testing.assert_allclose(b.upper_, b.lower_, atol=1e-12)
    c = b.cells_
    np.testing.assert_allclose(b.lower_, c[:, 3] / c[:, 2:].sum(1) - c[:, 1] / c[:, :2].sum(1), atol=1e-12)


def test_msm_estimated_sets_nest_in_gamma():
    w = PIWorld("pi-w02-threshold")
    prev = None
    for g in GAMMAS:
        m = PlugInBounds("logistic").fit(w.dataset(f"pi_msm_{g:g}", 0))
        if prev is not None:
            assert (m.lower_ <= prev[0] + 1e-12).all() and (prev[1] <= m.upper_ + 1e-12).all()
        prev = (m.lower_, m.upper_)


def test_bad_input_names_the_field():
    w = PIWorld("pi-w00-linear")
    ds = w.dataset("pi_manski", 0, n=200)
    cont = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y + 0.5, X_query=ds.X_query, query_ids=ds.query_ids, outcome="continuous",
                         target="bounds", assumption="manski")
    with pytest.raises(ValueError, match="dataset.Y"):
        PlugInBounds().fit(cont)
    cate = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids)
    with pytest.raises(ValueError, match="dataset.target"):
        PlugInBounds().fit(cate)
    no_inst = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, target="bounds",
                            assumption="iv", outcome="binary")
    with pytest.raises(ValueError, match=r"auxiliary\['instrument'\]"):
        PlugInBounds().fit(no_inst)
    with pytest.raises(ValueError, match="backbone"):
        PlugInBounds("tabpfn")


def test_an_arena_grid_runs_the_estimators_on_the_companion_views(tmp_path):
    """Family and estimator through the runner (worker processes, oracle harness-side): every view scored."""
    from causalarena.plugins import get_registry
    from causalarena.records import Status
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    reg = get_registry()
    world = reg.family("causalidview_pi").load()().instance("pi-w00-linear")  # through the entry point
    cells = make_cells([world], [reg.method("bounds_logistic")], splits=("pi_manski", "pi_iv", "pi_msm_2"))
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(cells, reg, st, progress=False)
        rows = {r.split: r for r in st.records()}
    assert {s: r.status for s, r in rows.items()} == {s: Status.OK for s in ("pi_manski", "pi_iv", "pi_msm_2")}
    direct = PlugInBounds("logistic").fit(world.dataset("pi_msm_2", 0)).prediction()
    assert rows["pi_msm_2"].metrics["bound_rmse"] == pytest.approx(bound_rmse(world.oracle("pi_msm_2", 0), direct),
                                                                   abs=1e-12)
    assert rows["pi_manski"].metrics["bound_width"] == pytest.approx(1.0)
    assert rows["pi_manski"].n == 1024 and rows["pi_manski"].d == 50
