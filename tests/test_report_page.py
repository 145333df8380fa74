"""A real arena run ends with the diagnosis report, and its page works in a browser (issue 13 "Done when").

One small grid (three methods, three graph families at d = 10 and d = 20, obs
split, one replicate) through the CLI with arena-diagnosis installed; then the
files, the identities they must satisfy, and the page in headless Chromium
(Debian's /usr/bin/chromium driven by Playwright; failed, not skipped, when
CAUSALARENA_REQUIRE_BROWSER=1 as in the integration tox env).
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import have, run_arena

pytestmark = pytest.mark.skipif(not have("arena-diagnosis"), reason="arena-diagnosis not installed")

METHODS = ("randomregress", "sortnregress", "pc")
CHROMIUM = "/usr/bin/chromium"
REQUIRE = os.environ.get("CAUSALARENA_REQUIRE_BROWSER", "") not in ("", "0")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "R"
    proc = run_arena("run", "--families", "synthetic", "--methods", ",".join(METHODS), "--splits", "obs",
                     "--replicates", "1", "--family-option", "synthetic.dims=10,20",
                     "--family-option", "synthetic.graphs=er,tree,chain", "--family-option", "synthetic.per_cell=1",
                     "--results", str(out), "--no-progress", "--jobs", "2")
    assert "report page:" in proc.stdout, proc.stdout[-3000:]
    return out, proc.stdout


def test_run_writes_the_page_and_names_it_last(results):
    out, stdout = results
    assert (out / "index.html").is_file()
    assert stdout.rstrip().splitlines()[-1] == f"report page: {out / 'index.html'} (open it in a browser)"
    for stem in ("win_rate_matrix_obs", "interaction_graph", "interaction_mechanism", "d_curve", "pareto_frontier"):
        for ext in ("png", "svg"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 1000, stem


def test_tables_satisfy_their_identities(results):
    out, _ = results
    # d curve: both dimensions, one unit per graph family at each
    dc = pd.read_csv(out / "tables" / "d_curve.csv")
    assert sorted(dc["d"].unique()) == [10, 20]
    assert set(dc["method"]) == set(METHODS) and (dc["units"] == 3).all()
    # win rates: every comparison is won, lost or tied (0.5 each), so rate(a, b) + rate(b, a) = 1
    wr = pd.read_csv(out / "tables" / "win_rates_obs.csv", index_col=0)
    for a, b in itertools.permutations(METHODS, 2):
        assert wr.loc[a, b] + wr.loc[b, a] == pytest.approx(1.0)
    # interactions (Eq. 7) are double-centred: each method's row sums to zero over the graph families
    inter = pd.read_csv(out / "tables" / "interactions.csv")
    graph = inter[inter["factor"] == "graph"]
    assert np.allclose(graph.groupby("method")["interaction"].sum(), 0.0, atol=1e-9)
    assert np.allclose(graph.groupby("level")["interaction"].sum(), 0.0, atol=1e-9)
    # edge-level slices exist: predictions were kept
    edges = pd.read_csv(out / "tables" / "edge_slices_mechanism.csv")
    assert len(edges) and (edges["units"] >= 1).all()


def test_rescore_reproduces_the_stored_metrics(results):
    out, _ = results
    from causalarena.store import Store

    with Store(str(out / "arena.sqlite"), readonly=True) as store:
        before = store.runs_frame().sort_values(["method", "scm_id"]).reset_index(drop=True)
    proc = run_arena("rescore", "--results", str(out))
    # 3 methods x 6 SCMs (3 graph families x 2 dimensions) x 1 replicate, every one ok
    assert (before["status"] == "ok").sum() == 18
    assert proc.stdout.startswith("rescored 18 runs from their stored predictions"), proc.stdout
    with Store(str(out / "arena.sqlite"), readonly=True) as store:
        after = store.runs_frame().sort_values(["method", "scm_id"]).reset_index(drop=True)
    for m in ("f1", "shd", "precision", "recall", "sid", "nshd"):
        np.testing.assert_array_equal(before[m].to_numpy(), after[m].to_numpy(), err_msg=m)


def _browser():
    if not Path(CHROMIUM).exists():
        if REQUIRE:
            pytest.fail("no /usr/bin/chromium and CAUSALARENA_REQUIRE_BROWSER is set", pytrace=False)
        pytest.skip("no /usr/bin/chromium (Debian: apt-get install chromium)")
    try:
        from playwright import sync_api
    except ImportError:
        if REQUIRE:
            pytest.fail("playwright not installed and CAUSALARENA_REQUIRE_BROWSER is set", pytrace=False)
        pytest.skip("playwright not installed")
    return sync_api


def test_the_page_in_headless_chromium(results, tmp_path):
    out, _ = results
    sync_api = _browser()
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    errors = []
    try:
        with sync_api.sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, viewport={"width": 1300, "height": 900},
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = ctx.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((out / "index.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            rows = page.eval_on_selector_all("table#leaderboard tr[data-method]", "rs => rs.map(r => r.dataset.method)")
            assert sorted(rows) == sorted(METHODS)
            # the figures the issue names are on the page and decoded (naturalWidth > 0)
            widths = page.eval_on_selector_all("section#figures img",
                                               "is => Object.fromEntries(is.map(i => [i.getAttribute('src'), i.naturalWidth]))")
            for stem in ("win_rate_matrix_obs", "interaction_graph", "interaction_mechanism", "d_curve",
                         "pareto_frontier"):
                assert widths.get(f"figures/{stem}.png", 0) > 100, (stem, widths)
            # the slice explorer shows the edge-level mechanism slice when chosen
            options = page.eval_on_selector_all("select#slice-factor option", "os => os.map(o => o.value)")
            assert "mechanism (edge-level, synthetic)" in options and "graph (synthetic)" in options
            page.select_option("select#slice-factor", "graph (synthetic)")
            levels = page.eval_on_selector_all("div#slice-view th[data-level]", "ts => ts.map(t => t.dataset.level)")
            assert sorted(set(levels)) == ["chain", "er", "tree"]
            shot = tmp_path / "page.png"
            page.screenshot(path=str(shot), full_page=True)
            ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    from matplotlib import image as mpimg

    img = mpimg.imread(str(shot))
    assert img.shape[0] > 900 and img.std() > 0.01
    assert errors == []
