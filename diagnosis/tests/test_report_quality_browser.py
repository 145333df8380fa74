"""Issue 22 report quality in a real browser (headless Debian Chromium, JavaScript on and off):
the slice explorer's menu is rendered by the page and has a <noscript> fallback; a figure with many
panels takes a whole gallery row at a readable size at a 1,400 px window.

Same browser set-up as test_html_browser (system Chromium through ``executable_path``; no download).
"""

from __future__ import annotations

import pandas as pd
import pytest
import viz_fixtures as fx
from test_html_browser import ARGS, CHROMIUM, sync_api, wait_for_images

from arena_diagnosis import figures as F
from arena_diagnosis.html import LARGE_FIGURE_PX, write_html


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """The fixtures' report plus one large figure: Fig. 4 over seven families (wraps to 1425 x 3977 px)."""
    root = tmp_path_factory.mktemp("quality")
    report = fx.html_report(root)
    cells = fx.leaderboard_cells()
    fams = list(dict.fromkeys(cells["family"][cells["family"] != "Avg"]))
    many = pd.concat([cells] + [cells[cells["family"] == fams[0]].assign(family=f"extra{i}") for i in range(3)],
                     ignore_index=True)
    png = F.precision_recall_f1_shd(many, root / "figures", "pr_many")[0]
    report.figures = list(report.figures) + [("Fig. 4, seven families", "figures/pr_many.png")]
    assert png.exists()
    return write_html(root / "index.html", report)


def _open(pw, tmp_path, url, javascript: bool):
    context = pw.chromium.launch_persistent_context(
        str(tmp_path / ("profile-js" if javascript else "profile-nojs")), executable_path=CHROMIUM, headless=True,
        args=ARGS, viewport={"width": 1400, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    page.goto(url)
    return context, page


def test_slice_explorer_with_and_without_javascript(index, tmp_path):
    with sync_api.sync_playwright() as pw:
        context, page = _open(pw, tmp_path, index.as_uri(), javascript=True)
        try:
            page.wait_for_selector("body[data-ready='1']", timeout=10_000)
            # the page's own options, not doubled by the script; the noscript copy is not rendered
            assert page.eval_on_selector_all("#slice-factor option", "os => os.map(o => o.value)") == \
                ["graph", "d", "mechanism"]
            assert page.locator("#slices .controls").is_visible()
            assert page.locator("table.static-slice").count() == 0
            page.screenshot(path=str(tmp_path / "js-on.png"), full_page=False)
        finally:
            context.close()
        context, page = _open(pw, tmp_path, index.as_uri(), javascript=False)
        try:
            page.wait_for_load_state("load")
            # no script ran: the menu that needs it is hidden; every factor's table is there, the first open
            assert page.locator("body[data-ready='1']").count() == 0
            assert not page.locator("#slices .controls").is_visible()
            assert page.locator("#slices-static-note").is_visible()
            assert page.locator("details.static-slice").count() == 3
            assert page.locator("details.static-slice summary").all_inner_texts() == ["graph", "d", "mechanism"]
            # one table per split; the d factor's obs table: pc at d = 20 is 0.200 over 6 units (as with JS)
            d = page.locator("details.static-slice").nth(1)
            d.locator("summary").click()
            obs = d.locator("table").first
            assert obs.locator("caption").inner_text() == "d (obs): f1"
            assert obs.locator("thead th").all_inner_texts() == ["method", "5", "10", "20", "50"]
            pc = obs.locator("tbody tr", has=page.locator("th", has_text="pc")).first
            assert pc.locator("td").nth(2).inner_text().split() == ["0.200", "n", "=", "6"]
            page.screenshot(path=str(tmp_path / "js-off.png"), full_page=False)
        finally:
            context.close()


def test_a_many_panel_figure_takes_a_whole_row_at_a_readable_size(index, tmp_path):
    with sync_api.sync_playwright() as pw:
        context, page = _open(pw, tmp_path, index.as_uri(), javascript=True)
        try:
            page.wait_for_selector("body[data-ready='1']", timeout=10_000)
            wait_for_images(page)
            sizes = page.eval_on_selector_all(
                "#figures figure", "fs => fs.map(f => [f.dataset.name, f.className, "
                "f.querySelector('img').naturalWidth, f.querySelector('img').getBoundingClientRect().width])")
            by_name = {name: (cls, natural, shown) for name, cls, natural, shown in sizes}
            cls, natural, shown = by_name["pr_many"]
            assert cls == "large" and natural == 1425
            # 8 pt text at 150 dpi is 16.7 px in the PNG: shown at >= 0.8 of its size it stays >= 13 px
            assert shown / natural >= 0.8, (shown, natural)
            # the small figures keep their half-row thumbnails
            small = [v for k, v in by_name.items() if k != "pr_many"]
            assert all((c == "large") == (n > LARGE_FIGURE_PX[0]) for c, n, _ in small), small
            page.locator("figure[data-name='pr_many']").scroll_into_view_if_needed()
            page.screenshot(path=str(tmp_path / "large.png"), full_page=False)
        finally:
            context.close()
