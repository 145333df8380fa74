"""The core's conformance kit (effect rules) on one learner per backbone family."""

from arena_testkit import parametrize_method_checks


@parametrize_method_checks("s_learner_xgboost", "x_learner_extratrees", "dr_learner_extratrees")
def test_conformance(check):
    check()
