"""The ``bnlearn`` family: the bnlearn repository's reference networks as shipped by pgmpy.

Instances (ids = bnlearn's network names):

* the four **linear-Gaussian** networks — ``ecoli70``, ``magic-niab``, ``magic-irri``,
  ``arth150`` — as the core's :class:`~causalarena.family.SCMInstance` (linear mechanisms,
  Gaussian noise; :func:`arena_family_bnlearn.gaussian.gaussian_spec`), sampled by the shared
  protocol exactly like every SCM of the arena (obs; obs+int with the default hard
  do-resampling);
* the **discrete** networks with at most ``max_nodes`` nodes (default 100: 14 networks, asia …
  win95pts) as categorical :class:`~arena_family_bnlearn.discrete.DiscreteInstance` tables
  (``data_type = "categorical"``): a method whose ``MethodInfo.data_types`` lacks
  ``"categorical"`` is ``unsupported`` on them, not failed.

Listing (``arena show bnlearn``) reads no network file: ids and sizes come from the catalogue
(:data:`arena_family_bnlearn.networks.NETWORKS`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from causalarena.family import SPLITS, Family, Instance, InstanceSummary, SCMInstance

from .discrete import discrete_instance
from .gaussian import gaussian_spec
from .networks import DEFAULT_MAX_NODES, NETWORKS

KINDS = ("all", "gaussian", "discrete")
#: spec metadata kept out of the factors (stored with every run): references, not slicing tags
LONG_TAGS = ("citation", "repository")


def _names(value: Union[str, Sequence[str], None]) -> Optional[List[str]]:
    if value is None or value == "":
        return None
    items = [v.strip() for v in value.split(",")] if isinstance(value, str) else [str(v).strip() for v in value]
    return [v for v in items if v]


class BnlearnFamily(Family):
    """The bnlearn reference networks (see the module).

    Options (``arena run --family-option bnlearn.<option>=...``):
        kind: ``"all"`` (default), ``"gaussian"`` or ``"discrete"``.
        networks: a comma-separated list (or sequence) of network names; overrides ``kind``
            and ``max_nodes`` (any shipped network may be named, e.g. ``pathfinder``).
        max_nodes: size cap on the discrete networks (default 100).

    Raises (at construction):
        ValueError: an unknown option, kind or network name (the message lists the known ones),
            or a ``max_nodes`` that is not a positive integer.
    """

    name = "bnlearn"
    OPTIONS = ("kind", "networks", "max_nodes")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"bnlearn family: unknown option(s) {unknown}; known: {list(self.OPTIONS)}")
        super().__init__(**options)
        kind = str(options.get("kind") or "all").strip().lower()
        if kind not in KINDS:
            raise ValueError(f"bnlearn family option kind: {kind!r} is not one of {list(KINDS)}")
        try:
            cap = int(options.get("max_nodes", DEFAULT_MAX_NODES))
        except (TypeError, ValueError):
            cap = 0
        if cap < 1:
            raise ValueError(f"bnlearn family option max_nodes: expected a positive integer, "
                             f"got {options.get('max_nodes')!r}")
        wanted = _names(options.get("networks"))
        if wanted is not None:
            bad = [w for w in wanted if w not in NETWORKS]
            if bad:
                raise ValueError(f"bnlearn family option networks: unknown network(s) {bad}; shipped: "
                                 f"{', '.join(NETWORKS)}")
            self._selected = list(dict.fromkeys(wanted))
        else:
            self._selected = [n for n, net in NETWORKS.items()
                              if kind in ("all", net.kind) and (net.kind == "gaussian" or net.nodes <= cap)]
        self._instances: Dict[str, Instance] = {}

    def ids(self) -> List[str]:
        """The selected network names, in catalogue order (Gaussian first, then discrete by size)."""
        return list(self._selected)

    def _instance(self, name: str) -> Instance:
        if name not in self._instances:
            if NETWORKS[name].kind == "gaussian":
                spec = gaussian_spec(name, self.name)
                factors = {k: v for k, v in spec.metadata.items() if k not in LONG_TAGS}
                self._instances[name] = SCMInstance(family=self.name, scm_id=name, spec=spec, factors=factors)
            else:
                self._instances[name] = discrete_instance(name, self.name)
        return self._instances[name]

    def instances(self) -> List[Instance]:
        """The selected networks' instances (a Gaussian spec is built on listing; a discrete file is
        read when its first table or graph is asked for)."""
        return [self._instance(n) for n in self._selected]

    def instance(self, scm_id: str) -> Instance:
        """Any shipped network by name, inside the option selection or not.

        Raises:
            KeyError: not a shipped network (lists them).
        """
        if scm_id not in NETWORKS:
            raise KeyError(f"family 'bnlearn' has no network {scm_id!r}; shipped: {', '.join(NETWORKS)}")
        return self._instance(scm_id)

    def select(self, scm_ids: Sequence[str]) -> List[Instance]:
        """The named networks (any shipped one, even outside the options' selection); others are skipped."""
        return [self._instance(s) for s in scm_ids if s in NETWORKS]

    def listing(self) -> List[InstanceSummary]:
        """One summary per selected network, from the catalogue (no file is read)."""
        return [InstanceSummary(scm_id=n, d=NETWORKS[n].nodes, splits=SPLITS, n_replicates=5)
                for n in self._selected]


__all__ = ("BnlearnFamily", "KINDS")
