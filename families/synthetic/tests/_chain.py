"""The five-node linear chain and protocol table shared by the synthetic distribution's intervention tests.

Used by test_protocols.py (the App. A.2 protocol suite) and test_catalogue_interventions.py (catalogue
components and intervention-stage stressors under those protocols). The core's own copy, for its default
protocol and the audit, stays in core/tests/test_interventions.py (the core's tests cannot import a family's).

CausalArena paper, App. A.1 "Interventions", App. A.2 "Protocol-sensitivity suites".
"""

import numpy as np

from arena_family_synthetic import protocols as pr
from causalarena import interventions as iv
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

# A -> B -> C -> D -> E, linear mechanisms without output calibration, so
# node = w * parent + b + eps exactly.
WEIGHTS = {"B": 2.0, "C": -1.0, "D": 0.5, "E": 1.5}
BIASES = {"B": 0.5, "C": 0.3, "D": 1.0, "E": -0.4}
NAMES = ["A", "B", "C", "D", "E"]


def chain_spec(stressors=(), intervenable=None, sid="chain5"):
    """The spec of the chain A -> ... -> E (A ~ N(0, 1), noise N(0, 0.5²)); ``intervenable`` maps name -> bool."""
    intervenable = intervenable or {}
    nodes = [NodeSpec(name="A", role="root", intervenable=intervenable.get("A", True),
                      root_distribution=ComponentSpec(kind="gaussian", params={"loc": 0.0, "scale": 1.0}))]
    for parent, name in zip(NAMES, NAMES[1:]):
        nodes.append(NodeSpec(name=name, role="mechanism", parents=(parent,),
                              intervenable=intervenable.get(name, True),
                              mechanism=ComponentSpec(kind="linear",
                                                      params={"weights": [WEIGHTS[name]], "bias": BIASES[name]}),
                              noise=ComponentSpec(kind="gaussian", params={"scale": 0.5})))
    return SCMSpec(id=sid, nodes=nodes, stressors=list(stressors))


SCM = chain_spec().compile()
ALL = np.arange(5)
#: protocol name -> (function, n_obs, n_int), the registered row budgets
FUNCS = {
    "default": (iv.hard_resampling, 800, 200),
    "fixed_setpoint": (pr.fixed_setpoint, 800, 200),
    "parameter_shift": (pr.parameter_shift, 800, 200),
    "high_fraction": (pr.high_fraction, 200, 800),
    "multi_target": (pr.multi_target, 800, 200),
    "dense_mixed": (pr.dense_mixed, 200, 800),
}


def run(name, seed=0, pool=ALL, scm=SCM):
    """Protocol ``name`` on ``scm`` at its row budget: ``(x, mask, regime, exogenous, n_obs, n_int)``."""
    f, n_obs, n_int = FUNCS[name]
    x, mask, regime, exo = f(scm, n_obs, n_int, np.random.default_rng(seed), pool, return_exogenous=True)
    return x, mask, regime, exo, n_obs, n_int


def baseline_percentiles(scm, exo, n_obs, q):
    """Percentiles ``q`` (per column) of the unintervened propagation of the first ``n_obs`` exogenous rows."""
    return np.percentile(scm.propagate(exo[:n_obs]), q, axis=0)
