"""The effect task's conformance rules: the kits' check ids, answered for effect methods and families.

:mod:`arena_testkit` runs the same check ids for every plugin; for one whose descriptor says
``task="effect"`` it asks :meth:`arena_task_effect.task.EffectTask.method_checks` /
``family_checks`` for the rule of each id (:data:`METHOD_CHECKS`, :data:`FAMILY_CHECKS`): an
:class:`~arena_task_effect.effect.EffectMethod` factory, a valid estimate on every declared view of
a reference world (:func:`make_effect_dataset`), determinism, estimates that follow the query order
(under the id ``ignores_true_adjacency``), refits that forget earlier fits; for a family, an
EffectInstance listing, paired views, finite values, the context size, determinism and an oracle
that never reaches the method (CausalIDView App. D).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np

from arena_testkit._kit import ConformanceError, _fail, _skip, _strict_registry, _who
from arena_testkit.families import _cells, _dataset, _instances
from arena_testkit.methods import _build, _check_params_roundtrip
from causalarena.records import MethodInfo

__all__ = [
    "EFFECT_REFERENCE_VIEWS", "FAMILY_CHECKS", "METHOD_CHECKS", "ORACLE_KEYS", "make_effect_dataset",
]

#: the point views and the bounds views the reference effect world offers (CausalIDView §4.1.2, App. B.5)
EFFECT_REFERENCE_VIEWS = ("bd", "fd", "iv", "px", "hc", "pi_manski", "pi_iv", "pi_msm_2")
_VIEW_ROLES = {"bd": ("confounder",), "fd": ("mediator",), "iv": ("instrument",),
               "px": ("treatment_proxy", "outcome_proxy"), "hc": (), "pi_manski": (), "pi_iv": ("instrument",),
               "pi_msm_2": ()}


def make_effect_dataset(view: str = "bd", n: int = 300, q: int = 40, p: int = 4, seed: int = 0) -> Any:
    """A small effect table of one known world, as the view ``view`` shows it (no oracle inside).

    The world: X ~ N(0, I_p), U ∈ {−1, +1}, I ~ Bernoulli(½), binary proxies
    Z, W of U, T ~ Bernoulli(sigmoid(0.8U + I − ½)), mediator M = T + 0.5ε,
    Y = X₀ + U + (1 + X₁)M + 0.3ε′ (so τ(x) = 1 + x₁); the ``pi_*`` views have
    a binary Y = 1{V < 0.5 + 0.2·tanh(U + X₀) + 0.2(T − ½)·tanh(X₁)}. The
    first n units are the context, the next q the queries.

    Raises:
        ValueError: a view not in :data:`EFFECT_REFERENCE_VIEWS`.
    """
    from .effect import EffectDataset

    if view not in _VIEW_ROLES:
        raise ValueError(f"unknown reference view {view!r}; expected one of {EFFECT_REFERENCE_VIEWS}")
    rng = np.random.default_rng(seed)
    N = n + q
    X = rng.normal(size=(N, p))
    U = rng.choice([-1.0, 1.0], size=N)
    Iv = (rng.uniform(size=N) < 0.5).astype(float)
    Z = (rng.uniform(size=N) < 1 / (1 + np.exp(-1.5 * U))).astype(float)
    W = (rng.uniform(size=N) < 1 / (1 + np.exp(-1.5 * U))).astype(float)
    T = (rng.uniform(size=N) < 1 / (1 + np.exp(-(0.8 * U + Iv - 0.5)))).astype(np.int8)
    M = T + 0.5 * rng.normal(size=N)
    if view.startswith("pi_"):
        prob = 0.5 + 0.2 * np.tanh(U + X[:, 0]) + 0.2 * (T - 0.5) * np.tanh(X[:, 1])
        Y = (rng.uniform(size=N) < prob).astype(float)
    else:
        Y = X[:, 0] + U + (1 + X[:, 1]) * M + 0.3 * rng.normal(size=N)
    values = {"confounder": U, "mediator": M, "instrument": Iv, "treatment_proxy": Z, "outcome_proxy": W}
    c, qs = slice(0, n), slice(n, None)
    roles = _VIEW_ROLES[view]
    bounds = view.startswith("pi_")
    assumption = {"pi_manski": "manski", "pi_iv": "iv", "pi_msm_2": "msm"}.get(view, "")
    return EffectDataset(X=X[c], T=T[c], Y=Y[c], X_query=X[qs], query_ids=np.arange(n, N), unit_ids=np.arange(n),
                         auxiliary={r: values[r][c] for r in roles}, auxiliary_query={r: values[r][qs] for r in roles},
                         view=view, outcome="binary" if bounds else "continuous",
                         target="bounds" if bounds else "cate", assumption=assumption,
                         gamma=2.0 if view == "pi_msm_2" else None,
                         metadata={"seed": seed, "family": "reference", "scm_id": "reference", "split": view})


def _effect_views(info: MethodInfo) -> List[str]:
    """The reference views the method declares (all point views when it declares none)."""
    views = [v for v in info.views if v in EFFECT_REFERENCE_VIEWS]
    if info.views and not views:
        return []
    return views or ["bd", "fd", "iv", "px", "hc"]


def _effect_output(info: MethodInfo, est: Any, ds: Any) -> Any:
    from .effect import EffectMethod, check_effect_output

    if not isinstance(est, EffectMethod):
        _fail(info, f"{type(est).__name__} is not a causalarena.effect.EffectMethod")
    try:
        pred = est.prediction()
    except Exception as exc:  # noqa: BLE001
        raise ConformanceError(f"{_who(info)}: prediction() raised {type(exc).__name__}: {exc}") from exc
    bad = check_effect_output(pred, ds)
    if bad:
        _fail(info, f"on the reference {ds.view} view: {bad}")
    return pred


def _effect_fit(info: MethodInfo, params: Dict[str, Any], ds: Any) -> Any:
    est = _build(info, params)
    try:
        out = est.fit(ds)
    except Exception as exc:
        raise ConformanceError(f"{_who(info)}: fit raised {type(exc).__name__}: {exc} on the reference "
                               f"{ds.view} view (n={ds.n}, p={ds.d}, q={ds.q})") from exc
    if out is not est:
        _fail(info, f"fit() must return self, returned {type(out).__name__}")
    return est


def _arrays(pred: Any) -> List[Any]:
    return [getattr(pred, k) for k in ("cate", "lower", "upper") if getattr(pred, k) is not None]


def check_effect_registered(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Registered through an entry point; the factory is an EffectMethod; task, output kind and views agree."""
    from causalarena.plugins import CORE_DISTRIBUTION

    from .effect import EffectMethod

    reg = _strict_registry()
    if info.name not in reg.methods:
        _fail(info, f"not in the registry; installed: {sorted(reg.methods)}")
    rec = reg.methods[info.name]
    if not rec.distribution or rec.distribution in ("?", "<test>", CORE_DISTRIBUTION) or not rec.version:
        _fail(rec, f"must come from its own versioned distribution, got {rec.distribution!r} {rec.version!r}")
    cls = rec.load()
    if not (isinstance(cls, type) and issubclass(cls, EffectMethod)):
        _fail(rec, f"factory {rec.factory!r} is {cls!r}, not a causalarena.effect.EffectMethod subclass")
    if rec.output_kind != "effect":
        _fail(rec, f"an effect method declares output_kind='effect', got {rec.output_kind!r}")
    if rec.views and not _effect_views(rec):
        _skip(f"{rec.name}: declares views {rec.views} the reference world does not offer")


def check_effect_get_params(info: MethodInfo, params: Dict[str, Any]) -> None:
    """The constructor stores the descriptor's parameters unchanged and get_params round-trips them
    (an effect class may serve several descriptors, so its defaults need not be any one's)."""
    _check_params_roundtrip(info, params)


def check_effect_fit_output(info: MethodInfo, params: Dict[str, Any]) -> None:
    """On every declared reference view: fit returns self, a finite (q,) estimate of the right kind,
    the dataset and the parameters untouched."""
    for view in _effect_views(info):
        ds = make_effect_dataset(view)
        before = ds.to_npz_bytes()
        est = _build(info, params)
        params_before = {k: repr(v) for k, v in est.get_params().items()}
        out = est.fit(ds)
        if out is not est:
            _fail(info, f"fit() must return self, returned {type(out).__name__}")
        _effect_output(info, est, ds)
        if ds.to_npz_bytes() != before:
            _fail(info, f"fit() modified the {view} dataset in place; copy before mutating")
        if {k: repr(v) for k, v in est.get_params().items()} != params_before:
            _fail(info, "fit() changed constructor parameters; store learned state in *_ attributes")


def check_effect_deterministic(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Two fresh fits on the same view (same metadata seed) give identical estimates."""
    for view in _effect_views(info)[:1]:
        a = _effect_output(info, _effect_fit(info, params, make_effect_dataset(view)), make_effect_dataset(view))
        b = _effect_output(info, _effect_fit(info, params, make_effect_dataset(view)), make_effect_dataset(view))
        if any(not np.array_equal(x, y) for x, y in zip(_arrays(a), _arrays(b))):
            _fail(info, f"two fits on the same {view} data gave different estimates; seed all randomness "
                        "from dataset.metadata['seed']")


def check_effect_query_order(info: MethodInfo, params: Dict[str, Any]) -> None:
    """Estimates follow the query order: reversing the query units reverses the estimates (the context,
    the method's only training data, is unchanged)."""
    import attrs

    for view in _effect_views(info)[:1]:
        ds = make_effect_dataset(view)
        rev = attrs.evolve(ds, X_query=ds.X_query[::-1], query_ids=ds.query_ids[::-1],
                           auxiliary_query={r: a[::-1] for r, a in ds.auxiliary_query.items()})
        a = _effect_output(info, _effect_fit(info, params, ds), ds)
        b = _effect_output(info, _effect_fit(info, params, rev), rev)
        if any(not np.allclose(x[::-1], y, rtol=1e-9, atol=1e-9) for x, y in zip(_arrays(a), _arrays(b))):
            _fail(info, f"reversing the query units of the {view} view did not reverse the estimates: "
                        "an estimate must depend on its query unit, not on its position")


def check_effect_refit_independent(info: MethodInfo, params: Dict[str, Any]) -> None:
    """One estimator fitted on world A and then B gives what a fresh one gives on B."""
    for view in _effect_views(info)[:1]:
        first, second = make_effect_dataset(view, seed=7), make_effect_dataset(view)
        reused = _effect_fit(info, params, first)
        reused.fit(second)
        a = _effect_output(info, reused, second)
        b = _effect_output(info, _effect_fit(info, params, second), second)
        if any(not np.array_equal(x, y) for x, y in zip(_arrays(a), _arrays(b))):
            _fail(info, "fit() on a second dataset depends on an earlier fit; reset learned state in fit()")


#: oracle-like names that must not appear in what a method sees (metadata keys)
ORACLE_KEYS = ("tau", "tau0", "cate", "ite", "oracle", "mu0", "mu1", "y0", "y1", "potential_outcomes", "lower",
               "upper")


def _oracle(info: Any, inst: Any, split: str, replicate: int = 0, **kw: Any) -> Any:
    from .effect import EffectOracle

    try:
        o = inst.oracle(split, replicate, **kw)
    except Exception as exc:
        raise ConformanceError(f"{_who(info, inst, split)}: oracle(split={split!r}, replicate={replicate}) raised "
                               f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(o, EffectOracle):
        _fail(info, f"oracle() returned {type(o).__name__}, not a causalarena.effect.EffectOracle", inst, split)
    return o


def check_effect_family_instances(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """instances() lists EffectInstance objects (task ``effect``) with unique ids, this family's name, distinct
    non-empty view names as splits and a positive replicate count; the listing is stable."""
    from .effect import EffectInstance

    insts = _instances(info, dict(options), {})
    ids = []
    for k, inst in enumerate(insts):
        if not isinstance(inst, EffectInstance):
            _fail(info, f"instances()[{k}] is {type(inst).__name__}, not a causalarena.effect.EffectInstance")
        if inst.family != info.name:
            _fail(info, f"instance.family is {inst.family!r}, not the registered name {info.name!r}", inst)
        splits = tuple(inst.splits)
        if not splits or len(set(splits)) != len(splits) or not all(isinstance(v, str) and v for v in splits):
            _fail(info, f"views (splits) {splits!r} must be distinct non-empty strings", inst)
        reps = inst.n_replicates
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            _fail(info, f"n_replicates must be a positive int, got {reps!r}", inst)
        ids.append(inst.scm_id)
    if len(set(ids)) != len(ids):
        _fail(info, "duplicate instance ids; ids must be unique within a family")
    if [i.scm_id for i in _instances(info, dict(options), {})] != ids:
        _fail(info, "instances() lists other ids (or another order) from a fresh family object")


def check_effect_family_datasets(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Every view builds an EffectDataset and an EffectOracle over the same query ids, with both
    treatment arms in the context and query units disjoint from context units."""
    for inst, split in _cells(info, options, settings):
        ds, o = _dataset(info, inst, split), _oracle(info, inst, split)
        if not np.array_equal(ds.query_ids, o.query_ids):
            _fail(info, "the oracle's query ids differ from the dataset's", inst, split)
        if ds.q < 1 or ds.n < 4:
            _fail(info, f"{ds.n} context and {ds.q} query units; an effect table needs both", inst, split)
        if np.intersect1d(ds.query_ids, ds.unit_ids).size:
            _fail(info, "query units are also context units (query_ids ∩ unit_ids is not empty)", inst, split)
        if ds.target == "bounds" and o.lower is None:
            _fail(info, "a bounds view's oracle has no identified-set endpoints (lower, upper)", inst, split)


def check_effect_family_paired_views(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The views of one instance are one realisation (CausalIDView App. D.1): the same context units,
    T, Y, query ids and oracle τ in every view, bit for bit."""
    for inst in _instances(info, options, settings):
        views = list(inst.splits)
        base, ob = _dataset(info, inst, views[0]), _oracle(info, inst, views[0])
        for v in views[1:]:
            ds, o = _dataset(info, inst, v), _oracle(info, inst, v)
            for name, a, b in (("unit_ids", base.unit_ids, ds.unit_ids), ("T", base.T, ds.T), ("Y", base.Y, ds.Y),
                               ("query_ids", base.query_ids, ds.query_ids), ("oracle tau", ob.tau, o.tau)):
                if not np.array_equal(a, b):
                    _fail(info, f"views {views[0]!r} and {v!r} differ in {name}: views must be projections of one "
                                 "realisation (App. D.1)", inst, v)


def check_effect_family_finite(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The oracle τ (and bounds) are finite; Y and the auxiliaries are finite, X may hold NaN only as missing."""
    for inst, split in _cells(info, options, settings):
        ds, o = _dataset(info, inst, split), _oracle(info, inst, split)
        for name, arr in (("oracle tau", o.tau), ("Y", ds.Y), *((f"auxiliary[{r!r}]", a) for r, a in
                                                                ds.auxiliary.items())):
            if not np.isfinite(arr).all():
                _fail(info, f"{name} has non-finite values", inst, split)
        if np.isinf(ds.X).any():
            _fail(info, "X has infinite entries", inst, split)


def check_effect_family_context_size(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """``dataset(..., n=k)`` (``arena run --n``, the context-length stress of App. F.2) gives k context units
    and leaves the query units and the oracle unchanged."""
    for inst, split in _cells(info, options, settings):
        full = _dataset(info, inst, split)
        k = max(4, full.n // 2)
        small, o = _dataset(info, inst, split, n=k), _oracle(info, inst, split, n=k)
        if small.n != k:
            _fail(info, f"dataset(n={k}) has {small.n} context units", inst, split)
        if not np.array_equal(small.query_ids, full.query_ids) or not np.array_equal(o.tau, _oracle(info, inst,
                                                                                                    split).tau):
            _fail(info, f"dataset(n={k}) changed the query units or the oracle", inst, split)


def check_effect_family_deterministic(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The same view twice, from fresh family objects, is byte-identical; so is its oracle."""
    fresh = _instances(info, options, settings)
    for inst, twin in zip(_instances(info, options, settings), fresh):
        for split in inst.splits:
            if _dataset(info, inst, split).to_npz_bytes() != _dataset(info, twin, split).to_npz_bytes():
                _fail(info, "the same view built twice differs (seed everything from the cell)", inst, split)
            if not np.array_equal(_oracle(info, inst, split).tau, _oracle(info, twin, split).tau):
                _fail(info, "the oracle differs between two builds", inst, split)


def check_effect_family_no_oracle_leak(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """What a method receives (the saved EffectDataset) holds no oracle: no metadata key named like one
    (:data:`ORACLE_KEYS`), and no stored array containing the oracle τ (unless τ is constant, e.g. 0)."""
    import io

    for inst, split in _cells(info, options, settings):
        ds, o = _dataset(info, inst, split), _oracle(info, inst, split)
        leaked = sorted(k for k in ds.metadata if str(k).lower() in ORACLE_KEYS)
        if leaked:
            _fail(info, f"metadata keys {leaked} reach the method process", inst, split)
        if np.ptp(o.tau) == 0:
            continue  # a constant target (a negative control, τ = 0) cannot be told from a constant column
        tau = np.round(o.tau, 10)
        with np.load(io.BytesIO(ds.without_truth().to_npz_bytes()), allow_pickle=False) as z:
            for key in z.files:
                arr = z[key]
                if arr.dtype.kind == "f" and arr.size and np.isin(tau, np.round(arr.ravel(), 10)).mean() > 0.5:
                    _fail(info, f"the array {key!r} a method receives contains the oracle τ values", inst, split)


#: check id → the effect rule answering it for an effect method (None: not an effect rule, passes)
METHOD_CHECKS: Dict[str, Optional[Callable[..., None]]] = {
    "registered": check_effect_registered,
    "get_params": check_effect_get_params,
    "fit_output": check_effect_fit_output,
    "deterministic": check_effect_deterministic,
    "ignores_true_adjacency": check_effect_query_order,
    "refit_independent": check_effect_refit_independent,
    "obs_table": None,  # fit_output already fits every declared view
}
#: family check id → its effect rule (None: a discovery rule with no effect counterpart, skipped)
FAMILY_CHECKS: Dict[str, Optional[Callable[..., None]]] = {
    "instances": check_effect_family_instances,
    "datasets": check_effect_family_datasets,
    "true_graph": check_effect_family_paired_views,
    "finite": check_effect_family_finite,
    "standardise": check_effect_family_context_size,
    "sortability": None,
    "column_order": None,
    "deterministic": check_effect_family_deterministic,
    "no_truth_leak": check_effect_family_no_oracle_leak,
}
