"""Validation gates of scenario cards: ``arena validate PATH``.

CausalArena paper App. A.3 stage 5 (deterministic validation and release gate)
and App. A.2 (data audits). :func:`validate_card` runs, in order, the schema
(:mod:`.model`), the static gates and translation (:mod:`.compile`) and then
the data gates on sampled tables of the shared protocol — n = 1000
observational rows and an 800 + 200 obs+int table (default protocol,
replicate 0) — and, for formula cards, the equation residual and validity
checks. Nothing is raised for a bad card: every finding is a
:class:`~arena_cards.model.CardIssue` in the returned report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import attrs
import numpy as np

from .compile import static_check
from .expressions import Expression
from .model import Card, CardError, CardIssue, card_files, load_card

#: App. A.3 stage 5 data-gate thresholds
BOUNDARY_MASS = 0.10      # exact mass at a range boundary (continuous variables)
NEAR_COPY_CORR = 0.90     # |Pearson correlation| of continuous pairs
DOMINANT_CATEGORY = 0.99  # share of the most frequent value of a discrete variable
RESIDUAL_RTOL = 1e-9      # formula residuals, relative to max(|value|, 1e-12)
#: rows of the validation tables (the shared protocol's defaults, App. B.1)
N_OBS, N_INT = 800, 200
N_OBS_ONLY = 1000


@attrs.define
class CardReport:
    """Result of validating one card.

    Attributes:
        path: the card file.
        card_id: its id (``"?"`` when unreadable).
        family: ``semantic`` | ``formula`` | ``"?"``.
        issues: every finding (errors and warnings).
        spec: the compiled SCM spec when the static gates passed.
        stats: variables, edges, intervenable, per-equation max |residual|
            (in the output's unit) and max relative residual.
    """

    path: str
    card_id: str = "?"
    family: str = "?"
    issues: List[CardIssue] = attrs.field(factory=list)
    spec: Any = None
    stats: Dict[str, Any] = attrs.field(factory=dict)

    @property
    def errors(self) -> List[CardIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> List[CardIssue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors


def _is_int(x: np.ndarray) -> np.ndarray:
    return np.isfinite(x) & (x == np.round(x))


def _declared_boundary(var: Dict[str, Any]) -> bool:
    mech = var.get("mechanism") or {}
    return var.get("boundary") is not None or (mech.get("type") == "stock_flow"
                                               and (mech.get("floor", 0.0) is not None
                                                    or mech.get("capacity") is not None))


def _table_gates(card: Card, names: List[str], x: np.ndarray, label: str, out: List[CardIssue],
                 check_spread: bool) -> None:
    vars_ = {v["name"]: v for v in card.variables}
    just = card.data.get("justifications") or {}
    for j, name in enumerate(names):
        v = vars_[name]
        path = card.variable_path(name)
        col = x[:, j]
        finite = np.isfinite(col)
        if not finite.all():
            out.append(card.issue(path, f"{(~finite).sum()} non-finite value(s) in the {label} table "
                                        f"(first at row {int(np.flatnonzero(~finite)[0])})", "data"))
            continue
        lo, hi = v["range"]
        tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
        outside = (col < lo - tol) | (col > hi + tol)
        if outside.any():
            out.append(card.issue(path + ("range",), f"{outside.sum()} of {col.size} values in the {label} table lie "
                                                     f"outside the declared range [{lo}, {hi}] (sampled min "
                                                     f"{col.min():.6g}, max {col.max():.6g})", "data"))
        vtype = v["type"]
        if vtype == "binary" and not np.isin(col, (0.0, 1.0)).all():
            out.append(card.issue(path + ("type",), f"binary variable takes values other than 0/1 in the {label} "
                                                    f"table (e.g. {col[~np.isin(col, (0.0, 1.0))][0]:.6g})", "data"))
        if vtype in ("count", "ordinal", "categorical") and not _is_int(col).all():
            out.append(card.issue(path + ("type",), f"{vtype} variable takes non-integer values in the {label} table "
                                                    f"(e.g. {col[~_is_int(col)][0]:.6g}); give it a Poisson/binomial noise, a "
                                                    "count/threshold/ordinal mechanism or a 'resolution'", "data"))
        if not check_spread:
            continue
        if np.ptp(col) == 0:
            out.append(card.issue(path, f"constant column ({col[0]:.6g}) in the {label} table", "data"))
            continue
        if vtype == "continuous" and not _declared_boundary(v):
            for side, b in (("minimum", lo), ("maximum", hi)):
                share = float(np.mean(col == b))
                if share > BOUNDARY_MASS:
                    out.append(card.issue(path + ("range",),
                                          f"{share:.0%} of {label} values sit exactly at the range {side} {b} "
                                          f"(> {BOUNDARY_MASS:.0%}); declare a real boundary mechanism "
                                          "('boundary: {clip, reason}') or fix the mechanism", "data"))
        if vtype != "continuous":
            _, counts = np.unique(col, return_counts=True)
            share = counts.max() / col.size
            justified = any(item["variable"] == name for item in just.get("dominant_category") or [])
            if share > DOMINANT_CATEGORY and not justified:
                out.append(card.issue(path, f"one value holds {share:.1%} of the {label} rows (> 99 %); revise the "
                                            "mechanism or justify it in justifications.dominant_category", "data"))
    if check_spread:
        cont = [j for j, n in enumerate(names) if vars_[n]["type"] == "continuous" and np.ptp(x[:, j]) > 0
                and np.isfinite(x[:, j]).all()]
        if len(cont) > 1:
            with np.errstate(invalid="ignore", divide="ignore"):
                c = np.corrcoef(x[:, cont], rowvar=False)
            pairs = {frozenset(item["variables"]) for item in just.get("near_copies") or []}
            for a_i, a in enumerate(cont):
                for b in cont[a_i + 1:]:
                    r = c[a_i, cont.index(b)]
                    if np.isfinite(r) and abs(r) >= NEAR_COPY_CORR and frozenset((names[a], names[b])) not in pairs:
                        out.append(card.issue(card.variable_path(names[b]),
                                              f"near-copy of {names[a]}: |corr| = {abs(r):.3f} >= {NEAR_COPY_CORR} in "
                                              f"the {label} table (an alias, a unit conversion or a tiny-noise "
                                              "copy?); revise, or justify in justifications.near_copies", "data"))


def _equation_in_units(card: Card, eq: Dict[str, Any], spec, x: np.ndarray) -> np.ndarray:
    """The equation recomputed independently of the sampler: pint quantities in the declared units.

    The sampler evaluates formulas on SI-converted floats (an affine map per
    input); here the same text is evaluated on ``pint`` quantity arrays in
    the card's own units and converted to the output's unit by pint, so a
    wrong conversion, a noised, rounded or clipped output all show up as a
    residual.
    """
    from .units import quantity

    names = spec.names
    units = {v["name"]: str(v["unit"]) for v in card.variables}
    # absolute quantities in base units first: pint refuses (or misreads) products of offset units
    # (°C, °F), which a formula reads as absolute temperatures
    constants = {k: (quantity(float(c["value"]), c["unit"]).to_base_units() if isinstance(c, dict) else float(c))
                 for k, c in (eq.get("constants") or {}).items()}
    env = {p: quantity(x[:, names.index(p)], units[p]).to_base_units() for p in eq["inputs"]}
    result = Expression(eq["expression"], list(eq["inputs"]), constants)(env)
    out_unit = units[eq["output"]]
    if hasattr(result, "to"):
        return np.broadcast_to(np.asarray(result.to(out_unit).magnitude, dtype=float), (x.shape[0],))
    return np.broadcast_to(np.asarray(quantity(result, "dimensionless").to(out_unit).magnitude, dtype=float),
                           (x.shape[0],))


def _formula_gates(card: Card, spec, scm, x: np.ndarray, mask: np.ndarray, label: str, out: List[CardIssue],
                   stats: Dict[str, Any], n_obs_rows: int) -> None:
    eq_path = {e["id"]: ("equations", k) for k, e in enumerate(card.equations)}
    equations = {e["id"]: e for e in card.equations}
    for j, node in enumerate(spec.nodes):
        eq = node.tags.get("equation")
        if not eq:
            continue
        rows = ~mask[:, j]
        with np.errstate(all="ignore"):
            want = _equation_in_units(card, equations[eq], spec, x[rows])
        got = x[rows, j]
        resid = np.abs(got - want)
        rel = resid / np.maximum(np.abs(want), 1e-12)
        max_abs = float(np.nanmax(resid)) if resid.size else 0.0
        max_rel = float(np.nanmax(rel)) if rel.size else 0.0
        entry = stats.setdefault("residuals", {}).setdefault(eq, {"max_abs": 0.0, "max_rel": 0.0, "rows": 0,
                                                                 "unit": node.tags.get("unit")})
        entry["max_abs"] = max(entry["max_abs"], max_abs)
        entry["max_rel"] = max(entry["max_rel"], max_rel)
        entry["rows"] += int(rows.sum())
        if not np.all(np.isfinite(resid)) or max_rel > RESIDUAL_RTOL:
            out.append(card.issue(eq_path[eq], f"residual check failed on {label} rows where {node.name} is not "
                                               f"intervened: max |residual| {max_abs:.3g} {node.tags.get('unit')} "
                                               f"(relative {max_rel:.3g} > {RESIDUAL_RTOL:g}) — is the formula "
                                               "output noised, rounded or clipped?", "formula"))
    # validity conditions on the observational rows, in declared units
    names = spec.names
    for k, e in enumerate(card.equations):
        for c, cond in enumerate(e.get("validity") or []):
            expr = Expression.cached(cond, list(e["inputs"]), {})
            env = {p: x[:n_obs_rows, names.index(p)] for p in e["inputs"]}
            ok = np.asarray(expr(env), dtype=float)
            ok = np.broadcast_to(ok, (n_obs_rows,))
            bad = int(np.count_nonzero(ok == 0))
            if bad:
                out.append(card.issue(("equations", k, "validity", c),
                                      f"validity condition {cond!r} fails on {bad} of {n_obs_rows} observational rows "
                                      f"of the {label} table: the equation is used outside its domain", "formula"))


def validate_card(path: Union[str, Path, Card], pool_severity: str = "warning", data: bool = True,
                  all_tables: bool = False) -> CardReport:
    """Run every gate on one card; never raises for a bad card.

    Args:
        path: a card file (or an already parsed :class:`Card`).
        pool_severity: ``"warning"`` (third-party cards) or ``"error"``
            (the shipped pool) for the pool rules of App. A.4–A.5.
        data: also run the data gates (sampling n = 1000 + 1000 rows).
        all_tables: when the card passes, also run the data gates on every
            table the arena ships (both splits × 5 replicates,
            :func:`audit_tables`), not only replicate 0.

    Returns:
        A :class:`CardReport`.
    """
    if isinstance(path, Card):
        card = path
    else:
        try:
            card = load_card(path)
        except CardError as exc:
            report = CardReport(path=str(path), issues=exc.issues)
            try:  # name the card in the report when its YAML at least parses
                raw = load_card(path, check_schema=False).data
                if isinstance(raw.get("id"), str):
                    report.card_id = raw["id"]
                if raw.get("family") in ("semantic", "formula"):
                    report.family = raw["family"]
            except CardError:
                pass
            return report
    report = CardReport(path=card.source, card_id=card.id, family=card.family)
    if not isinstance(path, Card):
        from .seal import sealed_id

        stem = sealed_id(card.source)  # x.yaml -> x; a sealed x.yaml.enc -> x
        if stem != card.id:
            report.issues.append(card.issue(("id",), f"the file is named {stem!r} but the card id is {card.id!r}; "
                                                     f"name it {card.id}.yaml", "schema", pool_severity))
    try:
        spec, issues, _ = static_check(card, pool_severity)
    except Exception as exc:  # the validator must report, never crash (issue 4 "Bad input")
        report.issues.append(card.issue((), f"internal validator error: {type(exc).__name__}: {exc}", "schema"))
        return report
    report.issues.extend(issues)
    report.stats.update(d=len(card.variables), edges=len(card.edges),
                        intervenable=sum(bool(v.get("intervenable")) for v in card.variables))
    if spec is None:
        return report
    report.spec = spec
    if data:
        try:
            _data_gates(card, spec, report, pool_severity)
        except Exception as exc:
            report.issues.append(card.issue((), f"sampling failed: {type(exc).__name__}: {exc}", "data"))
    if all_tables and report.ok:
        try:
            extra: Dict[str, Any] = {}
            for rec in audit_tables(card, spec, stats=extra):
                if rec["replicate"] == 0:
                    continue  # checked above
                for i in rec["issues"]:
                    report.issues.append(attrs.evolve(i, message=f"{'obs' if rec['split'] == 'obs' else 'obs+int'} "
                                                                 f"replicate {rec['replicate']}: {i.message}"))
            if extra.get("residuals"):  # the residuals over all 10 tables (replicate 0 counted once)
                report.stats["residuals"] = extra["residuals"]
        except Exception as exc:
            report.issues.append(card.issue((), f"sampling failed: {type(exc).__name__}: {exc}", "data"))
    return report


def _rank_gate(card: Card, names: List[str], x: np.ndarray, severity: str, out: List[CardIssue]) -> None:
    """Exact linear dependence among the observed columns (a sum of two observed readings …).

    Not in App. A.3's list, but such a table is refused as ``invalid_input``
    by every method that inverts the covariance (pc, ges, gies: check I12 of
    :mod:`causalarena.checks`), so the card would score nothing for them.
    Same severity as the pool rules: an error for the shipped pool.
    """
    import types

    from causalarena.checks import check_input

    res = check_input(types.SimpleNamespace(X=x, columns=list(names)),
                      types.SimpleNamespace(requires_full_rank=True, handles_missing=False, min_samples_factor=0))
    for problem in res.problems:
        if problem.startswith("rank-deficient"):
            out.append(card.issue(("variables",), problem + " — methods that invert the covariance (pc, ges, "
                                  "gies) refuse such a table; report the derived value at its instrument "
                                  "resolution or with readout noise, or use the law's nonlinear form", "data",
                                  severity))


def _data_gates(card: Card, spec, report: CardReport, pool_severity: str = "warning") -> None:
    from causalarena.interventions import intervention_audit
    from causalarena.protocol import sample_cell

    scm = spec.compile()
    names = spec.names
    obs = sample_cell(spec, card.family, "obs", 0, scm=scm)
    mixed = sample_cell(spec, card.family, "obs_int", 0, scm=scm)
    out: List[CardIssue] = []
    _table_gates(card, names, obs.x_structural, "obs", out, check_spread=True)
    _table_gates(card, names, mixed.x_structural, "obs+int", out, check_spread=False)
    if all(np.isfinite(obs.x_structural).all(axis=0)):
        _rank_gate(card, names, obs.x_structural, pool_severity, out)
    if mixed.x.shape[1] != obs.x.shape[1]:
        out.append(card.issue(("variables",), "obs and obs+int tables have different columns", "data"))
    for problem in intervention_audit(scm, mixed.x_structural, mixed.intervention_mask, mixed.regime,
                                      mixed.exogenous, mixed.target_pool):
        out.append(card.issue(("variables",), f"intervention audit: {problem}", "data"))
    if card.family == "formula":
        _formula_gates(card, spec, scm, obs.x_structural, obs.intervention_mask, "obs", out, report.stats, obs.n_obs)
        _formula_gates(card, spec, scm, mixed.x_structural, mixed.intervention_mask, "obs+int", out, report.stats,
                       mixed.n_obs)
    report.stats["targets"] = [names[i] for i in mixed.target_pool]
    report.issues.extend(out)


def audit_tables(card: Card, spec, splits: Sequence[str] = ("obs", "obs_int"), replicates: int = 5,
                 protocol: str = "default", stats: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """The data gates on every shipped table of a card (``arena audit semantic``), not just replicate 0.

    For each split and replicate of the shared protocol: the table gates
    (finite, in range, types, constant columns, boundary mass, near-copies,
    dominant categories — the card's justifications apply), the intervention
    audit on obs+int tables and, for formula cards, the residual and validity
    checks.

    Args:
        stats: when given, formula residuals are accumulated into it
            (``stats["residuals"][equation_id]``, as in :class:`CardReport`).

    Returns:
        One record per table: ``{"split", "replicate", "issues": [CardIssue], "problems": [str]}``.
    """
    from causalarena.interventions import intervention_audit
    from causalarena.protocol import sample_cell

    scm = spec.compile()
    out = []
    for split in splits:
        for rep in range(replicates):
            cell = sample_cell(spec, card.family, split, rep, protocol, scm=scm)
            issues: List[CardIssue] = []
            label = "obs" if split == "obs" else "obs+int"
            _table_gates(card, spec.names, cell.x_structural, label, issues, check_spread=split == "obs")
            if split != "obs":
                issues += [card.issue(("variables",), f"intervention audit: {p}", "data")
                           for p in intervention_audit(scm, cell.x_structural, cell.intervention_mask, cell.regime,
                                                       cell.exogenous, cell.target_pool)]
            if card.family == "formula":
                _formula_gates(card, spec, scm, cell.x_structural, cell.intervention_mask, label, issues,
                               stats if stats is not None else {}, cell.n_obs)
            out.append({"split": split, "replicate": rep, "issues": issues,
                        "problems": [f"{i.field}: {i.message}" for i in issues]})
    return out


def validate_path(path: Union[str, Path], pool_severity: str = "warning", data: bool = True,
                  all_tables: bool = False) -> List[CardReport]:
    """Validate a card file or every card under a folder; duplicate ids across files are errors.

    Sealed reserved cards (``*.yaml.enc``) under a folder are validated too when the reserved key
    (``CAUSALARENA_RESERVED_KEY``) is set, and skipped without it (:func:`sealed_skipped` counts them).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        arena_cards.seal.ReservedKeyError: ``path`` is a sealed file and the key is missing or wrong,
            or the key is set and does not open a sealed card under the folder.
    """
    from .seal import key_from_env, sealed_files

    files = card_files(path)
    if Path(path).is_dir() and key_from_env():
        files += sealed_files(path)
    reports = [validate_card(f, pool_severity, data, all_tables) for f in files]
    seen: Dict[tuple, str] = {}
    for r in reports:
        key = (r.family, r.card_id)
        if r.card_id == "?":
            continue
        if key in seen:
            r.issues.append(CardIssue(card=r.path, field="id", line=None, gate="schema",
                                      message=f"duplicate {r.family} card id {r.card_id!r} (also {seen[key]})"))
        else:
            seen[key] = r.path
    return reports


def sealed_skipped(path: Union[str, Path]) -> int:
    """How many sealed cards under the folder ``path`` :func:`validate_path` skips (0 with the key set)."""
    from .seal import key_from_env, sealed_files

    if key_from_env() or not Path(path).is_dir():
        return 0
    return len(sealed_files(path))


def format_reports(reports: Sequence[CardReport]) -> str:
    """Plain-text summary: one line per issue, then a count line."""
    lines = []
    for r in reports:
        for i in r.issues:
            lines.append(str(i))
    n_err = sum(len(r.errors) for r in reports)
    n_warn = sum(len(r.warnings) for r in reports)
    bad = sum(not r.ok for r in reports)
    lines.append(f"{len(reports)} card(s): {len(reports) - bad} passed, {bad} failed; "
                 f"{n_err} error(s), {n_warn} warning(s)")
    return "\n".join(lines)


def residual_summary(report: CardReport) -> Optional[str]:
    """``eq: max |residual| …`` lines of a formula card's report (None for semantic)."""
    res = report.stats.get("residuals")
    if not res:
        return None
    return "; ".join(f"{eq}: max |residual| {v['max_abs']:.3g} {v['unit']} (relative {v['max_rel']:.2g}) on "
                     f"{v['rows']} non-intervened rows" for eq, v in res.items())
