"""``arena card show`` and ``arena card render``: a card as rich tables and as a drawn DAG.

CausalArena paper App. A.3–A.5. :func:`show` prints a card (header,
variables, edges and, for formula cards, equations) with ``rich``;
:func:`render` draws its graph with matplotlib (an optional dependency,
imported only inside :func:`render`): layered left to right by topological
generation, nodes ordered within each layer to reduce edge crossings
(barycentre sweeps over a layered graph in which long edges run through
virtual points), nodes as rounded boxes coloured by role, intervention
handles outlined and tagged "do". :func:`layout` gives the node positions
without drawing.

Card text is untrusted: every user string is shown as a literal
:class:`rich.text.Text` (never parsed as markup or emoji codes) with control
characters made visible, and matplotlib text is drawn with math parsing off.
"""

from __future__ import annotations

import math
import re
import textwrap
import unicodedata
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .compile import role_of
from .model import Card, CardError

#: role → (fill, border) colours of :func:`render` boxes
ROLE_COLOURS = {
    "root": ("#d6e6f5", "#3f6f9f"),
    "mechanism": ("#fbe3c8", "#b86f1f"),
    "formula": ("#d5efd2", "#3d8a3a"),
    "measurement": ("#e7ddf3", "#7656a3"),
}
#: legend text of each role
ROLE_LABELS = {
    "root": "root (exogenous)",
    "mechanism": "mechanism",
    "formula": "formula (named equation)",
    "measurement": "measurement (reading of a variable)",
}
#: outline colour of intervenable variables
DO_COLOUR = "#c0392b"
DO_LABEL = 'intervenable ("do" handle)'
EDGE_LABEL = "causal edge"
#: output formats :func:`render` writes
FORMATS = ("png", "svg", "pdf")
#: characters per label line
LABEL_WIDTH = 14

# geometry of the drawing, in inches (the axes are drawn 1 data unit = 1 inch)
_BOX_W = 1.30          # box width
_LINE_H = 0.165        # height of one label line (9 pt)
_BOX_PAD = 0.16        # vertical padding inside a box
_LAYER_GAP = 1.05      # horizontal room for arrows between two layers of boxes
_NODE_GAP = 0.26       # vertical gap between two boxes (or a box and a passing edge)
_LANE_GAP = 0.10       # vertical gap between two long edges passing through a layer
_PORT_STEP = 0.075     # vertical distance between two arrows meeting one side of a box
_DUMMY_H = 0.10        # vertical room of a long edge passing through a layer
_MARGIN = 0.35
_FONT = 9
_MAX_PIXELS = 30000    # keep PNGs of huge third-party cards under matplotlib's limit


# ---------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------


def _clean(value: Any) -> str:
    """``value`` as text with control and format characters (ESC, bidi overrides …) made visible."""
    if value is None:
        return ""
    s = value if isinstance(value, str) else str(value)
    out = []
    for ch in s:
        if ch == "\n":
            out.append(ch)
        elif ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def _num(x: Any) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return _clean(x)
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x)) if abs(x) >= 1e4 or x == 0 else f"{x:g}"
    return f"{x:g}"


def _value(x: Any) -> str:
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{_clean(k)}: {_value(v)}" for k, v in x.items()) + "}"
    if x is None:
        return "null"
    return _num(x)


def _call(kind: Any, params: Dict[str, Any], skip: Sequence[str] = ("kind",)) -> str:
    args = ", ".join(f"{_clean(k)}={_value(v)}" for k, v in params.items() if k not in skip)
    return f"{_clean(kind)}({args})"


def node_label(name: str, width: int = LABEL_WIDTH) -> str:
    """The box label of variable ``name``: the exact identifier, wrapped after underscores to ``width`` characters."""
    words = _clean(name).replace("_", " ").strip() or "?"
    lines = textwrap.wrap(words, width=width, break_long_words=True, break_on_hyphens=True) or ["?"]
    # keep the identifier readable as itself: underscores inside a line, a trailing one where it wraps
    return "\n".join(line.replace(" ", "_") + ("_" if i < len(lines) - 1 else "") for i, line in enumerate(lines))


# ---------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------


def _txt(value: Any, style: str = "") -> "Any":
    from rich.text import Text

    return Text(_clean(value), style=style)


def _range(v: Dict[str, Any]) -> str:
    r = v.get("range")
    if isinstance(r, (list, tuple)) and len(r) == 2:
        return f"[{_num(r[0])}, {_num(r[1])}]"
    return _value(r) if r is not None else ""


def _intervention(v: Dict[str, Any]) -> str:
    if not v.get("intervenable"):
        return "no"
    iv = v.get("intervention") or {}
    out = "yes"
    if iv.get("meaning"):
        out += ": " + _clean(iv["meaning"])
    if "values" in iv:
        out += f"\nvalues {_value(iv['values'])}"
    elif "range" in iv:
        out += f"\nrange {_value(iv['range'])}"
    else:
        out += "\n(protocol default range)"
    return out


def _mechanism(v: Dict[str, Any], is_root: bool) -> str:
    mech = v.get("mechanism")
    if is_root or not isinstance(mech, dict):
        rd = v.get("root_distribution")
        if isinstance(rd, dict):
            return _call(rd.get("kind", "?"), rd)
        return "?" if mech is None else _value(mech)
    kind = mech.get("type", "?")
    if kind == "equation":
        return f"equation {_clean(mech.get('equation', '?'))}"
    if kind == "expression":
        return f"expression: {_clean(mech.get('expression', ''))}"
    if kind == "stock_flow":
        return "stock_flow: " + _call("", {k: mech[k] for k in ("initial", "inflows", "outflows", "periods", "floor",
                                                                 "capacity") if k in mech}, skip=())[1:-1]
    coeffs = mech.get("coefficients")
    lin = ""
    if isinstance(coeffs, dict):
        terms = [_num(mech.get("intercept", 0))] + [f"{_num(w)}·{_clean(p)}" for p, w in coeffs.items()]
        lin = " + ".join(terms).replace("+ -", "− ")
    # every parameter of the typed operation, so the table is the whole mechanism
    extra = {k: val for k, val in mech.items() if k not in ("type", "intercept", "coefficients")}
    tail = ("; " + ", ".join(f"{_clean(k)}={_value(val)}" for k, val in extra.items())) if extra else ""
    return f"{_clean(kind)}: {lin}{tail}" if lin or tail else _clean(kind)


def _noise(v: Dict[str, Any]) -> str:
    extra = []
    n = v.get("noise")
    if isinstance(n, dict):
        extra.append(_call(n.get("kind", "?"), n))
    if v.get("resolution") is not None:
        extra.append(f"resolution {_num(v['resolution'])}")
    b = v.get("boundary")
    if isinstance(b, dict) and "clip" in b:
        extra.append(f"clip {_value(b['clip'])}")
    return "\n".join(extra) if extra else "—"


def _unit(v: Dict[str, Any]) -> str:
    return _clean(v.get("unit", ""))


def _type(v: Dict[str, Any]) -> str:
    t = _clean(v.get("type", "?"))
    levels = v.get("levels")
    if isinstance(levels, list) and levels:
        sep = " < " if v.get("type") == "ordinal" else ", "
        t += "\n" + sep.join(_clean(x) for x in levels)
    return t


def show(card: Card, console: Any) -> None:
    """Print ``card`` as rich tables on ``console``.

    Prints a header (id, title, family/domain, version, summary, counts of
    variables, edges and intervenable variables), a variables table (name,
    role, type, unit, range, intervention, mechanism or root distribution,
    noise, meaning, observation), an edges table (from → to, reason) and, when the card has
    equations (formula cards), an equations table (id, output ← inputs,
    expression, constants with units, validity, source).

    Every string from the card is printed literally (no rich markup or emoji
    codes are interpreted; control characters are shown as ``\\uXXXX``).
    Works on any schema-valid card, also one that fails later gates.

    Args:
        card: a loaded card (:func:`arena_cards.load_card`).
        console: a :class:`rich.console.Console`.
    """
    from rich import box
    from rich.table import Table
    from rich.text import Text

    data = card.data
    parents = card.parents()
    variables = card.variables
    n_int = sum(1 for v in variables if v.get("intervenable"))

    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold cyan", no_wrap=True)
    head.add_column()
    head.add_row("id", _txt(card.id, "bold"))
    head.add_row("title", _txt(data.get("title", "")))
    head.add_row("family / domain", _txt(f"{card.family} / {_clean(data.get('domain', '?'))}"))
    head.add_row("version", _txt(data.get("version", "?")))
    head.add_row("summary", _txt(" ".join(_clean(data.get("summary", "")).split())))
    head.add_row("counts", Text(f"{len(variables)} variables, {len(card.edges)} edges, {n_int} intervenable"
                                + (f", {len(card.equations)} equations" if card.equations else "")))
    refs = data.get("references") or []
    if isinstance(refs, list) and refs:
        head.add_row("references", _txt("\n".join(f"- {_clean(r)}" for r in refs)))
    if card.source and card.source != "<string>":
        head.add_row("file", _txt(card.source, "dim"))
    console.print(head)
    console.print()

    role_style = {"root": "blue", "mechanism": "dark_orange", "formula": "green", "measurement": "magenta"}
    vt = Table(title="Variables", title_justify="left", box=box.SIMPLE_HEAD, show_lines=True, expand=True)
    for col, kw in (("name", {"style": "bold", "overflow": "fold"}), ("role", {"no_wrap": True}),
                    ("type", {}), ("unit", {"overflow": "fold"}), ("range", {"no_wrap": True}),
                    ("intervenable", {"ratio": 2}), ("mechanism / root draw", {"ratio": 3}),
                    ("noise", {"overflow": "fold"}), ("meaning", {"ratio": 3}), ("observation", {"ratio": 2})):
        vt.add_column(col, **kw)
    for v in variables:
        name = v.get("name", "?")
        pa = parents.get(name, [])
        role = role_of(card, v, pa)
        vt.add_row(_txt(name), _txt(role, role_style.get(role, "")), _txt(_type(v)), _txt(_unit(v)),
                   _txt(_range(v)), _txt(_intervention(v), "bold red" if v.get("intervenable") else "dim"),
                   _txt(_mechanism(v, not pa)), _txt(_noise(v)), _txt(v.get("meaning", "")),
                   _txt(v.get("observation", "")))
    console.print(vt)

    et = Table(title="Edges", title_justify="left", box=box.SIMPLE_HEAD)
    et.add_column("from → to", no_wrap=True)
    et.add_column("reason")
    for e in card.edges:
        et.add_row(_txt(f"{_clean(e.get('from', '?'))} → {_clean(e.get('to', '?'))}", "bold"),
                   _txt(e.get("reason", "")))
    console.print(et)

    if card.equations:
        qt = Table(title="Equations", title_justify="left", box=box.SIMPLE_HEAD, show_lines=True, expand=True)
        for col, kw in (("id", {"style": "bold", "overflow": "fold"}), ("output ← inputs", {"ratio": 2}),
                        ("expression", {"ratio": 3, "overflow": "fold"}), ("constants", {"ratio": 3}),
                        ("validity", {"ratio": 1}), ("source", {"ratio": 2})):
            qt.add_column(col, **kw)
        for q in card.equations:
            inputs = q.get("inputs") or []
            io = f"{_clean(q.get('output', '?'))} ← " + ", ".join(_clean(i) for i in inputs)
            if q.get("name"):
                io += f"\n({_clean(q['name'])})"
            consts = []
            for k, c in (q.get("constants") or {}).items():
                if isinstance(c, dict):
                    line = f"{_clean(k)} = {_num(c.get('value', '?'))} {_clean(c.get('unit', ''))}".rstrip()
                    if c.get("meaning"):
                        line += f" ({_clean(c['meaning'])})"
                else:
                    line = f"{_clean(k)} = {_value(c)}"
                consts.append(line)
            validity = q.get("validity") or []
            validity_text = "\n".join(_clean(x) for x in validity) if isinstance(validity, list) else _clean(validity)
            qt.add_row(_txt(q.get("id", "?")), _txt(io), _txt(q.get("expression", "")),
                       _txt("\n".join(consts) or "—"), _txt(validity_text or "—"), _txt(q.get("source", "")))
        console.print(qt)


# ---------------------------------------------------------------------------
# layout
# ---------------------------------------------------------------------------


class _Layout:
    """Positions (inches) of boxes and of the virtual points long edges pass through."""

    def __init__(self) -> None:
        self.pos: Dict[Any, Tuple[float, float]] = {}     # node or virtual point → centre
        self.size: Dict[str, Tuple[float, float]] = {}    # node → (width, height)
        self.routes: Dict[Tuple[str, str], List[Any]] = {}  # edge → [src, virtual…, dst]
        self.layers: List[List[Any]] = []


def _graph(card: Card):
    import networkx as nx

    names = [n for n in card.names if isinstance(n, str)]
    g = nx.DiGraph()
    g.add_nodes_from(dict.fromkeys(names))
    known = set(names)
    for e in card.edges:
        a, b = e.get("from"), e.get("to")
        if a in known and b in known:  # unknown endpoints are `arena validate`'s business
            g.add_edge(a, b)
    if not nx.is_directed_acyclic_graph(g):
        cyc = [u for u, _ in nx.find_cycle(g)]
        raise CardError([card.issue(("edges",), "the graph has a cycle: " + " → ".join(cyc + cyc[:1])
                                    + " (run `arena validate` on the card)", "graph")])
    return g


def _crossings(upper: List[Any], lower: List[Any], links: Dict[Any, List[Any]]) -> int:
    pos = {n: i for i, n in enumerate(lower)}
    pairs = [(i, pos[c]) for i, n in enumerate(upper) for c in links.get(n, []) if c in pos]
    return sum(1 for k, (a, b) in enumerate(pairs) for c, d in pairs[k + 1:] if (a - c) * (b - d) < 0)


def _isotonic(values: List[float]) -> List[float]:
    """Least-squares non-decreasing fit of ``values`` (pool adjacent violators)."""
    blocks: List[List[float]] = []  # [mean, weight]
    for v in values:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2 = blocks.pop()
            m1, w1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2])
    out: List[float] = []
    for m, w in blocks:
        out.extend([m] * int(w))
    return out


def _compute_layout(card: Card) -> _Layout:
    import networkx as nx

    g = _graph(card)
    lay = _Layout()
    layer_of: Dict[Any, int] = {}
    for i, gen in enumerate(nx.topological_generations(g)):
        for n in gen:
            layer_of[n] = i
    order = {n: i for i, n in enumerate(g.nodes)}
    layers: List[List[Any]] = [[] for _ in range(max(layer_of.values(), default=-1) + 1)]
    for n in g.nodes:  # card order within a layer to start with
        layers[layer_of[n]].append(n)
        h = _BOX_PAD + _LINE_H * (node_label(n).count("\n") + 1)
        ports = max(g.in_degree(n), g.out_degree(n))
        lay.size[n] = (_BOX_W, max(h, _PORT_STEP * (ports - 1) / 0.8))  # room for the arrows' ports

    # long edges run through one virtual point per intermediate layer
    down: Dict[Any, List[Any]] = {n: [] for n in g.nodes}
    up: Dict[Any, List[Any]] = {n: [] for n in g.nodes}
    for a, b in g.edges:
        route: List[Any] = [a]
        for k in range(layer_of[a] + 1, layer_of[b]):
            v = ("virtual", a, b, k)
            layers[k].append(v)
            down[v], up[v] = [], []
            route.append(v)
        route.append(b)
        for u, w in zip(route, route[1:]):
            down[u].append(w)
            up[w].append(u)
        lay.routes[(a, b)] = route

    # crossing reduction: barycentre sweeps down and up, keeping the best ordering seen
    def total(ls):
        return sum(_crossings(ls[i], ls[i + 1], down) for i in range(len(ls) - 1))

    def bary(layer, neigh, ref):
        idx = {n: i for i, n in enumerate(ref)}
        keyed = []
        for i, n in enumerate(layer):
            ps = [idx[p] for p in neigh[n] if p in idx]
            keyed.append((sum(ps) / len(ps) if ps else i, i, order.get(n, len(order)), n))
        return [k[-1] for k in sorted(keyed, key=lambda t: (t[0], t[1], t[2]))]

    best, best_c = [list(ls) for ls in layers], total(layers)
    for _ in range(4):
        for i in range(1, len(layers)):
            layers[i] = bary(layers[i], up, layers[i - 1])
        for i in range(len(layers) - 2, -1, -1):
            layers[i] = bary(layers[i], down, layers[i + 1])
        c = total(layers)
        if c < best_c:
            best, best_c = [list(ls) for ls in layers], c
    layers = best
    lay.layers = layers

    # vertical positions: stack each layer, then pull nodes towards their neighbours (order kept)
    def height(n):
        return lay.size[n][1] if n in lay.size else _DUMMY_H

    def gap(a, b):
        return _NODE_GAP if isinstance(a, str) or isinstance(b, str) else _LANE_GAP

    ys: Dict[Any, float] = {}
    for ls in layers:
        y = 0.0
        for i, n in enumerate(ls):
            if i:
                y += (height(ls[i - 1]) + height(n)) / 2 + gap(ls[i - 1], n)
            ys[n] = y
        for n in ls:
            ys[n] -= y / 2

    def place(ls, neigh_sets):
        if not ls:
            return
        offs, acc = [], 0.0
        for i, n in enumerate(ls):
            if i:
                acc += (height(ls[i - 1]) + height(n)) / 2 + gap(ls[i - 1], n)
            offs.append(acc)
        want = []
        for n in ls:
            nb = [ys[m] for neigh in neigh_sets for m in neigh[n]]
            want.append(sum(nb) / len(nb) if nb else ys[n])
        fit = _isotonic([w - o for w, o in zip(want, offs)])
        for n, f, o in zip(ls, fit, offs):
            ys[n] = f + o

    for _ in range(6):
        for ls in layers[1:]:
            place(ls, (up,))
        for ls in reversed(layers[:-1]):
            place(ls, (down,))
    for ls in layers:
        place(ls, (up, down))

    xstep = _BOX_W + _LAYER_GAP
    for i, ls in enumerate(layers):
        for n in ls:
            lay.pos[n] = (i * xstep, -ys[n])  # first in order at the top
    return lay


def layout(card: Card) -> Dict[str, Tuple[float, float]]:
    """Box centres of :func:`render`'s drawing, in inches: variable name → ``(x, y)``.

    ``x`` is ``layer × step`` where the layer is the variable's topological
    generation (roots in layer 0), so every edge goes left to right
    (``x[parent] < x[child]``); ``y`` grows upwards.

    Raises:
        CardError: the card's graph has a cycle.
    """
    lay = _compute_layout(card)
    return {n: p for n, p in lay.pos.items() if isinstance(n, str)}


# ---------------------------------------------------------------------------
# render
# ---------------------------------------------------------------------------


def _edge_path(points: List[Tuple[float, float]]):
    """A smooth path through ``points`` (horizontal tangent at each point: S-curves left to right)."""
    from matplotlib.path import Path as MPath

    verts = [points[0]]
    codes = [MPath.MOVETO]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        dx = (x1 - x0) * 0.5
        verts += [(x0 + dx, y0), (x1 - dx, y1), (x1, y1)]
        codes += [MPath.CURVE4] * 3
    return MPath(verts, codes)


def _ports(n: Any, others: List[Tuple[float, Tuple[str, str]]], lay: _Layout) -> Dict[Tuple[str, str], float]:
    """Spread the edges leaving/entering one side of box ``n`` over ≤ 80 % of its height, ordered by the far end."""
    h = lay.size[n][1]
    cy = lay.pos[n][1]
    if len(others) <= 1:
        return {e: cy for _, e in others}
    span = min(0.8 * h, _PORT_STEP * (len(others) - 1))
    ordered = sorted(others, key=lambda t: -t[0])  # highest far end first → top port
    return {e: cy + span / 2 - span * i / (len(ordered) - 1) for i, (_, e) in enumerate(ordered)}


def render(card: Card, out_dir: Union[str, Path], formats: Iterable[str] = ("png", "svg")) -> List[Path]:
    """Draw the card's DAG and write ``<out_dir>/<card id>.<format>`` for each format.

    The graph is laid out left to right by topological generation (see
    :func:`layout`); nodes are rounded boxes labelled with the variable name
    (underscores as spaces, wrapped at :data:`LABEL_WIDTH` characters),
    coloured by role (:data:`ROLE_COLOURS`: root, mechanism, formula,
    measurement), intervenable variables outlined in red and tagged "do";
    arrows join box sides; long edges curve through the layers they cross.
    The figure is sized from the number of layers and the tallest layer.
    PNGs are written at 200 dpi (less only for graphs too large for that);
    SVGs keep text as ``<text>`` (``svg.fonttype: none``), each box in a
    group with id ``node-<name>`` (its label in ``label-<name>``) and each
    edge in ``edge-<from>--<to>``.

    Args:
        card: a loaded card.
        out_dir: output folder, created when missing.
        formats: any of ``png``, ``svg``, ``pdf`` (default png and svg).

    Returns:
        the written paths, in ``formats`` order.

    Raises:
        RuntimeError: matplotlib is not installed.
        ValueError: an unknown format, or no format.
        CardError: the card's graph has a cycle.
    """
    fmts: List[str] = []
    for f in formats:
        f = str(f).strip().lower().lstrip(".")
        if f not in FORMATS:
            raise ValueError(f"unknown format {f!r} for arena card render; use {', '.join(FORMATS)}")
        if f not in fmts:
            fmts.append(f)
    if not fmts:
        raise ValueError("no output format given")
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
    except ImportError:
        raise RuntimeError("arena card render needs matplotlib: pip install 'arena-cards[render]'") from None

    lay = _compute_layout(card)
    parents = card.parents()
    by_name = {v.get("name"): v for v in card.variables}
    nodes = [n for n in lay.pos if isinstance(n, str)]
    roles = {n: role_of(card, by_name.get(n, {}), parents.get(n, [])) for n in nodes}

    # extents → figure size (inches; the axes map 1 data unit to 1 inch)
    xs_lo = [lay.pos[n][0] - lay.size[n][0] / 2 for n in nodes] or [0.0]
    xs_hi = [lay.pos[n][0] + lay.size[n][0] / 2 for n in nodes] or [1.0]
    ys_lo = [lay.pos[n][1] - (lay.size[n][1] if n in lay.size else _DUMMY_H) / 2 for n in lay.pos] or [0.0]
    ys_hi = [lay.pos[n][1] + (lay.size[n][1] if n in lay.size else _DUMMY_H) / 2 for n in lay.pos] or [1.0]
    content_w = max(xs_hi) - min(xs_lo)
    content_h = max(ys_hi) - min(ys_lo)
    fig_w = max(content_w + 2 * _MARGIN, 7.0)

    title = (f"{_clean(card.data.get('title', card.id))} — {_clean(card.family)}/"
             f"{_clean(card.data.get('domain', '?'))}, {len(nodes)} variables, {len(lay.routes)} edges")
    title_lines = textwrap.wrap(title, width=max(40, int(fig_w * 72 / (11 * 0.55))))
    title_h = 0.25 + 0.22 * len(title_lines)
    used_roles = set(roles.values())
    has_do = any(by_name.get(n, {}).get("intervenable") for n in nodes)
    labels = [ROLE_LABELS[r] for r in ROLE_COLOURS if r in used_roles] + ([DO_LABEL] if has_do else []) + [EDGE_LABEL]
    one_row = sum(0.75 + 0.065 * len(t) for t in labels)  # inches at 8.5 pt
    legend_cols = len(labels) if one_row <= fig_w - 0.5 else math.ceil(len(labels) / 2)
    legend_h = 0.55 if legend_cols == len(labels) else 0.8
    fig_h = content_h + 2 * _MARGIN + title_h + legend_h

    fig = Figure(figsize=(fig_w, fig_h))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, legend_h / fig_h, 1, (fig_h - title_h - legend_h) / fig_h))
    ax.set_axis_off()
    cx = (max(xs_hi) + min(xs_lo)) / 2
    cy = (max(ys_hi) + min(ys_lo)) / 2
    ax_h = fig_h - title_h - legend_h
    ax.set_xlim(cx - fig_w / 2, cx + fig_w / 2)
    ax.set_ylim(cy - ax_h / 2, cy + ax_h / 2)
    fig.text(0.5, 1 - 0.15 / fig_h, "\n".join(title_lines), ha="center", va="top", fontsize=11,
             fontweight="bold", parse_math=False)

    # ports: where each edge leaves its source (right side) and enters its target (left side)
    out_side: Dict[Any, List[Tuple[float, Tuple[str, str]]]] = {}
    in_side: Dict[Any, List[Tuple[float, Tuple[str, str]]]] = {}
    for e, route in lay.routes.items():
        out_side.setdefault(route[0], []).append((lay.pos[route[1]][1], e))
        in_side.setdefault(route[-1], []).append((lay.pos[route[-2]][1], e))
    out_y: Dict[Tuple[str, str], float] = {}
    in_y: Dict[Tuple[str, str], float] = {}
    for n, lst in out_side.items():
        out_y.update(_ports(n, lst, lay))
    for n, lst in in_side.items():
        in_y.update(_ports(n, lst, lay))

    for (a, b), route in lay.routes.items():
        pts = [(lay.pos[a][0] + lay.size[a][0] / 2, out_y[(a, b)])]
        for v in route[1:-1]:  # straight across a layer's column of boxes, curved only between columns
            vx, vy = lay.pos[v]
            pts += [(vx - _BOX_W / 2, vy), (vx + _BOX_W / 2, vy)]
        pts.append((lay.pos[b][0] - lay.size[b][0] / 2, in_y[(a, b)]))
        arrow = FancyArrowPatch(path=_edge_path(pts), arrowstyle="-|>", mutation_scale=11, linewidth=1.0,
                                color="#5a5a5a", shrinkA=0, shrinkB=0, zorder=1, alpha=0.85)
        arrow.set_gid(f"edge-{a}--{b}")
        ax.add_patch(arrow)

    for n in nodes:
        x, y = lay.pos[n]
        w, h = lay.size[n]
        fill, border = ROLE_COLOURS.get(roles[n], ("#eeeeee", "#666666"))
        do = bool(by_name.get(n, {}).get("intervenable"))
        box = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.09",
                             facecolor=fill, edgecolor=DO_COLOUR if do else border,
                             linewidth=2.6 if do else 1.1, zorder=3)
        box.set_gid(f"node-{n}")
        ax.add_patch(box)
        label = ax.text(x, y, node_label(n), ha="center", va="center", fontsize=_FONT, zorder=4,
                        parse_math=False, linespacing=1.15, color="#1a1a1a")
        label.set_gid(f"label-{n}")
        if do:
            ax.text(x - w / 2 + 0.02, y + h / 2 - 0.01, "do", ha="left", va="center", fontsize=6.5,
                    fontweight="bold", color="white", zorder=5, parse_math=False,
                    bbox=dict(boxstyle="round,pad=0.18,rounding_size=0.2", facecolor=DO_COLOUR,
                              edgecolor="none"))

    handles = [Patch(facecolor=ROLE_COLOURS[r][0], edgecolor=ROLE_COLOURS[r][1], label=ROLE_LABELS[r])
               for r in ROLE_COLOURS if r in used_roles]
    if has_do:
        handles.append(Patch(facecolor="white", edgecolor=DO_COLOUR, linewidth=2.6, label=DO_LABEL))
    handles.append(Line2D([], [], color="#5a5a5a", marker=">", markersize=5, label=EDGE_LABEL))
    fig.legend(handles=handles, loc="lower center", ncol=legend_cols, frameon=False, fontsize=8.5,
               bbox_to_anchor=(0.5, 0.08 / fig_h), handlelength=1.8, columnspacing=1.6)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    dpi = 200.0
    if max(fig_w, fig_h) * dpi > _MAX_PIXELS:
        dpi = math.floor(_MAX_PIXELS / max(fig_w, fig_h))
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", card.id).lstrip(".") or "card"  # the schema allows slugs only
    written: List[Path] = []
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "causalarena", "pdf.fonttype": 42}):
        for f in fmts:
            path = out / f"{stem}.{f}"
            meta: Optional[Dict[str, Any]] = {"Date": None} if f in ("svg", "pdf") else None
            fig.savefig(path, format=f, dpi=dpi, metadata=meta, facecolor="white")
            written.append(path)
    return written
