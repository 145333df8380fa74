"""Run time: no network request, ``causalchamber.datasets`` never imported, torch never loaded, and
nothing printed by the package's imports (its citation banner and torch warning are captured)."""

from __future__ import annotations

import json

import pytest

from arena_family_chambers.family import ChambersFamily
from arena_testkit.offline import run_offline

NO_NETWORK = r"""
import json, sys
from arena_family_chambers.family import ChambersFamily
fam = ChambersFamily()
shapes = {}
for inst in fam.instances():
    for split in inst.splits:
        shapes[f"{inst.scm_id}/{split}"] = list(inst.dataset(split, 0).X.shape)
    inst.fingerprint()
mods = sorted(m for m in sys.modules if m.startswith("causalchamber"))
print(json.dumps({"attempts": attempts, "shapes": shapes, "modules": mods,
                  "torch": "torch" in sys.modules, "datasets": "causalchamber.datasets" in sys.modules}))
"""


def test_every_table_builds_with_the_network_refused_and_nothing_printed():
    proc = run_offline(NO_NETWORK)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout[:2000]  # the package's banner and warning went nowhere
    out = json.loads(lines[0])
    assert out["attempts"] == [] and out["datasets"] is False and out["torch"] is False
    assert out["shapes"] == {"light-tunnel/obs": [1000, 29], "light-tunnel/obs_int": [1000, 29],
                             "wind-tunnel/obs": [1000, 8], "wind-tunnel/obs_int": [1000, 8]}
    assert "causalchamber.datasets" not in out["modules"] and "causalchamber.lab" not in out["modules"]


def test_an_installed_torch_is_not_imported(tmp_path):
    """A stand-in ``torch`` on the path records any import of it; building the light tunnel must not."""
    fake = tmp_path / "torch"
    fake.mkdir()
    marker = tmp_path / "imported"
    (fake / "__init__.py").write_text("import os\nopen(os.environ['FAKE_TORCH_MARKER'], 'w').close()\n")
    proc = run_offline(NO_NETWORK, extra_path=str(tmp_path), env={"FAKE_TORCH_MARKER": str(marker)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["torch"] is False and not marker.exists()
    # control: the package's own import does reach for it
    control = run_offline("import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
                   "    import causalchamber.simulators.lt\n", extra_path=str(tmp_path),
                   env={"FAKE_TORCH_MARKER": str(marker)})
    assert control.returncode == 0, control.stderr[-2000:]
    assert marker.exists()


def test_listing_builds_nothing_and_matches_the_built_specs():
    fam = ChambersFamily()
    listed = {s.scm_id: s.d for s in fam.listing()}
    assert listed == {"light-tunnel": 29, "wind-tunnel": 8} and fam._instances == {}
    assert {i.scm_id: i.spec.d for i in fam.instances()} == listed


def test_bad_options_are_named():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['nodes'\]"):
        ChambersFamily(nodes=3)
    with pytest.raises(ValueError, match=r"unknown chamber\(s\) \['water-tunnel'\]"):
        ChambersFamily(chambers="wind-tunnel,water-tunnel")
    with pytest.raises(ValueError, match="graph: 'learned' is not one of"):
        ChambersFamily(graph="learned")
    with pytest.raises(ValueError, match="noise: expected a positive number, got 'loud'"):
        ChambersFamily(noise="loud")
    with pytest.raises(KeyError, match="no instance 'lab'"):
        ChambersFamily().instance("lab")
    assert ChambersFamily(chambers="wind-tunnel").ids() == ["wind-tunnel"]
