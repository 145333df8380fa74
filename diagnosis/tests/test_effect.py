"""The effect-estimation report on a hand-built store (effect_fixtures): every number is computed by hand.

Also: the discovery analyses ignore effect runs (a store with effect runs writes byte-identical discovery
tables), and a store without effect runs leaves the effect section out with a reason.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import effect_fixtures as ef
import numpy as np
import pandas as pd
import pytest
import test_write_diagnosis as tw

from arena_diagnosis import effect as E
from arena_diagnosis import slices
from arena_diagnosis.report import write_diagnosis
from arena_task_effect.task import estimates_frame
from causalarena.records import ReportContext
from causalarena.store import Store


def _frames(path: Path):
    with Store(str(path), readonly=True) as store:
        return store.runs_frame(), estimates_frame(store)


@pytest.fixture(scope="module")
def effect_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("effect") / "arena.sqlite"
    ef.add_effect_runs(path)
    return path


@pytest.fixture(scope="module")
def frames(effect_store):
    return _frames(effect_store)


def _context(results: Path, options=None):
    path = results / "arena.sqlite"
    runs, _ = _frames(path)

    def read(name, *args):
        with Store(str(path), readonly=True) as s:
            return getattr(s, name)(*args)

    registry = SimpleNamespace(methods={})
    return ReportContext(results=results, store_path=path, runs=runs, registry=registry, console=tw._Console(),
                         options=options or {}, reader=read)


def test_view_method_means_sd_and_decomposition(frames):
    runs, _ = frames
    table = E.view_method(runs)
    assert list(table.columns) == E.VIEW_COLUMNS
    got = {(r.view, r.method): (r.spehe2, r.mean_effect_error, r.centred_cate_error, r.spehe2_sd)
           for r in table.itertuples()}
    assert set(got) == set(ef.EXPECTED["view_method"])
    for key, want in ef.EXPECTED["view_method"].items():
        assert got[key] == pytest.approx(want, abs=1e-12), key
    # the two parts add up to sPEHE² in every cell; views in the paper's order, best method first
    assert np.allclose(table["mean_effect_error"] + table["centred_cate_error"], table["spehe2"])
    assert list(zip(table["view"], table["method"])) == [("bd", "dr"), ("bd", "sl"), ("fd", "dr"), ("iv", "dr"),
                                                         ("px", "dr"), ("hc", "dr"), ("hc", "sl")]
    # sl's bd unit of w0 averages its two replicates (1 and 0): 3 runs behind 2 worlds
    sl = table[(table["view"] == "bd") & (table["method"] == "sl")].iloc[0]
    assert (sl["worlds"], sl["runs"]) == (2, 3)


def test_stay_move_pairs_by_hand_with_queries_aligned_by_id(frames):
    runs, estimates = frames
    pairs, summary = E.stay_move(runs, estimates)
    dr_stay = pairs[(pairs["method"] == "dr") & (pairs["variant"] == "stay")].set_index("world")["error"]
    assert dr_stay["w0"] == pytest.approx((0.01 + 0.01 + 0.04) / 4)  # stored in reversed order: aligned by id
    assert dr_stay["w1"] == pytest.approx(0.16 / 4)
    dr_move = pairs[(pairs["method"] == "dr") & (pairs["variant"] == "move")].set_index("world")["error"]
    assert dr_move["w0"] == pytest.approx(0.08 / 4) and dr_move["w1"] == pytest.approx(0.0)
    assert set(pairs["queries"]) == {4}
    got = summary.set_index(["method", "view"])
    for key, (stay, move, n_stay, n_move) in ef.EXPECTED["stay_move"].items():
        row = got.loc[key]
        assert row["stay_error"] == pytest.approx(stay)
        assert (math.isnan(row["move_tracking_error"]) if math.isnan(move)
                else row["move_tracking_error"] == pytest.approx(move))
        assert (row["stay_worlds"], row["move_worlds"]) == (n_stay, n_move)
    assert got.loc[("dr", "bd"), "stay_sd"] == pytest.approx(0.025 / math.sqrt(2))


def test_hc_degradation_synthetic_and_ihdp(frames):
    runs, _ = frames
    table = E.hc_degradation(runs)
    got = {(r.source, r.method): (r.bd, r.hc, r.difference, r.ratio, r.pairs) for r in table.itertuples()}
    assert set(got) == set(ef.EXPECTED["hc"])
    for key, want in ef.EXPECTED["hc"].items():
        assert got[key] == pytest.approx(want), key
    assert list(table["method"][:2]) == ["sl", "dr"]  # largest ratio first


def test_bounds_table_per_assumption_and_gamma(frames):
    runs, _ = frames
    table = E.bounds_table(runs)
    assert list(table["view"]) == ["pi_manski", "pi_msm_1", "pi_msm_2"]
    assert list(table["assumption"]) == ["manski", "msm", "msm"]
    assert np.isnan(table["gamma"].iloc[0]) and list(table["gamma"].iloc[1:]) == [1.0, 2.0]
    for r in table.itertuples():
        assert (r.bound_rmse, r.containment, r.bound_width) == pytest.approx(ef.EXPECTED["bounds"][(r.method, r.view)])
    assert E.bounds_view("pi_iv") == ("iv", None) and E.bounds_view("pi_msm_1.25") == ("msm", 1.25)
    assert E.bounds_view("bd") is None


def test_real_and_context_tables(frames):
    runs, _ = frames
    real = E.real_table(runs)
    assert set(real["dataset"]) == {"ihdp"} and list(real["view"]) == ["bd", "hc"]
    for r in real.itertuples():
        assert (r.spehe2, r.spehe2_sd) == pytest.approx(ef.EXPECTED["real"][(r.view, r.method)])
        assert r.replicates == 3
    ctx = E.context_table(runs)
    got = {(r.view, r.method, r.n_context): r.spehe2 for r in ctx.itertuples()}
    for key, want in ef.EXPECTED["context"].items():
        assert got[key] == pytest.approx(want)
    bd_dr = ctx[(ctx["view"] == "bd") & (ctx["method"] == "dr")]
    assert list(bd_dr["n_context"]) == [1024, 100]  # default first, as Table 8
    # without any n_override the table is empty
    assert E.context_table(runs[runs["n_override"].isna()]).empty


def test_status_counts_unsupported_as_missing(frames):
    runs, _ = frames
    st = E.effect_status(runs).set_index("method")
    assert list(st.index) == ["bl", "dr", "sl"]
    sl = st.loc["sl"]
    assert (sl["runs"], sl["ok"], sl["missing (unsupported)"], sl["failed"]) == (13, 6, 6, 1)
    assert sl["failure statuses"] == "timeout 1"
    assert (sl["views ok"], sl["views unsupported"]) == ("bd, hc", "fd, iv, px")
    assert st.loc["dr", "views ok"] == "bd, fd, iv, px, hc" and st.loc["dr", "failed"] == 0


def test_discovery_analyses_ignore_effect_runs(tmp_path, frames):
    disc_path = tmp_path / "d.sqlite"
    tw._store(disc_path)
    disc, _ = _frames(disc_path)
    mixed = pd.concat([disc, frames[0]], ignore_index=True)
    assert len(slices.main_rows(mixed)) == len(slices.main_rows(disc)) == 12
    pd.testing.assert_frame_equal(slices.unit_scores(mixed, main_only=False), slices.unit_scores(disc, main_only=False))
    pd.testing.assert_frame_equal(slices.slice_scores(mixed, "graph"), slices.slice_scores(disc, "graph"))
    assert not slices.main_rows(frames[0]).shape[0]


def test_report_discovery_outputs_unchanged_and_effect_outputs_written(tmp_path):
    only, both = tmp_path / "only", tmp_path / "both"
    for folder in (only, both):
        folder.mkdir()
        tw._store(folder / "arena.sqlite")
    ef.add_effect_runs(both / "arena.sqlite")
    w_only = write_diagnosis(_context(only))
    w_both = write_diagnosis(_context(both))
    disc_tables = sorted(p.name for p in (only / "tables").iterdir())
    assert disc_tables and not [t for t in disc_tables if t.startswith("effect_")]
    for name in disc_tables:  # byte-identical discovery tables
        assert (both / "tables" / name).read_bytes() == (only / "tables" / name).read_bytes(), name
    eff_tables = sorted(p.name for p in (both / "tables").iterdir() if p.name.startswith("effect_"))
    assert eff_tables == ["effect_bounds.csv", "effect_context.csv", "effect_hc_degradation.csv", "effect_real.csv",
                          "effect_status.csv", "effect_stay_move.csv", "effect_stay_move_pairs.csv",
                          "effect_view_method.csv"]
    vm = pd.read_csv(both / "tables" / "effect_view_method.csv")
    assert vm.loc[(vm["view"] == "hc") & (vm["method"] == "sl"), "spehe2"].item() == pytest.approx(5.0)
    for stem in ("effect_view_method", "effect_stay_move", "effect_hc_degradation", "effect_bounds_gamma"):
        assert f"figure {stem}.png" in w_both and (both / "figures" / f"{stem}.svg").is_file(), stem
    assert not [k for k in w_only if "effect" in k]
    page_only = (only / "index.html").read_text(encoding="utf-8")
    page_both = (both / "index.html").read_text(encoding="utf-8")
    assert 'id="effect"' not in page_only and "no effect-estimation runs in this store" in page_only
    assert 'id="effect"' in page_both and "no effect-estimation runs" not in page_both
    # the page's leaderboard holds the discovery methods only
    board = page_both.split('id="leaderboard"')[1].split("</table>")[0]
    assert 'data-method="pc"' in board and 'data-method="dr"' not in board


def test_effect_only_store_and_left_out_reasons(tmp_path):
    res = tmp_path / "R"
    res.mkdir()
    with Store(str(res / "arena.sqlite")) as store:  # dr on bd only: no pairs, no bounds, no real, no --n
        for world in ("w0", "w1"):
            e = ef.ERRORS[("dr", "bd", world, 0)]
            ef._record(store, family="causalidview", scm_id=world, view="bd", replicate=0, method="dr",
                       factors={"world": world, "variant": "original"}, tau=ef.TAU[world],
                       cate=ef.TAU[world] + np.asarray(e, dtype=float))
    ctx = _context(res)
    write_diagnosis(ctx)
    vm = pd.read_csv(res / "tables" / "effect_view_method.csv")
    assert vm[["view", "method", "spehe2"]].values.tolist() == [["bd", "dr", 0.625]]
    page = (res / "index.html").read_text(encoding="utf-8")
    left = page.split('id="effect-left-out"')[1].split("</table>")[0]
    for reason in ("no ok causalidview runs of a stay or move variant", "no method has both a bd and an hc run",
                   "no ok partial-identification runs", "no ok effect_real runs",
                   "no effect runs with a context-size override"):
        assert reason in left, reason
    assert any("no ok effect_real runs" in line for line in ctx.console.lines)
    # --factors slices discovery runs: on this store it is refused with the reason, not answered with
    # the discovery grid's factor names
    from arena_diagnosis.report import check_options

    with pytest.raises(ValueError, match=r"--factors world: the factor slices and interactions read discovery "
                                         r"runs and this store holds effect runs only"):
        check_options({"factors": ["world"]}, ctx.runs)


def test_bad_input_names_the_field(frames):
    runs, estimates = frames
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['status'\]"):
        E.view_method(runs.drop(columns=["status"]))
    with pytest.raises(ValueError, match=r"estimates table lacks column\(s\) \['tau'\]"):
        E.stay_move(runs, estimates.drop(columns=["tau"]))
