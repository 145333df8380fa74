"""The Family optional methods of the synthetic grid: listing without generating, select, audit and its details."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arena_family_synthetic import schedule as S
from arena_family_synthetic.family import SyntheticFamily
from causalarena.family import Family

FULL_POOL = {"dims": S.DIMS, "per_cell": 20, "pool": "all"}


def test_full_pool_listing_reads_d_from_the_ids_and_generates_nothing(monkeypatch):
    import arena_family_synthetic.family as F

    def no_generation(*args, **kwargs):
        raise AssertionError("listing generated an SCM")

    monkeypatch.setattr(F, "generate_spec", no_generation)
    monkeypatch.delenv(S.KEY_ENV, raising=False)  # reserved ids are listed without the key
    fam = SyntheticFamily(**FULL_POOL)
    listing = fam.listing()
    assert len(listing) == 1000 and fam.ids() == fam.config_ids() == [s.scm_id for s in listing]
    assert [(s.scm_id, s.d) for s in listing[:2]] == [("er-d10-000", 10), ("er-d10-001", 10)]
    assert (listing[-1].scm_id, listing[-1].d) == ("collider_rich-d100-r019", 100)
    assert {d: sum(s.d == d for s in listing) for d in S.DIMS} == {d: 200 for d in S.DIMS}
    assert {tuple(s.splits) for s in listing} == {("obs", "obs_int")} and {s.n_replicates for s in listing} == {5}
    assert {s.error for s in listing} == {""}


def test_listing_imports_neither_the_catalogue_nor_networkx():
    # graphs.py is imported for GRAPH_FAMILIES; its generators import networkx when they run
    code = ("import sys; from arena_family_synthetic.family import SyntheticFamily; "
            "n = len(SyntheticFamily(dims=(10, 20, 30, 50, 100), per_cell=20, pool='all').listing()); "
            "print(n, sorted(m for m in ('scipy', 'networkx', 'arena_family_synthetic.mechanisms', "
            "'arena_family_synthetic.distributions') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "1000 []"


def test_select_generates_any_valid_id_and_skips_other_families_ids():
    fam = SyntheticFamily()  # default selection: d = 10, slots 0-1
    insts = fam.select(["er-d50-003", "sachs", "clinic-reminders", "chain-d10-000"])
    assert [i.scm_id for i in insts] == ["er-d50-003", "chain-d10-000"]
    assert insts[0].spec.d == 50 and insts[0].factors["slot"] == 3
    with pytest.raises(ValueError, match="slot 013 is reserved; write 'er-d10-r013'"):
        fam.select(["er-d10-013"])
    with pytest.raises(ValueError, match="d = 40 is not on the grid"):
        fam.select(["er-d40-000"])


def test_declares_fresh_rounds():
    assert SyntheticFamily.takes_fresh is True and Family.takes_fresh is False
    assert SyntheticFamily(fresh=2, per_cell=1, graphs="er").ids() == ["er-d10-f2-000"]


def test_audit_records_and_details():
    fam = SyntheticFamily(graphs="er", per_cell=2)
    records = fam.audit(splits=["obs"], replicates=1)
    assert [r["scm_id"] for r in records] == ["er-d10-000", "er-d10-001"]
    for r in records:
        assert (r["passed"], r["tables"], r["failed_tables"], r["failures"], r["errors"]) == (True, 1, 0, [], [])
        assert r["generation"]["data_attempts"] >= 1 and r["factors"]["graph"] == "er"
    # requested ids are audited whether in the selection or not (test_audit_ids.py); other families' are skipped
    assert [r["scm_id"] for r in fam.audit(["er-d10-001", "sachs"], ["obs"], 1)] == ["er-d10-001"]
    renderables, ok = fam.audit_details(records)
    assert ok is True
    stats, counts, line = renderables
    assert stats.title.startswith("resample statistics") and counts.title.startswith("factor counts")
    assert [c.header for c in counts.columns] == ["factor", "value", "SCMs", "expected", "nodes"]
    assert line == "[green]counts match the grid's schedule[/green]"
    # one configuration missing: the counts differ from the schedule, so the details are not ok
    renderables, ok = fam.audit_details(records[:1])
    assert ok is False and renderables[-1].startswith("[red]counts differ from the schedule[/red]")
    assert "graph=er: 1 vs 2" in renderables[-1]


def test_audit_records_a_generation_error(monkeypatch):
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    (rec,) = SyntheticFamily(graphs="er", per_cell=1, pool="reserved").audit(splits=["obs"], replicates=1)
    assert rec["scm_id"] == "er-d10-r010" and rec["passed"] is False and rec["failed_tables"] == 0
    assert len(rec["errors"]) == 1 and rec["errors"][0].startswith("ReservedKeyError:")
