"""The ``arena_reports`` hook: ``arena report`` calls report extensions after the leaderboard, never fatally."""

from __future__ import annotations

import errno
from typing import Any, List

import numpy as np
import pytest
from fault_methods import TESTS_DIR, info

from causalarena.cli import main
from causalarena.hookspecs import hookimpl
from causalarena.plugins import get_registry, temporary_plugins
from causalarena.records import FamilyInfo, MethodInfo, ReportContext, ReportInfo
from causalarena.store import Store

DIST = "arena-test-reports"
CALLS: List[Any] = []  # (report name, context) in call order


def seen(ctx: ReportContext):
    """Records its context; writes one file naming how many predictions it read."""
    CALLS.append(("seen", ctx))
    path = ctx.results / "seen.txt"
    path.write_text(f"{len(ctx.predictions())} predictions\n")
    return {"seen": path}


def boom(ctx: ReportContext):
    CALLS.append(("boom", ctx))
    raise RuntimeError("the slicer broke")


def disk_full(ctx: ReportContext):
    CALLS.append(("disk_full", ctx))
    raise OSError(errno.ENOSPC, "No space left on device", str(ctx.results / "figure.png"))


def late(ctx: ReportContext):
    CALLS.append(("late", ctx))
    return {}


class _Reports:
    __distribution__ = DIST

    @hookimpl
    def arena_addoption(self, command, parser):
        """The extension's own options of ``arena report`` (the core declares none): they reach ctx.options."""
        if command == "report":
            parser.add_argument("--toy-slices", type=lambda t: [v.strip() for v in t.split(",")])
            parser.add_argument("--toy-loud", action="store_true")

    @hookimpl
    def arena_reports(self):
        # yielded out of order: the command runs them by `order`
        yield ReportInfo(name="late", factory=f"{__name__}:late", order=200)
        yield ReportInfo(name="disk_full", factory=f"{__name__}:disk_full", order=70)
        yield ReportInfo(name="boom", factory=f"{__name__}:boom", order=60)
        yield ReportInfo(name="seen", factory=f"{__name__}:seen", help="records its context", order=50)


class _Toys:
    __distribution__ = "arena-test-report-toys"

    @hookimpl
    def arena_families(self):
        yield FamilyInfo(name="toy", kind="synthetic", factory="family_toys:GoodFamily")

    @hookimpl
    def arena_methods(self):
        yield info("chain", "Chain")
        yield info("undirected", "UndirectedChain", output_kind="cpdag")
        yield MethodInfo(name="scored", factory="test_predictions:ScoredChain")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A real results folder: 2 toy chains x 1 replicate x 3 methods, obs and obs+int."""
    folder = tmp_path_factory.mktemp("report-hook") / "r"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", TESTS_DIR)
        code = main(["run", "--results", str(folder), "--families", "toy", "--methods", "chain,undirected,scored",
                     "--replicates", "1", "--no-progress", "--isolation", "none", "--jobs", "1"],
                    registry=get_registry(strict=False, extra_plugins=[_Toys()]))
    assert code == 0
    return folder


def _only_mine(reg):
    for name in [n for n, r in reg.reports.items() if r.distribution != DIST]:  # e.g. an installed arena-diagnosis
        del reg.reports[name]


def test_reports_run_in_order_with_the_real_store_and_failures_are_one_line(results, capsys):
    CALLS.clear()
    with temporary_plugins(_Reports()) as reg:
        _only_mine(reg)
        assert sorted(reg.reports) == ["boom", "disk_full", "late", "seen"]
        code = main(["report", "--results", str(results), "--toy-slices", "slices, win_rates", "--toy-loud"])
    out = capsys.readouterr().out
    assert code == 0
    assert [name for name, _ in CALLS] == ["seen", "boom", "disk_full", "late"]
    # the leaderboard was printed and written before any report ran, and is kept
    assert "chain" in out and (results / "leaderboard.md").exists()
    assert out.index("leaderboard.md") < out.index("seen: wrote")
    assert f"seen: wrote {results / 'seen.txt'}" in out
    assert f"report 'boom' of {DIST} 0 failed: RuntimeError: the slicer broke" in out
    assert (f"report 'disk_full' of {DIST} 0: files not written (No space left on device: "
            f"{results / 'figure.png'})") in out
    assert "pip install arena-diagnosis" not in out
    ctx = CALLS[0][1]
    assert ctx is CALLS[-1][1]  # one context, shared (its reads are cached)
    assert ctx.results == results and ctx.store_path == results / "arena.sqlite"
    assert ctx.registry is reg and ctx.console is not None
    # the plugin's options by dest, parsed by its own types (another installed plugin may add its own)
    assert ctx.options["toy_slices"] == ["slices", "win_rates"] and ctx.options["toy_loud"] is True
    assert ctx.options["metrics"] == ("f1", "shd")
    # runs: 2 SCMs x 2 splits x 3 methods; obs+int is unsupported for all three (none declares interventions)
    assert len(ctx.runs) == 12 and (ctx.runs["status"] == "ok").sum() == 6
    with Store(str(results / "arena.sqlite"), readonly=True) as st:
        expected, truths = st.predictions_frame(), st.truths()
    got = ctx.predictions()
    assert len(got) == 6 and (results / "seen.txt").read_text() == "6 predictions\n"
    assert list(got.columns) == list(expected.columns)
    key = ["family", "scm_id", "split", "replicate", "method", "config_hash", "kind", "truth_id"]
    assert got[key].equals(expected[key])
    assert all(np.array_equal(a, b) for a, b in zip(got["adjacency"], expected["adjacency"]))
    scored = got[got["method"] == "scored"].iloc[0]
    assert np.array_equal(scored["edge_scores"], np.array([[0.0, 0.9, 0.2], [0.1, 0.0, 0.25], [0.3, 0.05, 0.0]],
                                                          dtype=np.float32).astype(np.float64))
    assert ctx.truths() == truths and len(truths) == 2 and ctx.missing_predictions() == 0
    assert ctx.fill_command == f"arena run <the same selection> --results {results} --retry ok"


def test_without_a_report_one_dim_line_names_arena_diagnosis(results, capsys):
    with temporary_plugins() as reg:
        reg.reports.clear()
        assert main(["report", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "pip install arena-diagnosis adds slices, win rates, figures and the HTML report" in out
    assert "chain" in out


def test_no_extensions_writes_the_leaderboard_and_runs_no_report(results, capsys):
    CALLS.clear()
    (results / "leaderboard.md").unlink()
    with temporary_plugins(_Reports()) as reg:
        _only_mine(reg)
        assert main(["report", "--results", str(results), "--no-extensions"]) == 0
        out = capsys.readouterr().out
        assert CALLS == [] and "chain" in out and (results / "leaderboard.md").exists()
        assert "pip install arena-diagnosis" not in out  # skipped on purpose, not missing
        # extension options with --no-extensions are a contradiction: exit 2, nothing run
        assert main(["report", "--results", str(results), "--no-extensions", "--toy-loud"]) == 2
    err = capsys.readouterr().err
    assert "--toy-loud configure the report extensions; --no-extensions skips them" in err and CALLS == []


def test_a_report_record_is_listed_by_arena_plugins(capsys):
    with temporary_plugins(_Reports()) as reg:
        assert reg.reports["seen"].distribution == DIST and reg.reports["seen"].order == 50
        rows = [r for r in reg.as_rows() if r["kind"] == "report" and r["distribution"] == DIST]
    assert sorted((r["name"], r["description"]) for r in rows) == [
        ("boom", ""), ("disk_full", ""), ("late", ""), ("seen", "records its context")]


def strict_options(options, runs, registry):
    """A report's option check: only graph is a factor here."""
    assert registry is not None
    bad = [f for f in (options.get("toy_factors") or ()) if f != "graph"]
    if bad:
        raise ValueError(f"--toy-factors: {', '.join(bad)} not in these runs ({len(runs)} runs)")


class _Checked:
    __distribution__ = DIST

    @hookimpl
    def arena_addoption(self, command, parser):
        if command == "report":
            parser.add_argument("--toy-factors", type=lambda t: t.split(","))

    @hookimpl
    def arena_reports(self):
        yield ReportInfo(name="seen", factory=f"{__name__}:seen", check=f"{__name__}:strict_options")


def test_a_bad_option_is_a_usage_error_before_any_file_is_written(results, capsys, tmp_path):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(results, folder)
    for f in ("leaderboard.md", "seen.txt"):
        (folder / f).unlink(missing_ok=True)
    CALLS.clear()
    with temporary_plugins(_Checked()) as reg:
        _only_mine(reg)
        code = main(["report", "--results", str(folder), "--toy-factors", "graph,bogus"])
        err = capsys.readouterr().err
        assert code == 2 and "arena report: error: --toy-factors: bogus not in these runs (12 runs)" in err
        assert CALLS == [] and not (folder / "leaderboard.md").exists()  # checked before anything ran
        assert main(["report", "--results", str(folder), "--toy-factors", "graph"]) == 0
    assert [name for name, _ in CALLS] == ["seen"]


def test_a_plugin_option_is_there_only_while_its_plugin_is(results, capsys):
    """The core declares no extension option: without the plugin that adds it, argparse names it unknown."""
    with temporary_plugins():
        with pytest.raises(SystemExit) as exit_:
            main(["report", "--results", str(results), "--toy-loud"])
    assert exit_.value.code == 2 and "unrecognized arguments: --toy-loud" in capsys.readouterr().err


def test_an_extension_option_without_its_distribution_names_it(results, capsys):
    """--analyses is arena-diagnosis's: without it (a registry of the core's commands only) argparse refuses
    it and the message names the distribution to install."""
    from causalarena.plugins import Registry

    core = get_registry(strict=False)
    reg = Registry(commands={n: c for n, c in core.commands.items() if c.distribution == core.commands["run"].distribution},
                   metrics=core.metrics)
    with pytest.raises(SystemExit) as exit_:
        main(["report", "--results", str(results), "--analyses", "slices"], registry=reg)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "unrecognized arguments: --analyses slices; --analyses comes with arena-diagnosis (pip install " \
           "arena-diagnosis)" in err


def two_argument_check(options, runs):
    """The pre-0.8 form of ReportInfo.check (no registry): still called."""
    CALLS.append(("check2", len(runs)))


class _OldCheck:
    __distribution__ = DIST

    @hookimpl
    def arena_reports(self):
        yield ReportInfo(name="seen", factory=f"{__name__}:seen", check=f"{__name__}:two_argument_check")


def test_a_two_argument_check_is_still_called(results):
    CALLS.clear()
    with temporary_plugins(_OldCheck()) as reg:
        _only_mine(reg)
        assert main(["report", "--results", str(results)]) == 0
    assert [c for c in CALLS if c[0] == "check2"] == [("check2", 12)]


def test_a_plugin_option_of_arena_run_is_parsed_and_a_clash_names_the_plugin(capsys):
    """arena_addoption serves every command: a plugin's option of `arena run` is parsed by the frame; an option
    that clashes with the command's own is a plugin error naming the plugin and its distribution."""
    from causalarena.cli import build_parser

    class _RunOption:
        __distribution__ = DIST

        @hookimpl
        def arena_addoption(self, command, parser, registry):
            if command == "run":
                parser.add_argument("--sink", default="none", help="where a sink writes")

    reg = get_registry(strict=False, extra_plugins=[_RunOption()])
    args = build_parser(reg, configure=["run"]).parse_args(["run", "--sink", "cells.jsonl"])
    assert args.sink == "cells.jsonl"
    assert args.arena_plugin_options["sink"] == ("--sink", "none")

    class _Clash:
        __distribution__ = "arena-test-clash"

        @hookimpl
        def arena_addoption(self, command, parser):
            if command == "report":
                parser.add_argument("--results")

    reg = get_registry(strict=False, extra_plugins=[_Clash()])
    assert main(["report", "--results", "x"], registry=reg) == 1
    err = capsys.readouterr().err
    assert "plugin error" in err and "of arena-test-clash 0: arena_addoption(command='report') raised" in err
    assert "conflicting option string: --results" in err
