"""The shared protocol on the chambers: byte-identical cells, the intervention mask on the actuators,
and interventions that move exactly the target's descendants."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import ks_2samp

from arena_family_chambers.chambers import LT_TARGETS, WT_TARGETS, chamber_spec
from arena_family_chambers.family import ChambersFamily
from causalarena.family import SCMInstance


def _digest(ds) -> str:
    return hashlib.sha256(np.ascontiguousarray(ds.X).tobytes()).hexdigest()[:16]


#: sha256 of the raw X bytes of replicate 0 (numpy 2.4, Linux x86-64): a changed simulator, parameter,
#: root design, noise scale or column order changes them
PINNED = {("light-tunnel", "obs"): "6083f0d1d00b0f64", ("light-tunnel", "obs_int"): "c4120b32a3ae2483",
          ("wind-tunnel", "obs"): "f5fb2f4d07f5c860", ("wind-tunnel", "obs_int"): "1fe228e4976b13b4"}


@pytest.mark.parametrize("scm_id, split", sorted(PINNED))
def test_a_cell_gives_the_pinned_bytes(scm_id, split):
    ds = ChambersFamily().instance(scm_id).dataset(split, 0, standardise=False)
    assert _digest(ds) == PINNED[(scm_id, split)]


def test_the_same_cell_is_byte_identical_in_a_fresh_process():
    code = ("import hashlib, numpy as np\nfrom arena_family_chambers.family import ChambersFamily\n"
            "ds = ChambersFamily().instance('light-tunnel').dataset('obs_int', 2)\n"
            "print(hashlib.sha256(ds.to_npz_bytes()).hexdigest())\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    here = ChambersFamily().instance("light-tunnel").dataset("obs_int", 2)
    assert out.strip().splitlines()[-1] == hashlib.sha256(here.to_npz_bytes()).hexdigest()


@pytest.mark.parametrize("scm_id, targets", [("light-tunnel", LT_TARGETS), ("wind-tunnel", WT_TARGETS)])
def test_obs_int_intervenes_on_the_continuous_actuators_only(scm_id, targets):
    ds = ChambersFamily().instance(scm_id).dataset("obs_int", 0)
    assert ds.X.shape[0] == 1000 and ds.metadata["n_obs"] == 800 and ds.metadata["n_int"] == 200
    hit = {ds.columns[j] for j in np.flatnonzero(ds.intervention_mask.any(axis=0))}
    assert hit == set(targets) and sorted(ds.metadata["target_pool"]) == sorted(targets)
    assert not ds.intervention_mask[:800].any() and (ds.intervention_mask[800:].sum(axis=1) == 1).all()
    assert ds.metadata["factors"]["units"]["pol_1" if scm_id == "light-tunnel" else "hatch"] == "deg"


def _descendants(spec, name):
    a = spec.adjacency().astype(bool)
    reach = a.copy()
    for k in range(a.shape[0]):
        reach |= reach[:, [k]] & reach[[k], :]
    return {spec.names[j] for j in np.flatnonzero(reach[spec.names.index(name)])}


#: (chamber, target, do-value): a value at the edge of (or outside) the observational range
DOS = [("light-tunnel", "red", 80.0), ("light-tunnel", "pol_1", 60.0), ("light-tunnel", "blue", 2.0),
       ("wind-tunnel", "load_in", 0.95), ("wind-tunnel", "load_out", 0.05), ("wind-tunnel", "hatch", 45.0)]


@pytest.mark.parametrize("scm_id, target, value", DOS)
def test_a_do_moves_exactly_the_targets_descendants_row_by_row(scm_id, target, value):
    """Same exogenous draw with and without do(target = value): the columns that change are the
    target and its descendants in the simulator graph; in the published graph they are a subset
    of the descendants (the wind tunnel's unexpressed edges move nothing)."""
    for graph in ("simulator", "published"):
        spec = chamber_spec(scm_id, graph=graph)
        scm = spec.compile()
        e = scm.draw_exogenous(3000, np.random.default_rng(1))
        j = spec.names.index(target)
        mask = np.zeros((3000, spec.d), dtype=bool)
        mask[:, j] = True
        x0 = scm.propagate(e)
        x1 = scm.propagate(e, mask, np.full((3000, spec.d), value))
        moved = {spec.names[k] for k in np.flatnonzero((x0 != x1).any(axis=0))}
        expected = _descendants(spec, target) | {target}
        if graph == "simulator":
            assert moved == expected
        else:
            assert moved <= expected
            assert moved == _descendants(chamber_spec(scm_id, graph="simulator"), target) | {target}


@pytest.mark.parametrize("scm_id, target, value", DOS)
def test_a_do_leaves_every_non_descendants_marginal_unchanged_in_distribution(scm_id, target, value):
    """Independent draws (no shared noise): observational vs do(target = value), two-sample KS per
    column. Non-descendants: same distribution (p > 0.001 for every column); descendants with a
    strong do: a different one (p < 1e-6 for at least one)."""
    spec = chamber_spec(scm_id, graph="simulator")
    scm = SCMInstance(family="chambers", scm_id=scm_id, spec=spec).compiled()
    n = 4000
    x0 = scm.propagate(scm.draw_exogenous(n, np.random.default_rng(10)))
    e1 = scm.draw_exogenous(n, np.random.default_rng(11))
    mask = np.zeros((n, spec.d), dtype=bool)
    mask[:, spec.names.index(target)] = True
    x1 = scm.propagate(e1, mask, np.full((n, spec.d), value))
    desc = _descendants(spec, target)
    p = {name: ks_2samp(x0[:, k], x1[:, k]).pvalue for k, name in enumerate(spec.names) if name != target}
    assert min(v for name, v in p.items() if name not in desc) > 1e-3
    assert min(v for name, v in p.items() if name in desc) < 1e-6


@pytest.mark.parametrize("scm_id", ["light-tunnel", "wind-tunnel"])
def test_the_spec_is_plain_data_its_json_gives_the_same_table(scm_id):
    from causalarena.protocol import make_dataset
    from causalarena.scm import SCMSpec

    spec = chamber_spec(scm_id)
    again = SCMSpec.from_json(spec.to_json())
    assert again.to_json() == spec.to_json()
    a = make_dataset(spec, "chambers", "obs_int", 1, standardise=False)
    b = make_dataset(again, "chambers", "obs_int", 1, standardise=False)
    assert a.X.tobytes() == b.X.tobytes() and a.intervention_mask.tobytes() == b.intervention_mask.tobytes()
