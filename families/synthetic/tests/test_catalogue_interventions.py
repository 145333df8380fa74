"""Intervention protocols on SCMs with App. A.1 catalogue components (moved from the core's test_interventions.py).

A Bernoulli root with a step activation (a parameter shift no parent scaling
can move) and the intervention-stage stressors ``soft`` and
``intervention_shift`` ship with this distribution, not with the core.
"""

import numpy as np
import pytest
from _chain import ALL, chain_spec, run

from arena_family_synthetic import protocols as pr
from arena_family_synthetic.protocols import PROTOCOLS, draw_shifts
from causalarena.interventions import effective_target_pool, intervention_audit
from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec


def test_ineffective_parent_scale_is_replaced_by_the_next_kind():
    """B = step(A − 0.5) with A ∈ {0, 1}: scaling A by 0.6–1.6 never moves B, so the shift becomes a strength."""
    nodes = [NodeSpec(name="A", role="root", root_distribution=ComponentSpec(kind="bernoulli", params={"p": 0.5})),
             NodeSpec(name="B", role="mechanism", parents=("A",),
                      mechanism=ComponentSpec(kind="activation",
                                              params={"weights": [1.0], "bias": -0.5, "activation": "step"}),
                      noise=ComponentSpec(kind="gaussian", params={"scale": 0.3}))]
    scm = SCMSpec(id="step", nodes=nodes).compile()
    exo = scm.draw_exogenous(500, np.random.default_rng(0))
    x = scm.propagate(exo)
    iqr = np.array([np.nan, 1.0])
    seed = next(s for s in range(50) if draw_shifts(np.random.default_rng(s), [1], iqr)[1][0] == "parent_scale")
    factor = draw_shifts(np.random.default_rng(seed), [1], iqr)[1][1]
    assert draw_shifts(np.random.default_rng(seed), [1], iqr, scm, x, exo) == {1: ("strength", factor)}
    # through the protocol: the audit's "target values change" rule holds for every seed
    for s in range(12):
        out = pr.parameter_shift(scm, 300, 100, np.random.default_rng(s), [1], return_exogenous=True)
        assert intervention_audit(scm, *out, [1]) == []


@pytest.mark.parametrize("name", PROTOCOLS)
def test_audit_passes_with_intervention_stressors(name):
    spec = chain_spec(stressors=[ComponentSpec(kind="soft", params={"softness": 0.45}),
                                 ComponentSpec(kind="intervention_shift",
                                               params={"columns": ["C"], "shift": [0.3], "scale": [1.4]})])
    scm = spec.compile()
    x, mask, regime, exo, *_ = run(name, seed=9, scm=scm)
    assert intervention_audit(scm, x, mask, regime, exo, effective_target_pool(name, scm, ALL)) == []
