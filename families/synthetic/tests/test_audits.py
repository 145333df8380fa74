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


def test_ranks_from_the_audit_sort_equal_scipy_average_ranks():
    """The near-duplicate check ranks from its one argsort (issue 12 item 14): same values as scipy's average ranks.

    Continuous columns, ties (rounded, discrete, constant), signed zeros and a
    tiny table; the ranks must be equal bit for bit, so the gate's decisions
    and reported |corr| are those of ``rankdata`` on every table.
    """
    from arena_family_synthetic.audits import _ranks, _ranks_from_order

    rng = np.random.default_rng(3)
    for n, d in ((1000, 12), (7, 3), (1, 2)):
        x = rng.standard_normal((n, d))
        if d > 3:
            x[:, 1] = np.round(x[:, 1])
            x[:, 2] = 0.0
            x[:, 3] = rng.integers(0, 3, n)
            x[: n // 2, 4] = -0.0
            x[n // 2:, 4] = 0.0
            x[:, 5] = np.exp(x[:, 0])
        order = np.argsort(x, axis=0)
        xs = np.take_along_axis(x, order, axis=0)
        levels = np.vstack([np.ones((1, d), dtype=bool), xs[1:] != xs[:-1]]).sum(axis=0)
        assert np.array_equal(_ranks_from_order(x, order, levels), _ranks(x))


def test_audit_table_reasons_unchanged_on_near_duplicates_and_ties():
    """A near-copy (monotone), a tied discrete pair and clean columns give the same reasons as rank correlation says."""
    from arena_family_synthetic.audits import _ranks

    rng = np.random.default_rng(5)
    x = rng.standard_normal((1000, 6))
    x[:, 1] = np.exp(x[:, 0]) + 1e-6 * rng.standard_normal(1000)
    x[:, 2] = rng.integers(0, 4, 1000)
    x[:, 3] = x[:, 2] + (rng.random(1000) < 0.001)
    names = [f"X{i}" for i in range(6)]
    corr = np.corrcoef(_ranks(x), rowvar=False)
    expected = [f"near-duplicate {names[a]}, {names[b]} (|corr| = {abs(corr[a, b]):.4f})"
                for a, b in np.argwhere(np.triu(np.abs(corr) > 0.99, 1))]
    assert expected and audit_table(x, names) == expected
