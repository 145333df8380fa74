"""Bad input gets the right diagnosis (issue 12 items 6 and 7).

* A column float64 cannot standardise (a value near 1e308 overflows its
  variance; values near 1e-170 underflow it) is refused by the input checks
  with the column and the cause, never as a "constant" column, and never as a
  rank flag "'a' is a linear combination of " with an empty list — whether
  the table is given raw or the family standardised it (the family then
  records the finding before standardising, ``metadata["scale_problems"]``).
* A table of one variable is refused (``invalid_input``) and no Rust panic
  text of gadjid reaches the console: the SID wrapper validates before it
  calls gadjid.
"""

from __future__ import annotations

import numpy as np
import pytest
from fault_methods import TESTS_DIR, ChainInstance, info

from causalarena.checks import check_input
from causalarena.data import SCALE_PROBLEMS_KEY, Dataset, scale_problems
from causalarena.metrics import sid
from causalarena.plugins import get_registry
from causalarena.protocol import standardise
from causalarena.records import MethodInfo, Status
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

ENV = {"PYTHONPATH": TESTS_DIR}
COLS = ["a", "b", "c"]


def _table(n: int = 200, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + rng.normal(size=n)
    c = b + rng.normal(size=n)
    return np.column_stack([a, b, c])


def _family_dataset(X: np.ndarray, standardised: bool) -> Dataset:
    """What a family hands the runner: scale findings recorded on the raw table, then standardised."""
    meta = {"standardised": standardised}
    found = scale_problems(X, COLS, squares=False)
    if found:
        meta[SCALE_PROBLEMS_KEY] = found
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        Z = standardise(X) if standardised else X.copy()
    return Dataset(X=Z, columns=COLS, metadata=meta)


def _overflow(X):
    X[5, 0] = 1e308
    return X


def _overflow_negative(X):
    X[5, 0], X[6, 0] = 1.5e308, -1.5e308  # x - mean overflows too: standardise gives NaN
    return X


def _big_spread(X):
    X[:, 0] *= 1e160
    return X


def _underflow(X):
    X[:, 0] *= 1e-170
    return X


SCALE_CASES = {"overflow": _overflow, "overflow_negative": _overflow_negative, "big_spread": _big_spread,
               "underflow": _underflow}
FULL_RANK = MethodInfo(name="m", factory="x:y", requires_full_rank=True)


def _messages(chk):
    return list(chk.problems) + list(chk.warnings)


@pytest.mark.parametrize("standardised", [True, False], ids=["standardised", "raw"])
@pytest.mark.parametrize("case", sorted(SCALE_CASES))
@pytest.mark.parametrize("method_info", [None, FULL_RANK], ids=["default", "full_rank"])
def test_a_column_float64_cannot_scale_is_named_with_the_cause(case, standardised, method_info):
    X = SCALE_CASES[case](_table())
    chk = check_input(_family_dataset(X, standardised), method_info)
    assert not chk.ok
    scale = [p for p in chk.problems if p.startswith("column 'a': ")]
    assert len(scale) == 1, chk.problems
    assert ("overflows" if case != "underflow" else "underflows") in scale[0]
    assert "rescale the column" in scale[0]
    text = " | ".join(_messages(chk))
    assert "constant" not in text and "missing values" not in text, text
    # the other columns are fine: nothing else is refused or flagged
    assert chk.problems == scale, chk.problems
    assert not any("'b'" in m or "'c'" in m for m in _messages(chk)), _messages(chk)


@pytest.mark.parametrize("standardised", [True, False], ids=["standardised", "raw"])
@pytest.mark.parametrize("case", sorted(SCALE_CASES))
def test_no_rank_flag_has_an_empty_list(case, standardised):
    """The whole class: no message says 'linear combination of' followed by nothing."""
    X = SCALE_CASES[case](_table())
    for method_info in (None, FULL_RANK):
        for msg in _messages(check_input(_family_dataset(X, standardised), method_info)):
            for part in msg.split(";"):
                if "linear combination of" in part:
                    assert part.split("linear combination of", 1)[1].strip(), msg


def test_a_dependent_column_still_names_its_combination():
    X = _table()
    X = np.column_stack([X, X[:, 0] + X[:, 1]])
    ds = Dataset(X=standardise(X), columns=COLS + ["d"], metadata={"standardised": True})
    chk = check_input(ds, FULL_RANK)
    assert any("'d' is a linear combination of 'a', 'b'" in p for p in chk.problems), chk.problems


def test_a_value_whose_square_overflows_is_refused_in_raw_input_only():
    X = _table()
    X[:, 0] = 1e160 + X[:, 0] * 1e145  # variance finite, squares of the values are not
    assert scale_problems(X, COLS, squares=False) == {}
    raw = check_input(Dataset(X=X, columns=COLS, metadata={"standardised": False}))
    assert [p for p in raw.problems if p.startswith("column 'a': a value's square overflows")], raw.problems
    std = check_input(Dataset(X=standardise(X), columns=COLS, metadata={"standardised": True}))
    assert std.ok, std.problems


def test_scale_problems_ignores_ordinary_constant_and_missing_columns():
    X = _table()
    X[:, 1] = 1e200  # constant: the constant-column check's business (variance 0, no spread)
    X[3, 2] = np.nan
    assert scale_problems(X, COLS) == {}
    chk = check_input(Dataset(X=X, columns=COLS))
    assert any(p.startswith("constant (zero-variance) columns 'b'") for p in chk.problems)


# -- d < 2 -----------------------------------------------------------------------------------------


def test_check_input_refuses_a_single_variable():
    chk = check_input(Dataset(X=np.arange(10.0)[:, None], columns=["a"]))
    assert not chk.ok and "at least 2 variables" in chk.message() and "'a'" in chk.message()


@pytest.mark.parametrize("d", [0, 1])
def test_sid_validates_before_gadjid_and_prints_no_panic(d, capfd):
    with pytest.raises(ValueError, match="at least 2 variables"):
        sid(np.zeros((d, d), dtype=np.int8), np.zeros((d, d), dtype=np.int8))
    with pytest.raises(ValueError, match="cycle"):
        sid(np.array([[0, 1], [1, 0]]), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="square"):
        sid(np.zeros((2, 3)), np.zeros((2, 3)))
    out, err = capfd.readouterr()
    assert "panicked" not in out + err and "panic" not in (out + err).lower(), err


def test_a_one_variable_table_is_invalid_input_and_no_panic_reaches_the_console(tmp_path, capfd):
    X = _table()[:, :1]
    inst = ChainInstance("one-column", splits=("obs",), n_replicates=1, X=X, columns=["a"],
                         truth=np.zeros((1, 1), dtype=np.int8))
    cells = make_cells([inst], [info("empty", "Empty")])
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(cells, get_registry(), st, env=ENV, progress=False)
        (rec,) = list(st.records())
    assert rec.status == Status.INVALID_INPUT, (rec.status, rec.error)
    assert "at least 2 variables" in rec.error
    out, err = capfd.readouterr()
    assert "panicked" not in out + err, err


def test_an_overflowing_raw_column_is_invalid_input_in_a_run(tmp_path):
    X = _overflow(_table())
    inst = ChainInstance("overflow", splits=("obs",), n_replicates=1, X=X, columns=COLS)
    cells = make_cells([inst], [info("empty", "Empty")])
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(cells, get_registry(), st, env=ENV, progress=False)
        (rec,) = list(st.records())
    assert rec.status == Status.INVALID_INPUT
    assert rec.error.startswith("column 'a': its variance overflows float64"), rec.error
    assert "linear combination" not in " ".join(rec.flags or [])


def test_check_input_accepts_duck_typed_tables_without_metadata():
    """The card validator passes an object with X and columns only."""
    import types

    X = _overflow(_table())
    chk = check_input(types.SimpleNamespace(X=X, columns=COLS))
    assert [p for p in chk.problems if p.startswith("column 'a': its variance overflows")]
    assert check_input(types.SimpleNamespace(X=_table(), columns=COLS)).ok
