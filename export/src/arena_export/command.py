"""``arena export``: datasets (Parquet), specs (JSON), adjacency (CSV), audit records.

Contributed by arena-export (:mod:`arena_export.plugin`). Layout and formats: :mod:`arena_export`. Each instance's ``audit.json``
comes from its own family's audit (:meth:`Family.audit
<causalarena.family.Family.audit>`); a family without one writes none
(``audit_passed: null`` in ``release.json``). Exit code 1 when an audit failed.
"""

from __future__ import annotations

import argparse
import json
import sys

from causalarena.commands import (
    UsageError,
    add_family_option,
    apply_fresh,
    check_positive,
    comma_list,
    console,
    family_instances,
    parse_family_options,
    registry_of,
    select,
    validate_splits,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena export``."""
    sp = parser
    sp.add_argument("--family", help="comma list (default: all)")
    sp.add_argument("--scm", help="comma list of instance ids")
    sp.add_argument("--splits", help="comma list")
    sp.add_argument("--replicates", type=int, help="replicates per split")
    sp.add_argument("--raw", action="store_true", help="export raw (unstandardised) data")
    sp.add_argument("--out", default="arena-export")
    sp.add_argument("--fresh", type=int, metavar="ROUND", help="export fresh round ROUND (needs the operator key)")
    sp.add_argument("--no-audit", action="store_true", help="skip the audit records (audit.json)")
    add_family_option(sp)


def run(args: argparse.Namespace) -> int:
    """Export the selected instances to ``--out`` with ``release.json``; 1 when an audit failed, else 0.

    Raises:
        UsageError: a bad value or an empty selection.
    """
    from . import export_instance, write_release_manifest

    registry = registry_of(args)
    check_positive("--replicates", args.replicates, integer=True)
    validate_splits(args.splits)
    families = select(registry.families, comma_list(args.family), "family(ies)")
    options = parse_family_options(args.family_option)
    apply_fresh(args, registry, families, options)
    pairs = family_instances(registry, families, options, comma_list(args.scm))
    instances = [inst for _, inst in pairs]
    if not instances:
        raise UsageError("nothing to export (check --family and --scm)")
    other = sorted({f"{i.family} ({i.task})" for i in instances if getattr(i, "task", "discovery") != "discovery"})
    if other:
        raise UsageError(f"arena export writes discovery tables (a graph per table); {other} serve another "
                         "task: their tables are written by `arena run` into the results folder's datasets/ cache "
                         "(read with that task's loader, causalarena.tasks.Task.loader)")
    wanted_splits = comma_list(args.splits)
    if wanted_splits:
        missing = [f"{i.family}/{i.scm_id}" for i in instances if not set(wanted_splits) & set(i.splits)]
        if missing:
            raise UsageError(f"--splits {args.splits}: not provided by {missing} (e.g. real tables are obs only)")
    written = 0
    for fam, inst in pairs:
        written += len(export_instance(inst, args.out, splits=comma_list(args.splits),
                                       replicates=(list(range(args.replicates))
                                                   if args.replicates is not None else None),
                                       standardise=not args.raw, audit=not args.no_audit, family=fam))
    manifest = write_release_manifest(
        args.out, instances, command="arena " + " ".join(sys.argv[1:]),
        settings={"standardised": not args.raw, "splits": comma_list(args.splits) or "all the instance provides",
                  "replicates": args.replicates or "all the instance provides",
                  "columns": "one float64 column per variable, mask__<var> (bool, True where an intervention set "
                             "the entry), regime (int64: -1 observational, else the row's first target index)"})
    failed = [e["scm_id"] for e in json.loads(manifest.read_text())["instances"] if e["audit_passed"] is False]
    console().print(f"exported {len(instances)} instances ({written + 1} files) to {args.out}/"
                     + (f"; [red]audit failed for {failed[:10]}[/red]" if failed else ""))
    return 1 if failed else 0
