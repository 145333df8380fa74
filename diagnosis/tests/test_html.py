"""The static HTML report (issue 13 item 9) without a browser: structure, escaping, the embedded
JSON, the failure frame, and errors. The same page in headless Chromium: test_html_browser.py."""

from __future__ import annotations

import html.parser
import json
import re

import numpy as np
import pandas as pd
import pytest
import viz_fixtures as fx

from arena_diagnosis.html import HtmlReport, failure_examples, write_html


class _Collect(html.parser.HTMLParser):
    """Tags with their attributes, the text of each <script>, and every <b> start tag."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in_script = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append([self._in_script, ""])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None

    def handle_data(self, data):
        if self._in_script is not None:
            self.scripts[-1][1] += data


@pytest.fixture
def page(tmp_path):
    report = fx.html_report(tmp_path)
    path = write_html(tmp_path / "index.html", report)
    text = path.read_text(encoding="utf-8")
    parser = _Collect()
    parser.feed(text)
    return path, text, parser, report


def test_one_file_no_network(page):
    path, text, parser, _ = page
    assert path.name == "index.html"
    # every script is inline (no src), no stylesheet link, nothing with an http(s) URL
    assert all("src" not in attrs for attrs, _ in parser.scripts)
    assert not any(tag == "link" for tag, _ in parser.tags)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
    imgs = [a["src"] for t, a in parser.tags if t == "img"]
    assert imgs == ["figures/win_rate_matrix.png", "figures/d_curve.png", "figures/pareto_frontier.png"]
    assert all((path.parent / s).exists() for s in imgs)
    svg_links = [a["href"] for t, a in parser.tags if t == "a" and a.get("href", "").endswith(".svg")]
    assert svg_links == [s.replace(".png", ".svg") for s in imgs]
    # each thumbnail is wrapped in a link to its full-size PNG
    full = [a["href"] for t, a in parser.tags if t == "a" and a.get("class") == "full"]
    assert full == imgs


def test_long_table_collapsed_short_ones_not(page):
    _, text, parser, _ = page
    details = [a for t, a in parser.tags if t == "details" and "long-table" in a.get("class", "")]
    # only the 32-row table (the third, tbl-2) is collapsed; closed (no open attribute); ids kept
    assert details == [{"class": "long-table", "id": "tbl-2-details"}]
    assert "<summary>Domain shift (long) (32 rows) \u2014 <span class=\"toggle\">show</span></summary>" in text
    assert [a["id"] for t, a in parser.tags if t == "h3" and a.get("id", "").startswith("table-")] == \
        ["table-0", "table-1", "table-2"]
    assert [a["id"] for t, a in parser.tags if t == "table" and a.get("id", "").startswith("tbl-")] == \
        ["tbl-0", "tbl-1", "tbl-2"]
    # the collapsed table is whole and still sortable
    start = text.index('<details class="long-table"')
    inner = text[start:text.index("</details>", start)]
    assert '<table id="tbl-2" class="sortable">' in inner and inner.count("<tr data-method=") == 32


def test_inline_page_has_no_thumbnail_links(tmp_path):
    text = write_html(tmp_path / "one.html", fx.html_report(tmp_path), inline_figures=True).read_text(encoding="utf-8")
    assert 'class="full"' not in text


def test_escaping_of_markup_in_method_names(page):
    _, text, parser, _ = page
    # the only <script> end tags are the two real ones; no <b> element from the method name
    assert text.count("</script>") == 2
    assert not any(tag == "b" for tag, _ in parser.tags)
    assert "evil&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;&amp;amp;" in text
    data_scripts = [s for attrs, s in parser.scripts if attrs.get("type") == "application/json"]
    assert len(data_scripts) == 1 and "<" not in data_scripts[0]
    data = json.loads(data_scripts[0])
    assert data["slices"]["graph"]["methods"] == fx.HTML_METHODS  # the name round-trips exactly


def test_leaderboard_rows_and_failure_buttons(page):
    _, _, parser, _ = page
    rows = [a["data-method"] for t, a in parser.tags if t == "tr" and "data-method" in a
            and a is not None]
    assert rows[:4] == fx.HTML_METHODS  # leaderboard first, in the given order
    heads = [a["data-col"] for t, a in parser.tags if t == "th" and "data-col" in a][:5]
    assert heads == ["method", "synthetic / obs", "synthetic / obs+int", "Avg", "failures"]
    buttons = [(a["data-method"], a["data-target"]) for t, a in parser.tags
               if t == "button" and "fail-count" in a.get("class", "")]
    assert buttons == [("ges", "fail-0"), (fx.EVIL, "fail-1")]
    details = {a["id"]: a["data-method"] for t, a in parser.tags if t == "details" and a.get("class") == "failure"}
    assert details == {"fail-0": "ges", "fail-1": fx.EVIL}


def test_slice_payload(page):
    _, _, parser, report = page
    data = json.loads([s for attrs, s in parser.scripts if attrs.get("type") == "application/json"][0])
    assert list(data["slices"]) == ["graph", "d", "mechanism"]
    d = data["slices"]["d"]
    assert d["levels"] == ["5", "10", "20", "50"] and d["splits"] == ["obs", "obs_int"]
    first = d["rows"][0]
    assert first == {"level": "5", "method": "pc", "split": "obs", "score": 0.1, "sd": 0.05, "units": 4}
    assert len(d["rows"]) == 4 * 4 * 2


def test_nan_becomes_null_and_missing_cell_is_dash(tmp_path):
    sl = fx.slice_scores("graph", ["er"]).assign(sd=np.nan)
    report = HtmlReport(title="t", leaderboard=pd.DataFrame({"F1": [np.nan, 0.5]}, index=["a", "b"]),
                        slices={"graph": sl})
    text = write_html(tmp_path / "index.html", report).read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', text, re.S).group(1))
    assert data["slices"]["graph"]["rows"][0]["sd"] is None
    assert '<td class="missing" data-value="">\u2013</td>' in text  # method a: no F1
    assert '<td data-value="0.5">0.500</td>' in text


def test_inline_figures_embed_base64(tmp_path):
    report = fx.html_report(tmp_path)
    text = write_html(tmp_path / "one.html", report, inline_figures=True).read_text(encoding="utf-8")
    assert text.count('src="data:image/png;base64,iVBORw0KGgo') == 3  # the PNG signature, base64


def test_failure_examples_from_runs():
    runs = pd.DataFrame({
        "method": ["pc", "pc", "pc", "ges", "ges", "ges", "fci"],
        "status": ["ok", "failed", "failed", "timeout", "failed", "unsupported", "ok"],
        "error": [None, "boom", "boom", "slow", "bad", None, None],
    })
    out = failure_examples(runs)
    assert out.to_dict("records") == [
        {"method": "ges", "status": "timeout", "count": 1, "examples": ["slow"]},
        {"method": "ges", "status": "failed", "count": 1, "examples": ["bad"]},
        {"method": "pc", "status": "failed", "count": 2, "examples": ["boom"]},  # distinct errors only
    ]
    assert list(failure_examples(runs[runs["status"] == "ok"]).columns) == ["method", "status", "count", "examples"]
    with pytest.raises(ValueError, match="status"):
        failure_examples(runs.drop(columns=["status"]))


def test_bad_input_is_named(tmp_path):
    lb = pd.DataFrame({"method": ["a", "a"], "F1": [0.1, 0.2]})
    with pytest.raises(ValueError, match="repeated: \\['a'\\]"):
        write_html(tmp_path / "x.html", HtmlReport(title="t", leaderboard=lb))
    with pytest.raises(ValueError, match=r"failures: lacks column\(s\) \['examples'\]"):
        write_html(tmp_path / "x.html", HtmlReport(
            title="t", leaderboard=lb.iloc[:1], failures=pd.DataFrame({"method": ["a"], "status": ["failed"],
                                                                       "count": [1]})))
    with pytest.raises(ValueError, match=r"slices\['graph'\]: lacks column\(s\) \['units'\]"):
        write_html(tmp_path / "x.html", HtmlReport(title="t", leaderboard=lb.iloc[:1],
                                                   slices={"graph": fx.slice_scores("graph", ["er"]).drop(columns="units")}))
    with pytest.raises(ValueError, match="does not exist"):
        write_html(tmp_path / "x.html", HtmlReport(title="t", leaderboard=lb.iloc[:1],
                                                   figures=[("f", "figures/none.png")]), inline_figures=True)
