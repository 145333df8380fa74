"""Deterministic dataset audits (CausalArena paper, App. A.2).

Graph-level checks live with the generators that draw graphs; this module
holds the dataset-level gates every executable SCM family shares:

* finite values;
* no constant or near-constant column (one value on more than 99 % of rows,
  or a standard deviation below ``1e-8`` of the column's scale);
* no discrete variable with a single category above 99 % of rows;
* at most 10 % of the mass at an explicit clipping boundary (boundaries
  declared by the components: truncated roots, censored noise);
* no variable pair with |corr| above 0.99 (rank correlation, see
  :func:`audit_table`);
* for obs+int tables, the intervention checks of
  :func:`causalarena.interventions.intervention_audit` (mask within the pool,
  every target hit and changed, descendants regenerated).

Every check returns a reason string naming the variable(s), so a generator can
resample and record why, and ``arena audit`` can print it.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

#: App. A.2 thresholds
MAX_CATEGORY_SHARE = 0.99
MAX_BOUNDARY_MASS = 0.10
MAX_ABS_CORR = 0.99
#: a column with at most this many distinct values is audited as discrete
DISCRETE_MAX_LEVELS = 20


def _ranks(x: np.ndarray) -> np.ndarray:
    """Column-wise average ranks (ties share their mean rank), as scipy.stats.rankdata."""
    from scipy.stats import rankdata

    return rankdata(x, axis=0)


def _ranks_from_order(x: np.ndarray, order: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Column-wise average ranks of ``x`` (n × d) given ``order = np.argsort(x, axis=0)``.

    ``levels`` (d,) counts each column's distinct values. A column of n
    distinct values gets its ordinal ranks 1 … n (exact integers, which is
    what average ranks are without ties, so the values equal
    :func:`_ranks`'s); a column with ties is ranked by :func:`_ranks`. Saves
    the second sort of the near-duplicate check (generation speed, issue 12).
    """
    n, d = x.shape
    ranks = np.empty((n, d))
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1.0, n + 1.0)[:, None], (n, d)), axis=0)
    tied = np.flatnonzero(levels < n)
    if tied.size:
        ranks[:, tied] = _ranks(x[:, tied])
    return ranks


def audit_table(x: np.ndarray, names: Sequence[str], boundaries: Optional[Mapping[int, Sequence[float]]] = None,
                x_structural: Optional[np.ndarray] = None, max_abs_corr: float = MAX_ABS_CORR) -> List[str]:
    """Dataset-level checks of App. A.2 on one raw (n × d) table.

    Args:
        x: (n × d) table as shipped (raw, before standardisation).
        names: d variable names (used in the reasons).
        boundaries: column index → explicit clipping points of that variable.
        x_structural: (n × d) structural values, where boundary mass is
            measured (defaults to ``x``; observation stressors may move values).
        max_abs_corr: near-duplicate threshold on the rank (Spearman)
            correlation (0.99 in App. A.2, which does not name the
            coefficient; ranks catch monotone copies and do not swing with a
            few extreme rows of a heavy-tailed pair).

    Returns:
        Reasons, empty when the table passes. The first reason word is a
        stable key (``non-finite``, ``near-constant``, ``dominant-category``,
        ``boundary-mass``, ``near-duplicate``) used for resample statistics.
    """
    x = np.asarray(x, dtype=float)
    problems: List[str] = []
    finite = np.isfinite(x)
    if not finite.all():
        bad = [names[j] for j in np.flatnonzero(~finite.all(axis=0))]
        return [f"non-finite values in {bad[:5]}"]
    n, d = x.shape
    sd = x.std(axis=0)
    scale = np.maximum(np.abs(x).max(axis=0), 1.0)
    # one argsort for every column: distinct levels, the longest run of equal values and the ranks
    order = np.argsort(x, axis=0)
    xs = np.take_along_axis(x, order, axis=0)
    new_level = np.vstack([np.ones((1, d), dtype=bool), xs[1:] != xs[:-1]])
    levels = new_level.sum(axis=0)
    for j in range(d):
        if sd[j] <= 1e-8 * scale[j]:
            problems.append(f"near-constant column {names[j]} (sd {sd[j]:.2g})")
            continue
        if levels[j] == n:
            continue  # all values distinct: no dominant value
        starts = np.flatnonzero(new_level[:, j])
        share = float(np.diff(np.append(starts, n)).max()) / n
        if share > MAX_CATEGORY_SHARE:
            kind = "dominant-category" if levels[j] <= DISCRETE_MAX_LEVELS else "near-constant"
            problems.append(f"{kind} {names[j]}: one value on {share:.1%} of rows")
    xs = x if x_structural is None else np.asarray(x_structural, dtype=float)
    for j, points in (boundaries or {}).items():
        for b in points:
            mass = float(np.mean(np.isclose(xs[:, j], b, rtol=1e-9, atol=1e-12)))
            if mass > MAX_BOUNDARY_MASS:
                problems.append(f"boundary-mass {names[j]}: {mass:.1%} of rows at the clipping point {b:.4g}")
    ok = sd > 1e-8 * scale
    if ok.sum() >= 2:
        idx = np.flatnonzero(ok)
        # rank (Spearman) correlation: a monotone near-copy (y = exp(x) + tiny noise) is a
        # near-duplicate too, and a heavy-tailed pair is not flagged on the strength of a few
        # extreme rows (Pearson's value then swings from sample to sample)
        corr = np.corrcoef(_ranks_from_order(x, order, levels)[:, idx], rowvar=False)
        np.fill_diagonal(corr, 0.0)
        iu = np.argwhere(np.triu(np.abs(corr) > max_abs_corr, 1))
        for a, b in iu:
            problems.append(f"near-duplicate {names[idx[a]]}, {names[idx[b]]} (|corr| = {abs(corr[a, b]):.4f})")
    return problems


def spec_boundaries(scm: Any) -> Dict[int, List[float]]:
    """Column index → explicit clipping points declared by a compiled SCM's roots and noises."""
    out: Dict[int, List[float]] = {}
    for j in range(scm.d):
        points: List[float] = []
        for comp in (scm._roots[j], scm._noises[j]):
            if comp is not None:
                points.extend(float(b) for b in comp.boundaries())
        if points:
            out[j] = points
    return out


def audit_cell(spec: Any, family: str, split: str, replicate: int, protocol: str = "default",
               n: Optional[int] = None, scm: Any = None, max_abs_corr: float = MAX_ABS_CORR) -> List[str]:
    """Sample one cell exactly as the protocol does and audit it (table + interventions).

    ``max_abs_corr`` lets a generator gate its pilot with a margin below the
    release threshold, so that replicates near the threshold are rare.

    Returns:
        Reasons (empty: the cell passes); the caller adds the cell.
    """
    from causalarena.protocol import sample_cell

    scm = scm if scm is not None else spec.compile()
    cell = sample_cell(spec, family, split, replicate, protocol, n, scm=scm)
    problems = audit_table(cell.x, spec.names, spec_boundaries(scm), cell.x_structural, max_abs_corr)
    if split != "obs" and cell.exogenous is not None:
        try:
            from causalarena.interventions import intervention_audit
        except ImportError:  # pragma: no cover - older core
            return problems
        problems += [f"intervention {p}" for p in intervention_audit(
            scm, cell.x_structural, cell.intervention_mask, cell.regime, cell.exogenous, cell.target_pool)]
    return problems


def audit_instance(instance: Any, splits: Optional[Sequence[str]] = None, replicates: Optional[int] = None,
                   protocol: str = "default", passed: Iterable[Tuple[str, str, int, str]] = ()) -> Dict[str, Any]:
    """Audit every (split, replicate) table of an SCM instance.

    Args:
        passed: cells ``(family, split, replicate, protocol)`` already audited
            by :func:`audit_cell` with its default thresholds *on this very
            spec* and passed — the release gate of generation
            (:meth:`.family.SyntheticFamily.release_gate`). Such a table is
            counted and not sampled or audited again: the same seeds give the
            same table and the same verdict.

    Returns:
        ``{"scm_id", "tables", "passed", "failures": [{"split", "replicate",
        "reason"}], "generation": {...}, "reused_tables"}`` where ``generation`` copies the
        resample statistics the family recorded in the spec metadata
        (``graph_attempts``, ``graph_rejections``, ``data_attempts``,
        ``data_rejections``) when present, and ``reused_tables`` counts the
        tables taken from ``passed``.

    Raises:
        TypeError: the instance has no executable spec (a real table).
    """
    spec = getattr(instance, "spec", None)
    if spec is None:
        raise TypeError(f"{instance.family}/{instance.scm_id} has no executable SCM spec to audit")
    done = set(passed)
    scm = None
    failures = []
    tables = reused = 0
    for split in (splits or instance.splits):
        for rep in range(replicates if replicates is not None else instance.n_replicates):
            tables += 1
            if (instance.family, split, rep, protocol) in done:
                reused += 1
                continue
            if scm is None:
                scm = spec.compile()
            for reason in audit_cell(spec, instance.family, split, rep, protocol, scm=scm):
                failures.append({"split": split, "replicate": rep, "reason": reason})
    meta = dict(spec.metadata)
    generation = {k: meta[k] for k in ("graph_attempts", "graph_rejections", "data_attempts", "data_rejections")
                  if k in meta}
    return {"scm_id": instance.scm_id, "tables": tables, "passed": not failures, "failures": failures,
            "generation": generation, "reused_tables": reused}


# ---------------------------------------------------------------------------
# auditing a whole family (``arena audit``)
# ---------------------------------------------------------------------------


def _audit_one(task) -> Dict[str, Any]:
    """Process-pool entry: regenerate one instance by id and audit it (never raises)."""
    family, options, scm_id, splits, replicates, protocol = task
    import time
    import traceback

    from causalarena.plugins import default_registry

    t0 = time.perf_counter()
    try:
        fam = default_registry().family(family).load()(**options)
        inst = fam.instance(scm_id)
        if getattr(inst, "error", None):  # the family could not generate it (e.g. audits exhausted)
            raise RuntimeError(inst.error)
        t1 = time.perf_counter()
        gate = getattr(fam, "release_gate", None)  # the tables generation's release gate already passed
        record = audit_instance(inst, splits, replicates, protocol, passed=gate(inst) if gate else ())
        record["factors"] = {k: v for k, v in dict(inst.factors).items()
                             if isinstance(v, (str, int, float, bool, list)) or v is None}
        record["node_tags"] = [dict(n.tags) for n in inst.spec.nodes]
        record["generate_seconds"] = t1 - t0
        record["audit_seconds"] = time.perf_counter() - t1
    except Exception as exc:  # noqa: BLE001 - a generation failure is an audit result
        record = {"scm_id": scm_id, "tables": 0, "passed": False, "generation_error":
                  f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(), "failures": [],
                  "generation": {}, "factors": {}, "node_tags": []}
    return record


def audit_family(family: str, options: Mapping[str, Any], scm_ids: Sequence[str], jobs: int = 1,
                 splits: Optional[Sequence[str]] = None, replicates: Optional[int] = None,
                 protocol: str = "default", progress: Any = None) -> List[Dict[str, Any]]:
    """Regenerate and audit instances of an installed family, ``jobs`` processes in parallel.

    Args:
        family: installed family name; options: its options.
        scm_ids: instance ids to audit.
        splits / replicates: default every split and replicate of each instance.
        progress: optional callable ``(done, total)``.

    Returns:
        One record per id (:func:`audit_instance`, plus ``factors``,
        ``node_tags``, ``generate_seconds``, ``audit_seconds``, or
        ``generation_error``), in the order of ``scm_ids``.
    """
    tasks = [(family, dict(options), sid, splits, replicates, protocol) for sid in scm_ids]
    if jobs <= 1:
        out = []
        for i, t in enumerate(tasks):
            out.append(_audit_one(t))
            if progress:
                progress(i + 1, len(tasks))
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork keeps the registry and imported numpy of the parent: a worker starts in milliseconds
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    out = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        for i, rec in enumerate(pool.map(_audit_one, tasks, chunksize=max(1, len(tasks) // (jobs * 16)))):
            out.append(rec)
            if progress:
                progress(i + 1, len(tasks))
    return out


def summarise_audit(records: Sequence[Mapping[str, Any]],
                    count_keys: Sequence[str] = ("graph", "d", "root_dependency", "difficulty_level", "difficulty",
                                                 "mechanisms", "noises", "roots")) -> Dict[str, Any]:
    """Pass/fail, resample statistics and factor counts of audit records.

    Factor counts are numbers of SCMs carrying a tag (list-valued factors
    count each element once per SCM); ``node_counts`` count nodes per
    ``mechanism`` / ``noise`` / ``root`` tag.
    """
    out: Dict[str, Any] = {"configurations": len(records), "passed": sum(bool(r["passed"]) for r in records),
                           "tables": sum(int(r.get("tables", 0)) for r in records),
                           "failed_tables": 0, "failure_reasons": {}, "generation_errors": [],
                           "graph_attempts": [], "data_attempts": [], "graph_rejections": {},
                           "data_rejections": {}, "counts": {k: {} for k in count_keys},
                           "node_counts": {"mechanism": {}, "noise": {}, "root": {}}}
    for r in records:
        if r.get("generation_error"):
            out["generation_errors"].append(f"{r['scm_id']}: {r['generation_error']}")
        out["failed_tables"] += len({(f["split"], f["replicate"]) for f in r.get("failures", [])})
        for f in r.get("failures", []):
            key = f["reason"].split(" ")[0]
            out["failure_reasons"][key] = out["failure_reasons"].get(key, 0) + 1
        gen = r.get("generation", {})
        for k in ("graph_attempts", "data_attempts"):
            if k in gen:
                out[k].append(int(gen[k]))
        for k in ("graph_rejections", "data_rejections"):
            for reason, c in (gen.get(k) or {}).items():
                out[k][reason] = out[k].get(reason, 0) + int(c)
        factors = r.get("factors", {})
        for key in count_keys:
            value = factors.get(key)
            if value is None:
                continue
            for v in (value if isinstance(value, list) else [value]):
                out["counts"][key][str(v)] = out["counts"][key].get(str(v), 0) + 1
        for tags in r.get("node_tags", []):
            for key in ("mechanism", "noise", "root"):
                if key in tags:
                    out["node_counts"][key][str(tags[key])] = out["node_counts"][key].get(str(tags[key]), 0) + 1
    return out
