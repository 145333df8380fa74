"""The synthetic family: ids, seeds, schedule, generation, audits, reserved and fresh draws."""

import hashlib
import math
import subprocess
import sys

import numpy as np
import pytest

from arena_family_synthetic import schedule as S
from arena_family_synthetic.family import SyntheticFamily, assign_noises, edge_tags, generate_spec, root_family_count
from causalarena.plugins import get_registry

TEST_KEY = "test-operator-key"


def test_registered_through_entry_point():
    info = get_registry().family("synthetic")
    assert info.kind == "synthetic" and "1,000" in info.description


def test_the_grid_has_1000_configurations_500_public_500_reserved():
    ids = SyntheticFamily(dims=S.DIMS, pool="all", per_cell=20).config_ids()
    assert len(ids) == 1000 and len(set(ids)) == 1000
    releases = [S.parse_id(i).release for i in ids]
    assert releases.count("public") == 500 and releases.count("reserved") == 500
    assert len(S.graph_families()) == 10


def test_schedule_counts_over_the_full_grid():
    """App. A.1: 800 independent / 200 dependent; per block 5 clean, 10 single, 5 paired."""
    ids = SyntheticFamily(dims=S.DIMS, pool="all", per_cell=20).config_ids()
    counts = S.schedule_counts(ids)
    assert counts["root_dependency"]["independent"] == 800
    assert sorted(v for k, v in counts["root_dependency"].items() if k != "independent") == [66, 67, 67]
    assert counts["difficulty_level"] == {"clean": 250, "single": 500, "paired": 250}
    # every stressor appears in ~ (500 singles + 2 x 250 paired) / 8 = 125 SCMs
    stress = {k: v for k, v in counts["difficulty"].items() if k != "clean"}
    assert set(stress) == set(S.STRESSORS) and sum(stress.values()) == 1000
    assert max(stress.values()) - min(stress.values()) <= 3
    assert counts["graph"] == {g: 100 for g in S.graph_families()}
    assert counts["d"] == {str(d): 200 for d in S.DIMS}


@pytest.mark.parametrize("cid, parsed", [
    ("er-d10-003", ("er", 10, 3, "public", None)),
    ("er-d10-r013", ("er", 10, 13, "reserved", None)),
    ("er-d100-f2-019", ("er", 100, 19, "fresh", 2)),
])
def test_ids_round_trip(cid, parsed):
    assert tuple(S.parse_id(cid)) == parsed
    assert S.make_id(parsed[0], parsed[1], parsed[2], parsed[4]) == cid


@pytest.mark.parametrize("bad, message", [
    ("er-d10", "malformed"), ("zz-d10-001", "unknown graph family"),
    ("er-d10-013", "slot 013 is reserved; write 'er-d10-r013'"), ("er-d10-r003", "slot 003 is public; write 'er-d10-003'"),
    ("er-d010-000", "not a canonical id; write 'er-d10-000'"), ("er-d15-000", "not on the grid"),
    ("er-d10-f0-003", "numbered from 1"),
])
def test_bad_ids_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        S.parse_id(bad)


def test_public_seed_is_sha256_of_version_and_id():
    digest = hashlib.sha256(b"synthetic@1\x1fer-d10-003").digest()
    assert S.config_seed("er-d10-003") == int.from_bytes(digest[:8], "little")


def test_reserved_and_fresh_need_the_key(monkeypatch):
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    for cid in ("er-d10-r010", "er-d10-f1-000"):
        with pytest.raises(S.ReservedKeyError, match=S.KEY_ENV):
            generate_spec(cid)
    a = S.config_seed("er-d10-r010", key=TEST_KEY)
    assert a != S.config_seed("er-d10-r010", key="another key")  # the key decides, not the id alone
    monkeypatch.setenv(S.KEY_ENV, TEST_KEY)
    assert S.config_seed("er-d10-r010") == a


def test_same_id_same_bytes_in_another_process():
    code = ("from arena_family_synthetic.family import generate_spec; import hashlib; "
            "print(hashlib.sha256(generate_spec('sf-d10-001').to_json().encode()).hexdigest())")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1]
    assert outs[0].strip() == hashlib.sha256(generate_spec("sf-d10-001").to_json().encode()).hexdigest()


def test_same_id_same_dataset_bytes():
    a = SyntheticFamily().instance("er-d10-001").dataset("obs_int", 2)
    b = SyntheticFamily().instance("er-d10-001").dataset("obs_int", 2)
    assert a.to_npz_bytes() == b.to_npz_bytes()


def test_generated_scm_carries_its_factor_tags():
    spec = generate_spec("er-d10-001")  # slot 1: single stressor, dependent root block
    m = spec.metadata
    block = S.block_index("er", 10)
    assert m["difficulty"] == list(S.difficulty(block, 1)) and m["difficulty_level"] == "single"
    assert m["root_dependency"] == S.root_dependency(block, 1) != "independent"
    assert spec.root_dependency.kind == m["root_dependency"]
    roots = [n.name for n in spec.nodes if n.role == "root"]
    assert spec.root_dependency.params["nodes"] == roots and len(roots) >= 2
    assert {n.tags["root"] for n in spec.nodes if n.role == "root"} == {f"dependent:{m['root_dependency']}"}
    nonroots = [n for n in spec.nodes if n.role == "mechanism"]
    assert all("mechanism" in n.tags and "noise" in n.tags for n in nonroots)
    assert m["mechanisms"] == sorted({n.tags["mechanism"] for n in nonroots})
    assert len(m["active_mechanisms"]) in range(2, 5) and set(m["mechanisms"]) <= set(m["active_mechanisms"])
    assert m["n_edges"] == int(spec.adjacency().sum()) >= math.ceil(0.8 * 10)
    edges = edge_tags(spec)
    assert len(edges) == m["n_edges"]
    child = {n.name: n for n in spec.nodes}
    assert all(e["mechanism"] == child[e["child"]].tags["mechanism"] for e in edges)


def test_no_noise_is_capped_at_ten_percent():
    rng = np.random.default_rng(0)
    for d in (10, 20, 50):
        picks = assign_noises(d - 1, ["none", "gaussian"], rng, d)
        assert picks.count("none") <= math.floor(0.1 * d)
        assert assign_noises(5, ["none"], rng, 10).count("none") == 1  # others become gaussian


@pytest.mark.parametrize("n_roots, lo, hi", [(1, 1, 1), (3, 1, 2), (8, 2, 4), (20, 3, 6)])
def test_root_family_count(n_roots, lo, hi):
    got = {root_family_count(n_roots, 14, np.random.default_rng(s)) for s in range(200)}
    assert got == set(range(lo, hi + 1))


def _first_public(stressor):
    return next(S.make_id(g, 10, k) for g in S.graph_families() for k in range(10)
                if stressor in S.difficulty(S.block_index(g, 10), k))


def test_weak_signal_and_high_noise_stressors_are_in_the_spec():
    weak = generate_spec(_first_public("weak_signal"))
    scm = weak.compile()
    x = scm.sample(20000, np.random.default_rng(0))
    # out_scale = sd(f) / 0.45: every calibrated mechanism signal has sd 0.45 (pilot vs new sample)
    sds = [np.std(scm.signal(j, x[:, scm.parents[j]])) for j, n in enumerate(weak.nodes) if n.role == "mechanism"]
    assert np.median(sds) == pytest.approx(0.45, rel=0.1)
    noisy = generate_spec(_first_public("high_noise"))
    extras = {n.noise.params.get("extra_scale") for n in noisy.nodes if n.noise is not None}
    assert extras == {0.35}
    warped = generate_spec(_first_public("feature_warping"))
    assert [st.kind for st in warped.stressors] == ["feature_warping"]


def test_family_selection_and_options():
    fam = SyntheticFamily(dims=(10, 20), graphs=("er", "chain"), per_cell=3)
    assert fam.config_ids()[:3] == ["er-d10-000", "er-d10-001", "er-d10-002"] and len(fam.config_ids()) == 12
    assert SyntheticFamily(pool="reserved", per_cell=1, graphs="er").config_ids() == ["er-d10-r010"]
    assert SyntheticFamily(fresh=4, per_cell=1, graphs="er").config_ids() == ["er-d10-f4-000"]


@pytest.mark.parametrize("options, message", [
    ({"per_cell": 0}, "per_cell"), ({"per_cell": 11}, "exceeds"), ({"graphs": ("er", "zz")}, "unknown graph"),
    ({"pool": "secret"}, "pool"), ({"fresh": 0}, "fresh"), ({"colour": 1}, "unknown option"),
    ({"dims": "ten"}, "dims"), ({"dims": 7}, "grid dimensions"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        SyntheticFamily(**options)


def test_generated_datasets_pass_the_audits():
    from arena_family_synthetic.audits import audit_instance

    fam = SyntheticFamily(per_cell=4, graphs=("er", "sf"))
    for inst in fam.instances():
        rec = audit_instance(inst, replicates=2)
        assert rec["passed"], (inst.scm_id, rec["failures"][:3])
        assert rec["tables"] == 4 and rec["generation"]["data_attempts"] >= 1


def test_suites_are_declared():
    suites = {s.name: s for s in SyntheticFamily.suites}
    assert set(suites) == {"sample-size", "intervention-protocols"}
    assert tuple(suites["sample-size"].n_values) == (100, 200, 500, 1000, 2000, 5000, 10000)
    assert len(suites["intervention-protocols"].protocols) == 6
    fam = SyntheticFamily(**suites["sample-size"].family_options)
    assert len(fam.config_ids()) == 100 and {S.parse_id(i).d for i in fam.config_ids()} == {30}


def test_a_configuration_that_exhausts_its_audits_fails_its_cells_not_the_run(monkeypatch):
    import arena_family_synthetic.family as F

    def exhausted(config_id, key=None):
        raise RuntimeError(f"{config_id}: no SCM passed the audits in 30 attempts: {{'near-duplicate': 30}}")

    monkeypatch.setattr(F, "generate_spec", exhausted)
    fam = SyntheticFamily(graphs="er", per_cell=1)
    (inst,) = fam.instances()
    assert inst.scm_id == "er-d10-000" and "near-duplicate" in inst.error
    with pytest.raises(RuntimeError, match="er-d10-000 was not generated: .*30 attempts"):
        inst.dataset("obs", 0)
    assert len(inst.fingerprint()) == 16
