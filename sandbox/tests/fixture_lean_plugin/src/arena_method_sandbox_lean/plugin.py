from causalarena.hookspecs import hookimpl
from causalarena.records import MethodInfo


@hookimpl
def arena_methods():
    yield MethodInfo(name="lean_probe", factory="arena_method_sandbox_lean.method:LeanProbe",
                     description="0 → 1 iff fixture_heavy imports (it was installed without its dependencies)")
