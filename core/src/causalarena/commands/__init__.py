"""Built-in plugin: the core's ``arena`` subcommands, one module each.

Each command module exposes ``configure(parser)`` (adds its arguments) and
``run(args) -> int`` (the exit code); :mod:`causalarena.cli` imports a module
only when its command runs, so ``arena --help`` reads nothing but the records
below. Commands of other distributions come through the same hook
(``arena_commands``): ``sandbox`` from arena-sandbox, ``validate`` and
``card`` from arena-cards, ``export`` from arena-export.

A plugin's command imports the public helpers from here::

    from causalarena.commands import UsageError, parse_family_options, add_family_option

and ``console()`` (a rich console, 200 columns when stdout is not a terminal) and
``comma_list(text)`` (``"a, b,,c"`` → ``["a", "b", "c"]``), as the core's commands use them.
A command that selects instances the way ``arena run`` does (``--family``, ``--scm``,
``--fresh``, ``--splits``) uses the same helpers: ``registry_of(args)`` (the registry of
this invocation), ``select(table, names, what)`` (records by name, a :class:`UsageError`
listing the installed ones), ``apply_fresh(args, registry, families, options)``,
``family_instances(registry, families, options, scm_ids)`` (``(family, instance)`` pairs),
``validate_splits(text)`` and ``check_positive(option, value, integer=False)``.
A :class:`UsageError` is printed as one line with exit code 2. The core's
own helpers (:mod:`causalarena.commands._common`) are not public: the lint's
import contracts forbid plugins to import them.
"""

from __future__ import annotations

from typing import Iterator

from ..hookspecs import hookimpl
from ..records import CommandInfo
from ._common import UsageError, add_family_option, parse_family_options
from ._common import _apply_fresh as apply_fresh
from ._common import _console as console
from ._common import _csv as comma_list
from ._common import _family_instances as family_instances
from ._common import _positive as check_positive
from ._common import _registry as registry_of
from ._common import _select as select
from ._common import _validate_splits as validate_splits

__all__ = ["UsageError", "parse_family_options", "add_family_option", "console", "comma_list", "arena_commands",
           "apply_fresh", "check_positive", "family_instances", "registry_of", "select", "validate_splits"]

_HERE = __name__


@hookimpl
def arena_commands() -> Iterator[CommandInfo]:
    """The core's commands, in the order ``arena --help`` lists them."""
    yield CommandInfo(name="plugins", factory=f"{_HERE}.plugins",
                      help="list installed plugins with distribution and version")
    yield CommandInfo(name="methods", factory=f"{_HERE}.plugins:methods", help="list installed methods")
    yield CommandInfo(name="families", factory=f"{_HERE}.plugins:families", help="list installed families")
    yield CommandInfo(name="show", factory=f"{_HERE}.show",
                      help="print an SCM spec as JSON, or list a family's instances")
    yield CommandInfo(name="run", factory=f"{_HERE}.run",
                      help="run the grid (resumes), print and write the leaderboard")
    yield CommandInfo(name="audit", factory=f"{_HERE}.audit",
                      help="regenerate and audit a family's SCMs (App. A.2 gates, resample statistics)")
    yield CommandInfo(name="report", factory=f"{_HERE}.report", help="print the leaderboard of a results folder")
    yield CommandInfo(name="rescore", factory=f"{_HERE}.rescore",
                      help="recompute metrics from the stored predictions, without running any method")
