"""Fail a tox env when a project distribution was not installed from this checkout.

Every ``causal-arena`` / ``arena-*`` distribution in the environment must
have been installed from a local directory of this repository (PEP 610
``direct_url.json`` with a ``file://`` URL inside the checkout); one pulled
from a package index would test someone else's code.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import distributions
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
PREFIXES = ("causal-arena", "arena-method-", "arena-family-", "arena-sandbox", "arena-contrib-", "arena-cards", "arena-diagnosis",
            "arena-dask", "arena-task-", "arena-effect-", "arena-export", "arena-testkit")


def main() -> int:
    bad = []
    for dist in distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if not name.startswith(PREFIXES):
            continue
        here = Path(str(dist.locate_file(""))).resolve()
        if ROOT in (here, *here.parents):
            continue  # in-tree metadata (an editable build's egg-info)
        raw = dist.read_text("direct_url.json")
        url = json.loads(raw).get("url", "") if raw else ""
        path = Path(unquote(urlparse(url).path)).resolve() if url.startswith("file://") else None
        if path is None or ROOT not in (path, *path.parents):
            bad.append(f"{name} {dist.version} (source: {url or 'a package index'})")
    if bad:
        print("guard_local_dists: not installed from this checkout " f"({ROOT}):\n  " + "\n  ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
