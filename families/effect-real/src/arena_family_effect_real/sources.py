"""Where each effect table comes from: files shipped inside PyPI packages, read in place.

Nothing is downloaded at run time. Every file is located through
:mod:`importlib.metadata` (the installed distribution's file list), so the
table read is exactly the file the named package version ships:

* ``causaldata`` 0.1.5 — ``causaldata/nsw_mixtape/nsw_mixtape.dta`` (445
  rows: the Dehejia–Wahba subsample of the NSW experiment, 185 treated) and
  ``causaldata/cps_mixtape/cps_mixtape.dta`` (15,992 CPS comparison rows,
  all ``treat = 0``). Read with :func:`pandas.read_stata`, which is what
  ``causaldata.<name>.load_pandas()`` does (it also imports statsmodels).
* ``causallib`` 0.10.0 — ``causallib/datasets/data/acic_challenge_2016/
  x.csv`` (4,802 × 58 covariates) and ``zymu_{1..10}.csv`` (``z, y0, y1,
  mu0, mu1``: one simulation of each of 10 ACIC 2016 DGPs). causallib is
  never imported (it declares ``pandas<3``; install it ``--no-deps``).
* ``econml`` 0.17.0 — ``econml/data/ihdp/sim.csv`` (985 IHDP rows; 747 after
  Hill's filter) and the response surfaces
  :func:`econml.data.dgps.ihdp_surface_A` / ``ihdp_surface_B`` (Hill 2011,
  §4.1), called as they are.

Each loader returns a :class:`SourceTable` whose ``tau`` is the oracle CATE of
every row; the family keeps it harness-side (never in an
:class:`~arena_task_effect.effect.EffectDataset`).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Dict, List, Tuple

import attrs
import numpy as np

#: NSW covariates (all measured before random assignment) and the pre-treatment outcome (CausalIDView §4.3)
NSW_COVARIATES = ("age", "educ", "black", "hisp", "marr", "nodegree", "re74")
#: real earnings in 1975: before every Dehejia–Wahba sample member's random assignment (Jan 1976 or later)
NSW_OUTCOME = "re75"
#: columns of the shipped tables never used as input or outcome (re78 is the post-treatment outcome)
NSW_UNUSED = ("data_id", "re78")

#: the 25 IHDP covariates of econml's surfaces, in econml's order (``_process_ihdp_sim_data``)
IHDP_COVARIATES = ("bw", "b.head", "preterm", "birth.o", "nnhealth", "momage", "sex", "twin", "b.marr",
                   "mom.lths", "mom.hs", "mom.scoll", "cig", "first", "booze", "drugs", "work.dur", "prenatal",
                   "site1", "site2", "site3", "site4", "site5", "site6", "site7")
#: the designated hidden confounder of the IHDP-HC view: mother married at birth (CausalIDView App. E.5)
IHDP_HIDDEN = "b.marr"

#: ACIC 2016: the string-valued covariates, ordinally encoded with sorted levels (CausalIDView App. E.3)
ACIC_STRING_COLUMNS = ("x_2", "x_21", "x_24")
ACIC_INSTANCES = tuple(range(1, 11))


@attrs.define(eq=False)
class SourceTable:
    """One table with its oracle, as read from the shipped files.

    Attributes:
        X: (N × p) float64 covariates, in native units.
        columns: the p covariate names.
        T: (N,) int8 treatment, 0/1.
        Y: (N,) float64 factual outcome Y = Y(T) (native units).
        tau: (N,) float64 oracle CATE of each row: 0 for a negative control,
            mu1 − mu0 (ACIC), Hill's true effect (IHDP).
        outcome: name of the outcome column (``"re75"``, ``"y"`` …).
        source: ``"distribution==version:path"`` of each file read.
    """

    X: np.ndarray
    columns: Tuple[str, ...]
    T: np.ndarray
    Y: np.ndarray
    tau: np.ndarray
    outcome: str
    source: Tuple[str, ...]

    def digest(self) -> str:
        """SHA-256 (hex) of X, T, Y, tau and the column names: identifies the table's content."""
        h = hashlib.sha256()
        for arr in (self.X, self.T.astype(np.int64), self.Y, self.tau):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update("\x1f".join(self.columns).encode())
        return h.hexdigest()


def package_file(distribution: str, relpath: str) -> Tuple[Path, str]:
    """The installed file ``relpath`` of ``distribution`` and the distribution's version.

    Raises:
        ModuleNotFoundError: the distribution is not installed (the message says how to install it).
        FileNotFoundError: the installed version does not ship ``relpath``.
    """
    from importlib import metadata

    hints = {"causallib": "pip install --no-deps causallib==0.10.0",
             "causaldata": "pip install causaldata==0.1.5", "econml": "pip install econml==0.17.0"}
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        raise ModuleNotFoundError(f"effect_real reads {relpath} shipped by {distribution}, which is not installed: "
                                  f"{hints.get(distribution, 'pip install ' + distribution)}") from None
    for f in dist.files or ():
        if Path(str(f)).as_posix() == relpath:
            path = Path(str(dist.locate_file(f)))
            if path.is_file():
                return path, str(dist.version)
    raise FileNotFoundError(f"{distribution} {dist.version} does not ship {relpath} "
                            f"(effect_real expects {hints.get(distribution, distribution)})")


def _read_dta(distribution: str, relpath: str) -> Tuple["object", str]:
    import pandas as pd

    path, version = package_file(distribution, relpath)
    return pd.read_stata(path), f"{distribution}=={version}:{relpath}"


NSW_FILE = "causaldata/nsw_mixtape/nsw_mixtape.dta"
CPS_FILE = "causaldata/cps_mixtape/cps_mixtape.dta"


def _nsw_arrays(frame) -> Dict[str, np.ndarray]:
    missing = [c for c in NSW_COVARIATES + (NSW_OUTCOME, "treat") if c not in frame.columns]
    if missing:
        raise ValueError(f"the NSW table lacks the column(s) {missing}")
    return dict(X=frame[list(NSW_COVARIATES)].to_numpy(dtype=np.float64),
                T=frame["treat"].to_numpy(dtype=np.int8), Y=frame[NSW_OUTCOME].to_numpy(dtype=np.float64))


@functools.lru_cache(maxsize=1)
def nsw_table() -> SourceTable:
    """The NSW experiment (Dehejia–Wahba subsample, 445 × 7) with re75 as a negative-control outcome.

    The NSW is a randomised experiment; re75 (real earnings in 1975) was
    realised before random assignment, so Y_pre(1) = Y_pre(0) for every unit
    and τ(x) = 0 for all x (CausalIDView §4.3; Ashby et al. 2025).

    Raises:
        ModuleNotFoundError, FileNotFoundError: causaldata 0.1.5 is not installed (see :func:`package_file`).
    """
    frame, source = _read_dta("causaldata", NSW_FILE)
    a = _nsw_arrays(frame)
    return SourceTable(X=a["X"], columns=NSW_COVARIATES, T=a["T"], Y=a["Y"], tau=np.zeros(len(a["Y"])),
                       outcome=NSW_OUTCOME, source=(source,))


@functools.lru_cache(maxsize=1)
def nsw_cps_table() -> SourceTable:
    """NSW treated units (185) stacked over the CPS comparison group (15,992): 16,177 × 7, re75 as outcome.

    τ(x) = 0 still holds exactly (re75 precedes assignment for every NSW
    treated unit, and CPS members were never assigned), but treated and CPS
    units differ sharply in the covariates and in re75 itself, so a naive
    contrast is confounded: the harder null test. Rows 0–184 are the NSW
    treated units in file order, then the CPS rows in file order.

    Raises:
        ModuleNotFoundError, FileNotFoundError: causaldata 0.1.5 is not installed.
        ValueError: the CPS file holds a treated row (it ships controls only).
    """
    import pandas as pd

    nsw, src_nsw = _read_dta("causaldata", NSW_FILE)
    cps, src_cps = _read_dta("causaldata", CPS_FILE)
    if (cps["treat"] != 0).any():
        raise ValueError(f"{CPS_FILE}: expected CPS comparison rows only (treat = 0)")
    frame = pd.concat([nsw[nsw["treat"] == 1], cps], ignore_index=True)
    a = _nsw_arrays(frame)
    return SourceTable(X=a["X"], columns=NSW_COVARIATES, T=a["T"], Y=a["Y"], tau=np.zeros(len(a["Y"])),
                       outcome=NSW_OUTCOME, source=(src_nsw, src_cps))


ACIC_DIR = "causallib/datasets/data/acic_challenge_2016"


@functools.lru_cache(maxsize=1)
def acic16_covariates() -> Tuple[np.ndarray, Tuple[str, ...], str]:
    """The ACIC 2016 covariates (4,802 × 58) with x_2, x_21, x_24 ordinally encoded (sorted levels, from 0).

    The levels are the sorted distinct values of the whole shipped column
    (App. E.3: "the three string-valued columns encoded ordinally using
    sorted category levels"): a fixed schema mapping, not a statistic of any
    split, so every replicate and every unit gets the same code. Encoded with
    :class:`sklearn.preprocessing.OrdinalEncoder` (``categories="auto"``
    sorts the levels).

    Returns:
        (X, columns, source).

    Raises:
        ModuleNotFoundError: causallib is not installed (``pip install --no-deps causallib==0.10.0``).
    """
    import pandas as pd
    from sklearn.preprocessing import OrdinalEncoder

    path, version = package_file("causallib", f"{ACIC_DIR}/x.csv")
    frame = pd.read_csv(path)
    strings = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if tuple(strings) != ACIC_STRING_COLUMNS:
        raise ValueError(f"{ACIC_DIR}/x.csv: expected string columns {ACIC_STRING_COLUMNS}, found {strings}")
    enc = OrdinalEncoder(categories="auto", dtype=np.float64)
    frame[strings] = enc.fit_transform(frame[strings].astype(str))
    return (frame.to_numpy(dtype=np.float64), tuple(str(c) for c in frame.columns),
            f"causallib=={version}:{ACIC_DIR}/x.csv")


@functools.lru_cache(maxsize=len(ACIC_INSTANCES))
def acic16_table(instance: int) -> SourceTable:
    """ACIC 2016 DGP ``instance`` (1–10) as causallib ships it: Y = y_T, τ = mu1 − mu0.

    ``zymu_k.csv`` holds the treatment z, the noisy potential outcomes y0, y1
    and the conditional means mu0, mu1 of the official generator (Dorie et
    al. 2019). The CATE target is the conditional-mean contrast
    τ(x_i) = mu1_i − mu0_i (App. E.3); the observed outcome is
    Y_i = z_i·y1_i + (1 − z_i)·y0_i.

    Raises:
        ValueError: ``instance`` is not 1–10.
        ModuleNotFoundError: causallib is not installed.
    """
    import pandas as pd

    if int(instance) not in ACIC_INSTANCES:
        raise ValueError(f"ACIC 2016 instance must be one of 1..10 (causallib ships 10), got {instance!r}")
    X, columns, src_x = acic16_covariates()
    rel = f"{ACIC_DIR}/zymu_{int(instance)}.csv"
    path, version = package_file("causallib", rel)
    z = pd.read_csv(path)
    if list(z.columns) != ["z", "y0", "y1", "mu0", "mu1"] or len(z) != X.shape[0]:
        raise ValueError(f"{rel}: expected {X.shape[0]} rows of z, y0, y1, mu0, mu1; got {list(z.columns)} "
                         f"× {len(z)}")
    t = z["z"].to_numpy(dtype=np.int8)
    y = np.where(t == 1, z["y1"].to_numpy(dtype=np.float64), z["y0"].to_numpy(dtype=np.float64))
    tau = z["mu1"].to_numpy(dtype=np.float64) - z["mu0"].to_numpy(dtype=np.float64)
    return SourceTable(X=X, columns=columns, T=t, Y=y, tau=tau, outcome="y", source=(src_x, f"causallib=={version}:{rel}"))


IHDP_FILE = "econml/data/ihdp/sim.csv"


@functools.lru_cache(maxsize=1)
def ihdp_covariates() -> Tuple[np.ndarray, np.ndarray, str]:
    """IHDP covariates (747 × 25, native units) and treatment, as econml's surfaces use them.

    The filter is Hill's (2011, §4.1) and econml's: children of nonwhite
    mothers are removed from the treatment group (985 → 747 rows, 139
    treated). Columns are :data:`IHDP_COVARIATES` in native units (econml
    z-scores the first six over all 747 rows, adds 1 to ``first`` and an
    intercept column before drawing the surface; those are affine maps of
    these columns, so τ is still a function of them; the family's own
    scaling is fitted on the context only).

    Returns:
        (X, T, source).
    """
    import pandas as pd

    path, version = package_file("econml", IHDP_FILE)
    frame = pd.read_csv(path)
    kept = frame[~((frame["treat"] == 1) & (frame["momwhite"] == 0))]
    return (kept[list(IHDP_COVARIATES)].to_numpy(dtype=np.float64), kept["treat"].to_numpy(dtype=np.int8),
            f"econml=={version}:{IHDP_FILE}")


def ihdp_table(surface: str, seed: int) -> SourceTable:
    """One draw of IHDP response surface ``"A"`` or ``"B"`` (Hill 2011, §4.1) through econml 0.17.0.

    econml draws the coefficients β and the noise from
    ``RandomState(seed)``: surface A, Y = X̃β + 4T + ε with τ = 4 for every
    unit; surface B, Y(0) = exp((X̃ + 0.5)β), Y(1) = X̃β − ω, τ(x) =
    X̃β − ω − exp((X̃ + 0.5)β) with ω set so the mean effect on the treated
    is 4 (X̃: econml's scaled covariates with an intercept; the offset is 0
    on the intercept). ``true_TE`` is returned as τ.

    Args:
        surface: ``"A"`` or ``"B"``.
        seed: 0 ≤ seed < 2**32 (a NumPy ``RandomState`` seed).

    Raises:
        ValueError: unknown surface, or econml's rows disagree with the table read here.
    """
    from econml.data import dgps

    fn = {"A": dgps.ihdp_surface_A, "B": dgps.ihdp_surface_B}.get(str(surface).upper())
    if fn is None:
        raise ValueError(f"IHDP surface must be 'A' or 'B', got {surface!r}")
    X, T, source = ihdp_covariates()
    Y, T_e, _, tau = fn(random_state=int(seed))
    if not np.array_equal(np.asarray(T_e, dtype=np.int8), T):
        raise ValueError("econml's IHDP surface rows disagree with econml/data/ihdp/sim.csv after Hill's filter")
    return SourceTable(X=X, columns=IHDP_COVARIATES, T=T, Y=np.asarray(Y, dtype=np.float64).ravel(),
                       tau=np.asarray(tau, dtype=np.float64).ravel(), outcome="y",
                       source=(source, f"econml.data.dgps.ihdp_surface_{str(surface).upper()}"))


#: econml 0.17.0's coefficient draws (values, probabilities) of surfaces A and B (``econml.data.dgps``)
IHDP_BETA_DRAWS = {"A": ((0, 1, 2, 3, 4), (0.5, 0.2, 0.15, 0.1, 0.05)),
                   "B": ((0, 0.1, 0.2, 0.3, 0.4), (0.6, 0.1, 0.1, 0.1, 0.1))}


def ihdp_beta(surface: str, seed: int) -> np.ndarray:
    """The (26,) coefficients β econml draws for ``ihdp_surface_{surface}(random_state=seed)``: entry 0 is
    the intercept's, entry 1 + j that of :data:`IHDP_COVARIATES` [j].

    Reproduces econml 0.17.0's first draw (``RandomState(seed).choice(values, 26, p=…)``) because
    econml does not return β; the test suite checks it against econml's ``true_TE`` of surface B.
    Use: in a replicate where β of b.marr is 0 the hidden variable does not enter the outcome, so
    the ``hc`` view loses no confounding there (README, "IHDP").

    Raises:
        ValueError: unknown surface.
    """
    if str(surface).upper() not in IHDP_BETA_DRAWS:
        raise ValueError(f"IHDP surface must be 'A' or 'B', got {surface!r}")
    values, probs = IHDP_BETA_DRAWS[str(surface).upper()]
    rs = np.random.RandomState(int(seed))
    return rs.choice(list(values), size=len(IHDP_COVARIATES) + 1, replace=True, p=list(probs)).astype(np.float64)


def describe_sources() -> List[str]:
    """The files this family reads (for the README and ``arena show``)."""
    return [NSW_FILE, CPS_FILE] + [f"{ACIC_DIR}/x.csv"] + [f"{ACIC_DIR}/zymu_{k}.csv" for k in ACIC_INSTANCES] \
        + [IHDP_FILE]
