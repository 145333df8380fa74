"""Delete a tox env's installed files after its commands ran, when asked.

CI builds all 28 envs from scratch on one disk: together they take ~25 GB
(every torch env carries its own ~1 GB copy), and a full disk half-way through
made a clean run fail at venv creation ("failed to build image setuptools").
With ``CAUSALARENA_PRUNE_TOX_ENVS=1`` (``.ci/run`` sets it) each env is emptied
once its tests have run, so the peak is the envs in flight, not their sum; tox
recreates an emptied env on its next run. Off by default, so a developer's
envs stay warm.

Usage (tox ``commands_post``): ``python tests/prune_env.py {envdir}``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if os.environ.get("CAUSALARENA_PRUNE_TOX_ENVS") != "1":
        return 0
    if len(argv) != 1:
        print("prune_env: expected one argument, the env dir", file=sys.stderr)
        return 2
    envdir = Path(argv[0]).resolve()
    # only ever a directory inside a .tox folder: never a path a typo could widen
    if envdir.parent.name != ".tox" and ".tox" not in envdir.parts:
        print(f"prune_env: {envdir} is not inside a .tox folder; left alone", file=sys.stderr)
        return 2
    freed = 0
    for child in list(envdir.iterdir()):
        if child.is_dir() and not child.is_symlink():
            freed += sum(f.stat().st_size for f in child.rglob("*") if f.is_file() and not f.is_symlink())
            # the running interpreter lives here; Linux keeps its open files until exit
            shutil.rmtree(child, ignore_errors=True)
        else:
            freed += child.lstat().st_size
            child.unlink(missing_ok=True)
    print(f"prune_env: emptied {envdir.name} ({freed / 2**30:.1f} GiB freed)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
