"""Cells and their store keys: a family instance × split × replicate × method (the runner's unit)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence

from .conventions import CPDAG_ORIENTATIONS, CPDAG_REPAIRS
from .metrics import scoring_config
from .store import config_hash
from .tasks import task_of


class Cell(NamedTuple):
    """One run: a family instance × split × replicate × method.

    Attributes:
        family: family name (``"synthetic"``).
        instance: a :class:`causalarena.family.Instance` (has ``scm_id`` and
            ``dataset(split, replicate, standardise=, protocol=, n=)``).
        split: ``"obs"`` or ``"obs_int"``.
        replicate: replicate index (0-based).
        method: a :class:`causalarena.records.MethodInfo`.
    """

    family: str
    instance: Any
    split: str
    replicate: int
    method: Any


def make_cells(instances: Iterable[Any], methods: Iterable[Any],
               splits: Optional[Sequence[str]] = None,
               replicates: Optional[Sequence[int]] = None) -> List[Cell]:
    """The full grid over instances × splits × replicates × methods.

    Only splits an instance provides (``instance.splits``) and replicates
    below ``instance.n_replicates`` are included; ``splits`` / ``replicates``
    restrict further. A method is paired only with instances of its task
    (``MethodInfo.task`` and ``instance.task``, :mod:`causalarena.effect`;
    both ``"discovery"`` unless they say otherwise). Cells are ordered method-major.
    """
    methods = list(methods)
    instances = list(instances)
    cells = []
    for m in methods:
        for inst in instances:
            if task_of(inst) != task_of(m):
                continue
            for split in inst.splits:
                if splits is not None and split not in splits:
                    continue
                for rep in range(int(inst.n_replicates)):
                    if replicates is not None and rep not in replicates:
                        continue
                    cells.append(Cell(inst.family, inst, split, rep, m))
    return cells


def instance_fingerprint(instance: Any, cache: Optional[Dict[int, Optional[str]]] = None) -> Optional[str]:
    """``instance.fingerprint()`` (None when it has none), memoised in ``cache`` by id."""
    if cache is not None and id(instance) in cache:
        return cache[id(instance)]
    method = getattr(instance, "fingerprint", None)
    fp = method() if callable(method) else None
    if cache is not None:
        cache[id(instance)] = fp
    return fp


def cell_key(cell: Cell, standardise: bool = True, protocol: str = "default", n: Optional[int] = None,
             cache: Optional[Dict[int, Optional[str]]] = None, cpdag_orientation: str = CPDAG_ORIENTATIONS[0],
             cpdag_repair: str = CPDAG_REPAIRS[0]) -> tuple:
    """Store key ``(family, scm_id, split, replicate, method, config_hash)`` of a cell.

    The config hash covers the method parameters and its distribution version
    (an upgraded plugin is rerun, not skipped), the dataset options, the
    instance fingerprint and, for a CPDAG/PAG method, the CPDAG scoring policy
    (:func:`causalarena.metrics.scoring_config`; :func:`causalarena.store.config_hash`).
    """
    m = cell.method
    return (cell.family, cell.instance.scm_id, cell.split, int(cell.replicate), m.name,
            config_hash(dict(m.params), standardise, protocol, n, data=instance_fingerprint(cell.instance, cache),
                        method_version=f"{getattr(m, 'distribution', '')}=={getattr(m, 'version', '')}",
                        scoring=scoring_config(m.output_kind, cpdag_orientation, cpdag_repair)))


def grid_keys(cells: Iterable[Cell], standardise: bool = True, protocol: str = "default",
              n: Optional[int] = None, cpdag_orientation: str = CPDAG_ORIENTATIONS[0],
              cpdag_repair: str = CPDAG_REPAIRS[0]) -> List[tuple]:
    """Store keys of ``cells`` under these dataset and scoring options (see :func:`cell_key`)."""
    cache: Dict[int, Optional[str]] = {}
    return [cell_key(c, standardise, protocol, n, cache, cpdag_orientation, cpdag_repair) for c in cells]
