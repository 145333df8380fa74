"""The machine-independent table fingerprint of the testing kit (array_sketch / assert_sketch_close)."""

from __future__ import annotations

import numpy as np
import pytest

from arena_testkit import array_sketch, assert_sketch_close


def test_sketch_known_answer():
    sk = array_sketch(np.array([[1.0, -2.0], [2.0, 0.0], [3.0, 4.0]]))
    signs = np.where(np.random.default_rng(0).random(3) < 0.5, -1.0, 1.0)
    assert sk["n"] == 3
    assert sk["columns"][0][:2] == [6.0, 14.0]
    assert sk["columns"][1][:2] == [2.0, 20.0]
    assert sk["columns"][0][2] == pytest.approx(float(signs @ [1.0, 2.0, 3.0]), abs=0)
    assert array_sketch([1.0, 2.0, 3.0])["columns"] == [sk["columns"][0]]  # a 1-D array is one column


def test_last_bit_noise_passes_a_real_change_fails():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 5))
    want = array_sketch(X)
    # what another CPU class does: relative noise of ~1e-14 (measured ≤ 6e-14 × the column's std)
    assert_sketch_close(array_sketch(X * (1 + 1e-14 * rng.standard_normal(X.shape))), want)
    changed = X.copy()
    changed[17, 3] += 1e-4
    with pytest.raises(AssertionError, match="t: column 3"):
        assert_sketch_close(array_sketch(changed), want, where="t")
    # two rows swapped: the sums stay, the signed sum does not (when the rows' signs differ)
    signs = np.where(np.random.default_rng(0).random(1000) < 0.5, -1.0, 1.0)
    i, j = 0, int(np.flatnonzero(signs != signs[0])[0])
    swapped = X.copy()
    swapped[[i, j]] = swapped[[j, i]]
    with pytest.raises(AssertionError, match="column 0"):
        assert_sketch_close(array_sketch(swapped), want)


def test_shape_and_nonfinite_positions_are_exact():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(AssertionError, match="shape 5 × 2 != 6 × 2"):
        assert_sketch_close(array_sketch(X[:5]), array_sketch(X))
    Y = X.copy()
    Y[2, 1] = np.nan
    Z = X.copy()
    Z[3, 1] = np.nan
    with pytest.raises(AssertionError, match="non-finite"):
        assert_sketch_close(array_sketch(Y), array_sketch(Z))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        array_sketch(np.zeros((2, 2, 2)))
