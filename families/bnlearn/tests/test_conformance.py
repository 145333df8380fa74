"""The family conformance kit (causalarena.testing) over every default instance of the family."""

from causalarena.testing import parametrize_family_checks


@parametrize_family_checks("bnlearn")
def test_conformance(check):
    check()
