/* CausalArena HTML report: sortable tables, failure examples, slice explorer.
   Vanilla JS, no libraries, nothing fetched: the data is the JSON in <script id="report-data">.
   Data is written into the DOM with textContent only (method names may contain markup). */
(function () {
  "use strict";

  function sortKey(cell) {
    if (!cell) return { missing: true };
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (raw === "" || raw === "NaN" || raw === "\u2013") return { missing: true };
    var num = Number(raw);
    if (!isFinite(num)) num = parseFloat(raw); /* "0.41 (0.08)" sorts by its leading number */
    return isFinite(num) ? { num: num, text: raw } : { text: raw.toLowerCase() };
  }

  function compareKeys(a, b) {
    if (a.num !== undefined && b.num !== undefined) return a.num - b.num;
    if (a.num !== undefined) return -1; /* numbers before text */
    if (b.num !== undefined) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortTable(table, th) {
    var headers = Array.prototype.slice.call(th.parentNode.children);
    var idx = headers.indexOf(th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var keyed = rows.map(function (row, i) { return { row: row, i: i, key: sortKey(row.cells[idx]) }; });
    keyed.sort(function (x, y) {
      if (x.key.missing || y.key.missing) { /* missing values last in both directions */
        if (x.key.missing && y.key.missing) return x.i - y.i;
        return x.key.missing ? 1 : -1;
      }
      var c = compareKeys(x.key, y.key);
      if (dir === "descending") c = -c;
      return c !== 0 ? c : x.i - y.i; /* stable */
    });
    keyed.forEach(function (k) { tbody.appendChild(k.row); });
  }

  function initSortable(root) {
    Array.prototype.forEach.call(root.querySelectorAll("table.sortable"), function (table) {
      Array.prototype.forEach.call(table.querySelectorAll("thead th[data-col]"), function (th) {
        th.setAttribute("tabindex", "0");
        th.addEventListener("click", function () { sortTable(table, th); });
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortTable(table, th); }
        });
      });
    });
  }

  function initFailures() {
    Array.prototype.forEach.call(document.querySelectorAll("button.fail-count"), function (btn) {
      btn.addEventListener("click", function () {
        var target = document.getElementById(btn.getAttribute("data-target"));
        if (!target) return;
        target.open = true;
        target.classList.add("flash");
        setTimeout(function () { target.classList.remove("flash"); }, 1500);
        if (target.scrollIntoView) target.scrollIntoView({ block: "nearest" });
      });
    });
  }

  /* viridis at 5 stops: perceptually uniform and colour-blind safe */
  var RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

  function colourFor(t) {
    t = Math.max(0, Math.min(1, t));
    var pos = t * (RAMP.length - 1), i = Math.min(Math.floor(pos), RAMP.length - 2), f = pos - i;
    var c = [0, 1, 2].map(function (k) { return Math.round(RAMP[i][k] + f * (RAMP[i + 1][k] - RAMP[i][k])); });
    var lum = (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
    return { bg: "rgb(" + c.join(",") + ")", fg: lum > 0.5 ? "#000" : "#fff" };
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function fmt(v) { return v === null || v === undefined ? "\u2013" : Number(v).toFixed(3); }

  function renderSlice(view, factor, slice) {
    while (view.firstChild) view.removeChild(view.firstChild);
    view.setAttribute("data-factor", factor);
    if (!slice || !slice.rows.length) { view.appendChild(el("p", { "class": "note" }, "No data for this factor.")); return; }
    var scores = slice.rows.map(function (r) { return r.score; }).filter(function (v) { return v !== null; });
    var lo = Math.min.apply(null, scores), hi = Math.max.apply(null, scores);
    var span = hi > lo ? hi - lo : 1;
    var legend = el("p", { "class": "note" });
    legend.appendChild(document.createTextNode("Cell: mean " + slice.metric + " over units (Eq. 6), n = units; colour " + fmt(lo)));
    var bar = el("span", { "class": "legend-bar" });
    bar.style.background = "linear-gradient(to right," + RAMP.map(function (c) { return "rgb(" + c.join(",") + ")"; }).join(",") + ")";
    legend.appendChild(bar);
    legend.appendChild(document.createTextNode(fmt(hi)));
    view.appendChild(legend);
    slice.splits.forEach(function (split, s) {
      var rows = slice.rows.filter(function (r) { return r.split === split; });
      if (!rows.length) return;
      view.appendChild(el("h3", null, factor + " \u2014 split " + (split === null ? "all" : split)));
      var table = el("table", { "class": "heat sortable", id: "slice-table-" + s, "data-factor": factor,
                                "data-split": split === null ? "" : split });
      var thead = el("thead"), hr = el("tr");
      hr.appendChild(el("th", { "class": "label", "data-col": "method" }, "method"));
      var levels = slice.levels.filter(function (lv) { return rows.some(function (r) { return r.level === lv; }); });
      levels.forEach(function (lv) { hr.appendChild(el("th", { "data-col": lv, "data-level": lv }, lv)); });
      thead.appendChild(hr); table.appendChild(thead);
      var tbody = el("tbody");
      slice.methods.forEach(function (m) {
        var mine = rows.filter(function (r) { return r.method === m; });
        if (!mine.length) return;
        var tr = el("tr", { "data-method": m });
        tr.appendChild(el("td", { "class": "label" }, m));
        levels.forEach(function (lv) {
          var r = mine.filter(function (x) { return x.level === lv; })[0];
          var td = el("td", { "class": "cell", "data-level": lv, "data-value": r && r.score !== null ? r.score : "" });
          if (r && r.score !== null) {
            var c = colourFor((r.score - lo) / span);
            td.style.background = c.bg; td.style.color = c.fg;
            td.appendChild(document.createTextNode(fmt(r.score)));
            var sd = r.sd === null || r.sd === undefined ? "" : " \u00b1" + Number(r.sd).toFixed(2);
            td.title = factor + "=" + lv + ", " + m + ": " + fmt(r.score) + sd + " over " + r.units + " units";
            td.appendChild(el("span", { "class": "n" }, "n=" + r.units));
          } else {
            td.className += " missing"; td.textContent = "\u2013";
          }
          tr.appendChild(td);
        });
        tbody.appendChild(tr);
      });
      table.appendChild(tbody);
      var wrap = el("div", { "class": "scroll" }); wrap.appendChild(table); view.appendChild(wrap);
    });
    initSortable(view);
  }

  function initSlices(data) {
    var select = document.getElementById("slice-factor"), view = document.getElementById("slice-view");
    if (!select || !view) return;
    var slices = data.slices || {};
    // the page renders the options (a reader without JavaScript sees the <noscript> tables instead);
    // an older page without them gets them here
    if (!select.options.length) {
      Object.keys(slices).forEach(function (f) { select.appendChild(el("option", { value: f }, f)); });
    }
    if (!select.options.length) { view.appendChild(el("p", { "class": "note" }, "No slice scores in this report.")); return; }
    select.addEventListener("change", function () { renderSlice(view, select.value, slices[select.value]); });
    renderSlice(view, select.value, slices[select.value]);
  }

  /* a collapsed long table says "show" when closed and "hide" when open */
  function initLongTables() {
    Array.prototype.forEach.call(document.querySelectorAll("details.long-table"), function (d) {
      var label = d.querySelector("summary .toggle");
      if (!label) return;
      d.addEventListener("toggle", function () { label.textContent = d.open ? "hide" : "show"; });
    });
  }

  function init() {
    var node = document.getElementById("report-data");
    var data = node ? JSON.parse(node.textContent) : {};
    initSortable(document);
    initFailures();
    initLongTables();
    initSlices(data);
    document.body.setAttribute("data-ready", "1");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
