"""``arena audit FAMILY``: regenerate a family's released tables and run its own audit.

Generic over families: the audit is :meth:`Family.audit
<causalarena.family.Family.audit>` (App. A.2 gates and resample statistics
for the synthetic grid, the card gates of App. A.3 for scenario cards). This
command writes the records (``--out``, JSON lines), prints the pass counts and
the failure lines, then the renderables of :meth:`Family.audit_details
<causalarena.family.Family.audit_details>` (resample statistics, factor counts
against the schedule …). Exit code 1 when any record failed or the details
say not ok.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, Dict, List

from ._common import (
    UsageError,
    _apply_fresh,
    _console,
    _csv,
    _family_object,
    _positive,
    _registry,
    add_family_option,
    parse_family_options,
)

#: keys every audit record has (the contract of :meth:`Family.audit <causalarena.family.Family.audit>`)
RECORD_KEYS = ("scm_id", "passed", "tables", "failed_tables", "failures", "errors")
#: at most this many "not built" lines are printed (every record is in ``--out``)
MAX_ERROR_LINES = 20


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena audit``."""
    sp = parser
    sp.add_argument("family", help="family name, e.g. synthetic")
    add_family_option(sp)
    sp.add_argument("--scm", help="comma list of instance ids to keep")
    sp.add_argument("--splits", help="comma list of obs, obs_int (default: both)")
    sp.add_argument("--replicates", type=int, help="replicates per split (default: the family's)")
    sp.add_argument("--fresh", type=int, metavar="ROUND", help="audit fresh round ROUND instead")
    sp.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)), help="parallel processes")
    sp.add_argument("--out", help="write one JSON audit record per SCM to this file (JSON lines)")


def _check_records(records: List[Dict[str, Any]], family: str, distribution: str) -> None:
    """Raise :class:`~causalarena.plugins.PluginError` naming the family when a record breaks the contract."""
    from ..plugins import PluginError

    for rec in records:
        missing = [k for k in RECORD_KEYS if k not in rec]
        if missing:
            raise PluginError(f"family {family!r} ({distribution}): audit record {rec.get('scm_id', '?')!r} "
                              f"lacks {missing}")


def run(args: argparse.Namespace) -> int:
    """Audit the family under its options; 0 when every record passes and the details are ok, else 1.

    Raises:
        UsageError: a bad value, a family without an audit, or nothing selected.
    """
    from rich.markup import escape

    registry = _registry(args)
    _positive("--jobs", args.jobs, integer=True)
    _positive("--replicates", args.replicates, integer=True)
    info = registry.family(args.family)
    opts = {args.family: parse_family_options(args.family_option).get(args.family, {})}
    _apply_fresh(args, registry, [info], opts)
    fam = _family_object(registry, args.family, opts[args.family])
    console = _console()
    console.print(f"auditing family {args.family!r} with {args.jobs} process(es) …")
    t0 = time.perf_counter()
    try:
        records = fam.audit(_csv(args.scm), _csv(args.splits), args.replicates, args.jobs)
    except NotImplementedError:
        raise UsageError(f"family {args.family!r} has no audit") from None
    elapsed = time.perf_counter() - t0
    if not records:
        raise UsageError("nothing to audit (check --scm and the family options)")
    _check_records(records, args.family, info.distribution)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, default=str) + "\n")
    passed = sum(bool(r["passed"]) for r in records)
    tables = sum(int(r["tables"]) for r in records)
    bad_tables = sum(int(r["failed_tables"]) for r in records)
    ok = passed == len(records)
    console.print(f"[{'green' if ok else 'red'}]{passed} / {len(records)} configurations pass[/]; "
                  f"{tables - bad_tables} / {tables} tables pass; {elapsed:.1f} s")
    errors = [(rec["scm_id"], err) for rec in records for err in rec["errors"]]
    for scm_id, err in errors[:MAX_ERROR_LINES]:
        console.print(f"[red]not built[/red] {escape(str(scm_id))}: {escape(str(err))}")
    if len(errors) > MAX_ERROR_LINES:
        console.print(f"… and {len(errors) - MAX_ERROR_LINES} more" + (f" (all in {args.out})" if args.out else ""))
    for rec in records:
        for f in rec["failures"][:3]:
            console.print(f"[red]fail[/red] {escape(str(rec['scm_id']))} {f['split']} rep {f['replicate']}: "
                          f"{escape(str(f['reason']))}")
    renderables, details_ok = fam.audit_details(records)
    for item in renderables:
        console.print(item)
    return 0 if ok and details_ok else 1
