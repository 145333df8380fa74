"""The core's conformance kit (effect rules) on the conditional Wald estimator."""

from arena_testkit import parametrize_method_checks


@parametrize_method_checks("wald_xgboost", "wald_extratrees")
def test_conformance(check):
    check()
