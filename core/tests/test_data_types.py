"""MethodInfo.data_types and Instance.data_type: a categorical table is ``unsupported`` for a method
that does not declare categorical support (missing, not failed), and runs for one that does."""

from __future__ import annotations

import pytest
from fault_methods import TESTS_DIR, ChainInstance, info

from causalarena.family import Instance
from causalarena.plugins import get_registry
from causalarena.records import DATA_TYPES, MethodInfo, Status, data_type_of
from causalarena.runner import make_cells, run_grid
from causalarena.store import Store

ENV = {"PYTHONPATH": TESTS_DIR}


class CategoricalChain(ChainInstance):
    """The fault suite's 3-variable chain, declared categorical (the table itself does not matter here)."""

    data_type = "categorical"


def test_defaults_are_continuous_only():
    assert DATA_TYPES == ("continuous", "categorical")
    assert MethodInfo(name="m", factory="x:y").data_types == ("continuous",)
    assert Instance.data_type == "continuous" and data_type_of(ChainInstance()) == "continuous"
    assert data_type_of(object()) == "continuous"  # an instance class from before the field
    assert data_type_of(CategoricalChain()) == "categorical"


def test_data_types_are_validated_and_a_json_list_is_accepted():
    assert MethodInfo(name="m", factory="x:y", data_types=["categorical", "continuous"]).data_types == (
        "categorical", "continuous")
    assert MethodInfo(name="m", factory="x:y", data_types="categorical").data_types == ("categorical",)
    for bad in ((), ("ordinal",), ("continuous", "text")):
        with pytest.raises(ValueError, match="MethodInfo.data_types must be a non-empty tuple"):
            MethodInfo(name="m", factory="x:y", data_types=bad)


def test_a_categorical_instance_is_unsupported_for_a_continuous_method_and_runs_for_a_declaring_one(tmp_path):
    cat = CategoricalChain("chain-cat", splits=("obs", "obs_int"), n_replicates=1)
    cont = ChainInstance("chain-cont", splits=("obs",), n_replicates=1)
    methods = [info("chain", "Chain"),
               info("chain_cat", "Chain", data_types=("continuous", "categorical")),
               info("interventional", "Interventional", supports_interventions=True,
                    data_types=("categorical",))]
    cells = make_cells([cat, cont], methods)
    with Store(str(tmp_path / "r.sqlite")) as st:
        summary = run_grid(cells, get_registry(), st, env=ENV, progress=False)
        rows = {(r.method, r.scm_id, r.split): r for r in st.records()}
    status = {k: r.status for k, r in rows.items()}
    assert status == {
        ("chain", "chain-cat", "obs"): Status.UNSUPPORTED,
        ("chain", "chain-cat", "obs_int"): Status.UNSUPPORTED,
        ("chain", "chain-cont", "obs"): Status.OK,
        ("chain_cat", "chain-cat", "obs"): Status.OK,
        ("chain_cat", "chain-cat", "obs_int"): Status.UNSUPPORTED,  # no interventions: the usual rule
        ("chain_cat", "chain-cont", "obs"): Status.OK,
        ("interventional", "chain-cat", "obs"): Status.OK,
        ("interventional", "chain-cat", "obs_int"): Status.OK,
        ("interventional", "chain-cont", "obs"): Status.UNSUPPORTED,  # declares categorical only
    }
    err = rows[("chain", "chain-cat", "obs")].error
    assert err == "method 'chain' declares data types continuous; instance 'chain-cat' is categorical " \
                  "(missing, not a failure)"
    assert rows[("chain_cat", "chain-cat", "obs_int")].error.endswith("does not support interventions "
                                                                       "(obs+int split is missing)")
    assert rows[("interventional", "chain-cont", "obs")].error == (
        "method 'interventional' declares data types categorical; instance 'chain-cont' is continuous "
        "(missing, not a failure)")
    assert summary.failures == 0 and summary.counts == {"ok": 5, "unsupported": 4}
