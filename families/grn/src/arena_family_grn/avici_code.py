"""avici's own code and files, used from an ``avici`` installed with ``--no-deps``.

What is used (avici 1.0.7, MIT, Lars Lorch; nothing is copied):

* ``avici/synthetic/sergio/sim.py`` — ``Sergio``, avici's modified copy of the SERGIO simulator
  (Dibaeinia & Sinha 2020): a numpy ``Generator`` instead of the global random state, a
  ``custom_graph(g, k, b, hill)`` entry, knockouts (``kout``); technical noise
  (``outlier_effect``, ``lib_size_effect``, ``dropout_indicator``, ``convert_to_UMIcounts``).
  Imports: ``sys``, ``numpy``.
* ``avici/synthetic/graph.py`` — ``_module_extraction``, AVICI's subnetwork sampler (Marbach et
  al. 2009's modular extraction on the undirected skeleton, then random cycle breaking).
  Imports: ``igraph``, ``pandas``, ``avici.definitions``, ``avici.utils.graph`` (``igraph``) and
  the package ``avici.synthetic`` (whose ``__init__`` also imports ``gene.py`` →
  ``avici.utils.load`` → ``import avici`` and ``yaml``).
* ``avici/assets/*.tsv`` — the two source networks; ``avici/synthetic/sergio/noise_config.yaml``
  — SERGIO's technical-noise settings per platform.

Why a private loader: ``import avici`` runs ``avici/__init__.py``, which imports
``avici.pretrain`` (``jax``, ``jax.sharding``, ``huggingface_hub``) and ``avici.buffer``
(``pyarrow.plasma``, gone since pyarrow 12) — the old inference stack that must never be forced
on the core. The two modules above need none of it. :func:`modules` therefore puts a bare
package object named ``avici`` (its ``__path__`` the installed folder, its ``__init__.py`` not
run) into ``sys.modules`` for the duration of the import, imports the two submodules through
the normal import system (so ``avici.synthetic``'s own ``__init__`` runs: numpy, pandas,
igraph, yaml), keeps the module objects and then removes every ``avici*`` entry it added, so a
later ``import avici`` in the same process gets the real package. When the real ``avici`` is
already imported, it is used as it is.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import sys
import types
from pathlib import Path
from typing import Any, Tuple

DISTRIBUTION = "avici"
#: the avici release whose private sampler (``_module_extraction``) and simulator this family calls
AVICI_VERSION = "1.0.7"
INSTALL_HINT = f"pip install --no-deps {DISTRIBUTION}=={AVICI_VERSION}"
#: the entries ``avici.utils.load`` adds to sys.modules as legacy aliases
_ALIASES = ("amortibs", "amortibs.modules")


class AviciMissingError(ModuleNotFoundError):
    """avici is not installed, or not the release this family was built against."""


@functools.lru_cache(maxsize=1)
def avici_root() -> Tuple[Path, str]:
    """``(folder of the installed avici package, its version)``, from the distribution's metadata.

    Raises:
        AviciMissingError: avici is not installed, is not 1.0.7, or ships no ``avici/__init__.py``.
    """
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise AviciMissingError(f"the grn family runs avici's SERGIO simulator and subnetwork sampler: "
                                f"{INSTALL_HINT} (--no-deps: avici's own requirements pin numpy<2, "
                                "tensorflow and jax, none of which this family needs)") from None
    if dist.version != AVICI_VERSION:
        raise AviciMissingError(f"the grn family calls private functions of avici {AVICI_VERSION}; avici "
                                f"{dist.version} is installed ({INSTALL_HINT})")
    for f in dist.files or ():
        if Path(str(f)).as_posix() == "avici/__init__.py":
            return Path(str(dist.locate_file(f))).parent, dist.version
    raise AviciMissingError(f"avici {dist.version} lists no avici/__init__.py among its files ({INSTALL_HINT})")


def asset_path(relative: str) -> Path:
    """Path of a file inside the installed avici package (``"assets/….tsv"``).

    Raises:
        AviciMissingError: see :func:`avici_root`.
        FileNotFoundError: the file is not there (names it).
    """
    root, version = avici_root()
    path = root / relative
    if not path.is_file():
        raise FileNotFoundError(f"avici {version} does not ship avici/{relative}")
    return path


def asset_sha256(relative: str) -> str:
    """SHA-256 (hex) of a shipped avici file (part of every instance's fingerprint)."""
    return hashlib.sha256(asset_path(relative).read_bytes()).hexdigest()


@functools.lru_cache(maxsize=1)
def modules() -> types.SimpleNamespace:
    """``SimpleNamespace(graph=avici.synthetic.graph, sim=avici.synthetic.sergio.sim)``, imported
    without running ``avici/__init__.py`` (see the module docstring).

    Raises:
        AviciMissingError: see :func:`avici_root`.
        ModuleNotFoundError: igraph, pandas or pyyaml is missing (avici.synthetic imports them).
    """
    root, _ = avici_root()
    real = sys.modules.get("avici")
    if real is not None and getattr(real, "__file__", None):
        graph = importlib.import_module("avici.synthetic.graph")
        sim = importlib.import_module("avici.synthetic.sergio.sim")
        return types.SimpleNamespace(graph=graph, sim=sim)
    before = {k: v for k, v in sys.modules.items() if _ours(k)}
    stub = types.ModuleType("avici")
    stub.__path__ = [str(root)]  # a package whose submodules are found in the installed folder
    stub.__package__ = "avici"
    sys.modules["avici"] = stub
    try:
        graph = importlib.import_module("avici.synthetic.graph")
        sim = importlib.import_module("avici.synthetic.sergio.sim")
    finally:
        for key in [k for k in sys.modules if _ours(k)]:
            del sys.modules[key]
        sys.modules.update(before)
    return types.SimpleNamespace(graph=graph, sim=sim)


def _ours(name: str) -> bool:
    return name == "avici" or name.startswith("avici.") or name in _ALIASES


def sergio_class() -> Any:
    """avici's ``Sergio`` simulator class (``avici/synthetic/sergio/sim.py``)."""
    return modules().sim.Sergio


def module_extraction() -> Any:
    """avici's ``_module_extraction(rng, source, d, topk, at_least_n_regulators, make_acyclic,
    drop_self_edges, return_node_indices)`` (``avici/synthetic/graph.py``)."""
    return modules().graph._module_extraction


def noise_config() -> dict:
    """SERGIO's technical-noise settings per platform (``avici/synthetic/sergio/noise_config.yaml``,
    "as estimated from real single-cell data" by the SERGIO paper's supplement).

    Raises:
        ValueError: the file is not a mapping of platform → settings.
    """
    import yaml

    path = asset_path("synthetic/sergio/noise_config.yaml")
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(config, dict) or not config:
        raise ValueError(f"{path}: expected a mapping of platform -> noise settings")
    return config
