"""The family conformance kit (causalarena.testing) over both chambers, and over the simulator graph."""

from causalarena.testing import parametrize_family_checks


@parametrize_family_checks("chambers")
def test_conformance(check):
    check()


@parametrize_family_checks("chambers", graph="simulator", noise=0.05)
def test_conformance_simulator_graph(check):
    check()
