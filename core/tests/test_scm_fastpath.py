"""SCM.propagate's additive-noise fast path keeps the bytes of the general path (issue 12 item 15).

The general path is ``signal(j, pa)`` (``(f(pa) − out_loc) / out_scale``) then
``apply_noise`` (``Noise.apply``: signal + eps[:, 0], plus the high-noise
stressor's extra column); the fast path skips the exact no-ops and the method
calls. Both must give the same bytes on calibrated and uncalibrated linear
SCMs, with extra noise columns, interventions and parameter shifts.
"""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec, calibrate_outputs


def _spec(extra: bool):
    rng = np.random.default_rng(5)
    d = 12
    names = [f"X{i}" for i in range(d)]
    nodes = []
    for j in range(d):
        parents = [names[i] for i in range(j) if rng.random() < 0.35]
        if not parents:
            nodes.append(NodeSpec(name=names[j], role="root", root_distribution=ComponentSpec(
                kind="gaussian", params={"loc": float(rng.normal()), "scale": 1.3})))
            continue
        noise = {"scale": float(rng.uniform(0.1, 0.5))}
        if extra and j % 2:
            noise["extra_scale"] = 0.7
        nodes.append(NodeSpec(name=names[j], role="mechanism", parents=tuple(parents),
                              mechanism=ComponentSpec(kind="linear", params={
                                  "weights": rng.normal(size=len(parents)).tolist(), "bias": 0.25}),
                              noise=ComponentSpec(kind="gaussian", params=noise)))
    return SCMSpec(id="fastpath", nodes=nodes)


def _general(scm, exo, mask=None, values=None):
    """The general path, node by node (what propagate did for every node before the fast path)."""
    x = np.empty((exo.shape[0], scm.d))
    for j in scm.order:
        if scm._roots[j] is not None:
            col = exo[:, j].copy()
        else:
            pa = x[:, scm.parents[j]]
            col = scm.apply_noise(j, scm.signal(j, pa), exo, pa)
        if mask is not None and mask[:, j].any():
            col[mask[:, j]] = values[mask[:, j], j]
        x[:, j] = col
    return x


@pytest.mark.parametrize("extra", [False, True])
@pytest.mark.parametrize("calibrated", [False, True])
def test_fast_path_same_bytes(extra, calibrated):
    spec = _spec(extra)
    if calibrated:
        spec = calibrate_outputs(spec, n=500, seed=1)
    scm = spec.compile()
    exo = scm.draw_exogenous(400, np.random.default_rng(2))
    assert exo.shape == (400, scm.exo_width)
    assert scm.propagate(exo).tobytes() == _general(scm, exo).tobytes()
    assert scm.sample(400, np.random.default_rng(2)).tobytes() == _general(scm, exo).tobytes()
    mask = np.zeros((400, scm.d), dtype=bool)
    mask[:100, 3] = True
    mask[100:200, 7] = True
    values = np.full((400, scm.d), 1.5)
    assert scm.propagate(exo, mask, values).tobytes() == _general(scm, exo, mask, values).tobytes()


def test_draw_exogenous_column_order_unchanged():
    """Each column is drawn in the documented order (topological, extra columns after the node's)."""
    spec = _spec(extra=True)
    scm = spec.compile()
    exo = scm.draw_exogenous(50, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    want = np.zeros((50, scm.exo_width))
    for j in scm.order:
        if scm._roots[j] is not None:
            want[:, j] = scm._roots[j].sample(50, rng)
        else:
            want[:, j] = scm._noises[j].sample(50, rng)
            if scm._extra_col[j] is not None:
                want[:, scm._extra_col[j]] = rng.standard_normal(50)
    assert np.ascontiguousarray(exo).tobytes() == want.tobytes()


def test_parameter_shift_still_general():
    scm = _spec(extra=False).compile()
    exo = scm.draw_exogenous(200, np.random.default_rng(4))
    j = next(k for k in scm.order if scm._roots[k] is None)
    shift_mask = np.zeros((200, scm.d), dtype=bool)
    shift_mask[:50, j] = True
    base = scm.propagate(exo)
    shifted = scm.propagate(exo, shift_mask, np.zeros((200, scm.d)), shift_mask=shift_mask,
                            shifts={j: ("bias", 2.0)})
    assert np.allclose(shifted[:50, j], base[:50, j] + 2.0)
    assert np.array_equal(shifted[50:], base[50:])
