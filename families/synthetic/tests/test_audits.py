"""Dataset audits of App. A.2 on tables whose failures are known by construction."""

from __future__ import annotations

import numpy as np

from arena_family_synthetic.audits import audit_table

NAMES = ["A", "B", "C"]


def table(seed=0, n=1000):
    return np.random.default_rng(seed).normal(size=(n, 3))


def test_independent_gaussian_table_passes():
    assert audit_table(table(), NAMES) == []


def test_each_failure_is_named_with_its_variable():
    x = table()
    x[5, 1] = np.nan
    assert audit_table(x, NAMES) == ["non-finite values in ['B']"]
    x = table()
    x[:, 2] = 3.0
    assert audit_table(x, NAMES)[0].startswith("near-constant column C")
    x = table()
    x[:, 0] = 0.0
    x[:5, 0] = 1.0  # binary with 99.5 % zeros
    assert audit_table(x, NAMES) == ["dominant-category A: one value on 99.5% of rows"]
    x = table()
    x[:, 1] = x[:, 0] * 2.0 + 1e-3 * x[:, 1]  # |corr| ≈ 0.99999
    (reason,) = audit_table(x, NAMES)
    assert reason.startswith("near-duplicate A, B (|corr| = 1.0000")


def test_boundary_mass_above_ten_percent_fails_and_below_passes():
    x = table()
    lo = np.quantile(x[:, 0], 0.12)
    clipped = x.copy()
    clipped[:, 0] = np.maximum(x[:, 0], lo)  # 12 % of rows sit at the clipping point
    assert audit_table(clipped, NAMES, {0: [lo]})[0].startswith("boundary-mass A: 12.0% of rows")
    lo = np.quantile(x[:, 0], 0.05)
    clipped[:, 0] = np.maximum(x[:, 0], lo)  # 5 %: allowed
    assert audit_table(clipped, NAMES, {0: [lo]}) == []
