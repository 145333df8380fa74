"""The synthetic generator restricted to a training prior (arena_family_synthetic.prior)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from arena_family_synthetic import schedule as S
from arena_family_synthetic.prior import (
    catalogue,
    draw_training_spec,
    load_prior,
    prior_from_mapping,
    training_seed,
    training_split,
)
from causalarena.protocol import make_dataset

NARROW = {"graph": ["er", "sf"], "mechanism": ["linear", "polynomial"], "noise": ["gaussian", "uniform"],
          "root": ["gaussian", "uniform"], "root_dependency": ["independent"], "d_range": [10, 12],
          "splits": ["obs", "obs_int"]}


def test_draws_stay_inside_the_prior():
    prior = prior_from_mapping(NARROW)
    for i in range(12):
        spec = draw_training_spec(prior, i)
        meta = spec.metadata
        assert meta["graph"] in ("er", "sf") and 10 <= meta["d"] <= 12
        assert set(meta["mechanisms"]) <= {"linear", "polynomial"}, meta["mechanisms"]
        assert set(meta["noises"]) <= {"gaussian", "uniform"}, meta["noises"]
        assert set(meta["roots"]) <= {"gaussian", "uniform"}, meta["roots"]
        assert meta["root_dependency"] == "independent"
        assert meta["config_id"].startswith(f"train-{prior.digest()[:8]}-{meta['graph']}-d{meta['d']}-")


def test_a_draw_is_a_pure_function_of_prior_and_index():
    prior = prior_from_mapping(NARROW)
    a, b = draw_training_spec(prior, 5), draw_training_spec(prior, 5)
    assert a == b
    split = training_split(prior, 5)
    assert split == "obs_int"  # the splits in turn: odd indices are obs+int
    xa = make_dataset(a, "amortized-train", split, 0).X
    xb = make_dataset(b, "amortized-train", split, 0).X
    assert xa.tobytes() == xb.tobytes()
    assert draw_training_spec(prior, 6) != a
    assert draw_training_spec(prior, 5, namespace="val") != a


def test_training_seeds_are_not_grid_seeds():
    prior = prior_from_mapping(NARROW)
    grid = {S.config_seed(S.make_id(g, d, s)) for g in ("er", "sf") for d in (10, 20) for s in range(10)}
    assert not grid & {training_seed(prior, i) for i in range(1000)}


def test_digest_is_canonical():
    a = prior_from_mapping(NARROW)
    shuffled = {k: (list(reversed(v)) if k not in ("d_range", "splits") else v) for k, v in reversed(NARROW.items())}
    assert prior_from_mapping(shuffled).digest() == a.digest()
    assert prior_from_mapping({**NARROW, "graph": ["er"]}).digest() != a.digest()
    # known answer: sha256 of the canonical JSON (changing it reseeds every training set)
    canonical = ('{"d_range":[10,12],"graph":["er","sf"],"mechanism":["linear","polynomial"],'
                 '"noise":["gaussian","uniform"],"root":["gaussian","uniform"],"root_dependency":["independent"],'
                 '"splits":["obs","obs_int"]}')
    assert a.digest() == hashlib.sha256(canonical.encode()).hexdigest()[:16] == "a01704306bb8f03b"


def test_declared_prior_lists_dependent_roots_as_root_categories():
    full = catalogue()
    prior = prior_from_mapping({**NARROW, "root_dependency": ["independent", "common_factor"]})
    declared = prior.pretraining_prior("test")
    assert declared.axes["root"] == ("dependent:common_factor", "gaussian", "uniform")
    assert declared.axes["graph"] == ("er", "sf") and declared.d_range == (10, 12)
    assert declared.n_range == (1000, 1000)
    assert set(full["root_dependency"]) == {"independent", "common_factor", "random_covariance", "uniform_ball"}


@pytest.mark.parametrize("change, message", [
    ({"graph": ["er", "hexagon"]}, r"field 'graph': unknown \['hexagon'\]"),
    ({"mechanism": "linear"}, "field 'mechanism' must be a non-empty list"),
    ({"d_range": [2, 20]}, "field 'd_range'"),
    ({"d_range": [20, 10]}, "field 'd_range'"),
    ({"splits": ["obs", "int"]}, "field 'splits'"),
    ({"colour": ["red"]}, r"unknown field\(s\) \['colour'\]"),
])
def test_bad_priors_name_the_field(change, message):
    with pytest.raises(ValueError, match=message):
        prior_from_mapping({**NARROW, **change}, where="p.yaml")


def test_missing_field_and_bad_yaml_name_the_file(tmp_path):
    p = tmp_path / "prior.yaml"
    p.write_text("graph: [er]\n")
    with pytest.raises(ValueError, match=r"prior.yaml: missing field\(s\) \['mechanism'"):
        load_prior(p)
    p.write_text("graph: [er\n")
    with pytest.raises(ValueError, match="prior.yaml: not valid YAML"):
        load_prior(p)


def test_the_grid_is_unchanged_by_the_refactor():
    """generate_spec still gives the grid's SCM: same as generate_from with the id's own seed and no catalogue."""
    from arena_family_synthetic.family import generate_from, generate_spec

    cid = "sf-d10-001"
    assert generate_spec(cid) == generate_from(S.parse_id(cid), cid, S.config_seed(cid))
    x = make_dataset(generate_spec(cid), "synthetic", "obs", 0).X
    assert np.isfinite(x).all()
