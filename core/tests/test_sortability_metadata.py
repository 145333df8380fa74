"""causalarena.protocol.raw_sortabilities: both sortabilities as dataset metadata carries them
(issue 12, item 11). Known answers, and ``None`` exactly where a value is undefined."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.protocol import SORTABILITY_KEYS, r2_sortability, raw_sortabilities, varsortability

CHAIN = np.eye(3, k=1, dtype=int)  # 0 -> 1 -> 2


def chain_table(n=500, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, n)
    x1 = x0 + rng.uniform(-1, 1, n)
    x2 = x1 + rng.uniform(-1, 1, n)
    return np.column_stack([x0, x1, x2])


def test_both_values_are_the_definitions():
    x = chain_table()
    out = raw_sortabilities(x, CHAIN)
    assert tuple(out) == SORTABILITY_KEYS
    assert out == {"varsortability": varsortability(x, CHAIN), "r2_sortability": r2_sortability(x, CHAIN)}
    assert out["varsortability"] == 1.0            # variances 1/3, 2/3, 1 increase along the chain
    assert raw_sortabilities(x[:, ::-1], CHAIN)["varsortability"] == 0.0


def test_make_dataset_metadata_uses_it():
    from family_toys import chain_spec

    from causalarena.protocol import make_dataset

    spec = chain_spec("t/chain", 1.0)
    for split in ("obs", "obs_int"):
        std = make_dataset(spec, "t", split, 0)
        raw = make_dataset(spec, "t", split, 0, standardise=False)
        ref = raw_sortabilities(raw.X, spec.adjacency())
        assert {k: std.metadata[k] for k in SORTABILITY_KEYS} == ref
        assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in ref.values())


def test_nan_rows_left_out_of_r2_only():
    x = chain_table()
    holes = x.copy()
    holes[[2, 7, 9], [0, 1, 2]] = np.nan
    out = raw_sortabilities(holes, CHAIN)
    complete = holes[~np.isnan(holes).any(axis=1)]
    assert out["r2_sortability"] == r2_sortability(complete, CHAIN)
    assert out["varsortability"] == varsortability(holes, CHAIN)  # NaN-ignoring variances
    assert out["varsortability"] is not None and out["r2_sortability"] is not None


@pytest.mark.parametrize("case, expect", [
    ("no_edges", {"varsortability": None, "r2_sortability": None}),
    ("overflow", {"varsortability": None, "r2_sortability": None}),
    ("underflow", {"varsortability": None, "r2_sortability": None}),
    ("n_le_d", {"r2_sortability": None}),
    ("all_nan_column", {"varsortability": None, "r2_sortability": None}),
])
def test_undefined_is_none(case, expect):
    x, A = chain_table(), CHAIN
    if case == "no_edges":
        A = np.zeros((3, 3), dtype=int)
    elif case == "overflow":
        x = x.copy()
        x[0, 1] = 1e308               # squared deviations overflow: variance inf
    elif case == "underflow":
        x = x.copy()
        x[:, 2] *= 1e-170             # not constant, but its variance underflows to 0
    elif case == "n_le_d":
        x = x[:3]                     # 3 rows, d = 3: each regression interpolates, every R² is 1
    elif case == "all_nan_column":
        x = x.copy()
        x[:, 0] = np.nan
    out = raw_sortabilities(x, A)
    for key, value in expect.items():
        assert out[key] is value
    if case == "n_le_d":
        assert out["varsortability"] is not None


def test_constant_column_is_defined():
    x = chain_table()
    x[:, 0] = 1.0                     # constant (variance 0): defined, the pairs with it simply count
    out = raw_sortabilities(x, CHAIN)
    assert all(v is not None and 0.0 <= v <= 1.0 for v in out.values())
