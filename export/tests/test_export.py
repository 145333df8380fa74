"""arena_export: Parquet/JSON/CSV export of an instance and the Parquet round trip."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from arena_export import (
    export_instance,
    read_adjacency_csv,
    read_exported_table,
    write_adjacency_csv,
)
from causalarena.data import Dataset
from causalarena.family import Instance

COLUMNS = ["x", "y", "z w"]
ADJ = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=np.int8)  # x->y, x->z w, y->z w


class FakeSpec:
    def to_json(self) -> str:
        return json.dumps({"id": "toy", "nodes": COLUMNS})


class FixedInstance(Instance):
    """Two splits, two replicates; obs_int rows 2-3 intervene on y."""

    family = "test"
    scm_id = "toy/1"
    splits = ("obs", "obs_int")
    n_replicates = 2
    factors = {"d": 3}

    def __init__(self, with_spec: bool = True):
        if with_spec:
            self.spec = FakeSpec()

    def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
        if split not in self.splits:
            raise ValueError(f"no split {split!r}")
        X = np.array([[0.1, 1.0 / 3.0, -2.5], [np.nan, 1e-300, 7.0], [3.0, -0.0, 1.25],
                      [4.0, 5.0, 6.0]]) + replicate
        mask = np.zeros((4, 3), dtype=bool)
        regime = np.full(4, -1)
        if split == "obs_int":
            mask[2:, 1] = True
            regime[2:] = 1
        return Dataset(X=X, columns=COLUMNS, intervention_mask=mask, regime=regime,
                       true_adjacency=ADJ,
                       metadata={"family": self.family, "scm_id": self.scm_id, "split": split,
                                 "replicate": replicate, "seed": 12345 + replicate,
                                 "standardised": standardise})

    def true_adjacency(self):
        return ADJ.copy()


def test_export_layout_and_roundtrip(tmp_path):
    inst = FixedInstance()
    paths = export_instance(inst, tmp_path)
    folder = tmp_path / "test__toy_1"
    assert paths == [folder / "adjacency.csv", folder / "spec.json",
                     folder / "obs__rep0.parquet", folder / "obs__rep1.parquet",
                     folder / "obs_int__rep0.parquet", folder / "obs_int__rep1.parquet", folder / "factors.json"]
    assert json.loads((folder / "spec.json").read_text()) == {"id": "toy", "nodes": COLUMNS}
    for p in [q for q in paths if q.suffix == ".parquet"]:
        split, rep = p.stem.split("__rep")
        want = inst.dataset(split, int(rep), standardise=False)
        got = read_exported_table(p)
        assert got.columns == COLUMNS
        assert got.X.tobytes() == want.X.tobytes()  # bit-for-bit incl. NaN, -0.0, 1e-300
        np.testing.assert_array_equal(got.intervention_mask, want.intervention_mask)
        np.testing.assert_array_equal(got.regime, want.regime)
        np.testing.assert_array_equal(got.true_adjacency, ADJ)
        assert got.metadata == want.metadata
        assert got.to_npz_bytes() == want.to_npz_bytes()


def test_parquet_columns_and_types(tmp_path):
    paths = export_instance(FixedInstance(), tmp_path, splits=["obs_int"], replicates=[0])
    table = pq.read_table([q for q in paths if q.suffix == ".parquet"][-1])
    assert table.column_names == ["x", "y", "z w", "mask__x", "mask__y", "mask__z w", "regime"]
    assert str(table.schema.field("mask__y").type) == "bool"
    assert str(table.schema.field("regime").type) == "int64"
    assert table.column("mask__y").to_pylist() == [False, False, True, True]
    assert table.column("regime").to_pylist() == [-1, -1, 1, 1]
    # pandas reads the same file as a plain table
    df = table.to_pandas()
    assert df["y"].iloc[0] == pytest.approx(1.0 / 3.0)


def test_adjacency_csv_content_by_hand(tmp_path):
    export_instance(FixedInstance(), tmp_path, splits=["obs"], replicates=[0])
    text = (tmp_path / "test__toy_1" / "adjacency.csv").read_text()
    assert text == "parent,x,y,z w\nx,0,1,1\ny,0,0,1\nz w,0,0,0\n"
    cols, A = read_adjacency_csv(tmp_path / "test__toy_1" / "adjacency.csv")
    assert cols == COLUMNS and A.dtype == np.int8
    np.testing.assert_array_equal(A, ADJ)


def test_no_spec_no_json_and_standardise_flag(tmp_path):
    paths = export_instance(FixedInstance(with_spec=False), tmp_path, splits=["obs"],
                            replicates=[1], standardise=True)
    assert [p.name for p in paths] == ["adjacency.csv", "obs__rep1.parquet", "factors.json"]
    assert read_exported_table(paths[1]).metadata["standardised"] is True


def test_unknown_split_and_reserved_names(tmp_path):
    with pytest.raises(ValueError, match=r"test/toy/1 has no split 'int'; available: \('obs', 'obs_int'\)"):
        export_instance(FixedInstance(), tmp_path, splits=["int"])

    class Clash(FixedInstance):
        def dataset(self, split, replicate, standardise=True, protocol="default", n=None):
            return Dataset(X=np.zeros((2, 2)), columns=["a", "regime"])

    with pytest.raises(ValueError, match="variable name 'regime' clashes"):
        export_instance(Clash(), tmp_path, splits=["obs"], replicates=[0])
    with pytest.raises(ValueError, match=r"expected \(2, 2\)"):
        write_adjacency_csv(np.zeros((3, 3)), ["a", "b"], tmp_path / "a.csv")


def test_foreign_parquet_without_metadata(tmp_path):
    import pyarrow as pa

    p = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"a": [1.0, 2.0], "b": [3.0, 4.0], "mask__b": [False, True]}), p)
    ds = read_exported_table(p)
    assert ds.columns == ["a", "b"] and ds.true_adjacency is None
    np.testing.assert_array_equal(ds.intervention_mask, [[False, False], [False, True]])
    np.testing.assert_array_equal(ds.regime, [-1, -1])
    pq.write_table(pa.table({"a": [1.0], "mask__q": [True]}), p)
    with pytest.raises(ValueError, match="mask column 'mask__q' names no variable"):
        read_exported_table(p)
    with pytest.raises(FileNotFoundError, match="exported table not found"):
        read_exported_table(tmp_path / "none.parquet")


def test_factor_tags_audit_record_and_release_manifest(tmp_path):
    from arena_export import write_release_manifest
    from causalarena.family import SCMInstance
    from causalarena.scm import SCMSpec, calibrate_outputs, node_from_components

    rng = np.random.default_rng(0)
    nodes = [node_from_components("A", [], rng), node_from_components("B", ["A"], rng, tags={"unit": "m"})]
    spec = calibrate_outputs(SCMSpec(id="ab", nodes=nodes, metadata={"generator": "toy@1", "release": "public"}))
    inst = SCMInstance(family="toy", scm_id="ab", spec=spec, n_replicates=1, factors=dict(spec.metadata))
    from causalarena.family import Family

    class Audited(Family):
        """The audit record comes from the instance's family (its own gates), called for the exported tables."""

        name = "toy"
        calls: list = []

        def audit(self, scm_ids=None, splits=None, replicates=None, jobs=1):
            self.calls.append((scm_ids, splits, replicates))
            return [{"scm_id": "ab", "passed": True, "tables": len(splits) * replicates, "failed_tables": 0,
                     "failures": [], "errors": []}]

    paths = export_instance(inst, tmp_path, family=Audited())
    names = [p.name for p in paths]
    assert names[-2:] == ["factors.json", "audit.json"]
    assert Audited.calls == [(["ab"], ["obs", "obs_int"], 1)]
    # no family, or a family without an audit (NotImplementedError): no audit.json
    for family in (None, Family()):
        names = [p.name for p in export_instance(inst, tmp_path / "plain", family=family)]
        assert names[-1] == "factors.json" and not (tmp_path / "plain" / "toy__ab" / "audit.json").exists()
    factors = json.loads((tmp_path / "toy__ab" / "factors.json").read_text())
    assert factors["edges"] == [{"parent": "A", "child": "B", "mechanism": "linear", "noise": "gaussian"}]
    assert factors["nodes"]["B"]["unit"] == "m" and factors["factors"]["generator"] == "toy@1"
    audit = json.loads((tmp_path / "toy__ab" / "audit.json").read_text())
    assert audit["passed"] is True and audit["tables"] == 2
    manifest = json.loads(write_release_manifest(tmp_path, [inst], "arena export").read_text())
    assert manifest["instances"] == [{"family": "toy", "scm_id": "ab", "folder": "toy__ab", "generator": "toy@1",
                                      "release": "public", "audit_passed": True}]
    assert manifest["audit_passed"] == 1
