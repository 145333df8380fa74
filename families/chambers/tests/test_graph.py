"""The truth: the package's published graphs, and their restriction to the simulated variables.

Counts from causalchamber 0.2.8's ``ground_truth`` doctests (38 / 57 light tunnel, 32 / 42 wind
tunnel, standard configuration; Gamella et al. 2025, appendix II) and by hand from its edge list.
"""

from __future__ import annotations

import numpy as np
import pytest

from arena_family_chambers import package
from arena_family_chambers.chambers import LT_LEFT_OUT, WT_LEFT_OUT, chamber_spec
from arena_family_chambers.family import SIZES


def test_the_published_graphs_have_the_papers_variable_and_edge_counts():
    lt_names, lt = package.published_graph("lt")
    wt_names, wt = package.published_graph("wt")
    assert (len(lt_names), int(lt.sum())) == (38, 57)
    assert (len(wt_names), int(wt.sum())) == (32, 42)
    # every published graph is a DAG (the pressure-control configuration, with its feedback, is not used)
    for a in (lt, wt):
        reach = a.astype(bool)
        for k in range(a.shape[0]):
            reach |= reach[:, [k]] & reach[[k], :]
        assert not reach.diagonal().any()


@pytest.mark.parametrize("scm_id, chamber, left_out", [("light-tunnel", "lt", LT_LEFT_OUT),
                                                         ("wind-tunnel", "wt", WT_LEFT_OUT)])
def test_kept_and_left_out_variables_partition_the_published_ones(scm_id, chamber, left_out):
    names, _ = package.published_graph(chamber)
    spec = chamber_spec(scm_id)
    assert sorted(spec.names + list(left_out)) == sorted(names)
    assert spec.d == SIZES[scm_id] == len(names) - len(left_out)
    assert spec.metadata["left_out"] == sorted(left_out)


def test_light_tunnel_truth_is_the_published_graph_minus_the_led_and_oversampling_edges():
    # 57 published edges - 12 from the six LEDs (l_ij -> ir_i, vis_i) - 3 from osr_c, osr_angle_1, osr_angle_2
    spec = chamber_spec("light-tunnel")
    assert int(spec.adjacency().sum()) == 57 - 12 - 3 == 42
    assert spec.metadata["n_edges"] == 42 and spec.metadata["n_edges_published"] == 57
    assert spec.metadata["unexpressed_edges"] == []
    # the simulator graph coincides: every kept published edge is read by the simulator
    assert np.array_equal(chamber_spec("light-tunnel", graph="simulator").adjacency(), spec.adjacency())
    parents = {n.name: set(n.parents) for n in spec.nodes}
    assert parents["ir_3"] == {"red", "green", "blue", "pol_1", "pol_2", "diode_ir_3", "t_ir_3"}
    assert parents["current"] == {"red", "green", "blue", "v_c"}
    assert parents["angle_2"] == {"pol_2", "v_angle_2"}


def test_wind_tunnel_truth_published_13_edges_simulator_7():
    spec = chamber_spec("wind-tunnel")
    assert int(spec.adjacency().sum()) == 13
    assert sorted(spec.metadata["unexpressed_edges"]) == sorted([
        "load_out->rpm_in", "hatch->rpm_in", "load_in->rpm_out", "hatch->rpm_out",
        "load_out->current_in", "load_in->current_out"])
    sim = chamber_spec("wind-tunnel", graph="simulator")
    assert int(sim.adjacency().sum()) == 7 and sim.metadata["unexpressed_edges"] == []
    parents = {n.name: set(n.parents) for n in sim.nodes}
    assert parents["rpm_in"] == {"load_in"} and parents["current_out"] == {"load_out"}
    assert parents["pressure_downwind"] == {"load_in", "load_out", "hatch"}


@pytest.mark.parametrize("scm_id, chamber", [("light-tunnel", "lt"), ("wind-tunnel", "wt")])
def test_every_true_edge_is_a_published_edge(scm_id, chamber):
    names, published = package.published_graph(chamber)
    spec = chamber_spec(scm_id)
    a = spec.adjacency()
    for i, j in zip(*np.nonzero(a)):
        assert published[names.index(spec.names[i]), names.index(spec.names[j])] == 1
    # and the restriction keeps every published edge between kept variables
    idx = [names.index(n) for n in spec.names]
    assert np.array_equal(published[np.ix_(idx, idx)], a)


def test_columns_are_not_in_the_packages_causes_first_order():
    spec = chamber_spec("light-tunnel")
    assert spec.names != [v for v in package.ground_truth().variables("lt", "standard") if v in spec.names]
    assert spec.names == chamber_spec("light-tunnel").names  # fixed per id


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown chamber 'lab'"):
        chamber_spec("lab")
    with pytest.raises(ValueError, match="graph must be one of"):
        chamber_spec("wind-tunnel", graph="learned")
    with pytest.raises(ValueError, match="noise must be a positive"):
        chamber_spec("wind-tunnel", noise=0)
