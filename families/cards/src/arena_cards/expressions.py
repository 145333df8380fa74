"""The restricted expression language of scenario cards, and its safe evaluator.

A card's ``expression`` mechanisms, formula ``equations`` and ``validity``
conditions are written in a small language (FORMAT.md "Expression language"):
arithmetic, comparisons, ``and``/``or``/``not``, numbers, names and a fixed
table of vectorised functions. The text is parsed with :func:`ast.parse` in
``eval`` mode — parsing only, nothing is executed — and every node of the tree
is checked against a whitelist; the accepted tree is compiled to a closure
over numpy functions. There is no ``eval``/``exec``/``compile`` of card text
anywhere, so a card cannot reach attributes, imports, builtins or dunders.

Why our own code: numexpr validates and then hands the string to ``eval`` and
has no units; simpleeval and asteval are general interpreters (attribute
access, comprehensions, …) that we would have to lock down node by node
anyway. The whitelist below is the whole language, ~200 lines, and the same
compiled closure evaluates numpy arrays (sampling), pint quantities
(dimensional checks) and records numeric hazards (division by zero reachable
in range).
"""

from __future__ import annotations

import ast
import functools
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

import numpy as np

#: longest accepted expression (characters) and deepest/largest tree
MAX_LENGTH = 2000
MAX_NODES = 400
MAX_DEPTH = 40
#: largest |exponent| of ``**``
MAX_EXPONENT = 16.0


class ExpressionError(ValueError):
    """An expression outside the language; ``column`` is the 1-based offset in the text (or None)."""

    def __init__(self, message: str, column: Optional[int] = None) -> None:
        super().__init__(message)
        self.column = column


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _min(*args):
    out = args[0]
    for a in args[1:]:
        out = np.minimum(out, a)
    return out


def _max(*args):
    out = args[0]
    for a in args[1:]:
        out = np.maximum(out, a)
    return out


def _clip(x, lo, hi):
    """min(max(x, lo), hi), NaN in any argument → NaN.

    Not ``np.clip``: numpy 1.x reads a scalar NaN bound as "no bound" (with a
    DeprecationWarning) while numpy 2 returns NaN, so a card would sample
    differently on the two stacks. Same result as ``np.clip`` otherwise,
    including lo > hi (→ hi).
    """
    return np.minimum(np.maximum(x, lo), hi)


#: name → (callable, min args, max args); the whole function table of the language
FUNCTIONS: Dict[str, Tuple[Callable[..., Any], int, int]] = {
    "exp": (np.exp, 1, 1), "log": (np.log, 1, 1), "log10": (np.log10, 1, 1), "log1p": (np.log1p, 1, 1),
    "sqrt": (np.sqrt, 1, 1), "abs": (np.abs, 1, 1),
    "sin": (np.sin, 1, 1), "cos": (np.cos, 1, 1), "tan": (np.tan, 1, 1),
    "arcsin": (np.arcsin, 1, 1), "arccos": (np.arccos, 1, 1), "arctan": (np.arctan, 1, 1),
    "arctan2": (np.arctan2, 2, 2), "sinh": (np.sinh, 1, 1), "cosh": (np.cosh, 1, 1), "tanh": (np.tanh, 1, 1),
    "sigmoid": (_sigmoid, 1, 1), "floor": (np.floor, 1, 1), "ceil": (np.ceil, 1, 1), "round": (np.round, 1, 1),
    "sign": (np.sign, 1, 1), "hypot": (np.hypot, 2, 2), "where": (np.where, 3, 3),
    "min": (_min, 2, 8), "max": (_max, 2, 8), "clip": (_clip, 3, 3),
}
#: built-in named constants
BUILTIN_CONSTANTS: Dict[str, float] = {"pi": float(np.pi), "e": float(np.e)}
#: names a variable or constant may not take
RESERVED: FrozenSet[str] = frozenset(FUNCTIONS) | frozenset(BUILTIN_CONSTANTS) | frozenset(
    {"and", "or", "not", "true", "false", "none", "inf", "nan"})

_BINOPS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide}
_CMPOPS = {ast.Lt: np.less, ast.LtE: np.less_equal, ast.Gt: np.greater, ast.GtE: np.greater_equal,
           ast.Eq: np.equal, ast.NotEq: np.not_equal}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.Lt: "<", ast.LtE: "<=",
           ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}

#: functions whose argument has a restricted domain: name → (test of a *bad* value, what is wrong)
_DOMAIN = {
    "log": (lambda a: a <= 0, "log argument <= 0"),
    "log10": (lambda a: a <= 0, "log10 argument <= 0"),
    "log1p": (lambda a: a <= -1, "log1p argument <= -1"),
    "sqrt": (lambda a: a < 0, "sqrt argument < 0"),
    "arcsin": (lambda a: np.abs(a) > 1, "arcsin argument outside [-1, 1]"),
    "arccos": (lambda a: np.abs(a) > 1, "arccos argument outside [-1, 1]"),
}


@functools.lru_cache(maxsize=8192)
def _parse(text: str) -> ast.Expression:
    """``ast.parse(text, mode="eval")``, cached: a card's expressions are parsed by several gates.

    The tree is only read, never changed, so sharing it is safe.
    """
    return ast.parse(text, mode="eval")


class Hazards:
    """Collects numeric hazards seen while evaluating in checked mode.

    ``found`` maps a description (``"division by zero: (a - b)"``) to the
    number of rows where it happened; ``sign_change`` lists denominators that
    take both signs (so, being continuous, reach zero in between).
    """

    def __init__(self) -> None:
        self.found: Dict[str, int] = {}

    def add(self, what: str, count: int) -> None:
        if count:
            self.found[what] = self.found.get(what, 0) + int(count)


def _magnitude(value: Any) -> Any:
    return getattr(value, "magnitude", value)


class Expression:
    """A parsed, whitelisted expression over named inputs.

    Args:
        text: the expression (FORMAT.md "Expression language").
        names: the names it may read (the node's parents).
        constants: named constants (name → number, or a pint quantity for
            dimensional checks); ``pi`` and ``e`` are always available.

    Attributes:
        text: the source text.
        used: the input names the expression reads (a subset of ``names``).

    Raises:
        ExpressionError: a syntax error, a construct outside the language, an
            unknown name or function, a wrong number of arguments, an
            exponent that is not a literal/constant with |p| ≤ 16, a text
            longer than 2,000 characters or a tree larger than 400 nodes.
    """

    def __init__(self, text: str, names: Sequence[str], constants: Optional[Mapping[str, Any]] = None) -> None:
        if not isinstance(text, str):
            raise ExpressionError(f"an expression must be a string, got {type(text).__name__}")
        if len(text) > MAX_LENGTH:
            raise ExpressionError(f"expression is {len(text)} characters long; the limit is {MAX_LENGTH}")
        if not text.strip():
            raise ExpressionError("empty expression")
        self.text = text
        self.names = tuple(names)
        self.constants = dict(constants or {})
        clash = sorted(set(self.names) & set(self.constants))
        if clash:
            raise ExpressionError(f"{clash} are both inputs and constants")
        try:
            tree = _parse(text.strip())
        except SyntaxError as exc:
            where = f" at column {exc.offset}" if exc.offset else ""
            raise ExpressionError(f"syntax error{where}: {exc.msg}", exc.offset) from None
        except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
            raise ExpressionError(f"cannot parse expression: {type(exc).__name__}") from None
        self._count = 0
        self.used: List[str] = []
        self._fn = self._compile(tree.body, 0)

    # -- compilation -------------------------------------------------------

    def _fail(self, node: ast.AST, message: str) -> ExpressionError:
        col = getattr(node, "col_offset", None)
        return ExpressionError(f"{message} (at column {col + 1})" if col is not None else message,
                               None if col is None else col + 1)

    def _source(self, node: ast.AST) -> str:
        seg = ast.get_source_segment(self.text.strip(), node)
        return seg if seg is not None else type(node).__name__

    def _compile(self, node: ast.AST, depth: int) -> Callable[[Mapping[str, Any], Optional[Hazards]], Any]:
        self._count += 1
        if self._count > MAX_NODES:
            raise ExpressionError(f"expression has more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH:
            raise self._fail(node, f"expression is nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self._fail(node, f"only numbers are allowed as literals, not {type(v).__name__} {v!r}")
            try:
                fv = float(v)
            except OverflowError:  # an integer literal beyond float range
                raise self._fail(node, "literal is too large (beyond the float range)") from None
            if not np.isfinite(fv):
                raise self._fail(node, f"literal {v!r} is not finite")
            # numpy scalars, not Python floats: 1 / 0, 0 ** -1, 1e300 ** 2 and (-8) ** 0.5 between
            # literals give inf/nan like arrays do instead of raising ZeroDivisionError/OverflowError
            value = np.float64(fv)
            return lambda env, hz: value
        if isinstance(node, ast.Name):
            name = node.id
            if name.startswith("_"):
                raise self._fail(node, f"name {name!r} is not allowed (no underscore-prefixed or dunder names)")
            if name in self.names:
                if name not in self.used:
                    self.used.append(name)
                return lambda env, hz: env[name]
            if name in self.constants:
                value = self.constants[name]
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    try:
                        value = np.float64(value)  # see the literals above
                    except OverflowError:
                        raise self._fail(node, f"constant {name!r} is too large (beyond the float range)") from None
                return lambda env, hz: value
            if name in BUILTIN_CONSTANTS:
                value = np.float64(BUILTIN_CONSTANTS[name])
                return lambda env, hz: value
            if name in FUNCTIONS:
                raise self._fail(node, f"function {name!r} used without a call")
            raise self._fail(node, f"unknown name {name!r}: not a parent of this node "
                                   f"({sorted(self.names)}) nor a constant ({sorted(self.constants)}) — "
                                   "a hidden parent?")
        if isinstance(node, ast.UnaryOp):
            operand = self._compile(node.operand, depth + 1)
            if isinstance(node.op, ast.USub):
                return lambda env, hz: -operand(env, hz)
            if isinstance(node.op, ast.UAdd):
                return operand
            if isinstance(node.op, ast.Not):
                return lambda env, hz: np.logical_not(_magnitude(operand(env, hz))).astype(float)
            raise self._fail(node, f"operator {type(node.op).__name__} is not allowed")
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return self._compile_pow(node, depth)
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise self._fail(node, f"operator {type(node.op).__name__} is not allowed "
                                       "(use + - * / ** and functions)")
            left, right = self._compile(node.left, depth + 1), self._compile(node.right, depth + 1)
            if op is np.divide:
                what = f"division by zero: {self._source(node.right)}"

                def divide(env, hz, left=left, right=right, what=what):
                    den = right(env, hz)
                    if hz is not None:
                        m = np.asarray(_magnitude(den), dtype=float)
                        hz.add(what, int(np.count_nonzero(m == 0)))
                        if m.size > 1 and (m < 0).any() and (m > 0).any():  # NaN-safe, no All-NaN warning
                            hz.add(what + " (denominator changes sign)", 1)
                    return left(env, hz) / den
                return divide
            return lambda env, hz: op(left(env, hz), right(env, hz))
        if isinstance(node, ast.Compare):
            parts = [self._compile(node.left, depth + 1)] + [self._compile(c, depth + 1) for c in node.comparators]
            ops = []
            for o in node.ops:
                f = _CMPOPS.get(type(o))
                if f is None:
                    raise self._fail(node, f"comparison {type(o).__name__} is not allowed")
                ops.append(f)

            def compare(env, hz, parts=parts, ops=ops):
                values = [p(env, hz) for p in parts]
                out = None
                for f, a, b in zip(ops, values[:-1], values[1:]):
                    r = _magnitude(f(a, b))
                    out = r if out is None else np.logical_and(out, r)
                return np.asarray(out, dtype=float)
            return compare
        if isinstance(node, ast.BoolOp):
            parts = [self._compile(v, depth + 1) for v in node.values]
            f = np.logical_and if isinstance(node.op, ast.And) else np.logical_or

            def boolop(env, hz, parts=parts, f=f):
                out = _magnitude(parts[0](env, hz))
                for p in parts[1:]:
                    out = f(out, _magnitude(p(env, hz)))
                return np.asarray(out, dtype=float)
            return boolop
        if isinstance(node, ast.Call):
            return self._compile_call(node, depth)
        kind = type(node).__name__
        hint = {"Attribute": "attribute access", "Subscript": "subscripts", "Lambda": "lambdas",
                "IfExp": "inline if (use where(cond, a, b))", "ListComp": "comprehensions",
                "GeneratorExp": "comprehensions", "List": "lists", "Tuple": "tuples", "Dict": "dicts",
                "JoinedStr": "strings", "NamedExpr": "assignment", "Starred": "starred arguments",
                "Set": "sets", "SetComp": "comprehensions", "DictComp": "comprehensions",
                "Await": "await", "Yield": "yield", "YieldFrom": "yield"}.get(kind, kind)
        raise self._fail(node, f"{hint} not allowed in card expressions")

    def _compile_pow(self, node: ast.BinOp, depth: int):
        exp_node = node.right
        sign = 1.0
        if isinstance(exp_node, ast.UnaryOp) and isinstance(exp_node.op, (ast.USub, ast.UAdd)):
            sign = -1.0 if isinstance(exp_node.op, ast.USub) else 1.0
            exp_node = exp_node.operand
        if isinstance(exp_node, ast.Constant) and isinstance(exp_node.value, (int, float)) \
                and not isinstance(exp_node.value, bool):
            try:
                p = sign * float(exp_node.value)
            except OverflowError:  # an integer exponent beyond float range
                p = float("inf")
        elif isinstance(exp_node, ast.Name) and exp_node.id in self.constants:
            try:
                p = sign * float(_magnitude(self.constants[exp_node.id]))
            except OverflowError:
                p = float("inf")
        else:
            raise self._fail(node, "the exponent of ** must be a number or a named constant "
                                   f"(|p| <= {MAX_EXPONENT:g}); use exp()/log() for variable exponents")
        if not np.isfinite(p) or abs(p) > MAX_EXPONENT:
            raise self._fail(node, f"exponent {p:g} is too large (|p| <= {MAX_EXPONENT:g})")
        base = self._compile(node.left, depth + 1)
        fractional = p != int(p)
        what = f"negative base to a fractional power: {self._source(node.left)}"
        zero = f"zero to a negative power: {self._source(node.left)}"

        def power(env, hz, base=base, p=p):
            b = base(env, hz)
            if hz is not None:
                m = np.asarray(_magnitude(b), dtype=float)
                if fractional:
                    hz.add(what, int(np.count_nonzero(m < 0)))
                if p < 0:
                    hz.add(zero, int(np.count_nonzero(m == 0)))
            return b ** p
        return power

    def _compile_call(self, node: ast.Call, depth: int):
        if not isinstance(node.func, ast.Name):
            raise self._fail(node, "only calls of the language's functions by name are allowed "
                                   "(no attribute access, no calling expressions)")
        name = node.func.id
        if name.startswith("_"):
            raise self._fail(node, f"name {name!r} is not allowed (no underscore-prefixed or dunder names)")
        if name not in FUNCTIONS:
            raise self._fail(node, f"unknown function {name!r}; allowed: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise self._fail(node, f"{name}(): keyword arguments are not allowed")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self._fail(node, f"{name}(): starred arguments are not allowed")
        fn, lo, hi = FUNCTIONS[name]
        if not lo <= len(node.args) <= hi:
            want = str(lo) if lo == hi else f"{lo}–{hi}"
            raise self._fail(node, f"{name}() takes {want} argument(s), got {len(node.args)}")
        args = [self._compile(a, depth + 1) for a in node.args]
        domain = _DOMAIN.get(name)
        if name == "where":
            cond, a, b = args

            def where(env, hz):
                c = np.asarray(_magnitude(cond(env, hz)), dtype=bool)
                return np.where(c, a(env, hz), b(env, hz))
            return where
        if domain is not None:
            bad, label = domain
            what = f"{label}: {self._source(node.args[0])}"

            def checked(env, hz, arg=args[0]):
                v = arg(env, hz)
                if hz is not None:
                    m = np.asarray(_magnitude(v), dtype=float)
                    hz.add(what, int(np.count_nonzero(bad(m))))
                return fn(v)
            return checked
        if len(args) == 1:
            (a,) = args
            return lambda env, hz: fn(a(env, hz))
        return lambda env, hz: fn(*[f(env, hz) for f in args])

    # -- evaluation --------------------------------------------------------

    def __call__(self, env: Mapping[str, Any], hazards: Optional[Hazards] = None) -> Any:
        """Evaluate on ``env`` (name → (n,) array, scalar or pint quantity).

        Floating-point warnings are silenced; pass a :class:`Hazards` to
        record divisions by zero and domain errors instead.
        """
        with np.errstate(all="ignore"):
            return self._fn(env, hazards)

    @classmethod
    def cached(cls, text: str, names: Sequence[str], constants: Optional[Mapping[str, float]] = None) -> "Expression":
        """An :class:`Expression` with numeric constants, shared across calls with equal arguments.

        A card's mechanism is compiled by several gates and again for every
        sampler built from its spec; the compiled closure is immutable, so
        one instance serves them all.

        Raises:
            ExpressionError: as the constructor.
        """
        items = tuple(sorted((k, float(v)) for k, v in (constants or {}).items()))
        return _cached_expression(text, tuple(names), items)

    def unused(self) -> List[str]:
        """Inputs the expression never reads (an unused parent is an error in a card)."""
        return [n for n in self.names if n not in self.used]


@functools.lru_cache(maxsize=4096)
def _cached_expression(text: str, names: Tuple[str, ...], constants: Tuple[Tuple[str, float], ...]) -> Expression:
    return Expression(text, names, dict(constants))
