"""A static, self-contained HTML report (issue 13 item 9): ``index.html`` in the results folder.

One file carries its CSS and JavaScript inline (``assets/report.css`` and
``assets/report.js``, shipped as package data) and the slice data as JSON in a
``<script type="application/json" id="report-data">`` tag; figures are
referenced by relative path (``figures/<name>.png`` next to the page) or, with
``inline_figures=True``, embedded as base64. Nothing is fetched at view time,
so the page works from ``file://`` with no server and no network.

The page (stable ids for tests and links):

* ``table#leaderboard`` — one row per method (``tr[data-method]``), the
  family / split cells and Avg of the paper's Table 2 (§5.1), sortable by
  clicking a header (ascending, then descending; numbers compared as numbers,
  missing values last). A failure count is a ``button.fail-count`` that opens
  the ``details.failure`` element holding that method's error examples.
* ``select#slice-factor`` / ``div#slice-view`` — the slice explorer: choose a
  factor, see a method x level table of the slice score (Eq. 6) with unit
  counts, its cells coloured as a heatmap (viridis, min to max of the factor).
* ``section#figures`` — the figure gallery: each thumbnail is a link
  (``a.full``) to its full-size PNG, the caption links the SVG.
* ``section#tables`` — any other tables (sortability, runtime, protocol ...),
  each a sortable ``table#tbl-<i>.sortable`` under ``h3#table-<i>``; a table
  of more than :data:`COLLAPSE_ROWS` rows sits in a closed
  ``details#tbl-<i>-details.long-table`` whose summary reads
  "<title> (N rows) — show", so long tables do not bury the page.
* ``section#effect`` — "Effect estimation" (only when the store holds
  effect runs, :class:`EffectSection`): ``table#effect-status`` (one
  ``tr[data-method]`` per method: ok / missing (unsupported) / failed
  counts; a failure count opens ``details.failure`` with the errors), then
  each effect table as ``table#<name>.sortable`` under ``h3#<name>-title``
  (``name`` its CSV stem), the effect figures in ``div#effect-figures``
  and the effect analyses left out in ``table#effect-left-out``.
* ``table#config`` — the run's configuration and versions.

All text from the data is HTML-escaped in the static part and JSON-escaped
(``<``, ``>``, ``&`` as ``\\u003c`` ...) inside the script tag, so a method named
``</script><b>x`` shows as text; the JavaScript writes data with ``textContent``.
"""

from __future__ import annotations

import base64
import html as _html
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

__all__ = ["EffectSection", "HtmlReport", "failure_examples", "write_html"]

PathLike = Union[str, Path]

#: columns of :attr:`HtmlReport.failures`
FAILURE_COLUMNS = ("method", "status", "count", "examples")
#: columns of each :attr:`HtmlReport.slices` frame (the ``slice_scores`` output of the contract)
SLICE_COLUMNS = ("factor", "level", "method", "split", "score", "sd", "units")
#: a table of ``tables`` with more rows than this starts collapsed
COLLAPSE_ROWS = 25


@dataclass
class EffectSection:
    """The page's "Effect estimation" section (CausalIDView report); plain data.

    Attributes:
        status: one row per method (``method`` column first), e.g.
            :func:`arena_diagnosis.effect.effect_status`; a ``failed`` column
            gets buttons opening the method's examples in ``failures``.
        failures: :func:`failure_examples` of the effect runs.
        tables: (name, title, frame) triples; ``name`` (the CSV stem) is the
            table's id.
        figures: (title, path) pairs as :attr:`HtmlReport.figures`.
        notes: title → paragraph shown above that table.
        left_out: (analysis, reason) pairs: effect analyses without data here.
    """

    status: pd.DataFrame
    failures: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(FAILURE_COLUMNS)))
    tables: List[Tuple[str, str, pd.DataFrame]] = field(default_factory=list)
    figures: List[Tuple[str, str]] = field(default_factory=list)
    notes: Dict[str, str] = field(default_factory=dict)
    left_out: List[Tuple[str, str]] = field(default_factory=list)


@dataclass
class HtmlReport:
    """Everything the HTML page shows; plain data, no behaviour.

    Attributes:
        title: page title (``<title>`` and the ``<h1>``).
        leaderboard: one row per method. The method is the ``method`` column
            if there is one, else the index. Every other column is shown in
            order (e.g. "synthetic / obs", …, "Avg"); values are numbers (F1,
            printed to 3 decimals) or display strings (then sorted by their
            leading number). NaN shows as "–".
        failures: columns method, status, count (int), examples (list of
            error strings) — one row per (method, failure status); see
            :func:`failure_examples`. Empty: no failure column.
        slices: factor name -> DataFrame in the ``slice_scores`` format
            (factor, level, method, split, score, sd, units).
        figures: (title, path) pairs, ``path`` relative to the page's folder
            (e.g. ``"figures/d_curve.png"``); an ``.svg`` of the same stem, if
            present, is linked.
        tables: title -> DataFrame for the other tables (index shown when it
            is not a plain RangeIndex).
        config: key -> value strings (versions, command, results path, ...).
        metric: name of the slice score shown in the explorer's legend.
        notes: optional title -> paragraph text shown above a table of
            ``tables`` with that title (e.g. what a column means).
        effect: the "Effect estimation" section, or None (no effect runs).
    """

    title: str
    leaderboard: pd.DataFrame
    failures: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(FAILURE_COLUMNS)))
    slices: Dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: List[Tuple[str, str]] = field(default_factory=list)
    tables: Dict[str, pd.DataFrame] = field(default_factory=dict)
    config: Dict[str, str] = field(default_factory=dict)
    metric: str = "f1"
    notes: Dict[str, str] = field(default_factory=dict)
    effect: Optional[EffectSection] = None


# --------------------------------------------------------------------------- helpers


def _esc(value: Any) -> str:
    return _html.escape("" if value is None else str(value), quote=True)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value)) if not isinstance(value, (list, tuple, dict, np.ndarray)) else False
    except (TypeError, ValueError):
        return False


def _display(value: Any) -> str:
    """Cell text: floats to 3 decimals (integers as integers), NaN as an en dash."""
    if _is_missing(value):
        return "\u2013"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return str(int(v)) if v.is_integer() and abs(v) >= 1000 else f"{v:.3f}"
    return str(value)


def _sort_value(value: Any) -> str:
    """``data-value`` of a cell: the raw number (full precision) or the text; "" when missing."""
    if _is_missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(int(bool(value)))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return repr(float(value)) if isinstance(value, (float, np.floating)) else str(int(value))
    return str(value)


def _json_value(value: Any) -> Any:
    """JSON-safe scalar: NaN / None -> null, numpy scalars -> Python."""
    if _is_missing(value):
        return None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, (np.bool_,)):
        return bool(value)
    return value


def _script_json(data: Any) -> str:
    """JSON for a <script> element: ``<``, ``>`` and ``&`` escaped so no ``</script>`` can close it."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _asset(name: str) -> str:
    return resources.files("arena_diagnosis").joinpath("assets", name).read_text(encoding="utf-8")


def _table_html(frame: pd.DataFrame, *, table_id: Optional[str] = None, label_cols: Sequence[str] = (),
                sortable: bool = True, extra: Optional[Dict[str, List[str]]] = None) -> str:
    """A <table> of ``frame`` (columns in order; ``label_cols`` left-aligned text).

    ``extra`` maps a column name to per-row ready-made HTML for that column's
    cells (used for the failure buttons), overriding the escaped value.
    """
    attrs = f' id="{_esc(table_id)}"' if table_id else ""
    cls = ' class="sortable"' if sortable else ""
    head = "".join(
        f'<th data-col="{_esc(c)}"{" class=label" if c in label_cols else ""}>{_esc(c)}</th>' for c in frame.columns)
    body = []
    for i, (_, row) in enumerate(frame.iterrows()):
        cells = []
        for c in frame.columns:
            v = row[c]
            klass = ["label"] if c in label_cols else []
            if _is_missing(v):
                klass.append("missing")
            ca = f' class="{" ".join(klass)}"' if klass else ""
            inner = extra[c][i] if extra and c in extra else _esc(_display(v))
            cells.append(f'<td{ca} data-value="{_esc(_sort_value(v))}">{inner}</td>')
        rid = ""
        if "method" in frame.columns:
            rid = f' data-method="{_esc(row["method"])}"'
        body.append(f"<tr{rid}>{''.join(cells)}</tr>")
    return (f"<table{attrs}{cls}><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) +
            "\n</tbody></table>")


def _frame_with_index(frame: pd.DataFrame) -> pd.DataFrame:
    """Show a meaningful index as leading column(s); drop a plain RangeIndex."""
    if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None:
        return frame
    return frame.reset_index()


# --------------------------------------------------------------------------- sections


def _leaderboard_frame(report: HtmlReport) -> pd.DataFrame:
    lb = report.leaderboard
    if not isinstance(lb, pd.DataFrame):
        raise ValueError(f"HtmlReport.leaderboard: expected a DataFrame, got {type(lb).__name__}")
    if "method" not in lb.columns:
        lb = lb.rename_axis("method").reset_index()
    if lb["method"].duplicated().any():
        dup = sorted(lb.loc[lb["method"].duplicated(), "method"].astype(str).unique())
        raise ValueError(f"HtmlReport.leaderboard: one row per method expected; repeated: {dup}")
    cols = ["method"] + [c for c in lb.columns if c != "method"]
    return lb[cols].reset_index(drop=True)


def _failures_frame(report: HtmlReport) -> pd.DataFrame:
    f = report.failures
    if f is None or len(f) == 0:
        return pd.DataFrame(columns=list(FAILURE_COLUMNS))
    missing = [c for c in FAILURE_COLUMNS if c not in f.columns]
    if missing:
        raise ValueError(f"HtmlReport.failures: lacks column(s) {missing}; needs {list(FAILURE_COLUMNS)}")
    return f


def _leaderboard_section(report: HtmlReport) -> str:
    lb = _leaderboard_frame(report)
    fails = _failures_frame(report)
    extra = None
    method_ids = {m: f"fail-{i}" for i, m in enumerate(_unique(fails["method"]))}
    if len(fails):
        totals = fails.groupby("method", sort=False)["count"].sum()
        lb = lb.assign(failures=[int(totals.get(m, 0)) for m in lb["method"]])
        buttons = []
        for m, n in zip(lb["method"], lb["failures"]):
            if n > 0:
                buttons.append(f'<button type="button" class="fail-count" data-method="{_esc(m)}" '
                               f'data-target="{method_ids[m]}" title="show the error examples">{n}</button>')
            else:
                buttons.append("0")
        extra = {"failures": buttons}
    table = _table_html(lb, table_id="leaderboard", label_cols=("method",), extra=extra)
    parts = ['<section id="leaderboard-section"><h2>Leaderboard</h2>',
             '<p class="note">One row per method; cells are family / split means over units (paper Table 2, '
             '§5.1), Avg the mean of the available cells. Click a header to sort; click a failure count to see '
             'the errors.</p>',
             f'<div class="scroll">{table}</div>']
    if len(fails):
        parts.append('<h3 id="failures">Failures</h3>')
        parts += _failure_details(fails, method_ids)
    parts.append("</section>")
    return "\n".join(parts)


def _failure_details(fails: pd.DataFrame, method_ids: Dict[str, str]) -> List[str]:
    """One closed ``details.failure`` per method (id ``method_ids[method]``) with its error examples."""
    parts = []
    for m in _unique(fails["method"]):
        sub = fails[fails["method"] == m]
        summary = ", ".join(f"{int(c)} {s}" for s, c in zip(sub["status"], sub["count"]))
        body = []
        for s, c, ex in zip(sub["status"], sub["count"], sub["examples"]):
            examples = list(ex) if isinstance(ex, (list, tuple, np.ndarray)) else ([] if _is_missing(ex) else [ex])
            items = "".join(f"<pre>{_esc(e)}</pre>" for e in examples) or '<p class="note">no error text</p>'
            body.append(f'<div class="status" data-status="{_esc(s)}"><strong>{_esc(s)}</strong> '
                        f'({int(c)} runs)<div class="examples">{items}</div></div>')
        parts.append(f'<details class="failure" id="{method_ids[m]}" data-method="{_esc(m)}">'
                     f'<summary>{_esc(m)}: {_esc(summary)}</summary>{"".join(body)}</details>')
    return parts


def _slices_payload(report: HtmlReport) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for factor, frame in report.slices.items():
        if frame is None:
            continue
        missing = [c for c in ("level", "method", "score", "units") if c not in frame.columns]
        if missing:
            raise ValueError(f"HtmlReport.slices[{factor!r}]: lacks column(s) {missing}; "
                             f"needs the slice_scores columns {list(SLICE_COLUMNS)}")
        df = frame.copy()
        if "split" not in df.columns:
            df["split"] = None
        if "sd" not in df.columns:
            df["sd"] = np.nan
        df["level"] = df["level"].astype(str)
        rows = [{"level": r.level, "method": str(r.method), "split": _json_value(r.split),
                 "score": _json_value(r.score), "sd": _json_value(r.sd), "units": _json_value(r.units)}
                for r in df[["level", "method", "split", "score", "sd", "units"]].itertuples(index=False)]
        splits = [_json_value(s) for s in pd.unique(df["split"])]
        out[str(factor)] = {"metric": report.metric, "levels": _unique(df["level"]),
                            "methods": [str(m) for m in _unique(df["method"])], "splits": splits, "rows": rows}
    return out


def _slices_section(payload: Optional[Dict[str, Any]] = None) -> str:
    """The slice explorer: a factor menu (its options rendered here, so it is never empty) that the script
    turns into a heat table, and a ``<noscript>`` copy of every factor's table for a reader without JavaScript
    (the menu, which needs the script, is hidden there)."""
    payload = payload or {}
    options = "".join(f'<option value="{_esc(f)}">{_esc(f)}</option>' for f in payload)
    return ('<section id="slices"><h2>Slice explorer</h2>'
            '<p class="note">Slice scores (paper Eq. 6): per unit, replicate means first, then the mean over the '
            'units carrying the level; n is the number of units. Cells are coloured from the lowest to the highest '
            'score of the factor.</p>'
            '<div class="controls"><label for="slice-factor">Factor</label>'
            f'<select id="slice-factor">{options}</select></div>'
            '<div id="slice-view"></div>'
            f'<noscript><style>#slices .controls {{ display: none; }}</style>{_slices_static(payload)}</noscript>'
            '</section>')


def _slices_static(payload: Dict[str, Any]) -> str:
    """Every factor's slice table as plain HTML (method rows, level columns, "score (n = units)" cells), one
    ``<details>`` per factor, the first open: what the explorer shows, without JavaScript."""
    if not payload:
        return '<p class="note">No slice scores in this report.</p>'
    parts = ['<p class="note" id="slices-static-note">JavaScript is off: every factor\'s table follows '
             '(the menu above needs it).</p>']
    for k, (factor, data) in enumerate(payload.items()):
        body = []
        for split in data["splits"]:
            rows = [r for r in data["rows"] if r["split"] == split]
            levels = [lv for lv in data["levels"] if any(r["level"] == lv for r in rows)]
            cells = {(r["method"], r["level"]): r for r in rows}
            head = "".join(f"<th>{_esc(lv)}</th>" for lv in levels)
            trs = []
            for m in data["methods"]:
                if not any((m, lv) in cells for lv in levels):
                    continue
                tds = []
                for lv in levels:
                    r = cells.get((m, lv))
                    tds.append("<td>\u2013</td>" if r is None else
                               f'<td class="cell">{_esc(_display(r["score"]))}'
                               f'<span class="n">n = {_esc(_display(r["units"]))}</span></td>')
                trs.append(f"<tr><th>{_esc(m)}</th>{''.join(tds)}</tr>")
            label = f" ({_esc(split)})" if split is not None else ""
            body.append(f'<div class="scroll"><table class="heat static-slice"><caption>{_esc(factor)}{label}: '
                        f'{_esc(data["metric"])}</caption><thead><tr><th>method</th>{head}</tr></thead>'
                        f'<tbody>{"".join(trs)}</tbody></table></div>')
        parts.append(f'<details class="static-slice"{" open" if k == 0 else ""}><summary>{_esc(factor)}</summary>'
                     f'{"".join(body)}</details>')
    return "".join(parts)


def _figures_section(report: HtmlReport, base: Path, inline: bool) -> str:
    if not report.figures:
        return '<section id="figures"><h2>Figures</h2><p class="note">No figures.</p></section>'
    return (f'<section id="figures"><h2>Figures</h2><div class="gallery">'
            f'{_figure_items(report.figures, base, inline)}</div></section>')


def _figure_items(figures: Sequence[Tuple[str, str]], base: Path, inline: bool, what: str = "figures") -> str:
    """The gallery's ``<figure>`` elements: a thumbnail linking the full PNG, the caption linking the SVG."""
    items = []
    for i, (title, rel) in enumerate(figures):
        rel = str(rel).replace("\\", "/")
        src = rel
        if inline:
            path = base / rel
            if not path.exists():
                raise ValueError(f"HtmlReport.{what}[{i}]: {path} does not exist (inline_figures=True)")
            src = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
        svg = str(Path(rel).with_suffix(".svg")).replace("\\", "/")
        link = f' · <a href="{_esc(svg)}">SVG</a>' if (base / svg).exists() and not inline else ""
        size = _png_size(base / rel)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        img = f'<img src="{_esc(src)}" alt="{_esc(title)}" loading="lazy"{dims}>'
        if not inline:  # the thumbnail opens the full-size PNG (an inlined page has no file to open)
            img = f'<a class="full" href="{_esc(rel)}" title="open the full-size figure">{img}</a>'
        # a figure too big for half a row (many panels, many levels) takes the whole row at up to its own
        # size, so its text keeps a readable size at a 1,400 px window instead of being shrunk into a thumbnail
        large = size is not None and (size[0] > LARGE_FIGURE_PX[0] or size[1] > LARGE_FIGURE_PX[1])
        cls = ' class="large"' if large else ""
        items.append(f'<figure data-name="{_esc(Path(rel).stem)}"{cls}>{img}'
                     f'<figcaption>{_esc(title)}{link}</figcaption></figure>')
    return "".join(items)


#: (width, height) in pixels beyond which a figure spans the gallery's whole row (``<figure class="large">``)
LARGE_FIGURE_PX = (1100, 900)


def _png_size(path: Path) -> Optional[Tuple[int, int]]:
    """(width, height) in pixels from a PNG's IHDR chunk; None when the file is missing or not a PNG."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _one_table(frame: pd.DataFrame, table_id: str, title: str) -> str:
    """A sortable table of ``frame`` (text columns left-aligned), collapsed when long (:data:`COLLAPSE_ROWS`)."""
    shown = _frame_with_index(frame)
    shown.columns = [str(c) for c in shown.columns]
    labels = [c for c in shown.columns if not pd.api.types.is_numeric_dtype(shown[c])]
    table = f'<div class="scroll">{_table_html(shown, table_id=table_id, label_cols=labels)}</div>'
    if len(shown) > COLLAPSE_ROWS:
        table = (f'<details class="long-table" id="{_esc(table_id)}-details"><summary>{_esc(title)} ({len(shown)} '
                 f'rows) \u2014 <span class="toggle">show</span></summary>{table}</details>')
    return table


def _effect_section(report: HtmlReport, base: Path, inline: bool) -> str:
    eff = report.effect
    if eff is None:
        return ""
    status = eff.status
    if not isinstance(status, pd.DataFrame) or "method" not in status.columns:
        raise ValueError("HtmlReport.effect.status: expected a DataFrame with a 'method' column")
    fails = _failures_frame(HtmlReport(title="", leaderboard=pd.DataFrame(), failures=eff.failures))
    ids = {m: f"effect-fail-{i}" for i, m in enumerate(_unique(fails["method"]))}
    extra = None
    if "failed" in status.columns and len(fails):
        extra = {"failed": [f'<button type="button" class="fail-count" data-method="{_esc(m)}" '
                            f'data-target="{ids[m]}" title="show the error examples">{int(n)}</button>'
                            if int(n) > 0 and m in ids else _esc(_display(n))
                            for m, n in zip(status["method"], status["failed"])]}
    text_cols = [c for c in status.columns if not pd.api.types.is_numeric_dtype(status[c])]
    status_table = _table_html(status.reset_index(drop=True), table_id="effect-status", label_cols=text_cols,
                               extra=extra)
    parts = ['<section id="effect"><h2>Effect estimation</h2>',
             '<p class="note">CATE estimation across observational views (CausalIDView): sPEHE² and its '
             'mean-effect / centred-CATE parts, Stay / Move responses, the bd \u2192 hc degradation, bounds and '
             'real data. Means over worlds of replicate means; SD over worlds. A view a method does not support '
             'is missing (not a failure).</p>',
             '<h3 id="effect-status-title">Effect runs per method</h3>',
             f'<div class="scroll">{status_table}</div>']
    parts += _failure_details(fails, ids)
    for name, title, frame in eff.tables:
        if not isinstance(frame, pd.DataFrame):
            raise ValueError(f"HtmlReport.effect.tables[{name!r}]: expected a DataFrame, got {type(frame).__name__}")
        parts.append(f'<h3 id="{_esc(name)}-title">{_esc(title)}</h3>')
        if title in eff.notes:
            parts.append(f'<p class="note">{_esc(eff.notes[title])}</p>')
        parts.append(_one_table(frame, name, title) if len(frame) else '<p class="note">No rows.</p>')
    if eff.figures:
        parts.append(f'<h3 id="effect-figures-title">Effect figures</h3><div class="gallery" id="effect-figures">'
                     f'{_figure_items(eff.figures, base, inline, what="effect.figures")}</div>')
    if eff.left_out:
        parts.append('<h3 id="effect-left-out-title">Left out (effect estimation)</h3>')
        left = pd.DataFrame(list(eff.left_out), columns=["analysis", "reason"])
        left_table = _table_html(left, table_id="effect-left-out", label_cols=("analysis", "reason"))
        parts.append(f'<div class="scroll">{left_table}</div>')
    parts.append("</section>")
    return "\n".join(parts)


def _tables_section(report: HtmlReport) -> str:
    if not report.tables:
        return ""
    parts = ['<section id="tables"><h2>Tables</h2>']
    for i, (title, frame) in enumerate(report.tables.items()):
        if not isinstance(frame, pd.DataFrame):
            raise ValueError(f"HtmlReport.tables[{title!r}]: expected a DataFrame, got {type(frame).__name__}")
        parts.append(f'<h3 id="table-{i}">{_esc(title)}</h3>')
        if title in report.notes:
            parts.append(f'<p class="note">{_esc(report.notes[title])}</p>')
        if frame.empty:
            parts.append('<p class="note">No rows.</p>')
            continue
        parts.append(_one_table(frame, f"tbl-{i}", title))
    parts.append("</section>")
    return "\n".join(parts)


def _config_section(report: HtmlReport) -> str:
    rows = "".join(f'<tr><th class="label">{_esc(k)}</th><td>{_esc(v)}</td></tr>' for k, v in report.config.items())
    return f'<section id="configuration"><h2>Configuration and versions</h2><table id="config">{rows}</table></section>'


def _unique(values) -> List[Any]:
    return list(pd.Series(list(values), dtype=object).dropna().drop_duplicates())


# --------------------------------------------------------------------------- public


def write_html(path: PathLike, report: HtmlReport, inline_figures: bool = False) -> Path:
    """Write the report as one self-contained HTML page.

    Args:
        path: the page to write (conventionally ``<results>/index.html``);
            its folder is created. Figure paths in ``report.figures`` are
            relative to this folder.
        report: what to show (:class:`HtmlReport`).
        inline_figures: embed the PNGs as base64 ``data:`` URLs (a single
            movable file) instead of linking them by relative path.

    Returns:
        the written path.

    Raises:
        ValueError: ``report.leaderboard`` is not a DataFrame or repeats a
            method; ``failures`` or a ``slices`` frame lacks a documented
            column; a figure to inline does not exist.
    """
    if not isinstance(report, HtmlReport):
        raise ValueError(f"write_html: expected an HtmlReport, got {type(report).__name__}")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    slices_payload = _slices_payload(report)
    data = {"slices": slices_payload}
    # an effect-only store: the discovery sections would be empty shells, so the page opens on the effect section
    discovery = len(report.leaderboard) > 0 or report.effect is None
    body = "\n".join([
        f'<header><h1>{_esc(report.title)}</h1><nav>'
        + ('<a href="#leaderboard-section">Leaderboard</a><a href="#slices">Slice explorer</a>'
           '<a href="#figures">Figures</a>' if discovery else "")
        + ('<a href="#tables">Tables</a>' if report.tables and discovery else "")
        + ('<a href="#effect">Effect estimation</a>' if report.effect is not None else "")
        + '<a href="#configuration">Configuration</a></nav></header>',
        _leaderboard_section(report) if discovery else "",
        _slices_section(slices_payload) if discovery else "",
        _figures_section(report, out.parent, inline_figures) if discovery else "",
        _tables_section(report) if discovery else "",
        _effect_section(report, out.parent, inline_figures),
        _config_section(report),
    ])
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            # no network at view time: only inline scripts and styles, images from the page's folder
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' file: data:; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            f"<title>{_esc(report.title)}</title>\n<style>\n{_asset('report.css')}\n</style></head>\n<body>\n{body}\n"
            f'<script type="application/json" id="report-data">{_script_json(data)}</script>\n'
            f"<script>\n{_asset('report.js')}\n</script>\n</body></html>\n")
    out.write_text(page, encoding="utf-8")
    return out


def failure_examples(runs: pd.DataFrame, max_examples: int = 5,
                     statuses: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """The :attr:`HtmlReport.failures` frame from a runs table.

    Args:
        runs: ``Store.runs_frame()`` (needs method, status; error when present).
        max_examples: at most this many distinct error strings per (method, status).
        statuses: which statuses count as failures (default: every status
            except "ok" and "unsupported" — an unsupported split is missing,
            not failed, paper App. B.1).

    Returns:
        columns method, status, count, examples (list of str, distinct, first
        seen first), sorted by method then count descending; empty with those
        columns when nothing failed.

    Raises:
        ValueError: ``runs`` lacks method or status.
    """
    missing = [c for c in ("method", "status") if c not in runs.columns]
    if missing:
        raise ValueError(f"failure_examples: runs lacks column(s) {missing}")
    status = runs["status"].astype(str)
    mask = status.isin(list(statuses)) if statuses is not None else ~status.isin(["ok", "unsupported"])
    bad = runs[mask]
    if bad.empty:
        return pd.DataFrame(columns=list(FAILURE_COLUMNS))
    errors = bad["error"] if "error" in bad.columns else pd.Series("", index=bad.index)
    frame = pd.DataFrame({"method": bad["method"].astype(str), "status": status[mask],
                          "error": errors.fillna("").astype(str)})
    rows = []
    for (m, s), g in frame.groupby(["method", "status"], sort=False):
        ex = [e for e in g["error"].drop_duplicates() if e][:max_examples]
        rows.append({"method": m, "status": s, "count": int(len(g)), "examples": ex})
    out = pd.DataFrame(rows, columns=list(FAILURE_COLUMNS))
    return out.sort_values(["method", "count"], ascending=[True, False], kind="stable").reset_index(drop=True)
