"""The family conformance kit (arena_testkit) over the 10-gene instances (one E. coli, one
yeast subnetwork): the kit builds every cell several times and a 100-gene table takes ~25 s of
SERGIO, so the larger default sizes are covered by test_sergio.py's shape checks instead."""

from arena_testkit import parametrize_family_checks


@parametrize_family_checks("grn", sizes="10")
def test_conformance(check):
    check()
