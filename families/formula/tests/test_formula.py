"""The shipped formula pool (issue 4 §6): gates, worked examples, residual checks, the folder option."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from arena_cards.model import FORMULA_DOMAINS, card_files, load_card
from arena_cards.seal import key_from_env, sealed_files, sealed_id
from arena_cards.validate import validate_card
from arena_family_formula import CARDS_DIR, FormulaFamily
from causalarena.family import SCMInstance

#: the cards this environment can read: the public ones, and the sealed reserved half (arena_cards.seal)
#: when CAUSALARENA_RESERVED_KEY is set; ALL_FILES names every shipped card file (sealed ones need no key to count)
ALL_FILES = card_files(CARDS_DIR) + sealed_files(CARDS_DIR)
FILES = card_files(CARDS_DIR) + (sealed_files(CARDS_DIR) if key_from_env() else [])
BAROMETRIC = CARDS_DIR / "earth_systems" / "barometric-pressure-reduction.yaml"
THIN_LENS = CARDS_DIR / "optics_waves" / "thin-lens-imaging.yaml"


def test_cards_per_domain():
    """Every domain has its cards (at least the 2 of the first release, at most the paper's 10)."""
    # a sealed card counts by its domain folder (no key needed); the gates check a card's domain is its folder's
    by_domain = collections.Counter(f.parent.name if f.name.endswith(".yaml.enc") else load_card(f).data["domain"]
                                    for f in ALL_FILES)
    assert set(by_domain) == set(FORMULA_DOMAINS) and all(2 <= n <= 10 for n in by_domain.values())


@pytest.mark.parametrize("path", FILES, ids=[sealed_id(f) for f in FILES])
def test_shipped_card_passes_every_gate_strictly(path):
    # every gate, pool rules as errors, data gates on all 10 tables the arena ships (2 splits x 5 replicates)
    rep = validate_card(path, pool_severity="error", all_tables=True)
    assert rep.issues == [], "\n".join(map(str, rep.issues))
    card = load_card(path)
    assert card.family == "formula" and path.parent.name == card.data["domain"] and path.stem == card.id
    assert 16 <= rep.stats["d"] <= 25 and 18 <= rep.stats["edges"] <= 50
    assert 1 <= len(card.equations)
    for eq in card.equations:
        assert eq["source"].strip() and eq["reverse_orientation"].strip()
        out = next(v for v in card.variables if v["name"] == eq["output"])
        # formula nodes are computed exactly: no noise, no rounding, no clipping
        assert out.get("noise") is None and out.get("boundary") is None and out.get("resolution") is None
    for eq_id, res in rep.stats["residuals"].items():
        assert res["max_rel"] <= 1e-9 and res["rows"] > 0, eq_id


def test_barometric_worked_example():
    """Paper §4.3 / Fig. 3 (bottom): 16 variables, 18 edges, the hypsometric equation."""
    card = load_card(BAROMETRIC)
    assert (len(card.variables), len(card.edges)) == (16, 18)
    hyps = [e for e in card.equations if "exp(" in e["expression"].replace(" ", "") and e["output"] == "slp"]
    assert len(hyps) == 1
    eq = hyps[0]
    assert len(eq["inputs"]) == 4
    r = [c for c in eq["constants"].values() if "J" in c["unit"]]
    assert len(r) == 1 and r[0]["value"] == pytest.approx(287.05)
    rep = validate_card(BAROMETRIC)
    assert rep.ok and rep.stats["residuals"][eq["id"]]["max_rel"] < 1e-12


def test_barometric_slp_by_hand():
    """SLP = p_stn · exp(g z / (R_d T_v)) recomputed here with plain numpy, in hPa, m, m/s², K."""
    inst = FormulaFamily().instance("barometric-pressure-reduction")
    ds = inst.dataset("obs_int", 0, standardise=False)
    col = {n: ds.X[:, i] for i, n in enumerate(ds.columns)}
    slp = col["p_station"] * np.exp(col["g_eff"] * col["z_fused"] / (287.05 * col["t_virtual"]))
    free = ~ds.intervention_mask[:, ds.columns.index("slp")]
    np.testing.assert_allclose(col["slp"][free], slp[free], rtol=1e-12)
    # a station at ~1.6 km: the reduction adds roughly 150-200 hPa
    assert 120 < np.median(col["slp"] - col["p_station"]) < 230
    # QNH is that pressure reported in whole hPa
    np.testing.assert_array_equal(col["qnh"], np.floor(col["qnh"]))
    # interventions on the fusion weight recompute the fused height, gravity and SLP downstream
    w = ds.columns.index("fusion_weight")
    rows = ds.intervention_mask[:, w]
    if rows.any():
        z = col["fusion_weight"] * col["elev_surveyed"] + (1 - col["fusion_weight"]) * col["gps_altitude"]
        np.testing.assert_allclose(col["z_fused"][rows], z[rows], rtol=1e-12)


def test_thin_lens_records_its_three_equations():
    thin_lens = THIN_LENS if THIN_LENS.exists() else THIN_LENS.with_name(THIN_LENS.name + ".enc")
    if thin_lens.name.endswith(".enc") and not key_from_env():
        pytest.skip("thin-lens-imaging is in the sealed reserved half: set CAUSALARENA_RESERVED_KEY")
    card = load_card(thin_lens)
    text = " ".join(f"{e['id']} {e['name']}".lower() for e in card.equations)
    for word in ("lens", "airy", "magnification"):
        assert word in text


def test_family_and_folder_option(tmp_path):
    fam = FormulaFamily()
    insts = fam.instances()
    assert len(insts) == len(FILES) and all(isinstance(i, SCMInstance) for i in insts)
    baro = fam.instance("barometric-pressure-reduction")
    assert "hypsometric" in baro.factors["equation_ids"] or baro.factors["equation_ids"]
    assert baro.factors["domain"] == "earth_systems"
    mine = tmp_path / "lab"
    mine.mkdir()
    (mine / "my-baro.yaml").write_text(BAROMETRIC.read_text().replace("id: barometric-pressure-reduction",
                                                                        "id: my-baro"))
    (only,) = FormulaFamily(cards=str(mine), shipped="false").instances()
    assert isinstance(only, SCMInstance) and only.scm_id == "my-baro"
    # another id draws another column order: the same graph, compared by name
    assert sorted(only.spec.names) == sorted(baro.spec.names) and only.spec.names != baro.spec.names
    idx = [baro.spec.names.index(n) for n in only.spec.names]
    np.testing.assert_array_equal(only.true_adjacency(), baro.true_adjacency()[np.ix_(idx, idx)])


def test_columns_are_not_in_causal_order():
    """The family kit's column_order check (issue 12 item 10): the mean share of directed paths from an
    earlier to a later column is at most 0.9 (1.00 when the columns kept the cards' causes-first order)."""
    from arena_testkit import COLUMN_ORDER_MAX_FORWARD, family_checks, forward_path_share

    dict(family_checks("formula"))["column_order"]()
    shares = [forward_path_share(i.true_adjacency())[0] for i in FormulaFamily().instances()]
    assert len(shares) == len(FILES) and np.mean(shares) <= COLUMN_ORDER_MAX_FORWARD and max(shares) < 1.0
