"""``arena plugins``, ``arena methods``, ``arena families``: what is installed.

``arena plugins [--json] [--strict]`` lists every record (methods, families,
interventions, metrics, isolation backends, components, commands) with its
distribution and version, and every plugin error (an entry point that does not
import, a misspelled hook). ``arena methods`` and ``arena families`` list one
kind with its own columns (:data:`methods`, :data:`families`).
"""

from __future__ import annotations

import argparse
import json

from ._common import _console, _print_errors, _registry


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena plugins``."""
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true", help="fail when an entry point does not import")


def run(args: argparse.Namespace) -> int:
    """Print the table (or JSON rows) of every installed record and plugin error; 0."""
    registry = _registry(args, args.strict)
    rows = registry.as_rows()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from rich.table import Table

    console = _console()
    table = Table(title="CausalArena plugins")
    for col in ("kind", "name", "distribution", "version", "description"):
        table.add_column(col)
    kinds = list(dict.fromkeys(row["kind"] for row in rows))  # the registry's kind order, names A-Z within
    for row in sorted(rows, key=lambda r: (kinds.index(r["kind"]), str(r["name"]))):
        style = "red" if row["kind"] == "error" else None
        table.add_row(*(str(row[c]) for c in ("kind", "name", "distribution", "version", "description")),
                      style=style)
    console.print(table)
    return 0


class KindListing:
    """The command listing one kind of record (``arena methods``, ``arena families``).

    Args:
        kind: a :class:`~causalarena.plugins.Registry` table (``"methods"``, ``"families"``).
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def configure(self, parser: argparse.ArgumentParser) -> None:
        """Arguments: ``--json``."""
        parser.add_argument("--json", action="store_true")

    def run(self, args: argparse.Namespace) -> int:
        """Print the installed records of the kind as a table (or JSON), then plugin errors; 0."""
        kind = self.kind
        registry = _registry(args, getattr(args, "strict", False))
        # by task (discovery first), then name: the rows of one distribution sit together by their prefix
        records = sorted(registry.kind(kind).values(), key=lambda r: (getattr(r, "task", ""), r.name))
        if args.json:
            import attrs

            print(json.dumps([attrs.asdict(r) for r in records], indent=2, default=str))
            return 0
        from rich.table import Table

        console = _console()
        table = Table(title=f"installed {kind}")
        if kind == "methods":
            cols = ("name", "task", "distribution", "version", "output", "interventions / views", "installed in",
                    "description")
            for c in cols:
                table.add_column(c)
            for r in records:
                views = r.task != "discovery"  # another task's methods list the splits (views) they take
                table.add_row(r.name, r.task, r.distribution, r.version, r.output_kind,
                              (",".join(r.views) or "any") if views else ("yes" if r.supports_interventions else "no"),
                              f"sandbox ({r.environment})" if r.environment else "this env", r.description)
        else:
            for c in ("name", "kind", "task", "distribution", "version", "description"):
                table.add_column(c)
            for r in records:
                table.add_row(r.name, r.kind, getattr(r, "task", ""), r.distribution, r.version, r.description)
        console.print(table)
        _print_errors(registry, console)
        return 0


#: ``arena methods``
methods = KindListing("methods")
#: ``arena families``
families = KindListing("families")
