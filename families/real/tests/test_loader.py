"""User tables: load_table / read_table / read_edges and the family options, with each error."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena_family_real.family import RealFamily
from arena_family_real.loader import TableFormatError, load_table, read_edges, read_table

DATA = "a,b,c\n1,2,3\n2,4,7\n3,5,8\n4,9,1\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_load_table_csv_edges(tmp_path):
    csv_p = write(tmp_path, "toy.csv", DATA)
    e = write(tmp_path, "toy.edges.csv", "source,target\na,b\nb,c\n")
    inst = load_table(csv_p, e)
    assert inst.scm_id == "toy" and inst.family == "real"
    A = inst.true_adjacency()
    np.testing.assert_array_equal(A, [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    raw = inst.dataset("obs", 0, standardise=False)
    np.testing.assert_array_equal(raw.X[:, 1], [2, 4, 5, 9])
    std = inst.dataset("obs", 0)
    # column a = 1..4: mean 2.5, population sd sqrt(1.25)
    np.testing.assert_allclose(std.X[:, 0], (np.arange(1, 5) - 2.5) / math.sqrt(1.25))
    assert inst.factors == {"source": "toy.csv", "domain": "user", "d": 3, "n": 4}
    assert std.metadata["truth_is_dag"] is True


def test_whitespace_edge_list_with_header_and_comments(tmp_path):
    csv_p = write(tmp_path, "t.csv", DATA)
    e = write(tmp_path, "t.edges", "# graph\nsource target\n\nc   a\nc\tb\n")
    inst = load_table(csv_p, e, name="mine")
    assert inst.scm_id == "mine"
    np.testing.assert_array_equal(inst.true_adjacency(), [[0, 0, 0], [0, 0, 0], [1, 1, 0]])


def test_cdt_style_quoted_cause_effect_header(tmp_path):
    cols, _ = read_table(write(tmp_path, "t.csv", DATA))
    A, cycles = read_edges(write(tmp_path, "e.csv", '"Cause","Effect"\n"a","c"\n'), cols)
    assert A[0, 2] == 1 and A.sum() == 1 and cycles == []


def test_nan_cells_allowed_and_recorded(tmp_path):
    csv_p = write(tmp_path, "n.csv", "a,b\n1,\n2,NA\n3,5\nnan,6\n")
    e = write(tmp_path, "n.edges.csv", "source,target\na,b\n")
    inst = load_table(csv_p, e)
    md = inst.dataset("obs", 0).metadata
    assert md["nan_fraction"] == {"a": 0.25, "b": 0.5}
    std = inst.dataset("obs", 0)
    # NaN-aware standardisation: column a observed 1,2,3
    np.testing.assert_allclose(std.X[:3, 0], [-math.sqrt(1.5), 0.0, math.sqrt(1.5)])
    assert np.isnan(std.X[3, 0])


def test_file_missing(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\n")
    with pytest.raises(FileNotFoundError, match=r"data CSV not found: .*nope\.csv"):
        load_table(tmp_path / "nope.csv", e)
    csv_p = write(tmp_path, "t.csv", DATA)
    with pytest.raises(FileNotFoundError, match=r"edge list not found: .*gone\.csv"):
        load_table(csv_p, tmp_path / "gone.csv")


def test_non_numeric_column_names_column_and_first_bad_line(tmp_path):
    p = write(tmp_path, "t.csv", "a,b\n1,2\n3,x\n4,y\n")
    with pytest.raises(TableFormatError, match=r"t\.csv: column 'b' is not numeric: first bad value 'x' at line 3"):
        read_table(p)


def test_infinite_value(tmp_path):
    p = write(tmp_path, "t.csv", "a,b\n1,2\n3,inf\n")
    with pytest.raises(TableFormatError, match=r"column 'b' has an infinite value 'inf' at line 3"):
        read_table(p)


@pytest.mark.parametrize("text,msg", [("", "empty table \\(no header row\\)"),
                                      ("a,b\n", "empty table \\(header only, no data rows\\)")])
def test_empty_table(tmp_path, text, msg):
    with pytest.raises(TableFormatError, match=r"t\.csv: " + msg):
        read_table(write(tmp_path, "t.csv", text))


def test_duplicate_column_names(tmp_path):
    p = write(tmp_path, "t.csv", "a,b,a\n1,2,3\n")
    with pytest.raises(TableFormatError, match=r"duplicate column name 'a' \(columns 1 and 3\)"):
        read_table(p)


def test_ragged_row(tmp_path):
    p = write(tmp_path, "t.csv", "a,b\n1,2\n3\n")
    with pytest.raises(TableFormatError, match=r"line 3 has 1 fields, the header has 2"):
        read_table(p)


def _cols(tmp_path):
    return read_table(write(tmp_path, "t.csv", DATA))[0]


def test_unknown_variable_named_with_line_and_hint(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,b\nB,c\n")
    with pytest.raises(TableFormatError, match=r"e\.csv: line 3: unknown variable 'B'.*did you mean 'b'\?"):
        read_edges(e, _cols(tmp_path))


def test_self_loop(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,a\n")
    with pytest.raises(TableFormatError, match=r"e\.csv: line 2: self-loop 'a' -> 'a'"):
        read_edges(e, _cols(tmp_path))


def test_duplicated_edge_is_an_error(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,b\nb,c\na,b\n")
    with pytest.raises(TableFormatError, match=r"line 4: duplicated edge 'a' -> 'b' \(first given at line 2\)"):
        read_edges(e, _cols(tmp_path))


def test_cycle_is_named(tmp_path):
    e = write(tmp_path, "e.csv", "source,target\na,b\nb,c\nc,a\n")
    with pytest.raises(TableFormatError, match=r"e\.csv: the edge list has a cycle: a -> b -> c -> a"):
        read_edges(e, _cols(tmp_path))
    A, cycles = read_edges(e, _cols(tmp_path), allow_cycles=True)
    assert A.sum() == 3 and cycles == [["a", "b", "c"]]


def test_bad_edge_header_and_field_count(tmp_path):
    with pytest.raises(TableFormatError, match=r"line 1: a CSV edge list needs the header 'source,target'"):
        read_edges(write(tmp_path, "e.csv", "from,to\na,b\n"), _cols(tmp_path))
    with pytest.raises(TableFormatError, match=r"e2\.txt: line 2 has 3 fields, an edge needs 2"):
        read_edges(write(tmp_path, "e2.txt", "a b\nb c a\n"), _cols(tmp_path))


def test_family_tables_and_folder_options(tmp_path):
    write(tmp_path, "one.csv", DATA)
    write(tmp_path, "one.edges.csv", "source,target\na,b\n")
    sub = tmp_path / "dir"
    sub.mkdir()
    write(sub, "two.csv", DATA)
    write(sub, "two.edges", "b c\n")
    fam = RealFamily(sachs=False, tables=[(tmp_path / "one.csv", tmp_path / "one.edges.csv")],
                     folder=sub)
    assert [i.scm_id for i in fam.instances()] == ["one", "two"]
    assert fam.instance("two").true_adjacency()[1, 2] == 1
    fam2 = RealFamily(sachs=False, tables=f"{tmp_path / 'one.csv'}={tmp_path / 'one.edges.csv'}")
    assert [i.scm_id for i in fam2.instances()] == ["one"]
    write(sub, "one.csv", DATA)
    write(sub, "one.edges.txt", "a c\n")
    with pytest.raises(ValueError, match="two instances named 'one'"):
        RealFamily(sachs=False, tables=[(tmp_path / "one.csv", tmp_path / "one.edges.csv")],
                   folder=sub).instances()
    write(sub, "orphan.csv", DATA)
    with pytest.raises(FileNotFoundError, match=r"orphan\.csv has no edge list"):
        RealFamily(sachs=False, folder=sub).instances()
