"""AVICI's pretraining prior in the arena's factor vocabulary, derived from its training config.

The released ``scm-v0`` checkpoint was trained on ``avici/config/train/scm-v0.yaml``
(shipped in the avici package). :func:`prior_from_config` maps that file's
generator classes to the arena's categories (``causalarena.records.PRIOR_AXES``,
the component names of arena-family-synthetic) by the table below; the
result is declared as ``MethodInfo.prior`` (:data:`SCM_V0_PRIOR`, a constant so
that the descriptor never imports avici; a test re-derives it from the yaml).

Mapping (avici class → arena category; a class without one is left out):

==================================  ===============================================
graph ``ErdosRenyi``                 ``er``
graph ``ScaleFree``                  ``sf``
graph ``ScaleFreeTranspose``         ``sf`` (the same family with edges reversed)
graph ``WattsStrogatz``              ``small_world``
graph ``SBM``                        ``local_module`` (dense blocks, sparse between)
graph ``GRG``                        — (random geometric graph: no arena family)
mechanism ``LinearAdditive``         ``linear``
mechanism ``RFFAdditive``            ``rff``
noise ``Gaussian``                   ``gaussian``
noise ``Laplace``                    ``laplace``
noise ``Cauchy``                     ``student_t`` (Cauchy = Student-t, 1 d.o.f.)
noise ``noise_scale_heteroscedastic`` ``rff_heteroskedastic`` (an RFF of the parents)
root (bias + Gaussian noise)         ``gaussian``
==================================  ===============================================

Roots: an AVICI root node is ``bias + noise_scale * eps`` with ``eps`` from the
same noise list; the arena's root families are separate distributions and
the paper maps only the Gaussian (Fig. 14: 1/14), which this follows (a
literal reading would add ``laplace``). ``d_range`` = the ``train_n_vars``
range; ``n_range`` = ``n_observations_obs`` (600, the obs split) to obs + int
(800).

Counts against the paper's Fig. 14 (AVICI: graph 4/10, mechanism 2/16,
noise 4/15, root 1/14): this mapping gives 4, 2, 4, 1 — the same.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

from causalarena.records import PretrainingPrior

SOURCE = ("avici 1.0.7, avici/config/train/scm-v0.yaml (training config of the released scm-v0 checkpoint), "
          "mapped by arena_method_avici.prior; Lorch et al. 2022, App. C; CausalArena paper Fig. 14")

GRAPH_MAP: Dict[str, str] = {"ErdosRenyi": "er", "ScaleFree": "sf", "ScaleFreeTranspose": "sf",
                             "WattsStrogatz": "small_world", "SBM": "local_module"}
MECHANISM_MAP: Dict[str, str] = {"LinearAdditive": "linear", "RFFAdditive": "rff"}
NOISE_MAP: Dict[str, str] = {"Gaussian": "gaussian", "Laplace": "laplace", "Cauchy": "student_t"}
#: the heteroscedastic noise-scale key of a mechanism → its arena noise category
HETERO_KEY, HETERO_NOISE = "noise_scale_heteroscedastic", "rff_heteroskedastic"
ROOT_MAP: Dict[str, str] = {"Gaussian": "gaussian"}

#: the prior of the released scm-v0 checkpoint (= prior_from_config(scm-v0.yaml), tested)
SCM_V0_PRIOR = PretrainingPrior(
    axes={"graph": ("er", "local_module", "sf", "small_world"), "mechanism": ("linear", "rff"),
          "noise": ("gaussian", "laplace", "rff_heteroskedastic", "student_t"), "root": ("gaussian",)},
    d_range=(2, 100), n_range=(600, 800), source=SOURCE)


def _classes(entries: Any, where: str) -> List[str]:
    if not isinstance(entries, list):
        raise ValueError(f"scm-v0 config: {where} must be a list of {{__class__: ...}} entries, got {entries!r}")
    return [e["__class__"] for e in entries if isinstance(e, dict) and "__class__" in e]


def prior_from_config(config: Mapping[str, Any], source: str = SOURCE) -> Tuple[PretrainingPrior, Dict[str, list]]:
    """Map an AVICI training config (the parsed yaml) to a :class:`PretrainingPrior`.

    Args:
        config: ``yaml.safe_load`` of e.g. ``avici/config/train/scm-v0.yaml``.
        source: recorded as the prior's source.

    Returns:
        ``(prior, unmapped)``: the prior (categories sorted) and, per axis, the
        avici classes that have no arena category (e.g. ``{"graph": ["GRG"]}``).

    Raises:
        ValueError: the config has no ``data`` list or no ``graph`` /
            ``mechanism`` lists (the message names the key).
    """
    data = config.get("data")
    if not isinstance(data, list) or not data:
        raise ValueError("scm-v0 config: no 'data' list")
    axes: Dict[str, set] = {"graph": set(), "mechanism": set(), "noise": set(), "root": set()}
    unmapped: Dict[str, list] = {"graph": [], "mechanism": [], "noise": [], "root": []}

    def add(axis: str, table: Mapping[str, str], cls: str) -> None:
        if cls in table:
            axes[axis].add(table[cls])
        elif cls not in unmapped[axis]:
            unmapped[axis].append(cls)

    n_obs, n_int = [], []
    for block in data:
        n_obs.append(int(block.get("n_observations_obs", 0)))
        n_int.append(int(block.get("n_observations_int", 0)))
        for cls in _classes(block.get("graph"), "data[].graph"):
            add("graph", GRAPH_MAP, cls)
        for mech in block.get("mechanism") or []:
            add("mechanism", MECHANISM_MAP, mech.get("__class__", "?"))
            for cls in _classes(mech.get("noise", []), "mechanism.noise"):
                add("noise", NOISE_MAP, cls)
                if cls in ROOT_MAP:
                    axes["root"].add(ROOT_MAP[cls])
            if mech.get(HETERO_KEY):
                axes["noise"].add(HETERO_NOISE)
        if not block.get("mechanism"):
            raise ValueError("scm-v0 config: data[].mechanism is missing or empty")
    d = [int(v) for v in config.get("train_n_vars", [])]
    prior = PretrainingPrior(axes={k: tuple(sorted(v)) for k, v in axes.items() if v},
                             d_range=(min(d), max(d)) if d else None,
                             n_range=(min(n_obs), max(o + i for o, i in zip(n_obs, n_int))) if n_obs else None,
                             source=source)
    return prior, {k: v for k, v in unmapped.items() if v}
