"""``arena validate PATH …``: check scenario cards (files or folders) against every gate (App. A.3).

Exit codes: 0 every card passes, 1 a card fails (or, with ``--strict``, has a
warning; or no card file was found), 2 a path does not exist or a sealed card
(``*.yaml.enc``) named on the command line cannot be opened (no or another
``CAUSALARENA_RESERVED_KEY``). Sealed cards under a folder are checked with the
key set and skipped, with a note, without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Dict

from . import UsageError, run_command

NAME = "validate"
HELP = "check scenario cards (file or folder) against every gate (App. A.3)"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of ``arena validate`` to ``parser``."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help="card file(s) or folder(s)")
    parser.add_argument("--strict", action="store_true",
                        help="pool rules are errors and warnings fail (what the shipped cards must pass)")
    parser.add_argument("--no-data", action="store_true", help="static gates only (no sampling)")
    parser.add_argument("--all-tables", action="store_true",
                        help="data gates on every shipped table (both splits x 5 replicates), not only replicate 0")
    parser.add_argument("--json", action="store_true", help="one JSON record per card")
    parser.add_argument("-v", "--verbose", action="store_true", help="one status line per card (residuals)")


def run(args: argparse.Namespace) -> int:
    """Validate ``args.paths``; print one line per issue and a count line (or JSON). Returns the exit code."""
    return run_command(NAME, _run, args)


def _run(args: argparse.Namespace) -> int:
    from ..model import CardIssue
    from ..seal import KEY_ENV
    from ..validate import format_reports, residual_summary, sealed_skipped, validate_path

    reports = []
    skipped = sum(sealed_skipped(p) for p in args.paths)
    if skipped:
        print(f"note: {skipped} sealed reserved card(s) (*.yaml.enc) not checked: set {KEY_ENV} to check them",
              file=sys.stderr)
    for path in args.paths:
        try:
            reports.extend(validate_path(path, pool_severity="error" if args.strict else "warning",
                                         data=not args.no_data, all_tables=args.all_tables))
        except FileNotFoundError as exc:
            raise UsageError(str(exc)) from None
    if len(args.paths) > 1:  # duplicate ids across the given paths (validate_path checks within one)
        first: Dict[tuple, str] = {}
        for r in reports:
            key = (r.family, r.card_id)
            if r.card_id == "?" or any("duplicate" in i.message and i.field == "id" for i in r.issues):
                continue
            if key in first and first[key] != r.path:
                r.issues.append(CardIssue(card=r.path, field="id", line=None, gate="schema",
                                          message=f"duplicate {r.family} card id {r.card_id!r} (also {first[key]})"))
            first.setdefault(key, r.path)
    if args.json:
        rows = [{"path": r.path, "id": r.card_id, "family": r.family, "ok": r.ok, "stats": r.stats,
                 "issues": [{"field": i.field, "line": i.line, "gate": i.gate, "severity": i.severity,
                             "message": i.message} for i in r.issues]} for r in reports]
        print(json.dumps(rows, indent=2, default=str))
    else:
        if args.verbose:
            for r in reports:
                res = residual_summary(r)
                status = "ok" if r.ok else "FAILED"
                print(f"{r.path}: {status} ({r.family} {r.card_id}: {r.stats.get('d', '?')} variables, "
                      f"{r.stats.get('edges', '?')} edges)" + (f"; {res}" if res else ""))
        print(format_reports(reports))
    if not reports:
        print("no card files (*.yaml, *.yml) found", file=sys.stderr)
        return 1
    failed = any(not r.ok for r in reports) or (args.strict and any(r.warnings for r in reports))
    return 1 if failed else 0
