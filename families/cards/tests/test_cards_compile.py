"""Scenario cards: translation to SCMSpec, known answers of the typed operations, gates, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena_cards import compile_card, load_card, validate_card
from arena_cards.compile import column_order
from arena_cards.model import CardError, parse_text
from causalarena.cli import main
from causalarena.protocol import sample_cell

EXAMPLE = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")


def small_card(variables: str, edges: str, family: str = "semantic", domain: str = "education",
               extra: str = "") -> str:
    return f"""format: causalarena.card/1
id: tiny-card
title: Tiny
domain: {domain}
family: {family}
version: 1.0.0
summary: A tiny card for tests.
variables:
{variables}
edges:
{edges}
{extra}"""


ROOT_A = """  - name: a
    meaning: input a
    unit: "1"
    range: [-10, 10]
    type: continuous
    observation: log
    intervenable: true
    intervention: {meaning: set a, range: [-1, 1]}
    root_distribution: {kind: uniform, low: -2, high: 2}
"""


def _card(tmp_path, text, name="tiny-card.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_example_compiles_to_the_expected_spec():
    spec = compile_card(load_card(EXAMPLE))
    assert spec.id == "semantic/example-clinic-reminders"
    authored = ["booked_appointments", "reminder_sent", "mean_travel_km", "no_shows", "patients_seen",
                "backlog_days", "satisfaction_band"]
    # the columns are the card's variables in the order drawn from its id, not the YAML's
    assert sorted(spec.names) == sorted(authored) and spec.names == column_order(spec.metadata["card_id"], authored)
    assert spec.names != authored
    assert list(spec.intervention_targets) == ["reminder_sent"]
    nodes = {n.name: n for n in spec.nodes}
    assert nodes["booked_appointments"].role == "root" and nodes["booked_appointments"].tags["role"] == "root"
    assert nodes["reminder_sent"].tags["intervention_values"] == [0.0, 1.0]
    assert nodes["no_shows"].noise.params["family"] == "poisson"
    assert nodes["patients_seen"].noise.params == {"family": "normal", "scale": 1.5, "resolution": 1.0,
                                                   "clip": [0, None]}
    assert nodes["satisfaction_band"].noise.params["cut"] == [-0.2, 0.9]
    # no_shows is an expression with a Poisson draw: tagged as the count process it is
    assert spec.metadata["mechanism_types"] == "ordinal,poisson,saturation,stock_flow"
    assert nodes["no_shows"].tags["mechanism"] == "poisson"
    a = spec.adjacency()
    assert a.sum() == 8 and a[spec.names.index("no_shows"), spec.names.index("patients_seen")] == 1
    # the spec is explicit data: a JSON round trip gives the same spec
    from causalarena.scm import SCMSpec

    assert SCMSpec.from_json(spec.to_json()).to_json() == spec.to_json()


def test_example_samples_obey_its_mechanisms():
    spec = compile_card(load_card(EXAMPLE))
    cell = sample_cell(spec, "semantic", "obs", 0)
    x = {n: cell.x[:, i] for i, n in enumerate(spec.names)}
    # stock_flow: booked − 1·no_shows over one period, plus N(0, 1.5²) unrecorded flows, rounded, floored at 0
    diff = x["patients_seen"] - (x["booked_appointments"] - x["no_shows"])
    assert np.all(diff == np.round(diff)) and x["patients_seen"].min() >= 0
    assert abs(diff.std() - 1.5) < 0.15 and abs(diff.mean()) < 0.15
    assert set(np.unique(x["reminder_sent"])) == {0.0, 1.0}
    assert set(np.unique(x["satisfaction_band"])) <= {0.0, 1.0, 2.0}
    assert np.all(x["no_shows"] == np.round(x["no_shows"])) and x["no_shows"].min() >= 0
    # reminders lower no-shows: the Poisson rate has −0.9 on the logit
    rate_on = x["no_shows"][x["reminder_sent"] == 1].mean() / x["booked_appointments"][x["reminder_sent"] == 1].mean()
    rate_off = x["no_shows"][x["reminder_sent"] == 0].mean() / x["booked_appointments"][x["reminder_sent"] == 0].mean()
    assert rate_on < rate_off
    # same seed, byte-identical table
    assert sample_cell(spec, "semantic", "obs", 0).x.tobytes() == cell.x.tobytes()


def test_declared_intervention_values_are_used():
    spec = compile_card(load_card(EXAMPLE))
    cell = sample_cell(spec, "semantic", "obs_int", 0)
    j = spec.names.index("reminder_sent")
    rows = cell.intervention_mask[:, j]
    assert rows.sum() == 200  # the only target
    assert set(np.unique(cell.x[rows, j])) == {0.0, 1.0}
    # the same under the App. A.2 fixed_setpoint protocol (arena-family-synthetic):
    # tests/test_cards_arena.py::test_declared_intervention_values_under_fixed_setpoint


def test_declared_intervention_range_is_used(tmp_path):
    var_b = """  - name: b
    meaning: output b
    unit: "1"
    range: [-100, 100]
    type: continuous
    observation: log
    intervenable: false
    mechanism: {type: linear, intercept: 1, coefficients: {a: 2}}
"""
    card = load_card(_card(tmp_path, small_card(ROOT_A + var_b, "  - {from: a, to: b, reason: a drives b}")))
    spec = compile_card(card)
    cell = sample_cell(spec, "semantic", "obs_int", 0)
    rows = cell.intervention_mask[:, 0]
    assert rows.sum() == 200 and cell.x[rows, 0].min() >= -1 and cell.x[rows, 0].max() <= 1
    np.testing.assert_allclose(cell.x[:, 1], 1 + 2 * cell.x[:, 0])  # descendants recomputed, noiseless


@pytest.mark.parametrize("mech, noise, check", [
    ("{type: threshold, intercept: 0, coefficients: {a: 1}, cutoff: 0.5, below: 0, above: 1}", None,
     lambda a, b: np.array_equal(b, (a > 0.5).astype(float))),
    ("{type: ordinal, intercept: 0, coefficients: {a: 1}, cutpoints: [-1, 1]}", None,
     lambda a, b: np.array_equal(b, np.searchsorted([-1, 1], a, side="right").astype(float))),
    ("{type: saturation, intercept: 0, coefficients: {a: 1}, vmax: 10, half_saturation: 1}", None,
     lambda a, b: np.allclose(b, 10 * np.maximum(a, 0) / (1 + np.maximum(a, 0)))),
    ("{type: logistic, intercept: 0, coefficients: {a: 2}, scale: 5}", None,
     lambda a, b: np.allclose(b, 5 / (1 + np.exp(-2 * a)))),
    ("{type: expression, expression: 'where(a > 0, a ** 2, -a) + k', constants: {k: 3}}", None,
     lambda a, b: np.allclose(b, np.where(a > 0, a ** 2, -a) + 3)),
    ("{type: linear, intercept: 0, coefficients: {a: 1}}", "{kind: normal, scale: 1.0}",
     lambda a, b: abs(np.std(b - a) - 1.0) < 0.1 and abs(np.mean(b - a)) < 0.1),
])
def test_typed_operations_known_answers(tmp_path, mech, noise, check):
    vtype = "ordinal" if "ordinal" in mech else ("binary" if "threshold" in mech else "continuous")
    levels = "    levels: [lo, mid, hi]\n" if vtype == "ordinal" else ""
    rng = "[0, 2]" if vtype == "ordinal" else ("[0, 1]" if vtype == "binary" else "[-100, 100]")
    var_b = f"""  - name: b
    meaning: output b
    unit: "1"
    range: {rng}
    type: {vtype}
{levels}    observation: log
    intervenable: false
    mechanism: {mech}
""" + (f"    noise: {noise}\n" if noise else "")
    card = load_card(_card(tmp_path, small_card(ROOT_A + var_b, "  - {from: a, to: b, reason: a drives b}")))
    spec = compile_card(card)
    x = sample_cell(spec, "semantic", "obs", 0).x
    assert check(x[:, 0], x[:, 1])


def test_errors_name_field_and_line(tmp_path):
    text = EXAMPLE.read_text().replace("outflows: {no_shows: 1.0}", "outflows: {no_showz: 1.0}")
    p = _card(tmp_path, text, "example-clinic-reminders.yaml")
    rep = validate_card(p)
    hidden, unused = rep.errors  # the misspelt name is a hidden parent, the real parent goes unused
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "no_showz" in t)
    assert hidden.line == line and hidden.field == "variables[4].mechanism.outflows.no_showz" and hidden.gate == "mechanism"
    assert "no_showz" in hidden.message and "hidden parent" in hidden.message
    assert "['no_shows']" in unused.message and "unused parent" in unused.message
    assert str(p) in str(hidden) and f":{line}:" in str(hidden)


def test_schema_errors_are_listed_with_lines(tmp_path):
    text = EXAMPLE.read_text().replace("    meaning: Days until", "    meanings: Days until")
    rep = validate_card(_card(tmp_path, text, "example-clinic-reminders.yaml"))
    assert not rep.ok
    msgs = " | ".join(f"{i.field}@{i.line}: {i.message}" for i in rep.errors)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "meanings:" in t)
    assert any(i.line is not None and abs(i.line - line) <= 1 and i.gate == "schema" for i in rep.errors), msgs
    assert "meanings" in msgs


def test_parse_rejects_duplicate_keys_and_aliases():
    with pytest.raises(CardError, match="duplicate key 'id'"):
        parse_text("id: a\nid: b\n")
    with pytest.raises(CardError, match="anchors and aliases"):
        parse_text("a: &x [1, 2]\nb: *x\n")


def test_cli_validate_exit_codes_and_json(tmp_path, capsys):
    assert main(["validate", str(EXAMPLE)]) == 0
    assert main(["validate", "--strict", str(EXAMPLE)]) == 1  # pool rules become errors
    bad = _card(tmp_path, EXAMPLE.read_text().replace("range: [0.5, 100]", "range: [100, 0.5]"),
                "example-clinic-reminders.yaml")
    capsys.readouterr()
    assert main(["validate", "--json", str(bad)]) == 1
    (row,) = json.loads(capsys.readouterr().out)
    assert row["ok"] is False and any("min < max" in i["message"] for i in row["issues"])
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2


def test_fast_schema_path_gives_the_full_schemas_verdict(tmp_path):
    """The split validators (one branch per switch) agree with card.schema.json on good and broken cards."""
    from arena_cards.model import _validator, schema_issues

    good = parse_text(EXAMPLE.read_text())
    broken = [
        EXAMPLE.read_text().replace("kind: lognormal, median: 8, sigma: 0.5", "kind: lognormal, median: 8"),
        EXAMPLE.read_text().replace("type: saturation", "type: saturate"),
        EXAMPLE.read_text().replace("cutpoints: [-0.2, 0.9]", "cutpoints: [-0.2, 0.9]\n      cutoff: 3"),
        EXAMPLE.read_text().replace("noise: {kind: normal, scale: 1.0}", "noise: {kind: normal, sd: 1.0}"),
    ]
    assert not schema_issues(good) and not list(_validator().iter_errors(good.data))
    for text in broken:
        card = parse_text(text)
        assert schema_issues(card) and list(_validator().iter_errors(card.data))


def test_poisson_inverse_cdf_equals_scipy():
    from scipy import stats

    from arena_cards.components import poisson_ppf

    rng = np.random.default_rng(3)
    u = np.clip(rng.random(20000), 1e-15, 1 - 1e-15)
    rate = np.concatenate([rng.uniform(0, 3, 5000), rng.uniform(0, 60, 5000), rng.uniform(0, 4000, 5000),
                           np.zeros(5000)])
    np.testing.assert_array_equal(poisson_ppf(u, rate), stats.poisson.ppf(u, rate))


def test_yaml12_exponent_floats_are_numbers():
    data = parse_text("a: 3.73e6\nb: 1e-3\nc: '3e5'\nd: 2.5E+3\ne: x1e5\n").data
    assert data == {"a": 3.73e6, "b": 1e-3, "c": "3e5", "d": 2500.0, "e": "x1e5"}


@pytest.mark.parametrize("old, new, message", [
    ("      periods: 1\n", "      periods: 0\n", "periods must be > 0"),
    ("levels: [low, medium, high]", "levels: [low, low, high]", "levels must be distinct"),
])
def test_small_static_gates(tmp_path, old, new, message):
    text = EXAMPLE.read_text()
    assert old in text
    rep = validate_card(_card(tmp_path, text.replace(old, new), "example-clinic-reminders.yaml"))
    assert any(message in i.message for i in rep.errors), rep.issues


FORMULA_DEGC = """format: causalarena.card/1
id: degc-card
title: Offset units
domain: thermodynamics
family: formula
version: 1.0.0
summary: Temperatures in degrees Celsius enter formulas as absolute temperatures.
variables:
  - name: t_c
    meaning: air temperature
    unit: degC
    range: [-40, 60]
    type: continuous
    observation: thermometer
    intervenable: true
    intervention: {meaning: climate chamber setpoint, range: [0, 30]}
    root_distribution: {kind: uniform, low: -10, high: 40}
  - name: rt
    meaning: specific gas constant times absolute temperature
    unit: J / kg
    range: [60000, 100000]
    type: continuous
    observation: computed
    intervenable: false
    mechanism: {type: equation, equation: rt_product}
  - name: t_back
    meaning: the absolute temperature recovered, reported in degC
    unit: degC
    range: [-40, 60]
    type: continuous
    observation: computed
    intervenable: false
    mechanism: {type: equation, equation: back}
edges:
  - {from: t_c, to: rt, reason: RT grows with absolute temperature}
  - {from: rt, to: t_back, reason: dividing by R gives the temperature back}
equations:
  - id: rt_product
    name: R times T
    output: rt
    inputs: [t_c]
    expression: "r_dry * t_c"
    constants: {r_dry: {value: 287.05, unit: J / (kg * K)}}
    reverse_orientation: none
    source: ideal gas law
  - id: back
    name: T from RT
    output: t_back
    inputs: [rt]
    expression: "rt / r_dry"
    constants: {r_dry: {value: 287.05, unit: J / (kg * K)}}
    reverse_orientation: none
    source: ideal gas law
justifications:
  near_copies:
    - {variables: [t_c, rt], reason: a test of unit handling}
    - {variables: [rt, t_back], reason: a test of unit handling}
    - {variables: [t_c, t_back], reason: a test of unit handling}
"""


def test_offset_units_are_absolute_temperatures_in_formulas(tmp_path):
    """°C enters a product as kelvin (20 °C → 293.15 K); sampler and residual check agree."""
    rep = validate_card(_card(tmp_path, FORMULA_DEGC, "degc-card.yaml"))
    assert rep.errors == [], rep.errors
    assert rep.stats["residuals"]["rt_product"]["max_rel"] < 1e-12
    x = sample_cell(rep.spec, "formula", "obs", 0).x
    np.testing.assert_allclose(x[:, 1], 287.05 * (x[:, 0] + 273.15), rtol=1e-12)
    np.testing.assert_allclose(x[:, 2], x[:, 0], rtol=1e-9, atol=1e-9)


def test_discrete_interventions_need_values_or_an_integer_range(tmp_path):
    text = EXAMPLE.read_text()
    no_values = text.replace("""      meaning: Switch the reminder campaign on or off for the day.
      values: [0, 1]""", """      meaning: Switch the reminder campaign on or off for the day.""")
    rep = validate_card(_card(tmp_path, no_values, "example-clinic-reminders.yaml"))
    assert any("needs intervention 'values'" in i.message and i.field == "variables[1].intervention"
               for i in rep.errors), rep.errors
    half = text.replace("values: [0, 1]", "values: [0, 0.5]")
    rep = validate_card(_card(tmp_path, half, "example-clinic-reminders.yaml"))
    assert any("0.5 is not a valid value of a binary variable" in i.message for i in rep.errors)
    # a count root with an integer range: do() draws whole numbers of bookings
    counted = text.replace("""    intervenable: false
    root_distribution: {kind: discrete_uniform, low: 40, high: 90}""", """    intervenable: true
    intervention: {meaning: cap the day's bookings, range: [45, 60]}
    root_distribution: {kind: discrete_uniform, low: 40, high: 90}""")
    spec = compile_card(load_card(_card(tmp_path, counted, "example-clinic-reminders.yaml")))
    j = spec.names.index("booked_appointments")
    assert spec.nodes[j].tags["intervention_values"] == [float(k) for k in range(45, 61)]
    cell = sample_cell(spec, "semantic", "obs_int", 0)
    rows = cell.intervention_mask[:, j]
    assert rows.any() and set(np.unique(cell.x[rows, j])) <= set(range(45, 61))
