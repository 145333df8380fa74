"""Views, ids, options and the leak test (§4.1.2, App. D.1)."""

import io

import numpy as np
import pytest

from arena_family_causalidview.family import VIEWS, CausalIDViewFamily, cached_world, projection_errors
from arena_family_causalidview.scm import EFFECT_FAMILIES
from arena_task_effect.effect import EffectDataset
from causalarena.plugins import get_registry

ROLES = {"bd": ["confounder"], "fd": ["mediator"], "iv": ["instrument"],
         "px": ["treatment_proxy", "outcome_proxy"], "hc": []}


def test_forty_worlds_eight_per_family_listed_without_generating(family):
    cached_world.cache_clear()
    ids = CausalIDViewFamily().ids()
    assert len(ids) == 120 and ids[:4] == ["w00-linear", "w00-linear-stay", "w00-linear-move", "w01-quadratic"]
    assert ids[-1] == "w39-mlp-move"
    counts = CausalIDViewFamily(variants="original").expected_counts()["effect_family"]
    assert counts == {f: 8 for f in EFFECT_FAMILIES}
    assert cached_world.cache_info().currsize == 0  # nothing generated


def test_options_from_cli_strings():
    fam = CausalIDViewFamily(worlds="10", variants="move,original", per_family="1")
    assert fam.ids() == ["w00-linear", "w00-linear-move", "w01-quadratic", "w01-quadratic-move", "w02-threshold",
                         "w02-threshold-move", "w03-fourier", "w03-fourier-move", "w04-mlp", "w04-mlp-move"]
    inst = fam.instances()[0]
    assert inst.factors == {"effect_family": "linear", "world": "w00-linear", "variant": "original",
                            "n_context": 1024, "n_query": 100}
    assert CausalIDViewFamily(per_family=2).ids()[-1] == "w09-mlp-move"


@pytest.mark.parametrize("opts, match", [
    ({"worlds": "ten"}, "worlds='ten' is not an integer"),
    ({"worlds": 0}, "worlds=0 must be >= 1"),
    ({"variants": "original,shift"}, "variants='original,shift'"),
    ({"wrolds": 3}, r"unknown option\(s\) \['wrolds'\]"),
])
def test_bad_options_are_named(opts, match):
    with pytest.raises(ValueError, match=match):
        CausalIDViewFamily(**opts)


def test_ids_parse_and_select():
    fam = CausalIDViewFamily(worlds=2)
    assert fam.instance("w17-threshold-stay").factors["variant"] == "stay"
    assert [i.scm_id for i in fam.select(["w39-mlp", "nope", "w01-linear"])] == ["w39-mlp"]
    with pytest.raises(KeyError, match="effect family 'quadratic', not 'linear'"):
        fam.instance("w01-linear")


def test_registered_through_entry_point():
    info = get_registry().family("causalidview")
    assert info.task == "effect" and info.kind == "synthetic" and info.distribution == "arena-family-causalidview"
    assert info.load() is CausalIDViewFamily


def test_paired_view_integrity_all_worlds(originals):
    """App. D.1: the 5 views of each of the 40 worlds share X, T, Y, unit ids, membership, ordered query ids and
    oracle targets bit for bit; each view equals the master world's projection (its auxiliaries included)."""
    for inst in originals:
        ref = inst.dataset("hc", 0)
        ref_tau = inst.oracle("hc", 0).tau
        w = inst.world(0)
        for view in VIEWS:
            ds = inst.dataset(view, 0)
            assert ds.roles == ROLES[view] and ds.view == view and ds.target == "cate"
            for name in ("X", "T", "Y", "X_query", "unit_ids", "query_ids"):
                assert np.array_equal(getattr(ds, name), getattr(ref, name)), (inst.scm_id, view, name)
            assert np.array_equal(inst.oracle(view, 0).tau, ref_tau)
            assert np.array_equal(inst.oracle(view, 0).query_ids, ds.query_ids)
            assert projection_errors(inst, w, view, 0) == []
        assert ref.n == 1024 and ref.q == 100
        assert not set(ref.unit_ids) & set(ref.query_ids)


def test_variants_share_everything_but_y(family):
    fam = CausalIDViewFamily(worlds=3)
    for k in range(3):
        o, s, m = (fam.instances()[3 * k + j] for j in range(3))
        for view in VIEWS:
            do, ds_, dm = (i.dataset(view, 0) for i in (o, s, m))
            for name in ("X", "T", "X_query", "unit_ids", "query_ids"):
                assert np.array_equal(getattr(do, name), getattr(ds_, name))
                assert np.array_equal(getattr(do, name), getattr(dm, name))
            for role in do.auxiliary:
                assert np.array_equal(do.auxiliary[role], ds_.auxiliary[role])
                assert np.array_equal(do.auxiliary_query[role], dm.auxiliary_query[role])
            assert not np.array_equal(do.Y, ds_.Y) and not np.array_equal(do.Y, dm.Y)
            assert do.metadata["seed"] == ds_.metadata["seed"] == dm.metadata["seed"]
        tau = o.oracle("bd", 0).tau
        assert np.array_equal(s.oracle("bd", 0).tau, tau) and np.array_equal(m.oracle("bd", 0).tau, 2 * tau)


def test_no_oracle_in_what_a_worker_receives(originals):
    """The .npz a method process gets holds no potential outcome, counterfactual mediator or τ array."""
    for inst in originals[:10]:
        w = inst.world(0)
        secrets = {}
        for variant in ("original", "stay", "move"):
            po = w.outcomes(variant)
            secrets.update({f"Y0-{variant}": po["Y0"], f"Y1-{variant}": po["Y1"], f"tau-{variant}": po["tau"]})
        secrets.update({"M0": w.M0, "M1": w.M1})
        for view in VIEWS:
            ds = inst.dataset(view, 0)
            with np.load(io.BytesIO(ds.without_truth().to_npz_bytes()), allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
            for name, arr in arrays.items():
                if arr.dtype.kind not in "fi" or arr.ndim == 0:
                    continue
                cols = arr.reshape(arr.shape[0], -1).T  # (k, rows)
                for ids in (ds.unit_ids, ds.query_ids):
                    if cols.shape[1] != ids.shape[0]:
                        continue
                    names = [k for k in secrets if not (k.startswith("M") and view == "fd")]  # M = M(T) is fd's
                    table = np.stack([secrets[k][ids] for k in names])  # (s, rows)
                    same = np.isclose(cols[:, None, :], table[None, :, :]).all(axis=2)  # (k, s)
                    assert not same.any(), (inst.scm_id, view, name, [names[j] for j in np.nonzero(same)[1]])
            meta = str(arrays["metadata"]) + str(arrays["options"])
            assert "tau" not in meta and "Y0" not in meta
        # the factual mediator is M(T), never a full potential-mediator array
        fd = inst.dataset("fd", 0)
        col = fd.auxiliary["mediator"][:, 0]
        assert not np.allclose(col, w.M0[fd.unit_ids]) and not np.allclose(col, w.M1[fd.unit_ids])


def test_byte_identical_regeneration():
    fam = CausalIDViewFamily(worlds=5)
    first = {(i.scm_id, v): i.dataset(v, 0).to_npz_bytes() for i in fam.instances() for v in VIEWS}
    cached_world.cache_clear()
    again = {(i.scm_id, v): i.dataset(v, 0).to_npz_bytes() for i in CausalIDViewFamily(worlds=5).instances()
             for v in VIEWS}
    assert first == again
    ds = EffectDataset.load(first[("w00-linear", "px")])
    assert ds.columns["treatment_proxy"] == ["Zp"] and ds.metadata["factors"]["world"] == "w00-linear"


def test_context_length_override_keeps_the_queries():
    inst = CausalIDViewFamily().instance("w05-linear")
    full, short = inst.dataset("iv", 0), inst.dataset("iv", 0, n=160)
    assert short.n == 160 and np.array_equal(short.unit_ids, full.unit_ids[:160])
    assert np.array_equal(short.X, full.X[:160]) and np.array_equal(short.Y, full.Y[:160])
    assert np.array_equal(short.X_query, full.X_query) and np.array_equal(short.query_ids, full.query_ids)
    assert np.array_equal(inst.oracle("iv", 0, n=160).tau, inst.oracle("iv", 0).tau)
    assert np.array_equal(inst.dataset("iv", 0, standardise=False).X, full.X)  # standardise is ignored
    with pytest.raises(ValueError, match="n = 2000 context units"):
        inst.dataset("iv", 0, n=2000)


def test_bad_cells_are_named():
    inst = CausalIDViewFamily().instance("w00-linear")
    with pytest.raises(ValueError, match="unknown view 'obs'"):
        inst.dataset("obs", 0)
    with pytest.raises(ValueError, match="replicate 1 out of range"):
        inst.dataset("bd", 1)
    with pytest.raises(ValueError, match="protocol 'soft'"):
        inst.dataset("bd", 0, protocol="soft")


def test_metadata_and_fingerprint():
    fam = CausalIDViewFamily(worlds=1)
    o, s = fam.instances()[:2]
    md = o.dataset("fd", 0).metadata
    assert md["family"] == "causalidview" and md["scm_id"] == "w00-linear" and md["split"] == "fd"
    assert md["replicate"] == 0 and md["factors"]["variant"] == "original"
    fps = {i.fingerprint() for i in fam.instances()}
    assert len(fps) == 3 and all(len(f) == 16 for f in fps)
    assert o.fingerprint() == CausalIDViewFamily().instance("w00-linear").fingerprint()
    assert o.fingerprint() != CausalIDViewFamily(n_context=512).instance("w00-linear").fingerprint()


def test_replicates_option():
    inst = CausalIDViewFamily(worlds=1, n_replicates=2).instances()[0]
    a, b = inst.dataset("bd", 0), inst.dataset("bd", 1)
    assert inst.n_replicates == 2 and not np.array_equal(a.X, b.X)
    assert a.metadata["seed"] != b.metadata["seed"]
