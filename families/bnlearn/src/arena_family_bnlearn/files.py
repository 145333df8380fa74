"""Locate the network files pgmpy ships, without importing pgmpy.

pgmpy 1.1.x / 1.2.x carry the bnlearn networks in its wheel under
``pgmpy/utils/example_models`` (``<name>.json`` for the linear-Gaussian networks,
``<name>.bif.gz`` for the discrete ones). They are found through
``importlib.metadata`` (the installed distribution's file list), as the ``real``
family finds cdt's Sachs files: importing pgmpy is never needed (its import pulls
scikit-learn, statsmodels and a hub client), and nothing is downloaded.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path
from typing import Dict, Tuple

DISTRIBUTION = "pgmpy"
FOLDER = "pgmpy/utils/example_models"


@functools.lru_cache(maxsize=1)
def shipped_files() -> Tuple[Dict[str, Path], str]:
    """``({file name: path}, pgmpy version)`` of every file in pgmpy's ``utils/example_models``.

    Raises:
        ModuleNotFoundError: pgmpy is not installed (``pip install 'pgmpy>=1.1,<1.3'``).
        FileNotFoundError: the installed pgmpy ships no example models (1.3 removed them).
    """
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise ModuleNotFoundError("the bnlearn family reads the networks shipped in the pgmpy wheel: "
                                  "pip install 'pgmpy>=1.1,<1.3'") from None
    found: Dict[str, Path] = {}
    for f in dist.files or ():
        posix = Path(str(f)).as_posix()
        if posix.startswith(FOLDER + "/"):
            found[posix[len(FOLDER) + 1:]] = Path(str(dist.locate_file(f)))
    if not found:
        raise FileNotFoundError(f"pgmpy {dist.version} ships no {FOLDER}/ (removed in pgmpy 1.3, whose "
                                "replacement downloads); install 'pgmpy>=1.1,<1.3'")
    return found, dist.version


def network_path(file: str) -> Path:
    """The path of one shipped network file (``"ecoli70.json"``, ``"asia.bif.gz"``).

    Raises:
        FileNotFoundError: the installed pgmpy does not ship it (names the file and the version).
    """
    found, version = shipped_files()
    path = found.get(file)
    if path is None or not path.is_file():
        raise FileNotFoundError(f"pgmpy {version} does not ship {FOLDER}/{file}; the bnlearn family expects "
                                "pgmpy>=1.1,<1.3")
    return path


def read_text(file: str) -> str:
    """The UTF-8 text of a shipped network file (``.gz`` files are decompressed)."""
    path = network_path(file)
    raw = path.read_bytes()
    if file.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def pgmpy_version() -> str:
    """The installed pgmpy's version (from its metadata; pgmpy is not imported)."""
    return shipped_files()[1]
