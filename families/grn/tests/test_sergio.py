"""SERGIO through avici's simulator: knockouts, a hand-checked 3-gene system, the protocol's
rows and masks, parameters inside AVICI's ranges, and byte-identical tables for a seed."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from arena_family_grn.avici_code import noise_config
from arena_family_grn.family import GRNFamily
from arena_family_grn.simulate import (
    BASAL_RANGE,
    DECAYS,
    HILLS,
    K_RANGE,
    K_SIGN_BETA,
    NOISE_SCALES,
    PLATFORM,
    TECH_KEYS,
    SergioParameters,
    draw_parameters,
    simulate_cells,
)

#: gene 0 (master regulator, basal rate 2) activates gene 1 (k = +3) and represses gene 2 (k = -2)
CHAIN = np.array([[0, 1, 1], [0, 0, 0], [0, 0, 0]])
CHAIN_PARAMS = SergioParameters(interaction=np.array([[0, 3.0, -2.0], [0, 0, 0], [0, 0, 0]]),
                                basal=np.full((3, 1), 2.0), n_cell_types=1, hill=2.0, decay=0.8, noise_scale=1.0,
                                sign_beta=1.0, tech={})


def test_knockout_of_a_master_regulator_by_hand():
    """SERGIO's production rates (Dibaeinia & Sinha 2020, STAR Methods; avici's sim.py): a master
    regulator produces at its basal rate b; a target at Σ|k|·h with h = x^n / (x^n + K^n) for an
    activator and 1 − h for a repressor. Knocking gene 0 out (production 0 from a zero start)
    gives x0 = 0 exactly, so gene 1 (activated only by gene 0) produces 0 and is exactly 0, and
    gene 2 (repressed only by gene 0) produces |k| = 2, mean 2 / decay = 2.5. Wild type: gene 0's
    mean is b / decay = 2.5. Snapshot means over 3 × 2000 cells (correlated: one trajectory per
    cell type) within 8 %."""
    wt = np.vstack([simulate_cells(CHAIN, CHAIN_PARAMS, 2000, np.random.default_rng(s), output="clean")
                    for s in range(3)])
    ko = np.vstack([simulate_cells(CHAIN, CHAIN_PARAMS, 2000, np.random.default_rng(s), knockout=0,
                                   output="clean") for s in range(3)])
    assert np.all(ko[:, 0] == 0.0) and np.all(ko[:, 1] == 0.0)
    assert ko[:, 2].mean() == pytest.approx(2.0 / 0.8, rel=0.08)
    assert wt[:, 0].mean() == pytest.approx(2.0 / 0.8, rel=0.08)
    assert np.all(wt >= 0) and wt[:, 1].mean() > 0.5  # gene 1 is expressed in the wild type


@pytest.mark.parametrize("output", ["counts", "clean"])
def test_a_knocked_out_gene_is_zero_in_its_interventional_rows(output):
    inst = GRNFamily(sizes="10", output=output).instance("ecoli-d10-0")
    ds = inst.dataset("obs_int", 0, standardise=False)
    assert ds.metadata["knockout_value"] == 0.0 and ds.metadata["intervention"] == "knockout"
    assert ds.metadata["edges_dropped"] == inst.subnetwork.dropped == 0
    hit = np.flatnonzero(ds.intervention_mask.any(axis=0))
    assert [ds.columns[j] for j in hit] == ds.metadata["target_pool"]
    for j in hit:
        rows = ds.intervention_mask[:, j]
        assert np.all(ds.X[rows, j] == 0.0), ds.columns[j]
        assert ds.X[~ds.intervention_mask.any(axis=1), j].mean() > 0  # expressed in the wild type
    if output == "counts":
        assert np.array_equal(ds.X, np.round(ds.X))  # UMI counts


def test_obs_int_rows_masks_and_balanced_knockouts():
    inst = GRNFamily(sizes="10").instance("yeast-d10-0")
    ds = inst.dataset("obs_int", 0)
    mask = ds.intervention_mask
    assert ds.X.shape == (1000, 10) and not mask[:800].any()
    assert np.all(mask[800:].sum(axis=1) == 1)
    pool = inst.target_pool()
    assert 2 <= len(pool) <= 4  # App. A.1 pool size for d = 10
    counts = mask[800:].sum(axis=0)[pool]
    assert counts.sum() == 200 and counts.max() - counts.min() <= 1
    assert set(ds.regime[800:].tolist()) == set(pool.tolist()) and np.all(ds.regime[:800] == -1)
    small = inst.dataset("obs_int", 0, n=200)
    assert small.X.shape == (200, 10) and int(small.intervention_mask.any(axis=1).sum()) == 40


def test_parameters_lie_in_avicis_neurips_grn_ranges():
    rng = np.random.default_rng(0)
    config = noise_config()[PLATFORM]
    for _ in range(5):
        p = draw_parameters(20, rng)
        assert np.all((np.abs(p.interaction) >= K_RANGE[0]) & (np.abs(p.interaction) <= K_RANGE[1]))
        assert np.all((p.basal >= BASAL_RANGE[0]) & (p.basal <= BASAL_RANGE[1])) and p.basal.shape == (20, 5)
        assert p.hill in HILLS and p.decay in DECAYS and p.noise_scale in NOISE_SCALES and p.sign_beta in K_SIGN_BETA
        assert all(p.tech[k] in [float(v) for v in config[k]] for k in TECH_KEYS)
        # signs are drawn per regulator (row): both occur across the matrix
        assert set(np.unique(np.sign(p.interaction)).tolist()) == {-1.0, 1.0}
    with pytest.raises(ValueError, match="platform 'nanopore' not in avici's noise_config.yaml"):
        draw_parameters(5, rng, platform="nanopore")


def test_bad_simulation_arguments_are_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="output 'tpm' is not one of"):
        simulate_cells(CHAIN, CHAIN_PARAMS, 10, rng, output="tpm")
    with pytest.raises(ValueError, match="knockout gene index 3 out of range 0..2"):
        simulate_cells(CHAIN, CHAIN_PARAMS, 10, rng, knockout=3)
    with pytest.raises(ValueError, match="n_cells must be >= 1"):
        simulate_cells(CHAIN, CHAIN_PARAMS, 0, rng)


#: SHA-256 of the raw X bytes of grn / ecoli-d10-0 / obs_int / replicate 0 with n = 200 (avici
#: 1.0.7, numpy's PCG64 streams): any change to the sampler, the seeds or the simulator shows here
PINNED = "48c5390c4092e4f02bc864064198c42851db0648829ef7c501ab9f40c211026a"


def test_byte_identical_tables_for_a_seed():
    a = GRNFamily(sizes="10").instance("ecoli-d10-0").dataset("obs_int", 0, standardise=False, n=200)
    b = GRNFamily(sizes="10").instance("ecoli-d10-0").dataset("obs_int", 0, standardise=False, n=200)
    assert a.X.tobytes() == b.X.tobytes() and np.array_equal(a.intervention_mask, b.intervention_mask)
    assert a.metadata["seed"] == b.metadata["seed"]
    assert hashlib.sha256(a.X.tobytes()).hexdigest() == PINNED
    c = GRNFamily(sizes="10").instance("ecoli-d10-0").dataset("obs_int", 1, standardise=False, n=200)
    assert c.X.tobytes() != a.X.tobytes()
