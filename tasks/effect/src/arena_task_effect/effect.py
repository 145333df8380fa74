"""The effect-estimation task: datasets with roles, oracles, estimates, metrics.

The arena's second task (CausalIDView, the project's third seed paper): a
method estimates the conditional average treatment effect (CATE)
τ(x) = E[Y(1) − Y(0) | X = x] of a binary treatment T on an outcome Y at a
set of *query* units, from a *context* of observed units. What the method
observes is a *view*: the covariates X, T, Y and the auxiliary variables the
view keeps, each with its role (:data:`EFFECT_ROLES`).

Three kinds of object, kept apart on purpose:

* :class:`EffectDataset` — what a method process receives (context table,
  query covariates, roles, query ids). It never holds a potential outcome or
  the oracle CATE; the runner writes it to the worker's ``.npz`` as is.
* :class:`EffectOracle` — what only the harness holds: τ at the queries and,
  for a partial-identification view, the oracle identified-set endpoints.
* :class:`EffectPrediction` — what a method returns: τ̂ at the queries, or
  estimated interval endpoints ``[L̂, Û]``.

Metrics (CausalIDView App. E.1; the paper's displayed equations were lost in
extraction, so these are written from the stated definitions, each derived
below in its docstring): sPEHE² and its exact decomposition into the
mean-effect error and the centred-CATE error, the bound-endpoint RMSE and
containment, and the paired Stay / Move response errors (§6 RQ2, Fig. 3).
"""

from __future__ import annotations

import io
import json
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence

import attrs
import numpy as np

from causalarena.tasks import task_of  # noqa: F401 - re-exported: the task an object serves

#: roles of the auxiliary variables a view may keep (CausalIDView §4.1.2, App. B)
EFFECT_ROLES = ("confounder", "mediator", "instrument", "treatment_proxy", "outcome_proxy")
#: what an effect dataset asks for: a point CATE, or an interval per query (partial identification, App. B.5)
EFFECT_TARGETS = ("cate", "bounds")
#: outcome types
OUTCOME_TYPES = ("continuous", "binary")
#: the reader of a saved :class:`EffectDataset` (written into the file; the effect task's ``loader``)
LOADER = "arena_task_effect.effect:EffectDataset.load"
#: maintained assumptions of a ``bounds`` target (App. B.5): worst-case (Manski), monotone IV, marginal sensitivity
BOUND_ASSUMPTIONS = ("manski", "iv", "msm")


def _f64(x: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64))


def _matrix(name: str, x: Any, rows: int) -> np.ndarray:
    arr = _f64(x)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or arr.shape[0] != rows:
        raise ValueError(f"EffectDataset.{name} must be ({rows} × k), got shape {arr.shape}")
    return arr


def _roles(name: str, value: Mapping[str, Any], rows: int) -> Dict[str, np.ndarray]:
    out: Dict[str, np.ndarray] = {}
    for role, arr in dict(value or {}).items():
        if role not in EFFECT_ROLES:
            raise ValueError(f"EffectDataset.{name}: unknown role {role!r}; expected one of {', '.join(EFFECT_ROLES)}")
        out[role] = _matrix(f"{name}[{role!r}]", arr, rows)
    return out


@attrs.define(eq=False)
class EffectDataset:
    """One effect-estimation table as a method sees it: context units and query units.

    Attributes:
        X: (n × p) float64 covariates of the n context units.
        T: (n,) treatment of the context units, 0 or 1 (stored as int8).
        Y: (n,) float64 observed outcome Y = Y(T) of the context units.
        auxiliary: role → (n × k) float64 values of the view's auxiliary
            variables at the context units (roles: :data:`EFFECT_ROLES`).
        X_query: (q × p) covariates of the q query units (τ is asked there).
        auxiliary_query: role → (q × k) factual values of the view's
            auxiliaries at the query units (a mediator there is post-treatment:
            a total-effect estimator must not condition on it).
        query_ids: (q,) int64 ids of the query units, shared by every view of a world.
        unit_ids: (n,) int64 ids of the context units.
        columns: ``"covariates"`` → p names, and role → k names.
        view: the view's name (``"bd"``, ``"fd"``, ``"iv"``, ``"px"``, ``"hc"`` …).
        outcome: ``"continuous"`` or ``"binary"``.
        target: ``"cate"`` (a point per query) or ``"bounds"`` (an interval).
        assumption: for ``bounds``: ``"manski"``, ``"iv"`` or ``"msm"``; else ``""``.
        gamma: the sensitivity level Γ ≥ 1 of an ``"msm"`` bounds target, else None.
        metadata: family, scm_id, split, replicate, seed, factors …

    Raises:
        ValueError: a shape, a role, a treatment value or an option is wrong;
            the message names the field.
    """

    task: ClassVar[str] = "effect"

    X: np.ndarray = attrs.field(converter=_f64)
    T: np.ndarray
    Y: np.ndarray = attrs.field(converter=_f64)
    X_query: np.ndarray = attrs.field(converter=_f64)
    query_ids: np.ndarray
    auxiliary: Dict[str, np.ndarray] = attrs.field(factory=dict)
    auxiliary_query: Dict[str, np.ndarray] = attrs.field(factory=dict)
    unit_ids: Optional[np.ndarray] = None
    columns: Dict[str, List[str]] = attrs.field(factory=dict)
    view: str = ""
    outcome: str = "continuous"
    target: str = "cate"
    assumption: str = ""
    gamma: Optional[float] = None
    metadata: Dict[str, Any] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        if self.X.ndim != 2:
            raise ValueError(f"EffectDataset.X must be 2-D (n × p), got shape {self.X.shape}")
        n, p = self.X.shape
        t = np.asarray(self.T)
        if t.shape != (n,):
            raise ValueError(f"EffectDataset.T must have shape ({n},), got {t.shape}")
        if t.size and not np.isin(t, (0, 1)).all():
            bad = np.unique(t[~np.isin(t, (0, 1))])[:3]
            raise ValueError(f"EffectDataset.T must be 0/1 (binary treatment), found {bad.tolist()}")
        self.T = t.astype(np.int8)
        if self.Y.shape != (n,):
            raise ValueError(f"EffectDataset.Y must have shape ({n},), got {self.Y.shape}")
        if self.X_query.ndim != 2 or self.X_query.shape[1] != p:
            raise ValueError(f"EffectDataset.X_query must be (q × {p}), got shape {self.X_query.shape}")
        q = self.X_query.shape[0]
        self.query_ids = np.asarray(self.query_ids, dtype=np.int64)
        if self.query_ids.shape != (q,):
            raise ValueError(f"EffectDataset.query_ids must have shape ({q},), got {self.query_ids.shape}")
        self.unit_ids = (np.arange(n, dtype=np.int64) if self.unit_ids is None
                         else np.asarray(self.unit_ids, dtype=np.int64))
        if self.unit_ids.shape != (n,):
            raise ValueError(f"EffectDataset.unit_ids must have shape ({n},), got {self.unit_ids.shape}")
        self.auxiliary = _roles("auxiliary", self.auxiliary, n)
        self.auxiliary_query = _roles("auxiliary_query", self.auxiliary_query, q)
        extra = sorted(set(self.auxiliary_query) - set(self.auxiliary))
        if extra:
            raise ValueError(f"EffectDataset.auxiliary_query has role(s) {extra} the context lacks")
        cols = {k: [str(c) for c in v] for k, v in dict(self.columns or {}).items()}
        cols.setdefault("covariates", [f"x{j}" for j in range(p)])
        for role, arr in self.auxiliary.items():
            cols.setdefault(role, [f"{role}{j}" if arr.shape[1] > 1 else role for j in range(arr.shape[1])])
        for key, names in cols.items():
            width = p if key == "covariates" else (self.auxiliary[key].shape[1] if key in self.auxiliary else None)
            if width is None:
                raise ValueError(f"EffectDataset.columns[{key!r}] names a role the dataset does not carry")
            if len(names) != width:
                raise ValueError(f"EffectDataset.columns[{key!r}] has {len(names)} names for {width} columns")
        self.columns = cols
        if self.outcome not in OUTCOME_TYPES:
            raise ValueError(f"EffectDataset.outcome {self.outcome!r} not in {OUTCOME_TYPES}")
        if self.target not in EFFECT_TARGETS:
            raise ValueError(f"EffectDataset.target {self.target!r} not in {EFFECT_TARGETS}")
        if self.target == "bounds" and self.assumption not in BOUND_ASSUMPTIONS:
            raise ValueError(f"EffectDataset.assumption {self.assumption!r} must be one of {BOUND_ASSUMPTIONS} "
                             "for a bounds target")
        if self.assumption == "msm" and (self.gamma is None or not float(self.gamma) >= 1.0):
            raise ValueError(f"EffectDataset.gamma must be a sensitivity level >= 1 for an msm target, got {self.gamma}")

    @property
    def n(self) -> int:
        """Context units."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Covariates p (the run record's ``d`` column)."""
        return int(self.X.shape[1])

    @property
    def q(self) -> int:
        """Query units."""
        return int(self.X_query.shape[0])

    @property
    def roles(self) -> List[str]:
        """The auxiliary roles this view keeps, in :data:`EFFECT_ROLES` order."""
        return [r for r in EFFECT_ROLES if r in self.auxiliary]

    def features(self, roles: Sequence[str] = (), query: bool = False) -> np.ndarray:
        """X with the named roles' columns appended: (n × p′), or (q × p′) at the queries.

        Raises:
            KeyError: a role this view does not carry (at the queries, when ``query``).
        """
        aux = self.auxiliary_query if query else self.auxiliary
        base = self.X_query if query else self.X
        for role in roles:
            if role not in aux:
                raise KeyError(f"view {self.view!r} carries no {role!r} {'at the queries' if query else ''}".rstrip())
        return np.hstack([base] + [aux[r] for r in roles]) if roles else base

    def without_truth(self) -> "EffectDataset":
        """The dataset itself: it never holds oracle quantities (they live in :class:`EffectOracle`)."""
        return self

    # -- serialisation (worker protocol) -------------------------------------
    def to_npz_bytes(self) -> bytes:
        """Serialise losslessly to ``.npz`` bytes (options and metadata as JSON)."""
        assert self.unit_ids is not None  # set in __attrs_post_init__
        arrays: Dict[str, np.ndarray] = dict(
            task=np.asarray("effect"), loader=np.asarray(LOADER), X=self.X, T=self.T, Y=self.Y, X_query=self.X_query,
            query_ids=self.query_ids, unit_ids=self.unit_ids,
            options=np.asarray(json.dumps(dict(columns=self.columns, view=self.view, outcome=self.outcome,
                                               target=self.target, assumption=self.assumption, gamma=self.gamma),
                                          sort_keys=True)),
            metadata=np.asarray(json.dumps(self.metadata, sort_keys=True, default=_json_default)),
        )
        for role, arr in self.auxiliary.items():
            arrays[f"aux__{role}"] = arr
        for role, arr in self.auxiliary_query.items():
            arrays[f"auxq__{role}"] = arr
        buf = io.BytesIO()
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        return buf.getvalue()

    def save(self, path: str) -> None:
        with open(path, "wb") as fh:
            fh.write(self.to_npz_bytes())

    @classmethod
    def load(cls, path_or_bytes: Any) -> "EffectDataset":
        """Inverse of :meth:`to_npz_bytes` / :meth:`save`.

        Raises:
            ValueError: the file is not an effect dataset.
        """
        src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, (bytes, bytearray)) else path_or_bytes
        with np.load(src, allow_pickle=False) as z:
            if "task" not in z.files or str(z["task"]) != "effect":
                raise ValueError("not an effect dataset (.npz without task = 'effect')")
            opts = json.loads(str(z["options"]))
            return cls(X=z["X"], T=z["T"], Y=z["Y"], X_query=z["X_query"], query_ids=z["query_ids"],
                       unit_ids=z["unit_ids"],
                       auxiliary={k[5:]: z[k] for k in z.files if k.startswith("aux__")},
                       auxiliary_query={k[6:]: z[k] for k in z.files if k.startswith("auxq__")},
                       metadata=json.loads(str(z["metadata"])), **opts)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")



@attrs.define(eq=False)
class EffectOracle:
    """The harness-side truth of one effect table; never sent to a method process.

    Attributes:
        query_ids: (q,) ids of the query units, in the dataset's order.
        tau: (q,) oracle CATE τ(x) at the queries (outcome units).
        lower, upper: (q,) oracle identified-set endpoints of a ``bounds``
            target, else None.

    Raises:
        ValueError: shapes disagree.
    """

    query_ids: np.ndarray
    tau: np.ndarray = attrs.field(converter=_f64)
    lower: Optional[np.ndarray] = None
    upper: Optional[np.ndarray] = None

    def __attrs_post_init__(self) -> None:
        self.query_ids = np.asarray(self.query_ids, dtype=np.int64)
        q = self.query_ids.shape[0]
        if self.tau.shape != (q,):
            raise ValueError(f"EffectOracle.tau must have shape ({q},), got {self.tau.shape}")
        for name in ("lower", "upper"):
            value = getattr(self, name)
            if value is not None:
                value = _f64(value)
                if value.shape != (q,):
                    raise ValueError(f"EffectOracle.{name} must have shape ({q},), got {value.shape}")
                setattr(self, name, value)
        if (self.lower is None) != (self.upper is None):
            raise ValueError("EffectOracle: give both lower and upper, or neither")


@attrs.define(eq=False)
class EffectPrediction:
    """A method's estimate at the query units.

    Attributes:
        cate: (q,) estimated CATE τ̂ at the queries, or None for a bounds method.
        lower, upper: (q,) estimated interval endpoints, or None.
    """

    cate: Optional[np.ndarray] = None
    lower: Optional[np.ndarray] = None
    upper: Optional[np.ndarray] = None
    kind: ClassVar[str] = "effect"

    def to_json(self) -> dict:
        """A JSON-able dict (the worker's wire format): each present array as a (nested) list.

        The shape is kept as the method gave it: the runner's :func:`check_effect_output` must see a
        (q/2, 2) answer as (q/2, 2), not as the (q,) a ``ravel`` would make of it.
        """
        out: dict = {"kind": "effect"}
        for name in ("cate", "lower", "upper"):
            value = getattr(self, name)
            if value is not None:
                out[name] = np.asarray(value, dtype=float).tolist()
        return out

    @classmethod
    def from_json(cls, obj: dict) -> "EffectPrediction":
        """Inverse of :meth:`to_json` (shapes as sent). Raises ValueError when it is not an effect prediction
        or an array is ragged."""
        if obj.get("kind") != "effect":
            raise ValueError(f"not an effect prediction (kind {obj.get('kind')!r})")
        return cls(**{k: np.asarray(obj[k], dtype=float) for k in ("cate", "lower", "upper")
                      if obj.get(k) is not None})


def check_effect_output(pred: EffectPrediction, dataset: EffectDataset) -> Optional[str]:
    """Why ``pred`` is not a valid answer to ``dataset`` (None when it is).

    A ``cate`` target needs a finite (q,) ``cate``; a ``bounds`` target needs
    finite (q,) ``lower`` ≤ ``upper``.
    """
    q = dataset.q
    names = ("cate",) if dataset.target == "cate" else ("lower", "upper")
    for name in names:
        value = getattr(pred, name)
        if value is None:
            return f"the method returned no {name!r} for a {dataset.target} target"
        if value.shape != (q,):
            return f"{name} has shape {value.shape}, expected ({q},) (one per query unit)"
        bad = int((~np.isfinite(value)).sum())
        if bad:
            return f"{name} has {bad} non-finite value(s) of {q}"
    if dataset.target == "bounds":
        assert pred.lower is not None and pred.upper is not None
        crossed = int((pred.lower > pred.upper + 1e-12).sum())
        if crossed:
            return f"lower > upper at {crossed} of {q} query units"
    return None


def check_effect_input(dataset: EffectDataset, handles_missing: bool = False) -> Optional[str]:
    """Why a method cannot be given ``dataset`` (None when it can): NaN or inf entries it does not
    declare it handles (naming the field and column), or an empty treatment arm."""
    fields = {"X": dataset.X, "Y": dataset.Y, "X_query": dataset.X_query}
    fields.update({f"auxiliary[{r!r}]": a for r, a in dataset.auxiliary.items()})
    for name, arr in fields.items():
        if np.isinf(arr).any():
            return f"{name} has infinite entries"
        nan = np.isnan(arr)
        if nan.any() and not handles_missing:
            col = int(np.flatnonzero(nan.reshape(len(arr), -1).any(axis=0))[0])
            label = dataset.columns.get("covariates", [])[col] if name in ("X", "X_query") else str(col)
            return f"{name} has {int(nan.sum())} missing entries (first in column {label}) and the method " \
                   "does not declare handles_missing"
    arms = np.bincount(dataset.T.astype(np.int64), minlength=2)
    if arms.min() < 2:
        return f"treatment arms have {arms[0]} control and {arms[1]} treated context units (need >= 2 each)"
    return None


# ---------------------------------------------------------------------------
# Metrics (CausalIDView App. E.1)
# ---------------------------------------------------------------------------


def spehe2(oracle: EffectOracle, pred: EffectPrediction) -> Optional[float]:
    """sPEHE² = (1/q) Σ_i (τ̂(x_i) − τ(x_i))² over the query units (squared √PEHE;
    Hill 2011, CausalIDView App. E.1.1); None for a bounds estimate.

    Exact decomposition (a sum of squares split into its mean and its centred
    part): with ē = mean_i(τ̂ − τ), Σ(τ̂ − τ)²/q = ē² + Σ((τ̂ − τ̂̄) − (τ − τ̄))²/q,
    i.e. ``spehe2 = mean_effect_error + centred_cate_error``.
    """
    if pred.cate is None:
        return None
    return float(np.mean((pred.cate - oracle.tau) ** 2))


def mean_effect_error(oracle: EffectOracle, pred: EffectPrediction) -> Optional[float]:
    """(mean_i τ̂(x_i) − mean_i τ(x_i))²: the error of the query-mean effect (App. E.1.1)."""
    if pred.cate is None:
        return None
    return float((np.mean(pred.cate) - np.mean(oracle.tau)) ** 2)


def centred_cate_error(oracle: EffectOracle, pred: EffectPrediction) -> Optional[float]:
    """(1/q) Σ_i ((τ̂_i − mean τ̂) − (τ_i − mean τ))²: the error of the centred CATE function (App. E.1.1)."""
    if pred.cate is None:
        return None
    return float(np.mean(((pred.cate - pred.cate.mean()) - (oracle.tau - oracle.tau.mean())) ** 2))


def bound_rmse(oracle: EffectOracle, pred: EffectPrediction) -> Optional[float]:
    """Endpoint RMSE √((1/2q) Σ_i [(L̂_i − L_i)² + (Û_i − U_i)²]) against the oracle identified set
    (App. E.1.2); None without oracle or estimated bounds."""
    if oracle.lower is None or oracle.upper is None or pred.lower is None or pred.upper is None:
        return None
    return float(np.sqrt(0.5 * np.mean((pred.lower - oracle.lower) ** 2 + (pred.upper - oracle.upper) ** 2)))


def containment(oracle: EffectOracle, pred: EffectPrediction) -> Optional[float]:
    """Target-CATE containment: the share of queries with L̂_i ≤ τ_i ≤ Û_i (App. B.5; not a CI coverage)."""
    if pred.lower is None or pred.upper is None:
        return None
    return float(np.mean((pred.lower <= oracle.tau) & (oracle.tau <= pred.upper)))


def bound_width(oracle: EffectOracle, pred: EffectPrediction) -> Optional[float]:
    """Mean estimated interval width (1/q) Σ_i (Û_i − L̂_i) (descriptive)."""
    if pred.lower is None or pred.upper is None:
        return None
    return float(np.mean(pred.upper - pred.lower))


def stay_error(tau_hat: Any, tau_hat_stay: Any) -> float:
    """Stay error (1/q) Σ_i (τ̂^S(x_i) − τ̂(x_i))² (§6 RQ2, Fig. 3).

    The Stay world reverses the confounding contribution and keeps
    τ₀^S = τ₀, so a method that responds only to the target returns the same
    estimates: any change is an error. Both arrays are (q,) over the same
    query ids, in the same order.
    """
    a, b = _f64(tau_hat), _f64(tau_hat_stay)
    return float(np.mean((b - a) ** 2))


def move_tracking_error(tau_hat: Any, tau_hat_move: Any, tau: Any, tau_move: Any) -> float:
    """Move tracking error (1/q) Σ_i ((τ̂^M_i − τ̂_i) − (τ^M_i − τ_i))² (§6 RQ2, Fig. 3).

    The Move world doubles the mediator–outcome response, so τ₀^M = 2τ₀; the
    estimated change should track the true change τ^M − τ = τ₀.
    """
    a, b, t, tm = _f64(tau_hat), _f64(tau_hat_move), _f64(tau), _f64(tau_move)
    return float(np.mean(((b - a) - (tm - t)) ** 2))


#: (name, higher_is_better, description) of the per-run effect metrics, scored by :func:`effect_metrics`
EFFECT_METRICS = (
    ("spehe2", False, "sPEHE² = mean (τ̂ − τ)² at the queries (CausalIDView App. E.1)"),
    ("mean_effect_error", False, "(mean τ̂ − mean τ)²: the mean-effect part of sPEHE²"),
    ("centred_cate_error", False, "mean ((τ̂ − mean τ̂) − (τ − mean τ))²: the centred-CATE part of sPEHE²"),
    ("bound_rmse", False, "endpoint RMSE of estimated bounds vs the oracle identified set (App. E.1.2)"),
    ("containment", True, "share of queries whose τ lies in the estimated bounds"),
    ("bound_width", False, "mean width of the estimated bounds (descriptive)"),
)
#: (name, description) of the paired response metrics, computed by the report from stored estimates
PAIRED_EFFECT_METRICS = (
    ("stay_error", "mean (τ̂^Stay − τ̂)²: invariance when the target is unchanged (Fig. 3)"),
    ("move_tracking_error", "mean ((τ̂^Move − τ̂) − (τ^Move − τ))²: tracking a changed target (Fig. 3)"),
)


def effect_metrics(oracle: EffectOracle, pred: EffectPrediction,
                   metrics: Mapping[str, Any]) -> Dict[str, Optional[float]]:
    """Every per-run effect metric of ``metrics`` (name → :class:`~causalarena.records.MetricInfo`
    of task ``effect``, not paired) on one estimate; a metric that raises or gives a non-finite
    value is None."""
    out: Dict[str, Optional[float]] = {}
    for name, info in metrics.items():
        if getattr(info, "task", "discovery") != "effect" or getattr(info, "paired", False):
            continue
        try:
            value = info.load()(oracle, pred)
        except Exception:  # noqa: BLE001 - an undefined metric, not a failed run
            value = None
        out[name] = None if value is None or not np.isfinite(value) else float(value)
    return out


class EffectMethod:
    """Base class of effect estimators, in scikit-learn's estimator style (like :class:`causalarena.method.Method`).

    ``__init__`` stores parameters; ``fit(dataset)`` reads an
    :class:`EffectDataset` and leaves ``cate_`` ((q,) τ̂ at
    ``dataset.X_query``) or ``lower_`` / ``upper_`` ((q,) each) for a bounds
    target. Raise :class:`causalarena.method.MethodEnvironmentError` for what
    this machine lacks (a checkpoint): the run is ``env_error``. A view the
    descriptor does not list in ``MethodInfo.views`` never reaches ``fit``
    (the run is ``unsupported``).
    """

    output_kind: ClassVar[Optional[str]] = "effect"

    @classmethod
    def preload(cls) -> None:
        """Heavy imports once per worker (see :meth:`causalarena.method.Method.preload`)."""

    def get_params(self) -> Dict[str, Any]:
        """Constructor parameters and their current values (provenance)."""
        import inspect

        sig = inspect.signature(type(self).__init__)
        return {name: getattr(self, name) for name, p in sig.parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and hasattr(self, name)}

    def fit(self, dataset: EffectDataset) -> "EffectMethod":  # pragma: no cover - abstract
        raise NotImplementedError

    def prediction(self, kind: Optional[str] = None) -> EffectPrediction:
        """The estimate as an :class:`EffectPrediction`.

        Raises:
            RuntimeError: ``fit`` has not been called (no ``cate_`` / ``lower_``).
        """
        cate = getattr(self, "cate_", None)
        lower, upper = getattr(self, "lower_", None), getattr(self, "upper_", None)
        if cate is None and lower is None:
            raise RuntimeError(f"{type(self).__name__}.fit() has not been called (no cate_ or lower_/upper_)")
        return EffectPrediction(cate=_as_column(cate), lower=_as_column(lower), upper=_as_column(upper))


def _as_column(value: Any) -> Optional[np.ndarray]:
    """``value`` as floats; a (q, 1) column becomes (q,). Any other shape is kept as it is, so the
    output check names it (``ravel`` once made a (50, 2) answer a scored (100,) one — or worse, a (q,) one
    when q was even and the method answered (q/2, 2))."""
    if value is None:
        return None
    arr = np.asarray(value, dtype=float)
    return arr[:, 0] if arr.ndim == 2 and arr.shape[1] == 1 else arr


class EffectInstance:
    """One effect world of a family: its views are the instance's splits.

    Subclasses set ``family``, ``scm_id``, ``splits`` (the views),
    ``n_replicates`` and ``factors``, and implement :meth:`dataset` and
    :meth:`oracle`; both are deterministic in ``(split, replicate)``.
    """

    task: ClassVar[str] = "effect"
    family: str
    scm_id: str
    splits: Sequence[str] = ()
    n_replicates: int = 1
    factors: Dict[str, Any]

    def dataset(self, split: str, replicate: int, standardise: bool = True, protocol: str = "default",
                n: Optional[int] = None) -> EffectDataset:  # pragma: no cover - abstract
        """The view ``split`` of replicate ``replicate`` as a method sees it (no oracle in it).

        Raises:
            ValueError: unknown view or replicate out of range.
        """
        raise NotImplementedError

    def oracle(self, split: str, replicate: int, n: Optional[int] = None) -> EffectOracle:  # pragma: no cover
        """The oracle at the same query units as :meth:`dataset` (harness side only)."""
        raise NotImplementedError

    def fingerprint(self) -> str:  # pragma: no cover - abstract
        """16 hex digits identifying the world's generator and parameters (part of every result key)."""
        raise NotImplementedError

    def describe(self) -> Dict[str, Any]:
        """What ``arena show FAMILY SCM_ID`` prints for a world: its views' roles and sizes (no oracle)."""
        first = self.dataset(tuple(self.splits)[0], 0)
        return {"factors": self.factors, "views": {v: self.dataset(v, 0).roles for v in self.splits},
                "replicates": self.n_replicates, "context_units": first.n, "query_units": first.q,
                "covariates": first.d, "outcome": first.outcome, "target": first.target}
