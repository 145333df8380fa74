"""The family conformance kit (arena_testkit) over every default instance of the family."""

from arena_testkit import parametrize_family_checks


@parametrize_family_checks("bnlearn")
def test_conformance(check):
    check()
