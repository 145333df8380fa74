"""Load a real table (CSV) and its published graph (edge list) as an instance.

Public API:

* :func:`read_table` — numeric CSV with a header row → ``(columns, X)``.
* :func:`read_edges` — edge list → (d × d) int8 adjacency, row = parent.
* :func:`load_table` — both, as a :class:`TableInstance` of family ``"real"``.
* :class:`TableInstance` — a fixed table as a :class:`causalarena.family.Instance`.

Every error names the file and, where it applies, the line and column.

Edge-list format (documented in the README):

* CSV with a header row ``source,target`` (``cause,effect`` is accepted too,
  case-insensitive, quotes allowed — cdt's files use ``"Cause","Effect"``), or
* two whitespace-separated columns per line, with an optional
  ``source target`` header line.

Blank lines and lines starting with ``#`` are ignored. Names are normalised
the same way on both sides (surrounding whitespace stripped; matching is
exact and case-sensitive); an unknown name is an error with a suggestion.
A duplicated edge is an **error** naming both lines (a repeated line usually
means a copy/paste slip in a hand-written graph, and silently merging it
would hide it). Self-loops and cycles are errors for user tables (the
benchmark's graph metrics such as SID assume a DAG).
"""

from __future__ import annotations

import csv
import difflib
import io
import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import attrs
import numpy as np

from causalarena.data import SCALE_PROBLEMS_KEY, Dataset, scale_problems
from causalarena.family import Instance
from causalarena.protocol import cell_seed, varsortability
from causalarena.protocol import standardise as _standardise

PathLike = Union[str, Path]

FAMILY = "real"
#: Cell tokens read as a missing value (NaN).
NA_TOKENS = frozenset({"", "na", "nan", "n/a", "null", "none"})
#: Accepted header pairs of a CSV edge list (lower-cased).
EDGE_HEADERS = (("source", "target"), ("cause", "effect"))


class TableFormatError(ValueError):
    """A data CSV or edge list is malformed; the message names file and place."""


# --------------------------------------------------------------------------- data


def _require_file(path: PathLike, role: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{role} not found: {p}")
    return p


def _read_text(p: Path) -> str:
    """The file's text as UTF-8 (an optional BOM dropped).

    Raises:
        TableFormatError: the bytes are not UTF-8, naming the file, the first
            bad byte and its line (a file saved as Latin-1/cp1252 or UTF-16).
    """
    raw = p.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        body = exc.object  # the bytes the decoder saw (after a BOM)
        line = body[: exc.start].count(b"\n") + 1
        byte = body[exc.start]
        raise TableFormatError(
            f"{p}: not UTF-8 (byte 0x{byte:02x} at line {line}): save it as UTF-8"
        ) from None


def _looks_numeric(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def read_table(csv_path: PathLike) -> Tuple[List[str], np.ndarray]:
    """Read a numeric CSV with a header row.

    Args:
        csv_path: comma-separated file; first row = variable names.

    Returns:
        ``(columns, X)``: d names and the (n × d) float64 matrix. Missing
        cells (empty, ``NA``, ``NaN``, ``null`` …) become NaN; they are
        allowed here and recorded by :class:`TableInstance` as per-column
        NaN fractions (the runner's input checks decide, case I4).

    Raises:
        FileNotFoundError: the file does not exist.
        TableFormatError: the file is not UTF-8 (byte and line named) or not
            parseable as CSV (line named); empty file or no data rows ("empty
            table"); a first row of numbers only (a table without its header
            row; line named); an empty or duplicated column name (both
            positions named); fewer than 2 columns (a causal graph needs
            d >= 2); a row with the wrong number of fields (line named); a
            non-numeric or infinite cell (column and first bad line named).
    """
    p = _require_file(csv_path, "data CSV")
    # csv module rather than pandas.read_csv: pandas silently renames
    # duplicate headers ("a", "a.1") and we must report them instead.
    reader = csv.reader(io.StringIO(_read_text(p), newline=""))
    rows: List[Tuple[int, List[str]]] = []
    try:
        for r in reader:
            # 1-based number of the row's first line (a quoted field may span lines)
            rows.append((reader.line_num - sum(f.count("\n") for f in r), r))
    except csv.Error as exc:
        raise TableFormatError(f"{p}: line {reader.line_num}: not a readable CSV row: {exc}") from None
    # Drop fully blank lines but keep line numbers (1-based, header = line 1).
    numbered = [(i, r) for i, r in rows if any(c.strip() for c in r)]
    if not numbered:
        raise TableFormatError(f"{p}: empty table (no header row)")
    header_line, header = numbered[0]
    columns = [c.strip() for c in header]
    if all(c and _looks_numeric(c) for c in columns):
        shown = ",".join(columns[:4]) + (",…" if len(columns) > 4 else "")
        raise TableFormatError(
            f"{p}: line {header_line}: the first row looks like data, not a header ({shown!r}): "
            f"the table needs a header row naming the variables"
        )
    for j, c in enumerate(columns):
        if not c:
            raise TableFormatError(f"{p}: line {header_line}: column {j + 1} has an empty name")
    seen: Dict[str, int] = {}
    for j, c in enumerate(columns):
        if c in seen:
            raise TableFormatError(
                f"{p}: duplicate column name {c!r} (columns {seen[c] + 1} and {j + 1})"
            )
        seen[c] = j
    if len(columns) < 2:
        raise TableFormatError(
            f"{p}: the table has {len(columns)} column ({', '.join(map(repr, columns))}): a causal graph "
            f"needs at least 2 variables (d >= 2); add the other variables, comma-separated"
        )
    body = numbered[1:]
    if not body:
        raise TableFormatError(f"{p}: empty table (header only, no data rows)")
    d = len(columns)
    X = np.empty((len(body), d), dtype=np.float64)
    for r, (line, fields) in enumerate(body):
        if len(fields) != d:
            raise TableFormatError(
                f"{p}: line {line} has {len(fields)} fields, the header has {d}"
            )
        for j, cell in enumerate(fields):
            tok = cell.strip()
            if tok.lower() in NA_TOKENS:
                X[r, j] = math.nan
                continue
            try:
                v = float(tok)
            except ValueError:
                raise TableFormatError(
                    f"{p}: column {columns[j]!r} is not numeric: first bad value {cell!r} "
                    f"at line {line}"
                ) from None
            if math.isinf(v):
                raise TableFormatError(
                    f"{p}: column {columns[j]!r} has an infinite value {cell!r} at line {line}"
                )
            X[r, j] = v
    return columns, X


# -------------------------------------------------------------------------- edges


def _edge_rows(p: Path) -> List[Tuple[int, List[str]]]:
    """(line number, fields) of the non-blank, non-comment lines, header removed."""
    lines = _read_text(p).splitlines()
    content = [(i + 1, s) for i, s in enumerate(lines) if s.strip() and not s.lstrip().startswith("#")]
    if not content:
        return []
    first = content[0][1]
    if "," in first:
        parsed = [(ln, next(csv.reader([s]))) for ln, s in content]
        ln0, head = parsed[0]
        head_key = tuple(h.strip().lower() for h in head)
        if head_key not in EDGE_HEADERS:
            raise TableFormatError(
                f"{p}: line {ln0}: a CSV edge list needs the header 'source,target' "
                f"(or 'cause,effect'), got {','.join(head)!r}"
            )
        rows = parsed[1:]
    else:
        parsed = [(ln, s.split()) for ln, s in content]
        if tuple(f.lower() for f in parsed[0][1]) in EDGE_HEADERS:
            parsed = parsed[1:]
        rows = parsed
    for ln, fields in rows:
        if len(fields) != 2:
            raise TableFormatError(
                f"{p}: line {ln} has {len(fields)} fields, an edge needs 2 (source, target)"
            )
    return [(ln, [f.strip() for f in fields]) for ln, fields in rows]


def read_edges(edges_path: PathLike, columns: Sequence[str], allow_cycles: bool = False
               ) -> Tuple[np.ndarray, List[List[str]]]:
    """Read an edge list and map it by name onto ``columns``.

    Args:
        edges_path: edge list (format in the module docstring).
        columns: the d variable names of the data table.
        allow_cycles: accept a cyclic graph (used for published graphs that
            contain feedback loops, e.g. cdt's Sachs target); the cycles are
            returned so that they can be recorded.

    Returns:
        ``(A, cycles)``: (d × d) int8 adjacency with ``A[i, j] = 1`` for
        i → j (row = parent), and the list of simple cycles (each a list of
        names), empty for a DAG.

    Raises:
        FileNotFoundError: the file does not exist.
        TableFormatError: bad header or field count (line named); an edge
            naming an unknown variable (name and line, with a suggestion);
            a self-loop (line); a duplicated edge (both lines); a cycle when
            ``allow_cycles`` is False (the cycle is spelled out).
    """
    import networkx as nx  # well-kept cycle finder (find_cycle / simple_cycles)

    p = _require_file(edges_path, "edge list")
    index = {str(c).strip(): k for k, c in enumerate(columns)}
    d = len(columns)
    A = np.zeros((d, d), dtype=np.int8)
    first_line: Dict[Tuple[int, int], int] = {}
    for ln, (src, tgt) in _edge_rows(p):
        for name in (src, tgt):
            if name not in index:
                close = [c for c in index if c.casefold() == name.casefold()]
                close = close or difflib.get_close_matches(name, list(index), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise TableFormatError(
                    f"{p}: line {ln}: unknown variable {name!r} (not a column of the data "
                    f"table){hint}"
                )
        i, j = index[src], index[tgt]
        if i == j:
            raise TableFormatError(f"{p}: line {ln}: self-loop {src!r} -> {tgt!r}")
        if (i, j) in first_line:
            raise TableFormatError(
                f"{p}: line {ln}: duplicated edge {src!r} -> {tgt!r} (first given at line "
                f"{first_line[(i, j)]})"
            )
        first_line[(i, j)] = ln
        A[i, j] = 1
    names = [str(c).strip() for c in columns]
    g = nx.DiGraph()
    g.add_nodes_from(range(d))
    g.add_edges_from(zip(*np.nonzero(A)))
    cycles = [[names[k] for k in cyc] for cyc in sorted(nx.simple_cycles(g))]
    if cycles and not allow_cycles:
        cyc = [names[u] for u, _ in nx.find_cycle(g)]
        raise TableFormatError(
            f"{p}: the edge list has a cycle: {' -> '.join(cyc + [cyc[0]])} "
            f"(the ground truth must be a DAG)"
        )
    return A, cycles


# ----------------------------------------------------------------------- instance


@attrs.define(eq=False)
class TableInstance(Instance):
    """A fixed public table with its published graph: an obs-only instance.

    There is one split (``"obs"``) and one replicate: the table is fixed, so
    replicates would be byte-identical (no resampling is done; a bootstrap
    would change the data the graph was published for).

    Attributes:
        family: ``"real"``.
        scm_id: instance id (``"sachs"``, or the user table's name).
        columns: d variable names.
        X_raw: (n × d) float64 table as read (NaN allowed).
        adjacency: (d × d) int8 published graph, row = parent.
        source: where the table came from (recorded in metadata).
        factors: ``source``, ``domain``, ``d``, ``n``.
        cycles: simple cycles of the published graph (empty for a DAG).
    """

    family: str
    scm_id: str
    columns: List[str]
    X_raw: np.ndarray
    adjacency: np.ndarray
    source: str
    factors: Dict[str, Any] = attrs.field(factory=dict)
    cycles: List[List[str]] = attrs.field(factory=list)
    splits: Sequence[str] = ("obs",)
    n_replicates: int = 1

    def true_adjacency(self) -> np.ndarray:
        """(d × d) int8 published graph, row = parent (a copy)."""
        return self.adjacency.copy()

    def nan_fraction(self) -> Dict[str, float]:
        """Per-column fraction of NaN cells of the raw table (case I4)."""
        frac = np.isnan(self.X_raw).mean(axis=0)
        return {c: float(f) for c, f in zip(self.columns, frac)}

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:
        """The (n × d) table of a cell.

        Args:
            split: must be ``"obs"``.
            replicate: must be 0.
            standardise: z-score each column with the shared protocol's
                :func:`causalarena.protocol.standardise` (population sd; a
                constant column is only centred; App. B.1); ``False`` gives
                the raw table.
            protocol: ignored (no interventions on an obs-only table);
                ``metadata["protocol"]`` is None as for every obs split.
            n: optional row count ``<= n_table``: a subsample without
                replacement drawn with the cell seed, rows kept in table order
                (so the same cell always gives the same rows). Standardisation
                is computed on the subsample.

        Returns:
            :class:`~causalarena.data.Dataset` with all-False masks, regime −1
            and metadata family, scm_id, split, replicate, seed
            (:func:`causalarena.protocol.cell_seed`), standardised, source,
            factors, protocol, n_obs, n_int, target_pool, varsortability (raw
            data; None when a column's variance over- or underflows float64),
            nan_fraction (per column, case I4), truth_is_dag, truth_cycles,
            and ``scale_problems`` (:data:`causalarena.data.SCALE_PROBLEMS_KEY`:
            column → reason, only when some column's scale float64 cannot
            handle; :func:`causalarena.checks.check_input` refuses the run).

        Raises:
            ValueError: split not provided (e.g. ``"obs_int"``), replicate out
                of range, or ``n`` outside ``1..n_table``.
        """
        if split not in self.splits:
            raise ValueError(
                f"instance {self.family}/{self.scm_id} has no split {split!r}: a fixed table "
                f"without intervention labels provides only {tuple(self.splits)}"
            )
        if not 0 <= int(replicate) < self.n_replicates:
            raise ValueError(
                f"instance {self.family}/{self.scm_id}: replicate {replicate} out of range "
                f"0..{self.n_replicates - 1} (a fixed table has one replicate)"
            )
        seed = cell_seed(self.family, self.scm_id, split, int(replicate))
        X = self.X_raw
        n_table = X.shape[0]
        if n is not None:
            if not 1 <= int(n) <= n_table:
                raise ValueError(
                    f"instance {self.family}/{self.scm_id}: n = {n} outside 1..{n_table} "
                    f"(the table has {n_table} rows)"
                )
            if int(n) < n_table:
                rows = np.sort(np.random.default_rng(seed).choice(n_table, int(n), replace=False))
                X = X[rows]
        # what float64 cannot standardise, found on the raw table (a standardised
        # overflowing column is all zeros): the runner's input checks refuse it by name
        scale = scale_problems(X, self.columns, squares=False)
        with np.errstate(over="ignore", invalid="ignore"):
            raw_vs = None if scale else varsortability(X, self.adjacency)
        with np.errstate(over="ignore", invalid="ignore"):  # a scale problem is refused by the input checks
            X = _standardise(X) if standardise else X.copy()
        metadata = {
            "family": self.family,
            "scm_id": self.scm_id,
            "split": split,
            "replicate": int(replicate),
            "seed": seed,
            "standardised": bool(standardise),
            "source": self.source,
            "factors": dict(self.factors),
            "protocol": None,  # obs-only: no intervention protocol applies
            "n_obs": int(X.shape[0]),
            "n_int": 0,
            "target_pool": [],
            "varsortability": raw_vs,
            "nan_fraction": self.nan_fraction(),
            "truth_is_dag": not self.cycles,
            "truth_cycles": [list(c) for c in self.cycles],
        }
        if scale:
            metadata[SCALE_PROBLEMS_KEY] = scale
        return Dataset(X=X, columns=list(self.columns), true_adjacency=self.true_adjacency(),
                       metadata=metadata)


def load_table(csv_path: PathLike, edges_path: PathLike, name: Optional[str] = None,
               domain: str = "user") -> TableInstance:
    """Load a user's CSV and edge list as an obs-only instance of family ``"real"``.

    Args:
        csv_path: numeric CSV with a header row (:func:`read_table`).
        edges_path: edge list over the CSV's column names (:func:`read_edges`).
        name: instance id; defaults to the CSV's file stem.
        domain: recorded in ``factors["domain"]``.

    Returns:
        :class:`TableInstance` (splits ``("obs",)``, one replicate).

    Raises:
        FileNotFoundError, TableFormatError: see :func:`read_table` and
            :func:`read_edges` (a cyclic edge list is an error here).
    """
    columns, X = read_table(csv_path)
    A, _ = read_edges(edges_path, columns, allow_cycles=False)
    scm_id = name if name is not None else Path(csv_path).stem
    return TableInstance(
        family=FAMILY, scm_id=scm_id, columns=columns, X_raw=X, adjacency=A,
        source=str(csv_path),
        factors={"source": str(Path(csv_path).name), "domain": domain,
                 "d": len(columns), "n": int(X.shape[0])},
    )
