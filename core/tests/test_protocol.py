"""Shared protocol: seeds, splits, interventions (App. A.1, B.1)."""

import subprocess
import sys

import numpy as np
import pytest

from causalarena.interventions import balanced_assignment, pool_size_range
from causalarena.protocol import cell_seed, make_dataset, varsortability
from causalarena.scm import SCMSpec, calibrate_outputs, node_from_components


def random_spec(d=8, seed=0, targets=("X0", "X2", "X5")):
    rng = np.random.default_rng(seed)
    a = np.triu(rng.random((d, d)) < 0.4, 1)
    names = [f"X{i}" for i in range(d)]
    mechs = ["linear", "polynomial", "neural", "saturation"]
    nodes = [node_from_components(names[j], [names[i] for i in np.flatnonzero(a[:, j])], rng,
                                  mechanism=mechs[j % 4], noise=["gaussian", "laplace"][j % 2]) for j in range(d)]
    return calibrate_outputs(SCMSpec(id="proto", nodes=nodes, intervention_targets=targets))


SCRIPT = """
import sys, hashlib
sys.path.insert(0, {path!r})
from test_protocol import random_spec
from causalarena.protocol import make_dataset
ds = make_dataset(random_spec(), "fam", "obs_int", 3)
print(hashlib.sha256(ds.to_npz_bytes()).hexdigest())
"""


def test_two_processes_write_identical_bytes():
    import os
    code = SCRIPT.format(path=os.path.dirname(__file__))
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
           for _ in range(2)]
    assert out[0] == out[1] and len(out[0].strip()) == 64
    here = make_dataset(random_spec(), "fam", "obs_int", 3)
    import hashlib
    assert hashlib.sha256(here.to_npz_bytes()).hexdigest() == out[0].strip()


def test_seed_depends_on_cell_not_method():
    assert cell_seed("f", "s", "obs", 0) == cell_seed("f", "s", "obs", 0)
    assert len({cell_seed("f", "s", sp, r) for sp in ("obs", "obs_int") for r in range(5)}) == 10


def test_split_sizes_and_masks():
    spec = random_spec()
    obs = make_dataset(spec, "fam", "obs", 0)
    assert obs.X.shape == (1000, 8) and not obs.intervention_mask.any()
    oi = make_dataset(spec, "fam", "obs_int", 0)
    assert oi.X.shape == (1000, 8)
    m = oi.intervention_mask
    assert not m[:800].any()
    assert (m[800:].sum(axis=1) == 1).all()                      # one target per interventional row
    targets = np.flatnonzero(m.any(axis=0))
    assert [spec.names[t] for t in targets] == ["X0", "X2", "X5"]  # mask matches the pool
    counts = m[800:].sum(axis=0)[targets]
    assert counts.max() - counts.min() <= 1                        # balanced assignment
    assert (oi.regime[800:] == m[800:].argmax(axis=1)).all() and (oi.regime[:800] == -1).all()


def test_standardised_by_default_and_raw_option():
    spec = random_spec()
    std = make_dataset(spec, "fam", "obs", 1)
    raw = make_dataset(spec, "fam", "obs", 1, standardise=False)
    assert np.allclose(std.X.mean(0), 0, atol=1e-12) and np.allclose(std.X.std(0), 1)
    assert np.allclose((raw.X - raw.X.mean(0)) / raw.X.std(0), std.X)
    assert std.metadata["varsortability"] == raw.metadata["varsortability"]  # measured on raw data


def test_hard_do_values_within_observational_percentiles_and_descendants_recomputed():
    spec = random_spec()
    scm = spec.compile()
    from causalarena.interventions import hard_resampling
    pool = np.array([0, 2, 5])
    x, mask, regime = hard_resampling(scm, 800, 200, np.random.default_rng(7), pool)
    # same exogenous draw without intervention
    exo = scm.draw_exogenous(1000, np.random.default_rng(7))
    x0 = scm.propagate(exo)
    assert np.array_equal(x[:800], x0[:800])
    for t in pool:
        lo, hi = np.percentile(x0[:800, t], [10, 90])
        rows = np.flatnonzero(mask[:, t])
        assert (x[rows, t] >= lo).all() and (x[rows, t] <= hi).all()
        desc = scm.descendants(t)
        others = np.setdiff1d(np.arange(8), np.append(desc, t))
        # non-descendants are untouched on the intervened rows
        assert np.array_equal(x[np.ix_(rows, others)], x0[np.ix_(rows, others)])
        # every descendant differs from its observational value on those rows, and only there
        for j in desc:
            changed = np.flatnonzero(~np.isclose(x[:, j], x0[:, j]))
            assert set(changed) <= set(np.flatnonzero(mask.any(axis=1)))
            assert set(rows) <= set(changed) | set(np.flatnonzero(mask[:, j]))


def test_pool_size_grows_with_d():
    assert pool_size_range(10) == (2, 4)
    assert pool_size_range(20) == (3, 6)
    assert pool_size_range(100) == (8, 20)


def test_balanced_assignment_counts():
    t = balanced_assignment([1, 4, 9], 200, np.random.default_rng(0))
    assert sorted(np.bincount(t)[[1, 4, 9]].tolist()) == [66, 67, 67]


def test_varsortability_known_answers():
    x = np.column_stack([np.ones(3) * [0, 1, 2], np.array([0, 2, 4]), np.array([0, 3, 6])]).astype(float)
    chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    # variances increase along 0->1->2: all 3 (pair, length) entries sorted
    assert varsortability(x, chain) == 1.0
    assert varsortability(x[:, ::-1], chain) == 0.0
    assert varsortability(x, np.zeros((3, 3))) is None


def test_bad_split_and_replicate():
    with pytest.raises(ValueError, match="unknown split 'int'"):
        make_dataset(random_spec(), "fam", "int", 0)
    with pytest.raises(ValueError, match="replicate 5 out of range"):
        make_dataset(random_spec(), "fam", "obs", 5)


def test_r2_sortability_known_answers_and_scale_invariance():
    from causalarena.protocol import r2_scores, r2_sortability

    rng = np.random.default_rng(0)
    n = 20_000
    x0 = rng.normal(size=n)
    x1 = x0 + 0.5 * rng.normal(size=n)       # R^2 on the others grows along the chain's middle
    x2 = x1 + 0.1 * rng.normal(size=n)
    x = np.column_stack([x0, x1, x2])
    # the last two are near-copies: each explains the other almost fully
    r2 = r2_scores(x)
    assert r2[1] > 0.95 and r2[2] > 0.95 and r2[0] < r2[1]
    chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    scaled = x * np.array([100.0, 0.01, 7.0])   # R^2 is scale-invariant, variance is not
    assert r2_sortability(x, chain) == r2_sortability(scaled, chain)
    assert varsortability(x, chain) != varsortability(scaled, chain)
    # exactly collinear columns do not crash: R^2 = 1 there
    assert r2_scores(np.column_stack([x0, 2 * x0, rng.normal(size=n)]))[:2].tolist() == [1.0, 1.0]


def test_metadata_carries_both_sortabilities():
    ds = make_dataset(random_spec(), "fam", "obs", 0)
    assert 0.0 <= ds.metadata["varsortability"] <= 1.0 and 0.0 <= ds.metadata["r2_sortability"] <= 1.0


def test_an_instance_compiles_its_spec_once_and_its_tables_keep_their_bytes(monkeypatch):
    from causalarena.family import SCMInstance
    from causalarena.scm import SCMSpec

    spec = random_spec()
    fresh = {(split, rep): make_dataset(spec, "fam", split, rep).to_npz_bytes()
             for split in ("obs", "obs_int") for rep in range(2)}
    calls = []
    compile_ = SCMSpec.compile
    monkeypatch.setattr(SCMSpec, "compile", lambda self: calls.append(self.id) or compile_(self))
    inst = SCMInstance(family="fam", scm_id="proto", spec=spec)
    for (split, rep), data in fresh.items():
        assert inst.dataset(split, rep).to_npz_bytes() == data
    assert calls == ["proto"]  # four tables, one compile
    # make_dataset with an already-compiled SCM gives the same bytes as compiling it itself
    scm = compile_(spec)
    assert make_dataset(spec, "fam", "obs_int", 1, scm=scm).to_npz_bytes() == fresh[("obs_int", 1)]
    assert calls == ["proto"]
