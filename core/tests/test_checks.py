"""Input checks (cases I1–I6, I12) and output checks (I7–I9, M6)."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.checks import CONDITION_WARNING, check_input, check_output
from causalarena.data import Dataset, Prediction
from causalarena.protocol import standardise
from causalarena.records import MethodInfo

FULL_RANK = MethodInfo(name="pc", factory="x:Y", requires_full_rank=True)
LENIENT = MethodInfo(name="lenient", factory="x:Y")
MISSING_OK = MethodInfo(name="mf", factory="x:Y", handles_missing=True)
LINGAM = MethodInfo(name="direct_lingam", factory="x:Y", min_samples_factor=1.0)


def ds(X, columns=None):
    X = np.asarray(X, dtype=float)
    return Dataset(X=X, columns=columns or [f"X{i}" for i in range(X.shape[1])])


def test_clean_table_passes_without_warnings():
    rng = np.random.default_rng(0)
    res = check_input(ds(rng.normal(size=(500, 5))), FULL_RANK)
    assert res.ok and res.problems == [] and res.warnings == []
    assert 1.0 <= res.condition_number < 2.0  # independent N(0,1) columns, n = 500


def test_i1_exact_linear_dependence_names_the_columns():
    rng = np.random.default_rng(1)
    x, z = rng.normal(size=500), rng.normal(size=500)
    table = ds(np.column_stack([x, 0.5 * x, 0.8 * x, z]), ["X", "W", "Y", "Z"])
    res = check_input(table, FULL_RANK)
    assert not res.ok
    msg = res.message()
    assert "rank 2 < 4 columns" in msg
    # two of X, W, Y are named as combinations of the third; Z never is
    dependent = [name for name in ("'X' is", "'W' is", "'Y' is") if name in msg]
    assert len(dependent) == 2 and "'Z'" not in msg
    # a method that does not invert the covariance gets a flag instead
    lenient = check_input(table, LENIENT)
    assert lenient.ok and lenient.warnings[0].startswith("rank_deficient: rank-deficient table (rank 2 < 4")


def test_i1_standardised_duplicates_and_dependence():
    rng = np.random.default_rng(1)
    x = rng.normal(size=500)
    res = check_input(ds(standardise(np.column_stack([x, 0.5 * x, 0.8 * x, rng.normal(size=500)])),
                         ["X", "W", "Y", "Z"]), FULL_RANK)
    assert not res.ok
    assert "'Y'" in res.message() and "'Z'" not in res.message()


def test_i2_constant_column_named():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 5))
    X[:, 3] = 1.0
    res = check_input(ds(X), LENIENT)
    assert res.problems == ["constant (zero-variance) columns 'X3'"]
    # the shared protocol leaves constant columns at 0, still detected
    assert check_input(ds(standardise(X)), LENIENT).problems == ["constant (zero-variance) columns 'X3'"]


def test_i3_near_collinear_is_a_flag_not_a_refusal():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1000, 3))
    X4 = X.sum(axis=1) + 1e-7 * rng.normal(size=1000)
    res = check_input(ds(np.column_stack([X, X4])), FULL_RANK)
    assert res.ok
    assert res.condition_number > CONDITION_WARNING
    assert len(res.warnings) == 1 and res.warnings[0].startswith("near_collinear: condition number")


def test_i4_missing_values_fraction_and_refusal():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(100, 5))
    X[:20, 1] = np.nan
    X[50:70, 3] = np.nan
    res = check_input(ds(X), LENIENT)
    assert res.nan_fraction == {"X1": 0.2, "X3": 0.2}
    assert res.problems[0] == ("missing values (NaN) in columns 'X1' (20%), 'X3' (20%); "
                               "the method does not handle missing data")
    ok = check_input(ds(X), MISSING_OK)
    assert ok.ok and ok.warnings == ["missing_values: 'X1' (20%), 'X3' (20%)"]


def test_infinite_values_always_refused():
    X = np.random.default_rng(5).normal(size=(50, 3))
    X[7, 2] = np.inf
    res = check_input(ds(X), MISSING_OK)
    assert res.problems == ["infinite values in columns 'X2'"]


def test_i5_duplicate_pair_named():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 4))
    X = np.column_stack([X, X[:, 1]])
    res = check_input(ds(X), LENIENT)
    assert res.problems == ["duplicate columns: 'X1' = 'X4'"]


def test_i6_too_few_rows_for_the_method():
    X = np.random.default_rng(7).normal(size=(20, 50))
    res = check_input(ds(X), LINGAM)
    assert "too few rows: n = 20 < 1 · d = 50 required by the method" in res.problems
    # no capability declared: only a warning (n <= d)
    lenient = check_input(ds(X), LENIENT)
    assert lenient.ok and lenient.warnings[0].startswith("n_le_d: n = 20 rows ≤ d = 50 columns")


def test_i12_three_by_three_integers():
    X = np.arange(1, 10, dtype=float).reshape(3, 3)
    res = check_input(ds(X), FULL_RANK)
    assert res.problems == ["n = 3 rows ≤ d = 3 columns: the sample covariance is singular"]


# ---------------------------------------------------------------------------
# outputs
# ---------------------------------------------------------------------------

CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])


def pred(a, kind="dag", scores=None):
    return Prediction(adjacency=np.asarray(a, dtype=float), kind=kind, edge_scores=scores)


def test_valid_dag_passes():
    res = check_output(pred(CHAIN), 3)
    assert res.ok and res.flags == []


@pytest.mark.parametrize("adjacency, expected", [
    (np.zeros((2, 2)), "adjacency has shape (2, 2), expected (3, 3)"),
    ([[0, 1, np.nan], [0, 0, 1], [0, 0, 0]], "adjacency has 1 non-finite entries (first at (0, 2))"),
    ([[0, 0.7, 0], [0, 0, 1], [0, 0, 0]], "adjacency values must be 0 or 1; found [0.7] (first at [0, 1]: 0 -> 1)"),
    ([[0, -1, 0], [1, 0, 0], [0, 0, 0]], "adjacency values must be 0 or 1; found [-1.0] (first at [0, 1]: 0 -> 1)"),
    ([[1, 1, 0], [0, 0, 1], [0, 0, 0]], "self-loops at 0"),
])
def test_i7_malformed_adjacency_is_invalid(adjacency, expected):
    res = check_output(pred(adjacency), 3)
    assert res.problems == [expected]


def test_m6_two_cycle_in_a_dag_is_invalid_not_two_edges():
    a = CHAIN.copy()
    a[1, 0] = 1
    res = check_output(pred(a), 3, columns=["A", "B", "C"])
    assert res.problems == ["2-cycles in a promised DAG: A <-> B"]


def test_i8_cycle_named():
    a = CHAIN.copy()
    a[2, 0] = 1
    res = check_output(pred(a), 3, columns=["A", "B", "C"])
    assert res.problems == ["directed cycle in a promised DAG: A -> B -> C -> A"]


def test_i8_every_back_edge_on_a_random_10_node_dag_is_caught():
    rng = np.random.default_rng(8)
    for _ in range(20):
        perm = rng.permutation(10)
        upper = np.triu(rng.random((10, 10)) < 0.3, 1).astype(int)
        dag = upper[np.ix_(perm, perm)]
        assert check_output(pred(dag), 10).ok
        # add j -> i for a pair connected by a directed path i ~> j
        reach = np.linalg.matrix_power(np.eye(10, dtype=int) + dag, 10) > 0
        i, j = next((i, j) for i, j in np.argwhere(reach) if i != j and dag[j, i] == 0)
        bad = dag.copy()
        bad[j, i] = 1
        res = check_output(pred(bad), 10)
        assert not res.ok and ("cycle" in res.message())


def test_cpdag_undirected_edges_allowed_but_directed_cycle_not():
    und = CHAIN | CHAIN.T
    assert check_output(pred(und, "cpdag"), 3).ok
    cyc = CHAIN.copy()
    cyc[2, 0] = 1
    assert check_output(pred(cyc, "cpdag"), 3).problems == ["directed cycle in a promised CPDAG: 0 -> 1 -> 2 -> 0"]


def test_i9_all_zero_is_flagged_degenerate():
    res = check_output(pred(np.zeros((3, 3))), 3)
    assert res.ok and res.flags == ["degenerate_empty"]


def test_bad_edge_scores_are_flagged():
    scores = np.ones((3, 3))
    scores[0, 1] = np.nan
    assert check_output(pred(CHAIN, scores=scores), 3).flags == ["edge_scores_invalid"]
    assert check_output(pred(CHAIN, scores=np.ones((2, 2))), 3).flags == ["edge_scores_invalid"]


def test_unknown_kind():
    assert check_output(pred(CHAIN), 3, kind="mag").problems == [
        "unknown output kind 'mag'; expected 'dag', 'cpdag' or 'pag'"]
