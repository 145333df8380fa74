"""The real-data section (issue 24 item 6) in a real browser: headless Debian Chromium opens the report of
the hand-written store of :mod:`real_fixtures` from disk and checks the two tables and the per-table strips.

Same browser set-up as test_html_browser (system Chromium through ``executable_path``; no download;
skipped only when Chromium or playwright is absent, failed then under CAUSALARENA_REQUIRE_BROWSER=1).
"""

from __future__ import annotations

import pytest
import real_fixtures as rf
from test_html_browser import ARGS, CHROMIUM, sync_api, wait_for_images

from arena_diagnosis.report import write_diagnosis


@pytest.fixture(scope="module")
def page_of_report(tmp_path_factory):
    ctx, _ = rf.context(tmp_path_factory.mktemp("real-browser"))
    write_diagnosis(ctx)
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")), executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1400, "height": 900})
        try:
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((ctx.results / "index.html").as_uri())
            page.wait_for_selector("body[data-ready='1']", timeout=10_000)
            wait_for_images(page)
            yield page, errors, ctx.results
        finally:
            context.close()


def test_real_table_rows_and_cells(page_of_report):
    page, errors, _ = page_of_report
    titles = page.locator("#tables h3").all_inner_texts()
    assert "Real data: F1 / SHD per table against the synthetic mean (Fig. 5)" in titles
    assert "Cause–effect pairs: weighted orientation accuracy" in titles
    text = page.locator("#tables").inner_text()
    # pc on bnlearn's ecoli70 (obs): F1 0.70 / SHD 12.0; its synthetic obs mean 0.50 / 5.0; the semantic card is absent
    assert "0.70 / 12.0" in text and "0.50 / 5.0" in text
    assert "bnlearn/sachs / obs" in text and "real/sachs / obs" in text and "lt / obs_int" in text
    assert "c1" not in text.split()
    # weighted accuracy of the pairs: pc 0.4375, ges 0.625 (the page rounds to 3 digits)
    assert "0.438" in text or "0.4375" in text
    assert not errors


def test_per_table_strips_load_at_full_width(page_of_report):
    page, _, results = page_of_report
    sizes = page.eval_on_selector_all(
        "#figures figure", "fs => fs.map(f => [f.dataset.name, f.querySelector('img').naturalWidth])")
    by_name = dict(sizes)
    assert by_name["real_tables"] > 1000 and by_name["real_data"] > 800
    page.locator("figure[data-name='real_tables']").scroll_into_view_if_needed()
    page.locator("figure[data-name='real_tables']").screenshot(path=str(results / "real_tables_in_page.png"))
    assert (results / "real_tables_in_page.png").stat().st_size > 10_000
