"""Tests of arena-method-amortized (tox env method-amortized: the distribution, the synthetic family, torch)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from arena_method_amortized import features as F
from arena_method_amortized.method import DEFAULT_CHECKPOINT, AmortizedMethod, load_model
from arena_method_amortized.model import AmortizedModel, acyclic_decision, load_checkpoint, sha256_file
from arena_testkit import make_chain_dataset, parametrize_method_checks
from causalarena.data import Dataset

HERE = os.path.dirname(os.path.abspath(__file__))
PRIOR_FILE = os.path.join(os.path.dirname(DEFAULT_CHECKPOINT), "..", "priors", "er_sf_d10_20.yaml")


@parametrize_method_checks("amortized")
def test_conformance(check):
    check()


# -- features: known answers ----------------------------------------------------------------------

def _col(name):
    return F.PAIR_FEATURES.index(name)


def test_correlations_of_a_linear_gaussian_chain():
    """x0 → x1 → x2 with unit weights and N(0, 1) noise: corr(x0, x1) = 1/√2, corr(x0, x2) = 1/√3,
    the partial correlation of x0 and x2 given x1 is 0 and of x0, x1 given x2 is 1/√2 · … (checked by sign)."""
    rng = np.random.default_rng(0)
    n = 200_000
    x0 = rng.standard_normal(n)
    x1 = x0 + rng.standard_normal(n)
    x2 = x1 + rng.standard_normal(n)
    f = F.pair_features(np.column_stack([x0, x1, x2]))
    assert f.shape == (3, 3, F.N_FEATURES) and f.dtype == np.float32
    assert f[0, 1, _col("corr")] == pytest.approx(1 / np.sqrt(2), abs=5e-3)
    assert f[0, 2, _col("corr")] == pytest.approx(1 / np.sqrt(3), abs=5e-3)
    assert f[0, 2, _col("pcorr")] == pytest.approx(0.0, abs=5e-3)
    # R² of x1 on (x0, x2): var(x1) = 2, var(x1 | x0, x2) = 1/2 → R² = 1 − 0.5/2 = 0.75
    assert f[1, 0, _col("r2_i")] == pytest.approx(0.75, abs=5e-3)
    assert np.all(f[np.arange(3), np.arange(3)] == 0)
    # symmetric statistics are symmetric, directional ones come as (i→j, j→i) mirror pairs
    np.testing.assert_array_equal(f[..., _col("corr")], f[..., _col("corr")].T)
    np.testing.assert_array_equal(f[..., _col("nl_ij")], f[..., _col("nl_ji")].T)


def test_an_intervention_shifts_the_child_not_the_parent():
    """do(x0 := 3) on 200 rows of x0 → x1: x1's shift is large and positive, x0 on do(x1) rows does not move."""
    rng = np.random.default_rng(1)
    n_obs, n_int = 800, 100
    x0 = rng.standard_normal(n_obs + 2 * n_int)
    x0[n_obs:n_obs + n_int] = 3.0
    x1 = x0 + 0.5 * rng.standard_normal(x0.size)
    x1[n_obs + n_int:] = -3.0
    mask = np.zeros((x0.size, 2), dtype=bool)
    mask[n_obs:n_obs + n_int, 0] = True
    mask[n_obs + n_int:, 1] = True
    f = F.pair_features(np.column_stack([x0, x1]), mask)
    assert f[0, 1, _col("int_shift_ij")] > 0.9  # tanh(t / 10) of a t statistic ≈ 3 √100 / 1.1
    assert abs(f[1, 0, _col("int_shift_ij")]) < 0.05  # x0 on the do(x1) rows: no shift
    assert f[0, 1, _col("has_int_i")] == 1.0 and f[0, 1, _col("int_share")] == pytest.approx(0.2)


def test_features_are_permutation_equivariant():
    """Relabelling the variables relabels the features (the model then is too)."""
    ds = make_chain_dataset(d=5, n=400, seed=3)
    perm = np.array([3, 0, 4, 1, 2])
    f = F.pair_features(ds.X)
    g = F.pair_features(ds.X[:, perm])
    np.testing.assert_allclose(g, f[np.ix_(perm, perm)], rtol=1e-4, atol=1e-5)


def test_missing_values_are_imputed_and_bad_shapes_named():
    x = make_chain_dataset(d=3, n=300, seed=2).X.copy()
    x[::7, 1] = np.nan
    assert np.isfinite(F.pair_features(x)).all()
    with pytest.raises(ValueError, match="n x d"):
        F.pair_features(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="intervention_mask has shape"):
        F.pair_features(x, np.zeros((2, 2), dtype=bool))


# -- the model and its decision rule ------------------------------------------------------------------

def _tiny_model(hidden=2):
    """A hand-set network: edge MLP passes features 0 and 1 (ReLU), the head adds e_ij[0] − e_ji[0]."""
    k = F.N_FEATURES
    w0 = np.zeros((hidden, k), np.float32)
    w0[0, 0], w0[1, 1] = 1.0, 1.0
    t = {"feature_mean": np.zeros(k, np.float32), "feature_std": np.ones(k, np.float32),
         "edge.0.weight": w0, "edge.0.bias": np.zeros(hidden, np.float32),
         "head.0.weight": np.zeros((1, 6 * hidden), np.float32), "head.0.bias": np.array([-1.0], np.float32)}
    t["head.0.weight"][0, 0], t["head.0.weight"][0, hidden] = 2.0, -1.0
    cfg = {"threshold": 0.5, "edge_layers": 1, "head_layers": 1, "hidden": hidden}
    return AmortizedModel(cfg, t), t, cfg


def test_forward_pass_by_hand():
    model, _, _ = _tiny_model()
    f = np.zeros((3, 3, F.N_FEATURES), np.float32)
    f[0, 1, 0], f[1, 0, 0], f[2, 1, 0] = 3.0, 1.0, -2.0  # ReLU keeps 3 and 1, zeroes −2
    logit = model.logits(f)
    # logit_ij = 2 relu(f_ij0) − relu(f_ji0) − 1
    assert logit[0, 1] == pytest.approx(2 * 3 - 1 - 1)
    assert logit[1, 0] == pytest.approx(2 * 1 - 3 - 1)
    assert logit[2, 1] == pytest.approx(-1.0) and logit[1, 2] == pytest.approx(-1.0)
    assert np.isneginf(np.diag(logit)).all()
    p = model.probabilities(f)
    assert p[0, 1] == pytest.approx(1 / (1 + np.exp(-4))) and np.all(np.diag(p) == 0)


def test_acyclic_decision_drops_the_weakest_edge_of_a_cycle():
    p = np.zeros((4, 4))
    p[0, 1], p[1, 2], p[2, 0] = 0.9, 0.8, 0.7  # a 3-cycle: 2 → 0 closes it
    p[3, 1], p[1, 3] = 0.6, 0.55  # both directions: only the more probable stays
    p[0, 3] = 0.4  # under the threshold
    adj = acyclic_decision(p, 0.5)
    expected = np.zeros((4, 4), np.int8)
    expected[0, 1] = expected[1, 2] = expected[3, 1] = 1
    np.testing.assert_array_equal(adj, expected)


# -- checkpoints ----------------------------------------------------------------------------------------

def test_shipped_checkpoint_loads_checks_and_is_small():
    folder = DEFAULT_CHECKPOINT
    names = sorted(os.listdir(folder))
    assert names == ["config.json", "model.safetensors", "prior.yaml"]
    size = sum(os.path.getsize(os.path.join(folder, n)) for n in names)
    assert size <= 20 * 2**20  # issue 14: ≤ 20 MB shipped
    cfg = json.load(open(os.path.join(folder, "config.json")))
    assert cfg["weights_sha256"] == sha256_file(os.path.join(folder, "model.safetensors"))
    model = load_checkpoint(folder)
    assert 0.0 < model.threshold < 1.0


def test_loaded_tensors_equal_the_saved_file():
    from safetensors.numpy import load_file

    saved = load_file(os.path.join(DEFAULT_CHECKPOINT, "model.safetensors"))
    model = load_checkpoint(DEFAULT_CHECKPOINT)
    assert sorted(saved) == sorted(model.tensors)
    for k, v in saved.items():
        np.testing.assert_array_equal(model.tensors[k], v)


def test_a_modified_or_mismatched_checkpoint_fails_clearly(tmp_path):
    from safetensors.numpy import load_file, save_file

    bad = tmp_path / "ckpt"
    shutil.copytree(DEFAULT_CHECKPOINT, bad)
    tensors = load_file(str(bad / "model.safetensors"))
    tensors["edge.0.bias"] = tensors["edge.0.bias"] + 1
    save_file(tensors, str(bad / "model.safetensors"))
    with pytest.raises(ValueError, match="differs from config.json's weights_sha256"):
        load_checkpoint(str(bad))
    del tensors["head.0.bias"]
    save_file(tensors, str(bad / "model.safetensors"))
    cfg = json.load(open(bad / "config.json"))
    cfg["weights_sha256"] = None
    json.dump(cfg, open(bad / "config.json", "w"))
    with pytest.raises(ValueError, match=r"missing \['head.0.bias'\]"):
        load_checkpoint(str(bad))
    os.remove(bad / "config.json")
    with pytest.raises(FileNotFoundError, match="no config.json"):
        load_checkpoint(str(bad))


def test_shipped_prior_file_is_the_source_prior_and_the_declared_one():
    import yaml

    from arena_family_synthetic.prior import load_prior
    from arena_method_amortized.plugin import DEFAULT_PRIOR

    shipped = load_prior(os.path.join(DEFAULT_CHECKPOINT, "prior.yaml"))
    source = load_prior(PRIOR_FILE)
    assert shipped == source
    cfg = json.load(open(os.path.join(DEFAULT_CHECKPOINT, "config.json")))
    assert cfg["prior_digest"] == source.digest()
    derived = source.pretraining_prior(DEFAULT_PRIOR.source)
    assert derived == DEFAULT_PRIOR
    assert yaml.safe_load(open(PRIOR_FILE))["graph"] == ["er", "sf"]


def test_the_model_is_loaded_once_per_checkpoint():
    a = load_model(None)
    assert load_model(DEFAULT_CHECKPOINT) is a


# -- the method ---------------------------------------------------------------------------------------

def test_fit_is_the_rule_applied_to_the_probabilities():
    ds = make_chain_dataset(d=6, n=500, seed=4, standardise=True)
    m = AmortizedMethod().fit(ds)
    model = load_model(None)
    probs = model.probabilities(F.pair_features(ds.X))
    np.testing.assert_array_equal(m.edge_scores_, probs)
    np.testing.assert_array_equal(m.adjacency_, acyclic_decision(probs, model.threshold))
    m2 = AmortizedMethod(threshold=0.95).fit(ds)
    assert m2.adjacency_.sum() <= m.adjacency_.sum() and m2.threshold_ == 0.95
    with pytest.raises(ValueError, match="threshold must be in"):
        AmortizedMethod(threshold=1.5).fit(ds)


def test_the_intervention_mask_reaches_the_model():
    ds = make_chain_dataset(d=5, n=800, seed=5, n_int=200, standardise=True)
    assert ds.has_interventions
    with_mask = AmortizedMethod().fit(ds).edge_scores_
    blind = Dataset(X=ds.X, columns=ds.columns, metadata=ds.metadata)
    without = AmortizedMethod().fit(blind).edge_scores_
    assert not np.array_equal(with_mask, without)


def test_shipped_checkpoint_ranks_edges_on_public_in_prior_scms():
    """Four public synthetic SCMs of the prior (er / sf, d = 10): edge AUROC well above chance (0.5)."""
    from sklearn.metrics import roc_auc_score

    from arena_family_synthetic.family import generate_spec
    from causalarena.protocol import make_dataset

    aucs = []
    for cid in ("er-d10-000", "er-d10-002", "sf-d10-000", "sf-d10-003"):
        ds = make_dataset(generate_spec(cid), "synthetic", "obs", 0)
        p = AmortizedMethod().fit(ds).edge_scores_
        off = ~np.eye(ds.d, dtype=bool)
        aucs.append(roc_auc_score(ds.true_adjacency[off], p[off]))
    assert np.mean(aucs) >= 0.8, aucs


# -- training: bit for bit ---------------------------------------------------------------------------------

TINY = {"n_train": 12, "n_val": 6, "epochs": 2, "batch": 4, "hidden": 8}


def test_training_twice_gives_identical_bytes(tmp_path):
    pytest.importorskip("torch")
    from arena_method_amortized.train import train

    a, b = tmp_path / "a", tmp_path / "b"
    cfg_a = train(PRIOR_FILE, str(a), TINY, jobs=2, log=lambda *_: None)
    train(PRIOR_FILE, str(b), TINY, jobs=1, log=lambda *_: None)  # one process or two: the same data
    for name in ("model.safetensors", "config.json", "prior.yaml"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert cfg_a["n_train_scms"] == 12 and cfg_a["training"]["epochs"] == 2
    load_checkpoint(str(a))  # a trained folder is a valid checkpoint


def test_train_command_reproduces_from_a_checkpoints_settings(tmp_path):
    pytest.importorskip("torch")
    from arena_method_amortized.train import main

    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["--prior", PRIOR_FILE, "--out", str(a), "--n-train", "10", "--n-val", "4", "--epochs", "1",
                 "--batch", "5", "--hidden", "4", "--seed", "7", "--jobs", "1"]) == 0
    assert main(["--prior", PRIOR_FILE, "--out", str(b), "--from-checkpoint", str(a), "--jobs", "1"]) == 0
    assert (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()
    assert main(["--prior", str(tmp_path / "nope.yaml"), "--out", str(b)]) == 2


def test_a_bad_prior_names_the_file_and_field(tmp_path):
    from arena_family_synthetic.prior import load_prior

    p = tmp_path / "p.yaml"
    p.write_text("graph: [er, hexagon]\nmechanism: [linear]\nnoise: [gaussian]\nroot: [gaussian]\n"
                 "d_range: [10, 20]\nsplits: [obs]\n")
    with pytest.raises(ValueError, match=r"p.yaml: field 'graph': unknown \['hexagon'\]"):
        load_prior(p)
    p.write_text("graph: [er]\nmechanism: [linear]\nnoise: [gaussian]\nroot: [gaussian]\nd_range: [2, 20]\n"
                 "splits: [obs]\n")
    with pytest.raises(ValueError, match="d_range"):
        load_prior(p)


def test_the_checkpoint_from_the_environment_is_a_run_parameter_and_a_bad_one_is_env_error(tmp_path, monkeypatch):
    from arena_family_synthetic.family import generate_spec
    from causalarena.family import SCMInstance
    from causalarena.plugins import get_registry
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    monkeypatch.setenv("CAUSALARENA_AMORTIZED_CHECKPOINT", str(tmp_path / "missing"))
    method = get_registry().methods["amortized"]
    assert method.params["checkpoint"] == str(tmp_path / "missing")  # so the config hash names the checkpoint
    inst = SCMInstance(family="synthetic", scm_id="er-d10-000", spec=generate_spec("er-d10-000"), splits=("obs",),
                       n_replicates=1)
    with Store(str(tmp_path / "r.sqlite")) as st:
        summary = run_grid(make_cells([inst], [method]), None, st, progress=False)
        (row,) = st.rows()
    assert summary.counts == {"env_error": 1}
    assert "no config.json" in row["error"] and "$CAUSALARENA_AMORTIZED_CHECKPOINT" in row["error"]


def test_train_command_errors_name_the_option(tmp_path, capsys):
    from arena_method_amortized.train import main

    afile = tmp_path / "afile"
    afile.write_text("x")
    cases = [
        (["--prior", str(tmp_path), "--out", str(tmp_path / "o")], "--prior"),
        (["--prior", PRIOR_FILE, "--out", str(afile)], "--out"),
        (["--prior", PRIOR_FILE, "--out", str(tmp_path / "o"), "--from-checkpoint", str(tmp_path / "none")],
         "--from-checkpoint"),
        (["--prior", PRIOR_FILE, "--out", str(tmp_path / "o"), "--n-train", "0"], "--n-train must be at least 1"),
    ]
    for argv, needle in cases:
        assert main(argv) == 2, argv
        assert needle in capsys.readouterr().err, argv
    assert not (tmp_path / "o").exists()  # nothing trained, nothing written


@pytest.mark.parametrize("n_int", [0, 400])
def test_a_known_chain_is_recovered_in_the_arenas_orientation(n_int):
    """Case I7: chain 0 → 1 → 2, n = 2000, non-Gaussian noise: exactly the chain, row = parent (obs and obs+int)."""
    ds = make_chain_dataset(d=3, n=2000, seed=1, n_int=n_int, standardise=True)
    m = AmortizedMethod().fit(ds)
    np.testing.assert_array_equal(m.adjacency_, [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert m.edge_scores_[0, 1] > m.edge_scores_[1, 0] and m.edge_scores_[1, 2] > m.edge_scores_[2, 1]
