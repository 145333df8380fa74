"""Issue 12 item 14: the RFF numeric policy and the audit reusing the release gate.

- ``rff`` / ``rff_heteroskedastic`` are evaluated in float32 with element-wise
  operations in fixed row blocks (``mechanisms.rff_features_sum``): a row's
  value depends only on that row — not on the batch, its position, the block
  boundaries or the BLAS thread count (before, a d = 50 table's bytes changed
  with OPENBLAS_NUM_THREADS) — and stays within 1e-5 of the float64 formula.
- ``arena audit`` takes the ten release-gate tables generation has just
  passed instead of sampling and auditing them again.
"""

from __future__ import annotations

import os
import subprocess
import sys

import attrs
import numpy as np
import pytest

from arena_family_synthetic import GENERATOR_VERSION, SEED_VERSION
from arena_family_synthetic import audits as A
from arena_family_synthetic.distributions import RFFHeteroskedasticNoise
from arena_family_synthetic.family import SyntheticFamily, release_gate_cells
from arena_family_synthetic.mechanisms import RFF_BLOCK_ROWS, RandomFourierFeatures


def _pairs(seed=0):
    rng = np.random.default_rng(seed)
    for k in (1, 2, 5, 8):
        yield (k, RandomFourierFeatures(**RandomFourierFeatures.draw(k, rng)),
               RFFHeteroskedasticNoise(**RFFHeteroskedasticNoise.draw(rng, k=k)), rng.normal(size=(700, k)) * 1.5)


def test_rff_rows_do_not_depend_on_the_batch():
    for _k, mech, noise, x in _pairs():
        f, g = mech(x), noise.latent(x)
        assert f.dtype == np.float64 and g.dtype == np.float64
        perm = np.random.default_rng(1).permutation(len(x))
        batches = [slice(0, 1), slice(5, 6), slice(RFF_BLOCK_ROWS - 1, RFF_BLOCK_ROWS + 2),
                   slice(3, 3 + RFF_BLOCK_ROWS), slice(100, 700), slice(699, 700)]
        for sub in batches:
            assert mech(x[sub]).tobytes() == f[sub].tobytes()
            assert noise.latent(x[sub]).tobytes() == g[sub].tobytes()
        assert mech(x[perm]).tobytes() == f[perm].tobytes()
        assert noise.latent(x[perm]).tobytes() == g[perm].tobytes()
        assert mech(np.asfortranarray(x)).tobytes() == f.tobytes()
        stacked = np.vstack([x, x[:3]])
        assert mech(stacked)[-3:].tobytes() == f[:3].tobytes()


def test_rff_close_to_float64():
    for _k, mech, noise, x in _pairs(2):
        exact = np.cos(x @ (mech.frequencies / mech.length_scale) + mech.phases) @ (
            mech.output_scale * np.sqrt(2.0 / mech.phases.size) * mech.amplitudes)
        assert np.max(np.abs(mech(x) - exact)) <= 1e-5 * max(1.0, float(np.std(exact)))
        w = noise.frequencies
        exact_g = noise.output_scale * np.sqrt(2.0 / w.shape[0]) * (
            np.cos(x @ (w.T / noise.length_scale) + np.asarray(noise.phases)) @ np.asarray(noise.coefficients))
        assert np.max(np.abs(noise.latent(x) - exact_g)) <= 1e-5 * max(1.0, float(np.std(exact_g)))


_THREAD_SCRIPT = """
import hashlib, numpy as np
from arena_family_synthetic.mechanisms import RandomFourierFeatures as R
from arena_family_synthetic.distributions import RFFHeteroskedasticNoise as N
rng = np.random.default_rng(11)
h = hashlib.sha256()
for k in (1, 2, 3, 5, 8):
    for n in (1000, 800, 200):
        m = R(**R.draw(k, rng)); z = N(**N.draw(rng, k=k))
        x = rng.normal(size=(n, k)) * 1.5
        h.update(m(x).tobytes()); h.update(z.latent(x).tobytes())
print(h.hexdigest())
"""


def test_rff_bytes_do_not_depend_on_the_blas_thread_count():
    out = set()
    for threads in ("1", "2", "4"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        out.add(subprocess.run([sys.executable, "-c", _THREAD_SCRIPT], env=env, check=True,
                               capture_output=True, text=True).stdout.strip())
    assert len(out) == 1


def test_generator_version_bumped_seeds_kept():
    assert GENERATOR_VERSION == "synthetic@2" and SEED_VERSION == "synthetic@1"
    from arena_family_synthetic import schedule as S

    assert S.config_seed("er-d10-003") == S.config_seed("er-d10-003", version="synthetic@1")


def test_audit_reuses_the_release_gate(monkeypatch):
    fam = SyntheticFamily()
    inst = fam.instance("er-d10-000")
    assert fam.release_gate(inst) == release_gate_cells() and len(release_gate_cells()) == 10
    full = A.audit_instance(inst)
    calls = []
    real = A.audit_cell
    monkeypatch.setattr(A, "audit_cell", lambda *a, **k: calls.append(a[1:4]) or real(*a, **k))
    reused = A.audit_instance(inst, passed=fam.release_gate(inst))
    assert calls == []
    assert reused["reused_tables"] == 10 and full["reused_tables"] == 0
    assert {k: v for k, v in reused.items() if k != "reused_tables"} == \
        {k: v for k, v in full.items() if k != "reused_tables"}
    # a table the gate did not see (another replicate count, protocol or a copy of the spec) is audited
    A.audit_instance(inst, replicates=6, passed=fam.release_gate(inst))
    assert calls == [("synthetic", "obs", 5), ("synthetic", "obs_int", 5)]
    calls.clear()
    A.audit_instance(inst, protocol="fixed_setpoint", passed=fam.release_gate(inst))
    assert len(calls) == 10
    copy = attrs.evolve(inst, spec=attrs.evolve(inst.spec))
    assert fam.release_gate(copy) == []


@pytest.mark.parametrize("jobs", [1])
def test_family_audit_records_reuse(jobs):
    records = SyntheticFamily().audit(["er-d10-000", "sf-d10-001"], jobs=jobs)
    assert [r["reused_tables"] for r in records] == [10, 10]
    assert all(r["passed"] and r["tables"] == 10 for r in records)
