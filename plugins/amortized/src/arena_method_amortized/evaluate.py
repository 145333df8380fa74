"""In-prior vs out-of-prior scores of a results folder: ``python -m arena_method_amortized.evaluate --results DIR``.

For each method and split of the synthetic family's main-benchmark runs,
the mean over SCMs (replicate means first, CausalArena §5.1) of F1, AUROC
and SHD on the units inside the prior (graph family and d both in it, the
shipped checkpoint's: er / sf, d 10–20) and outside it, and the count of
SCMs. Reads ``runs.parquet`` through the diagnosis layer's
unit table, so the numbers are the ones the report slices.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

METRICS = ("f1", "auroc", "shd")


def in_prior_table(results: str, graphs: Sequence[str] = ("er", "sf"), d_range=(10, 20)):
    """DataFrame ``method, split, slice (in_prior / out_of_prior), scms, f1, auroc, shd``.

    Raises:
        FileNotFoundError: no runs in ``results``.
    """
    import pandas as pd

    from arena_diagnosis.slices import unit_scores  # the report's own unit table (arena-diagnosis)

    runs = _load_runs(results)
    units = unit_scores(runs, list(METRICS))
    units = units[units["family"] == "synthetic"].copy()
    units["graph"] = units["scm_id"].map(lambda s: str(s).split("-")[0])
    inside = units["graph"].isin(list(graphs)) & units["d"].between(*d_range)
    units["slice"] = inside.map({True: "in_prior", False: "out_of_prior"})
    out = (units.groupby(["method", "split", "slice"])
           .agg(scms=("scm_id", "nunique"), **{m: (m, "mean") for m in METRICS}).reset_index())
    return pd.DataFrame(out)


def _load_runs(results: str):
    import os

    import pandas as pd

    path = os.path.join(results, "runs.parquet")  # written by `arena run` / `arena report`
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{results}: no runs.parquet (run `arena report --results {results}` first)")
    return pd.read_parquet(path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena_method_amortized.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument("--results", required=True)
    args = parser.parse_args(argv)
    try:
        table = in_prior_table(args.results)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
