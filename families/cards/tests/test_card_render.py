"""``arena card show`` / ``arena card render`` (arena_cards.render)."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from arena_cards import load_card, render
from arena_cards.model import Card, CardError
from causalarena.cli import main

EXAMPLE = Path(render.__file__).with_name("example-clinic-reminders.yaml")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def card() -> Card:
    return load_card(EXAMPLE)


def _shown(card: Card) -> str:
    console = Console(record=True, width=200)
    render.show(card, console)
    return console.export_text()


def _row(text: str, name: str) -> str:
    """The first output line of the variables table that starts with ``name``."""
    return next(line for line in text.splitlines() if line.strip().startswith(name + " "))


def _formula_card() -> Card:
    """A tiny formula card (data only; show and render need no compilation)."""
    return Card(data={
        "format": "causalarena.card/1", "id": "mini-ohm", "title": "Ohm's law", "domain": "electromagnetism",
        "family": "formula", "version": "0.1.0", "summary": "One row is one resistor.",
        "variables": [
            {"name": "voltage", "meaning": "Applied voltage.", "unit": "volt", "range": [1, 10], "type": "continuous",
             "observation": "Supply setting.", "intervenable": True,
             "intervention": {"meaning": "Set the supply.", "range": [2, 8]},
             "root_distribution": {"kind": "uniform", "low": 1, "high": 10}},
            {"name": "resistance", "meaning": "Resistance.", "unit": "ohm", "range": [10, 100],
             "type": "continuous", "observation": "Label.", "intervenable": False,
             "root_distribution": {"kind": "uniform", "low": 10, "high": 100}},
            {"name": "current", "meaning": "Current.", "unit": "ampere", "range": [0.01, 1], "type": "continuous",
             "observation": "Not logged.", "intervenable": False,
             "mechanism": {"type": "equation", "equation": "ohm"}},
            {"name": "ammeter_reading", "meaning": "Ammeter display.", "unit": "ampere", "range": [0, 1.2],
             "type": "continuous", "observation": "Ammeter.", "intervenable": False, "measurement": True,
             "mechanism": {"type": "expression", "expression": "current"}, "noise": {"kind": "normal", "scale": 0.01}},
        ],
        "edges": [
            {"from": "voltage", "to": "current", "reason": "Voltage drives the current."},
            {"from": "resistance", "to": "current", "reason": "Resistance limits the current."},
            {"from": "current", "to": "ammeter_reading", "reason": "The ammeter reads the current."},
        ],
        "equations": [
            {"id": "ohm", "name": "Ohm's law", "output": "current", "inputs": ["voltage", "resistance"],
             "expression": "k * voltage / resistance",
             "constants": {"k": {"value": 1.0, "unit": "1", "meaning": "unit factor"}},
             "validity": ["resistance > 0"], "source": "Ohm (1827)"},
        ],
    })


# ---------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------


def test_show_prints_header_variables_roles_and_edges(card):
    text = _shown(card)
    assert "example-clinic-reminders" in text
    assert "Appointment reminders and clinic no-shows" in text
    assert "semantic / healthcare_delivery" in text
    assert "7 variables, 8 edges, 1 intervenable" in text
    for name in card.names:
        assert name in text
    assert "booked_appointments → no_shows" in text
    assert "A reminder the evening before lowers each patient's chance of forgetting." in text
    assert " root " in _row(text, "booked_appointments")
    assert " mechanism " in _row(text, "no_shows")
    assert " root " in _row(text, "reminder_sent")
    # intervention meaning and values, a root distribution, a typed mechanism, noise and a boundary
    assert "yes: Switch the" in _row(text, "reminder_sent") and "values [0, 1]" in text
    assert "discrete_uniform(low=40," in _row(text, "booked_appointments") and "high=90)" in text
    assert "saturation" in _row(text, "backlog_days")
    assert "normal(scale=1)" in _row(text, "backlog_days")
    assert "low < medium < high" in text
    assert "Equations" not in text  # semantic card


def test_show_prints_card_text_literally(card):
    data = copy.deepcopy(card.data)
    data["variables"][0]["meaning"] = "[red]x[/red] [bold]y"
    data["variables"][1]["meaning"] = ":smile: [/]"
    data["title"] = "[blink]T[/blink]"
    data["edges"][0]["reason"] = "a [link=http://e.invalid]z[/link] \x1b[31mESC"
    text = _shown(Card(data=data, source="<test>"))
    assert "[red]x[/red] [bold]y" in _row(text, "booked_appointments")
    assert ":smile: [/]" in _row(text, "reminder_sent")
    assert "[blink]T[/blink]" in text
    assert "a [link=http://e.invalid]z[/link]" in text
    assert "\x1b" not in text and "\\u001b[31mESC" in text


def test_show_formula_card_has_equations_table():
    text = _shown(_formula_card())
    assert "Equations" in text
    assert "current ← voltage, resistance" in text
    assert "k * voltage / resistance" in text
    assert "k = 1 1 (unit factor)" in text
    assert "resistance > 0" in text and "Ohm (1827)" in text
    assert " formula " in _row(text, "current")
    assert " measurement " in _row(text, "ammeter_reading")
    assert "equation ohm" in _row(text, "current")


# ---------------------------------------------------------------------------
# layout
# ---------------------------------------------------------------------------


def test_layout_goes_left_to_right_by_generation(card):
    pos = render.layout(card)
    assert set(pos) == set(card.names)
    for e in card.edges:
        assert pos[e["from"]][0] < pos[e["to"]][0], e
    xs = {n: x for n, (x, _) in pos.items()}
    # the three roots share the first column; the chain to satisfaction_band takes four more
    assert xs["booked_appointments"] == xs["reminder_sent"] == xs["mean_travel_km"] == min(xs.values())
    assert len(set(xs.values())) == 5
    assert xs["satisfaction_band"] == max(xs.values())


def test_layout_boxes_in_a_column_do_not_overlap(card):
    pos = render.layout(card)
    columns = {}
    for x, y in pos.values():
        columns.setdefault(x, []).append(y)
    for ys in columns.values():
        ys.sort()
        assert all(b - a > 0.4 for a, b in zip(ys, ys[1:]))


def test_layout_rejects_a_cycle(card):
    data = copy.deepcopy(card.data)
    data["edges"].append({"from": "satisfaction_band", "to": "booked_appointments", "reason": "loop"})
    with pytest.raises(CardError, match="cycle"):
        render.layout(Card(data=data))


def test_node_label_keeps_the_identifier_and_wraps_after_underscores():
    assert render.node_label("no_shows") == "no_shows"
    name = "illumination_wavelength_of_the_ring_light"
    lines = render.node_label(name).split("\n")
    assert len(lines) > 1 and all(len(line) <= render.LABEL_WIDTH + 1 for line in lines)
    assert "".join(lines) == name  # the exact variable name, readable for an audit


# ---------------------------------------------------------------------------
# render
# ---------------------------------------------------------------------------


def _svg(path: Path):
    root = ET.parse(path).getroot()
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    return root, groups


def test_render_writes_png_and_svg(card, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "new" / "dir"
    paths = render.render(card, out)
    assert paths == [out / "example-clinic-reminders.png", out / "example-clinic-reminders.svg"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root, groups = _svg(paths[1])
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    for name in card.names:
        for line in render.node_label(name).split("\n"):
            assert line in texts, (name, line)
        label = groups[f"label-{name}"]
        assert "\n".join("".join(t.itertext()) for t in label.iter(f"{SVG}text")) == render.node_label(name)
    nodes = [g for g in groups if g.startswith("node-")]
    assert sorted(nodes) == sorted(f"node-{n}" for n in card.names)
    edges = [g for g in groups if g.startswith("edge-")]
    assert sorted(edges) == sorted(f"edge-{e['from']}--{e['to']}" for e in card.edges)
    title = next(t for t in texts if t.startswith("Appointment reminders"))
    assert "semantic/healthcare_delivery, 7 variables, 8 edges" in title
    assert "root (exogenous)" in texts and "mechanism" in texts and 'intervenable ("do" handle)' in texts
    assert "do" in texts  # the marker on reminder_sent


def test_render_png_size_and_formats(card, tmp_path):
    pytest.importorskip("matplotlib")
    import struct

    (png,) = render.render(card, tmp_path, formats=["PNG"])
    width, height = struct.unpack(">II", png.read_bytes()[16:24])
    assert width >= 7 * 150 and height >= 3 * 150  # ≥ 7 × 3 inches at ≥ 150 dpi
    with pytest.raises(ValueError, match="unknown format"):
        render.render(card, tmp_path, formats=["jpg"])


def test_render_formula_roles_and_untrusted_title(tmp_path):
    pytest.importorskip("matplotlib")
    fc = _formula_card()
    fc.data["title"] = "Cost in $ and $x^2$ <b>&"
    (svg,) = render.render(fc, tmp_path, formats=["svg"])
    root, groups = _svg(svg)  # parses: markup in the title is escaped
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert any(t.startswith("Cost in $ and $x^2$ <b>&") for t in texts)  # no mathtext
    assert "formula (named equation)" in texts and "measurement (reading of a variable)" in texts
    assert len([g for g in groups if g.startswith("node-")]) == 4


def test_render_keeps_25_nodes_readable(tmp_path):
    pytest.importorskip("matplotlib")
    # 5 roots feeding a 4-layer lattice: 25 nodes, layers of width 5
    names = [f"stage_{i}_unit_{j}" for i in range(5) for j in range(5)]
    variables = [{"name": n, "meaning": "m", "unit": "1", "range": [0, 1], "type": "continuous",
                  "observation": "o", "intervenable": n.endswith("_0")} for n in names]
    edges = [{"from": f"stage_{i}_unit_{j}", "to": f"stage_{i + 1}_unit_{k}", "reason": "r"}
             for i in range(4) for j in range(5) for k in (j, (j + 2) % 5)]
    big = Card(data={"id": "lattice", "title": "Lattice", "family": "semantic", "domain": "education",
                     "variables": variables, "edges": edges})
    pos = render.layout(big)
    assert len({x for x, _ in pos.values()}) == 5
    assert all(pos[e["from"]][0] < pos[e["to"]][0] for e in edges)
    (png,) = render.render(big, tmp_path, formats=["png"])
    import struct

    width, height = struct.unpack(">II", png.read_bytes()[16:24])
    assert width < 30000 and height < 30000
    assert height / 200 >= 5 * 0.5  # five boxes per column fit at full size


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------


def test_cli_card_show(capsys):
    assert main(["card", "show", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "booked_appointments" in out and "Only booked patients can be seen." in out


def test_cli_card_render(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["card", "render", str(EXAMPLE), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    written = [tmp_path / "example-clinic-reminders.png", tmp_path / "example-clinic-reminders.svg"]
    assert printed == [str(p) for p in written]
    assert all(p.is_file() and p.stat().st_size > 0 for p in written)
    assert main(["card", "render", str(EXAMPLE), "--out", str(tmp_path / "svg"), "--format", "svg"]) == 0
    assert [p.name for p in (tmp_path / "svg").iterdir()] == ["example-clinic-reminders.svg"]


def test_cli_unknown_card_is_a_usage_error(capsys):
    assert main(["card", "show", "no-such-card-anywhere"]) == 2
    assert "no card 'no-such-card-anywhere'" in capsys.readouterr().err


def test_render_without_matplotlib_says_how_to_install(card, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(RuntimeError, match=r"pip install 'arena-cards\[render\]'"):
        render.render(card, tmp_path)
    assert not list(tmp_path.iterdir())
