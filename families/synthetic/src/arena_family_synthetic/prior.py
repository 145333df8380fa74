"""The synthetic family restricted to a declared prior: training data for a pretrained model.

A *generator prior* names, in the arena's own factor vocabulary, the
categories the generator may draw: graph families, mechanism tags, noise
families, root distributions, root-dependency modes, a d range and the
splits. :func:`draw_training_spec` then builds an SCM by exactly the grid's
steps (:func:`.family.generate_from`: graph validity filters, family mixing,
parameter ranges, the slot's difficulty stressors, output calibration and the
App. A.2 audits) with the catalogues cut down to the prior. So a model trained
on these SCMs has a prior known exactly — it is this file — and
:meth:`GeneratorPrior.pretraining_prior` declares it to the exposure analysis
(CausalArena paper §6.2), where the paper had to audit priors by hand.

Training SCMs have their own seed namespace (:data:`SEED_NAMESPACE`, the
prior's digest and the index): none coincides with a public, reserved or
fresh configuration of the grid.

The YAML format (every key required except ``root_dependency``)::

    graph: [er, sf]
    mechanism: [linear, polynomial]     # mechanism tags (arena_family_synthetic.mechanisms)
    noise: [gaussian, uniform]          # noise families (PAPER_NOISES)
    root: [gaussian, uniform]           # root distributions (PAPER_ROOTS)
    root_dependency: [independent]      # optional; default all modes
    d_range: [10, 20]
    splits: [obs, obs_int]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

import attrs
import numpy as np

from causalarena.scm import SCMSpec

from . import schedule as S

SEED_NAMESPACE = "synthetic-prior@1"
KEYS = ("graph", "mechanism", "noise", "root", "root_dependency", "d_range", "splits")
REQUIRED = ("graph", "mechanism", "noise", "root", "d_range", "splits")
SPLIT_NAMES = ("obs", "obs_int")


def catalogue() -> Dict[str, Tuple[str, ...]]:
    """The categories each axis may take (the paper's full catalogue, App. A.1)."""
    from .distributions import PAPER_NOISES, PAPER_ROOTS
    from .mechanisms import MECHANISM_TAGS

    return {"graph": tuple(S.graph_families()), "mechanism": tuple(MECHANISM_TAGS), "noise": tuple(PAPER_NOISES),
            "root": tuple(PAPER_ROOTS), "root_dependency": ("independent", *S.DEPENDENT_MODES)}


@attrs.frozen
class GeneratorPrior:
    """Categories a training generator may draw (a restriction of the grid's catalogue).

    Attributes:
        graph, mechanism, noise, root: category names (sorted, distinct).
        root_dependency: allowed root-dependency modes (``"independent"``
            and / or the dependent modes of :data:`.schedule.DEPENDENT_MODES`).
        d_range: ``(lo, hi)`` number of variables, inclusive, each ≥ 4.
        splits: ``"obs"`` (n = 1000) and / or ``"obs_int"`` (800 + 200).
        where: the file it came from (error messages only).
    """

    graph: Tuple[str, ...]
    mechanism: Tuple[str, ...]
    noise: Tuple[str, ...]
    root: Tuple[str, ...]
    root_dependency: Tuple[str, ...]
    d_range: Tuple[int, int]
    splits: Tuple[str, ...]
    where: str = attrs.field(default="<prior>", eq=False)

    def to_mapping(self) -> Dict[str, Any]:
        """The prior as plain lists (the YAML's content)."""
        return {k: list(getattr(self, k)) for k in KEYS}

    def digest(self) -> str:
        """SHA-256 (hex, 16 chars) of the canonical JSON of :meth:`to_mapping`: the prior's identity."""
        text = json.dumps(self.to_mapping(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def pretraining_prior(self, source: str):
        """The :class:`causalarena.records.PretrainingPrior` a model trained on this prior declares.

        Root categories follow the runs' ``roots`` factor: a root of a
        dependent block is tagged ``dependent:<mode>``, so each allowed
        dependent mode is a root category too. ``n_range`` is the protocol's
        n = 1000 rows of both splits (App. B.1).
        """
        from causalarena.records import PretrainingPrior

        roots = (*self.root, *(f"dependent:{m}" for m in self.root_dependency if m != "independent"))
        return PretrainingPrior(axes={"graph": self.graph, "mechanism": self.mechanism, "noise": self.noise,
                                      "root": tuple(sorted(roots))},
                                d_range=self.d_range, n_range=(1000, 1000), source=source)


def prior_from_mapping(data: Mapping[str, Any], where: str = "<prior>") -> GeneratorPrior:
    """Validate a prior mapping.

    Raises:
        ValueError: a missing or unknown key, an empty list, an unknown
            category (the message lists the known ones), a bad d range or
            split; the message names ``where`` and the field.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: a prior is a mapping of {list(KEYS)}, got {type(data).__name__}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {unknown}; known: {list(KEYS)}")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ValueError(f"{where}: missing field(s) {missing}")
    known = catalogue()
    values: Dict[str, Any] = {}
    for key in ("graph", "mechanism", "noise", "root", "root_dependency"):
        raw = data.get(key, list(known["root_dependency"]) if key == "root_dependency" else None)
        if isinstance(raw, str) or not isinstance(raw, Sequence) or not raw:
            raise ValueError(f"{where}: field {key!r} must be a non-empty list of names, got {raw!r}")
        bad = [str(v) for v in raw if str(v) not in known[key]]
        if bad:
            raise ValueError(f"{where}: field {key!r}: unknown {bad}; known: {list(known[key])}")
        values[key] = tuple(sorted({str(v) for v in raw}))
    rng = data["d_range"]
    if (not isinstance(rng, Sequence) or len(rng) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in rng) or not 4 <= rng[0] <= rng[1]):
        raise ValueError(f"{where}: field 'd_range' must be [lo, hi] with 4 <= lo <= hi integers, got {rng!r}")
    splits = data["splits"]
    if isinstance(splits, str) or not isinstance(splits, Sequence) or not splits or \
            any(s not in SPLIT_NAMES for s in splits):
        raise ValueError(f"{where}: field 'splits' must be a non-empty list of {list(SPLIT_NAMES)}, got {splits!r}")
    return GeneratorPrior(d_range=(int(rng[0]), int(rng[1])), splits=tuple(s for s in SPLIT_NAMES if s in splits),
                          where=where, **values)


def load_prior(path: Union[str, Path]) -> GeneratorPrior:
    """Read a prior YAML file (module docstring).

    Raises:
        FileNotFoundError: no such file.
        ValueError: not YAML, or an invalid prior (:func:`prior_from_mapping`); the message names the file.
    """
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from exc
    return prior_from_mapping(data, where=str(path))


def training_seed(prior: GeneratorPrior, index: int, namespace: str = "train") -> int:
    """64-bit seed of training SCM ``index``: SHA-256 of the namespace, the prior's digest and the index."""
    text = f"{SEED_NAMESPACE}/{namespace}/{prior.digest()}/{int(index)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def draw_training_spec(prior: GeneratorPrior, index: int, namespace: str = "train") -> SCMSpec:
    """Training SCM ``index`` of ``prior``: graph family, d and schedule slot drawn from its seed.

    Deterministic: the same (prior, index, namespace) gives the same spec in
    any process. The slot (0–19) sets the difficulty stressors and root
    dependency as in the grid (App. A.1); a scheduled dependent mode the
    prior does not allow becomes independent roots.

    Raises:
        RuntimeError: the generator's audits rejected every draw (rare).
    """
    from .family import generate_from

    seed = training_seed(prior, index, namespace)
    rng = np.random.default_rng(seed)
    graph = str(prior.graph[int(rng.integers(len(prior.graph)))])
    d = int(rng.integers(prior.d_range[0], prior.d_range[1] + 1))
    slot = int(rng.integers(S.SLOTS_PER_BLOCK))
    config_id = f"{namespace}-{prior.digest()[:8]}-{graph}-d{d}-{int(index):06d}"
    cid = S.ConfigId(graph, d, slot, namespace, None)
    catalog = {"mechanism": prior.mechanism, "noise": prior.noise, "root": prior.root}
    return generate_from(cid, config_id, int(rng.integers(2**63)), catalog=catalog,
                         dependent_modes=prior.root_dependency)


def training_split(prior: GeneratorPrior, index: int) -> str:
    """The split training SCM ``index`` is sampled in (the prior's splits in turn)."""
    return prior.splits[int(index) % len(prior.splits)]


def as_prior(value: Optional[Union[GeneratorPrior, Mapping[str, Any], str, Path]]) -> GeneratorPrior:
    """A :class:`GeneratorPrior` from itself, a mapping or a YAML path."""
    if isinstance(value, GeneratorPrior):
        return value
    if isinstance(value, Mapping):
        return prior_from_mapping(value)
    if value is None:
        raise ValueError("a prior is required (a YAML path, a mapping or a GeneratorPrior)")
    return load_prior(value)
