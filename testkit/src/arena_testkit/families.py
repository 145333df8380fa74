"""The family conformance kit: the rules an SCM family or real-data collection obeys, as checks.

A family plugin's conformance test is as short as a method's::

    from arena_testkit import parametrize_family_checks

    @parametrize_family_checks("my_family")
    def test_conformance(check):
        check()

The checks (:data:`FAMILY_CHECKS`, in order): listing, factor tags, dataset
shapes and masks, true graph, finiteness, standardisation, both
sortabilities of the raw table, a column order that is not the causal order,
determinism, replicates, no truth leak, fingerprints. Each takes ``(info,
options, settings)`` — the :class:`FamilyInfo`, the family options
(``Family(**options)``) and the kit's own settings (``max_instances``) — builds
the family afresh and raises :class:`ConformanceError` naming the family, its
distribution, the instance (and split) and the rule.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from causalarena.data import OBSERVATIONAL, Dataset
from causalarena.records import FamilyInfo

from ._kit import (
    ConformanceError,
    Subject,
    _descriptor_cheap,
    _fail,
    _registered,
    _strict_registry,
    _who,
    parametrize,
    subject_checks,
)

__all__ = [
    "COLUMN_ORDER_MAX_FORWARD", "COLUMN_ORDER_MIN_PATHS", "FAMILY_CHECKS", "GRAPH_KEYS", "SMALL_N",
    "SORTABILITY_ATOL", "check_family", "check_family_column_order", "check_family_datasets",
    "check_family_descriptor_cheap", "check_family_deterministic", "check_family_factors", "check_family_fingerprint",
    "check_family_finite", "check_family_instances", "check_family_no_truth_leak", "check_family_registered",
    "check_family_replicates", "check_family_sortability", "check_family_standardise", "check_family_true_graph",
    "family_checks", "forward_path_share", "parametrize_family_checks",
]


#: Metadata keys that would hand the true graph to a method (datasets keep
#: their metadata when the truth is removed).
GRAPH_KEYS = ("true_adjacency", "adjacency", "true_graph", "graph_edges", "edges", "edge_list",
              "parents", "children", "dag", "cpdag")

#: Rows asked for by the sample-size rule (``dataset(..., n=SMALL_N)``).
SMALL_N = 200

_SCALAR_TYPES = (str, bool, int, float)


def _build_family(info: Any, options: Dict[str, Any]) -> Any:
    from causalarena.family import Family

    try:
        cls = info.load()
    except Exception as exc:
        raise ConformanceError(f"{_who(info)}: factory {info.factory!r} does not import: "
                               f"{type(exc).__name__}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Family)):
        _fail(info, f"factory {info.factory!r} is {cls!r}, not a causalarena.family.Family subclass")
    try:
        return cls(**options)
    except Exception as exc:
        raise ConformanceError(f"{_who(info)}: constructing the family with options {options!r} raised "
                               f"{type(exc).__name__}: {exc}") from exc


def _instances(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> List[Any]:
    """The family's instances (the first ``max_instances`` when the kit was given that)."""
    fam = _build_family(info, options)
    try:
        insts = list(fam.instances())
    except Exception as exc:
        raise ConformanceError(f"{_who(info)}: instances() raised {type(exc).__name__}: {exc}") from exc
    if not insts:
        _fail(info, f"instances() is empty under options {options!r}; a family lists at least one instance")
    limit = settings.get("max_instances")
    return insts[: int(limit)] if limit else insts


def _dataset(info: Any, inst: Any, split: str, replicate: int = 0, **kw: Any) -> Any:
    """The instance's table, of the class its task declares (:attr:`causalarena.tasks.Task.dataset_type`)."""
    try:
        ds = inst.dataset(split, replicate, **kw)
    except Exception as exc:
        raise ConformanceError(
            f"{_who(info, inst, split)}: dataset(split={split!r}, replicate={replicate}"
            f"{''.join(f', {k}={v!r}' for k, v in kw.items())}) raised {type(exc).__name__}: {exc}"
        ) from exc
    from causalarena.records import resolve

    task = getattr(inst, "task", "discovery")
    want = Dataset if task == "discovery" else resolve(_strict_registry().task(task).dataset_type)
    if not isinstance(ds, want):
        _fail(info, f"dataset() returned {type(ds).__name__}, not a {want.__module__}.{want.__name__}", inst, split)
    return ds


def _cells(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> Iterator[Tuple[Any, str]]:
    for inst in _instances(info, options, settings):
        for split in inst.splits:
            yield inst, split


def _is_dag(A: np.ndarray) -> bool:
    import networkx as nx

    return bool(nx.is_directed_acyclic_graph(nx.from_numpy_array(np.asarray(A, dtype=int),
                                                                 create_using=nx.DiGraph)))

def check_family_registered(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Registered through an entry point, with distribution and version; the factory is a Family
    subclass whose ``name`` (when set) is the registered name."""
    from causalarena.family import Family

    rec, cls = _registered(info, "families", Family)
    if cls.name and cls.name != rec.name:
        _fail(rec, f"class attribute name {cls.name!r} differs from the registered name {rec.name!r}")


def check_family_descriptor_cheap(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Importing the entry-point module(s) and listing families imports no heavy library.

    Fresh interpreter (with this interpreter's ``sys.path``). Heavy =
    :data:`HEAVY_MODULES` plus the import names of the family distribution's
    own requirements that the core does not already need.
    """
    _descriptor_cheap(info, "arena_families", "causalarena.family",
                      "import them in the Family class's module, not in the entry point")


def check_family_instances(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """instances() lists Instance objects with unique non-empty string ids, this family's name, splits
    among ("obs", "obs_int") and a positive replicate count; the listing is stable (same ids in the
    same order from a fresh family object) and instance(id) finds each one."""
    from causalarena.family import SPLITS, Instance

    insts = _instances(info, dict(options), {})
    seen: Dict[str, int] = {}
    for k, inst in enumerate(insts):
        if not isinstance(inst, Instance):
            _fail(info, f"instances()[{k}] is {type(inst).__name__}, not a causalarena.family.Instance")
        sid = getattr(inst, "scm_id", None)
        if not isinstance(sid, str) or not sid.strip():
            _fail(info, f"instances()[{k}] has scm_id {sid!r}; ids are non-empty strings (seeds derive from them)")
        if sid in seen:
            _fail(info, f"duplicate instance id {sid!r} (positions {seen[sid]} and {k}); ids must be unique "
                         "within a family (results and seeds are keyed by them)")
        seen[sid] = k
        if inst.family != info.name:
            _fail(info, f"instance.family is {inst.family!r}, not the registered name {info.name!r} "
                         "(cell seeds derive from it)", inst)
        splits = tuple(inst.splits)
        if not splits or any(s not in SPLITS for s in splits) or len(set(splits)) != len(splits):
            _fail(info, f"splits {splits!r} must be distinct values among {SPLITS}", inst)
        reps = inst.n_replicates
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            _fail(info, f"n_replicates must be a positive int, got {reps!r}", inst)
    again = [i.scm_id for i in _instances(info, dict(options), {})]
    if again != list(seen):
        _fail(info, "instances() of a fresh family object lists different ids or another order: "
                     f"{list(seen)[:5]}... vs {again[:5]}...; the listing must be deterministic")
    fam = _build_family(info, dict(options))
    for sid in list(seen)[: settings.get("max_instances") or None]:
        try:
            got = fam.instance(sid)
        except Exception as exc:
            raise ConformanceError(f"{_who(info, sid)}: instance({sid!r}) raised "
                                   f"{type(exc).__name__}: {exc}") from exc
        if got.scm_id != sid:
            _fail(info, f"instance({sid!r}) returned the instance {got.scm_id!r}", sid)


def check_family_factors(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """factors is a dict with string keys and JSON-serialisable values; numbers are finite; at
    least one tag is a scalar (str/int/float/bool) or a list of strings — the forms stored with
    every run and used to slice the report (others stay with the instance only)."""
    for inst in _instances(info, options, settings):
        factors = getattr(inst, "factors", None)
        if not isinstance(factors, dict):
            _fail(info, f"factors must be a dict of tags, got {type(factors).__name__}", inst)
        bad_keys = [k for k in factors if not isinstance(k, str) or not k]
        if bad_keys:
            _fail(info, f"factor keys must be non-empty strings, got {bad_keys!r}", inst)
        try:
            json.dumps(factors, allow_nan=False, default=_json_scalar)
        except (TypeError, ValueError) as exc:
            _fail(info, f"factors are not JSON-serialisable with finite numbers: {exc}", inst)
        stored = [k for k, v in factors.items()
                  if (isinstance(v, _SCALAR_TYPES) or v is None
                      or (isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v)))]
        if factors and not stored:
            _fail(info, f"no factor tag is a scalar or a list of strings ({sorted(factors)}); the runner "
                         "stores only those, so the report could not slice by any tag", inst)


def _json_scalar(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"{type(obj).__name__} value {obj!r}")


def _check_truth(info: Any, inst: Any, split: str, ds: Dataset) -> np.ndarray:
    T = ds.true_adjacency
    if T is None:
        _fail(info, "dataset.true_adjacency is None; a family dataset carries its true graph "
                     "(the runner removes it before a method sees the table)", inst, split)
    T = np.asarray(T)
    d = ds.d
    if T.shape != (d, d):
        _fail(info, f"true_adjacency has shape {T.shape}, expected (d × d) = {(d, d)}", inst, split)
    if not np.all(np.isin(T, (0, 1))):
        _fail(info, f"true_adjacency must be 0/1 (row = parent), found {sorted(np.unique(T).tolist())}",
              inst, split)
    if np.any(np.diag(T)):
        _fail(info, f"true_adjacency has self-loops at {[ds.columns[j] for j in np.flatnonzero(np.diag(T))]}",
              inst, split)
    if not _is_dag(T):
        declared = ds.metadata.get("truth_is_dag") is False and ds.metadata.get("truth_cycles")
        if not declared:
            import networkx as nx

            cyc = nx.find_cycle(nx.from_numpy_array(T.astype(int), create_using=nx.DiGraph))
            names = " -> ".join(ds.columns[u] for u, _ in cyc) + f" -> {ds.columns[cyc[0][0]]}"
            _fail(info, f"true_adjacency is not acyclic ({names}); a published cyclic graph must be "
                         "declared with metadata truth_is_dag=False and truth_cycles", inst, split)
    return T.astype(np.int8)


def check_family_datasets(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Every split of every instance (replicate 0) gives the table the protocol promises.

    X is (n × d) float64 with n, d ≥ 1 (SCM instances: 1000 rows on both splits); columns are d
    unique non-empty strings; intervention_mask is (n × d) bool and regime (n,) int; on "obs" the
    mask is all False and regime all −1; on "obs_int" there are observational and interventional
    rows, a row's regime is −1 iff its mask row is empty, else it is an intervened column; metadata
    names family, scm_id, split, replicate, seed and standardised; ``n=200`` gives 200 rows.
    """
    from causalarena.family import SCMInstance
    from causalarena.protocol import split_sizes

    scm_ids: Dict[str, str] = {}
    for inst, split in _cells(info, options, settings):
        ds = _dataset(info, inst, split)
        n, d = ds.X.shape
        if ds.X.dtype != np.float64:
            _fail(info, f"X has dtype {ds.X.dtype}, expected float64", inst, split)
        if n < 1 or d < 1:
            _fail(info, f"X has shape {(n, d)}; a dataset has at least one row and one column", inst, split)
        if isinstance(inst, SCMInstance):
            expect = sum(split_sizes(split))
            if n != expect:
                _fail(info, f"X has {n} rows, the protocol's {split!r} split has {expect}", inst, split)
        cols = list(ds.columns)
        if any(not isinstance(c, str) or not c for c in cols):
            _fail(info, f"columns must be non-empty strings, got {cols!r}", inst, split)
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            _fail(info, f"duplicate column names {dup}", inst, split)
        mask, regime = np.asarray(ds.intervention_mask), np.asarray(ds.regime)
        if mask.shape != (n, d) or mask.dtype != bool:
            _fail(info, f"intervention_mask is {mask.dtype} {mask.shape}, expected bool {(n, d)}", inst, split)
        if regime.shape != (n,) or not np.issubdtype(regime.dtype, np.integer):
            _fail(info, f"regime is {regime.dtype} {regime.shape}, expected int ({n},)", inst, split)
        if split == "obs":
            if mask.any():
                _fail(info, f"the obs split has {int(mask.any(axis=1).sum())} rows with an intervention mask; "
                             "obs-only means an all-False mask", inst, split)
            if np.any(regime != OBSERVATIONAL):
                _fail(info, f"the obs split has regime values {sorted(set(regime.tolist()) - {-1})}; "
                             "observational rows have regime -1", inst, split)
        else:
            intervened = mask.any(axis=1)
            if not intervened.any() or intervened.all():
                _fail(info, f"the obs_int split has {int(intervened.sum())} of {n} intervened rows; it "
                             "mixes observational and interventional rows", inst, split)
            if np.any((regime == OBSERVATIONAL) & intervened):
                _fail(info, "rows with regime -1 have intervention-mask entries; regime -1 means observational",
                      inst, split)
            rows = np.flatnonzero(regime != OBSERVATIONAL)
            bad = rows[(regime[rows] < 0) | (regime[rows] >= d)]
            if len(bad):
                _fail(info, f"regime values {sorted(set(regime[bad].tolist()))} are not column indices "
                             f"0..{d - 1}", inst, split)
            wrong = rows[~mask[rows, regime[rows]]]
            if len(wrong):
                _fail(info, f"{len(wrong)} rows (first {int(wrong[0])}) have regime r but intervention_mask[row, r] "
                             "False; regime names an intervened column", inst, split)
        md = ds.metadata
        for key, want in (("family", info.name), ("split", split), ("replicate", 0)):
            if md.get(key) != want:
                _fail(info, f"metadata[{key!r}] is {md.get(key)!r}, expected {want!r}", inst, split)
        for key in ("scm_id", "seed", "standardised"):
            if key not in md:
                _fail(info, f"metadata lacks {key!r}", inst, split)
        sid = md["scm_id"]
        if scm_ids.setdefault(sid, inst.scm_id) != inst.scm_id:
            _fail(info, f"metadata scm_id {sid!r} is also that of instance {scm_ids[sid]!r}", inst, split)
        small = _dataset(info, inst, split, n=SMALL_N)
        if small.n != SMALL_N or small.d != d:
            _fail(info, f"dataset(n={SMALL_N}) has shape {small.X.shape}, expected {(SMALL_N, d)}", inst, split)


def check_family_true_graph(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The true graph is a (d × d) 0/1 matrix without self-loops, acyclic (a published cyclic graph
    must be declared: metadata truth_is_dag=False with truth_cycles), equal to
    instance.true_adjacency() and the same on every split and replicate."""
    for inst in _instances(info, options, settings):
        ref = None
        for split in inst.splits:
            for rep in sorted({0, inst.n_replicates - 1}):
                ds = _dataset(info, inst, split, rep)
                T = _check_truth(info, inst, split, ds)
                if ref is None:
                    ref = T
                    try:
                        own = np.asarray(inst.true_adjacency())
                    except Exception as exc:
                        raise ConformanceError(f"{_who(info, inst)}: true_adjacency() raised "
                                               f"{type(exc).__name__}: {exc}") from exc
                    if own.shape != T.shape or not np.array_equal(own != 0, T != 0):
                        _fail(info, "instance.true_adjacency() differs from dataset.true_adjacency", inst, split)
                elif T.shape != ref.shape or not np.array_equal(T, ref):
                    _fail(info, f"true_adjacency of replicate {rep} differs from that of the first cell; "
                                 "one instance has one graph", inst, split)


def check_family_finite(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """X has no ±inf, raw or standardised; NaN only in columns declared in metadata nan_fraction
    (a real table's missing values, case I4)."""
    for inst, split in _cells(info, options, settings):
        for standardise in (True, False):
            ds = _dataset(info, inst, split, standardise=standardise)
            X = ds.X
            inf = np.isinf(X).any(axis=0)
            if inf.any():
                _fail(info, f"X{'' if standardise else ' (raw)'} has infinite values in columns "
                             f"{[ds.columns[j] for j in np.flatnonzero(inf)]}", inst, split)
            nan = np.isnan(X).any(axis=0)
            if nan.any():
                declared = ds.metadata.get("nan_fraction") or {}
                undeclared = [ds.columns[j] for j in np.flatnonzero(nan)
                              if not (isinstance(declared, dict) and declared.get(ds.columns[j], 0) > 0)]
                if undeclared:
                    _fail(info, f"X{'' if standardise else ' (raw)'} has NaN in columns {undeclared}; "
                                 "a sampler must produce finite values (missing values of a real table are "
                                 "declared in metadata nan_fraction)", inst, split)


def check_family_standardise(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """standardise=True (the default) gives z-scored columns (mean 0, sd 1 for non-constant ones) and
    metadata standardised=True; standardise=False gives the raw table (standardised=False) with the
    same shape and masks, whose z-scores are the standardised table."""
    from causalarena.protocol import standardise as zscore

    for inst, split in _cells(info, options, settings):
        std = _dataset(info, inst, split)
        raw = _dataset(info, inst, split, standardise=False)
        if std.metadata.get("standardised") is not True or raw.metadata.get("standardised") is not False:
            _fail(info, f"metadata standardised is {std.metadata.get('standardised')!r} by default and "
                         f"{raw.metadata.get('standardised')!r} with standardise=False; expected True / False",
                   inst, split)
        same_mask = np.array_equal(np.asarray(raw.intervention_mask), np.asarray(std.intervention_mask))
        if raw.X.shape != std.X.shape or not same_mask:
            _fail(info, "the raw and standardised tables differ in shape or intervention mask", inst, split)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean, sd = np.nanmean(std.X, axis=0), np.nanstd(std.X, axis=0)
            expect = zscore(raw.X)
        varying = sd > 1e-12
        if not (np.allclose(mean, 0.0, atol=1e-8) and np.allclose(sd[varying], 1.0, atol=1e-8)):
            cols = [std.columns[j] for j in np.flatnonzero(~np.isclose(mean, 0.0, atol=1e-8)
                                                           | (varying & ~np.isclose(sd, 1.0, atol=1e-8)))]
            _fail(info, f"the default (standardised) table is not z-scored in columns {cols[:5]}", inst, split)
        if not np.allclose(std.X, expect, atol=1e-8, equal_nan=True):
            _fail(info, "the standardised table is not the z-scored raw table of the same cell "
                         "(standardise must not resample)", inst, split)


def _fingerprint_of(ds: Dataset) -> Tuple[bytes, bytes, bytes]:
    return ds.X.tobytes(), np.asarray(ds.intervention_mask).tobytes(), np.asarray(ds.regime).tobytes()


def check_family_deterministic(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The same cell gives byte-identical X, mask and regime — from a fresh family object too, and
    whatever the state of numpy's and Python's global random generators (seed from the cell:
    :func:`causalarena.protocol.cell_seed`, never from global state)."""
    import random

    first = _instances(info, options, settings)
    second = _instances(info, options, settings)  # paired by position (the listing rule is `instances`)
    for inst, twin in zip(first, second):
        for split in inst.splits:
            np.random.seed(1)
            random.seed(1)
            a = _dataset(info, inst, split)
            np.random.seed(2)
            random.seed(2)
            b = _dataset(info, twin, split)
            if _fingerprint_of(a) != _fingerprint_of(b):
                what = "X" if a.X.tobytes() != b.X.tobytes() else "intervention_mask/regime"
                _fail(info, f"two builds of the same cell (replicate 0) gave different {what}; derive every "
                             "random draw from the cell seed (causalarena.protocol.cell_seed), not global state",
                       inst, split)
            if a.metadata.get("seed") != b.metadata.get("seed"):
                _fail(info, f"metadata seed differs between two builds of one cell "
                             f"({a.metadata.get('seed')!r} vs {b.metadata.get('seed')!r})", inst, split)


def check_family_replicates(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Replicates of a split differ (fresh draws, different metadata seed) when there are two or
    more; a replicate out of range and an unknown split raise ValueError."""
    for inst in _instances(info, options, settings):
        for split in inst.splits:
            if inst.n_replicates >= 2:
                a, b = _dataset(info, inst, split, 0), _dataset(info, inst, split, 1)
                if a.X.shape == b.X.shape and np.array_equal(a.X, b.X, equal_nan=True):
                    _fail(info, "replicates 0 and 1 are identical; each replicate is a fresh draw "
                                 "(or declare n_replicates=1 for a fixed table)", inst, split)
                if a.metadata.get("seed") == b.metadata.get("seed"):
                    _fail(info, f"replicates 0 and 1 share metadata seed {a.metadata.get('seed')!r}", inst, split)
            for rep in (inst.n_replicates, -1):
                try:
                    inst.dataset(split, rep)
                except ValueError:
                    continue
                except Exception as exc:
                    _fail(info, f"dataset(replicate={rep}) raised {type(exc).__name__}, expected ValueError "
                                 f"(replicates are 0..{inst.n_replicates - 1})", inst, split)
                _fail(info, f"dataset(replicate={rep}) succeeded; replicates are 0..{inst.n_replicates - 1} "
                             "and others raise ValueError", inst, split)
        try:
            inst.dataset("no-such-split", 0)
        except ValueError:
            continue
        except Exception as exc:
            _fail(info, f"an unknown split raised {type(exc).__name__}, expected ValueError", inst)
        _fail(info, "dataset('no-such-split', 0) succeeded; an unknown split raises ValueError", inst)


def _graph_in(value: Any, T: np.ndarray, names: List[str], path: str) -> Optional[str]:
    """Where in a metadata value the true graph shows up (None: nowhere)."""
    edges = {(names[i], names[j]) for i, j in zip(*np.nonzero(T))}
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and k.lower() in GRAPH_KEYS:
                return f"{path}[{k!r}] (a key that names the graph)"
            found = _graph_in(v, T, names, f"{path}[{k!r}]")
            if found:
                return found
        return None
    if isinstance(value, np.ndarray) or (isinstance(value, (list, tuple)) and value
                                          and all(isinstance(r, (list, tuple, np.ndarray)) for r in value)):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            arr = None
        if arr is not None and arr.shape == T.shape and arr.dtype.kind in "biuf" and T.any():
            if np.array_equal(arr != 0, T != 0) or np.array_equal(arr != 0, T.T != 0):
                return f"{path} (a d × d matrix equal to the true adjacency)"
        if (edges and isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) and len(r) == 2
                                                                 and all(isinstance(x, str) for x in r)
                                                                 for r in value)
                and {tuple(r) for r in value} & edges):
            return f"{path} (a list of (parent, child) pairs that are true edges)"
    if isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            found = _graph_in(v, T, names, f"{path}[{k}]")
            if found:
                return found
    return None


def check_family_no_truth_leak(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """What a method sees — ``dataset.without_truth()``, metadata included — does not carry the graph:
    no metadata key named like the graph (:data:`GRAPH_KEYS`), no d × d matrix equal to the true
    adjacency, no list of true (parent, child) name pairs; the saved table has no true_adjacency."""
    for inst, split in _cells(info, options, settings):
        ds = _dataset(info, inst, split)
        T = ds.true_adjacency
        T = np.zeros((ds.d, ds.d), dtype=np.int8) if T is None else np.asarray(T)
        seen = ds.without_truth()
        if seen.true_adjacency is not None:
            _fail(info, "without_truth() kept true_adjacency (a Dataset subclass overrides it?)", inst, split)
        import io

        with np.load(io.BytesIO(seen.to_npz_bytes()), allow_pickle=False) as z:
            if "true_adjacency" in z.files:
                _fail(info, "the table a method reads (without_truth, saved) contains true_adjacency", inst, split)
        where = _graph_in(dict(seen.metadata), T, list(ds.columns), "metadata")
        if where:
            _fail(info, f"the true graph reaches methods through {where}; metadata is shown to methods, "
                         "keep the graph in true_adjacency only", inst, split)


def check_family_fingerprint(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """fingerprint() is 16 hex digits, the same from a fresh family object, and differs between
    instances (it is part of every result key)."""
    import re

    fresh = _instances(info, options, settings)  # paired by position (the listing rule is `instances`)
    seen: Dict[str, str] = {}
    for inst, twin in zip(_instances(info, options, settings), fresh):
        try:
            fp, again = inst.fingerprint(), twin.fingerprint()
        except Exception as exc:
            raise ConformanceError(f"{_who(info, inst)}: fingerprint() raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(fp, str) or not re.fullmatch(r"[0-9a-f]{16}", fp):
            _fail(info, f"fingerprint() is {fp!r}, expected 16 lower-case hex digits", inst)
        if fp != again:
            _fail(info, f"fingerprint() differs between two family objects ({fp} vs {again})", inst)
        if fp in seen:
            _fail(info, f"fingerprint {fp} is also that of instance {seen[fp]!r}; two different instances "
                         "must not share result keys", inst)
        seen[fp] = inst.scm_id


#: Largest difference accepted between a stored sortability and the recomputed one (both are
#: ratios of path counts; a family computing them in another order of operations may differ by
#: rounding, never by a pair of variables).
SORTABILITY_ATOL = 1e-9


def check_family_sortability(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """Every split of every instance (replicate 0, standardised as the runner builds it) carries
    metadata ``varsortability`` and ``r2_sortability`` of its *raw* table: each a finite float in
    [0, 1] equal (within :data:`SORTABILITY_ATOL`) to
    :func:`causalarena.protocol.raw_sortabilities` of ``dataset(..., standardise=False)`` and its
    true graph — or ``None`` exactly where that is undefined (a graph without edges; a column whose
    variance float64 cannot hold; for R², fewer complete rows than d + 1). The runner stores both
    with every run (Reisach et al. 2021 / 2023); a missing value shows as "–" in the report."""
    import math

    from causalarena.protocol import SORTABILITY_KEYS, raw_sortabilities

    for inst, split in _cells(info, options, settings):
        ds = _dataset(info, inst, split)
        raw = _dataset(info, inst, split, standardise=False)
        T = ds.true_adjacency if ds.true_adjacency is not None else inst.true_adjacency()
        ref = raw_sortabilities(raw.X, np.asarray(T))
        for key in SORTABILITY_KEYS:
            if key not in ds.metadata:
                _fail(info, f"metadata lacks {key!r}; set it to "
                             f"causalarena.protocol.raw_sortabilities(raw X, true graph)[{key!r}] "
                             "(None where undefined)", inst, split)
            got, want = ds.metadata[key], ref[key]
            if got is None:
                if want is not None:
                    _fail(info, f"metadata[{key!r}] is None but it is defined for this table ({want:.6g} "
                                 "from causalarena.protocol.raw_sortabilities of the raw table); None only "
                                 "for a graph without edges, a scale float64 cannot hold or (R²) fewer "
                                 "complete rows than d + 1", inst, split)
                continue
            if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
                _fail(info, f"metadata[{key!r}] is {type(got).__name__} {got!r}, expected a float in [0, 1] "
                             "or None", inst, split)
            got = float(got)
            if not (math.isfinite(got) and 0.0 <= got <= 1.0):
                _fail(info, f"metadata[{key!r}] is {got!r}, expected a finite float in [0, 1] or None",
                      inst, split)
            if want is None:
                _fail(info, f"metadata[{key!r}] is {got:.6g} but it is undefined for this table (a graph "
                             "without edges, a scale float64 cannot hold or (R²) fewer complete rows than "
                             "d + 1): store None", inst, split)
            if abs(got - want) > SORTABILITY_ATOL:
                _fail(info, f"metadata[{key!r}] is {got:.6g}, but the raw table (standardise=False) and true "
                             f"graph give {want:.6g} (causalarena.protocol.raw_sortabilities); measure it on "
                             "the raw rows of the same cell, not the standardised table", inst, split)


#: Largest mean forward share of directed paths accepted by :func:`check_family_column_order` (the
#: threshold the report flags varsortability with, :data:`causalarena.report.VARSORTABILITY_FLAG`).
COLUMN_ORDER_MAX_FORWARD = 0.9
#: Fewest directed paths an instance needs to count in :func:`check_family_column_order`.
COLUMN_ORDER_MIN_PATHS = 3


def forward_path_share(adjacency: Any) -> Tuple[Optional[float], int]:
    """Share of directed paths whose source column comes before the target column.

    Args:
        adjacency: (d × d) true graph, row = parent (nonzero = edge).

    Returns:
        ``(share, paths)``: ``paths`` is the number of ordered pairs ``(i, j)``, ``i != j``,
        with ``j`` reachable from ``i``; ``share`` the fraction of them with ``i < j`` (``None``
        when there is no path). 1.0 means the columns are a topological order; a column
        order unrelated to the graph gives about 0.5.
    """
    A = np.asarray(adjacency) != 0
    d = A.shape[0]
    reach = A.copy()
    for k in range(d):  # Warshall's transitive closure
        reach |= reach[:, [k]] & reach[[k], :]
    np.fill_diagonal(reach, False)
    paths = int(reach.sum())
    if not paths:
        return None, 0
    return float(np.triu(reach, 1).sum()) / paths, paths


def check_family_column_order(info: Any, options: Dict[str, Any], settings: Dict[str, Any]) -> None:
    """The column order does not give away the causal order: over the instances with at least
    :data:`COLUMN_ORDER_MIN_PATHS` directed paths, the mean :func:`forward_path_share` of the true
    graph is at most :data:`COLUMN_ORDER_MAX_FORWARD`. A family listing its variables causes-first
    hands the order to any method whose ties fall back to the column order (sortnregress on a
    standardised table; Reisach et al. 2021 on such artefacts); permute the columns, e.g. by a
    permutation drawn from the instance id as arena-cards does."""
    shares: List[Tuple[float, str]] = []
    for inst in _instances(info, options, settings):
        try:
            T = inst.true_adjacency()
        except Exception as exc:
            raise ConformanceError(f"{_who(info, inst)}: true_adjacency() raised {type(exc).__name__}: "
                                   f"{exc}") from exc
        share, paths = forward_path_share(T)
        if share is not None and paths >= COLUMN_ORDER_MIN_PATHS:
            shares.append((share, str(getattr(inst, "scm_id", inst))))
    if not shares:
        return
    mean = float(np.mean([s for s, _ in shares]))
    if mean > COLUMN_ORDER_MAX_FORWARD:
        worst = ", ".join(f"{sid} {s:.2f}" for s, sid in sorted(shares, key=lambda t: (-t[0], t[1]))[:3])
        _fail(info, f"the columns follow the causal order: the mean forward share of directed paths (source "
                     f"column before target) is {mean:.2f} > {COLUMN_ORDER_MAX_FORWARD} over {len(shares)} "
                     f"instance(s) with >= {COLUMN_ORDER_MIN_PATHS} paths (highest: {worst}); a method whose "
                     "ties fall back to the column order reads the order off the table. Put the columns in "
                     "an order unrelated to the graph, e.g. a permutation drawn from the instance id")


#: (check_id, check) of the family kit, in the order they run.
FAMILY_CHECKS: Tuple[Tuple[str, Callable[[Any, Dict[str, Any], Dict[str, Any]], None]], ...] = (
    ("registered", check_family_registered),
    ("descriptor_cheap", check_family_descriptor_cheap),
    ("instances", check_family_instances),
    ("factors", check_family_factors),
    ("datasets", check_family_datasets),
    ("true_graph", check_family_true_graph),
    ("finite", check_family_finite),
    ("standardise", check_family_standardise),
    ("sortability", check_family_sortability),
    ("column_order", check_family_column_order),
    ("deterministic", check_family_deterministic),
    ("replicates", check_family_replicates),
    ("no_truth_leak", check_family_no_truth_leak),
    ("fingerprint", check_family_fingerprint),
)

#: the family kit (:mod:`arena_testkit._kit`); a task's kit adds its runner to ``FAMILIES.tasks``
FAMILIES = Subject(what="family", record=FamilyInfo, checks=FAMILY_CHECKS)


def family_checks(name_or_info: Any, max_instances: Optional[int] = None,
                  **options: Any) -> Iterator[Tuple[str, Callable[[], None]]]:
    """Yield ``(check_id, check)`` for one family; ``check()`` raises on failure.

    Args:
        name_or_info: a registered family name (resolved lazily through the
            strict registry) or a :class:`~causalarena.records.FamilyInfo`.
        max_instances: check only the first this many instances (a large
            family; the listing rules still see them all). The kit's own
            keyword: a family option of that name cannot be passed.
        **options: family options (``Family(**options)``).
    """
    return subject_checks(FAMILIES, name_or_info, options, {"max_instances": max_instances})


def check_family(name_or_info: Any, max_instances: Optional[int] = None, **options: Any) -> None:
    """Run every family check; raise :class:`ConformanceError` on the first failure."""
    for _, check in family_checks(name_or_info, max_instances=max_instances, **options):
        check()


def parametrize_family_checks(*names: Any, max_instances: Optional[int] = None,
                              **options: Any) -> Callable[[Callable], Callable]:
    """``pytest.mark.parametrize("check", ...)`` over every check of every named family.

    Test ids are ``<family>:<check_id>``.

    Raises:
        ValueError: no family name given.
    """
    return parametrize(FAMILIES, names, options, {"max_instances": max_instances})
