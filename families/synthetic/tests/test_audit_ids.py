"""``SyntheticFamily.audit(scm_ids=...)`` audits every requested valid id, as ``select`` builds it."""

from arena_family_synthetic.family import SyntheticFamily


def test_audit_covers_a_valid_id_outside_the_option_selection():
    fam = SyntheticFamily()
    assert "er-d10-007" not in fam.config_ids()          # outside the default selection
    records = fam.audit(scm_ids=["er-d10-007", "sachs", "er-d10-007"], splits=["obs"], replicates=1)
    # one record for the synthetic id (duplicates once, another family's id skipped), audited for real
    assert [r["scm_id"] for r in records] == ["er-d10-007"]
    assert records[0]["tables"] == 1 and records[0]["errors"] == []
    assert records[0]["passed"] is True and records[0]["failed_tables"] == 0
