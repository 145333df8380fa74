"""The two chambers as executable SCM specs: published graph, package simulators, protocol roots.

Gamella, Peters & Bühlmann (2025), "Causal chambers as a real-world physical testbed for AI
methodology", Nature Machine Intelligence, doi:10.1038/s42256-024-00964-x.

**Variables.** A chamber's instance holds exactly the variables of the published graph
(``causalchamber.ground_truth``, standard configuration) that the package's simulators produce
or read; everything else is left out and listed (:data:`LT_LEFT_OUT`, :data:`WT_LEFT_OUT`).

* Light tunnel (29 of 38): the actuators ``red, green, blue, pol_1, pol_2``, the sensor
  parameters the simulator reads (photodiode sizes, exposure times, ADC reference voltages) and
  the nine outputs of ``causalchamber.simulators.lt.Deterministic``.
* Wind tunnel (8 of 32): ``load_in, load_out, hatch``, the fan speeds and currents (models A1,
  B1) and the downwind barometer (A1 + C3).

**Truth.** The published adjacency restricted to those variables (``graph="published"``,
default: 42 light-tunnel edges, 13 wind-tunnel edges). The wind tunnel's simulators ignore six
published edges (model A1 gives each fan's speed from its own load only; B1 likewise for the
current): ``graph="simulator"`` drops them (7 edges), so that every edge of the truth acts on
the data. In the light tunnel both graphs coincide (42 edges; the tests check that each output
depends on exactly its published parents).

**Roots (observational distribution).** The continuous actuators follow the reference design of
the chamber's own experiments: light tunnel ``red, green, blue ~ U[0, 85]`` and
``pol_1, pol_2 ~ U[-15°, 25°]`` (dataset ``lt_interventions_standard_v1``, experiment
``uniform_reference``, generator ``uniform.py``); wind tunnel ``load_in, load_out ~ U[0, 1]``
and ``hatch ~ U[0°, 45°]`` (the actuator ranges of ``wt_walks_v1/generators/actuators_white.py``).
The sensor parameters, held fixed in that reference experiment, are drawn uniformly from the
settings the dataset's interventions use (:data:`LT_LEVELS`), so that their edges act on the data
and no column is constant. The intervention target pool is the continuous actuators
(:data:`LT_TARGETS`, :data:`WT_TARGETS`): the protocol's hard do (U[q10, q90] of the baseline)
would put a discrete setting between its levels.

**Noise.** ``Deterministic``, ``ModelA1`` and ``ModelB1`` are noiseless; the package gives no
noise model for those sensors. Each of their outputs gets additive Gaussian noise with standard
deviation ``noise`` × the output's noiseless standard deviation under the observational
distribution (a fixed pilot, :func:`pilot_sd`; ``noise = 0.1`` by default). The downwind
barometer gets the package's own barometer noise: Gaussian, offset 0, sd 0.2 Pa
(:data:`WT_BAROMETER_PRECISION`), drawn from the cell's exogenous stream.
"""

from __future__ import annotations

import hashlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

from . import package
from .components import LT_OUTPUTS, WT_OUTPUTS, WT_PARAMETERS

CITATION = ("Gamella, J. L., Peters, J., & Bühlmann, P. (2025). Causal chambers as a real-world physical testbed "
            "for AI methodology. Nature Machine Intelligence. doi:10.1038/s42256-024-00964-x")
LT_SIMULATOR_CITATION = ("Gamella, J. L., Bing, S., & Runge, J. (2025). Sanity checking causal representation "
                         "learning on a simple real-world system, appendix C (the light-tunnel sensor simulator "
                         "causalchamber.simulators.lt.Deterministic)")

#: causalchamber.simulators.lt.Deterministic parameters, as set in the package's own tutorial script
#: causalchamber/simulators/tutorials/test_scripts/tutorial_Deterministic.py (in the 0.2.8 wheel;
#: the tests parse that file and compare). d1–d3: source-to-sensor distances (only their ratios enter).
LT_SIMULATOR: Dict[str, Any] = {
    "S": [[4.34165202, 2.8594438, 1.91565691], [0.89410569, 1.58679242, 2.68477163]],
    "d1": 0.1,
    "d2": 0.17,
    "d3": 0.25,
    "Ts": [0.42685688, 0.41231782, 0.46652526],
    "Tp": [0.2909342, 0.29624314, 0.30526271],
    "Tc": [0.00431032, 0.01447611, 0.02041075],
    "Q": [0.12834946, 0.12870338, 0.13078523],
    "C0": 58.13307318503893,
    "A": 1.42261211,
    "a1": 506.8049747171294,
    "a2": 510.98343062774353,
}

#: wind-tunnel model parameters. L_min, omega_max (rpm), C_min, C_max (A): the package's tutorial
#: script causalchamber/simulators/tutorials/test_scripts/tutorial_ModelsAB.py (in the wheel;
#: checked by the tests). S_max (Pa), Q_max (m³/s), r_0, beta and the barometer precision: the
#: package repository's notebook causalchamber/simulators/tutorials/tutorial_SimsAXCX.ipynb
#: (juangamella/causal-chamber-package, commit 2fe32e50), not shipped in the wheel.
WT_SIMULATOR: Dict[str, float] = {
    "L_min": 0.1,
    "omega_max": 3000.0,
    "C_min": 0.166,
    "C_max": 0.27,
    "S_max": 74.82473949999999,
    "Q_max": 186.7 / 3600,
    "r_0": 0.75,
    "beta": 0.15,
}
#: sd (Pa) of the downwind barometer's noise (tutorial_SimsAXCX.ipynb: BAROMETER_PRECISION; offset 0)
WT_BAROMETER_PRECISION = 0.2
#: ambient pressure fed to SimA1C3: 0 Pa, so pressure_downwind is relative to ambient (as in the
#: package's tutorial); the ambient barometer itself is not simulated
WT_PRESSURE_AMBIENT = 0.0

#: light-tunnel actuators: (low, high) of the uniform reference design (lt_interventions_standard_v1)
LT_ACTUATORS: Dict[str, Tuple[float, float]] = {
    "red": (0.0, 85.0), "green": (0.0, 85.0), "blue": (0.0, 85.0), "pol_1": (-15.0, 25.0), "pol_2": (-15.0, 25.0),
}
#: light-tunnel sensor parameters the simulator reads: their settings (lt_interventions_standard_v1's
#: generators/uniform.py), each drawn with equal probability
LT_LEVELS: Dict[str, List[float]] = {
    **{f"diode_ir_{i}": [0.0, 1.0, 2.0] for i in (1, 2, 3)},
    **{f"diode_vis_{i}": [0.0, 1.0] for i in (1, 2, 3)},
    **{f"t_{kind}_{i}": [0.0, 1.0, 2.0, 3.0] for kind in ("ir", "vis") for i in (1, 2, 3)},
    **{v: [1.1, 2.56, 5.0] for v in ("v_c", "v_angle_1", "v_angle_2")},
}
#: the reference settings (uniform_reference) — the values a light-tunnel mechanism feeds to the
#: simulator inputs its output does not read
LT_REFERENCE: Dict[str, float] = {
    "red": 0.0, "green": 0.0, "blue": 0.0, "pol_1": 0.0, "pol_2": 0.0,
    **{f"diode_ir_{i}": 2.0 for i in (1, 2, 3)}, **{f"diode_vis_{i}": 1.0 for i in (1, 2, 3)},
    **{f"t_{kind}_{i}": 3.0 for kind in ("ir", "vis") for i in (1, 2, 3)},
    "v_c": 5.0, "v_angle_1": 5.0, "v_angle_2": 5.0,
}
LT_TARGETS = ("red", "green", "blue", "pol_1", "pol_2")

WT_ACTUATORS: Dict[str, Tuple[float, float]] = {"load_in": (0.0, 1.0), "load_out": (0.0, 1.0), "hatch": (0.0, 45.0)}
WT_TARGETS = ("load_in", "load_out", "hatch")

#: published light-tunnel variables left out, and why (README table)
LT_LEFT_OUT: Dict[str, str] = {
    **{f"l_{i}{j}": "LED next to a sensor: not in the sensor simulator" for i in (1, 2, 3) for j in (1, 2)},
    "osr_c": "oversampling rate: acts on measurement noise only, not simulated",
    "osr_angle_1": "oversampling rate: acts on measurement noise only, not simulated",
    "osr_angle_2": "oversampling rate: acts on measurement noise only, not simulated",
}
#: published wind-tunnel variables left out, and why
WT_LEFT_OUT: Dict[str, str] = {
    "pot_1": "potentiometer: no simulator", "pot_2": "potentiometer: no simulator",
    "signal_1": "potentiometer signal: no simulator", "signal_2": "potentiometer signal: no simulator",
    "mic": "microphone: no simulator", "osr_mic": "microphone oversampling: no simulator",
    "v_mic": "microphone reference voltage: no simulator",
    "osr_1": "oversampling rate: no simulator", "osr_2": "oversampling rate: no simulator",
    "v_1": "reference voltage: no simulator", "v_2": "reference voltage: no simulator",
    "osr_in": "current-sensor oversampling: model B1 gives amperes, no sensor model",
    "osr_out": "current-sensor oversampling: model B1 gives amperes, no sensor model",
    "v_in": "current-sensor reference voltage: model B1 gives amperes, no sensor model",
    "v_out": "current-sensor reference voltage: model B1 gives amperes, no sensor model",
    "res_in": "tachometer resolution: model A1 gives rpm, no sensor model",
    "res_out": "tachometer resolution: model A1 gives rpm, no sensor model",
    "pressure_upwind": "upwind barometer: not simulated (model D1 is not implemented in the package)",
    "pressure_intake": "intake barometer: not simulated",
    "pressure_ambient": "ambient barometer: not simulated (the ambient pressure is a constant input to SimA1C3)",
    "osr_upwind": "barometer oversampling: not simulated", "osr_downwind": "barometer oversampling: not simulated",
    "osr_ambient": "barometer oversampling: not simulated", "osr_intake": "barometer oversampling: not simulated",
}

UNITS: Dict[str, str] = {
    **{c: "brightness setting (0-255)" for c in ("red", "green", "blue")},
    "pol_1": "deg", "pol_2": "deg",
    **{f"diode_ir_{i}": "photodiode size (0 small, 1 medium, 2 large)" for i in (1, 2, 3)},
    **{f"diode_vis_{i}": "photodiode size (0 small, 1 medium)" for i in (1, 2, 3)},
    **{f"t_{kind}_{i}": "exposure time setting (0-3)" for kind in ("ir", "vis") for i in (1, 2, 3)},
    "v_c": "V", "v_angle_1": "V", "v_angle_2": "V",
    **{f"{kind}_{i}": "uncalibrated light intensity" for kind in ("ir", "vis") for i in (1, 2, 3)},
    "current": "uncalibrated ADC reading (C0 is documented as the uncalibrated reading at v_c = 5)",
    "angle_1": "uncalibrated ADC reading (capped at 1023)", "angle_2": "uncalibrated ADC reading (capped at 1023)",
    "load_in": "fraction of full load (0-1)", "load_out": "fraction of full load (0-1)", "hatch": "deg",
    "rpm_in": "rpm", "rpm_out": "rpm", "current_in": "A", "current_out": "A",
    "pressure_downwind": "Pa (relative to ambient)",
}

CHAMBERS = ("light-tunnel", "wind-tunnel")
GRAPHS = ("published", "simulator")
#: the package's chamber code per instance id
PACKAGE_CHAMBER = {"light-tunnel": "lt", "wind-tunnel": "wt"}
DEFAULT_NOISE = 0.1
#: pilot rows and seed of :func:`pilot_sd`
PILOT_ROWS, PILOT_SEED = 4096, 20250101


def column_order(scm_id: str, names: Sequence[str]) -> List[str]:
    """The column order of an instance: ``names`` sorted by SHA-256 of ``"<scm_id>/<name>"``.

    The package lists actuators before sensors (roughly causes first), which would hand the
    causal order to any method whose ties fall back to the column order (Reisach et al. 2021);
    a fixed pseudo-random permutation per instance, the same on every platform, avoids that.
    """
    return sorted(names, key=lambda n: hashlib.sha256(f"chambers-columns/{scm_id}/{n}".encode()).digest())


def restricted_graph(chamber: str, keep: Sequence[str]) -> Tuple[List[str], np.ndarray, int]:
    """The published graph restricted to ``keep``: ``(names in keep order, adjacency, published edges)``.

    Raises:
        ValueError: a name of ``keep`` is not a published variable of the chamber.
    """
    names, adjacency = package.published_graph(chamber)
    missing = [k for k in keep if k not in names]
    if missing:
        raise ValueError(f"causalchamber {package.version()}: {missing} are not variables of the published "
                         f"{chamber!r} graph")
    idx = [names.index(k) for k in keep]
    return list(keep), adjacency[np.ix_(idx, idx)], int(adjacency.sum())


def _simulator_reads(output: str) -> List[str]:
    """The variables the package's simulator reads to produce ``output``."""
    if output in WT_OUTPUTS:
        return list(WT_OUTPUTS[output][1].values())
    return [v for v in _lt_inputs() if _lt_depends(output, v)]


def _lt_inputs() -> List[str]:
    return list(package.lt_simulators().Deterministic.inputs_names)


#: the inputs each light-tunnel output reads, per the simulator's equations (Deterministic._simulate):
#: sensor k reads the colour, its own photodiode and exposure; sensor 3 also both polarizers;
#: the current reads the colour and v_c; angle k its polarizer and reference voltage
def _lt_depends(output: str, variable: str) -> bool:
    rgb = {"red", "green", "blue"}
    if output == "current":
        return variable in rgb | {"v_c"}
    if output.startswith("angle_"):
        k = output[-1]
        return variable in {f"pol_{k}", f"v_angle_{k}"}
    kind, k = output.split("_")
    reads = rgb | {f"diode_{kind}_{k}", f"t_{kind}_{k}"}
    if k == "3":
        reads |= {"pol_1", "pol_2"}
    return variable in reads


def _root_node(name: str) -> NodeSpec:
    if name in LT_LEVELS:
        return NodeSpec(name=name, role="root", intervenable=False,
                        root_distribution=ComponentSpec(kind="chamber_levels", params={"levels": LT_LEVELS[name]}),
                        tags={"root": "levels", "unit": UNITS[name], "latex": package.latex_name(name)})
    low, high = {**LT_ACTUATORS, **WT_ACTUATORS}[name]
    return NodeSpec(name=name, role="root", intervenable=True,
                    root_distribution=ComponentSpec(kind="uniform", params={"low": low, "high": high}),
                    tags={"root": "uniform", "unit": UNITS[name], "latex": package.latex_name(name)})


def _mechanism(output: str, parents: Sequence[str]) -> ComponentSpec:
    if output in LT_OUTPUTS:
        reference = {k: v for k, v in LT_REFERENCE.items() if k not in parents}
        return ComponentSpec(kind="chamber_light_sensor", params={
            "output": output, "parents": list(parents), "reference": reference, "simulator": LT_SIMULATOR})
    model = WT_OUTPUTS[output][0]
    params: Dict[str, Any] = {"output": output, "parents": list(parents),
                              "simulator": {p: WT_SIMULATOR[p] for p in WT_PARAMETERS[model]}}
    if model == "A1C3":
        params["pressure_ambient"] = WT_PRESSURE_AMBIENT
    return ComponentSpec(kind="chamber_wind", params=params)


def _variables(scm_id: str) -> Tuple[List[str], List[str]]:
    """(roots, outputs) of an instance, in the package's variable order."""
    if scm_id == "light-tunnel":
        order = package.ground_truth().variables("lt", "standard")
        roots = [v for v in order if v in LT_ACTUATORS or v in LT_LEVELS]
        return roots, [v for v in order if v in LT_OUTPUTS]
    order = package.ground_truth().variables("wt", "standard")
    return [v for v in order if v in WT_ACTUATORS], [v for v in order if v in WT_OUTPUTS]


def pilot_sd(spec: SCMSpec, rows: int = PILOT_ROWS, seed: int = PILOT_SEED) -> Dict[str, float]:
    """Standard deviation of each mechanism node's noiseless output under the observational roots.

    ``spec`` is compiled with every noise removed and sampled once (``rows`` rows, ``seed``);
    the values fix the noise scales, which are then stored in the spec (a spec is explicit data).
    """
    nodes = tuple(NodeSpec(name=n.name, role=n.role, parents=n.parents, root_distribution=n.root_distribution,
                           mechanism=n.mechanism, noise=None, intervenable=n.intervenable, tags=n.tags)
                  for n in spec.nodes)
    quiet = SCMSpec(id=spec.id + "/pilot", nodes=nodes)
    x = quiet.compile().sample(rows, np.random.default_rng(seed))
    return {n.name: float(x[:, j].std()) for j, n in enumerate(nodes) if n.role == "mechanism"}


def chamber_spec(scm_id: str, family: str = "chambers", graph: str = "published",
                 noise: float = DEFAULT_NOISE) -> SCMSpec:
    """The :class:`SCMSpec` of one chamber (see the module).

    Args:
        scm_id: ``"light-tunnel"`` or ``"wind-tunnel"``.
        family: family name (part of the spec id ``"<family>/<scm_id>"``).
        graph: ``"published"`` (the published graph restricted to the simulated variables) or
            ``"simulator"`` (only the edges the simulators act through).
        noise: relative noise sd of the noiseless sensor outputs (> 0; see the module).

    Returns:
        A spec whose nodes are in :func:`column_order`; node tags ``unit`` and ``latex`` (the
        paper's symbol); metadata: factor tags (chamber, configuration, graph, d, n_edges,
        n_edges_published, noise, source) and references (left_out, unexpressed_edges, units,
        citation).

    Raises:
        ValueError: unknown chamber or graph, ``noise`` not a positive finite number.
    """
    if scm_id not in CHAMBERS:
        raise ValueError(f"chambers: unknown chamber {scm_id!r}; expected one of {list(CHAMBERS)}")
    if graph not in GRAPHS:
        raise ValueError(f"chambers: graph must be one of {list(GRAPHS)}, got {graph!r}")
    if not (isinstance(noise, (int, float)) and np.isfinite(noise) and noise > 0):
        raise ValueError(f"chambers: noise must be a positive finite number (relative sd), got {noise!r}")
    chamber = PACKAGE_CHAMBER[scm_id]
    roots, outputs = _variables(scm_id)
    names, adjacency, n_published = restricted_graph(chamber, roots + outputs)
    unexpressed: List[str] = []
    parents_of: Dict[str, List[str]] = {}
    for j, name in enumerate(names):
        pa = [names[i] for i in np.flatnonzero(adjacency[:, j])]
        if name in outputs:
            reads = _simulator_reads(name)
            missing = [r for r in reads if r not in pa]
            if missing:  # the simulator reads a variable the published graph does not list as a parent
                raise ValueError(f"causalchamber {package.version()}: {name} reads {missing}, which the published "
                                 "graph does not list as its parents")
            unexpressed += [f"{p}->{name}" for p in pa if p not in reads]
            if graph == "simulator":
                pa = [p for p in pa if p in reads]
        parents_of[name] = pa
    nodes = []
    for name in column_order(scm_id, names):
        if name in roots:
            nodes.append(_root_node(name))
        else:
            nodes.append(NodeSpec(name=name, role="mechanism", parents=tuple(parents_of[name]),
                                  mechanism=_mechanism(name, parents_of[name]), noise=None,
                                  tags={"mechanism": "chamber_simulator", "unit": UNITS[name],
                                        "latex": package.latex_name(name)}))
    n_edges = sum(len(p) for p in parents_of.values())
    left_out = LT_LEFT_OUT if chamber == "lt" else WT_LEFT_OUT
    metadata: Dict[str, Any] = {
        "chamber": scm_id, "configuration": "standard", "graph": graph, "d": len(names), "n_edges": n_edges,
        "n_edges_published": n_published, "noise": float(noise), "data_type": "continuous",
        "source": f"causalchamber {package.version()} simulators (data generated, not measured)",
        "left_out": sorted(left_out), "unexpressed_edges": [] if graph == "simulator" else unexpressed,
        "units": {n: UNITS[n] for n in names}, "citation": CITATION,
    }
    if chamber == "lt":
        metadata["simulator_citation"] = LT_SIMULATOR_CITATION
    spec = SCMSpec(id=f"{family}/{scm_id}", nodes=tuple(nodes),
                   intervention_targets=tuple(LT_TARGETS if chamber == "lt" else WT_TARGETS), metadata=metadata)
    return _with_noise(spec, float(noise))


def _noise_scale(name: str, noise: float, sd: Mapping[str, float]) -> float:
    if name == "pressure_downwind":
        return WT_BAROMETER_PRECISION
    return noise * sd[name] if sd[name] > 0 else noise


def _with_noise(spec: SCMSpec, noise: float, sd: Optional[Mapping[str, float]] = None) -> SCMSpec:
    """``spec`` with each mechanism node's Gaussian noise scale set (see the module)."""
    sd = pilot_sd(spec) if sd is None else sd
    nodes = tuple(n if n.role == "root" else NodeSpec(
        name=n.name, role=n.role, parents=n.parents, mechanism=n.mechanism, intervenable=n.intervenable,
        noise=ComponentSpec(kind="gaussian", params={"scale": _noise_scale(n.name, noise, sd)}),
        tags={**n.tags, "noise": "gaussian"}) for n in spec.nodes)
    return SCMSpec(id=spec.id, nodes=nodes, intervention_targets=spec.intervention_targets, metadata=spec.metadata)


__all__ = ("CHAMBERS", "CITATION", "DEFAULT_NOISE", "GRAPHS", "LT_LEFT_OUT", "LT_LEVELS", "LT_REFERENCE",
           "LT_SIMULATOR", "LT_TARGETS", "UNITS", "WT_BAROMETER_PRECISION", "WT_LEFT_OUT", "WT_SIMULATOR",
           "WT_TARGETS", "chamber_spec", "column_order", "pilot_sd", "restricted_graph")
