"""Dataset and Prediction: what flows between the protocol, methods and metrics.

Convention everywhere: ``adjacency[i, j] = 1`` means the edge i → j
(row = parent, column = child).
"""

from __future__ import annotations

import io
import json
from typing import Any, Dict, Iterable, List, Optional

import attrs
import numpy as np

OBSERVATIONAL = -1  #: regime value of an observational row


def _as_float(x: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64))


def _as_list(x: Iterable[Any]) -> List[Any]:
    """``list(x)``, typed for the ``columns`` converter (mypy cannot infer ``list`` as one)."""
    return list(x)


@attrs.define(eq=False)
class Dataset:
    """One table a method sees.

    Attributes:
        X: (n × d) float64 data matrix (standardised per column by default).
        columns: d variable names.
        intervention_mask: (n × d) bool, True where the entry was set by an
            intervention (all False on obs-only splits).
        regime: (n,) int, −1 for observational rows, else the index of the
            (first) intervened variable.
        true_adjacency: (d × d) int8 ground truth, row = parent; ``None`` for
            a table without a known graph.
        metadata: family, scm_id, split, replicate, seed, factors,
            varsortability, standardised, ...
    """

    X: np.ndarray = attrs.field(converter=_as_float)
    columns: List[str] = attrs.field(converter=_as_list)
    intervention_mask: Optional[np.ndarray] = None
    regime: Optional[np.ndarray] = None
    true_adjacency: Optional[np.ndarray] = None
    metadata: Dict[str, Any] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        n, d = self.X.shape if self.X.ndim == 2 else (None, None)
        if n is None:
            raise ValueError(f"Dataset.X must be 2-D (n × d), got shape {self.X.shape}")
        if len(self.columns) != d:
            raise ValueError(f"Dataset.columns has {len(self.columns)} names for d = {d} columns")
        if self.intervention_mask is None:
            self.intervention_mask = np.zeros((n, d), dtype=bool)
        self.intervention_mask = np.asarray(self.intervention_mask, dtype=bool)
        if self.intervention_mask.shape != (n, d):
            raise ValueError(
                f"Dataset.intervention_mask has shape {self.intervention_mask.shape}, expected {(n, d)}"
            )
        if self.regime is None:
            self.regime = np.full(n, OBSERVATIONAL, dtype=np.int64)
        self.regime = np.asarray(self.regime, dtype=np.int64)
        if self.true_adjacency is not None:
            self.true_adjacency = np.asarray(self.true_adjacency, dtype=np.int8)
            if self.true_adjacency.shape != (d, d):
                raise ValueError(
                    f"Dataset.true_adjacency has shape {self.true_adjacency.shape}, expected {(d, d)}"
                )

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def has_interventions(self) -> bool:
        assert self.intervention_mask is not None  # set in __attrs_post_init__
        return bool(self.intervention_mask.any())

    # -- serialisation (worker protocol, export) ---------------------------
    def to_npz_bytes(self) -> bytes:
        """Serialise losslessly to ``.npz`` bytes (metadata as JSON)."""
        buf = io.BytesIO()
        assert self.intervention_mask is not None and self.regime is not None  # set in __attrs_post_init__
        arrays: Dict[str, np.ndarray] = dict(
            X=self.X,
            intervention_mask=self.intervention_mask,
            regime=self.regime,
            columns=np.asarray(self.columns, dtype=str),
            metadata=np.asarray(json.dumps(self.metadata, sort_keys=True, default=_json_default)),
        )
        if self.true_adjacency is not None:
            arrays["true_adjacency"] = self.true_adjacency
        # numpy's stub: a ** mapping might also feed savez's keyword ``allow_pickle: bool``
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        return buf.getvalue()

    def save(self, path: str) -> None:
        with open(path, "wb") as fh:
            fh.write(self.to_npz_bytes())

    @classmethod
    def load(cls, path_or_bytes: Any) -> "Dataset":
        """Inverse of :meth:`to_npz_bytes` / :meth:`save`."""
        src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, (bytes, bytearray)) else path_or_bytes
        with np.load(src, allow_pickle=False) as z:
            return cls(
                X=z["X"],
                columns=[str(c) for c in z["columns"]],
                intervention_mask=z["intervention_mask"],
                regime=z["regime"],
                true_adjacency=z["true_adjacency"] if "true_adjacency" in z.files else None,
                metadata=json.loads(str(z["metadata"])),
            )

    def without_truth(self) -> "Dataset":
        """A copy a method may see: the true graph is removed."""
        return attrs.evolve(self, true_adjacency=None)


#: metadata key under which a family records, before standardising, the columns
#: :func:`scale_problems` found (name → reason); the runner's input checks
#: (:func:`causalarena.checks.check_input`) refuse them, since the standardised
#: table no longer shows the cause (an overflowing column comes out as zeros).
SCALE_PROBLEMS_KEY = "scale_problems"
#: largest magnitude whose square is finite in float64 (about 1.34e154)
SQUARE_LIMIT = float(np.sqrt(np.finfo(np.float64).max))


def scale_problems(X: Any, columns: Iterable[str], squares: bool = True) -> Dict[str, str]:
    """Columns whose scale float64 cannot handle, by name, with the reason.

    A column is named when its finite entries differ but its population
    variance (NaN ignored) is not a finite positive number: the squared
    deviations overflow (e.g. one value near 1e308 — standardisation would
    turn the column into zeros and it would look constant) or underflow to 0
    (e.g. values around 1e-170 — it would look constant too). With
    ``squares`` (the table a method receives as is), a column holding a value
    whose square overflows (``|x| > 1.34e154``) is named as well: sums of
    squares such as ``X.T @ X`` overflow. Columns with ``inf`` entries or
    fewer than two finite values are left to the other input checks.

    Args:
        X: (n × d) array-like of floats.
        columns: the d column names.
        squares: also name columns with a value whose square overflows.

    Returns:
        ``{name: reason}`` in column order, e.g. ``{"a": "its variance
        overflows float64 (max |x| = 1e+308; squared deviations above
        ~1.3e+154 are inf)"}``; empty when every column is fine.
    """
    arr = np.asarray(X, dtype=np.float64)
    names = list(columns)
    out: Dict[str, str] = {}
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        return out
    # one vectorised pass; only suspicious columns are looked at one by one
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if np.isnan(arr).any():
            suspect = np.ones(arr.shape[1], dtype=bool)
        else:
            var = arr.var(axis=0)
            suspect = ~np.isfinite(var) | (var == 0.0)
            if squares:
                suspect |= np.abs(arr).max(axis=0) > SQUARE_LIMIT
    for j in np.flatnonzero(suspect):
        col = arr[:, j]
        if np.isinf(col).any():
            continue
        col = col[~np.isnan(col)]
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            spread = float(np.max(col) - np.min(col)) if col.size else 0.0  # inf when it overflows
            var = float(np.var(col)) if col.size >= 2 else 0.0
        if col.size < 2 or spread == 0.0:
            continue
        big = float(np.abs(col).max())
        if not np.isfinite(var):
            out[names[j]] = (f"its variance overflows float64 (max |x| = {big:.3g}; squared deviations "
                             f"above ~{SQUARE_LIMIT:.2g} are inf)")
        elif var == 0.0:
            out[names[j]] = (f"its variance underflows to 0 in float64 although the values differ "
                             f"(max |x| = {big:.3g}, range {spread:.3g})")
        elif squares and big > SQUARE_LIMIT:
            out[names[j]] = f"a value's square overflows float64 (max |x| = {big:.3g} > {SQUARE_LIMIT:.2g})"
    return out


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


@attrs.define(eq=False)
class Prediction:
    """A method's output.

    Attributes:
        adjacency: (d × d) int8. For ``kind="dag"`` a directed graph
            (row = parent). For ``kind="cpdag"`` directed edges as in a DAG and
            undirected edges i — j as ``A[i, j] = A[j, i] = 1``. For
            ``kind="pag"`` the method's directed conversion (documented by it).
        kind: native output kind, ``"dag"``, ``"cpdag"`` or ``"pag"``.
        edge_scores: optional (d × d) float, larger = more confident i → j.
        native: optional native output (e.g. the PAG endpoint matrix) kept for
            provenance.
    """

    adjacency: np.ndarray
    kind: str = "dag"
    edge_scores: Optional[np.ndarray] = None
    native: Optional[np.ndarray] = None

    def to_json(self) -> dict:
        out: dict = {"adjacency": np.asarray(self.adjacency).tolist(), "kind": self.kind}
        if self.edge_scores is not None:
            out["edge_scores"] = np.asarray(self.edge_scores, dtype=float).tolist()
        if self.native is not None:
            out["native"] = np.asarray(self.native).tolist()
        return out

    @classmethod
    def from_json(cls, obj: dict) -> "Prediction":
        def arr(key: str, dtype: Any) -> Optional[np.ndarray]:
            return None if obj.get(key) is None else np.asarray(obj[key], dtype=dtype)

        return cls(
            adjacency=np.asarray(obj["adjacency"], dtype=float),
            kind=obj.get("kind", "dag"),
            edge_scores=arr("edge_scores", float),
            native=arr("native", float),
        )
