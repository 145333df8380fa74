"""The core's default intervention protocol and the audit (CausalArena paper, App. A.1 "Interventions", App. A.2).

The App. A.2 protocol suite is tested with arena-family-synthetic (families/synthetic/tests/test_protocols.py).
"""

import numpy as np
import pytest

from causalarena import interventions as iv
from causalarena.interventions import effective_target_pool, intervention_audit
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

# A -> B -> C -> D -> E, linear mechanisms without output calibration, so
# node = w * parent + b + eps exactly.
WEIGHTS = {"B": 2.0, "C": -1.0, "D": 0.5, "E": 1.5}
BIASES = {"B": 0.5, "C": 0.3, "D": 1.0, "E": -0.4}
NAMES = ["A", "B", "C", "D", "E"]


def chain_spec(stressors=(), intervenable=None, sid="chain5"):
    intervenable = intervenable or {}
    nodes = [NodeSpec(name="A", role="root", intervenable=intervenable.get("A", True),
                      root_distribution=ComponentSpec(kind="gaussian", params={"loc": 0.0, "scale": 1.0}))]
    for parent, name in zip(NAMES, NAMES[1:]):
        nodes.append(NodeSpec(name=name, role="mechanism", parents=(parent,),
                              intervenable=intervenable.get(name, True),
                              mechanism=ComponentSpec(kind="linear",
                                                      params={"weights": [WEIGHTS[name]], "bias": BIASES[name]}),
                              noise=ComponentSpec(kind="gaussian", params={"scale": 0.5})))
    return SCMSpec(id=sid, nodes=nodes, stressors=list(stressors))


SCM = chain_spec().compile()
ALL = np.arange(5)
FUNCS = {
    "default": (iv.hard_resampling, 800, 200),
}


def run(name, seed=0, pool=ALL, scm=SCM):
    f, n_obs, n_int = FUNCS[name]
    x, mask, regime, exo = f(scm, n_obs, n_int, np.random.default_rng(seed), pool, return_exogenous=True)
    return x, mask, regime, exo, n_obs, n_int


def baseline_percentiles(scm, exo, n_obs, q):
    return np.percentile(scm.propagate(exo[:n_obs]), q, axis=0)


def test_default_protocol_registered_with_its_row_budget():
    from causalarena.plugins import get_registry

    info = get_registry().intervention("default")
    assert (info.n_obs, info.n_int) == (800, 200)
    assert info.load() is iv.hard_resampling


def test_unknown_protocol_names_installed_ones_and_the_suite_distribution():
    from causalarena.protocol import make_dataset

    with pytest.raises(ValueError, match=r"unknown intervention protocol 'nope'; installed: \[.*'default'.*\] "
                                         r"\(the App. A.2 protocol suite .* ships with arena-family-synthetic\)"):
        make_dataset(chain_spec(), "fam", "obs_int", 0, protocol="nope")


@pytest.mark.parametrize("name", ["default"])
def test_rows_mask_regime_and_audit(name):
    x, mask, regime, exo, n_obs, n_int = run(name)
    assert x.shape == (1000, 5) and mask.shape == (1000, 5) and mask.dtype == bool and regime.shape == (1000,)
    assert not mask[:n_obs].any() and (regime[:n_obs] == -1).all()
    assert (mask[n_obs:].sum(axis=1) >= 1).all()
    # regime = lowest-index target of the row
    assert (regime[n_obs:] == np.array([np.flatnonzero(r)[0] for r in mask[n_obs:]])).all()
    pool = effective_target_pool(name, SCM, ALL)
    assert pool.tolist() == ALL.tolist()
    assert set(np.flatnonzero(mask.any(axis=0))) == set(pool.tolist())
    # observational rows are the unintervened propagation of the same draw
    assert np.array_equal(x[:n_obs], SCM.propagate(exo)[:n_obs])
    assert intervention_audit(SCM, x, mask, regime, exo, pool) == []
    # same generator -> same table
    again = run(name)
    assert all(np.array_equal(a, b) for a, b in zip((x, mask, regime), again[:3]))


@pytest.mark.parametrize("name", ["default"])
def test_single_target_protocols_are_balanced(name):
    _, mask, _, _, n_obs, n_int = run(name)
    assert (mask[n_obs:].sum(axis=1) == 1).all()
    counts = mask[n_obs:].sum(axis=0)
    counts = counts[counts > 0]
    assert counts.sum() == n_int and counts.max() - counts.min() <= 1


def test_default_protocol_generator_calls():
    """Exogenous draw, balanced assignment, U[q10, q90]: the order datasets made before the other protocols used."""
    x, mask, regime = iv.hard_resampling(SCM, 8, 4, np.random.default_rng(3), np.array([1, 3]))
    assert mask[8:].sum() == 4 and (np.bincount(regime[8:], minlength=5)[[1, 3]] == 2).all()
    rng = np.random.default_rng(3)
    exo = SCM.draw_exogenous(12, rng)
    q10, q90 = np.percentile(SCM.propagate(exo[:8])[:, [1, 3]], [10, 90], axis=0)
    targets = iv.balanced_assignment(np.array([1, 3]), 4, rng)
    lo = np.where(targets == 1, q10[0], q10[1])
    hi = np.where(targets == 1, q90[0], q90[1])
    assert np.array_equal(x[8 + np.arange(4), targets], rng.uniform(lo, hi))


def test_descendants_of_a_hard_target_are_recomputed():
    """(the multi-target half of this test moved with the protocol to arena-family-synthetic)"""
    # single-target table, rows whose target is C: A, B untouched, D, E recomputed and changed
    x, mask, regime, exo, n_obs, _ = run("default", seed=4)
    x0 = SCM.propagate(exo)
    only_c = np.flatnonzero(mask[:, 2])
    assert only_c.size == 40
    assert np.array_equal(x[np.ix_(only_c, [0, 1])], x0[np.ix_(only_c, [0, 1])])
    assert (x[only_c, 3] != x0[only_c, 3]).all() and (x[only_c, 4] != x0[only_c, 4]).all()


def test_bad_pools_and_budgets():
    with pytest.raises(ValueError, match="target_pool is empty"):
        iv.hard_resampling(SCM, 10, 5, np.random.default_rng(0), [])
    with pytest.raises(ValueError, match=r"distinct node indices in \[0, 5\)"):
        iv.hard_resampling(SCM, 10, 5, np.random.default_rng(0), [1, 7])
    with pytest.raises(ValueError, match="at least one observational row"):
        iv.hard_resampling(SCM, 0, 5, np.random.default_rng(0), [1])


def test_audit_catches_corrupted_tables():
    x, mask, regime, exo, n_obs, _ = run("default", seed=3, pool=np.array([1, 3]))
    pool = np.array([1, 3])
    assert intervention_audit(SCM, x, mask, regime, exo, pool) == []
    x0 = SCM.propagate(exo)

    # a mask entry outside the pool
    m = mask.copy()
    m[0, 4] = True
    r = iv.regime_from_mask(m)
    problems = intervention_audit(SCM, x, m, r, exo, pool)
    assert any("mask marks E outside the target pool (B, D)" in p for p in problems)

    # a pool target never hit
    problems = intervention_audit(SCM, x, mask, regime, exo, np.array([1, 2, 3]))
    assert problems == ["pool target(s) C never intervened on (need at least one row)"]

    # regime disagreeing with the mask
    r = regime.copy()
    r[n_obs] = 0
    assert any("regime disagrees with the mask on 1 row(s)" in p for p in intervention_audit(SCM, x, mask, r, exo,
                                                                                           pool))

    # descendants not recomputed: intervened rows keep the observational C, D, E
    stale = x.copy()
    rows_b = mask[:, 1]
    stale[np.ix_(rows_b, [2, 3, 4])] = x0[np.ix_(rows_b, [2, 3, 4])]
    problems = intervention_audit(SCM, stale, mask, regime, exo, pool)
    assert any(p.startswith("not regenerated from their parents: C (") for p in problems)

    # a non-descendant changed on an intervened row
    leak = x.copy()
    row = np.flatnonzero(mask[:, 3])[0]
    leak[row, 0] += 1.0
    problems = intervention_audit(SCM, leak, mask, regime, exo, pool)
    assert any("A changed on 1 row(s) where they are neither a target nor a descendant" in p for p in problems)

    # a target whose values never change (mask set on untouched observational rows)
    m = mask.copy()
    m[:5, 2] = True
    problems = intervention_audit(SCM, x, m, iv.regime_from_mask(m), exo, np.array([1, 2, 3]))
    assert any("target(s) C keep their observational values" in p for p in problems)

    # a non-intervenable column in the mask
    locked = chain_spec(intervenable={"B": False}).compile()
    assert any("non-intervenable B" in p for p in intervention_audit(locked, x, mask, regime, exo, pool))

    # wrong shapes
    assert intervention_audit(SCM, x, mask, regime, exo[:, :2], pool)[0].startswith("shape mismatch")


def test_make_dataset_runs_the_default_protocol():
    from causalarena.protocol import make_dataset

    spec = chain_spec()
    for name in FUNCS:
        ds = make_dataset(spec, "fam", "obs_int", 0, protocol=name, standardise=False)
        n_obs, n_int = FUNCS[name][1:]
        assert ds.X.shape == (n_obs + n_int, 5)
        assert not ds.intervention_mask[:n_obs].any() and ds.intervention_mask[n_obs:].any(axis=1).all()
