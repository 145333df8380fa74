"""The family conformance kit (arena_testkit) over both chambers, and over the simulator graph."""

from arena_testkit import parametrize_family_checks


@parametrize_family_checks("chambers")
def test_conformance(check):
    check()


@parametrize_family_checks("chambers", graph="simulator", noise=0.05)
def test_conformance_simulator_graph(check):
    check()
