"""Bad user tables get the right diagnosis (issue 12 items 6, 7 and 8).

* a column whose variance overflows float64 (a value near 1e308) is refused by
  the runner's input checks naming the column and the overflow, standardised
  or raw — never as a constant column, never with an empty rank flag;
* a table of one column is refused at load, naming the file;
* a file that is not UTF-8 names the file, the byte and the line; a table
  without a header row is blamed on the header, not on the edge list;
* every refusal happens when the family loads, and the command prints one
  line naming the table (no traceback, no panic text).
"""

from __future__ import annotations

import numpy as np
import pytest

from arena_family_real.family import RealFamily
from arena_family_real.loader import TableFormatError, load_table, read_edges, read_table
from causalarena.checks import check_input
from causalarena.cli import main
from causalarena.data import SCALE_PROBLEMS_KEY
from causalarena.records import MethodInfo

EDGES = "source,target\na,b\nb,c\n"
FULL_RANK = MethodInfo(name="m", factory="x:y", requires_full_rank=True)


def _csv(tmp_path, name, X, header="a,b,c"):
    lines = ([header] if header is not None else []) + [",".join(repr(float(v)) for v in row) for row in X]
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    e = tmp_path / (p.stem + ".edges.csv")
    e.write_text(EDGES)
    return p, e


def _chain(n=200, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + rng.normal(size=n)
    return np.column_stack([a, b, b + rng.normal(size=n)])


# -- item 6: overflow ------------------------------------------------------------------------------


@pytest.mark.parametrize("standardise", [True, False], ids=["standardised", "raw"])
@pytest.mark.parametrize("value", [1e308, -1.7e308, 1e200])
def test_an_overflowing_column_is_refused_by_name_not_as_constant(tmp_path, standardise, value):
    X = _chain()
    X[5, 0] = value
    inst = load_table(*_csv(tmp_path, "big.csv", X))
    ds = inst.dataset("obs", 0, standardise=standardise)
    assert set(ds.metadata[SCALE_PROBLEMS_KEY]) == {"a"}
    assert ds.metadata["varsortability"] is None  # not computable on such a table
    for method_info in (None, FULL_RANK):
        chk = check_input(ds, method_info)
        assert chk.problems == [p for p in chk.problems if p.startswith("column 'a': its variance overflows")]
        assert len(chk.problems) == 1
        text = " | ".join(chk.problems + chk.warnings)
        assert "constant" not in text and "linear combination of" not in text, text


def test_an_ordinary_table_records_no_scale_problem(tmp_path):
    ds = load_table(*_csv(tmp_path, "ok.csv", _chain())).dataset("obs", 0)
    assert SCALE_PROBLEMS_KEY not in ds.metadata and ds.metadata["varsortability"] is not None
    assert check_input(ds).ok


# -- item 7: d >= 2 --------------------------------------------------------------------------------


def test_a_one_column_table_is_refused_at_load_naming_the_file(tmp_path):
    p = tmp_path / "one.csv"
    p.write_text("a\n1\n2\n3\n")
    e = tmp_path / "one.edges.csv"
    e.write_text("source,target\n")
    with pytest.raises(TableFormatError, match=r"one\.csv: the table has 1 column \('a'\): a causal graph needs "
                                               r"at least 2 variables \(d >= 2\)"):
        load_table(p, e)
    with pytest.raises(TableFormatError, match="at least 2 variables"):
        RealFamily(sachs=False, folder=str(tmp_path)).instances()


# -- item 8: encoding and header -------------------------------------------------------------------


@pytest.mark.parametrize("payload,byte,line", [
    (b"a,b,c\n1,2,3\n4,5,\xff6\n", "0xff", 3),                       # one cp1252/latin-1 byte
    ("a,b,c\n1,2,3\n\u00e9t\u00e9,5,6\n".encode("latin-1"), "0xe9", 3),  # accented text saved as latin-1
    (b"\xef\xbb\xbfa,b,c\n1,2,3\n\n7,8,\x809\n", "0x80", 4),          # after a BOM and a blank line
    ("a,b,c\n1,2,3\n".encode("utf-16"), "0xff", 1),                  # UTF-16 (BOM ff fe)
])
def test_a_non_utf8_table_names_the_file_byte_and_line(tmp_path, payload, byte, line):
    p = tmp_path / "enc.csv"
    p.write_bytes(payload)
    with pytest.raises(TableFormatError) as exc:
        read_table(p)
    assert str(exc.value) == f"{p}: not UTF-8 (byte {byte} at line {line}): save it as UTF-8"


def test_a_non_utf8_edge_list_names_the_file_byte_and_line(tmp_path):
    e = tmp_path / "t.edges.csv"
    e.write_bytes(b"source,target\na,b\nb,\xe7\n")
    with pytest.raises(TableFormatError, match=rf"^{e}: not UTF-8 \(byte 0xe7 at line 3\): save it as UTF-8$"):
        read_edges(e, ["a", "b", "c"])


@pytest.mark.parametrize("first", ["1,2,3", "0.5,-1e3,nan", " 1 , 2 , 3 "])
def test_a_table_without_header_is_blamed_on_the_header(tmp_path, first):
    p = tmp_path / "nohead.csv"
    p.write_text(first + "\n4,5,6\n7,8,9\n")
    (tmp_path / "nohead.edges.csv").write_text(EDGES)
    msg = (r"nohead\.csv: line 1: the first row looks like data, not a header \(.*\): the table needs a header "
           r"row naming the variables")
    with pytest.raises(TableFormatError, match=msg):
        read_table(p)
    with pytest.raises(TableFormatError, match=msg):  # not "unknown variable 'a'" from the edge list
        load_table(p, tmp_path / "nohead.edges.csv")


def test_a_header_with_some_numeric_names_is_still_a_header(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("x1,2,x3\n1,2,3\n4,5,6\n")
    assert read_table(p)[0] == ["x1", "2", "x3"]


def test_line_numbers_count_lines_of_multiline_quoted_fields(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text('"a\nA",b\n1,2\n3,x\n')
    with pytest.raises(TableFormatError, match=r"first bad value 'x' at line 4"):
        read_table(p)


def test_an_unreadable_csv_row_names_the_line(tmp_path):
    import csv

    p = tmp_path / "t.csv"
    p.write_text("a,b\n1,2\n" + "3," + "9" * (csv.field_size_limit() + 1) + "\n")
    with pytest.raises(TableFormatError, match=r"t\.csv: line 3: not a readable CSV row"):
        read_table(p)


# -- through the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["one_column", "not_utf8", "no_header"])
def test_the_cli_refuses_a_bad_table_in_one_line(tmp_path, capfd, case):
    p, e = tmp_path / "t.csv", tmp_path / "t.edges.csv"
    e.write_text(EDGES)
    if case == "one_column":
        p.write_text("a\n1\n2\n")
        e.write_text("source,target\n")
        want = "at least 2 variables"
    elif case == "not_utf8":
        p.write_bytes(b"a,b,c\n1,2,3\n4,5,\xff6\n")
        want = "not UTF-8 (byte 0xff at line 3): save it as UTF-8"
    else:
        p.write_text("1,2,3\n4,5,6\n")
        want = "the first row looks like data, not a header"
    # `arena show real` loads the family as `arena run` does (this env installs no method to run)
    code = main(["show", "real", "--family-option", "real.sachs=false", "--family-option", f"real.tables={p}={e}"])
    out, err = capfd.readouterr()
    assert code != 0
    assert want in out + err and str(p) in out + err, out + err
    assert "Traceback" not in out + err and "panicked" not in out + err


def test_one_bad_table_among_several_names_the_readable_ones_and_how_to_run_them(tmp_path):
    """Refused up front (exit code as before), but the error lists every bad table and the good ones with the
    option that runs them alone (it stopped at the first bad table and said nothing of the others)."""
    from arena_family_real.family import RealFamily

    (tmp_path / "good.csv").write_text("a,b,c\n1,2,3\n2,3,4\n3,5,6\n4,4,4\n")
    (tmp_path / "good.edges").write_text("source,target\na,b\nb,c\n")
    (tmp_path / "bad.csv").write_text("a,b,c\n1,2\n")
    (tmp_path / "bad.edges").write_text("source,target\na,b\n")
    (tmp_path / "gone.edges").write_text("source,target\na,b\n")
    g, b, gone = (str(tmp_path / n) for n in ("good", "bad", "gone"))
    fam = RealFamily(sachs=False, tables=f"{b}.csv={b}.edges;{g}.csv={g}.edges;{gone}.csv={gone}.edges")
    with pytest.raises(TableFormatError) as exc:
        fam.instances()
    assert str(exc.value).splitlines() == [
        "2 of 3 user table(s) cannot be read:",
        f"  {b}.csv: line 2 has 2 fields, the header has 3",  # the path once (it was printed twice)
        f"  {gone}.csv: data CSV not found: {gone}.csv",
        f"readable: {g}.csv; to run those alone: --family-option real.tables={g}.csv={g}.edges",
    ]
    only_good = RealFamily(sachs=False, tables=f"{g}.csv={g}.edges")
    assert [i.scm_id for i in only_good.instances()] == ["good"]
