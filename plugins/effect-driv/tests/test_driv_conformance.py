"""The core's conformance kit (effect rules) on ForestDRIV (linear nuisances and 100 trees keep it fast)."""

from arena_testkit import parametrize_method_checks


@parametrize_method_checks("forest_driv", nuisance_model="linear", n_estimators=100)
def test_conformance(check):
    check()
