"""Tests of arena-method-cdfm (run with the distribution and cdfm-base installed)."""

from __future__ import annotations

import json
import os
import shutil

import attrs
import numpy as np
import pytest

from arena_testkit import make_chain_dataset, parametrize_method_checks
from causalarena.data import Dataset
from causalarena.family import Instance

torch = pytest.importorskip("torch")
cdfm = pytest.importorskip("cdfm")


@parametrize_method_checks("cdfm")
def test_conformance(check):
    check()


# -- fixtures ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fresh_checkpoint(tmp_path_factory):
    """A checkpoint saved here from a seeded, untrained model of the small config, without calibration."""
    import safetensors.torch

    from arena_method_cdfm.train_small import SMALL_CONFIG, build_model

    torch.manual_seed(123)
    model = build_model(SMALL_CONFIG)
    folder = str(tmp_path_factory.mktemp("ckpt"))
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    safetensors.torch.save_file(state, os.path.join(folder, "model.safetensors"))
    with open(os.path.join(folder, "config.json"), "w") as fh:
        json.dump(SMALL_CONFIG, fh)
    return folder, state


def _fixed_dataset(n=120, d=5, seed=7):
    X = np.random.default_rng(seed).standard_normal((n, d))
    X[:, 1] += 0.9 * X[:, 0]
    return Dataset(X=X, columns=[f"x{i}" for i in range(d)], metadata={"seed": seed})


# -- checkpoint loading ------------------------------------------------------------------------------

def test_loaded_checkpoint_equals_the_saved_one(fresh_checkpoint):
    # every parameter (and buffer) tensor the worker runs is bit-identical to the one written
    from arena_method_cdfm.method import load_model

    folder, saved = fresh_checkpoint
    loaded = load_model(checkpoint=folder)._model.state_dict()
    assert sorted(loaded) == sorted(saved)
    for k, v in saved.items():
        assert torch.equal(loaded[k], v), k


def test_shipped_checkpoint_equals_its_file():
    import safetensors.torch

    from arena_method_cdfm.method import SMALL_CHECKPOINT, load_model

    saved = safetensors.torch.load_file(os.path.join(SMALL_CHECKPOINT, "model.safetensors"))
    loaded = load_model()._model.state_dict()
    assert sorted(loaded) == sorted(saved)
    assert all(torch.equal(loaded[k], saved[k]) for k in saved)


def test_model_is_cached_per_checkpoint(fresh_checkpoint):
    from arena_method_cdfm.method import load_model

    folder, _ = fresh_checkpoint
    assert load_model(checkpoint=folder) is load_model(checkpoint=folder + os.sep + ".")  # same abspath


def test_a_missing_key_fails_clearly(fresh_checkpoint, tmp_path):
    # the package loads with strict=False and would only log this; the wrapper refuses
    import safetensors.torch

    from arena_method_cdfm.method import CDFMMethod, load_model

    folder, state = fresh_checkpoint
    bad = str(tmp_path / "bad")
    shutil.copytree(folder, bad)
    state = dict(state)
    del state["inference.final_bias"]
    safetensors.torch.save_file(state, os.path.join(bad, "model.safetensors"))
    msg = r"does not match the architecture of its config.json: 1 missing key\(s\) \['inference.final_bias'\]"
    with pytest.raises(ValueError, match=msg):
        load_model(checkpoint=bad)
    with pytest.raises(ValueError, match=msg):
        CDFMMethod(checkpoint=bad, threshold=0.5).fit(_fixed_dataset())


def test_a_wrong_shape_fails_clearly(fresh_checkpoint, tmp_path):
    # weights of embed 32 under a config.json of embed 64: load_state_dict raises its own RuntimeError
    # even with strict=False; either way nothing runs on half-loaded weights
    from arena_method_cdfm.method import load_model

    folder, _ = fresh_checkpoint
    bad = str(tmp_path / "shape")
    shutil.copytree(folder, bad)
    with open(os.path.join(bad, "config.json")) as fh:
        cfg = json.load(fh)
    cfg["embed_dim"] = 64
    with open(os.path.join(bad, "config.json"), "w") as fh:
        json.dump(cfg, fh)
    with pytest.raises((ValueError, RuntimeError), match="size mismatch|shape mismatch"):
        load_model(checkpoint=bad)


def test_options_are_checked():
    from arena_method_cdfm.method import CDFMMethod, load_model

    with pytest.raises(ValueError, match="not both"):
        load_model(checkpoint="x", hub="a/b")
    with pytest.raises(ValueError, match="not a hub id"):
        load_model(hub="nohub")
    with pytest.raises(FileNotFoundError, match="Checkpoint not found"):
        load_model(checkpoint="/nonexistent/cdfm")
    with pytest.raises(ValueError, match=r"threshold must be in \[0, 1\]"):
        CDFMMethod(threshold=1.5).fit(_fixed_dataset())


# -- output = the package's own call -----------------------------------------------------------------

def test_probabilities_equal_the_packages_own_predict(fresh_checkpoint):
    from arena_method_cdfm.method import CDFMMethod

    folder, _ = fresh_checkpoint
    ds = _fixed_dataset()
    m = CDFMMethod(checkpoint=folder, threshold=0.3).fit(ds)
    ref = cdfm.CDFM.from_pretrained(folder, device="cpu").predict(ds.X, threshold=0.3)
    expected = ref.probabilities.copy()
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_array_equal(m.edge_scores_, expected)
    np.testing.assert_array_equal(m.native_, ref.logits)
    np.testing.assert_array_equal(m.thresholded_, ref.adjacency)
    assert m.threshold_ == 0.3


def test_probabilities_equal_a_raw_forward_pass(fresh_checkpoint):
    # the package's pipeline spelled out: z-score, X[1, N, D, 2] (mask channel 0), forward, sigmoid
    from arena_method_cdfm.method import CDFMMethod

    folder, _ = fresh_checkpoint
    ds = _fixed_dataset()
    model, _, _ = cdfm.load_checkpoint(folder)
    Z = ((ds.X - ds.X.mean(0)) / ds.X.std(0)).astype(np.float32)
    X = torch.zeros(1, *Z.shape, 2)
    X[0, :, :, 0] = torch.from_numpy(Z)
    with torch.no_grad():
        W, _ = model(X, torch.tensor([Z.shape[0]]), torch.tensor([Z.shape[1]]))
    P = torch.sigmoid(W[0].double()).numpy()
    np.fill_diagonal(P, 0.0)
    m = CDFMMethod(checkpoint=folder, threshold=0.5).fit(ds)
    np.testing.assert_allclose(m.edge_scores_, P, rtol=0, atol=1e-6)


def test_calibrated_threshold_needs_calibration_config(fresh_checkpoint):
    # the fresh checkpoint has no calibration_config: threshold=None raises the package's error
    from arena_method_cdfm.method import CDFMMethod

    folder, _ = fresh_checkpoint
    with pytest.raises(ValueError, match="suggest_threshold requires weights and features"):
        CDFMMethod(checkpoint=folder).fit(_fixed_dataset())


# -- the threshold rule -------------------------------------------------------------------------------

HAND_P = np.array([[0.0, 0.9, 0.1],
                   [0.8, 0.0, 0.7],
                   [0.05, 0.2, 0.0]])


def test_threshold_rule_on_a_hand_made_matrix():
    # off-diagonal values .05 .1 .2 .7 .8 .9: median p50 = (.2 + .7)/2 = .45;
    # calibration T = sigmoid(-1.8 + 4 * .45) = sigmoid(0) = 0.5 (the package's suggest_threshold).
    # P > 0.5: 0->1 (.9), 1->0 (.8), 1->2 (.7); the 2-cycle 0<->1 loses its weaker edge 1->0.
    from arena_method_cdfm.method import calibrated_threshold, decide_edges

    t = calibrated_threshold(HAND_P, {"coefficients": np.array([-1.8, 4.0]), "feature_names": ["p50"]})
    assert t == pytest.approx(0.5, abs=1e-12)
    thresholded, dag = decide_edges(HAND_P, 0.5)
    assert thresholded.tolist() == [[0, 1, 0], [1, 0, 1], [0, 0, 0]]
    assert dag.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    # strict ">": an edge at exactly the threshold is absent (the package's rule)
    assert decide_edges(HAND_P, 0.7)[0].tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 0]]


def test_fit_graph_is_the_rule_applied_to_its_scores():
    from arena_method_cdfm.method import CDFMMethod, decide_edges

    m = CDFMMethod().fit(make_chain_dataset(d=6, n=200, seed=3))
    thresholded, dag = decide_edges(m.edge_scores_, m.threshold_)
    np.testing.assert_array_equal(m.thresholded_, thresholded)
    np.testing.assert_array_equal(m.adjacency_, dag)
    assert 0.0 < m.threshold_ < 1.0  # from the shipped calibration_config


# -- the shipped checkpoint ---------------------------------------------------------------------------

def test_shipped_checkpoint_beats_chance_on_held_out_graphs():
    # 30 fresh linear-Gaussian graphs (seed 2024, never used in training: train 0, calibration 1)
    from sklearn.metrics import roc_auc_score

    from arena_method_cdfm.method import CDFMMethod
    from arena_method_cdfm.train_small import linear_gaussian

    rng = np.random.default_rng(2024)
    aurocs = []
    for _ in range(30):
        X, A = linear_gaussian(rng, 10, 200)
        m = CDFMMethod().fit(Dataset(X=X.astype(float), columns=[f"x{i}" for i in range(10)], metadata={}))
        off = ~np.eye(10, dtype=bool)
        aurocs.append(roc_auc_score(A[off], m.edge_scores_[off]))
    assert np.mean(aurocs) > 0.6, np.mean(aurocs)


def test_shipped_checkpoint_files_and_size():
    from arena_method_cdfm.method import SMALL_CHECKPOINT

    assert sorted(os.listdir(SMALL_CHECKPOINT)) == ["config.json", "model.safetensors", "prior.json",
                                                    "training.json"]
    assert os.path.getsize(os.path.join(SMALL_CHECKPOINT, "model.safetensors")) < 5 * 1024 * 1024
    with open(os.path.join(SMALL_CHECKPOINT, "config.json")) as fh:
        cal = json.load(fh)["calibration_config"]
    assert len(cal["coefficients"]) == len(cal["feature_names"]) + 1


def test_declared_prior_is_the_training_generators():
    from arena_method_cdfm.method import SMALL_CHECKPOINT
    from arena_method_cdfm.plugin import SMALL_CHECKPOINT_PRIOR
    from arena_method_cdfm.train_small import SMALL_PRIOR
    from causalarena.plugins import get_registry
    from causalarena.records import PretrainingPrior

    with open(os.path.join(SMALL_CHECKPOINT, "prior.json")) as fh:
        shipped = PretrainingPrior(**json.load(fh))
    assert shipped == SMALL_CHECKPOINT_PRIOR == PretrainingPrior(**SMALL_PRIOR)
    assert get_registry().methods["cdfm"].prior == shipped
    assert shipped.axes == {"graph": ("er",), "mechanism": ("linear",), "noise": ("gaussian",),
                            "root": ("gaussian",)}
    assert (shipped.d_range, shipped.n_range) == ((5, 12), (50, 200))


# -- hub path through a real arena run ---------------------------------------------------------------

class _Chain(Instance):
    """One 3-variable chain, obs only, one replicate (the smallest grid)."""

    family = "toy_cdfm"
    scm_id = "chain-3"
    splits = ("obs",)
    n_replicates = 1
    factors = {"graph": "chain"}

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        ds = make_chain_dataset(d=3, n=n or 200, seed=replicate, standardise=standardise)
        return attrs.evolve(ds, metadata={**ds.metadata, "family": self.family, "scm_id": self.scm_id,
                                          "split": split, "replicate": replicate, "seed": replicate})

    def true_adjacency(self):
        return np.eye(3, k=1, dtype=np.int8)


def test_hub_without_network_is_env_error_in_a_real_run(tmp_path):
    from causalarena.plugins import get_registry
    from causalarena.records import Status
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    reg = get_registry()
    hub = attrs.evolve(reg.methods["cdfm"], params={"checkpoint": None, "hub": "DMIRLAB/CDFM", "threshold": None})
    with Store(str(tmp_path / "r.sqlite")) as st:
        summary = run_grid(make_cells([_Chain()], [hub]), reg, st, progress=False)
        (rec,) = list(st.records())
    assert summary.counts == {"env_error": 1}
    assert rec.status == Status.ENV_ERROR
    assert "DMIRLAB/CDFM" in rec.error and "checkpoint=PATH" in rec.error and "hf download" in rec.error


def test_default_checkpoint_is_ok_in_a_real_run(tmp_path):
    from causalarena.plugins import get_registry
    from causalarena.records import Status
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    reg = get_registry()
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([_Chain()], [reg.methods["cdfm"]]), reg, st, progress=False)
        (rec,) = list(st.records())
    assert rec.status == Status.OK, rec.error
