"""AVICI wrapper: descriptor and prior everywhere; known answers on a small checkpoint where avici imports.

The avici tests run where ``import avici`` works (the plugin's lean sandbox, or
a scratch venv built the same way) and are skipped elsewhere with the reason.
The checkpoint is made here (:func:`arena_method_avici.checkpoint.save_tiny_checkpoint`:
a 2-layer, dim-16 AVICI model's initial parameters saved by avici's own
CheckpointingUpdater), since the released scm-v0 lives on a hub this machine
cannot reach.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from causalarena.data import Dataset
from causalarena.method import MethodEnvironmentError

try:
    from arena_method_avici.method import _import_avici

    _import_avici()
    HAVE_AVICI, WHY = True, ""
except MethodEnvironmentError as exc:
    HAVE_AVICI, WHY = False, str(exc)
needs_avici = pytest.mark.skipif(not HAVE_AVICI, reason=f"avici not importable: {WHY}")


# -- everywhere -----------------------------------------------------------------------------------
def test_descriptor_declares_interventions_threshold_and_the_scm_v0_prior():
    from arena_method_avici.plugin import arena_methods

    (info,) = list(arena_methods())
    assert (info.name, info.supports_interventions, info.output_kind) == ("avici", True, "dag")
    assert info.params["threshold"] == 0.5 and info.params["checkpoint"] == ""
    p = info.prior
    # the paper's Fig. 14 counts for AVICI: graph 4/10, mechanism 2/16, noise 4/15, root 1/14
    assert {k: len(v) for k, v in p.axes.items()} == {"graph": 4, "mechanism": 2, "noise": 4, "root": 1}
    assert p.axes["graph"] == ("er", "local_module", "sf", "small_world")
    assert p.axes["noise"] == ("gaussian", "laplace", "rff_heteroskedastic", "student_t")
    assert (p.d_range, p.n_range) == ((2, 100), (600, 800))


def test_prior_mapping_on_a_small_config_by_hand():
    from arena_method_avici.prior import prior_from_config

    cfg = {"train_n_vars": [5, 20], "data": [{
        "n_observations_obs": 100, "n_observations_int": 50,
        "graph": [{"__class__": "ErdosRenyi"}, {"__class__": "GRG"}],
        "mechanism": [{"__class__": "RFFAdditive", "noise": [{"__class__": "Cauchy"}],
                       "noise_scale_heteroscedastic": [{"rff": None}]},
                      {"__class__": "GeneMech", "noise": [{"__class__": "Gaussian"}]}]}]}
    prior, unmapped = prior_from_config(cfg, source="hand")
    assert prior.axes == {"graph": ("er",), "mechanism": ("rff",),
                          "noise": ("gaussian", "rff_heteroskedastic", "student_t"), "root": ("gaussian",)}
    assert (prior.d_range, prior.n_range) == ((5, 20), (100, 150))
    assert unmapped == {"graph": ["GRG"], "mechanism": ["GeneMech"]}
    with pytest.raises(ValueError, match="no 'data' list"):
        prior_from_config({})


def test_download_and_missing_checkpoint_are_env_errors_naming_the_checkpoint_option(monkeypatch):
    from arena_method_avici.method import AVICI

    with pytest.raises(MethodEnvironmentError) as err:
        AVICI(download="scm-v0")
    text = str(err.value)
    assert "larslorch/avici" in text and "scm-v0/" in text and "checkpoint_0300000.pkl" in text
    assert text.endswith("pass checkpoint=PATH_TO_THAT_FOLDER")
    monkeypatch.delenv("CAUSALARENA_AVICI_CHECKPOINT", raising=False)
    with pytest.raises(MethodEnvironmentError, match=r"^avici needs checkpoint=PATH or \$CAUSALARENA_AVICI_CHECKPOINT"):
        AVICI()
    monkeypatch.setenv("CAUSALARENA_AVICI_CHECKPOINT", "/data/avici/scm-v0")
    assert AVICI().get_params()["checkpoint"] == "/data/avici/scm-v0"  # the env default, recorded
    with pytest.raises(ValueError, match="not both"):
        AVICI(checkpoint="x", download="scm-v0")


def test_padded_size_and_layout_check(tmp_path):
    from arena_method_avici.checkpoint import check_layout
    from arena_method_avici.method import padded_size

    sizes = (10, 20, 30, 50, 100)
    assert [padded_size(d, sizes) for d in (3, 10, 11, 30, 99, 101)] == [10, 10, 20, 30, 100, 101]
    assert padded_size(7, []) == 7
    ck = tmp_path / "root" / "m"
    ck.mkdir(parents=True)
    (ck / "kwargs.json").write_text("{}")
    (ck / "checkpoint_0000000.pkl").write_bytes(b"")
    assert check_layout(str(ck)) == [f"{tmp_path / 'root' / 'kwargs.json'} (asserted by avici.load_pretrained: "
                                     "kwargs.json in the PARENT too)"]
    assert check_layout(str(tmp_path / "nope")) == [f"{tmp_path / 'nope'} is not a folder"]


def test_acyclic_threshold_keeps_the_more_probable_direction_and_breaks_cycles():
    from arena_method_avici.method import acyclic_threshold

    p = np.array([[0.0, 0.9, 0.2, 0.0],
                  [0.6, 0.0, 0.8, 0.0],   # 1 → 0 loses to 0 → 1 (0.9)
                  [0.7, 0.1, 0.0, 0.55],  # 2 → 0 would close 0 → 1 → 2 → 0
                  [0.0, 0.0, 0.0, 0.0]])
    adj, dropped = acyclic_threshold(p, 0.5)
    want = np.zeros((4, 4))
    want[0, 1] = want[1, 2] = want[2, 3] = 1.0
    np.testing.assert_array_equal(adj, want)
    assert dropped == 2


def test_the_declared_prior_is_what_the_shipped_scm_v0_yaml_maps_to():
    spec = importlib.util.find_spec("avici")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("avici is not installed here (its config/train/scm-v0.yaml ships with it)")
    import yaml

    from arena_method_avici.prior import SCM_V0_PRIOR, prior_from_config

    path = Path(list(spec.submodule_search_locations)[0]) / "config" / "train" / "scm-v0.yaml"
    prior, unmapped = prior_from_config(yaml.safe_load(path.read_text()))
    assert prior == SCM_V0_PRIOR
    assert unmapped == {"graph": ["GRG"]}


# -- with avici: known answers on a small checkpoint -------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from arena_method_avici.checkpoint import save_tiny_checkpoint

    root = tmp_path_factory.mktemp("ckpt")
    return save_tiny_checkpoint(str(root), "tiny", seed=0)


def _data(n=40, d=5, seed=1, interventions=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 1] += 2.0 * X[:, 0]
    X[:, 2] += X[:, 1] - X[:, 3]
    mask = np.zeros((n, d), dtype=bool)
    if interventions:
        mask[n // 2:, 1] = True
        X[n // 2:, 1] = 3.0
    return Dataset(X=X, columns=[f"x{j}" for j in range(d)], intervention_mask=mask)


@needs_avici
def test_loaded_checkpoint_equals_the_saved_one(tiny):
    import pickle

    import jax

    from arena_method_avici.method import load_model

    with open(tiny / "checkpoint_0000000.pkl", "rb") as fh:
        saved = pickle.load(fh).params
    model = load_model(str(tiny))
    a, b = jax.tree_util.tree_flatten_with_path(saved)[0], jax.tree_util.tree_flatten_with_path(model.params)[0]
    assert [k for k, _ in a] == [k for k, _ in b] and len(a) > 10
    for (_, x), (_, y) in zip(a, b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert load_model(str(tiny)) is model  # once per worker


@needs_avici
def test_probabilities_equal_the_package_call_and_the_threshold_rule(tiny):
    import avici

    from arena_method_avici.method import AVICI

    ds = _data()
    m = AVICI(checkpoint=str(tiny), pad_sizes=[]).fit(ds)
    ref = avici.load_pretrained(checkpoint_dir=str(tiny), expects_counts=False, verbose=False)
    want = np.asarray(ref(ds.X.copy(), interv=ds.intervention_mask.astype(float)))
    np.testing.assert_allclose(m.edge_scores_, want, rtol=1e-6, atol=1e-7)
    assert m.edge_scores_.shape == (5, 5) and np.all(np.diag(m.edge_scores_) == 0.0)
    raw = AVICI(checkpoint=str(tiny), pad_sizes=[], acyclic=False).fit(ds)
    np.testing.assert_array_equal(raw.adjacency_, (want > 0.5).astype(float))
    # the package's own thresholded call gives the same graph
    np.testing.assert_array_equal(raw.adjacency_, np.asarray(ref(ds.X.copy(), return_probs=False)))
    assert 0 < raw.adjacency_.sum() < 20  # the tiny model's probabilities sit on both sides of 0.5
    # the default keeps a subset of those edges that is acyclic
    assert np.all(m.adjacency_ <= raw.adjacency_)
    np.testing.assert_array_equal(m.native_, raw.adjacency_)  # native = the raw thresholded graph
    assert m.adjacency_.sum() < raw.adjacency_.sum()  # this input has cycles above 0.5: some were dropped
    m2 = AVICI(checkpoint=str(tiny), threshold=0.9, pad_sizes=[], acyclic=False).fit(ds)
    np.testing.assert_array_equal(m2.adjacency_, (want > 0.9).astype(float))


@needs_avici
def test_the_intervention_channel_reaches_the_model(tiny):
    from arena_method_avici.method import AVICI

    obs = _data(interventions=True)
    no_mask = Dataset(X=obs.X, columns=obs.columns)
    a = AVICI(checkpoint=str(tiny), pad_sizes=[]).fit(obs).edge_scores_
    b = AVICI(checkpoint=str(tiny), pad_sizes=[]).fit(no_mask).edge_scores_
    assert np.abs(a - b).max() > 1e-3


@needs_avici
def test_padding_keeps_d_and_uses_the_padded_shape(tiny):
    from arena_method_avici.method import AVICI

    ds = _data(d=5)
    m = AVICI(checkpoint=str(tiny), pad_sizes=[8]).fit(ds)
    assert m.edge_scores_.shape == (5, 5) and m.adjacency_.shape == (5, 5)
    assert np.all((m.edge_scores_ >= 0) & (m.edge_scores_ <= 1))


@needs_avici
def test_incomplete_checkpoint_is_an_env_error(tmp_path, tiny):
    import shutil

    from arena_method_avici.method import load_model

    copy = tmp_path / "alone"
    shutil.copytree(tiny, copy / "m")  # no kwargs.json in the parent
    with pytest.raises(MethodEnvironmentError, match=r"kwargs.json in the PARENT too"):
        load_model(str(copy / "m"))
