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


# -- the typed run record and stores written before it -----------------------------------------

#: the ``runs`` table exactly as the store of 55ec368 (before RunRecord) created it
PRE_REFACTOR_SCHEMA = """CREATE TABLE runs (
  family TEXT NOT NULL,
  scm_id TEXT NOT NULL,
  split TEXT NOT NULL,
  replicate INTEGER NOT NULL,
  method TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  status TEXT NOT NULL,
  wall_seconds REAL,
  fit_seconds REAL,
  load_seconds REAL,
  peak_rss_mb REAL,
  error TEXT,
  traceback TEXT,
  flags TEXT,
  metrics TEXT,
  params TEXT,
  output_kind TEXT,
  n INTEGER,
  d INTEGER,
  seed INTEGER,
  standardise INTEGER,
  protocol TEXT,
  python TEXT,
  method_version TEXT,
  started_at TEXT,
  finished_at TEXT,
  n_override INTEGER,
  suite TEXT,
  varsortability REAL,
  r2_sortability REAL,
  factors TEXT,
  start_seconds REAL,
  worker_id TEXT,
  worker_seq INTEGER,
  isolation TEXT,
  PRIMARY KEY (family, scm_id, split, replicate, method, config_hash))"""


def test_run_record_has_every_store_column_in_order_and_documents_it():
    from causalarena.runs import RunRecord
    from causalarena.store import COLUMNS

    assert RunRecord.columns() == tuple(COLUMNS)
    assert tuple(COLUMNS)[:6] == KEY_COLUMNS
    doc = RunRecord.__doc__
    undocumented = [c for c in COLUMNS if f"{c}:" not in doc and f"{c}," not in doc]
    assert undocumented == []
    assert "MiB" in doc and "seconds" in doc


def test_run_record_converts_and_refuses():
    from causalarena.records import Status
    from causalarena.runs import RunRecord

    rec = RunRecord(family="f", scm_id="s", split="obs", replicate=0, method="pc", config_hash="h")
    assert rec.status is None and rec.flags == [] and rec.metrics == {} and rec.key == ("f", "s", "obs", 0, "pc", "h")
    rec.status = "env_error"
    assert rec.status is Status.ENV_ERROR
    with pytest.raises(ValueError, match="status 'crashed' not in"):
        rec.status = "crashed"
    with pytest.raises(AttributeError):
        rec.colour = "red"  # slots: a misspelt column is an error, not a silent new key
    rec.flags += ["a"]
    rec.flags.append("b")
    assert rec.flags == ["a", "b"]
    row = rec.as_row()
    assert row["status"] == "env_error" and type(row["status"]) is str
    assert row["flags"] == '["a", "b"]' and row["metrics"] == "{}" and row["standardise"] is None
    back = RunRecord.from_row({**row, "standardise": 1})
    assert back.flags == ["a", "b"] and back.standardise is True and back.status is Status.ENV_ERROR
    st_missing = RunRecord(family="f", scm_id="s", split="obs", replicate=0, method="pc", config_hash="h")
    with Store(":memory:") as st:
        with pytest.raises(KeyError, match="lacks \\['status'\\]"):
            st.record(st_missing)
        assert st.rows() == []


def _old_row(key, status, **kw):
    """A row as the pre-refactor runner wrote it: JSON text columns, standardise 0/1."""
    import json

    row = dict(zip(KEY_COLUMNS, key), status=status, flags=json.dumps(kw.pop("flags", [])),
               metrics=json.dumps(kw.pop("metrics", {}), sort_keys=True), params="{}", standardise=1,
               protocol="default", factors='{"graph": "chain"}', output_kind="dag",
               started_at="2025-01-01T00:00:00.000+00:00", finished_at="2025-01-01T00:00:01.000+00:00")
    row.update(kw)
    return row


def test_a_store_with_the_pre_refactor_schema_opens_and_resumes(tmp_path):
    from fault_methods import TESTS_DIR, ChainInstance, info

    from causalarena.plugins import get_registry
    from causalarena.records import Status
    from causalarena.report import leaderboard_numeric
    from causalarena.runner import make_cells, run_grid
    from causalarena.runs import RunRecord

    inst = ChainInstance("chain-old", splits=("obs",), n_replicates=2)
    cells = make_cells([inst], [info("chain", "Chain"), info("needs_r", "NeedsR")])
    # keys of the new code = keys of the old code (config_hash is unchanged): rep 0 of both methods stored
    from causalarena.runner import grid_keys

    keys = dict(zip([(c.method.name, c.replicate) for c in cells], grid_keys(cells)))
    path = str(tmp_path / "old.sqlite")
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute(PRE_REFACTOR_SCHEMA)
    for row in (_old_row(keys[("chain", 0)], "ok", metrics={"shd": 0.0, "f1": 1.0}, flags=["x"], n=200, d=3,
                         seed=7, wall_seconds=0.5, worker_id="abc", worker_seq=1, isolation="none"),
                _old_row(keys[("needs_r", 0)], "env_error", error="R package 'pcalg' is not installed")):
        names = list(row)
        con.execute(f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
                    [row[k] for k in names])
    con.commit()
    con.close()

    with Store(path, readonly=True) as ro:
        [ok, env] = sorted(ro.records(), key=lambda r: r.method)
    assert isinstance(ok, RunRecord) and ok.status is Status.OK and env.status is Status.ENV_ERROR
    assert ok.metrics == {"shd": 0.0, "f1": 1.0} and ok.flags == ["x"] and ok.standardise is True
    assert ok.factors == {"graph": "chain"} and ok.worker_seq == 1 and env.error.startswith("R package")

    with Store(path) as st:
        assert st.done_keys() == {keys[("chain", 0)], keys[("needs_r", 0)]}
        summary = run_grid(cells, get_registry(), st, env={"PYTHONPATH": TESTS_DIR}, progress=False)
        assert summary.skipped == 2 and summary.counts == {"ok": 1, "env_error": 1}
        assert summary.failures == 1
        rows = {(r["method"], r["replicate"]): r for r in st.rows()}
        # the stored rows are untouched (not rerun), the new ones written in the same table
        assert rows[("chain", 0)]["finished_at"] == "2025-01-01T00:00:01.000+00:00"
        assert rows[("chain", 0)]["metrics"] == {"shd": 0.0, "f1": 1.0}
        assert rows[("chain", 1)]["status"] == "ok" and rows[("chain", 1)]["metrics"]["shd"] == 0.0
        assert rows[("needs_r", 1)]["status"] == "env_error"
        frame = st.runs_frame()
        again = run_grid(cells, get_registry(), st, env={"PYTHONPATH": TESTS_DIR}, progress=False)
        assert again.skipped == 4 and again.counts == {}
    board = leaderboard_numeric(frame)
    cells_ = {r["method"]: r for r in board[board["column"] != "Avg"].to_dict("records")}
    assert cells_["chain"]["n_ok"] == 2 and cells_["chain"]["f1_mean"] == 1.0 and cells_["chain"]["shd_mean"] == 0.0
    assert cells_["needs_r"]["n_failed"] == 2 and cells_["needs_r"]["n_ok"] == 0
    # the schema is still the one it was written with: same columns, none renamed; the only one
    # added is the later `scoring` column (issue 12, the CPDAG scoring policy), appended on open
    con = sqlite3.connect(path)
    assert con.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()[0] == \
        PRE_REFACTOR_SCHEMA.replace("isolation TEXT,", "isolation TEXT, scoring TEXT, task TEXT,")
    con.close()
