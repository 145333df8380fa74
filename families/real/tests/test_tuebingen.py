"""The Tübingen cause–effect pairs track (issue 24, item 4): counts against the shipped files, the
column order, the orientation-accuracy metric and a hand-made prediction set's weighted accuracy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from arena_family_real.family import cdt_files
from arena_family_real.loader import TableFormatError
from arena_family_real.tuebingen import (
    NOT_SHIPPED,
    PAIRS_FILE,
    TARGETS_FILE,
    TuebingenFamily,
    build_pairs,
    cep_number,
    flipped_pairs,
    orientation_accuracy,
    read_pairs,
    weighted_accuracy,
)
from arena_testkit import family_checks, parametrize_family_checks
from arena_testkit.families import SMALL_N
from causalarena.metrics import compute_metrics
from causalarena.plugins import get_registry

XY = np.array([[0, 1], [0, 0]])  # x -> y
YX = XY.T
EMPTY = np.zeros((2, 2), dtype=int)
BOTH = np.array([[0, 1], [1, 0]])  # undirected CPDAG edge / bidirected answer


@pytest.fixture(scope="module")
def family():
    return TuebingenFamily()


@pytest.fixture(scope="module")
def pairs(family):
    return {inst.scm_id: inst for inst in family.instances()}


# --------------------------------------------------------------------------- counts and ids


def test_kept_pairs_match_the_shipped_files(pairs, family):
    (pairs_csv, targets_csv), version = cdt_files((PAIRS_FILE, TARGETS_FILE), "test")
    assert version == "0.6.0"
    # the files themselves: a header and 99 pairs each, every target 1 (A causes B)
    lines = pairs_csv.read_text().splitlines()
    assert len(lines) == 100 and lines[0].strip() == "SampleID,A,B"
    targets = targets_csv.read_text().splitlines()[1:]
    assert len(targets) == 99 and {t.split(",")[1].strip() for t in targets} == {"1.0"}
    # every pair of the file is kept (cdt already dropped CEP's multivariate pairs), none left out
    assert len(pairs) == 99 and family.left_out() == []
    expected = [f"pair{k:04d}" for k in range(1, 105) if k not in (52, 53, 54, 55, 71)]
    assert list(pairs) == expected
    # CEP 0001-0108 = the 99 kept + the 9 pairs cdt 0.6.0 does not ship (listed in the README)
    assert sorted(set(expected) | {p for p, _ in NOT_SHIPPED}) == [f"pair{k:04d}" for k in range(1, 109)]
    assert sum("multivariate" in why for _, why in NOT_SHIPPED) == 6


def test_cep_numbering():
    assert [cep_number(k) for k in (1, 51, 52, 59, 66, 67, 99)] == [1, 51, 56, 63, 70, 72, 104]
    for bad in (0, 100):
        with pytest.raises(ValueError, match="1..99"):
            cep_number(bad)


def test_sample_sizes_and_values_from_the_file(pairs):
    # CEP 0001 (altitude -> temperature, 349 DWD stations), 0047 (cdt pair47: type of day -> cars),
    # 0069 (cdt pair65, the largest: 16382 rows), 0104 (cdt pair99, n = 109)
    assert {k: pairs[k].X_raw.shape for k in ("pair0001", "pair0047", "pair0069", "pair0104")} == {
        "pair0001": (349, 2), "pair0047": (254, 2), "pair0069": (16382, 2), "pair0104": (109, 2)}
    p = pairs["pair0001"]
    cause = p.X_raw[:, int(np.flatnonzero(p.adjacency.any(axis=1))[0])]
    effect = p.X_raw[:, int(np.flatnonzero(p.adjacency.any(axis=0))[0])]
    assert cause[:3].tolist() == [205.0, 46.0, 794.0] and effect[:3].tolist() == [9.7, 8.2, 6.4]
    day = pairs["pair0047"]
    cause = day.X_raw[:, int(np.flatnonzero(day.adjacency.any(axis=1))[0])]
    assert sorted(set(cause.tolist())) == [1.0, 2.0]  # type of day causes the number of cars
    assert p.factors == {"source": "cdt 0.6.0 Tuebingen_pairs", "cdt_id": "pair1", "cep_pair": 1, "weight": 1.0,
                         "d": 2, "n": 349}
    assert pairs["pair0056"].factors["cdt_id"] == "pair52"


def test_column_order_is_balanced_and_fixed(pairs):
    flipped = [k for k, inst in pairs.items() if inst.adjacency[1, 0] == 1]
    assert len(flipped) == 49 and set(flipped) == flipped_pairs(pairs)
    assert all(inst.columns == ["x", "y"] and int(inst.adjacency.sum()) == 1 for inst in pairs.values())
    # the same pairs whatever the selection (drawn over all ids, not the selected ones)
    two = TuebingenFamily(pairs="pair0002,pair0001").instances()
    assert [i.scm_id for i in two] == ["pair0002", "pair0001"]
    assert all((i.adjacency == pairs[i.scm_id].adjacency).all() for i in two)
    # "always column 1 -> column 2" scores 50/99 with equal weights, not 1
    scores = [orientation_accuracy(inst.adjacency, XY) for inst in pairs.values()]
    assert weighted_accuracy(scores) == pytest.approx(50 / 99)


def test_datasets_obs_only_and_deterministic(pairs):
    inst = pairs["pair0001"]
    a, b = inst.dataset("obs", 0), inst.dataset("obs", 0)
    assert a.X.shape == (349, 2) and a.to_npz_bytes() == b.to_npz_bytes()
    assert inst.splits == ("obs",) and inst.n_replicates == 1
    with pytest.raises(ValueError, match="obs_int"):
        inst.dataset("obs_int", 0)


def test_unknown_pair_or_option_is_named():
    with pytest.raises(ValueError, match=r"'pair0052' is not a kept pair \(left out: multivariate"):
        TuebingenFamily(pairs="pair0001,pair0052").instances()
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['weights'\]"):
        TuebingenFamily(weights="x")


def test_files_read_without_importing_cdt():
    code = ("import sys; from arena_family_real.tuebingen import TuebingenFamily; "
            "n = len(TuebingenFamily().instances()); print(n, 'cdt' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["99", "False"]


#: the kit's ``datasets`` rule asks every table for ``n = 200`` rows (SMALL_N); 20 pairs are smaller and a
#: fixed table is never resampled, so the whole kit runs on the pairs with >= 200 rows and every other
#: check on all 99
_BIG = ",".join(i.scm_id for i in TuebingenFamily().instances() if i.X_raw.shape[0] >= SMALL_N)


@parametrize_family_checks("tuebingen", pairs=_BIG)
def test_conformance(check):
    check()


@pytest.mark.parametrize("check", [c for cid, c in family_checks("tuebingen") if cid != "datasets"],
                         ids=lambda c: repr(c))
def test_conformance_every_pair(check):
    check()


def test_pairs_below_the_kit_n_are_the_small_tables():
    small = sorted(i.scm_id for i in TuebingenFamily().instances() if i.X_raw.shape[0] < SMALL_N)
    assert len(_BIG.split(",")) == 99 - len(small) and len(small) == 20


# --------------------------------------------------------------------------- the metric


def test_orientation_accuracy_known_answers():
    assert orientation_accuracy(XY, XY) == 1.0
    assert orientation_accuracy(XY, YX) == 0.0
    assert orientation_accuracy(XY, EMPTY) == 0.5  # no decision: a fair coin (Mooij et al. 2016)
    assert orientation_accuracy(XY, BOTH) == 0.5  # undirected / bidirected: no decision either
    assert orientation_accuracy(YX, YX) == 1.0 and orientation_accuracy(YX, XY) == 0.0
    # undefined off the track: not d = 2, no edge, both edges in the truth
    assert orientation_accuracy(np.zeros((3, 3)), np.zeros((3, 3))) is None
    assert orientation_accuracy(EMPTY, XY) is None and orientation_accuracy(BOTH, XY) is None
    with pytest.raises(ValueError, match="shape"):
        orientation_accuracy(XY, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="self-loop"):
        orientation_accuracy(XY, np.eye(2, dtype=int))


def test_metric_registered_through_the_hook():
    reg = get_registry()
    info = reg.metrics["orientation_accuracy"]
    assert info.distribution == "arena-family-real" and info.higher_is_better
    assert reg.families["tuebingen"].kind == "real"
    values, warnings = compute_metrics(YX, YX, None, reg.metrics)
    assert values["orientation_accuracy"] == 1.0 and values["f1"] == 1.0 and not warnings
    values, _ = compute_metrics(YX, EMPTY, None, reg.metrics)
    assert values["orientation_accuracy"] == 0.5 and values["f1"] == 0.0
    values, _ = compute_metrics(np.triu(np.ones((3, 3)), 1), np.zeros((3, 3)), None, reg.metrics)
    assert values["orientation_accuracy"] is None


def test_weighted_accuracy_of_a_hand_made_prediction_set(tmp_path):
    # four pairs of a hand-made file: A -> B, B -> A (target -1), A -> B, A -> B; a fifth with target 0
    a = " ".join(str(v) for v in range(10))
    (tmp_path / "pairs.csv").write_text("SampleID,A,B\r\n" + "".join(f"pair{k},{a},{a}\r\n" for k in (1, 2, 3, 4, 5)))
    (tmp_path / "targets.csv").write_text("SampleID,Target\npair1,1.0\npair2,-1.0\npair3,1\npair4,1\npair5,0\n")
    # CEP's pairmeta format; pair 0003 multivariate (cause columns 1-2)
    (tmp_path / "pairmeta.txt").write_text("0001 1 1 2 2 0.5\n0002 2 2 1 1 0.25\n0003 1 2 3 3 1\n"
                                           "0004 1 1 2 2 1\n0005 1 1 2 2 1\n")
    kept, left = build_pairs(tmp_path / "pairs.csv", tmp_path / "targets.csv", "test",
                             pairmeta=tmp_path / "pairmeta.txt")
    assert [k.scm_id for k in kept] == ["pair0001", "pair0002", "pair0004"]
    assert left == [("pair0003", "multivariate in pairmeta.txt"),
                    ("pair0005", "cdt target 0 gives no direction (1 = A → B, -1 = B → A)")]
    by = {k.scm_id: k for k in kept}
    truth = {k: by[k].adjacency for k in by}
    # predictions: 0001 right, 0002 reversed, 0004 empty (no decision)
    pred = {"pair0001": truth["pair0001"], "pair0002": truth["pair0002"].T, "pair0004": EMPTY}
    scores = [orientation_accuracy(truth[k], pred[k]) for k in by]
    weights = [by[k].factors["weight"] for k in by]
    assert scores == [1.0, 0.0, 0.5] and weights == [0.5, 0.25, 1.0]
    # (0.5·1 + 0.25·0 + 1·0.5) / 1.75 = 4/7; equal weights: 1.5/3
    assert weighted_accuracy(scores, weights) == pytest.approx(4 / 7)
    assert weighted_accuracy(scores) == pytest.approx(0.5)
    # without pairmeta every weight is 1 and pair 0003 is kept
    kept, left = build_pairs(tmp_path / "pairs.csv", tmp_path / "targets.csv", "test")
    assert [k.factors["weight"] for k in kept] == [1.0] * 4 and [p for p, _ in left] == ["pair0005"]


def test_weighted_accuracy_errors():
    with pytest.raises(ValueError, match="no pairs"):
        weighted_accuracy([])
    with pytest.raises(ValueError, match="2 scores but 1 weights"):
        weighted_accuracy([1, 0], [1])
    with pytest.raises(ValueError, match="NaN"):
        weighted_accuracy([1, float("nan")])
    with pytest.raises(ValueError, match="not all 0"):
        weighted_accuracy([1, 0], [0, 0])


@pytest.mark.parametrize("body,match", [
    ("SampleID,X,Y\n", "line 1 must be the header"),
    ("SampleID,A,B\npair1,1 2 3,1 2\n", "line 2 .pair1.: A has 3 values, B has 2"),
    ("SampleID,A,B\npair1,1 2 x,1 2 3\n", "line 2 .pair1. column A: not a list of numbers"),
    ("SampleID,A,B\npair1,1 2,1 2,3\n", "line 2 has 4 fields"),
    ("SampleID,A,B\npair1,1 2,1 2\npair1,1 2,1 2\n", "pair 'pair1' repeats line 2"),
])
def test_bad_pairs_file_names_the_line(tmp_path, body, match):
    path = tmp_path / "pairs.csv"
    path.write_text(body)
    with pytest.raises(TableFormatError, match=match):
        read_pairs(path)
