"""CausalPFN wrapper: descriptor, loading through the package's own code, feature construction, errors, seeds.

The released checkpoint lives on the Hugging Face hub, which this machine cannot
reach, so the checkpoints here are made at test time
(:func:`arena_method_causalpfn.checkpoint.save_tiny_checkpoint`: the package's
own ``InContextModel`` / ``TabDPTLongContextModel`` with a 1-layer, width-16
config, saved as ``{model_state_dict, model_config}``). Their estimates mean
nothing, except for the zero-head model, whose answer is known by hand
(τ̂ = Ȳ₁ − Ȳ₀ at every query; checkpoint module doc).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from arena_task_effect.effect import EffectDataset
from causalarena.method import MethodEnvironmentError

causalpfn = pytest.importorskip("causalpfn")
torch = pytest.importorskip("torch")

from arena_method_causalpfn import method as M  # noqa: E402
from arena_method_causalpfn.checkpoint import TINY_MODEL_CONFIG, save_tiny_checkpoint, tiny_config  # noqa: E402
from arena_method_causalpfn.method import CausalPFN, feature_matrices  # noqa: E402
from arena_method_causalpfn.plugin import CHECKPOINT_ENV, HUB_ID, POINT_VIEWS  # noqa: E402
from arena_task_effect.task import estimates_frame  # noqa: E402

#: role → column names of each point view of the hand-built world (CausalIDView Table 3)
VIEW_ROLES = {"bd": {"confounder": ["U"]}, "fd": {"mediator": ["M"]}, "iv": {"instrument": ["I"]},
              "px": {"treatment_proxy": ["Zp"], "outcome_proxy": ["Wp"]}, "hc": {}}


def world(view: str, n: int = 300, q: int = 40, p: int = 5, seed: int = 0) -> EffectDataset:
    """A small world with every auxiliary of the CausalIDView SCM (App. C.1); ``view`` picks what is observed."""
    rng = np.random.default_rng(seed)
    N = n + q
    X = rng.normal(size=(N, p))
    U = rng.choice([-1.0, 1.0], size=N)
    Ins = rng.integers(0, 2, size=N).astype(float)
    T = (rng.uniform(size=N) < 1 / (1 + np.exp(-(U + Ins - 0.5)))).astype(np.int8)
    Mv = T + 0.5 * rng.normal(size=N)
    Zp = (rng.uniform(size=N) < 1 / (1 + np.exp(-2 * U))).astype(float)
    Wp = (rng.uniform(size=N) < 1 / (1 + np.exp(-2 * U))).astype(float)
    Y = X[:, 0] + 2.0 * U + 1.5 * Mv + 0.1 * rng.normal(size=N)
    values = {"confounder": U, "mediator": Mv, "instrument": Ins, "treatment_proxy": Zp, "outcome_proxy": Wp}
    roles = VIEW_ROLES[view]
    c, qs = slice(0, n), slice(n, None)
    return EffectDataset(X=X[c], T=T[c], Y=Y[c], X_query=X[qs], query_ids=np.arange(N)[qs], unit_ids=np.arange(n),
                         view=view, auxiliary={r: values[r][c] for r in roles},
                         auxiliary_query={r: values[r][qs] for r in roles},
                         columns={"covariates": [f"x{j}" for j in range(p)], **roles})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(save_tiny_checkpoint(str(tmp_path_factory.mktemp("ckpt") / "tiny.pt"), seed=0))


@pytest.fixture(scope="module")
def zero_head(tmp_path_factory):
    return str(save_tiny_checkpoint(str(tmp_path_factory.mktemp("ckpt") / "zero.pt"), seed=0, zero_head=True))


# -- descriptor -------------------------------------------------------------------------------------
def test_descriptor_lists_both_methods_for_the_five_point_views_without_importing_torch(tmp_path):
    code = (
        "import json, sys\n"
        "from arena_method_causalpfn.plugin import arena_methods\n"
        "infos = list(arena_methods())\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'causalpfn': 'causalpfn' in sys.modules,\n"
        "  'infos': [[i.name, i.task, i.output_kind, list(i.views), i.factory, i.params] for i in infos]}))\n"
    )
    env_free = {k: v for k, v in __import__("os").environ.items() if k != CHECKPOINT_ENV}
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    env=env_free, cwd=str(tmp_path)).stdout)
    assert out["torch"] is False and out["causalpfn"] is False  # cheap descriptor
    names = [i[0] for i in out["infos"]]
    assert names == ["causalpfn", "causalpfn_aux"]
    for _name, task, kind, views, factory, params in out["infos"]:
        assert (task, kind, factory) == ("effect", "effect", "arena_method_causalpfn.method:CausalPFN")
        assert views == ["bd", "fd", "iv", "px", "hc"] and not any(v.startswith("pi_") for v in views)
        assert params["checkpoint"] == HUB_ID and params["device"] == "cpu"
    assert [i[5]["inputs"] for i in out["infos"]] == ["x", "x_aux"]


def test_descriptor_copies_the_checkpoint_env_var_absolute_path_or_hub_id(monkeypatch, tmp_path):
    from arena_method_causalpfn.plugin import arena_methods

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CHECKPOINT_ENV, "weights/../causalpfn_v0.pt")  # a relative local path (two '/')
    assert {i.params["checkpoint"] for i in arena_methods()} == {str(tmp_path / "causalpfn_v0.pt")}
    monkeypatch.setenv(CHECKPOINT_ENV, "someorg/causalpfn")  # a hub id stays a hub id
    assert {i.params["checkpoint"] for i in arena_methods()} == {"someorg/causalpfn"}
    monkeypatch.setenv(CHECKPOINT_ENV, "/data/causalpfn_v0.pt")
    assert CausalPFN().get_params()["checkpoint"] == "/data/causalpfn_v0.pt"  # the env default, recorded


# -- loading through the package's code --------------------------------------------------------------
def test_tiny_checkpoint_loads_once_through_the_package_loader_and_gives_a_finite_cate(tiny, monkeypatch):
    calls = []
    original = causalpfn.CATEEstimator.load_model

    def spy(self):
        calls.append(self.model_path)
        return original(self)

    monkeypatch.setattr(causalpfn.CATEEstimator, "load_model", spy)
    monkeypatch.setattr(M, "_MODELS", {})
    ds = world("bd")
    CausalPFN.preload(checkpoint=tiny)
    first = CausalPFN(checkpoint=tiny, seed=0).fit(ds)
    second = CausalPFN(checkpoint=tiny, inputs="x_aux", seed=0).fit(ds)
    assert calls == [tiny]  # the package's load_model ran once; later fits were served from the module cache
    for m in (first, second):
        assert m.cate_.shape == (ds.q,) and m.cate_.dtype == np.float64 and np.isfinite(m.cate_).all()
        assert m.checkpoint_file_ == tiny
    # the network in the cache holds exactly the saved weights (torch.load + InContextModel.load, strict)
    saved = torch.load(tiny, weights_only=False)["model_state_dict"]
    icl_model, max_feature_size, _ = M._MODELS[(tiny, "cpu")]
    loaded = icl_model.state_dict()
    assert sorted(loaded) == sorted(saved) and all(torch.equal(loaded[k], saved[k]) for k in saved)
    # the package's load_model: max_feature_size = max_num_features − 1 (one input column is the treatment)
    assert max_feature_size == TINY_MODEL_CONFIG["model"]["max_num_features"] - 1 == 99


def test_zero_head_model_returns_the_difference_of_arm_means_at_every_query(zero_head):
    # known answer (checkpoint module doc): uniform bins → standardised mean 0 → μ̂_t = context mean of arm t
    for view, inputs in (("bd", "x"), ("px", "x_aux")):
        ds = world(view, n=300)
        expected = ds.Y[ds.T == 1].mean() - ds.Y[ds.T == 0].mean()
        cate = CausalPFN(checkpoint=zero_head, inputs=inputs, seed=0).fit(ds).cate_
        np.testing.assert_allclose(cate, np.full(ds.q, expected), rtol=0, atol=2e-5)


# -- feature construction (App. E.2.1) -------------------------------------------------------------
@pytest.mark.parametrize("view", POINT_VIEWS)
def test_the_feature_matrices_passed_to_the_model_are_x_only_or_x_plus_auxiliaries_without_the_mediator(
        view, tiny, monkeypatch):
    seen = {}
    fit, estimate = causalpfn.CATEEstimator.fit, causalpfn.CATEEstimator.estimate_cate

    def spy_fit(self, X, t, y):
        seen["fit"] = (X.copy(), t.copy(), y.copy())
        return fit(self, X, t, y)

    def spy_estimate(self, X):
        seen["query"] = X.copy()
        return estimate(self, X)

    monkeypatch.setattr(causalpfn.CATEEstimator, "fit", spy_fit)
    monkeypatch.setattr(causalpfn.CATEEstimator, "estimate_cate", spy_estimate)
    ds = world(view)
    kept = {"bd": ["U"], "fd": [], "iv": ["I"], "px": ["Zp", "Wp"], "hc": []}[view]
    for inputs in ("x", "x_aux"):
        m = CausalPFN(checkpoint=tiny, inputs=inputs, seed=0).fit(ds)
        X, t, y = seen["fit"]
        extra = kept if inputs == "x_aux" else []
        roles = [r for r in ds.roles if r != "mediator"] if inputs == "x_aux" else []
        assert m.features_ == [f"x{j}" for j in range(5)] + extra
        assert X.shape == (ds.n, 5 + len(extra)) and seen["query"].shape == (ds.q, 5 + len(extra))
        np.testing.assert_array_equal(X, np.hstack([ds.X] + [ds.auxiliary[r] for r in roles]))
        np.testing.assert_array_equal(seen["query"], np.hstack([ds.X_query] + [ds.auxiliary_query[r] for r in roles]))
        np.testing.assert_array_equal(t, ds.T.astype(float))
        np.testing.assert_array_equal(y, ds.Y)
        assert m.dropped_roles_ == (["mediator"] if (view == "fd" and inputs == "x_aux") else [])
    if view == "fd":  # mediator-free transfer: causalpfn_aux on fd is the X-only input
        Xa, Xq, names, dropped = feature_matrices(ds, "x_aux")
        assert Xa is ds.X and Xq is ds.X_query and "M" not in names and dropped == ["mediator"]


# -- errors -----------------------------------------------------------------------------------------
def test_a_hub_id_without_network_is_an_env_error_naming_the_download_and_the_local_path_option(
        tmp_path, monkeypatch):
    import huggingface_hub.constants

    from causalarena.worker import Worker

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # no network, without ~25 s of retries
    monkeypatch.setattr(M, "_RESOLVED", {})
    with pytest.raises(MethodEnvironmentError) as err:
        CausalPFN(checkpoint=HUB_ID, cache_dir=str(tmp_path)).fit(world("hc"))
    text = str(err.value)
    for needle in ("'vdblm/causalpfn' is a Hugging Face hub id", "causalpfn_v0.pt",
                   "https://huggingface.co/vdblm/causalpfn", "hf_hub_download('vdblm/causalpfn', 'causalpfn_v0.pt')",
                   "checkpoint=/path/to/causalpfn_v0.pt", f"${CHECKPOINT_ENV}=/path/to/causalpfn_v0.pt"):
        assert needle in text, needle
    # the worker's load (preload) reports it as env_error, before any fit
    resp = Worker().load({"factory": "arena_method_causalpfn.method:CausalPFN",
                          "params": {"checkpoint": HUB_ID, "cache_dir": str(tmp_path)}})
    assert resp["status"] == "env_error" and "causalpfn_v0.pt" in resp["error"]


def test_missing_unreadable_and_meaningless_checkpoints_are_env_errors(tmp_path):
    with pytest.raises(MethodEnvironmentError, match=r"checkpoint='/nonexistent/causalpfn_v0\.pt' is not a file"):
        CausalPFN.preload(checkpoint="/nonexistent/causalpfn_v0.pt")
    with pytest.raises(MethodEnvironmentError, match="neither an existing .pt file nor a Hugging Face hub id"):
        CausalPFN.preload(checkpoint="no_such_file.pt")
    junk = tmp_path / "junk.pt"
    torch.save({"weights": torch.zeros(3)}, junk)
    with pytest.raises(MethodEnvironmentError, match=r"could not be loaded by causalpfn's CATEEstimator\.load_model "
                                                     r"\(KeyError: 'model_state_dict'\)"):
        CausalPFN.preload(checkpoint=str(junk))


def test_bad_options_and_inputs_name_the_field(tiny):
    with pytest.raises(ValueError, match="inputs must be one of"):
        CausalPFN(checkpoint=tiny, inputs="x+u")
    with pytest.raises(ValueError, match="max_context_length must be an integer >= 2"):
        CausalPFN(checkpoint=tiny, max_context_length=0)
    ds = world("bd")
    lacking = EffectDataset(X=ds.X, T=ds.T, Y=ds.Y, X_query=ds.X_query, query_ids=ds.query_ids, view="bd",
                            auxiliary=ds.auxiliary)
    with pytest.raises(ValueError, match=r"auxiliary_query lacks role\(s\) \['confounder'\]"):
        CausalPFN(checkpoint=tiny, inputs="x_aux").fit(lacking)
    bounds = EffectDataset(X=ds.X, T=ds.T, Y=(ds.Y > 0).astype(float), X_query=ds.X_query, query_ids=ds.query_ids,
                           view="pi_manski", target="bounds", assumption="manski", outcome="binary")
    with pytest.raises(ValueError, match="estimates a CATE; EffectDataset.target is 'bounds'"):
        CausalPFN(checkpoint=tiny).fit(bounds)
    with pytest.raises(ValueError, match="unknown model entries"):
        tiny_config(width=3)


# -- determinism ------------------------------------------------------------------------------------
def test_a_seed_gives_byte_identical_estimates_also_through_the_svd_path(tiny, tmp_path):
    ds = world("px", p=8)
    a = CausalPFN(checkpoint=tiny, inputs="x_aux", seed=7).fit(ds).cate_
    b = CausalPFN(checkpoint=tiny, inputs="x_aux", seed=7).fit(ds).cate_
    assert a.tobytes() == b.tobytes()
    # a model narrower than the features: the package reduces X (n × 10) with TruncatedSVD (arpack, random start)
    narrow = str(save_tiny_checkpoint(str(tmp_path / "narrow.pt"), seed=1, config=tiny_config(max_num_features=6)))
    runs = [CausalPFN(checkpoint=narrow, inputs="x_aux", seed=s).fit(ds) for s in (3, 3)]
    assert runs[0].cate_.tobytes() == runs[1].cate_.tobytes() and np.isfinite(runs[0].cate_).all()
    assert M._MODELS[(narrow, "cpu")][1] == 5  # max_feature_size = max_num_features − 1 (the treatment column)
    # seed=None: drawn from numpy.random, which the arena worker seeds with the cell seed
    np.random.seed(11)
    c = CausalPFN(checkpoint=narrow, inputs="x_aux").fit(ds)
    np.random.seed(11)
    d = CausalPFN(checkpoint=narrow, inputs="x_aux").fit(ds)
    assert c.seed_ == d.seed_ and c.cate_.tobytes() == d.cate_.tobytes()


def test_the_worker_serves_two_identical_fits_for_one_cell_seed(tiny, tmp_path):
    from causalarena.worker import Worker

    path = str(tmp_path / "bd.npz")
    world("bd").save(path)
    w = Worker(rlimit=False)
    assert w.load({"factory": "arena_method_causalpfn.method:CausalPFN",
                   "params": {"checkpoint": tiny, "inputs": "x_aux"}})["status"] == "ok"
    first, second = (w.fit({"id": str(i), "dataset_path": path, "seed": 5}) for i in range(2))
    assert first["status"] == second["status"] == "ok", first.get("error")
    assert first["prediction"]["cate"] == second["prediction"]["cate"] and len(first["prediction"]["cate"]) == 40


# -- the arena's runner, end to end -------------------------------------------------------------------
class _World:
    """A two-view world (``bd``, ``fd``) plus a bounds view (``pi_manski``) over the same units."""

    task, family, scm_id, n_replicates = "effect", "causalpfn_toy", "w0", 1
    splits = ("bd", "fd", "pi_manski")
    factors = {"world": "w0"}

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        if split == "pi_manski":
            ds = world("hc")
            return EffectDataset(X=ds.X, T=ds.T, Y=(ds.Y > 0).astype(float), X_query=ds.X_query,
                                 query_ids=ds.query_ids, unit_ids=ds.unit_ids, view=split, target="bounds",
                                 assumption="manski", outcome="binary", metadata={"seed": 1})
        ds = world(split)
        ds.metadata = {"seed": 1, "family": self.family, "scm_id": self.scm_id, "split": split}
        return ds

    def oracle(self, split, replicate, n=None):
        from arena_task_effect.effect import EffectOracle

        q = world("hc").query_ids
        tau = np.full(len(q), 1.5)  # Y = … + 1.5 M, E[M(1) − M(0)] = 1
        if split == "pi_manski":
            return EffectOracle(query_ids=q, tau=tau, lower=np.full(len(q), -1.0), upper=np.ones(len(q)))
        return EffectOracle(query_ids=q, tau=tau)

    def fingerprint(self):
        return "c0ffee00c0ffee00"


def test_an_arena_grid_runs_on_point_views_and_marks_the_bounds_view_unsupported(zero_head, tmp_path):
    # one method, so one worker process: importing torch there costs 5 CPU-s (up to ~20 s wall on a busy machine)
    import attrs

    from arena_method_causalpfn.plugin import arena_methods
    from causalarena.plugins import get_registry
    from causalarena.records import Status
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    methods = [attrs.evolve(i, params={**i.params, "checkpoint": zero_head}) for i in arena_methods()
               if i.name == "causalpfn_aux"]
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([_World()], methods), get_registry(), st, progress=False)
        rows = {(r.method, r.split): r for r in st.records()}
        est = estimates_frame(st)
    assert {k: r.status for k, r in rows.items()} == {
        (m, v): (Status.UNSUPPORTED if v == "pi_manski" else Status.OK)
        for m in ("causalpfn_aux",) for v in _World.splits}
    for view in ("bd", "fd"):  # the zero-head known answer, through the worker process and the store
        ds = world(view)
        diff = ds.Y[ds.T == 1].mean() - ds.Y[ds.T == 0].mean()
        row = est[(est.method == "causalpfn_aux") & (est.split == view)].iloc[0]
        np.testing.assert_allclose(row.cate, diff, atol=2e-5)
        assert rows[("causalpfn_aux", view)].metrics["spehe2"] == pytest.approx((diff - 1.5) ** 2, abs=1e-4)
    assert "'pi_manski' is missing" in rows[("causalpfn_aux", "pi_manski")].error
