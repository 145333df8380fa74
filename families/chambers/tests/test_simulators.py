"""The package's simulators, run through this family's mechanisms, checked by hand at known inputs.

Formulas: causalchamber.simulators.lt.Deterministic (Gamella, Bing & Runge 2025, appendix C) and
the wind tunnel's models A1, B1, C3 (Gamella et al. 2025, appendix IV.1).
"""

from __future__ import annotations

import ast
import math
from importlib import metadata

import numpy as np
import pytest

from arena_family_chambers.chambers import (
    LT_REFERENCE,
    LT_SIMULATOR,
    WT_PRESSURE_AMBIENT,
    WT_SIMULATOR,
    _simulator_reads,
    chamber_spec,
)
from arena_family_chambers.components import LT_OUTPUTS, Levels, LightSensor, WindTunnel
from causalarena.scm import SpecError


def _wheel_file(relative: str) -> str:
    return str(metadata.distribution("causalchamber").locate_file(relative))


def _light(output: str, **values: float) -> float:
    """The output at one input point: ``values`` for the given inputs, the reference for the rest."""
    parents = sorted(values)
    mech = LightSensor(output=output, parents=parents,
                       reference={k: v for k, v in LT_REFERENCE.items() if k not in values}, simulator=LT_SIMULATOR)
    return float(mech(np.array([[values[p] for p in parents]]))[0])


def _wind(output: str, **values: float) -> float:
    parents = sorted(values)
    model = {"rpm": "A1", "cur": "B1", "pre": "A1C3"}[output[:3]]
    keys = {"A1": ("L_min", "omega_max"), "B1": ("C_min", "C_max", "L_min"),
            "A1C3": ("L_min", "omega_max", "S_max", "Q_max", "r_0", "beta")}[model]
    mech = WindTunnel(output=output, parents=parents, simulator={k: WT_SIMULATOR[k] for k in keys},
                      pressure_ambient=WT_PRESSURE_AMBIENT)
    return float(mech(np.array([[values[p] for p in parents]]))[0])


# --- the parameters are the package's ---------------------------------------------------------------------


def _tutorial_parameters() -> dict:
    tree = ast.parse(open(_wheel_file("causalchamber/simulators/tutorials/test_scripts/tutorial_Deterministic.py"),
                          encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "parameters":
            out = {}
            for key, value in zip(node.value.keys, node.value.values):
                arg = value.args[0] if isinstance(value, ast.Call) else value  # np.array(<literal>)
                out[ast.literal_eval(key)] = ast.literal_eval(arg)
            return out
    raise AssertionError("no 'parameters = {...}' in the wheel's tutorial_Deterministic.py")


def test_light_tunnel_parameters_are_the_ones_of_the_packages_tutorial_script():
    assert _tutorial_parameters() == LT_SIMULATOR


def test_fan_parameters_are_the_ones_of_the_packages_tutorial_script():
    tree = ast.parse(open(_wheel_file("causalchamber/simulators/tutorials/test_scripts/tutorial_ModelsAB.py"),
                          encoding="utf-8").read())
    consts = {node.targets[0].id: ast.literal_eval(node.value) for node in ast.walk(tree)
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id.isupper() and isinstance(node.value, ast.Constant)}
    assert {"L_min": consts["L_MIN"], "omega_max": consts["OMEGA_MAX"], "C_min": consts["C_MIN"],
            "C_max": consts["C_MAX"]} == {k: WT_SIMULATOR[k] for k in ("L_min", "omega_max", "C_min", "C_max")}


# --- light tunnel ------------------------------------------------------------------------------------------


def test_ir_1_is_the_photodiode_response_times_two_to_the_size_plus_exposure():
    # ir_1 = 2^(diode + t) * S[0] . (R, G, B); S[0, 0] = 4.34165202: 2^5 * 4.34165202 * 100
    assert _light("ir_1", red=100, green=0, blue=0, diode_ir_1=2, t_ir_1=3) == pytest.approx(13893.286464, rel=1e-12)
    # each photodiode step or exposure step doubles the reading
    assert _light("ir_1", red=100, green=0, blue=0, diode_ir_1=0, t_ir_1=1) == pytest.approx(13893.286464 / 16)


def test_ir_3_follows_malus_law_between_the_polarizers():
    # I_3 = 2^5 (d1/d3)^2 S[0] . [(Tp - Tc) cos^2(pol_1 - pol_2) + Tc] * RGB, RGB = (50, 50, 50)
    rgb = dict(red=50, green=50, blue=50, diode_ir_3=2, t_ir_3=3)
    s0, tp, tc = np.array(LT_SIMULATOR["S"][0]), np.array(LT_SIMULATOR["Tp"]), np.array(LT_SIMULATOR["Tc"])

    def by_hand(diff):
        return 32 * (0.1 / 0.25) ** 2 * 50 * float(s0 @ ((tp - tc) * math.cos(math.radians(diff)) ** 2 + tc))

    assert _light("ir_3", pol_1=10, pol_2=10, **rgb) == pytest.approx(by_hand(0)) == pytest.approx(689.92109744)
    assert _light("ir_3", pol_1=70, pol_2=10, **rgb) == pytest.approx(by_hand(60)) == pytest.approx(191.52811950)
    assert _light("ir_3", pol_1=90, pol_2=0, **rgb) == pytest.approx(25.39712686)  # crossed: Tc only


def test_current_and_angle_readings_scale_with_the_reference_voltage():
    # current = (Q . RGB + C0) * 5 / v_c
    assert _light("current", red=10, green=20, blue=30, v_c=5) == pytest.approx(65.91419228503894, rel=1e-12)
    assert _light("current", red=10, green=20, blue=30, v_c=2.56) == pytest.approx(65.91419228503894 * 5 / 2.56)
    # angle = min((A pol + a1) * 5 / v, 1023): the 10-bit ADC saturates at v = 1.1
    assert _light("angle_1", pol_1=10, v_angle_1=5) == pytest.approx(521.0310958171294, rel=1e-12)
    assert _light("angle_1", pol_1=10, v_angle_1=2.56) == pytest.approx(1017.6388590178309, rel=1e-12)
    assert _light("angle_1", pol_1=10, v_angle_1=1.1) == 1023.0


@pytest.mark.parametrize("output", LT_OUTPUTS)
def test_each_light_output_depends_on_exactly_its_published_parents(output):
    """Moving a non-parent input leaves the output unchanged; moving a parent changes it."""
    spec = chamber_spec("light-tunnel")
    node = next(n for n in spec.nodes if n.name == output)
    mech = LightSensor(**node.mechanism.params)
    rng = np.random.default_rng(3)
    base = {"red": 40.0, "green": 30.0, "blue": 20.0, "pol_1": 5.0, "pol_2": 12.0, **{
        k: v for k, v in LT_REFERENCE.items() if k not in ("red", "green", "blue", "pol_1", "pol_2")}}
    base["v_angle_1"] = base["v_angle_2"] = 5.0
    full = LightSensor(output=output, parents=sorted(base), reference={}, simulator=LT_SIMULATOR)
    x0 = np.array([[base[k] for k in sorted(base)]])
    y0 = full(x0)[0]
    for j, name in enumerate(sorted(base)):
        x = x0.copy()
        x[0, j] = base[name] + (1.0 if name.startswith(("diode", "t_")) else rng.uniform(3, 7))
        if name.startswith("diode_vis"):
            x[0, j] = 0.0  # vis photodiodes: small (0) or medium (1)
        if name.startswith("v_"):
            x[0, j] = 2.56
        moved = full(x)[0] != y0
        assert moved == (name in node.parents), f"{output} vs {name}"
    assert node.mechanism.params["parents"] == list(node.parents)  # the mechanism reads columns in node order
    assert set(node.parents) == set(_simulator_reads(output)) and mech.n_inputs() == len(node.parents)


# --- wind tunnel -------------------------------------------------------------------------------------------


def test_fan_speed_model_a1_is_load_times_max_speed_above_the_idle_load():
    assert _wind("rpm_in", load_in=0.5) == pytest.approx(1500.0)  # 0.5 * 3000 rpm
    assert _wind("rpm_in", load_in=0.05) == pytest.approx(300.0)  # below L_min = 0.1: idle, 0.1 * 3000
    assert _wind("rpm_in", load_in=0.0) == 0.0  # off


def test_fan_current_model_b1_is_cubic_in_the_load():
    # C = C_min + max(L, L_min)^3 (C_max - C_min) = 0.166 + 0.125 * 0.104
    assert _wind("current_in", load_in=0.5) == pytest.approx(0.179, rel=1e-12)
    assert _wind("current_out", load_out=0.0) == pytest.approx(0.166)


def test_downwind_pressure_c3_by_hand():
    """With airflow ratio r the fan's operating point gives S = S_max (1 - r) (omega / omega_max)^2
    (impedance S = Z Q^2, Z = S_max / Q_max^2 (1 - r) / r^2, meets the PQ line at Q = r Q_max omega / omega_max),
    and r = min(1, r_0 + beta H / 45): r = 0.75 closed, 0.9 at H = 45 deg."""
    s_max = WT_SIMULATOR["S_max"]
    closed = _wind("pressure_downwind", load_in=1.0, load_out=0.5, hatch=0.0)
    opened = _wind("pressure_downwind", load_in=1.0, load_out=0.5, hatch=45.0)
    assert closed == pytest.approx(s_max * 0.25 * (1 - 0.25), rel=1e-12) == pytest.approx(14.02963866, rel=1e-9)
    assert opened == pytest.approx(s_max * 0.10 * (1 - 0.25), rel=1e-12)
    assert _wind("pressure_downwind", load_in=0.7, load_out=0.7, hatch=20.0) == pytest.approx(0.0, abs=1e-12)


def test_a_one_row_table_evaluates_like_the_same_row_in_a_longer_table():
    mech = WindTunnel(output="pressure_downwind", parents=["load_in", "load_out", "hatch"],
                      simulator={k: WT_SIMULATOR[k] for k in ("L_min", "omega_max", "S_max", "Q_max", "r_0", "beta")},
                      pressure_ambient=0.0)
    rows = np.array([[0.9, 0.2, 10.0], [0.3, 0.6, 40.0], [0.0, 1.0, 0.0]])
    many = mech(rows)
    assert [float(mech(rows[[i]])[0]) for i in range(3)] == [float(v) for v in many]


def test_bad_component_parameters_are_named():
    with pytest.raises(ValueError, match="output 'ir_9' is not one of"):
        LightSensor(output="ir_9", parents=["red"], reference={}, simulator=LT_SIMULATOR)
    with pytest.raises(ValueError, match=r"parent\(s\) \['hatch'\] are not inputs"):
        LightSensor(output="ir_1", parents=["hatch"], reference=LT_REFERENCE, simulator=LT_SIMULATOR)
    with pytest.raises(ValueError, match=r"the simulator reads \['load_in'\], which are not parents"):
        WindTunnel(output="rpm_in", parents=["hatch"], simulator=WT_SIMULATOR)
    with pytest.raises(ValueError, match="levels must be a non-empty list"):
        Levels(levels=[])
    spec = chamber_spec("wind-tunnel")
    broken = spec.to_dict()
    node = next(n for n in broken["nodes"] if n["name"] == "rpm_in")
    node["parents"] = ["load_in"]  # the mechanism still lists three parents
    with pytest.raises(SpecError, match="parameters are for 3 inputs but the node has 1 parents"):
        type(spec).from_dict(broken).compile()


def test_levels_root_draws_each_setting_equally_often():
    x = Levels(levels=[1.1, 2.56, 5.0]).sample(30000, np.random.default_rng(0))
    assert set(np.unique(x)) == {1.1, 2.56, 5.0}
    assert np.allclose([np.mean(x == v) for v in (1.1, 2.56, 5.0)], 1 / 3, atol=0.01)
