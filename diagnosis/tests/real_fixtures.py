"""A small store with every kind of real table (issue 24 item 6), written through ``Store.record`` by hand.

Families and their declared kinds (the registry stand-in, as ``FamilyInfo.kind``): ``synthetic``
(synthetic), ``real`` (Sachs), ``chambers`` (a family another distribution adds, kind real, with an
obs+int split), ``bnlearn`` (real; a network also called ``sachs``, and ``ecoli70`` with two
replicates), ``semantic`` (not real: left out of the section) and ``tuebingen`` (real, four pairs
scored by ``orientation_accuracy`` with ``weight`` factors). Every number the section shows is
worked out in :data:`EXPECTED_REAL` and :data:`EXPECTED_PAIRS`.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Tuple

from causalarena.records import ReportContext
from causalarena.runs import RunRecord
from causalarena.store import Store

KINDS = {"synthetic": "synthetic", "real": "real", "chambers": "real", "bnlearn": "real", "semantic": "semantic",
         "tuebingen": "real"}

#: (family, scm_id, split, replicate, method, f1, shd, extra metrics, factors)
RUNS: List[Tuple[str, str, str, int, str, float, float, Dict[str, float], Dict[str, Any]]] = [
    # synthetic references: pc obs (0.6 + 0.4) / 2 = 0.5, SHD (4 + 6) / 2 = 5; ges obs 0.3, SHD 9; pc obs+int 0.7, 3
    ("synthetic", "s1", "obs", 0, "pc", 0.6, 4, {}, {}),
    ("synthetic", "s2", "obs", 0, "pc", 0.4, 6, {}, {}),
    ("synthetic", "s1", "obs", 0, "ges", 0.2, 8, {}, {}),
    ("synthetic", "s2", "obs", 0, "ges", 0.4, 10, {}, {}),
    ("synthetic", "s1", "obs_int", 0, "pc", 0.7, 3, {}, {}),
    ("real", "sachs", "obs", 0, "pc", 0.45, 20, {}, {}),
    ("real", "sachs", "obs", 0, "ges", 0.25, 30, {}, {}),
    ("chambers", "lt", "obs", 0, "pc", 0.3, 12, {}, {}),
    ("chambers", "lt", "obs_int", 0, "pc", 0.5, 8, {}, {}),
    ("chambers", "lt", "obs", 0, "ges", 0.1, 15, {}, {}),
    # two replicates: (0.6 + 0.8) / 2 = 0.7, SHD (10 + 14) / 2 = 12
    ("bnlearn", "ecoli70", "obs", 0, "pc", 0.6, 10, {}, {}),
    ("bnlearn", "ecoli70", "obs", 1, "pc", 0.8, 14, {}, {}),
    ("bnlearn", "ecoli70", "obs", 0, "ges", 0.5, 20, {}, {}),
    ("bnlearn", "sachs", "obs", 0, "pc", 0.35, 18, {}, {}),
    ("semantic", "c1", "obs", 0, "pc", 0.9, 1, {}, {}),
    # pairs, weights 0.5, 0.25, 1, 0.25: pc 1, 1, 0, 0.5 -> (0.5 + 0.25 + 0 + 0.125) / 2 = 0.4375, unweighted
    # 2.5 / 4 = 0.625, one undecided; ges 0, 0, 1, 1 -> (1 + 0.25) / 2 = 0.625, unweighted 0.5
    *[("tuebingen", f"pair000{k + 1}", "obs", 0, m, f1, shd, {"orientation_accuracy": acc}, {"weight": w})
      for m, accs in (("pc", (1.0, 1.0, 0.0, 0.5)), ("ges", (0.0, 0.0, 1.0, 1.0)))
      for k, (acc, w) in enumerate(zip(accs, (0.5, 0.25, 1.0, 0.25)))
      for f1, shd in [({1.0: (1.0, 0.0), 0.0: (0.0, 1.0), 0.5: (0.0, 1.0)}[acc])]],
]

#: runs without a score: ges timed out on bnlearn's sachs (shown as a cross with its status; not a row of
#: real_data.csv), and is unsupported on chambers' obs+int (not shown at all)
FAILED = [("bnlearn", "sachs", "obs", 0, "ges", "timeout"), ("chambers", "lt", "obs_int", 0, "ges", "unsupported")]
EXPECTED_MISSING = [["ges", "obs", "bnlearn", "sachs", "timeout"]]

#: real_data.csv: method, split, family, table, f1, shd, synthetic_f1, synthetic_shd (sorted)
EXPECTED_REAL = [
    ["ges", "obs", "bnlearn", "ecoli70", 0.5, 20.0, 0.3, 9.0],
    ["ges", "obs", "chambers", "lt", 0.1, 15.0, 0.3, 9.0],
    ["ges", "obs", "real", "sachs", 0.25, 30.0, 0.3, 9.0],
    ["pc", "obs", "bnlearn", "ecoli70", 0.7, 12.0, 0.5, 5.0],
    ["pc", "obs", "bnlearn", "sachs", 0.35, 18.0, 0.5, 5.0],
    ["pc", "obs", "chambers", "lt", 0.3, 12.0, 0.5, 5.0],
    ["pc", "obs", "real", "sachs", 0.45, 20.0, 0.5, 5.0],
    ["pc", "obs_int", "chambers", "lt", 0.5, 8.0, 0.7, 3.0],
]
#: real_pairs.csv: method, split, family, pairs, accuracy, accuracy_unweighted, undecided
EXPECTED_PAIRS = [
    ["ges", "obs", "tuebingen", 4, 0.625, 0.5, 0],
    ["pc", "obs", "tuebingen", 4, 0.4375, 0.625, 1],
]


class Console:
    def __init__(self) -> None:
        self.lines: List[str] = []

    def print(self, text: Any = "", **_: Any) -> None:
        self.lines.append(str(text))


def write_store(path: Path) -> None:
    """Record :data:`RUNS` in a new store at ``path``."""
    with Store(str(path)) as store:
        for family, sid, split, rep, method, f1, shd, extra, factors in RUNS:
            store.record(RunRecord(family=family, scm_id=sid, split=split, replicate=rep, method=method,
                                   config_hash="0" * 16, status="ok", wall_seconds=1.0, fit_seconds=1.0, n=100,
                                   d=2 if family == "tuebingen" else 5, seed=rep, standardise=True,
                                   protocol="default", output_kind="dag", factors=dict(factors),
                                   metrics={"f1": f1, "shd": float(shd), **extra}))
        for family, sid, split, rep, method, status in FAILED:
            store.record(RunRecord(family=family, scm_id=sid, split=split, replicate=rep, method=method,
                                   config_hash="0" * 16, status=status, wall_seconds=300.0, n=100, d=5, seed=rep,
                                   standardise=True, protocol="default", output_kind="dag", metrics={},
                                   error="over the budget" if status == "timeout" else None))


def context(root: Path, analyses=("real",)) -> Tuple[ReportContext, Console]:
    """A report context on the store, with a registry stand-in declaring :data:`KINDS`."""
    results = root / "R"
    results.mkdir(parents=True)
    path = results / "arena.sqlite"
    write_store(path)
    with Store(str(path), readonly=True) as store:
        runs = store.runs_frame()

    def read(name, *args):
        with Store(str(path), readonly=True) as s:
            return getattr(s, name)(*args)

    registry = SimpleNamespace(methods={"pc": SimpleNamespace(prior=None), "ges": SimpleNamespace(prior=None)},
                               families={f: SimpleNamespace(kind=k) for f, k in KINDS.items()})
    console = Console()
    options = {"analyses": list(analyses)} if analyses else {}
    return ReportContext(results=results, store_path=path, runs=runs, registry=registry, console=console,
                         options=options, reader=read), console
