"""SCM components that run the ``causalchamber`` simulators inside a core :class:`~causalarena.scm.SCM`.

Registered through ``arena_components`` (:mod:`arena_family_chambers.plugin`), so a chamber spec
is plain data: each sensor node names one of these mechanisms with its parameters, and the SCM
compiler evaluates it in topological order like any other mechanism (so interventions on an
actuator are propagated to exactly its descendants).

* ``chamber_light_sensor`` — one output of the light tunnel's sensor simulator
  ``causalchamber.simulators.lt.Deterministic`` (Gamella, Bing & Runge 2025, "Sanity checking
  causal representation learning on a simple real-world system", appendix C).
* ``chamber_wind`` — one output of the wind tunnel's models A1 (steady-state fan speed), B1 (fan
  current) or the A1+C3 simulator of the downwind barometer (Gamella et al. 2025, "Causal
  chambers as a real-world physical testbed for AI methodology", appendix IV.1).
* ``chamber_levels`` — a root drawn uniformly from a finite list of settings (a sensor
  parameter: photodiode size, exposure time, ADC reference voltage).

The mechanisms compute nothing themselves: they assemble the simulator's input table and call
its ``simulate_from_inputs``. Noise is added by the node's own core noise component.
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Sequence

import numpy as np

from causalarena.scm import Mechanism, RootDistribution

from . import package

#: outputs of causalchamber.simulators.lt.Deterministic, in the order it returns them
LT_OUTPUTS = ("ir_1", "vis_1", "ir_2", "vis_2", "ir_3", "vis_3", "current", "angle_1", "angle_2")
#: parameters of causalchamber.simulators.lt.Deterministic (its parameters_names)
LT_PARAMETERS = ("S", "d1", "d2", "d3", "Ts", "Tp", "Tc", "Q", "C0", "A", "a1", "a2")

#: wind-tunnel output -> (simulator, {simulator input: variable}); the simulator reads only these
WT_OUTPUTS: Dict[str, Any] = {
    "rpm_in": ("A1", {"load": "load_in"}),
    "rpm_out": ("A1", {"load": "load_out"}),
    "current_in": ("B1", {"load": "load_in"}),
    "current_out": ("B1", {"load": "load_out"}),
    "pressure_downwind": ("A1C3", {"load_in": "load_in", "load_out": "load_out", "hatch": "hatch"}),
}
#: parameters each wind-tunnel simulator takes (package class constructor names)
WT_PARAMETERS = {
    "A1": ("L_min", "omega_max"),
    "B1": ("C_min", "C_max", "L_min"),
    "A1C3": ("L_min", "omega_max", "S_max", "Q_max", "r_0", "beta"),
}


def _as_names(value: Any, what: str) -> List[str]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what}: expected a list of variable names, got {value!r}")
    return list(value)


def _columns(parents: np.ndarray, names: Sequence[str]) -> Dict[str, np.ndarray]:
    """Parent matrix (n × k) as ``{name: column}`` (k = len(names))."""
    parents = np.asarray(parents, dtype=np.float64)
    if parents.ndim != 2 or parents.shape[1] != len(names):
        raise ValueError(f"expected an (n × {len(names)}) parent matrix for {list(names)}, got shape {parents.shape}")
    return {name: parents[:, i] for i, name in enumerate(names)}


class LightSensor(Mechanism):
    """One output of ``causalchamber.simulators.lt.Deterministic`` as a node's mechanism.

    Parameters (spec data):
        output: one of :data:`LT_OUTPUTS`.
        parents: the node's parent names, in the order of its ``NodeSpec.parents`` (each must be
            an input of the simulator).
        reference: ``{input: value}`` for every simulator input that is not a parent; the output
            does not read them (checked by the tests), the simulator needs a full input table.
        simulator: the simulator's parameters (:data:`LT_PARAMETERS`: S 2 × 3, d1–d3 in metres,
            Ts/Tp/Tc length 3, Q length 3, C0, A, a1, a2), JSON lists/floats.

    ``__call__((n × k)) -> (n,)``: the named output of ``simulate_from_inputs`` on the parents'
    values and the reference inputs (uncalibrated sensor units, see the family README).

    Raises (at construction):
        ValueError: unknown output, a parent that is no simulator input, missing inputs or
            simulator parameters.
    """

    kind: ClassVar[str] = "chamber_light_sensor"
    parameters: ClassVar[tuple] = ("output", "parents", "reference", "simulator")

    def validate(self) -> None:
        self._require(*self.parameters)
        if self.output not in LT_OUTPUTS:
            raise ValueError(f"{self.kind}: output {self.output!r} is not one of {list(LT_OUTPUTS)}")
        sim_cls = package.lt_simulators().Deterministic
        inputs = list(sim_cls.inputs_names)
        self._parents = _as_names(self.parents, f"{self.kind} ({self.output}) parents")
        bad = [p for p in self._parents if p not in inputs]
        if bad:
            raise ValueError(f"{self.kind} ({self.output}): parent(s) {bad} are not inputs of "
                             f"causalchamber.simulators.lt.Deterministic ({inputs})")
        if not isinstance(self.reference, dict):
            raise ValueError(f"{self.kind} ({self.output}): reference must be an object, got {self.reference!r}")
        missing = [i for i in inputs if i not in self._parents and i not in self.reference]
        if missing:
            raise ValueError(f"{self.kind} ({self.output}): no parent or reference value for input(s) {missing}")
        if not isinstance(self.simulator, dict):
            raise ValueError(f"{self.kind} ({self.output}): simulator must be an object of parameters")
        absent = [p for p in LT_PARAMETERS if p not in self.simulator]
        if absent:
            raise ValueError(f"{self.kind} ({self.output}): missing simulator parameter(s) {absent}")
        self._inputs = inputs
        self._sim = sim_cls(**{p: np.asarray(self.simulator[p], dtype=np.float64) for p in LT_PARAMETERS})

    def n_inputs(self) -> int:
        """The number of parents (the core checks it against the node's)."""
        return len(self._parents)

    def __call__(self, parents: np.ndarray) -> np.ndarray:
        import pandas as pd

        values = _columns(parents, self._parents)
        n = parents.shape[0]
        table = {name: values[name] if name in values else np.full(n, float(self.reference[name]))
                 for name in self._inputs}
        outputs = self._sim.simulate_from_inputs(pd.DataFrame(table))
        return np.asarray(outputs[LT_OUTPUTS.index(self.output)], dtype=np.float64).reshape(n)


class WindTunnel(Mechanism):
    """One output of the wind tunnel's simulators (``causalchamber.simulators.wt``) as a mechanism.

    ``rpm_in`` / ``rpm_out``: ``ModelA1`` (steady-state fan speed in rpm from the fan's load);
    ``current_in`` / ``current_out``: ``ModelB1`` (fan current in A from its load);
    ``pressure_downwind``: ``SimA1C3`` (downwind barometer, Pa, from both loads and the hatch
    angle) with its sensor noise set to zero — the barometer noise is the node's own core noise
    instead, drawn from the cell's exogenous stream (the package draws it from a fixed
    ``random_state`` per call, which would repeat the same noise in every table).

    Parameters (spec data):
        output: one of :data:`WT_OUTPUTS`.
        parents: the node's parent names in ``NodeSpec.parents`` order; they must include the
            variables the simulator reads (:data:`WT_OUTPUTS`), and may include published parents
            it does not read (they have no effect on the value).
        simulator: the simulator's parameters (:data:`WT_PARAMETERS`).
        pressure_ambient: ambient pressure in Pa fed to ``SimA1C3`` (``pressure_downwind`` only).

    Raises (at construction):
        ValueError: unknown output, a read variable missing from the parents, missing parameters.
    """

    kind: ClassVar[str] = "chamber_wind"
    parameters: ClassVar[tuple] = ("output", "parents", "simulator", "pressure_ambient")

    def validate(self) -> None:
        self._require("output", "parents", "simulator")
        if self.output not in WT_OUTPUTS:
            raise ValueError(f"{self.kind}: output {self.output!r} is not one of {sorted(WT_OUTPUTS)}")
        model, reads = WT_OUTPUTS[self.output]
        self._parents = _as_names(self.parents, f"{self.kind} ({self.output}) parents")
        missing = [v for v in reads.values() if v not in self._parents]
        if missing:
            raise ValueError(f"{self.kind} ({self.output}): the simulator reads {missing}, which are not parents")
        if not isinstance(self.simulator, dict):
            raise ValueError(f"{self.kind} ({self.output}): simulator must be an object of parameters")
        absent = [p for p in WT_PARAMETERS[model] if p not in self.simulator]
        if absent:
            raise ValueError(f"{self.kind} ({self.output}): missing simulator parameter(s) {absent} of {model}")
        if model == "A1C3" and "pressure_ambient" not in self._params:
            raise ValueError(f"{self.kind} ({self.output}): missing parameter 'pressure_ambient' (Pa)")
        wt = package.wt_simulators()
        kwargs = {p: float(self.simulator[p]) for p in WT_PARAMETERS[model]}
        if model == "A1":
            self._sim = wt.ModelA1(**kwargs)
        elif model == "B1":
            self._sim = wt.ModelB1(**kwargs)
        else:
            self._sim = wt.SimA1C3(**kwargs, barometer_error=0.0, barometer_precision=0.0)
        self._model, self._reads = model, reads

    def n_inputs(self) -> int:
        """The number of parents (the core checks it against the node's)."""
        return len(self._parents)

    def __call__(self, parents: np.ndarray) -> np.ndarray:
        import pandas as pd

        values = _columns(parents, self._parents)
        n = parents.shape[0]
        table = {name: values[var] for name, var in self._reads.items()}
        if self._model == "A1C3":
            table["pressure_ambient"] = np.full(n, float(self.pressure_ambient))
        frame = pd.DataFrame(table)
        # the package returns a scalar for a single row (and SimA1C3 then fails on len());
        # a one-row table is evaluated as two copies of the row
        if n == 1:
            frame = pd.concat([frame, frame], ignore_index=True)
        out = self._sim.simulate_from_inputs(frame)
        if self._model == "A1C3":
            out = out[0]  # (pressure_downwind, rpm_in, rpm_out)
        return np.asarray(out, dtype=np.float64).reshape(-1)[:n].copy()


class Levels(RootDistribution):
    """A root drawn uniformly from a finite list of settings: ``levels`` (floats), each with
    probability 1/len(levels). Used for the sensor parameters (photodiode size 0/1/2, exposure
    time 0–3, ADC reference voltage 1.1/2.56/5 V).

    Raises (at construction):
        ValueError: ``levels`` empty or not finite numbers.
    """

    kind: ClassVar[str] = "chamber_levels"
    parameters: ClassVar[tuple] = ("levels",)
    discrete: ClassVar[bool] = True

    def validate(self) -> None:
        self._require("levels")
        levels = np.asarray(self.levels, dtype=np.float64).reshape(-1)
        if levels.size == 0 or not np.all(np.isfinite(levels)):
            raise ValueError(f"{self.kind}: levels must be a non-empty list of finite numbers, got {self.levels!r}")
        self._levels = levels

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self._levels[rng.integers(0, self._levels.size, size=n)]


__all__ = ("LT_OUTPUTS", "LT_PARAMETERS", "Levels", "LightSensor", "WT_OUTPUTS", "WT_PARAMETERS", "WindTunnel")
