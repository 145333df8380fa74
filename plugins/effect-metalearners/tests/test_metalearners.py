"""Known answers for the back-door meta-learners (run with arena-method-metalearners installed).

Toy back-door world (built here, CausalIDView App. B.1 structure): X ~ N(0, I₄),
U uniform on {−1, +1}, P(T = 1 | X, U) = σ(0.5 x₀ + 1.2 U), τ(x) = 1 + x₁,
Y = x₀ + 0.5 x₂ + 2U + T τ(X) + N(0, 0.5²); n = 1000 context units, q = 200 queries.
The bd view adds U (so E[Y(1) − Y(0) | X, U] = τ(X) is identified by adjustment);
the hc view drops it: a fit on X alone carries the bias
2 (E[U | T=1, X] − E[U | T=0, X]) ≈ 2 · 0.9 (sPEHE² ≈ 4.2 measured).
"""

import warnings

import numpy as np
import pytest

from arena_method_metalearners import __version__
from arena_method_metalearners.method import DRLearnerMethod, SLearnerMethod, XLearnerMethod, adjustment_features
from arena_method_metalearners.plugin import BACKBONES, LEARNERS, method_infos
from arena_task_effect.effect import EffectDataset, EffectMethod, EffectOracle, EffectPrediction, spehe2

CLASSES = {"s_learner": SLearnerMethod, "x_learner": XLearnerMethod, "dr_learner": DRLearnerMethod}
#: a bd fit must beat this sPEHE²; the X-only (hc) fits of the same world exceed it (test_hc_is_biased)
THRESHOLD = 2.5
#: tighter bound reached by every learner/backbone but the DR-learner on xgboost (measured 1.5 at n = 1000, 3.7 at n = 600: its
#: 300-tree final model fits the noisy pseudo-outcome) and on mlp (xfail below)
GOOD = 0.5


def toy_world(view="bd", n=1000, q=200, seed=0):
    rng = np.random.default_rng(seed)
    N = n + q
    X = rng.normal(size=(N, 4))
    U = rng.choice([-1.0, 1.0], size=N)
    T = (rng.uniform(size=N) < 1 / (1 + np.exp(-(0.5 * X[:, 0] + 1.2 * U)))).astype(int)
    tau = 1.0 + X[:, 1]
    Y = X[:, 0] + 0.5 * X[:, 2] + 2.0 * U + T * tau + rng.normal(scale=0.5, size=N)
    aux = {"confounder": U[:n, None]} if view == "bd" else {}
    auxq = {"confounder": U[n:, None]} if view == "bd" else {}
    ds = EffectDataset(X=X[:n], T=T[:n], Y=Y[:n], X_query=X[n:], query_ids=np.arange(q), auxiliary=aux,
                       auxiliary_query=auxq, view=view)
    return ds, EffectOracle(query_ids=np.arange(q), tau=tau[n:])


def _score(cls, backbone, view, **kw):
    ds, oracle = toy_world(view)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLP ConvergenceWarning at the paper's fixed epochs
        m = cls(backbone=backbone, random_state=1, **kw).fit(ds)
    assert m.cate_.shape == (ds.q,) and np.isfinite(m.cate_).all()
    return spehe2(oracle, EffectPrediction(cate=m.cate_))


CASES = [(lr, b) for lr in LEARNERS for b in BACKBONES if (lr, b) != ("dr_learner", "mlp")]


@pytest.mark.parametrize("learner,backbone", CASES, ids=[f"{a}_{b}" for a, b in CASES])
def test_bd_recovers_tau(learner, backbone):
    err = _score(CLASSES[learner], backbone, "bd")
    bound = THRESHOLD if (learner, backbone) == ("dr_learner", "xgboost") else GOOD
    assert err < bound, f"{learner}_{backbone}: sPEHE² {err:.3f} on the bd view"


@pytest.mark.parametrize("learner,backbone", [("s_learner", "xgboost"), ("x_learner", "extratrees"),
                                              ("dr_learner", "extratrees")])
def test_hc_is_biased(learner, backbone):
    # the same world without U: the X-only fit exceeds the threshold every bd fit beats
    err = _score(CLASSES[learner], backbone, "hc")
    assert err > 1.5 * THRESHOLD, f"{learner}_{backbone}: sPEHE² {err:.3f} on the hc view"


@pytest.mark.xfail(strict=True, reason="arena_effect_backbones' MLP classifier (200 epochs, no early stopping) "
                                        "gives out-of-fold propensities near 0/1 (min ~5e-4 where the true "
                                        "propensity is >= 0.1); econml's min_propensity=1e-6 lets the AIPW "
                                        "weights explode (sPEHE² ~1e5 measured)")
def test_dr_learner_mlp_recovers_tau():
    assert _score(DRLearnerMethod, "mlp", "bd") < GOOD


def test_adjustment_vector_is_x_plus_confounder():
    ds, _ = toy_world("bd", n=50, q=10)
    V, Vq, names = adjustment_features(ds)
    assert V.shape == (50, 5) and Vq.shape == (10, 5)
    np.testing.assert_array_equal(V[:, 4], ds.auxiliary["confounder"][:, 0])
    np.testing.assert_array_equal(Vq[:, 4], ds.auxiliary_query["confounder"][:, 0])  # factual query U
    assert names == ["x0", "x1", "x2", "x3", "confounder"]
    hc, _ = toy_world("hc", n=50, q=10)
    assert adjustment_features(hc)[0].shape == (50, 4)
    # a mediator (post-treatment) is never adjusted for
    med = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids,
                        auxiliary={"mediator": ds.Y[:, None]}, auxiliary_query={"mediator": ds.X_query[:, :1]})
    assert adjustment_features(med)[0].shape == (50, 4)


def test_same_seed_same_cate():
    ds, _ = toy_world("bd", n=300, q=50)
    np.random.seed(7)  # what the worker does with the cell's seed
    a = XLearnerMethod(backbone="extratrees").fit(ds)
    np.random.seed(7)
    b = XLearnerMethod(backbone="extratrees").fit(ds)
    assert a.seed_ == b.seed_
    np.testing.assert_array_equal(a.cate_, b.cate_)
    c = DRLearnerMethod(backbone="xgboost", random_state=3).fit(ds).cate_
    np.testing.assert_array_equal(c, DRLearnerMethod(backbone="xgboost", random_state=3).fit(ds).cate_)
    assert not np.array_equal(c, DRLearnerMethod(backbone="xgboost", random_state=4).fit(ds).cate_)


def test_bad_input_names_the_field():
    ds, _ = toy_world("bd", n=50, q=10)
    with pytest.raises(ValueError, match="backbone 'tabpfn'"):
        SLearnerMethod(backbone="tabpfn").fit(ds)
    no_q = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids,
                         auxiliary=ds.auxiliary, view="bd")
    with pytest.raises(ValueError, match=r"auxiliary_query\['confounder'\]"):
        SLearnerMethod().fit(no_q)
    bounds = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, view="pi_manski",
                           target="bounds", assumption="manski")
    with pytest.raises(ValueError, match="EffectDataset.target"):
        XLearnerMethod().fit(bounds)
    with pytest.raises(ValueError, match="cv"):
        DRLearnerMethod(cv=1).fit(ds)
    with pytest.raises(ValueError, match="random_state"):
        SLearnerMethod(random_state=-1).fit(ds)


def test_descriptors_declare_back_door_views():
    infos = list(method_infos())
    assert sorted(i.name for i in infos) == sorted(f"{lr}_{b}" for lr in ("s_learner", "x_learner", "dr_learner")
                                                   for b in ("xgboost", "extratrees", "mlp"))
    for info in infos:
        assert info.task == "effect" and info.output_kind == "effect"
        assert info.views == ("bd", "hc")
        assert not {"fd", "iv", "px", "pi_manski", "pi_iv"} & set(info.views)
        assert info.params["backbone"] == info.name.rsplit("_", 1)[1]
    assert {i.params.get("cv") for i in infos if i.name.startswith("dr_")} == {2}


def test_entry_point_lists_the_methods():
    from arena_testkit import check_descriptor_cheap
    from causalarena.plugins import get_registry

    reg = get_registry(strict=True)
    for info in method_infos():
        rec = reg.methods[info.name]
        assert (rec.distribution, rec.version) == ("arena-method-metalearners", __version__)
        assert rec.views == ("bd", "hc") and rec.task == "effect"
        cls = rec.load()
        assert issubclass(cls, EffectMethod) and cls.output_kind == "effect"
        assert cls(**rec.params).get_params()["backbone"] == rec.params["backbone"]
    check_descriptor_cheap(reg.methods["dr_learner_xgboost"], {})  # no econml/xgboost import on listing
