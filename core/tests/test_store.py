"""The SQLite result store."""

from __future__ import annotations

import math
import sqlite3

import pytest

from causalarena.store import KEY_COLUMNS, Store, config_hash


def row(rep=0, method="pc", status="ok", metrics=None, **kw):
    r = dict(family="synthetic", scm_id="er-d10-000", split="obs", replicate=rep, method=method,
             config_hash="abc", status=status, wall_seconds=1.5, fit_seconds=1.25,
             metrics=metrics if metrics is not None else {}, flags=[])
    r.update(kw)
    return r


def test_config_hash_covers_params_standardise_protocol_n():
    base = config_hash({"alpha": 0.05}, True, "default", None)
    assert base == config_hash({"alpha": 0.05}, True, "default", None)
    assert len(base) == 16
    others = {config_hash({"alpha": 0.01}, True, "default", None),
              config_hash({"alpha": 0.05}, False, "default", None),
              config_hash({"alpha": 0.05}, True, "soft", None),
              config_hash({"alpha": 0.05}, True, "default", 500)}
    assert base not in others and len(others) == 4


def test_record_replace_and_done_keys(tmp_path):
    st = Store(str(tmp_path / "r.sqlite"))
    st.record(row(0, status="failed", error="boom"))
    st.record(row(1, metrics={"shd": 2.0}))
    st.record(row(0, metrics={"shd": 1.0}))  # same key: replaced, not duplicated
    assert st.done_keys() == {("synthetic", "er-d10-000", "obs", 0, "pc", "abc"),
                              ("synthetic", "er-d10-000", "obs", 1, "pc", "abc")}
    assert st.done_keys(["failed"]) == set()
    rows = st.rows()
    assert [(r["replicate"], r["status"], r["metrics"]) for r in rows] == [
        (0, "ok", {"shd": 1.0}), (1, "ok", {"shd": 2.0})]
    st.close()
    # the file is a plain SQLite database in WAL mode with the primary key
    con = sqlite3.connect(str(tmp_path / "r.sqlite"))
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.IntegrityError):
        con.execute("INSERT INTO runs (family, scm_id, split, replicate, method, config_hash, status) "
                    "VALUES ('synthetic', 'er-d10-000', 'obs', 1, 'pc', 'abc', 'ok')")


def test_bad_rows_rejected_and_nothing_written(tmp_path):
    st = Store(str(tmp_path / "r.sqlite"))
    with pytest.raises(ValueError, match="status 'crashed' not in"):
        st.record(row(status="crashed"))
    with pytest.raises(KeyError, match="unknown run columns \\['colour'\\]"):
        st.record(row(colour="red"))
    with pytest.raises(KeyError, match="lacks \\['method'\\]"):
        st.record(row(method=None))
    assert st.rows() == []


def test_runs_frame_expands_metrics(tmp_path):
    st = Store(str(tmp_path / "r.sqlite"))
    st.record(row(0, metrics={"shd": 1.0, "f1": 0.5}, flags=["degenerate_empty", "x"], standardise=True))
    st.record(row(1, metrics={"shd": 3.0, "auroc": None, "n": 7.0}))
    st.record(row(2, status="timeout", wall_seconds=2.0, fit_seconds=None, error="budget"))
    df = st.runs_frame()
    assert len(df) == 3
    for col in ("family", "scm_id", "split", "replicate", "method", "status", "wall_seconds",
                "fit_seconds", "error", "flags", "shd", "f1", "auroc", "metric_n"):
        assert col in df.columns, col
    assert df["shd"].tolist()[:2] == [1.0, 3.0] and math.isnan(df["shd"][2])
    assert math.isnan(df["auroc"][1])
    assert df["metric_n"][1] == 7.0
    assert df["flags"].tolist() == ["degenerate_empty,x", "", ""]
    assert df["status"].tolist() == ["ok", "ok", "timeout"]
    assert df["standardise"][0] is True or df["standardise"][0] == True  # noqa: E712


def test_key_columns_order():
    assert KEY_COLUMNS == ("family", "scm_id", "split", "replicate", "method", "config_hash")


def test_older_store_gains_new_columns_and_keeps_rows(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    from causalarena.store import COLUMNS

    old_cols = [c for c in COLUMNS if c not in ("n_override", "suite", "varsortability", "r2_sortability",
                                                   "factors")]
    conn.execute(f"CREATE TABLE runs ({', '.join(old_cols)})")
    conn.execute("INSERT INTO runs (family, scm_id, split, replicate, method, config_hash, status) "
                 "VALUES ('f', 's', 'obs', 0, 'pc', 'h', 'ok')")
    conn.commit()
    conn.close()
    with Store(str(path), readonly=True) as ro:  # a read-only open of the old layout still reads
        assert ro.rows()[0]["suite"] is None
    with Store(str(path)) as store:
        store.record(dict(family="f", scm_id="s2", split="obs", replicate=0, method="pc", config_hash="h",
                          status="ok", suite="sample-size", n_override=100, factors={"graph": "er"}))
        frame = store.runs_frame()
    assert len(frame) == 2
    assert frame.set_index("scm_id").loc["s2", "suite"] == "sample-size"
    assert frame.set_index("scm_id").loc["s2", "factors"] == '{"graph": "er"}'
