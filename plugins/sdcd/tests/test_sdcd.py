"""Tests of arena-method-sdcd (run with the distribution installed, in its own old-stack environment)."""

import random

import numpy as np
import pytest

from arena_testkit import make_chain_dataset, parametrize_method_checks
from causalarena.data import Dataset

# Short training keeps the conformance kit (about ten fits) fast; the defaults
# (2000 + 2000 epochs, App. B.4) are what the arena runs.
SHORT = {"n_epochs_stage1": 20, "n_epochs_stage2": 20}


@parametrize_method_checks("sdcd", **SHORT)
def test_conformance(check):
    check()


def test_labels_and_sdcd_training_set_from_a_known_mask():
    from sdcd.utils import create_intervention_dataset

    from arena_method_sdcd.method import intervention_frame, perturbation_labels

    X = np.arange(15, dtype=float).reshape(5, 3)
    mask = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1], [0, 0, 0], [0, 0, 1]], dtype=bool)
    cols = ["a", "b", "c"]
    # one target: its name; several: names joined by "," (sdcd splits on it); none: "obs"
    assert perturbation_labels(mask, cols) == ["obs", "a", "b,c", "obs", "c"]
    frame = intervention_frame(X, mask, cols)
    assert list(frame.columns) == ["a", "b", "c", "perturbation_label"]
    assert frame[cols].to_numpy().tolist() == X.tolist()
    # through the package's own parser: its regime mask is 1 where the variable is NOT intervened,
    # i.e. exactly 1 - intervention_mask, multi-target row included; the third tensor counts targets
    Xt, keep, n_targets = create_intervention_dataset(frame).tensors
    assert Xt.numpy().tolist() == X.tolist()
    assert keep.numpy().tolist() == (1 - mask.astype(int)).tolist()
    assert n_targets.numpy().tolist() == [0, 1, 2, 0, 1]
    with pytest.raises(ValueError, match="shape"):
        perturbation_labels(mask[:, :2], cols)


def test_unsafe_column_names_fall_back_to_positions():
    from arena_method_sdcd.method import perturbation_labels, sdcd_column_names

    assert sdcd_column_names(["X0", "X1"]) == ["X0", "X1"]
    for bad in (["x,y", "z"], ["obs", "z"], ["z", "z"], ["", "z"], ["perturbation_label", "z"]):
        assert sdcd_column_names(bad) == ["0", "1"]
    assert perturbation_labels(np.array([[True, True], [False, False]]), ["0", "1"]) == ["0,1", "obs"]


def _linear_pair(seed, n=900, with_mask=True):
    """X0 → X1 linear Gaussian, x1 = 0.8·x0 + 0.6·e, both of variance 1 (no variance sorting cue).

    Rows [n/3, 2n/3) do(X0 := N(0, 1)) (X1 still follows), rows [2n/3, n) do(X1 := N(0, 1)) (X1 cut
    from X0). Observationally the two directions are Markov equivalent with the same Gaussian
    likelihood, so only the interventions identify 0 → 1: under do(X1) the dependence disappears,
    under do(X0) it stays (Hauser & Bühlmann 2012; for SDCD's masked likelihood, the reverse model
    X0 | X1 would have to explain X0 on the do(X1) rows, where X0 ⟂ X1). ``with_mask=False`` drops
    the mask (the same numbers, all rows labelled observational).
    """
    rng = np.random.default_rng(seed)
    a, b = n // 3, 2 * n // 3
    mask = np.zeros((n, 2), dtype=bool)
    mask[a:b, 0] = True
    mask[b:, 1] = True
    x0 = rng.normal(size=n)
    x0[a:b] = rng.normal(size=b - a)
    x1 = 0.8 * x0 + 0.6 * rng.normal(size=n)
    x1[b:] = rng.normal(size=n - b)
    return Dataset(X=np.c_[x0, x1], columns=["cause", "effect"],
                   intervention_mask=mask if with_mask else None, metadata={"seed": seed})


def test_known_directed_edge_identified_by_interventions():
    # Verified at seeds 0 and 1 (150 + 150 epochs): weight norm 0 → 1 ≈ 1.6, 1 → 0 ≤ 0.001.
    from arena_method_sdcd.method import SDCD

    m = SDCD(n_epochs_stage1=150, n_epochs_stage2=150).fit(_linear_pair(0))
    # row = parent; a transposed reading of SDCD's weight norms would give [[0, 0], [1, 0]] (case I7)
    assert m.adjacency_.tolist() == [[0, 1], [0, 0]]
    assert m.edge_scores_[0, 1] > 1.0 and m.edge_scores_[1, 0] < 0.05
    assert m.native_ is m.edge_scores_
    assert m.prediction().kind == "dag"
    # the same numbers without the mask are a different problem for SDCD (at this seed it even
    # returns the reversed edge 1 → 0): the mask reaches the likelihood
    blind = SDCD(n_epochs_stage1=150, n_epochs_stage2=150).fit(_linear_pair(0, with_mask=False))
    assert not np.allclose(blind.edge_scores_, m.edge_scores_, atol=0.05)


def test_seed_is_the_datasets_and_global_state_is_restored():
    # sdcd's train() reseeds everything with 0; the wrapper makes that seed the dataset's.
    import torch

    from arena_method_sdcd.method import SDCD

    # the conformance reference chain: 20 + 20 epochs already give nonzero weight norms there
    ds0 = make_chain_dataset(d=4, n=500, seed=0, noise="uniform").without_truth()
    ds1 = make_chain_dataset(d=4, n=500, seed=0, noise="uniform").without_truth()
    ds1.metadata["seed"] = 1  # same numbers, another seed
    threads = torch.get_num_threads()
    random.seed(123)
    np.random.seed(123)
    expected = (random.random(), np.random.random())
    random.seed(123)
    np.random.seed(123)
    a = SDCD(**SHORT).fit(ds0)
    assert (random.random(), np.random.random()) == expected  # caller's RNG streams untouched
    assert torch.get_num_threads() == threads
    b = SDCD(**SHORT).fit(ds1)
    c = SDCD(**SHORT, random_state=1).fit(ds0)
    assert a.edge_scores_.max() > 0.05
    assert not np.array_equal(a.edge_scores_, b.edge_scores_)
    assert np.array_equal(b.edge_scores_, c.edge_scores_)  # random_state overrides the dataset's seed
    assert "Finished training" in a.train_log_  # the package's prints are captured, not on stdout


def test_non_finite_input_is_rejected():
    from arena_method_sdcd.method import SDCD

    X = np.ones((10, 2))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"non-finite values in column\(s\) \['b'\]"):
        SDCD(**SHORT).fit(Dataset(X=X, columns=["a", "b"], metadata={"seed": 0}))


def test_descriptor_defaults_match_the_paper():
    from arena_method_sdcd.method import SDCD
    from causalarena.plugins import get_registry

    info = get_registry().method("sdcd")
    assert info.supports_interventions and info.output_kind == "dag"
    assert info.params["threshold"] == 0.1  # App. B.4: model threshold 0.1
    assert info.params["n_epochs_stage1"] == info.params["n_epochs_stage2"] == 2000  # package defaults
    assert info.params == SDCD().get_params()
