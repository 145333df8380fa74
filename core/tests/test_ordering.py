"""causalarena.ordering.order_by_score: the tie rule of the ordering baselines (issue 12, item 10).

Known answers: ties within ``TIE_RTOL · max |score|`` keep the column order, scores beyond it
sort; the rule does not depend on the column order; bad input is named.
"""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.ordering import TIE_RTOL, order_by_score


def test_floating_point_noise_is_a_tie_in_column_order():
    # variances of z-scored columns: 1 ± a few ulp
    v = 1.0 + np.array([2.2e-16, -1.4e-15, 0.0, 1.6e-15, -3.3e-16])
    assert np.argsort(v, kind="stable").tolist() != [0, 1, 2, 3, 4]  # the noise alone would reorder
    assert order_by_score(v).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("seed", range(20))
def test_noise_never_reorders_whatever_the_column_order(seed):
    rng = np.random.default_rng(seed)
    base = np.repeat([0.5, 1.0, 3.0], 4)           # three tie groups of four columns
    perm = rng.permutation(base.size)
    v = base[perm] * (1 + rng.uniform(-1e-12, 1e-12, base.size))
    order = order_by_score(v)
    # groups in increasing score, and inside a group the columns in increasing index
    expect = [int(j) for g in (0.5, 1.0, 3.0) for j in np.flatnonzero(base[perm] == g)]
    assert order.tolist() == expect


def test_distinct_scores_sort_like_argsort():
    v = np.array([3.0, 1.0, 2.0, 1.0 + 1e-6, 0.2])
    assert order_by_score(v).tolist() == np.argsort(v, kind="stable").tolist() == [4, 1, 3, 2, 0]


def test_tolerance_is_relative_to_the_largest_score():
    tol = TIE_RTOL * 1e3                          # max |score| = 1e3
    v = np.array([1e3, 5.0 + 0.9 * tol, 5.0])
    assert order_by_score(v).tolist() == [1, 2, 0]   # 5 and 5 + 0.9·tol: a tie, column order
    v = np.array([1e3, 5.0 + 2 * tol, 5.0])
    assert order_by_score(v).tolist() == [2, 1, 0]   # beyond the tolerance: sorted
    # the same gap under a smaller maximum is no longer a tie
    assert order_by_score([1.0, 5.0 + 0.9 * tol, 5.0]).tolist() == [0, 2, 1]


def test_ties_chain_single_linkage():
    # 1, 1 + 0.8 tol, 1 + 1.6 tol: neighbours within tol, so one group (documented), column order
    tol = TIE_RTOL * 2.0
    assert order_by_score([1 + 1.6 * tol, 1 + 0.8 * tol, 1.0, 2.0]).tolist() == [0, 1, 2, 3]


def test_rtol_zero_is_stable_argsort_and_all_zero_is_one_group():
    v = 1.0 + np.array([1e-15, 0.0, -1e-15])
    assert order_by_score(v, rtol=0.0).tolist() == np.argsort(v, kind="stable").tolist() == [2, 1, 0]
    assert order_by_score(np.zeros(4)).tolist() == [0, 1, 2, 3]
    assert order_by_score([]).tolist() == []
    assert order_by_score([7.0]).dtype == np.int64


@pytest.mark.parametrize("scores, rtol, pattern", [
    ([1.0, np.nan, 2.0, np.inf], TIE_RTOL, r"non-finite at positions \[1, 3\]"),
    ([[1.0, 2.0]], TIE_RTOL, r"one-dimensional \(d,\), got shape \(1, 2\)"),
    ([1.0, 2.0], -1e-9, r"rtol must be a finite number >= 0, got -1e-09"),
])
def test_bad_input_is_named(scores, rtol, pattern):
    with pytest.raises(ValueError, match=pattern):
        order_by_score(scores, rtol)
