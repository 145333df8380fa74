"""The method-plugin template renders, installs and passes the conformance kit;
the kit itself rejects broken methods (each rule has a method that breaks it).

Run by tox env ``template``. The rendered distribution is pip-installed into
the current interpreter (``--no-deps --no-build-isolation``: no network, the
core is already installed) and uninstalled afterwards; its tests run in a
subprocess so entry points are read afresh.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from arena_testkit import (
    ConformanceError,
    check_descriptor_cheap,
    check_deterministic,
    check_fit_output,
    check_get_params,
    check_ignores_true_adjacency,
    check_method,
    make_chain_dataset,
    make_linear_dataset,
    method_checks,
)
from causalarena.records import MethodInfo

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "contrib" / "method-template"
NAME = "template_demo"
DIST = "arena-method-template-demo"


def _load_render():
    spec = importlib.util.spec_from_file_location("_arena_template_render", TEMPLATE / "render.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pip(*args):
    return subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    if importlib.util.find_spec("setuptools") is None:
        raise AssertionError("the template test builds with --no-build-isolation: setuptools must be "
                             "installed in this environment (add it to the tox env's deps)")
    if _pip("show", DIST).returncode == 0:
        raise AssertionError(f"{DIST} is already installed; uninstall it before running this test")
    out = _load_render().render(NAME, tmp_path_factory.mktemp("tpl") / DIST)
    proc = _pip("install", "--no-deps", "--no-build-isolation", "-q", str(out))
    assert proc.returncode == 0, f"pip install of the rendered template failed:\n{proc.stdout}\n{proc.stderr}"
    yield out
    proc = _pip("uninstall", "-y", DIST)
    assert proc.returncode == 0, proc.stderr


def test_render_substitutes_every_placeholder(tmp_path):
    out = _load_render().render("my_method", tmp_path / "o")
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [
        "README.md", "pyproject.toml", "src/arena_method_my_method/__init__.py",
        "src/arena_method_my_method/method.py", "src/arena_method_my_method/plugin.py",
        "tests/test_my_method.py",
    ]
    for path in out.rglob("*"):
        if path.is_file():
            assert "$" not in path.read_text(), f"unsubstituted placeholder in {path}"
    pyproject = (out / "pyproject.toml").read_text()
    assert 'name = "arena-method-my-method"' in pyproject
    assert 'my_method = "arena_method_my_method.plugin"' in pyproject
    assert "class MyMethod(Method)" in (out / "src/arena_method_my_method/method.py").read_text()


def test_render_rejects_bad_names_and_non_empty_dirs(tmp_path):
    render = _load_render()
    with pytest.raises(ValueError, match="lower case"):
        render.render("My-Method", tmp_path / "a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x").write_text("")
    with pytest.raises(FileExistsError):
        render.render("ok_name", tmp_path / "b")


def test_rendered_plugin_is_registered_with_distribution_and_version(rendered):
    code = ("from causalarena.plugins import get_registry\n"
            f"r = get_registry(strict=True).method({NAME!r})\n"
            "print(r.distribution, r.version, r.output_kind)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [DIST, "0.1.0", "dag"]


def test_rendered_plugin_passes_its_own_tests(rendered):
    # 7 conformance checks + 2 known-answer tests, in a fresh interpreter
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(rendered / "tests"), "-q", "-p", "no:cacheprovider",
         "--rootdir", str(rendered)],
        capture_output=True, text=True, cwd=rendered,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    n_checks = len(list(method_checks(NAME)))
    assert f"{n_checks + 2} passed" in proc.stdout, proc.stdout[-2000:]


# ---------------------------------------------------------------------------
# The kit rejects broken methods. MethodInfo records point at classes in a
# throwaway module; no installation needed for the behavioural checks.
# ---------------------------------------------------------------------------

BROKEN = '''
import numpy as np
from causalarena.method import Method


class Good(Method):
    output_kind = "dag"

    def __init__(self, threshold=0.3):
        self.threshold = threshold

    def fit(self, dataset):
        c = np.abs(np.corrcoef(dataset.X, rowvar=False))
        self.adjacency_ = (np.triu(c, k=1) > self.threshold).astype(np.int8)
        return self


class TwoCycle(Good):
    def fit(self, dataset):
        super().fit(dataset)
        self.adjacency_ = self.adjacency_ | self.adjacency_.T   # both directions set
        return self


class Cyclic(Good):
    def fit(self, dataset):
        d = dataset.d
        self.adjacency_ = np.roll(np.eye(d, dtype=np.int8), 1, axis=1)   # 0->1->...->d-1->0
        return self


class Weighted(Good):
    def fit(self, dataset):
        super().fit(dataset)
        self.adjacency_ = self.adjacency_ * 0.7                 # weights, not 0/1
        return self


class NotSelf(Good):
    def fit(self, dataset):
        super().fit(dataset)
        return self.adjacency_


class Mutates(Good):
    def fit(self, dataset):
        dataset.X -= dataset.X.mean(axis=0)                     # centres in place
        return super().fit(dataset)


class NanScores(Good):
    def fit(self, dataset):
        super().fit(dataset)
        self.edge_scores_ = np.full((dataset.d, dataset.d), np.nan)
        return self


class Random(Good):
    def fit(self, dataset):
        S = np.triu(np.random.rand(dataset.d, dataset.d), k=1)        # unseeded randomness
        self.adjacency_ = (S > 0.5).astype(np.int8)
        self.edge_scores_ = S
        return self


class Cheats(Good):
    def fit(self, dataset):
        super().fit(dataset)
        if dataset.true_adjacency is not None:
            self.adjacency_ = np.asarray(dataset.true_adjacency, dtype=np.int8)
        return self


class CopiesParam(Good):
    def __init__(self, threshold=0.3):
        self.threshold = float(threshold) + 0.0 if threshold is not None else None


class Cpdag(Good):
    output_kind = "cpdag"


class Stateful(Good):
    def __init__(self, threshold=0.3):
        self.threshold = threshold
        self._seen = 0

    def fit(self, dataset):
        self._seen += 1                                         # remembers earlier fits
        super().fit(dataset)
        if self._seen > 1:
            self.adjacency_ = np.zeros_like(self.adjacency_)
        return self
'''


@pytest.fixture
def broken(tmp_path, monkeypatch):
    (tmp_path / "arena_kit_broken.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("arena_kit_broken", None)
    yield lambda cls, **kw: MethodInfo(name=cls.lower(), factory=f"arena_kit_broken:{cls}", **kw)
    sys.modules.pop("arena_kit_broken", None)


def test_kit_accepts_a_good_method(broken):
    info = broken("Good", params={"threshold": 0.3})
    for check in (check_get_params, check_fit_output, check_deterministic, check_ignores_true_adjacency):
        check(info, {})


@pytest.mark.parametrize("cls, message", [
    ("TwoCycle", "2-cycle 0 <-> 1"),
    ("Cyclic", "directed cycle"),
    ("Weighted", r"only 0/1 .*0\.7"),
    ("NotSelf", "must return self"),
    ("Mutates", "modified dataset.X in place"),
    ("NanScores", "non-finite"),
    ("Cpdag", "prediction\\(\\).kind is 'cpdag'"),
])
def test_kit_rejects_bad_output(broken, cls, message):
    with pytest.raises(ConformanceError, match=message) as err:
        check_fit_output(broken(cls), {})
    assert f"method {cls.lower()!r}" in str(err.value)  # the failure names the method


def test_kit_rejects_nondeterminism(broken):
    np.random.seed(0)
    with pytest.raises(ConformanceError, match="same metadata\\['seed'\\]"):
        check_deterministic(broken("Random"), {})


def test_kit_rejects_state_kept_between_fits(broken):
    from arena_testkit import check_refit_independent

    with pytest.raises(ConformanceError, match="depends on an earlier fit"):
        check_refit_independent(broken("Stateful"), {})
    check_refit_independent(broken("Good"), {})


def test_kit_does_not_accuse_a_random_method_of_reading_the_truth(broken):
    # under pytest the check is skipped with a reason; it must not raise ConformanceError
    with pytest.raises(pytest.skip.Exception, match="not deterministic"):
        check_ignores_true_adjacency(broken("Random"), {})


def test_kit_rejects_reading_the_truth(broken):
    with pytest.raises(ConformanceError, match="true_adjacency"):
        check_ignores_true_adjacency(broken("Cheats"), {})


def test_kit_rejects_params_not_stored_unchanged(broken):
    with pytest.raises(ConformanceError, match="unchanged"):
        check_get_params(broken("CopiesParam"), {"threshold": 0.5})


def test_kit_rejects_descriptor_default_mismatch(broken):
    with pytest.raises(ConformanceError, match="differs from the constructor default"):
        check_get_params(broken("Good", params={"threshold": 0.9}), {})


def test_kit_rejects_unregistered_name():
    with pytest.raises(KeyError, match="no_such_method_xyz"):
        check_method("no_such_method_xyz")


def test_kit_rejects_heavy_descriptor(tmp_path, monkeypatch):
    # A distribution whose descriptor module imports scikit-learn at import time.
    root = tmp_path / "site"
    info_dir = root / "arena_method_heavy_demo-0.1.0.dist-info"
    info_dir.mkdir(parents=True)
    (info_dir / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-method-heavy-demo\nVersion: 0.1.0\n")
    (info_dir / "entry_points.txt").write_text("[causalarena]\nheavy_demo = arena_heavy_demo_plugin\n")
    (root / "arena_heavy_demo_plugin.py").write_text(textwrap.dedent('''
        import sklearn.linear_model  # heavy import at descriptor time: forbidden
        from causalarena.hookspecs import hookimpl
        from causalarena.records import MethodInfo

        @hookimpl
        def arena_methods():
            yield MethodInfo(name="heavy_demo", factory="x:Y")
    '''))
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", str(root))
    info = MethodInfo(name="heavy_demo", factory="x:Y", distribution="arena-method-heavy-demo", version="0.1.0")
    with pytest.raises(ConformanceError, match=r"imported heavy module\(s\) \['sklearn'\]"):
        check_descriptor_cheap(info, {})


def test_make_linear_dataset_known_values():
    ds = make_chain_dataset(d=3, n=20000, seed=5)
    # Var(X_j) = j + 1 for the unit-weight chain with unit-variance noise
    np.testing.assert_allclose(ds.X.var(axis=0), [1, 2, 3], rtol=0.05)
    assert ds.true_adjacency.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert ds.metadata["seed"] == 5 and ds.metadata["split"] == "obs"
    # byte-identical for the same seed
    assert make_chain_dataset(d=3, n=50, seed=5).X.tobytes() == make_chain_dataset(d=3, n=50, seed=5).X.tobytes()
    # interventional rows: do(X_t) cuts the parents (X1 independent of X0 on do(X1) rows)
    di = make_chain_dataset(d=3, n=3000, seed=1, n_int=3000)
    rows = di.regime == 1
    assert di.intervention_mask[rows, 1].all() and not di.intervention_mask[rows][:, [0, 2]].any()
    assert abs(np.corrcoef(di.X[rows, 0], di.X[rows, 1])[0, 1]) < 0.06
    assert di.metadata["split"] == "obs_int"
    with pytest.raises(ValueError, match="not acyclic"):
        make_linear_dataset(np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match="noise must be one of"):
        make_chain_dataset(noise="cauchy")
