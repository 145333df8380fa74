"""The core's conformance kit (effect rules) on the P-learner (3 folds keep it fast)."""

from arena_testkit import parametrize_method_checks


@parametrize_method_checks("plearner_extratrees", folds=3)
def test_conformance(check):
    check()
