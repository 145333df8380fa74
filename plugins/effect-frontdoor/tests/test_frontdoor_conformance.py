"""The core's conformance kit (effect rules) on the front-door plug-in."""

from arena_testkit import parametrize_method_checks


@parametrize_method_checks("frontdoor_xgboost")
def test_conformance(check):
    check()
