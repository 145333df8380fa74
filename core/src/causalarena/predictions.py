"""Compact encodings of what a run predicted and of the graph it was scored against.

Every ``ok`` run keeps its scored adjacency (after CPDAG orientation and
repair, i.e. exactly the DAG its metrics were computed on), its native output
kind and its edge scores, so metrics can be recomputed (``arena rescore``) and
edge-level slices computed (paper §6.1) without running any method again.
The store (:class:`causalarena.store.Store`) writes them in the same
transaction as the run row, in the tables ``predictions`` and ``truths``.

Encodings (all blobs are zlib streams):

- adjacency: ``np.packbits`` of the whole d × d bool matrix (diagonal
  included, row-major), zlib-compressed. A d = 100 DAG with 150 edges costs
  about 240 bytes (10,000 bits = 1,250 bytes before zlib).
- edge scores: one dtype byte (``b"f"`` float32, ``b"d"`` float64) then the
  little-endian d × d matrix, zlib-compressed. float32 is used unless it
  would merge two distinct float64 scores (or turn a finite one infinite);
  then float64. AUROC and AP (:func:`causalarena.metrics.auroc`,
  :func:`~causalarena.metrics.ap`) depend only on the order and ties of the
  scores, and the float32 cast is monotone, so a rescore reproduces them
  exactly. float16 was measured and rejected: on 10,000 uniform scores it
  keeps only 3,756 distinct values (ties change AUROC/AP), for 17 KB instead
  of 36 KB. A metric reading score *values* sees them rounded to float32
  (relative error ≤ 6e-8).

A :class:`Truth` is the true graph of a dataset with its columns and the
factor tags of each column's node (mechanism, noise, root …): the edge-level
factor of an edge is its child's tag (§6.1). Its id (:func:`truth_id`) is a
content hash, so the replicates and splits of one SCM share one row.
"""

from __future__ import annotations

import hashlib
import json
import math
import zlib
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

import attrs
import numpy as np

__all__ = ["FILL_COMMAND", "Truth", "as_adjacency", "decode_adjacency", "decode_scores", "encode_adjacency",
           "encode_scores", "node_tags", "truth_id"]

#: the command that stores the predictions of ``ok`` runs recorded before predictions were kept
#: (``--retry ok`` reruns the stored ``ok`` cells of the selection)
FILL_COMMAND = "arena run <the same selection> --results {results} --retry ok"

_F32, _F64 = b"f", b"d"


def _square(name: str, value: Any) -> np.ndarray:
    a = np.asarray(value)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be a square d x d matrix, got shape {a.shape}")
    return a


def as_adjacency(value: Any, name: str = "adjacency") -> np.ndarray:
    """``value`` as a d × d bool matrix.

    Raises:
        ValueError: not square, or an entry other than 0/1 (named with its position and ``name``).
    """
    a = _square(name, value)
    if a.dtype != bool:
        if not np.isin(a, (0, 1)).all():
            i, j = np.argwhere(~np.isin(a, (0, 1)))[0]
            raise ValueError(f"{name} must be 0/1, got {a[i, j].item()!r} at [{i}, {j}]")
        a = a.astype(bool)
    return a


def encode_adjacency(adjacency: Any) -> bytes:
    """zlib(packbits) of a d × d 0/1 adjacency (``A[i, j] = 1``: edge i → j), diagonal included.

    Raises:
        ValueError: not square, or an entry other than 0/1 (named with its position).
    """
    a = as_adjacency(adjacency)
    return zlib.compress(np.packbits(a.ravel()).tobytes(), 9)


def decode_adjacency(blob: bytes, d: int) -> np.ndarray:
    """The d × d bool matrix of :func:`encode_adjacency`.

    Raises:
        ValueError: the blob is not a zlib stream or does not hold d × d bits.
    """
    try:
        packed = np.frombuffer(zlib.decompress(blob), dtype=np.uint8)
    except zlib.error as exc:
        raise ValueError(f"adjacency blob is not a zlib stream: {exc}") from None
    if packed.size != -(-d * d // 8):
        raise ValueError(f"adjacency blob holds {packed.size} bytes, a {d} x {d} matrix needs {-(-d * d // 8)}")
    return np.unpackbits(packed, count=d * d).astype(bool).reshape(d, d)


def _merges(scores: np.ndarray, cast: np.ndarray) -> bool:
    """True when the (monotone) cast merges two distinct values or makes a finite value infinite."""
    if (np.isfinite(scores) != np.isfinite(cast)).any():
        return True
    return bool(np.unique(scores).size != np.unique(cast).size)


def encode_scores(edge_scores: Any) -> bytes:
    """One dtype byte + zlib of a d × d float score matrix (float32 unless it would change ties; see module doc).

    Raises:
        ValueError: not square or not numeric.
    """
    s = _square("edge_scores", edge_scores)
    try:
        s = s.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"edge_scores must be numeric, got dtype {s.dtype}") from None
    f32 = s.astype("<f4")
    if _merges(s, f32):
        return _F64 + zlib.compress(s.astype("<f8").tobytes(), 9)
    return _F32 + zlib.compress(f32.tobytes(), 9)


def decode_scores(blob: bytes, d: int) -> np.ndarray:
    """The d × d float64 score matrix of :func:`encode_scores`.

    Raises:
        ValueError: unknown dtype byte, not a zlib stream, or not d × d values.
    """
    tag, body = blob[:1], blob[1:]
    dtype = {_F32: "<f4", _F64: "<f8"}.get(tag)
    if dtype is None:
        raise ValueError(f"edge_scores blob starts with {tag!r}; expected b'f' (float32) or b'd' (float64)")
    try:
        values = np.frombuffer(zlib.decompress(body), dtype=dtype)
    except zlib.error as exc:
        raise ValueError(f"edge_scores blob is not a zlib stream: {exc}") from None
    if values.size != d * d:
        raise ValueError(f"edge_scores blob holds {values.size} values, a {d} x {d} matrix needs {d * d}")
    return values.astype(np.float64).reshape(d, d)


def _scalar_tags(tags: Mapping[str, Any]) -> Dict[str, Any]:
    """The JSON-scalar tags (str, int, float, bool; finite floats) of one node, keys sorted."""
    out: Dict[str, Any] = {}
    for k in sorted(tags):
        v = tags[k]
        if isinstance(v, np.generic):  # numpy scalars from a generator: their Python value
            v = v.item()
        if isinstance(v, (bool, int, str)) or (isinstance(v, float) and math.isfinite(v)):
            out[str(k)] = v
    return out


def node_tags(nodes: Iterable[Any], columns: Sequence[str]) -> Tuple[Dict[str, Any], ...]:
    """Per column, the JSON-scalar tags of the node of that name (``{}`` for a column with no node).

    Args:
        nodes: objects with ``name`` and ``tags`` (:class:`causalarena.scm.NodeSpec`), any order.
        columns: the dataset's column names (the order of the truth's rows).

    Returns:
        One dict per column, e.g. ``{"mechanism": "linear", "noise": "gaussian"}``
        for a child or ``{"root": "gumbel"}`` for a root; list- or dict-valued
        tags are left out.
    """
    by_name = {str(n.name): dict(getattr(n, "tags", None) or {}) for n in nodes}
    return tuple(_scalar_tags(by_name.get(str(c), {})) for c in columns)


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=bool, copy=True)
    a.setflags(write=False)
    return a


def _tags_tuple(value: Any) -> Tuple[Dict[str, Any], ...]:
    return tuple(dict(t) for t in value)


@attrs.frozen
class Truth:
    """The true graph a run was scored against, with its columns and per-column node tags.

    Attributes:
        adjacency: (d × d) bool, ``A[i, j]`` = edge i → j, rows and columns in
            the dataset's column order (read-only array).
        columns: the d column names.
        node_tags: d dicts, one per column: the JSON-scalar factor tags of that
            column's SCM node (``{"mechanism": "linear", "noise": "gaussian"}``,
            ``{"root": "gumbel"}``); empty dicts for real tables.

    Raises:
        ValueError: adjacency not square / not 0-1, or ``columns`` /
            ``node_tags`` not of length d (naming the field).
    """

    adjacency: np.ndarray = attrs.field(converter=lambda a: _readonly(as_adjacency(a, "Truth.adjacency")),
                                        eq=attrs.cmp_using(eq=np.array_equal))
    columns: Tuple[str, ...] = attrs.field(converter=lambda c: tuple(str(x) for x in c))
    node_tags: Tuple[Dict[str, Any], ...] = attrs.field(factory=tuple, converter=_tags_tuple)

    def __attrs_post_init__(self) -> None:
        d = self.adjacency.shape[0]
        if len(self.columns) != d:
            raise ValueError(f"Truth.columns has {len(self.columns)} names for a {d} x {d} adjacency")
        if not self.node_tags:  # no tags given (real tables): one empty dict per column
            object.__setattr__(self, "node_tags", tuple({} for _ in range(d)))
        elif len(self.node_tags) != d:
            raise ValueError(f"Truth.node_tags has {len(self.node_tags)} dicts for a {d} x {d} adjacency")

    @property
    def d(self) -> int:
        """Number of variables."""
        return int(self.adjacency.shape[0])

    def encode(self) -> Tuple[int, str, bytes, str]:
        """``(d, columns JSON, adjacency blob, node_tags JSON)``: the store's ``truths`` columns after the id."""
        return (self.d, json.dumps(list(self.columns)), encode_adjacency(self.adjacency),
                json.dumps(list(self.node_tags), sort_keys=True))

    @classmethod
    def decode(cls, d: int, columns: str, adjacency: bytes, node_tags: Optional[str]) -> "Truth":
        """The :class:`Truth` of :meth:`encode`'s four values.

        Raises:
            ValueError: a blob or JSON field that does not decode (see :func:`decode_adjacency`).
        """
        tags = json.loads(node_tags) if node_tags else ()
        return cls(adjacency=decode_adjacency(adjacency, int(d)), columns=json.loads(columns), node_tags=tags)


def truth_id(family: str, scm_id: str, truth: Truth) -> str:
    """16-hex-digit SHA-256 of ``family``, ``scm_id``, the columns, the adjacency and the node tags.

    Equal for every replicate and split of one SCM (they share the graph), so
    the store keeps one ``truths`` row per SCM; a changed graph or tag is a new id.
    """
    d, columns, _, tags = truth.encode()
    h = hashlib.sha256()
    for part in (family, scm_id, columns, tags):
        h.update(part.encode())
        h.update(b"\x00")
    h.update(np.packbits(truth.adjacency.ravel()).tobytes())
    return h.hexdigest()[:16]
