"""Run time: no network request and no pgmpy import; categorical tables are ``unsupported`` for a
continuous-only method and run for one that declares categorical support."""

from __future__ import annotations

import json
import os

from arena_family_bnlearn.family import BnlearnFamily
from arena_testkit.offline import run_offline
from causalarena.plugins import get_registry
from causalarena.records import MethodInfo, Status
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))

NO_NETWORK = r"""
import json, sys
from arena_family_bnlearn.family import BnlearnFamily
fam = BnlearnFamily()
shapes = {}
for inst in fam.instances():
    for split in inst.splits:
        ds = inst.dataset(split, 0)
        shapes[f"{inst.scm_id}/{split}"] = list(ds.X.shape)
    inst.fingerprint()
fam.instance("munin").true_adjacency()  # the largest shipped file, outside the default cap
print(json.dumps({"attempts": attempts, "pgmpy": "pgmpy" in sys.modules, "shapes": shapes}))
"""


def test_every_default_table_builds_with_the_network_refused_and_pgmpy_never_imported():
    proc = run_offline(NO_NETWORK, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["attempts"] == [] and out["pgmpy"] is False
    assert len(out["shapes"]) == 2 * 18
    assert out["shapes"]["ecoli70/obs"] == [1000, 46] and out["shapes"]["win95pts/obs_int"] == [1000, 76]


def test_a_continuous_only_method_is_unsupported_on_categorical_networks_not_failed(tmp_path):
    fam = BnlearnFamily(networks="ecoli70,asia")
    methods = [MethodInfo(name="empty", factory="bnlearn_methods:Empty"),
               MethodInfo(name="empty_cat", factory="bnlearn_methods:Empty",
                          data_types=("continuous", "categorical"))]
    cells = make_cells(fam.instances(), methods, splits=("obs",), replicates=(0,))
    with Store(str(tmp_path / "runs.sqlite")) as st:
        summary = run_grid(cells, get_registry(), st, env={"PYTHONPATH": TESTS_DIR}, progress=False)
        rows = {(r.method, r.scm_id): r for r in st.records()}
    assert {k: r.status for k, r in rows.items()} == {
        ("empty", "ecoli70"): Status.OK, ("empty", "asia"): Status.UNSUPPORTED,
        ("empty_cat", "ecoli70"): Status.OK, ("empty_cat", "asia"): Status.OK}
    assert rows[("empty", "asia")].error == ("method 'empty' declares data types continuous; instance 'asia' "
                                            "is categorical (missing, not a failure)")
    assert rows[("empty_cat", "asia")].metrics["shd"] == 8.0  # the empty graph misses asia's 8 arcs
    assert summary.failures == 0
