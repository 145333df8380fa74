"""AUROC / AP from one shared ranking, and scoring without redundant work (issue 12 item 16).

The core's ``auroc`` and ``ap`` no longer call scikit-learn; they must give
the same numbers as ``sklearn.metrics.roc_auc_score`` and
``average_precision_score`` to 1e-12 on continuous, tied and degenerate
scores, and ``compute_metrics`` must rank the scores once and not run
networkx's ``is_dag`` for SID on graphs that are DAGs. The speed figure is
``tests/benchmarks/bench_metrics.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from causalarena import metrics as M
from causalarena.plugins import get_registry


def _core_metrics():
    return {k: v for k, v in get_registry().metrics.items() if v.factory.startswith("causalarena.metrics:")}


def _truth_scores(rng, d, p_edge, decimals):
    t = (rng.random((d, d)) < p_edge).astype(np.int8)
    np.fill_diagonal(t, 0)
    s = rng.normal(size=(d, d)) + rng.uniform(0, 2) * t
    if decimals is not None:
        s = np.round(s, decimals)
    return t, s


def _sk(t, s):
    off = ~np.eye(t.shape[0], dtype=bool)
    return roc_auc_score(t[off], s[off]), average_precision_score(t[off], s[off])


@pytest.mark.parametrize("decimals", [None, 2, 1, 0])
def test_auroc_ap_equal_sklearn_random_and_tied(decimals):
    rng = np.random.default_rng(12 + (decimals or 7))
    checked = 0
    for _ in range(150):
        d = int(rng.integers(2, 40))
        t, s = _truth_scores(rng, d, rng.uniform(0.02, 0.9), decimals)
        off = ~np.eye(d, dtype=bool)
        if t[off].all() or not t[off].any():
            assert M.auroc(t, None, s) is None and M.ap(t, None, s) is None
            continue
        want_auc, want_ap = _sk(t, s)
        assert abs(M.auroc(t, None, s) - want_auc) <= 1e-12
        assert abs(M.ap(t, None, s) - want_ap) <= 1e-12
        values, warnings = M.compute_metrics(t, np.triu(t, 1), s, _core_metrics())
        assert [w for w in warnings if "'sid'" not in w] == []  # a random truth may have cycles
        assert abs(values["auroc"] - want_auc) <= 1e-12 and abs(values["ap"] - want_ap) <= 1e-12
        checked += 1
    assert checked > 100


def test_auroc_ap_all_scores_tied_and_integer_scores():
    t = np.zeros((6, 6), dtype=np.int8)
    t[0, 1] = t[2, 3] = t[4, 5] = 1
    for s in (np.ones((6, 6)), np.zeros((6, 6), dtype=np.int64), t * 3, 1 - t, np.arange(36).reshape(6, 6)):
        want_auc, want_ap = _sk(t, s)
        assert abs(M.auroc(t, None, s) - want_auc) <= 1e-12
        assert abs(M.ap(t, None, s) - want_ap) <= 1e-12
    assert M.auroc(t, None, np.ones((6, 6))) == 0.5
    assert M.auroc(t, None, t * 3) == 1.0 and M.ap(t, None, t * 3) == 1.0
    assert M.auroc(t, None, 1 - t) == 0.0


def test_one_class_is_none_and_bad_scores_raise():
    """What sklearn rejects (one class only) stays None; shape and non-finite errors stay named."""
    full = 1 - np.eye(4, dtype=np.int8)
    scores = np.random.default_rng(0).random((4, 4))
    for truth in (np.zeros((4, 4), dtype=np.int8), full):
        assert M.auroc(truth, None, scores) is None and M.ap(truth, None, scores) is None
        values, warnings = M.compute_metrics(truth, np.zeros((4, 4)), scores, _core_metrics())
        assert values["auroc"] is None and values["ap"] is None
        assert [w for w in warnings if "'sid'" not in w] == []  # the full graph is cyclic
    t = np.zeros((4, 4), dtype=np.int8)
    t[0, 1] = 1
    bad = scores.copy()
    bad[2, 3] = np.nan
    with pytest.raises(ValueError, match=r"\[2, 3\]"):
        M.ap(t, None, bad)
    values, warnings = M.compute_metrics(t, t, bad, _core_metrics())
    assert values["auroc"] is None and values["ap"] is None
    assert sum("non-finite entry at [2, 3]" in w for w in warnings) == 2
    values, warnings = M.compute_metrics(t, t, np.zeros((3, 3)), _core_metrics())
    assert values["auroc"] is None and sum("edge_scores has shape" in w for w in warnings) == 2
    assert values["f1"] == 1.0


def test_compute_metrics_ranks_once_and_sid_skips_networkx(monkeypatch):
    """One ranking for AUROC and AP; SID on DAGs never builds a networkx graph."""
    rng = np.random.default_rng(3)
    d = 30
    t = np.triu(rng.random((d, d)) < 0.2, 1).astype(np.int8)
    e = np.triu(rng.random((d, d)) < 0.2, 1).astype(np.int8)
    s = rng.random((d, d))
    calls = {"rank": 0, "is_dag": 0}
    real_ranking = M._ranking

    def counting_ranking(*a):
        calls["rank"] += 1
        return real_ranking(*a)

    def counting_is_dag(g):
        calls["is_dag"] += 1
        return True

    monkeypatch.setattr(M, "_ranking", counting_ranking)
    monkeypatch.setattr(M, "is_dag", counting_is_dag)
    values, warnings = M.compute_metrics(t, e, s, _core_metrics())
    assert warnings == [] and values["sid"] is not None
    assert calls == {"rank": 1, "is_dag": 0}
    want_auc, want_ap = _sk(t, s)
    assert abs(values["auroc"] - want_auc) <= 1e-12 and abs(values["ap"] - want_ap) <= 1e-12


def test_sid_still_names_the_cyclic_graph():
    chain = np.zeros((4, 4), dtype=np.int8)
    chain[0, 1] = chain[1, 2] = chain[2, 3] = 1
    cyc = chain.copy()
    cyc[3, 1] = 1  # 1 -> 2 -> 3 -> 1
    with pytest.raises(ValueError, match="but adjacency has a cycle"):
        M.sid(chain, cyc)
    with pytest.raises(ValueError, match="but true_adjacency has a cycle"):
        M.sid(cyc, chain)
    two = chain.copy()
    two[1, 0] = 1
    with pytest.raises(ValueError, match="adjacency has a cycle"):
        M.sid(chain, two)
