"""Known answers for the discrete networks: the repository's size figures, CPTs equal to pgmpy's
own BIF reader, sampled marginals equal to pgmpy's exact inference, and hard interventions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arena_family_bnlearn.discrete import BIFFormatError, DiscreteInstance, load_network, parse_bif, sample_codes
from arena_family_bnlearn.family import BnlearnFamily
from arena_family_bnlearn.networks import DEFAULT_MAX_NODES, NETWORKS

DISCRETE = [n for n, net in NETWORKS.items() if net.kind == "discrete"]


def pgmpy_model(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # get_example_model is deprecated in 1.1
        from pgmpy.utils import get_example_model

        return get_example_model(name)


@pytest.mark.parametrize("name", DISCRETE)
def test_nodes_arcs_parameters_match_bnlearns_published_figures(name):
    net, want = load_network(name), NETWORKS[name]
    assert (net.d, int(net.adjacency().sum())) == (want.nodes, want.arcs)
    assert net.n_parameters() == (want.file_parameters or want.parameters)


def test_the_catalogue_has_every_shipped_network_and_the_two_parameter_discrepancies():
    assert len(DISCRETE) == 24 and len(NETWORKS) == 28
    assert {n: (NETWORKS[n].parameters, NETWORKS[n].file_parameters) for n in NETWORKS
            if NETWORKS[n].file_parameters} == {"pathfinder": (77155, 72079), "munin3": (71961, 71059)}
    assert (NETWORKS["alarm"].nodes, NETWORKS["alarm"].arcs, NETWORKS["alarm"].parameters) == (37, 46, 509)


@pytest.mark.parametrize("name", ["asia", "sachs", "child", "alarm", "insurance"])
def test_cpts_equal_pgmpys_bif_reader(name):
    """Every conditional distribution, matched by variable and state names, equals pgmpy's TabularCPD."""
    net, model = load_network(name), pgmpy_model(name)
    assert sorted(model.nodes()) == list(net.names)
    for j, var in enumerate(net.names):
        cpd = model.get_cpds(var)
        evidence = list(cpd.variables[1:])
        ours_parents = [net.names[p] for p in net.parents[j]]
        assert sorted(evidence) == sorted(ours_parents), var
        vals = cpd.values  # (k, *evidence cards), pgmpy's state order
        # reorder states of the variable and of each parent to ours, then parents to our order
        vals = vals[[cpd.state_names[var].index(s) for s in net.states[j]]]
        for axis, p in enumerate(evidence, start=1):
            order = [cpd.state_names[p].index(s) for s in net.states[net.names.index(p)]]
            vals = np.take(vals, order, axis=axis)
        vals = np.transpose(vals, [0] + [1 + evidence.index(p) for p in ours_parents])
        np.testing.assert_allclose(net.cpts[j], vals.reshape(vals.shape[0], -1).T, atol=1e-6, err_msg=var)


@pytest.mark.parametrize("name", ["asia", "child"])
def test_sampled_marginals_match_pgmpys_exact_inference(name):
    """20,000 raw obs rows: every variable's state frequencies within 5 standard errors (plus 1e-3)
    of pgmpy's variable-elimination marginals."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pgmpy 1.1 announces its 1.3 renames on import
        from pgmpy.inference import VariableElimination

    model = pgmpy_model(name)
    ve = VariableElimination(model)
    ds = BnlearnFamily().instance(name).dataset("obs", 0, standardise=False, n=20_000)
    states = ds.metadata["states"]
    n = ds.n
    for j, var in enumerate(ds.columns):
        q = ve.query([var], show_progress=False)
        p = np.array([q.values[q.state_names[var].index(s)] for s in states[var]])
        freq = np.bincount(ds.X[:, j].astype(int), minlength=len(p)) / n
        assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-3), (var, freq, p)


def test_asia_codes_follow_the_file_and_its_deterministic_or():
    """asia's 'either' is the deterministic OR of tub and lung (state 0 = 'yes' in the file)."""
    net = load_network("asia")
    assert net.names == ("asia", "bronc", "dysp", "either", "lung", "smoke", "tub", "xray")
    assert net.states[net.names.index("either")] == ("yes", "no")
    x = BnlearnFamily().instance("asia").dataset("obs", 0, standardise=False, n=5000).X.astype(int)
    e, t, lu = (x[:, net.names.index(v)] for v in ("either", "tub", "lung"))
    assert np.array_equal(e == 0, (t == 0) | (lu == 0))
    assert np.isclose((x[:, net.names.index("smoke")] == 0).mean(), 0.5, atol=0.03)  # P(smoke=yes) = 0.5


def test_a_hard_intervention_sets_the_target_and_cuts_its_parents():
    """asia, one uniform draw: do(lung = yes) sets lung on every row, cuts lung from smoke (lung no
    longer depends on it), leaves the non-descendants bit-identical and turns 'either' to yes."""
    net = load_network("asia")
    rng = np.random.default_rng(0)
    u = rng.random((20_000, net.d))
    base = sample_codes(net, u)
    t = net.names.index("lung")
    mask = np.zeros((u.shape[0], net.d), dtype=bool)
    mask[:, t] = True
    values = np.zeros((u.shape[0], net.d), dtype=np.int64)  # code 0 = "yes"
    do = sample_codes(net, u, mask, values)
    assert (do[:, t] == 0).all()
    desc = {net.names.index(v) for v in ("either", "xray", "dysp")}
    keep = [j for j in range(net.d) if j != t and j not in desc]
    assert np.array_equal(do[:, keep], base[:, keep])
    assert (do[:, net.names.index("either")] == 0).all()
    smoke = base[:, net.names.index("smoke")]
    # observationally P(lung=yes | smoke=yes) = 0.1 vs 0.01: lung depends on smoke; under do it does not
    assert np.isclose((base[smoke == 0, t] == 0).mean(), 0.1, atol=0.01)
    assert np.isclose((base[smoke == 1, t] == 0).mean(), 0.01, atol=0.005)
    assert (do[smoke == 0, t] == do[smoke == 1, t][0]).all()


def test_obs_int_split_sets_each_target_to_uniformly_drawn_states():
    """alarm obs+int at 20,000 rows: 4,000 interventional rows, one pool target per row, balanced
    (counts differ by at most one), each target's set states roughly uniform over its states."""
    inst = BnlearnFamily().instance("alarm")
    ds = inst.dataset("obs_int", 0, standardise=False, n=20_000)
    mask = ds.intervention_mask
    assert ds.metadata["n_obs"] == 16_000 and ds.metadata["n_int"] == 4_000
    assert not mask[:16_000].any() and (mask[16_000:].sum(axis=1) == 1).all()
    pool = [ds.columns.index(v) for v in ds.metadata["target_pool"]]
    assert 4 <= len(pool) <= 8  # the core's App. A.1 pool size for d = 37 (the d = 30 row: 4-8)
    counts = mask[16_000:].sum(axis=0)[pool]
    assert counts.max() - counts.min() <= 1
    card = ds.metadata["cardinalities"]
    for j in pool:
        v = ds.X[16_000:][mask[16_000:, j], j].astype(int)
        freq = np.bincount(v, minlength=card[j]) / v.size
        assert np.abs(freq - 1 / card[j]).max() < 5 * np.sqrt(1 / card[j] / v.size) + 0.01
    assert ds.metadata["data_type"] == "categorical" and inst.data_type == "categorical"
    raw = ds.X
    assert np.array_equal(raw, np.round(raw)) and raw.min() == 0


def test_the_default_selection_is_capped_at_100_nodes_and_options_change_it():
    ids = BnlearnFamily().ids()
    assert ids[:4] == ["ecoli70", "magic-niab", "magic-irri", "arth150"]
    disc = ids[4:]
    assert len(disc) == 14 and all(NETWORKS[n].nodes <= DEFAULT_MAX_NODES for n in disc)
    assert "pathfinder" not in ids and "win95pts" in ids
    assert BnlearnFamily(kind="gaussian").ids() == ids[:4]
    assert BnlearnFamily(kind="discrete", max_nodes=10).ids() == ["asia", "cancer", "earthquake", "survey"]
    assert BnlearnFamily(networks="pathfinder,asia").ids() == ["pathfinder", "asia"]
    assert isinstance(BnlearnFamily().instance("pathfinder"), DiscreteInstance)  # any shipped one by id
    listing = BnlearnFamily().listing()
    assert [(s.scm_id, s.d) for s in listing][:5] == [("ecoli70", 46), ("magic-niab", 44), ("magic-irri", 64),
                                                       ("arth150", 107), ("asia", 8)]


@pytest.mark.parametrize("options, message", [
    ({"kind": "mixed"}, "option kind: 'mixed' is not one of"),
    ({"networks": "asia,nosuch"}, r"unknown network\(s\) \['nosuch'\]"),
    ({"max_nodes": "zero"}, "max_nodes: expected a positive integer"),
    ({"colour": 1}, r"unknown option\(s\) \['colour'\]"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        BnlearnFamily(**options)


@pytest.mark.parametrize("text, message", [
    ("variable a { type discrete [ 2 ] { x, y }; }\nprobability ( a ) { table 0.5, 0.4; }",
     r"probability \( a \): probabilities sum to 0.9"),
    ("variable a { type discrete [ 2 ] { x, y }; }\nvariable b { type discrete [ 2 ] { x, y }; }\n"
     "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { (x) 0.5, 0.5; }",
     r"probability \( b \| a \): 1 of 2 parent configurations have no row"),
    ("variable a { type discrete [ 2 ] { x, y }; }\nprobability ( a | c ) { (x) 0.5, 0.5; }",
     "unknown variable 'c'"),
    ("variable a { type discrete [ 2 ] { x, y }; }\nvariable b { type discrete [ 2 ] { x, y }; }\n"
     "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { (z) 0.5, 0.5; (y) 0.5, 0.5; }",
     "unknown state 'z' of parent 'a'"),
    ("variable a { type discrete [ 2 ] { x, y }; }", r"no probability block for variable\(s\) \['a'\]"),
])
def test_bad_bif_is_named_with_file_and_variable(text, message):
    with pytest.raises(BIFFormatError, match=message) as err:
        parse_bif(text, "toy", "toy.bif")
    assert str(err.value).startswith("toy.bif")
