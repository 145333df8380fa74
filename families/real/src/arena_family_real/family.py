"""The ``real`` family: public tables with published graphs, plus user tables.

Instances:

* ``sachs`` — the Sachs et al. (2005, *Science* 308:523–529) flow-cytometry
  table and graph **as shipped by cdt 0.6.0** (``cdt/data/resources/
  cyto_full_data.csv``: 7466 rows × 11 proteins; ``cyto_full_target.csv``:
  18 directed edges). The files are located through ``importlib.metadata``;
  ``cdt`` itself is never imported (its import pulls optional heavy stacks).
* user tables given by the options ``tables`` and ``folder`` (see
  :class:`RealFamily`).

Every instance is obs-only with a single replicate: the table is fixed, so
further replicates would be identical. Every dataset's metadata carries both
sortabilities of its raw table, ``varsortability`` and ``r2_sortability``
(:class:`RealTable`, :func:`causalarena.protocol.raw_sortabilities`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

import attrs

from causalarena.data import Dataset
from causalarena.family import Family
from causalarena.protocol import raw_sortabilities

from .loader import FAMILY, TableFormatError, TableInstance, load_table, read_edges, read_table

SACHS_DISTRIBUTION = "cdt"
SACHS_DATA = "cdt/data/resources/cyto_full_data.csv"
SACHS_TARGET = "cdt/data/resources/cyto_full_target.csv"
SACHS_CITATION = (
    "Sachs, K., Perez, O., Pe'er, D., Lauffenburger, D. A., & Nolan, G. P. (2005). "
    "Causal protein-signaling networks derived from multiparameter single-cell data. "
    "Science, 308(5721), 523-529."
)
#: The 11 proteins, in the column order of cdt's file.
SACHS_COLUMNS = ("praf", "pmek", "plcg", "PIP2", "PIP3", "p44/42", "pakts473",
                 "PKA", "PKC", "P38", "pjnk")

#: Suffixes recognised as the edge list of ``<name>.csv`` in a folder.
EDGE_SUFFIXES = (".edges.csv", ".edges.txt", ".edges")


def cdt_files(files: Sequence[str], user: str) -> Tuple[List[Path], str]:
    """Paths of data files shipped in the cdt wheel, and cdt's version (cdt is not imported).

    Args:
        files: paths inside the distribution (``"cdt/data/resources/cyto_full_data.csv"``).
        user: who needs them, for the error message (``"the 'sachs' instance"``).

    Raises:
        ModuleNotFoundError: cdt is not installed (install ``cdt==0.6.0``).
        FileNotFoundError: the installed cdt does not ship one of the files (named).
    """
    from importlib import metadata

    try:
        dist = metadata.distribution(SACHS_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise ModuleNotFoundError(
            f"{user} reads a table shipped by cdt: pip install cdt==0.6.0"
        ) from None
    found = {}
    for f in dist.files or ():
        posix = Path(str(f)).as_posix()
        if posix in files:
            found[posix] = Path(str(dist.locate_file(f)))
    for rel in files:
        if rel not in found or not found[rel].is_file():
            raise FileNotFoundError(
                f"cdt {dist.version} does not ship {rel}; {user} expects cdt==0.6.0"
            )
    return [found[rel] for rel in files], str(dist.version)


def sachs_files() -> Tuple[Path, Path, str]:
    """Paths of cdt's Sachs data and target files, and cdt's version.

    Raises:
        ModuleNotFoundError: cdt is not installed (install ``cdt==0.6.0``).
        FileNotFoundError: the installed cdt does not ship the files.
    """
    (data, target), version = cdt_files((SACHS_DATA, SACHS_TARGET), "the 'sachs' instance")
    return data, target, version


@attrs.define(eq=False)
class RealTable(TableInstance):
    """A :class:`~arena_family_real.loader.TableInstance` whose datasets carry both sortabilities.

    ``dataset(...)`` is the loader's table with ``metadata["r2_sortability"]``
    added (R²-sortability, Reisach et al. 2023) next to ``varsortability``,
    both of the raw rows of the cell (the subsample when ``n`` is given), as
    :func:`causalarena.protocol.raw_sortabilities` defines them: ``None`` only
    when undefined (a graph without edges, a column whose variance float64
    cannot hold, fewer complete rows than d + 1); NaN rows are left out of the
    R² regressions. A value the loader already set is kept.
    """

    @classmethod
    def of(cls, inst: TableInstance) -> "RealTable":
        """The same table as ``inst`` (fields shared, arrays not copied)."""
        if isinstance(inst, cls):
            return inst
        return cls(**{f.name: getattr(inst, f.name) for f in attrs.fields(TableInstance) if f.init})

    def dataset(self, split: str, replicate: int, standardise: bool = True,
                protocol: str = "default", n: Optional[int] = None) -> Dataset:
        """The loader's dataset of the cell, with ``r2_sortability`` in its metadata (see the class).

        Raises:
            ValueError: as :meth:`TableInstance.dataset` (split, replicate, ``n``).
        """
        ds = super().dataset(split, replicate, standardise=standardise, protocol=protocol, n=n)
        if "r2_sortability" in ds.metadata:
            return ds
        raw = ds if not standardise else super().dataset(split, replicate, standardise=False,
                                                          protocol=protocol, n=n)
        ds.metadata["r2_sortability"] = raw_sortabilities(raw.X, self.adjacency)["r2_sortability"]
        return ds


@functools.lru_cache(maxsize=1)
def sachs_instance() -> TableInstance:
    """The Sachs flow-cytometry instance (cached: the files are read once).

    The published graph as shipped by cdt contains the feedback loop
    PIP2 → PIP3 → plcg → PIP2, so it is loaded with ``allow_cycles=True``
    and the cycle is recorded in ``metadata["truth_cycles"]`` (and
    ``truth_is_dag`` is False); see the README's caveats.

    Raises:
        ModuleNotFoundError / FileNotFoundError: see :func:`sachs_files`.
        TableFormatError: the files are not as expected (column named).
    """
    data_path, target_path, version = sachs_files()
    columns, X = read_table(data_path)
    A, cycles = read_edges(target_path, columns, allow_cycles=True)
    source = f"cdt {version} cyto_full"
    return RealTable(
        family=FAMILY, scm_id="sachs", columns=columns, X_raw=X, adjacency=A,
        source=source, cycles=cycles,
        factors={"source": source, "domain": "biology", "d": len(columns), "n": int(X.shape[0])},
    )


def _as_pairs(tables: Any) -> List[Tuple[str, str]]:
    """Normalise the ``tables`` option to (csv, edges) pairs.

    Accepts a sequence of pairs, or strings ``"data.csv=edges.csv"`` (the
    form a command-line option can carry), or one such string with pairs
    separated by ``;``.
    """
    if isinstance(tables, str):
        tables = [t for t in tables.split(";") if t.strip()]
    pairs = []
    for t in tables:
        if isinstance(t, str):
            if "=" not in t:
                raise ValueError(
                    f"real family option tables: {t!r} must be 'data.csv=edges.csv' or a pair"
                )
            csv_path, _, edges = t.partition("=")
            pairs.append((csv_path.strip(), edges.strip()))
        else:
            csv_path, edges = t
            pairs.append((str(csv_path), str(edges)))
    return pairs


def folder_pairs(folder: Union[str, Path]) -> List[Tuple[str, Path, Path]]:
    """``(name, csv, edges)`` for every ``<name>.csv`` in ``folder``.

    The edge list of ``<name>.csv`` is ``<name>.edges.csv``,
    ``<name>.edges.txt`` or ``<name>.edges`` (first found).

    Raises:
        FileNotFoundError: the folder does not exist, or a data CSV has no
            edge list (both named).
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"real family option folder: not a directory: {root}")
    out = []
    for csv_path in sorted(root.glob("*.csv")):
        if csv_path.name.endswith(".edges.csv"):
            continue
        name = csv_path.name[: -len(".csv")]
        edges = next((root / (name + s) for s in EDGE_SUFFIXES if (root / (name + s)).is_file()),
                     None)
        if edges is None:
            raise FileNotFoundError(
                f"real family option folder: {csv_path} has no edge list "
                f"(expected one of {', '.join(name + s for s in EDGE_SUFFIXES)})"
            )
        out.append((name, csv_path, edges))
    return out


def _bad_tables_error(bad: List[Tuple[str, BaseException]], good: List[Tuple[str, str]]) -> BaseException:
    """One error for every bad user table, naming the good ones and the option that runs them alone.

    The invocation is still refused up front (a grid silently missing a table is worse than one that
    stops before it starts); the error's type is the first bad table's (``TableFormatError`` or
    ``FileNotFoundError``), so exit codes stay as they were.
    """
    lines = [f"{len(bad)} of {len(bad) + len(good)} user table(s) cannot be read:"]
    # a TableFormatError already starts with its file's path: name it once
    lines += [f"  {exc}" if str(exc).startswith(csv) else f"  {csv}: {exc}" for csv, exc in bad]
    if good:
        lines.append("readable: " + ", ".join(csv for csv, _ in good) + "; to run those alone: "
                     "--family-option real.tables=" + ";".join(f"{c}={e}" for c, e in good))
    else:
        lines.append("no user table is readable")
    first = bad[0][1]
    return (TableFormatError if isinstance(first, TableFormatError) else FileNotFoundError)("\n".join(lines))


class RealFamily(Family):
    """Public tables with published graphs, and user tables.

    Options (``arena run --family-option real.<option>=...``):
        sachs (bool, default True): include the Sachs table from cdt.
        tables: user tables, a list of ``(csv, edges)`` pairs or strings
            ``"data.csv=edges.csv"`` (``;``-separated in one string); the
            instance id is the CSV's stem.
        folder: a directory; every ``<name>.csv`` with an edge list
            ``<name>.edges.csv`` / ``.edges.txt`` / ``.edges`` is an instance
            ``<name>``.

    Raises (from :meth:`instances`):
        ValueError: two instances share an id, or an unknown option.
        FileNotFoundError, TableFormatError: a bad user table (see
            :func:`~arena_family_real.loader.load_table`).
    """

    name = "real"
    OPTIONS = ("sachs", "tables", "folder")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"real family: unknown option(s) {unknown}; known: {list(self.OPTIONS)}")
        super().__init__(**options)
        self._instances: Union[List[TableInstance], None] = None

    def _build(self) -> Iterable[TableInstance]:
        sachs = self.options.get("sachs", True)
        if isinstance(sachs, str):
            sachs = sachs.strip().lower() not in ("0", "false", "no", "off")
        if sachs:
            yield sachs_instance()
        # every user table is read before any error is raised, so the message can say which tables are
        # fine and how to run them alone (one bad table used to hide the state of all the others)
        good: List[Tuple[str, str]] = []
        bad: List[Tuple[str, BaseException]] = []
        pairs = [(None, c, e) for c, e in _as_pairs(self.options.get("tables") or ())]
        if self.options.get("folder"):
            pairs += [(name, str(c), str(e)) for name, c, e in folder_pairs(self.options["folder"])]
        built = []
        for name, csv_path, edges in pairs:
            try:
                built.append(RealTable.of(load_table(csv_path, edges) if name is None
                                          else load_table(csv_path, edges, name=name)))
                good.append((str(csv_path), str(edges)))
            except (TableFormatError, FileNotFoundError) as exc:
                bad.append((str(csv_path), exc))
        if bad:
            raise _bad_tables_error(bad, good)
        yield from built

    def instances(self) -> List[TableInstance]:
        """All instances (built once per family object)."""
        if self._instances is None:
            built: List[TableInstance] = []
            seen = {}
            for inst in self._build():
                if inst.scm_id in seen:
                    raise ValueError(
                        f"real family: two instances named {inst.scm_id!r} "
                        f"({seen[inst.scm_id]} and {inst.source})"
                    )
                seen[inst.scm_id] = inst.source
                built.append(inst)
            self._instances = built
        return list(self._instances)


__all__: Sequence[str] = ("RealFamily", "RealTable", "sachs_instance", "sachs_files", "cdt_files", "folder_pairs",
                          "SACHS_COLUMNS", "SACHS_CITATION")
