"""The pieces of the ``causalchamber`` package this family uses, imported quietly and offline.

Only three modules are imported, each numpy/pandas only:

* ``causalchamber.ground_truth`` — the published variables and edges per chamber and
  configuration (:func:`published_graph`);
* ``causalchamber.simulators.lt`` — :class:`Deterministic`, the numpy simulator of the light
  tunnel's sensors;
* ``causalchamber.simulators.wt`` — :class:`ModelA1` (fan speed), :class:`ModelB1` (fan
  current), :class:`SimA1C3` (downwind barometer).

``causalchamber.datasets`` is **never** imported: its import fetches the dataset directory
from the network. Two side effects of the package's imports are contained here:

* ``causalchamber/__init__.py`` prints a citation banner, and ``simulators/lt/__init__.py``
  prints a warning when torch is missing; both go to stdout, which a worker may use, so the
  imports run with stdout captured.
* ``simulators/lt/__init__.py`` tries to import its torch image decoder (``DecoderSimple``,
  not used here) and falls back when that raises ImportError. When torch is installed but not
  yet imported, this module makes the ``torch``/``torchvision`` imports raise ImportError for
  the duration of that import, so building a light-tunnel table never loads torch (the
  package's own fallback path is taken). A torch already in ``sys.modules`` is left alone.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import io
import sys
from importlib import metadata
from typing import Any, List, Tuple

import numpy as np

#: the package version the simulator parameters and graphs were checked against
PACKAGE_VERSION = "0.2.8"

_BLOCKED = ("torch", "torchvision")


class _RefuseTorch(importlib.abc.MetaPathFinder):
    """Makes ``import torch`` / ``import torchvision`` raise ImportError (see the module)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname.split(".")[0] in _BLOCKED:
            raise ImportError(f"{fullname} is not needed by the chamber sensor simulators "
                              "(arena_family_chambers keeps it out)")
        return None


def _quiet_import(name: str) -> Any:
    """``importlib.import_module(name)`` with stdout captured and torch kept out (see the module)."""
    if name in sys.modules:
        return sys.modules[name]
    finder = None
    if not any(b in sys.modules for b in _BLOCKED):
        finder = _RefuseTorch()
        sys.meta_path.insert(0, finder)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return importlib.import_module(name)
    finally:
        if finder is not None:
            sys.meta_path.remove(finder)


def version() -> str:
    """The installed causalchamber version (from its metadata; the package is not imported)."""
    return metadata.version("causalchamber")


def ground_truth() -> Any:
    """The ``causalchamber.ground_truth.main`` module (variables, edges, graph, latex_name)."""
    return _quiet_import("causalchamber.ground_truth.main")


def lt_simulators() -> Any:
    """The ``causalchamber.simulators.lt`` module (``Deterministic`` …), imported without torch."""
    return _quiet_import("causalchamber.simulators.lt")


def wt_simulators() -> Any:
    """The ``causalchamber.simulators.wt`` module (``ModelA1``, ``ModelB1``, ``SimA1C3`` …)."""
    return _quiet_import("causalchamber.simulators.wt")


def published_graph(chamber: str, configuration: str = "standard") -> Tuple[List[str], np.ndarray]:
    """The published ground-truth graph of a chamber, as the package ships it.

    ``causalchamber.ground_truth.graph(chamber, configuration)`` (Gamella et al. 2025, Fig. 2 /
    appendix II): the light tunnel's standard configuration has 38 variables and 57 edges, the
    wind tunnel's 32 variables and 42 edges.

    Args:
        chamber: ``"lt"`` (light tunnel) or ``"wt"`` (wind tunnel).
        configuration: the package's configuration name (``"standard"``).

    Returns:
        ``(names, adjacency)``: the package's variable order and a (d × d) int8 0/1 matrix,
        row = parent.

    Raises:
        ValueError: an unknown chamber/configuration (the package's own message).
    """
    frame = ground_truth().graph(chamber, configuration)
    names = [str(c) for c in frame.columns]
    if [str(i) for i in frame.index] != names:
        raise ValueError(f"causalchamber {version()}: graph({chamber!r}, {configuration!r}) has rows and columns "
                         "in different orders")
    return names, np.asarray(frame.values != 0, dtype=np.int8)


def latex_name(variable: str) -> str:
    """The variable's symbol in the paper (``causalchamber.ground_truth.latex_name``, without dollars)."""
    return str(ground_truth().latex_name(variable, enclose=False))


__all__ = ("PACKAGE_VERSION", "ground_truth", "latex_name", "lt_simulators", "published_graph", "version",
           "wt_simulators")
