"""Worker start and per-cell overhead through the docker backend, against the venv backend and this env.

Builds (or reuses) the sandbox fixture plugin's virtualenv and image, then in
one process, interleaved per repeat so machine load affects every backend alike:

- **first result**: wall time from starting a worker to its first stored cell
  (start + load + one fit of a trivial method + scoring + store);
- **per cell**: (a grid of ``--cells`` trivial cells − the one-cell grid) /
  (cells − 1): what each further cell costs on a warm worker.

The reference is the same grid through ``none`` (this interpreter). Reported as
medians and as ratios docker / venv and docker / none. Needs a Docker engine
(and root the first time, for the base image).

    python tests/benchmarks/bench_docker.py [--repeats 5] [--cells 20] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIXTURE = ROOT / "sandbox" / "tests" / "fixture_plugin"
sys.path.insert(0, str(ROOT / "core" / "tests"))


def _grid(backend, name: str, cells: int, workdir: str) -> float:
    """Seconds for ``cells`` cells of ``where_am_i`` through ``backend`` (None = this env), from a cold worker."""
    from fault_methods import ChainInstance

    from causalarena.isolation import local_launch
    from causalarena.records import MethodInfo
    from causalarena.runner import make_cells, run_grid
    from causalarena.store import Store

    env = "" if backend is None else backend.name
    factory = "arena_method_sandbox_fixture.method:WhereAmI" if backend is not None else "fault_methods:Chain"
    m = MethodInfo(name="where_am_i", factory=factory, distribution="arena-method-sandbox-fixture",
                   version="0.1.0", environment=env)
    cache = os.path.join(workdir, name, "datasets")
    os.makedirs(cache)
    inst = ChainInstance(f"chain-{name}", splits=("obs",), n_replicates=cells)
    launch = (lambda mm: local_launch()) if backend is None else \
        (lambda mm: backend.launch(mm, cache_dir=cache, memory_mb=1000))
    store = Store(os.path.join(workdir, name, "r.sqlite"))
    t0 = time.perf_counter()
    run_grid(make_cells([inst], [m]), None, store, progress=False, cache_dir=cache, launcher=launch,
             memory_mb=1000, env={"PYTHONPATH": str(ROOT / "core" / "tests")})
    seconds = time.perf_counter() - t0
    rows = store.rows()
    store.close()
    assert len(rows) == cells and {r["status"] for r in rows} == {"ok"}, [r["error"] for r in rows][:2]
    return seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cells", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="1 repeat of 3 cells: a crash check, no figures to trust")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeats, args.cells = 1, 3
        print("quick mode: 1 repeat of 3 cells per backend; a crash check, the figures mean nothing")
    from arena_sandbox.docker import DockerBackend
    from arena_sandbox.envs import build
    from arena_sandbox.venv import VenvBackend

    docker = DockerBackend()
    reason = docker.available()
    if reason:
        print(f"bench_docker: {reason}; nothing measured", file=sys.stderr)
        return 0 if args.quick else 1
    t0 = time.perf_counter()
    build(str(FIXTURE))
    t_venv_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    docker.build_image(str(FIXTURE))
    t_image = time.perf_counter() - t0
    backends = {"none": None, "venv": VenvBackend(), "docker": docker}
    for name, b in backends.items():
        if b is not None:
            from causalarena.records import MethodInfo

            b.prepare(MethodInfo(name="where_am_i", factory="arena_method_sandbox_fixture.method:WhereAmI",
                                 distribution="arena-method-sandbox-fixture", version="0.1.0", environment=name))
    first = {k: [] for k in backends}
    per_cell = {k: [] for k in backends}
    with tempfile.TemporaryDirectory(prefix="bench-docker-") as work:
        for r in range(args.repeats):
            for name, b in backends.items():  # interleaved: load drifts hit all three alike
                one = _grid(b, f"{name}-first-{r}", 1, work)
                first[name].append(one)
                # warm per-cell cost: the N-cell grid less the 1-cell grid, over the N - 1 extra cells
                per_cell[name].append((_grid(b, f"{name}-grid-{r}", args.cells, work) - one) / (args.cells - 1))
    med = {k: statistics.median(v) for k, v in first.items()}
    cell = {k: statistics.median(v) for k, v in per_cell.items()}
    print(f"venv build (or reuse) {t_venv_build:.1f} s; image build (or reuse) {t_image:.1f} s")
    print(f"{'backend':8} {'first result s':>15} {'per cell s':>11}   ({args.repeats} repeats, {args.cells} cells)")
    for k in backends:
        print(f"{k:8} {med[k]:15.3f} {cell[k]:11.4f}")
    print(f"first result: docker/venv {med['docker'] / med['venv']:.2f}, docker/none {med['docker'] / med['none']:.2f}")
    print(f"per cell:     docker/venv {cell['docker'] / cell['venv']:.2f}, docker/none {cell['docker'] / cell['none']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
