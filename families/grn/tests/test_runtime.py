"""Run time: no network request, nothing of jax / tensorflow / haiku imported, no ``avici`` entry
left in sys.modules (a later ``import avici`` gets the real package), the pinned table
reproduced in a fresh process; the family's options and listing."""

from __future__ import annotations

import json

import pytest

from arena_family_grn.family import GRNFamily, parse_id
from arena_testkit.offline import run_offline

NO_NETWORK = r"""
import hashlib, json, sys
from arena_family_grn.family import GRNFamily
fam = GRNFamily(sizes="10")
shapes = {}
for inst in fam.instances():
    for split in inst.splits:
        shapes[f"{inst.scm_id}/{split}"] = list(inst.dataset(split, 0).X.shape)
    inst.fingerprint()
raw = fam.instance("ecoli-d10-0").dataset("obs_int", 0, standardise=False, n=200)
heavy = sorted(m for m in ("jax", "jaxlib", "tensorflow", "haiku", "optax", "huggingface_hub") if m in sys.modules)
print(json.dumps({"attempts": attempts, "heavy": heavy, "shapes": shapes,
                  "avici": sorted(m for m in sys.modules if m == "avici" or m.startswith("avici.")),
                  "sha": hashlib.sha256(raw.X.tobytes()).hexdigest()}))
"""


def test_tables_build_with_the_network_refused_and_without_the_old_stack():
    from test_sergio import PINNED

    proc = run_offline(NO_NETWORK, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["attempts"] == [] and out["heavy"] == [] and out["avici"] == []
    assert out["shapes"] == {"ecoli-d10-0/obs": [1000, 10], "ecoli-d10-0/obs_int": [1000, 10],
                             "yeast-d10-0/obs": [1000, 10], "yeast-d10-0/obs_int": [1000, 10]}
    assert out["sha"] == PINNED  # byte-identical in a fresh process


def test_listing_reads_no_file_and_ids_follow_the_options():
    fam = GRNFamily()
    assert fam.ids() == ["ecoli-d10-0", "ecoli-d20-0", "ecoli-d50-0", "ecoli-d100-0",
                         "yeast-d10-0", "yeast-d20-0", "yeast-d50-0", "yeast-d100-0"]
    assert [(s.scm_id, s.d) for s in fam.listing()][3] == ("ecoli-d100-0", 100)
    assert GRNFamily(sources="yeast", sizes="15, 30", graphs=2).ids() == [
        "yeast-d15-0", "yeast-d15-1", "yeast-d30-0", "yeast-d30-1"]
    inst = fam.instance("yeast-d30-7")  # any well-formed id
    assert (inst.source, inst.d, inst.factors["subnetwork"]) == ("yeast", 30, 7)
    assert inst._subnetwork is None  # nothing sampled until asked
    assert parse_id("ecoli-d100-3") == ("ecoli", 100, 3)
    assert fam.select(["ecoli-d10-0", "nope"])[0].scm_id == "ecoli-d10-0"


@pytest.mark.parametrize("options,message", [
    ({"source": "ecoli"}, r"unknown option\(s\) \['source'\]"),
    ({"sources": "ecoli,human"}, r"unknown source\(s\) \['human'\]"),
    ({"sizes": "10,0"}, "sizes: expected a positive integer, got '0'"),
    ({"sizes": "1"}, r"sizes: \[1\] out of range 2..1564"),
    ({"graphs": "two"}, "graphs: expected a positive integer"),
    ({"output": "tpm"}, r"output: 'tpm' is not one of \['counts', 'clean'\]"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        GRNFamily(**options)


def test_bad_ids_splits_replicates_and_protocols_are_named():
    fam = GRNFamily(sizes="10")
    with pytest.raises(KeyError, match="ids are <source>-d<genes>-<k>"):
        fam.instance("human-d10-0")
    with pytest.raises(KeyError, match="asks for 5000 genes; ecoli has 1565"):
        fam.instance("ecoli-d5000-0")
    inst = fam.instance("ecoli-d10-0")
    with pytest.raises(ValueError, match="only the 'default' protocol applies, not 'soft'"):
        inst.dataset("obs_int", 0, protocol="soft")
    with pytest.raises(ValueError, match="replicate 5 out of range 0..4"):
        inst.dataset("obs", 5)
