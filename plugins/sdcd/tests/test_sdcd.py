"""Tests of arena-method-sdcd (run with the distribution installed, in its own old-stack environment)."""

import numpy as np
import pytest

from causalarena.data import Dataset
from causalarena.testing import parametrize_method_checks

# Short training keeps the conformance kit (about ten fits) to about a minute; the defaults
# (2000 + 2000 epochs, App. B.4) are what the arena runs.
SHORT = {"n_epochs_stage1": 20, "n_epochs_stage2": 20}


@parametrize_method_checks("sdcd", **SHORT)
def test_conformance(check):
    check()


def test_training_tensors_from_a_known_mask():
    from arena_method_sdcd.method import sdcd_training_tensors

    X = np.arange(12, dtype=float).reshape(4, 3)
    mask = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1], [0, 0, 0]], dtype=bool)
    Xf, keep, n_regimes = sdcd_training_tensors(X, mask)
    assert Xf.dtype == np.float32 and Xf.tolist() == X.tolist()
    # SDCD's regime format: 1 = variable observed (in the likelihood), 0 = intervened on in that row
    assert keep.tolist() == [[1, 1, 1], [0, 1, 1], [1, 0, 0], [1, 1, 1]]
    assert n_regimes.tolist() == [0, 1, 2, 0]
    _, keep0, reg0 = sdcd_training_tensors(X, None)
    assert keep0.tolist() == [[1, 1, 1]] * 4 and reg0.tolist() == [0] * 4
    with pytest.raises(ValueError, match=r"variable\(s\) \[0\] are intervened in every row"):
        sdcd_training_tensors(X, np.c_[np.ones(4, bool), np.zeros((4, 2), bool)])
    with pytest.raises(ValueError, match="intervention_mask has shape"):
        sdcd_training_tensors(X, mask[:, :2])


def _two_variable(seed, n=900):
    """0 → 1 with x1 = 2·tanh(2·x0) + 0.3·e; a third of the rows do(X0 := N(0, 4)) (x1 follows), a third
    do(X1 := N(0, 4)) (x1 cut from x0). The interventions identify the direction: under do(X1) the
    dependence disappears, under do(X0) it stays — so the answer is 0 → 1 (row = parent)."""
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    x1 = np.tanh(2 * x0) * 2 + 0.3 * rng.normal(size=n)
    mask = np.zeros((n, 2), bool)
    a, b = n // 3, 2 * n // 3
    mask[a:b, 0] = True
    x0[a:b] = rng.normal(0, 2, b - a)
    x1[a:b] = np.tanh(2 * x0[a:b]) * 2 + 0.3 * rng.normal(size=b - a)
    mask[b:, 1] = True
    x1[b:] = rng.normal(0, 2, n - b)
    X = np.c_[x0, x1]
    X = (X - X.mean(0)) / X.std(0)
    return Dataset(X=X, columns=["cause", "effect"], intervention_mask=mask, metadata={"seed": seed})


def test_known_directed_edge_with_interventions():
    from arena_method_sdcd.method import SDCD

    m = SDCD(n_epochs_stage1=150, n_epochs_stage2=150).fit(_two_variable(0))
    # a transposed reading of SDCD's weight norms (row = child) would give [[0, 0], [1, 0]] (case I7)
    assert m.adjacency_.tolist() == [[0, 1], [0, 0]]
    assert m.edge_scores_[0, 1] > 0.5 > m.edge_scores_[1, 0]
    assert m.native_ is m.edge_scores_


def test_descriptor_defaults_match_the_paper():
    from causalarena.plugins import get_registry

    from arena_method_sdcd.method import SDCD

    info = get_registry().method("sdcd")
    assert info.supports_interventions and info.output_kind == "dag"
    assert info.params["threshold"] == 0.1  # App. B.4: model threshold 0.1
    assert info.params == {k: v for k, v in SDCD().get_params().items()}
