"""The domain analysis of issue 23 (paper §6.3, Fig. 17) on the public cards of a results folder.

Usage (in an environment with causal-arena, arena-cards and arena-diagnosis)::

    python scripts/domain_shift_public.py RESULTS

For each of the semantic and formula families: the self-centred domain shift
(a method's mean F1 over a domain's public cards minus its own mean over the
family's public cards, obs split; ``arena_diagnosis.curves.domain_shift``), the
per-method SD of its shifts, the family means and the cards per domain. The
public / reserved split is ``arena_cards.seal.pool_split`` of this checkout's
card folders, so runs of reserved cards in the store are left out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import causalarena
from arena_cards.seal import pool_split
from arena_diagnosis.curves import domain_shift

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a results folder of `arena run` over the semantic and formula families")
    args = ap.parse_args()
    runs = causalarena.open(args.results).runs
    public = {}
    for fam in ("semantic", "formula"):
        verdict, _ = pool_split(REPO / "families" / fam / "src" / f"arena_family_{fam}" / "cards")
        public[fam] = {cid for cid, pool in verdict.items() if pool == "public"}
    keep = [f in public and s in public[f] for f, s in zip(runs["family"], runs["scm_id"])]
    pub = runs[keep]
    print(f"{len(runs)} runs, {len(pub)} on public cards:",
          pub.groupby("family")["scm_id"].nunique().to_dict())
    for fam in ("semantic", "formula"):
        ds = domain_shift(pub, fam)
        if not len(ds):
            continue
        obs = pub[(pub["family"] == fam) & (pub["split"] == "obs")]
        print(f"\n## {fam} (obs): F1 on the domain minus the method's own {fam} mean")
        print(ds.pivot(index="domain", columns="method", values="shift").round(3).to_string())
        print("SD of the shifts:", ds.groupby("method")["domain_sd"].first().round(3).to_dict())
        print("own mean F1:", obs.groupby("method")["f1"].mean().round(3).to_dict())
        domains = obs["factors"].map(lambda t: json.loads(t or "{}").get("domain"))
        print("cards per domain:", obs.groupby(domains)["scm_id"].nunique().to_dict())


if __name__ == "__main__":
    main()
