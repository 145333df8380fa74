"""``PretrainingPrior`` on ``MethodInfo`` (paper §6.2): validation, and the JSON round trip sandbox listings make."""

from __future__ import annotations

import json

import attrs
import pytest

from causalarena.records import PRIOR_AXES, MethodInfo, PretrainingPrior

#: AVICI's synthetic training distribution (Lorch et al. 2022, App. C) in the arena's vocabulary
AVICI = dict(axes={"graph": ("er", "sf"), "mechanism": ("linear", "rff"), "noise": ("gaussian", "laplace"),
                   "root": ("gaussian",)},
             d_range=(2, 100), n_range=(200, 1000), source="Lorch et al. 2022, Amortized inference, App. C")


def test_a_declared_prior_keeps_its_values():
    prior = PretrainingPrior(**{**AVICI, "axes": {k: list(v) for k, v in AVICI["axes"].items()}, "d_range": [2, 100]})
    assert PRIOR_AXES == ("graph", "mechanism", "noise", "root")
    assert prior.axes == {"graph": ("er", "sf"), "mechanism": ("linear", "rff"), "noise": ("gaussian", "laplace"),
                          "root": ("gaussian",)}
    assert prior.d_range == (2, 100) and prior.n_range == (200, 1000)
    assert prior == PretrainingPrior(**AVICI)
    # a prior may declare only some axes and no ranges
    partial = PretrainingPrior(axes={"graph": ("er",)}, source="model card")
    assert partial.d_range is None and partial.n_range is None and set(partial.axes) == {"graph"}
    info = MethodInfo(name="avici", factory="arena_method_avici.method:AVICI", prior=prior)
    assert info.prior is prior
    assert MethodInfo(name="pc", factory="arena_method_pc.method:PC").prior is None


@pytest.mark.parametrize("change, message", [
    ({"axes": {"graphs": ("er",)}}, "PretrainingPrior.axes: unknown axis 'graphs'; expected some of graph, "
                                    "mechanism, noise, root"),
    ({"axes": {"noise": ()}}, r"PretrainingPrior.axes\['noise'\] must be a non-empty tuple of non-empty strings, "
                              r"got \(\)"),
    ({"axes": {"noise": "gaussian"}}, r"PretrainingPrior.axes\['noise'\] must be a non-empty tuple"),
    ({"axes": {"root": ("gaussian", "")}}, r"PretrainingPrior.axes\['root'\] must be a non-empty tuple"),
    ({"axes": {"root": ("gaussian", 3)}}, r"PretrainingPrior.axes\['root'\] must be a non-empty tuple"),
    ({"axes": ["graph"]}, "PretrainingPrior.axes must be a mapping axis -> categories, got list"),
    ({"d_range": (100, 2)}, r"PretrainingPrior.d_range must be \(lo, hi\) with positive integers lo <= hi, "
                            r"got \(100, 2\)"),
    ({"d_range": (0, 10)}, r"PretrainingPrior.d_range must be \(lo, hi\)"),
    ({"n_range": (200.0, 1000)}, r"PretrainingPrior.n_range must be \(lo, hi\) with positive integers"),
    ({"n_range": (200,)}, r"PretrainingPrior.n_range must be"),
    ({"source": "  "}, "PretrainingPrior.source must name where the prior is documented, got '  '"),
])
def test_bad_priors_name_the_field(change, message):
    with pytest.raises(ValueError, match=message):
        PretrainingPrior(**{**AVICI, **change})


def test_a_method_record_round_trips_through_json_with_its_prior():
    # sandbox listings rebuild MethodInfo(**fields) from attrs.asdict() sent as JSON (arena_sandbox.plugin)
    info = MethodInfo(name="avici", factory="arena_method_avici.method:AVICI", prior=PretrainingPrior(**AVICI))
    fields = json.loads(json.dumps(attrs.asdict(info)))
    assert fields["prior"]["d_range"] == [2, 100]
    back = MethodInfo(**fields)
    assert back == info and back.prior == PretrainingPrior(**AVICI)
    with pytest.raises(ValueError, match="MethodInfo.prior must be a PretrainingPrior, got str"):
        MethodInfo(name="x", factory="m:X", prior="er")
