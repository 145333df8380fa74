"""The HTML report in a real browser (issue 13 tests): headless Debian Chromium driven by Playwright
opens index.html from disk (file://, no server) and checks the DOM after the scripts ran.

Playwright drives the system browser through ``executable_path``; no browser is downloaded. Skipped,
with the reason, only when /usr/bin/chromium or the playwright package is absent, and failed instead
when CAUSALARENA_REQUIRE_BROWSER=1 (the `diagnosis` tox env).
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import viz_fixtures as fx
from matplotlib import image as mpimg

from arena_diagnosis.html import write_html

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

# the `diagnosis` tox env sets CAUSALARENA_REQUIRE_BROWSER=1: there a missing browser fails instead of skipping
REQUIRE = os.environ.get("CAUSALARENA_REQUIRE_BROWSER", "") not in ("", "0")


def _absent(reason: str) -> None:
    if REQUIRE:
        pytest.fail(f"{reason} and CAUSALARENA_REQUIRE_BROWSER is set", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
    _absent(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
try:
    from playwright import sync_api
except ImportError:
    _absent("playwright is not installed (pip install playwright; never `playwright install`)")


#: In-page wait for every ``<img>`` to be loaded (``complete`` with a ``naturalWidth``): resolves to the
#: number of images, rejects after ``ms`` naming the images still pending (a missing file never loads).
#: It is a *function* that ``page.evaluate`` sends through the DevTools protocol and that polls with
#: ``setTimeout(<function>)``: nothing in it evaluates a string. ``page.wait_for_function`` with an
#: expression string (what the fixtures used) runs ``eval(string)`` in the page on every poll after the
#: first; the report's CSP (``script-src 'unsafe-inline'``, no ``'unsafe-eval'``) refuses that, so the
#: wait could never wait: it passed when the images had loaded by its first check and raised
#: "EvalError … violates the Content Security Policy" when they had not — on a loaded machine (issue 21).
_IMAGES_LOADED = """(ms) => new Promise((resolve, reject) => {
  const start = performance.now();
  const tick = () => {
    const images = Array.from(document.images);
    const pending = images.filter(i => !(i.complete && i.naturalWidth > 0));
    if (pending.length === 0) { resolve(images.length); return; }
    if (performance.now() - start > ms) {
      reject(new Error(`${pending.length} of ${images.length} images not loaded after ${ms} ms: ` +
                       pending.map(i => i.getAttribute('src')).join(', ')));
      return;
    }
    setTimeout(tick, 25);
  };
  tick();
})"""


def wait_for_images(page, timeout_ms: int = 10_000) -> int:
    """Make the page's lazy images eager and wait until every one has loaded; returns how many there are.

    Args:
        page: a Playwright ``Page`` showing a report (any page: nothing report-specific is read).
        timeout_ms: how long to wait, milliseconds.

    Raises:
        playwright.sync_api.Error: an image is still not loaded after ``timeout_ms`` (the message names its
            ``src``: a broken or missing figure file).
    """
    # lazy images load only when scrolled into view: eager, so a missing file shows up as a failed request
    page.evaluate("() => document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")
    return int(page.evaluate(_IMAGES_LOADED, timeout_ms))


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    """A loaded report page, the console messages and page errors collected from its load."""
    root = tmp_path_factory.mktemp("report")
    index = write_html(root / "index.html", fx.html_report(root))
    user_data = tmp_path_factory.mktemp("chromium-profile")
    messages = []
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(user_data), executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1300, "height": 900})
        try:
            page = context.new_page()
            page.on("console", lambda m: messages.append((m.type, m.text)))
            page.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
            page.on("requestfailed", lambda r: messages.append(("requestfailed", r.url)))
            page.goto(index.as_uri())
            page.wait_for_selector("body[data-ready='1']", timeout=10_000)
            wait_for_images(page)
            yield page, messages, root
        finally:
            context.close()


def _methods(page, selector="#leaderboard tbody tr"):
    return page.eval_on_selector_all(selector, "rows => rows.map(r => r.dataset.method)")


def test_leaderboard_one_row_per_method_and_escaped_name(browser_page):
    page, _, _ = browser_page
    assert _methods(page) == fx.HTML_METHODS
    # the markup in the name is text: its cell reads exactly the name, and no <b> exists in the page
    cell = page.locator("#leaderboard tbody tr").nth(2).locator("td").first
    assert cell.inner_text() == fx.EVIL
    assert page.locator("b").count() == 0
    assert page.title() == "CausalArena report <test>"


def test_sorting_by_a_column_reorders_rows(browser_page):
    page, _, _ = browser_page
    avg = page.locator("#leaderboard th[data-col='Avg']")
    avg.click()  # ascending: 0.16 evil, 0.33 pc, 0.385 DirectLiNGAM, 0.45 ges
    assert _methods(page) == [fx.EVIL, "pc", "DirectLiNGAM", "ges"]
    assert avg.get_attribute("aria-sort") == "ascending"
    avg.click()  # descending
    assert _methods(page) == ["ges", "DirectLiNGAM", "pc", fx.EVIL]
    # a column with a missing cell (ges has no obs+int): missing last in both directions
    oi = page.locator("#leaderboard th[data-col='synthetic / obs+int']")
    oi.click()
    assert _methods(page) == [fx.EVIL, "pc", "DirectLiNGAM", "ges"]
    oi.click()
    assert _methods(page) == ["DirectLiNGAM", "pc", fx.EVIL, "ges"]
    # text column: alphabetical, case-insensitive
    page.locator("#leaderboard th[data-col='method']").click()
    assert _methods(page) == ["DirectLiNGAM", fx.EVIL, "ges", "pc"]


def test_failure_count_opens_its_examples(browser_page):
    page, _, _ = browser_page
    details = page.locator("details.failure[data-method='ges']")
    assert details.get_attribute("open") is None
    assert not page.get_by_text("LinAlgError: SVD did not converge").is_visible()
    page.locator("#leaderboard button.fail-count[data-method='ges']").click()
    assert details.get_attribute("open") is not None
    assert page.get_by_text("LinAlgError: SVD did not converge").is_visible()
    assert page.get_by_text("timeout after 600 s").is_visible()
    assert page.locator("button.fail-count[data-method='ges']").inner_text() == "3"  # 2 failed + 1 timeout
    # the evil method's example (itself markup) is shown as text
    page.evaluate("m => Array.from(document.querySelectorAll('#leaderboard button.fail-count'))"
                  ".find(b => b.dataset.method === m).click()", fx.EVIL)
    assert page.get_by_text("<script>alert(1)</script> broke").is_visible()


def test_slice_explorer_shows_the_chosen_factor(browser_page):
    page, _, _ = browser_page
    options = page.eval_on_selector_all("#slice-factor option", "os => os.map(o => o.value)")
    assert options == ["graph", "d", "mechanism"]
    view = page.locator("#slice-view")
    assert view.get_attribute("data-factor") == "graph"  # the first factor is shown on load
    page.select_option("#slice-factor", "d")
    assert view.get_attribute("data-factor") == "d"
    tables = view.locator("table")
    assert tables.count() == 2  # one per split
    obs = view.locator("table[data-split='obs']")
    levels = obs.locator("th[data-level]").evaluate_all("hs => hs.map(h => h.dataset.level)")
    assert levels == ["5", "10", "20", "50"]
    assert _methods(page, "#slice-view table[data-split='obs'] tbody tr") == fx.HTML_METHODS
    # pc at d = 20 (j = 2): 0.1 + 0.05 * 2 = 0.200 over 4 + 2 = 6 units; coloured cell
    cell = obs.locator("tr[data-method='pc'] td[data-level='20']")
    assert cell.inner_text().split() == ["0.200", "n=6"]
    assert cell.evaluate("c => getComputedStyle(c).backgroundColor") not in ("", "rgba(0, 0, 0, 0)")
    # lowest score of the factor is the darkest viridis end, highest the yellow end
    low = obs.locator("tr[data-method='pc'] td[data-level='5']").evaluate("c => c.style.background")
    high = view.locator("table[data-split='obs_int'] tr[data-method='DirectLiNGAM'] td[data-level='50']")
    assert low == "rgb(68, 1, 84)" and high.evaluate("c => c.style.background") == "rgb(253, 231, 37)"
    page.select_option("#slice-factor", "mechanism")
    levels = view.locator("table[data-split='obs'] th[data-level]").evaluate_all("hs => hs.map(h => h.dataset.level)")
    assert levels == ["linear", "polynomial"]


def test_tables_figures_and_config_present(browser_page):
    page, _, _ = browser_page
    assert page.locator("#figures figure img").count() == 3
    widths = page.eval_on_selector_all("#figures img", "is => is.map(i => i.naturalWidth)")
    assert all(w > 300 for w in widths)
    assert page.locator("#tables h3").all_inner_texts() == ["Sortability", "Runtime (T_fixed + k T_graph)",
                                                            "Domain shift (long)"]
    assert page.locator("#config tr").count() == 5
    assert page.locator("#config").inner_text().count("arena report --results results/") == 1


def test_thumbnails_link_to_the_full_png(browser_page):
    page, _, root = browser_page
    links = page.eval_on_selector_all("#figures figure a.full", "as => as.map(a => a.getAttribute('href'))")
    assert links == ["figures/win_rate_matrix.png", "figures/d_curve.png", "figures/pareto_frontier.png"]
    assert all((root / h).exists() for h in links)
    # the link wraps the thumbnail: clicking the image follows it
    assert page.locator("#figures figure a.full > img").count() == 3
    resolved = page.eval_on_selector("#figures figure a.full", "a => a.href")
    assert resolved == (root / "figures" / "win_rate_matrix.png").as_uri()


def test_long_table_starts_collapsed_and_opens_on_click(browser_page):
    page, _, _ = browser_page
    details = page.locator("details#tbl-2-details")
    table = page.locator("#tbl-2")
    assert details.get_attribute("open") is None and not table.is_visible()
    summary = details.locator("summary")
    assert summary.inner_text() == "Domain shift (long) (32 rows) \u2014 show"
    # the short tables are visible without a click
    assert page.locator("#tbl-0").is_visible() and page.locator("#tbl-1").is_visible()
    summary.click()
    assert details.get_attribute("open") is not None and table.is_visible()
    # the toggle event fires after the click returns: wait for the label
    sync_api.expect(details.locator(".toggle")).to_have_text("hide")
    assert summary.inner_text().endswith("\u2014 hide")
    assert table.locator("tbody tr").count() == 32
    # still sortable: shift descending puts DirectLiNGAM / transport (0.01 (8*3 + 7) - 0.1 = 0.21) first
    shift = table.locator("th[data-col='shift']")
    shift.click()
    shift.click()
    first = table.locator("tbody tr").first.locator("td")
    assert first.all_inner_texts() == ["DirectLiNGAM", "transport", "0.210"]
    summary.click()  # closes again
    assert details.get_attribute("open") is None and not table.is_visible()
    # the toggle event fires after the click returns: wait for the label
    sync_api.expect(details.locator(".toggle")).to_have_text("show")
    assert summary.inner_text().endswith("\u2014 show")


def test_no_console_errors_and_screenshot_not_blank(browser_page):
    page, messages, root = browser_page
    page.select_option("#slice-factor", "graph")
    shot = root / "screenshot.png"
    page.screenshot(path=str(shot), full_page=True)
    img = mpimg.imread(shot)[..., :3]
    assert img.shape[0] > 900 and img.shape[1] >= 1300
    flat = img.reshape(-1, 3)
    assert np.ptp(flat, axis=0).max() > 0.5  # not one colour
    assert (flat.min(axis=1) < 0.8).mean() > 0.03  # and not nearly all white
    keep = os.environ.get("ARENA_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
    errors = [m for m in messages if m[0] in ("error", "pageerror", "requestfailed")]
    assert errors == []


def test_waiting_for_images_waits_for_a_late_one_under_the_pages_csp(browser_page):
    """Issue 21: an image that loads after the wait began is waited for (the old wait raised EvalError)."""
    page, messages, root = browser_page
    late = page.context.new_page()
    try:
        late.goto((root / "index.html").as_uri())
        late.wait_for_selector("body[data-ready='1']", timeout=10_000)
        before = wait_for_images(late)
        assert before == page.locator("img").count() and before > 0
        # one more image whose source is set 400 ms from now: the first check sees it unloaded
        late.evaluate("() => { const i = new Image(); i.id = 'late'; document.body.append(i);"
                      " const src = document.images[0].getAttribute('src');"
                      " setTimeout(() => { i.src = src; }, 400); }")
        t0 = time.perf_counter()
        assert wait_for_images(late) == before + 1
        assert time.perf_counter() - t0 >= 0.35  # it waited for the late image, it did not pass at once
        assert late.eval_on_selector("#late", "i => i.naturalWidth") > 300
        # a file that never loads: the wait ends with the image named, not with an EvalError
        late.evaluate("() => { document.getElementById('late').src = 'figures/no_such_figure.png'; }")
        with pytest.raises(sync_api.Error, match=r"1 of \d+ images not loaded after 500 ms: "
                                                  r"figures/no_such_figure\.png"):
            wait_for_images(late, timeout_ms=500)
    finally:
        late.close()


def test_no_browser_test_waits_with_a_string_evaluated_in_the_page():
    """Issue 21: ``wait_for_function`` re-evaluates its string with eval(), which the report's CSP refuses."""
    here = Path(__file__).resolve().parent
    files = sorted(here.glob("test_*.py")) + sorted((here.parents[1] / "tests").glob("test_*.py"))
    call = re.compile(r"\.wait_for_function\(")
    offenders = [f"{f.name}:{n}" for f in files
                 for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if call.search(line)]
    assert offenders == [], "use wait_for_images / expect(...) instead of page.wait_for_function in " + \
        ", ".join(offenders)
