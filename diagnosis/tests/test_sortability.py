"""The sortability table (Reisach et al. 2021 / 2023; the ``sortability`` analysis), moved from the core."""

from __future__ import annotations

import pandas as pd
import pytest

from arena_diagnosis.sortability import sortability_table


def test_sortability_table_per_family_and_slice_flags_extremes():
    import json

    rows = []
    # family "easy": varsortability 0.95 on every dataset → flagged; "fair": 0.5 → not flagged
    for fam, vs, graphs in (("easy", 0.95, ("er", "sf")), ("fair", 0.5, ("er",))):
        for k, g in enumerate(graphs):
            for rep in range(2):
                for method in ("a", "b"):  # two methods on one dataset count the dataset once
                    rows.append(dict(family=fam, scm_id=f"{g}-{k}", split="obs", replicate=rep, method=method,
                                     status="ok", varsortability=vs + (0.01 if rep else -0.01),
                                     r2_sortability=0.4, factors=json.dumps({"graph": g})))
    runs = pd.DataFrame(rows)
    t = sortability_table(runs)
    easy = t[t.family == "easy"].iloc[0]
    assert easy.datasets == 4 and easy.varsortability_mean == pytest.approx(0.95)
    assert easy.flag == "varsortability > 0.9"
    fair = t[t.family == "fair"].iloc[0]
    assert fair.datasets == 2 and fair.flag == "" and fair.r2_sortability_mean == pytest.approx(0.4)
    by_graph = sortability_table(runs, slice_by="graph")
    assert sorted(zip(by_graph.family, by_graph.graph, by_graph.datasets)) == [
        ("easy", "er", 2), ("easy", "sf", 2), ("fair", "er", 2)]
