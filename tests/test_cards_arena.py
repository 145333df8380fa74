"""Semantic and formula families in the arena (issue 4 "Done when"): leaderboard rows, a card folder from anywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
from conftest import run_arena

import arena_family_formula
import arena_family_semantic


def test_both_card_families_reach_the_leaderboard_beside_synthetic(tmp_path):
    proc = run_arena("run", "--methods", "randomregress,gies", "--families", "synthetic,semantic,formula",
                     "--family-option", "synthetic.graphs=er", "--family-option", "synthetic.per_cell=1",
                     "--family-option", "semantic.ids=wildfire-smoke-shelter",
                     "--family-option", "formula.ids=barometric-pressure-reduction",
                     "--replicates", "1", "--no-progress", "--results", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    cards = runs[runs["family"].isin(["semantic", "formula"])]
    # randomregress: obs ok, obs+int missing (it ignores interventions); gies: both splits ok
    got = {(r.family, r.method, r.split): r.status for r in cards.itertuples()}
    for fam in ("semantic", "formula"):
        assert got[(fam, "randomregress", "obs")] == "ok"
        assert got[(fam, "gies", "obs")] == "ok" and got[(fam, "gies", "obs_int")] == "ok"
    board = pd.read_csv(tmp_path / "leaderboard.csv")
    text = board.to_string()
    assert "semantic" in text and "formula" in text and "synthetic" in text


def test_a_card_folder_outside_the_repo_runs_in_the_arena(tmp_path):
    mine = tmp_path / "third-party-cards"
    mine.mkdir()
    src = Path(arena_family_semantic.CARDS_DIR) / "public_health" / "wildfire-smoke-shelter.yaml"
    (mine / "my-smoke-day.yaml").write_text(src.read_text().replace("id: wildfire-smoke-shelter", "id: my-smoke-day"))
    bad = mine / "broken.yaml"
    bad.write_text("format: causalarena.card/1\nid: broken\n")
    proc = run_arena("validate", str(mine), check=False)
    assert proc.returncode == 1 and "broken.yaml" in proc.stdout and "1 passed, 1 failed" in proc.stdout
    res = tmp_path / "res"
    proc = run_arena("run", "--methods", "randomregress", "--families", "semantic",
                     "--family-option", f"semantic.cards={mine}", "--family-option", "semantic.shipped=false",
                     "--replicates", "1", "--splits", "obs", "--no-progress", "--results", str(res), check=False)
    runs = pd.read_parquet(res / "runs.parquet")
    status = dict(zip(runs["scm_id"], runs["status"]))
    assert status == {"my-smoke-day": "ok", "broken": "failed"}
    assert "failed validation" in runs.set_index("scm_id").loc["broken", "error"]


def test_validate_and_card_commands_on_the_shipped_pools(tmp_path):
    for pkg in (arena_family_semantic, arena_family_formula):
        n = len(list(Path(pkg.CARDS_DIR).rglob("*.yaml")))  # the pools grow (issue 23): every shipped card
        assert n >= 20
        proc = run_arena("validate", "--strict", str(pkg.CARDS_DIR))
        assert f"{n} card(s): {n} passed, 0 failed; 0 error(s), 0 warning(s)" in proc.stdout
    proc = run_arena("card", "show", "barometric-pressure-reduction")
    assert "hypsometric" in proc.stdout.lower() and "p_station" in proc.stdout
    run_arena("card", "render", "semantic/wildfire-smoke-shelter", "--out", str(tmp_path))
    assert (tmp_path / "wildfire-smoke-shelter.png").stat().st_size > 10_000
    assert (tmp_path / "wildfire-smoke-shelter.svg").exists()
    shutil.rmtree(tmp_path)


def test_card_components_and_commands_are_listed_from_arena_cards():
    rows = json.loads(run_arena("plugins", "--json").stdout)
    mine = {(r["kind"], r["name"]) for r in rows if r["distribution"] == "arena-cards"}
    assert mine == {("root distribution", "card_root"), ("mechanism", "card_expression"), ("noise", "card_channel"),
                    ("command", "validate"), ("command", "card")}
    assert "validate" in run_arena("--help").stdout


def test_declared_intervention_values_under_fixed_setpoint():
    """A card's declared do-values hold under the synthetic family's App. A.2 protocols too (both installed here)."""
    import numpy as np

    from arena_cards import compile_card, load_card
    from causalarena.protocol import sample_cell

    example = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
    spec = compile_card(load_card(example))
    j = spec.names.index("reminder_sent")
    fixed = sample_cell(spec, "semantic", "obs_int", 0, protocol="fixed_setpoint")
    rows = fixed.intervention_mask[:, j]
    assert rows.sum() == 200
    assert set(np.unique(fixed.x[rows, j])) == {0.0, 1.0}


def test_the_reserved_card_pool_runs_only_with_the_key(tmp_path):
    """Issue 23 item 4: sealed reserved cards (arena_cards.seal). Without CAUSALARENA_RESERVED_KEY the
    reserved pool's run is refused (exit 2, one line naming the variable) and the default run is the
    public half; with the key the reserved pool runs."""
    from arena_cards import seal

    example = Path(__import__("arena_cards").__file__).with_name("example-clinic-reminders.yaml")
    pool = tmp_path / "pool" / "healthcare_delivery"
    pool.mkdir(parents=True)
    for c in "abc":
        (pool / f"example-{c}.yaml").write_text(
            example.read_text().replace("id: example-clinic-reminders", f"id: example-{c}"))
    seal.seal_pool(tmp_path / "pool", key="k-test", write=True)
    (reserved,) = [seal.sealed_id(p) for p in seal.sealed_files(tmp_path / "pool")]
    base = ["run", "--methods", "randomregress", "--families", "semantic", "--replicates", "1", "--no-progress",
            "--family-option", "semantic.shipped=false", "--family-option", f"semantic.cards={tmp_path / 'pool'}"]
    no_key = {seal.KEY_ENV: ""}
    proc = run_arena(*base, "--family-option", "semantic.pool=reserved", "--results", str(tmp_path / "r0"),
                     env=no_key, check=False)
    assert proc.returncode == 2 and "set CAUSALARENA_RESERVED_KEY" in proc.stderr, proc.stderr
    run_arena(*base, "--results", str(tmp_path / "r1"), env=no_key)
    assert reserved not in set(pd.read_parquet(tmp_path / "r1" / "runs.parquet")["scm_id"])
    run_arena(*base, "--family-option", "semantic.pool=reserved", "--results", str(tmp_path / "r2"),
              env={seal.KEY_ENV: "k-test"})
    assert set(pd.read_parquet(tmp_path / "r2" / "runs.parquet")["scm_id"]) == {reserved}
