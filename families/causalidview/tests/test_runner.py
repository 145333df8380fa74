"""The family through the arena's runner: every view runs, the scores are the hand-computed ones."""

import os

import numpy as np
import pytest

from arena_family_causalidview.family import CausalIDViewFamily
from causalarena.plugins import get_registry
from causalarena.records import MethodInfo, Status
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

HERE = os.path.dirname(os.path.abspath(__file__))


def test_a_grid_over_the_views_scores_against_the_oracle(tmp_path):
    inst = CausalIDViewFamily().instance("w00-linear-move")
    methods = [MethodInfo(name="dim", factory="_probe:DiffInMeans", task="effect", output_kind="effect",
                          views=("bd", "fd", "iv", "px"))]
    with Store(str(tmp_path / "r.sqlite")) as st:
        run_grid(make_cells([inst], methods), get_registry(), st, env={"PYTHONPATH": HERE}, progress=False)
        rows = {r.split: r for r in st.records()}
    assert {s: r.status for s, r in rows.items()} == {"bd": Status.OK, "fd": Status.OK, "iv": Status.OK,
                                                       "px": Status.OK, "hc": Status.UNSUPPORTED}
    ds, tau = inst.dataset("bd", 0), inst.oracle("bd", 0).tau
    diff = ds.Y[ds.T == 1].mean() - ds.Y[ds.T == 0].mean()
    for view in ("bd", "fd", "iv", "px"):
        r = rows[view]
        assert r.n == 1024 and r.d == 50 and r.seed == ds.metadata["seed"]
        assert r.metrics["spehe2"] == pytest.approx(np.mean((diff - tau) ** 2), rel=1e-12)
        assert r.metrics["mean_effect_error"] == pytest.approx((diff - tau.mean()) ** 2, rel=1e-12)
