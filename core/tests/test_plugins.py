"""Plugin manager facade and hook contract meta-tests (core alone)."""

from __future__ import annotations

import inspect
import pathlib
import types

import pytest

from causalarena import hookspecs
from causalarena.hookspecs import hookimpl
from causalarena.plugins import DEFAULT_PLUGINS, DuplicatePluginError, PluginError, PluginLoadError, get_registry
from causalarena.records import (
    AnalysisInfo,
    CommandInfo,
    ComponentInfo,
    FamilyInfo,
    InterventionInfo,
    MethodInfo,
    MetricInfo,
)

HOOKS = [name for name, obj in vars(hookspecs).items() if name.startswith("arena_") and callable(obj)]


def _plugin(name, **hooks):
    mod = types.ModuleType(name)
    for hook, fn in hooks.items():
        setattr(mod, hook, hookimpl(fn))
    mod.__distribution__ = f"dist-{name}"
    return mod


def test_every_hook_has_the_prefix_and_a_contract_docstring():
    assert sorted(HOOKS) == ["arena_addoption", "arena_analyses", "arena_cell_stored", "arena_commands", "arena_components", "arena_executors", "arena_families", "arena_interventions", "arena_isolation_backends", "arena_methods", "arena_metrics", "arena_reports", "arena_run_end", "arena_run_start", "arena_tasks"]
    for name in HOOKS:
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        assert "Returns:" in doc and len(doc.splitlines()) >= 5, f"{name} lacks a contract docstring"


def test_every_hook_is_exercised_by_a_test():
    here = pathlib.Path(__file__).parent
    text = "\n".join(p.read_text() for p in here.glob("test_*.py"))
    for name in HOOKS:
        assert f"{name}=" in text or f"def {name}(" in text, f"no test registers a plugin for {name}"


def test_builtins_come_through_the_same_hooks():
    reg = get_registry(strict=True)
    assert DEFAULT_PLUGINS == ("causalarena.metrics", "causalarena.interventions", "causalarena.components",
                               "causalarena.commands", "causalarena.tasks")
    assert reg.intervention("default").distribution == "causal-arena"
    assert {"f1", "shd", "nshd", "sid", "auroc", "ap", "precision", "recall"} <= set(reg.metrics)
    assert all(m.distribution == "causal-arena" for m in reg.metrics.values() if m.task == "discovery")


def test_extra_plugin_records_are_typed_and_named():
    plugin = _plugin(
        "p1",
        arena_methods=lambda: [MethodInfo(name="toy", factory="x:Y", output_kind="cpdag")],
        arena_families=lambda: [FamilyInfo(name="toyfam", factory="x:F")],
        arena_interventions=lambda: [InterventionInfo(name="toyint", factory="x:f")],
        arena_metrics=lambda: [MetricInfo(name="toymetric", factory="x:m")],
    )
    reg = get_registry(strict=True, extra_plugins=[plugin])
    assert reg.method("toy").distribution == "dist-p1"
    assert reg.family("toyfam").name == "toyfam"
    assert reg.intervention("toyint").n_obs == 800 and reg.intervention("toyint").n_int == 200
    assert "toymetric" in reg.metrics
    with pytest.raises(KeyError, match="unknown method 'nope'; installed: .*toy"):
        reg.method("nope")


def test_duplicate_names_name_both_distributions():
    plugin = _plugin("p2", arena_metrics=lambda: [MetricInfo(name="f1", factory="x:m")])
    from importlib.metadata import version

    core = f"causal-arena {version('causal-arena')}".replace(".", r"\.")
    with pytest.raises(DuplicatePluginError, match=f"'f1' is provided by both {core} and dist-p2"):
        get_registry(strict=True, extra_plugins=[plugin])


def test_wrong_record_type_is_an_error_naming_the_plugin():
    plugin = _plugin("p3", arena_methods=lambda: [{"name": "pc"}])
    with pytest.raises(PluginError, match="dist-p3: arena_methods\\(\\) yielded dict, expected MethodInfo"):
        get_registry(strict=True, extra_plugins=[plugin])


def test_a_raising_hook_is_reported_or_strict_error():
    def boom():
        raise RuntimeError("no licence file")

    plugin = _plugin("p4", arena_families=boom)
    reg = get_registry(strict=False, extra_plugins=[plugin])
    assert any("no licence file" in e.error and e.distribution == "dist-p4" for e in reg.errors)
    with pytest.raises(PluginLoadError, match="dist-p4"):
        get_registry(strict=True, extra_plugins=[plugin])


@pytest.mark.parametrize("kwargs,message", [
    ({"name": "", "factory": "x:Y"}, "non-empty identifier"),
    ({"name": "bad name", "factory": "x:Y"}, "non-empty identifier"),
])
def test_record_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MethodInfo(**kwargs)


def test_package_version_matches_the_distribution_metadata():
    from importlib.metadata import version

    import causalarena

    assert causalarena.__version__ == version("causal-arena")


def test_misspelled_hook_is_reported_with_plugin_and_distribution():
    bad = _plugin("typo", arena_method=lambda: [MethodInfo(name="lost", factory="x:Y")])
    reg = get_registry(strict=False, extra_plugins=[bad])
    assert "lost" not in reg.methods
    [err] = [e for e in reg.errors if e.distribution == "dist-typo"]
    assert "unknown hook 'arena_method'" in err.error and "did you mean 'arena_methods'" in err.error
    with pytest.raises(PluginLoadError, match="dist-typo.*arena_method"):
        get_registry(strict=True, extra_plugins=[bad])


def test_unmarked_hook_function_is_reported():
    mod = types.ModuleType("unmarked")
    mod.arena_methods = lambda: [MethodInfo(name="ignored", factory="x:Y")]  # no @hookimpl
    mod.__distribution__ = "dist-unmarked"
    reg = get_registry(strict=False, extra_plugins=[mod])
    assert "ignored" not in reg.methods
    assert any("not marked @hookimpl" in e.error and e.distribution == "dist-unmarked" for e in reg.errors)


def test_components_and_commands_come_through_hooks_keyed_by_kind():
    plugin = _plugin(
        "c1",
        arena_components=lambda: [ComponentInfo(kind="mechanism", name="toy_mech", factory="x:M"),
                                  ComponentInfo(kind="noise", name="toy_mech", factory="x:N")],
        arena_commands=lambda: [CommandInfo(name="toycmd", factory="x", help="a toy")],
    )
    reg = get_registry(strict=True, extra_plugins=[plugin])
    assert reg.component("mechanism", "toy_mech").factory == "x:M"
    assert reg.component("noise", "toy_mech").distribution == "dist-c1"
    assert reg.commands["toycmd"].help == "a toy"


def test_duplicate_component_names_both_distributions():
    a = _plugin("ca", arena_components=lambda: [ComponentInfo(kind="noise", name="dup", factory="x:A")])
    b = _plugin("cb", arena_components=lambda: [ComponentInfo(kind="noise", name="dup", factory="x:B")])
    with pytest.raises(DuplicatePluginError, match="noise name 'dup' is provided by both dist-ca 0 and dist-cb 0"):
        get_registry(strict=True, extra_plugins=[a, b])


def test_unknown_component_names_component_place_and_provider():
    from causalarena.plugins import UnknownComponentError

    reg = get_registry(strict=True)
    with pytest.raises(UnknownComponentError) as info:
        reg.component("mechanism", "lineer", where="node 'X3'")
    msg = str(info.value)
    assert "mechanism 'lineer' (node 'X3') is not provided" in msg and "did you mean 'linear'" in msg
    reg_without = get_registry(strict=True)
    reg_without.components = {k: v for k, v in reg_without.components.items() if v.name != "periodic"}
    with pytest.raises(UnknownComponentError, match="ships with arena-family-synthetic"):
        reg_without.component("mechanism", "periodic")


def test_analyses_are_records_listed_with_their_distribution_and_duplicates_name_both():
    """arena_analyses: an AnalysisInfo per analysis, attributed to its distribution; one name twice is an error."""
    one = _plugin("a1", arena_analyses=lambda: [
        AnalysisInfo(name="edge_count", factory="x:f", help="mean predicted edges", order=5,
                     tables=["edge_count"], section="Tables")])
    reg = get_registry(strict=True, extra_plugins=[one])
    rec = reg.analyses["edge_count"]
    assert (rec.distribution, rec.task, rec.order, rec.tables, rec.figures) == ("dist-a1", "discovery", 5,
                                                                               ("edge_count",), ())
    rows = [r for r in reg.as_rows() if r["name"] == "edge_count"]
    assert rows == [{"kind": "analysis", "name": "edge_count", "distribution": "dist-a1", "version": "0",
                     "description": "mean predicted edges"}]
    two = _plugin("a2", arena_analyses=lambda: [AnalysisInfo(name="edge_count", factory="y:g")])
    with pytest.raises(DuplicatePluginError, match="analysis name 'edge_count' is provided by both dist-a1 0 and "
                                                   "dist-a2 0"):
        get_registry(strict=True, extra_plugins=[one, two])
    with pytest.raises(ValueError, match="AnalysisInfo.name 'a b' must be a non-empty identifier"):
        AnalysisInfo(name="a b", factory="x:f")


def test_a_command_lists_its_help_as_its_description():
    rows = [r for r in get_registry(strict=False).as_rows() if r["kind"] == "command"]
    run = next(r for r in rows if r["name"] == "run")
    assert run["description"] == "run the grid (resumes), print and write the leaderboard"
    assert all(r["description"] for r in rows if r["distribution"] == "causal-arena")
