from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo


@hookimpl
def arena_methods():
    yield MethodInfo(name="where_am_i", factory="arena_method_sandbox_fixture.method:WhereAmI",
                     description="0 → 1 when running in its own sandbox, else the empty graph")
    yield MethodInfo(name="sleep_once", factory="arena_method_sandbox_fixture.method:SleepOnce",
                     params={"marker": "", "seconds": 60.0},
                     description="the first fit writes `marker` and sleeps; later fits return the chain")
