"""Every benchmark script once in ``--quick`` mode (issue 21: the benchmarks rotted unseen).

Each script in this folder runs in a fresh interpreter with ``--quick`` (few
repeats, small sizes, no timing target asserted) and must exit 0 and print the
figures it exists for; the values asserted are the ones a quick run computes
exactly (seeded pairs, counts of cells, runs and tables), never a timing. A
script added to this folder without an entry in :data:`EXPECTED` fails
:func:`test_every_script_has_a_quick_run`.

Run by ``tox -e bench-quick`` (label ``ci``), which installs what the scripts
import (the sandbox, the diagnosis report, the synthetic, card and formula /
semantic families, the Dask executor); not collected by the ``integration`` env
(``--ignore tests/benchmarks``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: script -> patterns its --quick output must contain (re.MULTILINE): exact values of the quick sizes
EXPECTED = {
    "bench_metrics.py": [
        # the seeded d = 20 pairs: the 11 core discovery metrics, none of the effect ones (spehe2 crashed here)
        r"^metrics d=20, noisy estimate: compute_metrics \(11 metrics\)",
        r"values: precision=0\.375, recall=0\.3158, f1=0\.3429, fdr=0\.625, shd=28, nshd=0\.07368, sid=294, "
        r"auroc=0\.6222, ap=0\.2081, n_edges=32, shd_cdt=46$",
        r"values: precision=1, recall=0\.9524, f1=0\.9756, fdr=0, shd=2, nshd=0\.005263, sid=18, auroc=0\.9781, "
        r"ap=0\.9652, n_edges=40, shd_cdt=2$",
        r"each metric alone \(ms\): precision [\d.]+, recall .*, n_edges [\d.]+, shd_cdt [\d.]+$",
    ],
    # every 10th shipped card: the count grows with the pools (issue 23)
    "bench_cards.py": [r"^\d+ cards\. Validate \(static gates\) \+ compile \+ sample n=1000",
                       r"^reference, same process: core sampler .* \(d=21, 31 edges\)"],
    "bench_docker.py": [r"^backend +first result s +per cell s +\(1 repeats, 3 cells\)$",
                        r"^docker +[\d.]+ +[\d.-]+$",
                        r"^first result: docker/venv [\d.]+, docker/none [\d.]+$"],
    "bench_dask.py": [r"^CPU-bound grid, 4 cells of ~0\.2 CPU-s: 1 Dask worker [\d.]+ s, 2 workers [\d.]+ s",
                      r"^trivial cells, 20: Dask path \(1 worker\)"],
    "bench_generation.py": [r"same bytes: True",
                            r"^pool: 5 configurations, 50 tables, 2 processes: .* 5 pass; .* generation errors 0$"],
    "bench_overhead.py": [r"^CausalArena orchestration overhead: 20 cells, n = 1000, d = 10",
                          r"warm worker, whole cell .* cells=  20 ", r"fresh interpreter per run +cells=   3 "],
    "bench_report.py": [r"^built .*arena\.sqlite \(1,000 runs\)", r"^runs 1,000; reference",
                        r"^full arena report \(every analysis, figures, index\.html\) [\d.]+ s",
                        r"^d = 100 prediction: adjacency blob \d+ bytes"],
    "bench_sandbox.py": [r"^quick mode: the venv backend only", r"^20 cells, n = 1000, d = 3",
                         r"sandboxed \(venv backend\) \[venv:.*n=  20 "],
    "fault_grid.py": [r"^fault grid: 17 cells, 14 faulty \(82 %\)", r"^fault grid holds$"],
}


def _scripts():
    return sorted(p.name for p in HERE.glob("*.py") if not p.name.startswith(("test_", "conftest")))


def test_every_script_has_a_quick_run():
    assert _scripts() == sorted(EXPECTED), "add the new script's --quick output to EXPECTED"
    for name in EXPECTED:
        assert '"--quick"' in (HERE / name).read_text(encoding="utf-8"), f"{name} has no --quick option"


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_quick_run(script, tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", COLUMNS="120",
               TMPDIR=str(tmp_path))  # what a script leaves in its temporary folders goes with tmp_path
    proc = subprocess.run([sys.executable, str(HERE / script), "--quick"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    shown = f"{script} --quick exited {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n" \
            f"{proc.stderr[-4000:]}"
    assert proc.returncode == 0, shown
    assert proc.stdout.startswith("quick mode: "), shown  # the run says it is not a measurement
    missing = [p for p in EXPECTED[script] if not re.search(p, proc.stdout, re.MULTILINE)]
    assert missing == [], shown
