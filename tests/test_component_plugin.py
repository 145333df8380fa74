"""A third party adds SCM components by installing a distribution (issue 11, item 1).

The test writes a throwaway distribution into ``tmp_path`` (``pyproject.toml``
and one module whose ``@hookimpl def arena_components()`` yields a
``softplus`` mechanism and a ``scaled_logistic`` noise), ``pip install``s it
into this interpreter's environment, and samples, in a fresh process, a spec
that uses both: the noiseless softplus node equals ``log(1 + exp(w·a + b))``
to the last bit, the logistic noise has mean 0 and standard deviation
``scale·π/√3``. After ``pip uninstall`` the same process fails with the
clear error naming the component, the node and what is installed.

The distribution builds with a 40-line in-tree PEP 517 backend
(``backend-path``), so the install needs neither the network nor
``setuptools``/``wheel`` (``--no-index --no-build-isolation``).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap

DIST = "throwaway-arena-components"
MODULE = "throwaway_arena_components"

PYPROJECT = f"""\
[build-system]
requires = []
build-backend = "wheel_backend"
backend-path = ["."]

[project]
name = "{DIST}"
version = "0.1.0"
description = "throwaway test distribution: a softplus mechanism and a scaled-logistic noise"
dependencies = ["causal-arena"]

[project.entry-points.causalarena]
throwaway = "{MODULE}"
"""

# A minimal PEP 517 backend: a pure-Python wheel of the one module, its metadata and entry points.
BACKEND = f'''\
import base64
import hashlib
import zipfile
from pathlib import Path

NAME, VERSION, MODULE = "{DIST}", "0.1.0", "{MODULE}"
ENTRY_POINTS = "[causalarena]\\nthrowaway = {MODULE}\\n"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{{path}},sha256={{digest}},{{len(data)}}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = NAME.replace("-", "_")
    info = f"{{dist}}-{{VERSION}}.dist-info"
    files = {{
        f"{{MODULE}}.py": Path(f"{{MODULE}}.py").read_bytes(),
        f"{{info}}/METADATA": f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n"
                             "Requires-Dist: causal-arena\\n".encode(),
        f"{{info}}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: wheel_backend\\nRoot-Is-Purelib: true\\n"
                          b"Tag: py3-none-any\\n",
        f"{{info}}/entry_points.txt": ENTRY_POINTS.encode(),
    }}
    record = "\\n".join([_record_line(p, d) for p, d in files.items()] + [f"{{info}}/RECORD,,"]) + "\\n"
    name = f"{{dist}}-{{VERSION}}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / name, "w") as whl:
        for path, data in files.items():
            whl.writestr(path, data)
        whl.writestr(f"{{info}}/RECORD", record)
    return name
'''

COMPONENTS = '''\
"""Throwaway components: softplus mechanism, scaled-logistic noise."""

import numpy as np

from causalarena.hookspecs import hookimpl
from causalarena.records import ComponentInfo
from causalarena.scm import Mechanism, Noise


class Softplus(Mechanism):
    """f(x) = log(1 + exp(w·x + b))."""

    kind = "softplus"
    parameters = ("weights", "bias")

    def __call__(self, parents):
        return np.logaddexp(0.0, parents @ self.weights + self.bias)

    @classmethod
    def draw(cls, k, rng):
        return {"weights": rng.uniform(0.5, 1.5, size=k).tolist(), "bias": 0.0}


class ScaledLogistic(Noise):
    """Additive scale·Logistic(0, 1): mean 0, sd scale·π/√3."""

    kind = "scaled_logistic"
    parameters = ("scale",)

    def validate(self):
        self._require("scale")
        self._positive("scale")

    def sample(self, n, rng):
        return self.scale * rng.logistic(0.0, 1.0, size=n)

    @classmethod
    def draw(cls, rng, k=None):
        return {"scale": 0.5}


@hookimpl
def arena_components():
    yield ComponentInfo(kind="mechanism", name="softplus", factory=f"{__name__}:Softplus",
                        description="log(1 + exp(w.x + b))")
    yield ComponentInfo(kind="noise", name="scaled_logistic", factory=f"{__name__}:ScaledLogistic",
                        description="additive scale * Logistic(0, 1)")
'''

# Runs in a fresh process (the installed distributions are read at start): compile, sample, report.
SAMPLE = textwrap.dedent('''\
    import json, sys
    import numpy as np
    from causalarena.plugins import UnknownComponentError
    from causalarena.scm import SCMSpec

    spec = {
        "id": "throwaway",
        "nodes": [
            {"name": "A", "role": "root", "root_distribution": {"kind": "gaussian", "params": {"loc": 0.0, "scale": 1.0}}},
            {"name": "B", "parents": ["A"], "mechanism": {"kind": "softplus", "params": {"weights": [1.5], "bias": -0.25}},
             "noise": None},
            {"name": "C", "parents": ["A"], "mechanism": {"kind": "linear", "params": {"weights": [0.0], "bias": 0.0}},
             "noise": {"kind": "scaled_logistic", "params": {"scale": 0.5}}},
        ],
    }
    try:
        scm = SCMSpec.from_dict(spec).compile()
    except UnknownComponentError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(3)
    x = scm.sample(200_000, np.random.default_rng(7))
    exact = bool(np.array_equal(x[:, 1], np.logaddexp(0.0, 1.5 * x[:, 0] - 0.25)))
    print(json.dumps({"exact": exact, "c_mean": float(x[:, 2].mean()), "c_sd": float(x[:, 2].std()),
                      "n": int(x.shape[0])}))
''')


def _pip(*args):
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)


def _sample():
    return subprocess.run([sys.executable, "-c", SAMPLE], capture_output=True, text=True)


def test_installed_distribution_adds_a_mechanism_and_a_noise_and_uninstalling_it_names_them(tmp_path):
    src = tmp_path / "throwaway"
    src.mkdir()
    (src / "pyproject.toml").write_text(PYPROJECT)
    (src / "wheel_backend.py").write_text(BACKEND)
    (src / f"{MODULE}.py").write_text(COMPONENTS)
    try:
        proc = _pip("install", "--no-deps", "--no-build-isolation", "--no-index", "-q", str(src))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        run = _sample()
        assert run.returncode == 0, run.stderr
        out = json.loads(run.stdout)
        # the noiseless node is the softplus of its parent, bit for bit
        assert out["exact"] is True
        # logistic noise: mean 0, sd 0.5·π/√3 ≈ 0.9069; within 5 standard errors at n = 200,000
        sd = 0.5 * math.pi / math.sqrt(3)
        assert abs(out["c_mean"]) < 5 * sd / math.sqrt(out["n"])
        # se of the sd ≈ sd·√((κ − 1)/(4n)), logistic kurtosis κ = 4.2
        assert abs(out["c_sd"] - sd) < 5 * sd * math.sqrt(3.2 / (4 * out["n"]))

        proc = _pip("uninstall", "-y", DIST)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        run = _sample()
        assert run.returncode == 3, run.stdout + run.stderr
        msg = run.stderr.strip()
        assert msg.startswith("UnknownComponentSpecError: mechanism 'softplus' (SCM 'throwaway', node 'B'.mechanism) "
                              "is not provided by any installed distribution; installed: "), msg
        assert "linear" in msg.split("installed: ")[1]
    finally:
        _pip("uninstall", "-y", DIST)
