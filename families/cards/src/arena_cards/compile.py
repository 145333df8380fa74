"""Static gates of a scenario card and its translation to the core's :class:`~causalarena.scm.SCMSpec`.

CausalArena paper App. A.3 stages 4–5: unique node identifiers, valid edge
references, acyclicity, every non-root's operation over *exactly* its graph
parents (no hidden parent, no unused parent), root distributions for roots,
units (pint) and dimensional consistency of formula equations, numeric
hazards over the declared ranges (division by zero reachable in range), and
the executable translation: typed operations become restricted-language
expressions (``card_expression``), noise and post-processing a
``card_channel``, roots a ``card_root``.

Column order: the compiled spec's nodes — the dataset's columns — are a
permutation of the card's variables drawn from its id
(:func:`column_order`), not the authored order. Authors list variables
roughly causes-first, so a table in YAML order would hand any method whose
tie-breaking reads the column order (sortnregress on a standardised table)
the causal order; the permutation makes the column order uninformative, as
the shared protocol requires (paper §4.5, App. B; Reisach et al. 2021 on
such artefacts). The YAML, its field paths and every message keep the
authored order; everything downstream maps columns by name.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from causalarena.scm import ComponentSpec, NodeSpec, SCMSpec

from .components import DISCRETE_ROOTS, PARAMETER_NOISES
from .expressions import RESERVED, Expression, ExpressionError, Hazards
from .model import FORMULA_DOMAINS, SEMANTIC_DOMAINS, Card, CardError, CardIssue
from .units import UnitError, dimensionality, parse_unit, quantity, to_base_affine

#: typed operations whose parents are the keys of ``coefficients``
LINEAR_TYPES = ("linear", "logistic", "bernoulli", "poisson", "threshold", "ordinal", "saturation")
#: the generic bounded sigmoid (App. A.3 stage 2: ≤ 25 % of non-root nodes)
GENERIC_SIGMOID = "logistic"
#: pool rules (App. A.4–A.5): family → (variables, edges)
POOL_RULES = {"semantic": ((17, 25), (25, 67)), "formula": ((16, 25), (18, 50))}
#: the formula validator's wider safety envelope for justified deviations (App. A.3 stage 2): 10–30 nodes
SAFETY_ENVELOPE = (10, 30)
#: points per declared-range scan of numeric hazards
RANGE_SCAN_POINTS = 4096


#: version of the compiled tables, metadata ``card_compiler`` of every compiled spec and so part of its
#: fingerprint (results are keyed by it): bump it with any compiler change that changes a card's spec or
#: tables, so stored results are rerun. 2: columns permuted from the id (arena-cards 0.2.0); 1: YAML order
CARD_COMPILER = "2"
#: prefix of the seed of a card's column order (:func:`column_order`); changing it changes every card table
COLUMN_ORDER_SEED = "card-column-order/"


def column_order(card_id: str, names: Sequence[str]) -> List[str]:
    """The dataset column order of a card: a permutation of ``names`` drawn from the card id.

    The seed is ``SHA-256(COLUMN_ORDER_SEED + card_id)`` (hex); each name's key is
    ``SHA-256(seed + "/" + name)`` and the columns are the names in increasing key
    order. The order is therefore a fixed pseudo-random permutation per id — the
    same on every platform and numpy version, different between ids, and
    independent of the order the YAML lists the variables in (moving a variable
    in the file does not change the table).

    Args:
        card_id: the card's ``id``.
        names: its variable names (distinct), in any order.

    Returns:
        The names in column order (a list of the same length).
    """
    seed = hashlib.sha256((COLUMN_ORDER_SEED + str(card_id)).encode("utf-8")).hexdigest()
    return sorted(names, key=lambda n: hashlib.sha256(f"{seed}/{n}".encode("utf-8")).digest())


def _fmt(x: float) -> str:
    return repr(float(x))


def _lin(mech: Dict[str, Any]) -> str:
    terms = [_fmt(mech.get("intercept", 0.0))]
    for p, w in (mech.get("coefficients") or {}).items():
        terms.append(f"{_fmt(w)} * {p}")
    return "(" + " + ".join(terms) + ")"


def _weighted_sum(weights: Dict[str, float]) -> str:
    if not weights:
        return "0.0"
    return "(" + " + ".join(f"{_fmt(w)} * {p}" for p, w in weights.items()) + ")"


def mechanism_family(var: Dict[str, Any]) -> str:
    """The process family of a non-root (factor tag ``mechanism``; App. A.4 Fig. 18 mix).

    The mechanism's ``type``, except that an ``expression`` whose noise is a
    Poisson, Bernoulli or binomial draw is the count/event process it
    describes (``poisson``, ``bernoulli``, ``binomial``).
    """
    mtype = (var.get("mechanism") or {}).get("type", "")
    noise = (var.get("noise") or {}).get("kind")
    if mtype == "expression" and noise in PARAMETER_NOISES:
        return str(noise)
    return mtype


def role_of(card: Card, var: Dict[str, Any], parents: Sequence[str]) -> str:
    """``root`` | ``formula`` | ``measurement`` | ``mechanism`` (colours of ``arena card render``)."""
    if not parents:
        return "root"
    if (var.get("mechanism") or {}).get("type") == "equation":
        return "formula"
    if var.get("measurement"):
        return "measurement"
    return "mechanism"


class _Static:
    """Runs the static gates of one card, collecting issues, and builds the spec."""

    def __init__(self, card: Card) -> None:
        self.card = card
        self.issues: List[CardIssue] = []
        self.formula = card.family == "formula"
        self.expressions: Dict[str, Tuple[Expression, Dict[str, Any]]] = {}

    def err(self, path, message, gate, severity="error") -> None:
        self.issues.append(self.card.issue(path, message, gate, severity))

    # -- numbers -------------------------------------------------------------

    def finite_numbers(self) -> None:
        """Every number in the card is finite (YAML accepts .nan and .inf; JSON Schema calls them numbers)."""

        def walk(obj, path):
            if isinstance(obj, float) and not math.isfinite(obj):
                gate = "mechanism" if any(k in path for k in ("mechanism", "noise", "root_distribution")) \
                    else "schema"
                self.err(path, f"must be a finite number, got {obj}", gate)
            elif isinstance(obj, dict):
                for k, v in obj.items():
                    walk(v, path + (k,))
            elif isinstance(obj, list):
                for i, v in enumerate(obj):
                    walk(v, path + (i,))

        walk(self.card.data, ())

    # -- graph ---------------------------------------------------------------

    def graph(self) -> bool:
        card = self.card
        seen: Dict[str, int] = {}
        for i, v in enumerate(card.variables):
            name = v.get("name")
            if name in seen:
                self.err(("variables", i, "name"), f"duplicate variable name {name!r} (first is variables[{seen[name]}])",
                         "graph")
            else:
                seen[name] = i
            if name in RESERVED:
                self.err(("variables", i, "name"), f"{name!r} is a function or constant of the expression language; "
                                                   "rename the variable", "graph")
        names = set(seen)
        edges = set()
        for k, e in enumerate(card.edges):
            a, b = e.get("from"), e.get("to")
            for key, node in (("from", a), ("to", b)):
                if node not in names:
                    self.err(("edges", k, key), f"unknown variable {node!r}", "graph")
            if a == b:
                self.err(("edges", k), f"self-loop {a} -> {b}", "graph")
            if (a, b) in edges:
                self.err(("edges", k), f"duplicate edge {a} -> {b}", "graph")
            edges.add((a, b))
        if self.issues:
            return False
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(names)
        g.add_edges_from(edges)
        try:
            cycle = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            return True
        text = " -> ".join(u for u, _ in cycle) + f" -> {cycle[0][0]}"
        k = next(i for i, e in enumerate(card.edges) if (e["from"], e["to"]) == tuple(cycle[0]))
        self.err(("edges", k), f"the graph has a cycle: {text}", "graph")
        return False

    # -- variables -------------------------------------------------------------

    def variables(self) -> None:
        card = self.card
        family = card.family
        domain = card.data.get("domain")
        allowed = SEMANTIC_DOMAINS if family == "semantic" else FORMULA_DOMAINS
        if domain not in allowed:
            self.err(("domain",), f"domain {domain!r} is not a {family} domain; one of {list(allowed)}", "schema")
        if family == "semantic" and card.equations:
            self.err(("equations",), "equations belong in formula cards; semantic cards use typed operations "
                                     "and expressions", "schema")
        parents = card.parents()
        for i, v in enumerate(card.variables):
            self._variable(i, v, parents[v["name"]])
        self._equations(parents)
        self._justifications()

    def _variable(self, i: int, v: Dict[str, Any], parents: List[str]) -> None:
        path = ("variables", i)
        name, vtype = v["name"], v["type"]
        lo, hi = v["range"]
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            self.err(path + ("range",), f"range must be [min, max] with finite min < max, got [{lo}, {hi}]", "schema")
        try:
            parse_unit(str(v["unit"]))
        except UnitError as exc:
            self.err(path + ("unit",), str(exc), "units")
        levels = v.get("levels")
        if levels and len(set(map(str, levels))) != len(levels):
            self.err(path + ("levels",), f"levels must be distinct, got {levels}", "schema")
        if vtype in ("ordinal", "categorical"):
            if not levels:
                self.err(path + ("levels",), f"a {vtype} variable needs 'levels' (labels of codes 0 … K-1)", "schema")
            elif [lo, hi] != [0, len(levels) - 1]:
                self.err(path + ("range",), f"a {vtype} variable with {len(levels)} levels has range "
                                            f"[0, {len(levels) - 1}], got [{lo}, {hi}]", "schema")
        elif levels is not None:
            self.err(path + ("levels",), f"'levels' is only for ordinal and categorical variables, not {vtype}",
                     "schema")
        if vtype == "binary" and [lo, hi] != [0, 1]:
            self.err(path + ("range",), f"a binary variable has range [0, 1], got [{lo}, {hi}]", "schema")
        if vtype == "count" and lo < 0:
            self.err(path + ("range",), f"a count cannot be negative; range starts at {lo}", "schema")
        # intervention
        iv = v.get("intervention")
        if v["intervenable"] and iv is None:
            self.err(path + ("intervention",), "an intervenable variable needs 'intervention' with its meaning",
                     "schema")
        if not v["intervenable"] and iv is not None:
            self.err(path + ("intervention",), "'intervention' given but intervenable is false", "schema")
        if iv is not None:
            if "values" in iv and "range" in iv:
                self.err(path + ("intervention",), "give intervention 'values' or 'range', not both", "schema")
            for val in iv.get("values", []):
                if not lo <= val <= hi:
                    self.err(path + ("intervention", "values"), f"value {val} is outside the range [{lo}, {hi}]",
                             "schema")
            if "range" in iv:
                a, b = iv["range"]
                if not (lo <= a < b <= hi):
                    self.err(path + ("intervention", "range"),
                             f"[{a}, {b}] must satisfy {lo} <= low < high <= {hi} (the variable's range)", "schema")
            if vtype != "continuous":
                # do(x = 0.37) is meaningless for a binary alert or a count of people
                for val in iv.get("values", []):
                    if val != int(val) or (vtype == "binary" and val not in (0, 1)):
                        self.err(path + ("intervention", "values"),
                                 f"{val} is not a valid value of a {vtype} variable", "schema")
                if "values" not in iv and "range" not in iv:
                    self.err(path + ("intervention",),
                             f"a {vtype} variable needs intervention 'values' (or an integer 'range'): the protocol "
                             "default, uniform between the 10th and 90th percentile, draws non-integer values",
                             "schema")
                elif "range" in iv and math.ceil(iv["range"][1]) - math.floor(iv["range"][0]) > 10000:
                    self.err(path + ("intervention", "range"), "an integer intervention range may hold at most "
                                                               "10,000 values", "schema")
        # root or mechanism
        mech = v.get("mechanism")
        if not parents:
            if v.get("root_distribution") is None:
                self.err(path, f"{name} has no parents (a root) and needs 'root_distribution'"
                         + (" — or is an edge into it missing?" if mech else ""), "mechanism")
            for key in ("mechanism", "noise"):
                if v.get(key) is not None:
                    self.err(path + (key,), f"{name} is a root: it takes 'root_distribution', not '{key}' "
                                            "(no edge points into it)", "mechanism")
            rd = v.get("root_distribution")
            if rd is not None:
                self._root(path + ("root_distribution",), v, rd)
            return
        if v.get("root_distribution") is not None:
            self.err(path + ("root_distribution",), f"{name} has parents {parents}: it needs a 'mechanism', "
                                                    "not a root distribution", "mechanism")
        if mech is None:
            self.err(path, f"{name} has parents {parents} and needs a 'mechanism' over exactly them", "mechanism")
            return
        self._mechanism(path, v, mech, parents)

    def _root(self, path, v, rd) -> None:
        kind = rd["kind"]
        vtype = v["type"]
        discrete_types = {"bernoulli": ("binary",), "categorical": ("categorical", "ordinal"),
                          "binomial": ("count", "ordinal"), "poisson": ("count",),
                          "discrete_uniform": ("count", "ordinal", "categorical", "binary")}
        if kind in DISCRETE_ROOTS and vtype not in discrete_types[kind]:
            self.err(path + ("kind",), f"a {kind} root gives {'/'.join(discrete_types[kind])} values, but the "
                                       f"variable is {vtype}", "mechanism")
        if kind not in DISCRETE_ROOTS and vtype != "continuous":
            self.err(path + ("kind",), f"a {kind} root is continuous, but the variable is {vtype}", "mechanism")
        if kind == "categorical" and v.get("levels") and len(rd["probs"]) != len(v["levels"]):
            self.err(path + ("probs",), f"{len(rd['probs'])} probabilities for {len(v['levels'])} levels",
                     "mechanism")
        from .components import CardRoot

        try:
            CardRoot(distribution=kind, **{k: x for k, x in rd.items() if k != "kind"})
        except ValueError as exc:
            self.err(path, str(exc), "mechanism")

    def _exact_parents(self, path, used: Sequence[str], parents: Sequence[str], what: str,
                       locate=None) -> None:
        hidden = [u for u in used if u not in parents]
        unused = [p for p in parents if p not in used]
        if hidden:
            if locate is not None:  # point at the field holding the first hidden name
                path = locate(hidden[0]) or path
            self.err(path, f"{what} reads {hidden}, which {'is' if len(hidden) == 1 else 'are'} not graph "
                           f"parent(s) of this variable (parents: {list(parents)}) — a hidden parent; add the edge "
                           "or remove the term", "mechanism")
        if unused:
            self.err(path, f"graph parent(s) {unused} are not used by the {what} — an unused parent; "
                           "remove the edge or use it", "mechanism")

    def _mechanism(self, path, v, mech, parents) -> None:
        mtype = mech["type"]
        name = v["name"]
        noise = v.get("noise")
        mpath = path + ("mechanism",)
        if mtype in LINEAR_TYPES:
            self._exact_parents(mpath + ("coefficients",), list(mech.get("coefficients") or {}), parents,
                                f"{mtype} mechanism's coefficients", lambda u: mpath + ("coefficients", u))
        elif mtype == "stock_flow":
            used = list(mech.get("inflows") or {}) + list(mech.get("outflows") or {})
            init = mech.get("initial")
            if isinstance(init, str):
                used.append(init)
            dup = sorted({u for u in used if used.count(u) > 1})
            if dup:
                self.err(mpath, f"{dup} appear more than once among initial, inflows and outflows", "mechanism")
            def locate(u, mech=mech, mpath=mpath):
                for key in ("inflows", "outflows"):
                    if u in (mech.get(key) or {}):
                        return mpath + (key, u)
                return mpath + ("initial",) if mech.get("initial") == u else None

            self._exact_parents(mpath, used, parents, "stock_flow's initial/inflows/outflows", locate)
            if not mech["periods"] > 0:
                self.err(mpath + ("periods",), f"periods must be > 0, got {mech['periods']}", "mechanism")
            fl, cap = mech.get("floor", 0.0), mech.get("capacity")
            if fl is not None and cap is not None and not fl < cap:
                self.err(mpath, f"floor ({fl}) must be below capacity ({cap})", "mechanism")
        elif mtype == "expression":
            self._expression(mpath + ("expression",), v, mech["expression"], parents, mech.get("constants") or {},
                             mpath + ("constants",))
        elif mtype == "equation":
            if not self.formula:
                self.err(mpath, "'equation' mechanisms belong in formula cards", "mechanism")
            eq_ids = [e.get("id") for e in self.card.equations]
            if mech["equation"] not in eq_ids:
                self.err(mpath + ("equation",), f"no equation {mech['equation']!r} in 'equations' ({eq_ids})",
                         "mechanism")
            for key in ("noise", "resolution", "boundary"):
                if v.get(key) is not None:
                    self.err(path + (key,), f"{name} is a formula node: computed exactly from its parents, so no "
                                            f"'{key}' (put noise on an instrument/readout node instead; formula "
                                            "outputs are never clipped to pass a range)", "formula")
        # noise parameters (scale > 0, df > 0, 0 < outlier_prob < 1 …)
        if noise is not None:
            from .components import CardChannel

            try:
                CardChannel(family=noise["kind"], **{k: x for k, x in noise.items() if k != "kind"})
            except (ValueError, TypeError) as exc:
                self.err(path + ("noise",), str(exc), "mechanism")
        # noise compatibility
        if mtype in ("bernoulli", "poisson") and noise is not None:
            self.err(path + ("noise",), f"a {mtype} mechanism draws its own randomness; remove 'noise'", "mechanism")
        if noise is not None and noise["kind"] in PARAMETER_NOISES and mtype in ("threshold", "ordinal"):
            self.err(path + ("noise",), f"{noise['kind']} noise cannot feed a {mtype} cut", "mechanism")
        want = {"bernoulli": ("binary",), "poisson": ("count",), "threshold": None, "ordinal": ("ordinal",
                                                                                                "categorical")}
        vtype = v["type"]
        kinds = {"poisson": ("count",), "bernoulli": ("binary",), "binomial": ("count",)}
        nk = None if noise is None else noise["kind"]
        if nk in kinds and vtype not in kinds[nk]:
            self.err(path + ("noise", "kind"), f"{nk} noise gives {kinds[nk][0]} values, but the variable is {vtype}",
                     "mechanism")
        if want.get(mtype) and vtype not in want[mtype]:
            self.err(path + ("mechanism", "type"),
                     f"a {mtype} mechanism gives {'/'.join(want[mtype])} values, but the variable is {vtype}",
                     "mechanism")
        if mtype == "ordinal" and v.get("levels") and len(mech["cutpoints"]) + 1 != len(v["levels"]):
            self.err(mpath + ("cutpoints",), f"{len(mech['cutpoints'])} cut points make "
                                             f"{len(mech['cutpoints']) + 1} codes, but there are "
                                             f"{len(v['levels'])} levels", "mechanism")
        if mtype == "ordinal" and list(mech["cutpoints"]) != sorted(set(mech["cutpoints"])):
            self.err(mpath + ("cutpoints",), "cut points must be strictly increasing", "mechanism")
        if mtype == "saturation" and not mech["half_saturation"] > 0:
            self.err(mpath + ("half_saturation",), "half_saturation must be > 0", "mechanism")
        if mtype == "threshold" and vtype in ("binary",):
            below, above = mech.get("below", 0), mech.get("above", 1)
            if {below, above} - {0, 1}:
                self.err(mpath, "a binary threshold variable takes below/above in {0, 1}", "mechanism")
        boundary = v.get("boundary")
        if boundary is not None:
            a, b = boundary["clip"]
            lo, hi = v["range"]
            if a is None and b is None:
                self.err(path + ("boundary", "clip"), "a boundary needs at least one finite side", "mechanism")
            if a is not None and b is not None and not a < b:
                self.err(path + ("boundary", "clip"), f"clip low ({a}) must be < high ({b})", "mechanism")
            for side in (a, b):
                if side is not None and not lo <= side <= hi:
                    self.err(path + ("boundary", "clip"), f"clip point {side} lies outside the range [{lo}, {hi}]",
                             "mechanism")

    # -- expressions, units ----------------------------------------------------

    def _constants(self, path, constants: Dict[str, Any]) -> Tuple[Dict[str, float], Dict[str, Any], bool]:
        """(numeric constants for evaluation, pint constants for dims, ok)."""
        numeric: Dict[str, float] = {}
        dims: Dict[str, Any] = {}
        ok = True
        for k, c in constants.items():
            if k in RESERVED or k.startswith("_"):
                self.err(path + (k,), f"constant name {k!r} is reserved", "mechanism")
                ok = False
                continue
            if isinstance(c, dict):
                if not self.formula:
                    numeric[k] = float(c["value"])
                    continue
                try:
                    a, b = to_base_affine(c["unit"])
                    numeric[k] = a * float(c["value"]) + b
                    dims[k] = quantity(float(c["value"]), c["unit"]).to_base_units()
                except UnitError as exc:
                    self.err(path + (k, "unit"), str(exc), "units")
                    ok = False
            else:
                numeric[k] = float(c)
                if self.formula:
                    dims[k] = quantity(float(c), "dimensionless")
        return numeric, dims, ok

    def _expression(self, path, v, text, parents, constants, const_path, equation: Optional[str] = None) -> None:
        numeric, dims, ok = self._constants(const_path, constants)
        if not ok:
            return
        try:
            expr = Expression.cached(text, parents, numeric)
        except ExpressionError as exc:
            self.err(path, f"{exc}", "mechanism")
            return
        self._exact_parents(path, expr.used, parents, "expression")
        if expr.unused():
            return
        self.expressions[v["name"]] = (expr, {"constants": numeric, "equation": equation})
        if self.formula:
            self._dimensions(path, v, text, parents, dims)

    def _dimensions(self, path, v, text, parents, dims) -> None:
        units = {p: str(self.card.variables[self.card.names.index(p)]["unit"]) for p in parents}
        try:
            env = {p: quantity(1.0, u).to_base_units() for p, u in units.items()}
            out_unit = parse_unit(str(v["unit"]))
        except UnitError:
            return  # reported on the variable
        try:
            expr = Expression(text, parents, dims)
            result = expr(env)
        except Exception as exc:  # pint raises DimensionalityError, OffsetUnitCalculusError …
            self.err(path, f"dimension error: {exc} (inputs: "
                           + ", ".join(f"{p} [{u}]" for p, u in units.items()) + ")", "units")
            return
        got = getattr(result, "dimensionality", None)
        got_text = str(got) if got else "dimensionless"
        want = dimensionality(str(v["unit"]))
        # compare pint's dimensionality objects: their string form depends on factor order
        got_dim = got if got is not None else parse_unit("dimensionless").dimensionality
        if got_dim != out_unit.dimensionality:
            self.err(path, f"dimension mismatch: the expression gives {got_text}, but {v['name']} is in "
                           f"{out_unit} ({want}); inputs: " + ", ".join(f"{p} [{u}]" for p, u in units.items()),
                     "units")

    def _equations(self, parents: Dict[str, List[str]]) -> None:
        card = self.card
        ids: Dict[str, int] = {}
        users: Dict[str, List[str]] = {}
        for v in card.variables:
            m = v.get("mechanism") or {}
            if m.get("type") == "equation":
                users.setdefault(m["equation"], []).append(v["name"])
        for k, eq in enumerate(card.equations):
            path = ("equations", k)
            eid = eq["id"]
            if eid in ids:
                self.err(path + ("id",), f"duplicate equation id {eid!r}", "formula")
                continue
            ids[eid] = k
            out = eq["output"]
            if out not in card.names:
                self.err(path + ("output",), f"unknown output variable {out!r}", "formula")
                continue
            if users.get(eid) != [out]:
                self.err(path + ("output",), f"the output {out!r} must have mechanism "
                                             f"{{type: equation, equation: {eid}}} (used by {users.get(eid, [])})",
                         "formula")
            pa = parents[out]
            if sorted(eq["inputs"]) != sorted(pa) or len(set(eq["inputs"])) != len(eq["inputs"]):
                missing = [p for p in pa if p not in eq["inputs"]]
                extra = [p for p in eq["inputs"] if p not in pa]
                self.err(path + ("inputs",), f"inputs must be exactly the graph parents of {out} ({pa}); "
                                             f"missing {missing}, not parents {extra}", "formula")
                continue
            var = card.variables[card.names.index(out)]
            # names in the graph-parent order: the sampler hands the parent columns in that order, whatever
            # order the card lists its inputs in (a different order once bound columns to the wrong names)
            self._expression(path + ("expression",), var, eq["expression"], list(pa),
                             eq.get("constants") or {}, path + ("constants",), equation=eid)
            for j, cond in enumerate(eq.get("validity") or []):
                try:
                    Expression.cached(cond, list(eq["inputs"]), {})
                except ExpressionError as exc:
                    self.err(path + ("validity", j), f"{exc}", "formula")
        if self.formula and not card.equations:
            self.err(("equations",), "a formula card needs at least one named equation", "formula")

    def _justifications(self) -> None:
        just = self.card.data.get("justifications") or {}
        names = set(self.card.names)
        for k, item in enumerate(just.get("near_copies") or []):
            for n in item["variables"]:
                if n not in names:
                    self.err(("justifications", "near_copies", k, "variables"), f"unknown variable {n!r}", "schema")
        for k, item in enumerate(just.get("dominant_category") or []):
            if item["variable"] not in names:
                self.err(("justifications", "dominant_category", k, "variable"),
                         f"unknown variable {item['variable']!r}", "schema")

    # -- pool rules ------------------------------------------------------------

    def pool_rules(self, severity: str) -> None:
        card = self.card
        d, m = len(card.variables), len(card.edges)
        rules = POOL_RULES.get(card.family)
        lo, hi = SAFETY_ENVELOPE
        if not lo <= d <= hi:
            self.err(("variables",), f"{d} variables is outside the validator's safety envelope {lo}–{hi}", "pool",
                     severity)
        if rules:
            (vl, vh), (el, eh) = rules
            if not vl <= d <= vh:
                self.err(("variables",), f"{d} variables; the {card.family} pool has {vl}–{vh}", "pool", severity)
            if not el <= m <= eh:
                self.err(("edges",), f"{m} edges; the {card.family} pool has {el}–{eh}", "pool", severity)
        parents = card.parents()
        types = [mechanism_family(v) for v in card.variables if parents[v["name"]]]
        if len(set(types)) < 3:
            self.err(("variables",), f"{len(set(types))} mechanism type(s) ({sorted(set(types))}); the pool needs "
                                     "at least three scenario-justified families", "pool", severity)
        if card.family == "semantic" and types:
            share = types.count(GENERIC_SIGMOID) / len(types)
            if share > 0.25:
                self.err(("variables",), f"{share:.0%} of non-root nodes use the generic sigmoid (logistic); "
                                         "at most 25 %", "pool", severity)

    # -- numeric hazards over declared ranges -----------------------------------

    def range_hazards(self) -> None:
        """Scan every expression over its parents' declared ranges (App. A.3: no reachable division by zero)."""
        card = self.card
        rng = np.random.default_rng(0)
        for name, (expr, info) in self.expressions.items():
            pa = list(expr.names)
            ranges = []
            for p in pa:
                var = card.variables[card.names.index(p)]
                lo, hi = var["range"]
                ranges.append((float(lo), float(hi)))
            k = len(pa)
            grid = [np.array(list(itertools.product(*[(lo, hi, 0.5 * (lo + hi)) for lo, hi in ranges])))] \
                if k <= 7 else []
            grid.append(np.column_stack([rng.uniform(lo, hi, RANGE_SCAN_POINTS) for lo, hi in ranges]))
            pts = np.vstack(grid)
            mech = self._mechanism_component(name, expr, info)
            hz = Hazards()
            with np.errstate(all="ignore"):
                mech.evaluate(pts, hz)
            eq = info.get("equation")
            path = (("equations", [e["id"] for e in card.equations].index(eq), "expression") if eq
                    else card.variable_path(name) + ("mechanism", "expression"))
            for what, count in hz.found.items():
                self.err(path, f"reachable within the declared ranges of {pa} ({count} of {len(pts)} scanned "
                               f"points): {what}; guard it (max(), clip(), where()) or narrow the ranges",
                         "numerics")

    def _mechanism_component(self, name: str, expr: Expression, info: Dict[str, Any]):
        from .components import CardExpression

        params = self._expression_params(name, expr, info)
        return CardExpression(**params)

    def _expression_params(self, name: str, expr: Expression, info: Dict[str, Any]) -> Dict[str, Any]:
        card = self.card
        params: Dict[str, Any] = {"expression": expr.text, "inputs": list(expr.names),
                                  "constants": dict(info["constants"])}
        if info.get("equation"):
            params["equation"] = info["equation"]
        if self.formula:
            params["si_inputs"] = [list(to_base_affine(str(card.variables[card.names.index(p)]["unit"])))
                                   for p in expr.names]
            params["si_output"] = list(to_base_affine(str(card.variables[card.names.index(name)]["unit"])))
        return params

    # -- translation -------------------------------------------------------------

    def build(self) -> SCMSpec:
        card = self.card
        parents = card.parents()
        nodes = []
        mech_types, noise_types, eq_ids = set(), set(), []
        by_name = {v["name"]: v for v in card.variables}
        # the columns in a permutation drawn from the id, not the authored (roughly causal) order
        for name in column_order(card.id, list(by_name)):
            v = by_name[name]
            pa = parents[name]
            tags: Dict[str, Any] = {"role": role_of(card, v, pa), "unit": str(v["unit"]), "type": v["type"],
                                    "range": list(v["range"])}
            iv = v.get("intervention") or {}
            if "values" in iv:
                tags["intervention_values"] = [float(x) for x in iv["values"]]
            elif "range" in iv and v["type"] != "continuous":  # the integers in the range
                a, b = iv["range"]
                tags["intervention_values"] = [float(k) for k in range(math.ceil(a), math.floor(b) + 1)]
            elif "range" in iv:
                tags["intervention_range"] = [float(x) for x in iv["range"]]
            if not pa:
                rd = dict(v["root_distribution"])
                kind = rd.pop("kind")
                tags["root"] = kind
                nodes.append(NodeSpec(name=name, role="root", intervenable=bool(v["intervenable"]), tags=tags,
                                      root_distribution=ComponentSpec(kind="card_root",
                                                                      params={"distribution": kind, **rd})))
                continue
            mech = v["mechanism"]
            mtype = mech["type"]
            channel: Dict[str, Any] = {}
            noise = v.get("noise")
            if noise is not None:
                channel = {"family": noise["kind"], **{k: x for k, x in noise.items() if k != "kind"}}
            if mtype in ("expression", "equation"):
                expr, info = self.expressions[name]
                params = self._expression_params(name, expr, info)
                if mtype == "equation":
                    eq_ids.append(mech["equation"])
                    tags["equation"] = mech["equation"]
            else:
                text, extra = self._typed(mech, pa)
                channel.update(extra)
                if mtype in ("bernoulli", "poisson"):
                    channel["family"] = mtype
                params = {"expression": text, "inputs": list(pa), "constants": {}}
            if v.get("resolution") is not None:
                channel["resolution"] = float(v["resolution"])
            clip = None
            if mtype == "stock_flow":
                fl = mech.get("floor", 0.0)
                cap = mech.get("capacity")
                if fl is not None or cap is not None:
                    clip = [fl, cap]
            if v.get("boundary") is not None:
                clip = list(v["boundary"]["clip"])
            if clip is not None:
                channel["clip"] = clip
            tags["mechanism"] = mechanism_family(v)
            tags["noise"] = channel.get("family", "none") if channel else "none"
            if mtype in ("bernoulli", "poisson"):
                tags["noise"] = "none"  # the draw is the mechanism's own
            mech_types.add(tags["mechanism"])
            noise_types.add(tags["noise"])
            nodes.append(NodeSpec(name=name, role="mechanism", parents=tuple(pa), intervenable=bool(v["intervenable"]),
                                  tags=tags, mechanism=ComponentSpec(kind="card_expression", params=params),
                                  noise=ComponentSpec(kind="card_channel", params=channel) if channel else None))
        targets = [n.name for n in nodes if n.intervenable]  # in column order
        metadata = {
            "family": card.family, "domain": card.data["domain"], "card_id": card.id,
            "card_version": card.data["version"], "title": card.data["title"],
            "d": len(card.variables), "n_edges": len(card.edges), "n_intervenable": len(targets),
            "mechanism_types": ",".join(sorted(mech_types)), "noise_types": ",".join(sorted(noise_types)),
            "equation_ids": ",".join(sorted(eq_ids)),
            "card_compiler": CARD_COMPILER,  # part of the spec, so of the fingerprint
        }
        return SCMSpec(id=f"{card.family}/{card.id}", nodes=nodes, intervention_targets=targets, metadata=metadata)

    def _typed(self, mech: Dict[str, Any], parents: List[str]) -> Tuple[str, Dict[str, Any]]:
        """A typed operation as (expression text, channel extras)."""
        t = mech["type"]
        if t == "linear":
            return _lin(mech), {}
        if t == "logistic":
            return f"{_fmt(mech.get('scale', 1.0))} * sigmoid({_lin(mech)})", {}
        if t == "bernoulli":
            return f"sigmoid({_lin(mech)})", {}
        if t == "poisson":
            return f"exp({_lin(mech)})", {}
        if t == "threshold":
            return _lin(mech), {"cut": [float(mech["cutoff"])],
                                "cut_values": [float(mech.get("below", 0.0)), float(mech.get("above", 1.0))]}
        if t == "ordinal":
            return _lin(mech), {"cut": [float(c) for c in mech["cutpoints"]]}
        if t == "saturation":
            s = f"max({_weighted_sum(mech['coefficients'])}, 0.0)"
            return (f"{_fmt(mech.get('intercept', 0.0))} + {_fmt(mech['vmax'])} * {s} / "
                    f"({_fmt(mech['half_saturation'])} + {s})"), {}
        if t == "stock_flow":
            init = mech["initial"]
            init_text = init if isinstance(init, str) else _fmt(init)
            return (f"{init_text} + {_fmt(mech['periods'])} * ({_weighted_sum(mech.get('inflows') or {})} - "
                    f"{_weighted_sum(mech.get('outflows') or {})})"), {}
        raise AssertionError(t)  # pragma: no cover


def static_check(card: Card, pool_severity: str = "warning") -> Tuple[Optional[SCMSpec], List[CardIssue],
                                                                     "_Static"]:
    """Run the static gates; return (spec or None, issues, checker).

    The spec is built only when no error was found.
    """
    st = _Static(card)
    st.finite_numbers()
    if not st.issues and st.graph():
        st.variables()
        if not any(i.severity == "error" for i in st.issues):
            st.range_hazards()
    st.pool_rules(pool_severity)
    if any(i.severity == "error" for i in st.issues):
        return None, st.issues, st
    try:
        spec = st.build()
        spec.validate()
    except Exception as exc:  # a translation bug must not pass silently
        st.err(("variables",), f"cannot translate the card to an SCM spec: {type(exc).__name__}: {exc}", "mechanism")
        return None, st.issues, st
    return spec, st.issues, st


def compile_card(card: Card) -> SCMSpec:
    """The card as an executable :class:`SCMSpec` (static gates only).

    Raises:
        CardError: any static gate fails (every issue listed).
    """
    spec, issues, _ = static_check(card)
    errors = [i for i in issues if i.severity == "error"]
    if errors or spec is None:
        raise CardError(errors)
    return spec
