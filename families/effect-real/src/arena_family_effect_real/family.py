"""The ``effect_real`` family: real and semi-synthetic effect tables with a known CATE.

Instances (ids, CausalIDView section, source package; see README):

* ``nsw-null`` — NSW experiment, pre-treatment outcome re75 as a negative
  control, τ = 0 (§4.3); causaldata 0.1.5. 320 context + 100 query units.
* ``nsw-cps-null`` — NSW treated + CPS comparison group, same outcome, τ = 0
  but the contrast is confounded; causaldata 0.1.5. 1,024 + 256.
* ``acic16-01`` … ``acic16-10`` — the 10 ACIC 2016 DGPs causallib ships,
  τ = mu1 − mu0 (§4.2, App. E.3). 1,024 + 100.
* ``ihdp-a``, ``ihdp-b`` — IHDP response surfaces A and B (Hill 2011)
  through econml; views ``bd`` (25 covariates) and ``hc`` (b.marr removed,
  same target; App. E.5). 672 + 75.

Replicates (default 40) are context/query realisations of the fixed table
(for IHDP also fresh draws of the response surface). Every view of a
replicate shares its units, treatments, outcomes, query ids and oracle.

Preprocessing (App. E.4), all fitted on the context only: covariates are
z-scored with the context mean and population SD when ``standardise`` (the
queries get the context's transform; a column constant in the context is
centred only); the negative-control outcome is always z-scored with the
context mean and population SD, and its oracle τ = 0 stays 0 on that scale;
the semi-synthetic outcomes stay in their native units (the paper reports
them so: Table 1). No table has missing values or unencoded categoricals
(ACIC's three string columns are ordinal codes, :mod:`.sources`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import attrs
import numpy as np

from arena_task_effect.effect import EffectDataset, EffectInstance, EffectOracle
from causalarena.family import Family, InstanceSummary
from causalarena.protocol import cell_seed

from . import __version__
from .sources import (
    ACIC_DIR,
    ACIC_INSTANCES,
    IHDP_COVARIATES,
    IHDP_HIDDEN,
    NSW_COVARIATES,
    SourceTable,
    acic16_table,
    ihdp_covariates,
    ihdp_table,
    nsw_cps_table,
    nsw_table,
)

FAMILY = "effect_real"
#: the dataset groups, in listing order (the option ``datasets`` selects among them)
DATASETS = ("nsw", "nsw_cps", "acic16", "ihdp")
N_REPLICATES = 40  #: context/query realisations per instance (App. E.3, E.4: 40 splits)


def _round(x: float) -> int:
    """Round half up (Python's ``round`` rounds half to even)."""
    return int(np.floor(x + 0.5))


def stratified_split(T: np.ndarray, n_context: int, n_query: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """Disjoint (context, query) row indices, each treatment-stratified to the table's treated share.

    With N rows of which N₁ treated, the query set holds
    q₁ = round(q·N₁/N) treated and q − q₁ control rows, and the context
    n₁ = round(n·N₁/N) treated and n − n₁ control rows drawn from the rest
    (App. E.4: "context sampling is treatment-stratified to approximately
    preserve the eligible sample's treatment proportion"; the queries are
    stratified too, so the small NSW table cannot run out of one arm). The
    queries are drawn first from a per-arm permutation that does not depend
    on ``n_context``, so a smaller context (``dataset(n=…)``) keeps the same
    queries and the same oracle. Written here rather than with
    ``sklearn.model_selection.train_test_split(stratify=…)`` because that
    stratifies each split to the *remaining* rows and its query draw would
    change with the context size.

    Args:
        T: (N,) 0/1 treatment.
        n_context, n_query: sizes (≥ 1 each).
        seed: NumPy ``default_rng`` seed.

    Returns:
        (context, query): (n_context,) and (n_query,) int64 row indices, each in a random order.

    Raises:
        ValueError: a size is < 1, or an arm has too few rows for the stratified counts (names the sizes).
    """
    T = np.asarray(T)
    if n_context < 1 or n_query < 1:
        raise ValueError(f"context size n and query size must be >= 1, got n={n_context}, queries={n_query}")
    rng = np.random.default_rng(seed)
    treated = rng.permutation(np.flatnonzero(T == 1))
    control = rng.permutation(np.flatnonzero(T == 0))
    N = T.shape[0]
    q1 = _round(n_query * len(treated) / N)
    c1 = _round(n_context * len(treated) / N)
    q0, c0 = n_query - q1, n_context - c1
    if q1 + c1 > len(treated) or q0 + c0 > len(control):
        raise ValueError(f"n={n_context} context + {n_query} query units need {q1 + c1} treated and {q0 + c0} control "
                         f"rows; the table has {len(treated)} and {len(control)}")
    query = rng.permutation(np.concatenate([treated[:q1], control[:q0]]))
    context = rng.permutation(np.concatenate([treated[q1:q1 + c1], control[q0:q0 + c0]]))
    return context.astype(np.int64), query.astype(np.int64)


@attrs.define(eq=False)
class RealEffectInstance(EffectInstance):
    """One real or semi-synthetic effect table of the family.

    Attributes:
        scm_id: instance id (``"nsw-null"``, ``"acic16-03"``, ``"ihdp-b"`` …).
        dataset_name: ``"nsw"``, ``"nsw_cps"``, ``"acic16"`` or ``"ihdp"``.
        loader: replicate → :class:`~arena_family_effect_real.sources.SourceTable`
            (the fixed table, or the IHDP surface drawn for the replicate).
        columns: the p covariate names of the ``bd`` view.
        n_context, n_query: context and query units per replicate.
        splits: the views (``("bd",)``, or ``("bd", "hc")`` for IHDP).
        hidden: view → covariates the view removes (``{"hc": ("b.marr",)}``).
        outcome_scaling: ``"context"`` (z-scored with the context mean and
            population SD, the oracle divided by the same SD) or ``"native"``.
        n_replicates: context/query realisations.
        factors: ``dataset``, ``kind`` and the instance's own (``acic_dgp``, ``surface``).
        provenance: JSON-able description of the generator (part of :meth:`fingerprint`).
    """

    scm_id: str
    dataset_name: str
    loader: Callable[[int], SourceTable] = attrs.field(repr=False)
    columns: Tuple[str, ...]
    n_context: int
    n_query: int
    splits: Tuple[str, ...] = ("bd",)
    hidden: Dict[str, Tuple[str, ...]] = attrs.field(factory=dict)
    outcome_scaling: str = "native"
    n_replicates: int = N_REPLICATES
    factors: Dict[str, Any] = attrs.field(factory=dict)
    provenance: Dict[str, Any] = attrs.field(factory=dict)
    family: str = FAMILY
    _fingerprint: Optional[str] = attrs.field(default=None, init=False, repr=False)

    # -- cells ---------------------------------------------------------------
    def _check(self, split: str, replicate: int, protocol: str = "default") -> None:
        if split not in self.splits:
            raise ValueError(f"{self.scm_id}: unknown view {split!r}; this instance has {list(self.splits)}")
        if not isinstance(replicate, (int, np.integer)) or not 0 <= int(replicate) < self.n_replicates:
            raise ValueError(f"{self.scm_id}: replicate must be 0..{self.n_replicates - 1}, got {replicate!r}")
        if protocol != "default":
            raise ValueError(f"{self.scm_id}: protocol {protocol!r} is not offered (effect tables have no "
                             "intervention protocol; use 'default')")

    def world_seed(self, replicate: int) -> int:
        """The replicate's seed, shared by all views: :func:`causalarena.protocol.cell_seed` of
        ``(family, scm_id, "world", replicate)``. It draws the split, is the dataset's
        ``metadata["seed"]`` (the seed the runner hands the method, so the paired views of a
        replicate are fitted with the same seed) and, reduced mod 2**32, the IHDP surface draw."""
        return cell_seed(self.family, self.scm_id, "world", int(replicate))

    def split_indices(self, replicate: int, n: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(context, query) row indices of the replicate (:func:`stratified_split`); ``n`` overrides the
        context size (the queries stay the same).

        Raises:
            ValueError: ``n`` does not fit the table with the queries (names n and the arm counts).
        """
        return stratified_split(self._table(replicate).T, int(n) if n is not None else self.n_context, self.n_query,
                                self.world_seed(replicate))

    def _table(self, replicate: int) -> SourceTable:
        return self.loader(int(replicate))

    def view_columns(self, split: str) -> List[int]:
        """Positions of the covariates the view keeps (all but ``hidden[split]``)."""
        drop = set(self.hidden.get(split, ()))
        return [j for j, c in enumerate(self.columns) if c not in drop]

    def _outcome_sd(self, y_context: np.ndarray) -> Tuple[float, float]:
        mean, sd = float(np.mean(y_context)), float(np.std(y_context))
        if not sd > 0:
            raise ValueError(f"{self.scm_id}: the context outcome is constant; it cannot be standardised")
        return mean, sd

    def dataset(self, split: str, replicate: int, standardise: bool = True, protocol: str = "default",
                n: Optional[int] = None) -> EffectDataset:
        """The view ``split`` of replicate ``replicate``: (n × p) context, (q × p) queries, no oracle.

        ``standardise`` z-scores the covariates with the context's mean and
        population SD (:class:`sklearn.preprocessing.StandardScaler`, fitted
        on the context, applied to both). The outcome is z-scored with the
        context mean and population SD for a negative control
        (``outcome_scaling="context"``, App. E.4), else left native.

        Raises:
            ValueError: unknown view, replicate out of range, a protocol other
                than ``"default"``, or an ``n`` that does not fit.
        """
        from sklearn.preprocessing import StandardScaler

        self._check(split, replicate, protocol)
        table = self._table(replicate)
        ctx, qry = self.split_indices(replicate, n)
        keep = self.view_columns(split)
        Xc, Xq = table.X[np.ix_(ctx, keep)], table.X[np.ix_(qry, keep)]
        if standardise:
            scaler = StandardScaler().fit(Xc)  # population SD (ddof = 0); a constant column gets scale 1
            Xc, Xq = scaler.transform(Xc), scaler.transform(Xq)
        y = table.Y[ctx]
        if self.outcome_scaling == "context":
            mean, sd = self._outcome_sd(y)
            y = (y - mean) / sd
        meta = dict(family=self.family, scm_id=self.scm_id, split=split, view=split, replicate=int(replicate),
                    seed=self.world_seed(replicate), factors=dict(self.factors), dataset=self.dataset_name,
                    outcome_column=table.outcome, outcome_scale=self.outcome_scaling,
                    standardised=bool(standardise), source_rows=int(table.X.shape[0]), source=list(table.source),
                    hidden=list(self.hidden.get(split, ())))
        return EffectDataset(X=Xc, T=table.T[ctx], Y=y, X_query=Xq, query_ids=qry, unit_ids=ctx,
                             columns={"covariates": [self.columns[j] for j in keep]}, view=split,
                             outcome="continuous", target="cate", metadata=meta)

    def oracle(self, split: str, replicate: int, n: Optional[int] = None) -> EffectOracle:
        """τ at the replicate's queries, on the dataset's outcome scale (the same for every view).

        Native scale: τ as the table gives it. Context-standardised outcome
        (Y − m)/s: τ/s, since E[(Y(1) − m)/s − (Y(0) − m)/s | x] = τ(x)/s;
        for a negative control τ = 0 stays 0 (App. E.4).

        Raises:
            ValueError: as :meth:`dataset`.
        """
        self._check(split, replicate)
        table = self._table(replicate)
        ctx, qry = self.split_indices(replicate, n)
        tau = table.tau[qry]
        if self.outcome_scaling == "context":
            tau = tau / self._outcome_sd(table.Y[ctx])[1]
        return EffectOracle(query_ids=qry, tau=tau)

    def fingerprint(self) -> str:
        """SHA-256 (16 hex) of the generator description, the sizes and the table's content.

        For IHDP the content is the covariates and treatment with econml's
        version and the surface name (the outcome is drawn per replicate).
        """
        if self._fingerprint is None:
            if self.dataset_name == "ihdp":
                X, T, source = ihdp_covariates()
                content = hashlib.sha256(X.tobytes() + T.astype(np.int64).tobytes()).hexdigest() + source
            else:
                content = self._table(0).digest()
            spec = dict(generator=f"arena-family-effect-real {__version__}", scm_id=self.scm_id,
                        dataset=self.dataset_name, columns=list(self.columns), n_context=self.n_context,
                        n_query=self.n_query, splits=list(self.splits), hidden=self.hidden,
                        outcome_scaling=self.outcome_scaling, provenance=self.provenance, content=content)
            self._fingerprint = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]
        return self._fingerprint


def _ihdp_loader(surface: str, scm_id: str) -> Callable[[int], SourceTable]:
    cache: Dict[int, SourceTable] = {}

    def load(replicate: int) -> SourceTable:
        if replicate not in cache:
            if len(cache) > 4:
                cache.clear()
            seed = cell_seed(FAMILY, scm_id, "world", replicate) % 2**32
            cache[replicate] = ihdp_table(surface, seed)
        return cache[replicate]

    return load


def build_instances(n_replicates: int = N_REPLICATES, datasets: Sequence[str] = DATASETS) -> List[RealEffectInstance]:
    """The family's instances for the selected dataset groups (cheap: no file is read).

    Raises:
        ValueError: an unknown dataset group or ``n_replicates`` < 1.
    """
    bad = [d for d in datasets if d not in DATASETS]
    if bad:
        raise ValueError(f"effect_real: unknown dataset(s) {bad}; known: {list(DATASETS)}")
    if int(n_replicates) < 1:
        raise ValueError(f"effect_real: n_replicates must be >= 1, got {n_replicates}")
    r = int(n_replicates)
    out: List[RealEffectInstance] = []
    neg = dict(kind="negative_control")
    semi = dict(kind="semi_synthetic")
    if "nsw" in datasets:
        out.append(RealEffectInstance(
            scm_id="nsw-null", dataset_name="nsw", loader=lambda _r: nsw_table(), columns=NSW_COVARIATES,
            n_context=320, n_query=100, outcome_scaling="context", n_replicates=r,
            factors=dict(dataset="nsw", **neg), provenance=dict(package="causaldata==0.1.5", outcome="re75")))
    if "nsw_cps" in datasets:
        out.append(RealEffectInstance(
            scm_id="nsw-cps-null", dataset_name="nsw_cps", loader=lambda _r: nsw_cps_table(),
            columns=NSW_COVARIATES, n_context=1024, n_query=256, outcome_scaling="context", n_replicates=r,
            factors=dict(dataset="nsw_cps", **neg), provenance=dict(package="causaldata==0.1.5", outcome="re75")))
    if "acic16" in datasets:
        columns = tuple([f"x_{j}" for j in range(1, 59)])
        for k in ACIC_INSTANCES:
            out.append(RealEffectInstance(
                scm_id=f"acic16-{k:02d}", dataset_name="acic16", loader=lambda _r, k=k: acic16_table(k),
                columns=columns, n_context=1024, n_query=100, n_replicates=r,
                factors=dict(dataset="acic16", acic_dgp=k, **semi),
                provenance=dict(package="causallib==0.10.0", files=[f"{ACIC_DIR}/x.csv", f"{ACIC_DIR}/zymu_{k}.csv"],
                                encoding="ordinal, sorted levels")))
    if "ihdp" in datasets:
        for surface in ("A", "B"):
            scm_id = f"ihdp-{surface.lower()}"
            out.append(RealEffectInstance(
                scm_id=scm_id, dataset_name="ihdp", loader=_ihdp_loader(surface, scm_id), columns=IHDP_COVARIATES,
                n_context=672, n_query=75, splits=("bd", "hc"), hidden={"hc": (IHDP_HIDDEN,)}, n_replicates=r,
                factors=dict(dataset="ihdp", surface=surface, **semi),
                provenance=dict(package="econml==0.17.0", surface=f"ihdp_surface_{surface}")))
    return out


class EffectRealFamily(Family):
    """The ``effect_real`` family (task ``effect``, kind ``real``).

    Options (``arena run --family-option effect_real.KEY=VALUE``):
        n_replicates: context/query realisations per instance (default 40).
        datasets: dataset groups to list, a subset of :data:`DATASETS`
            (default all; e.g. ``effect_real.datasets=nsw,ihdp``).

    Raises:
        ValueError: an unknown option or option value (named).
    """

    name = FAMILY
    OPTIONS = ("n_replicates", "datasets")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"effect_real family: unknown option(s) {unknown}; known: {list(self.OPTIONS)}")
        super().__init__(**options)
        datasets = options.get("datasets", DATASETS)
        if isinstance(datasets, str):
            datasets = tuple(d.strip() for d in datasets.split(",") if d.strip())
        n_rep = options.get("n_replicates", N_REPLICATES)
        try:
            n_rep = int(n_rep)
        except (TypeError, ValueError):
            raise ValueError(f"effect_real family: n_replicates must be an integer, got {n_rep!r}") from None
        self._instances = build_instances(n_rep, tuple(datasets))

    def instances(self) -> List[RealEffectInstance]:  # type: ignore[override]
        """All instances under the options (built cheaply; tables are read on first use)."""
        return list(self._instances)

    def listing(self) -> List[InstanceSummary]:
        """One summary per instance; ``d`` is the ``bd`` view's covariate count (no file is read)."""
        return [InstanceSummary(scm_id=i.scm_id, d=len(i.columns), splits=tuple(i.splits),
                                n_replicates=i.n_replicates) for i in self._instances]
