"""Known answers for the backbones: settings as App. E.2.2 states them, and each learns a known function."""

import numpy as np
import pytest

from arena_effect_backbones import BACKBONES, make_classifier, make_regressor


def test_settings_are_the_papers():
    xgb = make_regressor("xgboost").get_params()
    assert (xgb["n_estimators"], xgb["max_depth"], xgb["learning_rate"], xgb["tree_method"]) == (300, 3, 0.05, "hist")
    et = make_regressor("extratrees")
    assert (et.n_estimators, et.max_features, et.min_samples_leaf) == (300, 0.8, 6)
    assert make_regressor("extratrees", final=True).min_samples_leaf == 10
    assert make_classifier("extratrees").min_samples_leaf == 8
    mlp = make_classifier("mlp").steps[-1][1]
    assert (mlp.hidden_layer_sizes, mlp.activation, mlp.learning_rate_init, mlp.alpha, mlp.batch_size) == \
        ((128, 128), "relu", 1e-3, 1e-4, 128)


@pytest.mark.parametrize("backbone", BACKBONES)
def test_each_backbone_learns_a_known_function(backbone):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = 2.0 * X[:, 0] + np.sin(X[:, 1])
    Xt = rng.normal(size=(200, 3))
    pred = make_regressor(backbone, seed=1).fit(X, y).predict(Xt)
    truth = 2.0 * Xt[:, 0] + np.sin(Xt[:, 1])
    assert np.mean((pred - truth) ** 2) < 0.25 * np.var(truth)
    p = 1 / (1 + np.exp(-3 * X[:, 0]))
    t = (rng.uniform(size=600) < p).astype(int)
    prob = make_classifier(backbone, seed=1).fit(X, t).predict_proba(Xt)[:, 1]
    assert np.corrcoef(prob, Xt[:, 0])[0, 1] > 0.8


def test_same_seed_same_fit():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(200, 2)), rng.normal(size=200)
    for b in BACKBONES:
        a = make_regressor(b, seed=3).fit(X, y).predict(X[:5])
        c = make_regressor(b, seed=3).fit(X, y).predict(X[:5])
        np.testing.assert_array_equal(a, c)


def test_unknown_backbone_is_named():
    with pytest.raises(ValueError, match="unknown backbone 'tabpfn'"):
        make_regressor("tabpfn")


def _aux_dataset(column, view="iv", role="instrument"):
    from arena_task_effect.effect import EffectDataset

    n = len(column)
    return EffectDataset(X=np.zeros((n, 1)), T=np.arange(n) % 2, Y=np.zeros(n), X_query=np.zeros((2, 1)),
                         query_ids=np.arange(2), view=view, auxiliary={role: np.asarray(column, dtype=float)})


def test_resolve_seed_prefers_the_argument_then_the_cell_seed():
    from arena_effect_backbones import resolve_seed

    ds = _aux_dataset([0, 1, 0, 1])
    assert resolve_seed(7, ds) == 7
    ds.metadata["seed"] = 2 ** 31 + 5
    assert resolve_seed(None, ds) == 6  # the cell's seed modulo 2**31 - 1
    np.random.seed(3)
    expected = np.random.RandomState(3).randint(0, 2 ** 31 - 1)
    assert resolve_seed(None, None) == expected
    with pytest.raises(ValueError, match="non-negative integer"):
        resolve_seed(-1, ds)
    with pytest.raises(ValueError, match="non-negative integer"):
        resolve_seed(True, ds)


def test_binary_column_recodes_levels_and_names_the_field():
    from arena_effect_backbones import binary_column

    std = _aux_dataset([-1.05, 1.05, 1.05, -1.05])
    assert binary_column(std, "instrument").tolist() == [0.0, 1.0, 1.0, 0.0]
    assert binary_column(std, "instrument", recode=False).tolist() == [-1.05, 1.05, 1.05, -1.05]
    const = _aux_dataset([2.0, 2.0, 2.0, 2.0])
    assert binary_column(const, "instrument", allow_constant=True).tolist() == [0.0] * 4
    with pytest.raises(ValueError, match=r"auxiliary\['instrument'\] must be binary with both values present, "
                                         r"found 1 distinct"):
        binary_column(const, "instrument")
    with pytest.raises(ValueError, match=r"found 3 distinct value\(s\) \(first \[0.0, 1.0, 2.0\]\)"):
        binary_column(_aux_dataset([0, 1, 2, 1]), "instrument")
    with pytest.raises(ValueError, match=r"P-learner needs auxiliary\['outcome_proxy'\]; view 'iv' carries"):
        binary_column(std, "outcome_proxy", who="P-learner")
    with pytest.raises(ValueError, match="non-finite"):
        binary_column(_aux_dataset([0, 1, np.nan, 1]), "instrument")
