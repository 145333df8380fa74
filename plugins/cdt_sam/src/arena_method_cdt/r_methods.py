"""R-backed cdt methods: the preflight for ``Rscript`` and R packages, and GES from pcalg.

cdt runs its R methods by writing the data to a temporary folder and calling
``Rscript`` on a filled-in template (``cdt.utils.R.launch_R_script``). When R or
a package is missing, cdt fails late and vaguely (an ``ImportError`` "R Package
pcalg is not available." from the constructor, or "R Call errored, is R
available ?" printed before a ``FileNotFoundError``). :func:`r_preflight` runs
first and raises :class:`causalarena.method.MethodEnvironmentError` naming
exactly what is missing, so the runner records the run as ``env_error``:

* ``Rscript`` not on PATH → "Rscript not found on PATH: install R
  (https://cran.r-project.org) and the R package 'pcalg'";
* ``Rscript -e 'library(pcalg)'`` fails → "R package 'pcalg' is not installed
  (Rscript -e 'library(pcalg)' failed: <R's error>); install it in R with
  install.packages('pcalg')";
* the check does not finish within ``r_timeout`` seconds → an error saying so.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Optional, Sequence

import numpy as np

from causalarena.data import Dataset
from causalarena.method import Method, MethodEnvironmentError

CRAN = "https://cran.r-project.org"


def _quoted(packages: Sequence[str]) -> str:
    names = ", ".join(f"'{p}'" for p in packages)
    return f"the R package {names}" if len(packages) == 1 else f"the R packages {names}"


def r_preflight(packages: Sequence[str], timeout: float = 60.0, rscript: Optional[str] = None) -> str:
    """Check that ``Rscript`` runs and every R package in ``packages`` loads.

    Args:
        packages: R package names (``["pcalg"]``).
        timeout: seconds allowed for each ``Rscript -e 'library(pkg)'``.
        rscript: the Rscript executable; ``None`` = ``shutil.which("Rscript")``.

    Returns:
        The absolute path of the Rscript executable that passed.

    Raises:
        MethodEnvironmentError: Rscript not found, a package does not load, or a check
            timed out; the message names what is missing and how to install it.
    """
    path = rscript if rscript is not None else shutil.which("Rscript")
    if path is None:
        raise MethodEnvironmentError(
            f"Rscript not found on PATH: install R ({CRAN}) and {_quoted(packages)}")
    for pkg in packages:
        command = f"library({pkg})"
        try:
            proc = subprocess.run([path, "-e", command], capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise MethodEnvironmentError(
                f"Rscript not found at {path!r}: install R ({CRAN}) and {_quoted(packages)}") from None
        except subprocess.TimeoutExpired:
            raise MethodEnvironmentError(
                f"Rscript -e '{command}' did not finish within {timeout:g} s: R or the R package "
                f"'{pkg}' is unusable here") from None
        if proc.returncode != 0:
            lines = [ln.strip() for ln in (proc.stderr or "").splitlines() if ln.strip()]
            detail = lines[-1] if lines else f"exit status {proc.returncode}"
            # "Error in library(pcalg) : there is no package called 'pcalg'" is the usual line
            if lines and any("Error" in ln for ln in lines):
                detail = next(ln for ln in lines if "Error" in ln)
            raise MethodEnvironmentError(
                f"R package '{pkg}' is not installed (Rscript -e '{command}' failed: {detail}); "
                f"install it in R with install.packages('{pkg}')")
    return path


def essgraph_to_adjacency(native: np.ndarray) -> np.ndarray:
    """Convert pcalg's essential graph, as cdt returns it, to the arena's CPDAG adjacency.

    cdt's ``ges.R`` writes ``as(result$essgraph, "matrix")``: pcalg coerces an
    ``EssGraph`` to a logical matrix with ``m[i, j] = TRUE`` iff j's in-edge list
    contains i, i.e. i → j, both entries for an undirected edge (row = parent, the
    arena's convention). cdt then reads it as 0/1 values, so the rule is ``A = (native != 0)``.

    Args:
        native: (d × d) 0/1 matrix read from cdt's result.csv.

    Returns:
        (d × d) int8 0/1 adjacency.

    Raises:
        ValueError: not square.
    """
    G = np.asarray(native, dtype=float)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"essential graph must be square (d × d), got shape {G.shape}")
    A = (G != 0).astype(np.int8)
    np.fill_diagonal(A, 0)
    return A


class CdtGES(Method):
    """GES (Chickering 2002) from the R package pcalg, run through cdt's ``GES``.

    Parameters:
        score: cdt's score name: ``"obs"`` = pcalg ``GaussL0penObsScore`` (the
            l0-penalised Gaussian likelihood with ``lambda = log(n) / 2``, i.e. BIC; cdt's
            default), ``"int"`` = ``GaussL0penIntScore`` (cdt passes no targets, so it
            equals the observational score here).
        r_timeout: seconds allowed for each preflight ``Rscript -e 'library(pkg)'``.

    After ``fit``: ``adjacency_`` (d × d) CPDAG (row = parent, undirected = both
    entries); ``native_`` the 0/1 essential-graph matrix as cdt returned it.
    """

    output_kind = "cpdag"
    r_packages = ("pcalg",)

    def __init__(self, score: str = "obs", r_timeout: float = 60.0) -> None:
        self.score = score
        self.r_timeout = r_timeout

    def fit(self, dataset: Dataset) -> "CdtGES":
        """Preflight R, then run pcalg's GES on ``dataset.X`` (n × d) through cdt.

        Raises:
            MethodEnvironmentError: ``Rscript`` or pcalg missing (status ``env_error``).
        """
        rscript = r_preflight(self.r_packages, timeout=self.r_timeout)

        import networkx as nx
        import pandas as pd

        from .method import import_cdt

        cdt = import_cdt()
        cdt.SETTINGS.rpath = rscript  # the executable the preflight ran (resets cdt's package cache)
        from cdt.causality.graph import GES

        columns = [f"X{j}" for j in range(dataset.d)]  # positional: cdt relabels by position
        df = pd.DataFrame(np.asarray(dataset.X, dtype=float), columns=columns)
        graph = GES(score=self.score, verbose=False).predict(df)
        native = nx.to_numpy_array(graph, nodelist=columns, weight=None, nonedge=0.0)
        self.native_ = native
        self.adjacency_ = essgraph_to_adjacency(native)
        return self
