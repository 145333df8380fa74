"""The "Effect estimation" section of index.html in a real browser (headless Debian Chromium via Playwright,
``executable_path``; never `playwright install`): written by ``write_diagnosis`` from the hand-built store of
effect_fixtures next to a discovery store, opened from file://, checked after the scripts ran.

Skipped like test_html_browser.py when /usr/bin/chromium or playwright is absent (failed instead under
CAUSALARENA_REQUIRE_BROWSER=1).
"""

from __future__ import annotations

import effect_fixtures as ef
import pytest
import test_effect as te
import test_write_diagnosis as tw
from test_html_browser import ARGS, CHROMIUM, sync_api, wait_for_images  # noqa: F401 - importing it applies its skip

from arena_diagnosis.report import write_diagnosis


@pytest.fixture(scope="module")
def effect_page(tmp_path_factory):
    root = tmp_path_factory.mktemp("effect-report")
    tw._store(root / "arena.sqlite")
    ef.add_effect_runs(root / "arena.sqlite")
    write_diagnosis(te._context(root))
    messages = []
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1300, "height": 900})
        try:
            page = context.new_page()
            page.on("console", lambda m: messages.append((m.type, m.text)))
            page.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
            page.on("requestfailed", lambda r: messages.append(("requestfailed", r.url)))
            page.goto((root / "index.html").as_uri())
            page.wait_for_selector("body[data-ready='1']", timeout=10_000)
            # the discovery store's 8 PNG figures (no method with a prior: no exposure figures) + the 4 effect ones
            assert wait_for_images(page) == 12
            yield page, messages
        finally:
            context.close()


def _rows(page, table_id):
    return page.eval_on_selector_all(f"#{table_id} tbody tr",
                                     "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))")


def test_effect_section_status_rows_and_failures(effect_page):
    page, _ = effect_page
    assert page.locator("#effect h2").inner_text() == "Effect estimation"
    assert page.locator("nav a[href='#effect']").count() == 1
    cols = page.eval_on_selector_all("#effect-status thead th", "hs => hs.map(h => h.textContent)")
    rows = {r[0]: dict(zip(cols, r)) for r in _rows(page, "effect-status")}
    assert list(rows) == ["bl", "dr", "sl"]
    assert (rows["sl"]["ok"], rows["sl"]["missing (unsupported)"], rows["sl"]["failed"]) == ("6", "6", "1")
    assert rows["sl"]["views unsupported"] == "fd, iv, px"
    # the failure count opens sl's examples; unsupported runs are not among them
    details = page.locator("#effect details.failure[data-method='sl']")
    assert details.get_attribute("open") is None
    page.locator("#effect-status button.fail-count[data-method='sl']").click()
    assert details.get_attribute("open") is not None
    assert page.get_by_text("timeout after 600 s").is_visible()
    assert "unsupported" not in details.inner_text()
    # the discovery leaderboard holds the discovery methods only
    assert page.eval_on_selector_all("#leaderboard tbody tr", "rs => rs.map(r => r.dataset.method)") == \
        ["pc", "foundation", "ges"]


def test_effect_tables_hold_the_hand_computed_rows(effect_page):
    page, _ = effect_page
    vm = page.locator("#effect_view_method")
    cols = page.eval_on_selector_all("#effect_view_method thead th", "hs => hs.map(h => h.textContent)")
    rows = [dict(zip(cols, r)) for r in _rows(page, "effect_view_method")]
    assert [(r["view"], r["method"], r["spehe2"]) for r in rows] == [
        ("bd", "dr", "0.625"), ("bd", "sl", "0.750"), ("fd", "dr", "0.125"), ("iv", "dr", "4.000"),
        ("px", "dr", "0.500"), ("hc", "dr", "1.500"), ("hc", "sl", "5.000")]
    # sortable: descending sPEHE² puts sl / hc first
    th = vm.locator("th[data-col='spehe2']")
    th.click()
    th.click()
    assert _rows(page, "effect_view_method")[0][:3] == ["hc", "sl", "5.000"]
    hc = [r[:6] for r in _rows(page, "effect_hc_degradation")]
    assert hc == [["causalidview", "sl", "0.750", "5.000", "4.250", "6.667"],
                  ["causalidview", "dr", "0.625", "1.500", "0.875", "2.400"],
                  ["effect_real: ihdp", "dr", "2.000", "5.000", "3.000", "2.500"]]
    assert [r[:3] for r in _rows(page, "effect_stay_move")] == [["dr", "bd", "0.028"], ["sl", "bd", "1.000"]]
    assert [r[1] for r in _rows(page, "effect_bounds")] == ["pi_manski", "pi_msm_1", "pi_msm_2"]
    assert page.locator("#effect-left-out").count() == 0  # every effect analysis has data in this store


def test_effect_figures_load_and_no_console_errors(effect_page):
    page, messages = effect_page
    names = page.eval_on_selector_all("#effect-figures figure", "fs => fs.map(f => f.dataset.name)")
    assert names == ["effect_view_method", "effect_stay_move", "effect_hc_degradation", "effect_bounds_gamma"]
    widths = page.eval_on_selector_all("#effect-figures img", "is => is.map(i => i.naturalWidth)")
    assert all(w > 300 for w in widths)
    assert [m for m in messages if m[0] in ("error", "pageerror", "requestfailed")] == []
